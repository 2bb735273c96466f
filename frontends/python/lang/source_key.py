"""
The offline cache's first-level key: what a kernel instance is made of, known before
the frontend runs (so before xDSL is imported).

The IR key (targets/llvm/cache.py) hashes the module the frontend built, which needs the
code generator and xDSL (some 0.3 s in a fresh process). This key hashes what the
frontend's output depends on instead, so that a warm cache hit costs a few milliseconds:

- `source`: the source text, file and first line of the kernel and of every `@ti.func` it
  names, transitively (a ti.func is found through the globals and closure variables the
  functions name);
- `names`: the value of every global and closure variable those functions name: numbers,
  strings, None and tuples of them by value, `ti.` objects (the taichi_xdsl package and
  what it defines) and the `math` module by name, data types by name, fields by symbol,
  ti.funcs by their own parts;
- `args`: the template signature: template arguments (fields by symbol, numbers by value),
  ndarray arguments by dtype, ndim, contiguity and element shape;
- `fields`: the layout of every field of the program (symbol, kind, dtype, shape, element
  shape, byte offset in the root, index offset (`offset=`), gradient links), which the
  module's field declarations carry;
- `config`: the program's options that shape code (arch, default types, debug, fast math,
  optimisation level, random seed), and the kernel's symbol.

Anything else a kernel names (an object, a class, a Python function, a module other
than taichi_xdsl and math, an ndarray held in a global) makes `source_key_parts` return
None: that kernel instance uses the IR key only. The backend adds its arch, caps, pass
pipelines and compiler version (a stat-based fingerprint of the compiler's and the
frontend's sources) and stores, beside the IR-keyed entry, a small entry mapping this key
to it (targets/llvm/backend.py). Nothing here imports xDSL.

    parts = source_key_parts(kernel, prog, args, "saxpy")
    -> {"source": "...def saxpy(...)...", "names": "(('ti', ('module', 'taichi_xdsl')),)",
        "args": "(...)", "fields": "(...)", "config": "..."}
"""

from __future__ import annotations

import ast
import builtins
import math
import types
from typing import TYPE_CHECKING, Any

from taichi_xdsl.utils.errors import TaichiError

from .dtypes import DataType
from .field import Field
from .source import closure_vars

if TYPE_CHECKING:
    from .kernel import Kernel
    from .program import Program


class _Unkeyable(Exception):
    """The kernel names something this key cannot describe: use the IR key."""


_SCALARS = (bool, int, float, complex, str, type(None))


def _field_layout(f: Field) -> tuple[Any, ...]:
    grad = f.grad.symbol if f.grad is not None else None
    primal = f.primal.symbol if f.primal is not None else None
    return (
        type(f).__qualname__,
        f.symbol,
        str(f.dtype),
        tuple(f.shape),
        tuple(f.storage_shape),  # a sparse pool's blocks (lang/pools.py)
        tuple(f.element_shape),
        f.offset,
        tuple(f.index_offset),
        grad,
        primal,
    )


def _is_ti_object(value: Any) -> bool:
    """A class or function that taichi_xdsl defines (its meaning is the compiler's)."""
    if not isinstance(value, type | types.FunctionType | types.BuiltinFunctionType):
        return False
    module = getattr(value, "__module__", None)
    return isinstance(module, str) and module.split(".")[0] == "taichi_xdsl"


class _Describer:
    """Collects the source and the named values of a kernel and its ti.funcs."""

    def __init__(self) -> None:
        self.sources: list[tuple[str, str, int, str]] = []
        self.names: list[tuple[str, str, Any]] = []
        self.seen_funcs: set[int] = set()

    def function(self, fn: Any, source: Any) -> None:
        """Add `fn` (its FunctionSource `source`) and what it names."""
        if id(fn) in self.seen_funcs:
            return
        self.seen_funcs.add(id(fn))
        owner = getattr(fn, "__qualname__", "?")
        self.sources.append(
            (owner, source.filename, source.first_line, "".join(source.lines))
        )
        scope_closure = closure_vars(fn)
        scope_globals = fn.__globals__
        tree = source.tree
        params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
        stored = {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
        }
        for name in sorted(_loaded_names(tree) - params):
            if name in stored:  # a local variable; a global of that name if keyable
                try:
                    value = (
                        scope_closure[name]
                        if name in scope_closure
                        else scope_globals[name]
                    )
                    self.names.append((owner, name, self.value(value)))
                except (KeyError, _Unkeyable):
                    self.names.append((owner, name, ("local",)))
                continue
            if name in scope_closure:
                value = scope_closure[name]
            elif name in scope_globals:
                value = scope_globals[name]
            elif hasattr(builtins, name):
                self.names.append((owner, name, ("builtin",)))
                continue
            else:
                continue  # a local variable of the function
            self.names.append((owner, name, self.value(value)))

    def value(self, value: Any) -> Any:
        """A deterministic description of a named value, or _Unkeyable."""
        from .kernel import BoundFunc, Func
        from .struct import StructField

        if type(value) in _SCALARS:
            return (type(value).__name__, repr(value))
        if isinstance(value, tuple | list):
            return (type(value).__name__, tuple(self.value(v) for v in value))
        if isinstance(value, DataType):
            return ("dtype", str(value))
        if isinstance(value, Field):
            return ("field", value.symbol)
        if isinstance(value, StructField):
            return ("struct", tuple((k, self.value(f)) for k, f in value.fields.items()))
        if isinstance(value, Func):
            self.function(value.fn, value.source())
            return ("func", value.fn.__qualname__)
        if isinstance(value, BoundFunc):
            raise _Unkeyable("a bound ti.func")
        if isinstance(value, types.ModuleType):
            if value.__name__.split(".")[0] == "taichi_xdsl" or value is math:
                return ("module", value.__name__)
            raise _Unkeyable(f"module {value.__name__}")
        if _is_ti_object(value):
            return ("ti", value.__module__, getattr(value, "__qualname__", repr(value)))
        raise _Unkeyable(type(value).__qualname__)


def _loaded_names(tree: ast.AST) -> set[str]:
    """The names `tree` reads, string annotations (`from __future__ import
    annotations`) included."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.arg | ast.FunctionDef):
            annotation = node.annotation if isinstance(node, ast.arg) else node.returns
            if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
                try:
                    names |= _loaded_names(ast.parse(annotation.value, mode="eval"))
                except SyntaxError as error:
                    raise _Unkeyable("an annotation that does not parse") from error
    return names


def _template_arg(describer: _Describer, value: Any) -> Any:
    from .struct import StructField

    if type(value) in _SCALARS or isinstance(value, Field | StructField | DataType):
        return describer.value(value)
    raise _Unkeyable(f"template argument {type(value).__qualname__}")


def source_key_parts(
    kernel: Kernel, prog: Program, args: tuple[Any, ...], symbol: str
) -> dict[str, str] | None:
    """
    The parts of the first-level key of `kernel`'s instance for `args` (bound, checked),
    compiled as `symbol`; None when the kernel names something they cannot describe.
    """
    from .kernel import _ndarray_key

    source = kernel._source
    params = kernel._params
    if source is None or params is None:
        return None
    describer = _Describer()
    try:
        describer.function(kernel.fn, source)
        signature = []
        for p, a in zip(params, args):
            if p.kind == "template":
                signature.append((p.name, "template", _template_arg(describer, a)))
            elif p.kind == "ndarray":
                signature.append((p.name, "ndarray", repr(_ndarray_key(a))))
            elif p.kind == "scalar":
                signature.append((p.name, "scalar", str(p.dtype)))
            else:
                raise _Unkeyable(f"{p.kind} parameter")
    except (_Unkeyable, TaichiError):
        return None
    cfg = prog.config
    config = (
        f"arch={cfg.arch};fp={cfg.default_fp};ip={cfg.default_ip};debug={cfg.debug};"
        f"fast_math={cfg.fast_math};opt_level={cfg.opt_level};seed={cfg.random_seed};"
        f"symbol={symbol};returns={[str(t) for t in kernel._returns]};"
        f"layout={kernel._ret_layout!r}"
    )
    return {
        "source": repr(describer.sources),
        "names": repr(describer.names),
        "args": repr(signature),
        "fields": repr(field_layouts(prog)),
        "config": config,
    }


def field_layouts(prog: Program) -> tuple[tuple[Any, ...], ...]:
    """The layout of every field of `prog`, in placement order."""
    return tuple(_field_layout(f) for f in prog.fields)
