"""
`@ti.kernel`, `@ti.func` and `@ti.data_oriented`.

A kernel keeps its AST from decoration and compiles on its first call. Each template
signature (template arguments by identity, ndarray arguments by dtype and ndim; scalar
types come from the annotations) is one instance, compiled once and cached. A later
call is the fast path: a key computed from the arguments, one dict lookup, and the
compiled kernel's launch.

The code generator and the compiler (xDSL, llvmlite) are imported on the first compile.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import inspect
import sys
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MethodType
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import (
    TaichiRuntimeError,
    TaichiRuntimeTypeError,
    TaichiCompilationError,
    TaichiError,
    TaichiSyntaxError,
    TaichiTypeError,
)

from . import direct_call
from . import dtypes
from . import program as _program
from . import profiler
from . import types as _types
from .dtypes import DataType
from .enums import AutodiffMode
from .field import check_companions_placed
from .ndarray import Ndarray
from .matrix import AnyMatrixType
from .source import (
    FunctionSource,
    bind_arguments,
    closure_vars,
    is_located,
    parse_function,
)
from .argpack import ArgPackType, flatten_pack
from .types import NdarrayType, Template


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """
    The cycle collector off while a kernel compiles (as it was before, after). A compile
    allocates many short-lived objects (xDSL's IR, and in a process's first compile the
    modules of xDSL and the compiler, some million objects): the collector's runs over
    them were 15-25% of a cold program's CPU time (bench/compile_latency.py kernels on
    this 2-core VM, 480-730 ms of ~2.5 s on Vulkan), while reference counting frees most
    of the IR anyway (peak memory of a 1,500-statement unrolled kernel: 282 MB with the
    collector, 290 MB without). Cycles left by the compile are collected later, as usual.
    A compile that imported modules leaves its objects in the oldest generation
    (`_promote_to_oldest_generation`).
    """
    enabled = gc.isenabled()
    gc.disable()
    modules = len(sys.modules)
    try:
        yield
    finally:
        if len(sys.modules) > modules and gc.get_freeze_count() == 0:
            _promote_to_oldest_generation()  # not when the program froze objects itself
        if enabled:
            gc.enable()


def _promote_to_oldest_generation() -> None:
    """
    Move every object the collector tracks into its oldest generation, as if it had
    survived two collections; done after a compile that imported modules (a process's
    first compile imports xDSL, the compiler and llvmlite: some 80,000 objects, which
    live as long as the process). Left in the youngest generation, they were all walked
    by the next young collection (55-65 ms CPU on the 2-core VM, ~1 us an object) and
    again by the next middle one. In the oldest generation only a full collection walks
    them. Garbage moved with them (that compile's own cycles, 2,000-4,000 objects) is
    freed by the next full collection instead of the next young one; as modules are
    imported once, this happens a bounded number of times a process (a compile that
    imports nothing, however much garbage it leaves, keeps the usual collections).
    `gc.freeze` then `gc.unfreeze` is how CPython (3.7+) offers this move: each splices
    the collector's lists, O(1).
    """
    gc.freeze()
    gc.unfreeze()


@dataclass
class ArgSpec:
    """One kernel parameter of one instance, as the code generator receives it: a scalar,
    an ndarray, a template or a texture."""

    name: str
    kind: str  # "scalar", "ndarray", "template" or "texture"
    dtype: DataType | None = None
    ndim: int = 0
    obj: Any = None
    element_shape: tuple[int, ...] = ()
    companions: tuple[str, ...] = ()  # an ndarray's "grad" / "dual" the body names


class _Param:
    """A kernel parameter: kind "scalar" (with dtype), "ndarray" or "template".
    `companions`: the gradient ("grad") and dual ("dual") ndarrays of an ndarray
    parameter that the kernel body names (`x.grad[i]`); each is one more launch argument,
    after all the parameters' own."""

    __slots__ = ("annotation", "companions", "dtype", "kind", "name")

    def __init__(self, name: str, kind: str, annotation: Any, dtype: DataType | None):
        self.name = name
        self.kind = kind
        self.annotation = annotation
        self.dtype = dtype
        self.companions: tuple[str, ...] = ()


def _companion_uses(tree: ast.AST, names: set[str]) -> dict[str, tuple[str, ...]]:
    """The companions (`x.grad`, `x.dual`) of the parameters `names` that the kernel body
    names directly, in the order ("grad", "dual")."""
    used: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("grad", "dual")
            and isinstance(node.value, ast.Name)
            and node.value.id in names
        ):
            used.setdefault(node.value.id, set()).add(node.attr)
    return {n: tuple(a for a in ("grad", "dual") if a in attrs) for n, attrs in used.items()}


def _companion_data(x: Any, attr: str, name: str) -> Any:
    """The array of ndarray argument `x`'s gradient or dual, which the kernel names."""
    companion = getattr(x, attr, None) if type(x) is Ndarray else None
    if companion is None:
        how = "create it with ti.ndarray(..., needs_grad=True)" if attr == "grad" else (
            "ndarrays have no dual (forward mode differentiates fields)"
        )
        raise TaichiRuntimeError(
            f"the kernel reads {name}.{attr}, but argument '{name}' has no {attr} "
            f"ndarray: {how}"
        )
    return companion.arr


def _resolve_annotation(fn: Callable[..., Any], ann: Any) -> Any:
    if isinstance(ann, str):  # `from __future__ import annotations`
        scope = {**fn.__globals__, **closure_vars(fn)}
        return eval(ann, scope)
    return ann


def check_string_annotations(fn: Callable[..., Any], what: str) -> None:
    """
    At decoration: a parameter annotated with a string (`x: "foo"`, or any annotation
    under `from __future__ import annotations`) must name a value already.

    Raises:
        TaichiSyntaxError: "Invalid type annotation (argument i) of Taichi <what>: <text>".
    """
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return
    for i, p in enumerate(params):
        if not isinstance(p.annotation, str):
            continue
        try:
            _resolve_annotation(fn, p.annotation)
        except Exception:  # any failure to evaluate it: NameError, SyntaxError, ...
            raise TaichiSyntaxError(
                f"Invalid type annotation (argument {i}) of Taichi {what}: {p.annotation}"
            ) from None


def _annotations(fn: Callable[..., Any]) -> dict[str, Any]:
    sig = inspect.signature(fn)
    out = {
        name: _resolve_annotation(fn, p.annotation)
        for name, p in sig.parameters.items()
        if p.annotation is not inspect.Parameter.empty
    }
    if sig.return_annotation is not inspect.Signature.empty:
        out["return"] = _resolve_annotation(fn, sig.return_annotation)
    return out


def _is_template(ann: Any) -> bool:
    return isinstance(ann, Template) or ann is Template or ann is _types.template


def _is_ndarray(ann: Any) -> bool:
    return isinstance(ann, NdarrayType) or ann is NdarrayType or ann is _types.ndarray


def _is_aggregate_type(ann: Any) -> bool:
    from .matrix import MatrixType
    from .struct import StructType

    return isinstance(ann, MatrixType | StructType)


def _aggregate_layout(ann: Any, cfg: _program.Config) -> Any:
    """
    The layout of a vector/matrix/struct parameter as the code generator binds it:
    ("vector", shape, dtype) or ("struct", StructType, [(member, layout), ...]) or
    ("scalar", dtype); its components are consecutive scalar kernel arguments.
    """
    from .matrix import MatrixType
    from .struct import StructType

    if isinstance(ann, StructType):
        return ("struct", ann, [(m, _aggregate_layout(t, cfg)) for m, t in ann.members.items()])
    if isinstance(ann, MatrixType):
        return ("vector", ann.shape, dtypes.cook_dtype(ann.dtype, cfg.default_ip, cfg.default_fp))
    return ("scalar", dtypes.cook_dtype(ann, cfg.default_ip, cfg.default_fp))


def _aggregate_flattener(name: str, ann: Any) -> Callable[[Any], tuple[Any, ...]]:
    """A function from a vector/matrix/struct argument to its scalar components."""
    from .matrix import MatrixType
    from .struct import StructType

    def flat(value: Any, t: Any, out: list[Any]) -> None:
        if isinstance(t, StructType):
            for m, mt in t.members.items():
                try:
                    member = value[m] if isinstance(value, dict) else getattr(value, m)
                except (KeyError, AttributeError):
                    raise TaichiRuntimeTypeError(
                        f"kernel argument '{name}': the struct has no member '{m}'"
                    ) from None
                flat(member, mt, out)
        elif isinstance(t, MatrixType):
            arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
            if arr.shape != t.shape:
                raise TaichiRuntimeTypeError(
                    f"kernel argument '{name}' is expected to be a Matrix with shape "
                    f"{t.shape}, but got {arr.shape}"
                )
            out.extend(x.item() for x in arr.ravel())
        else:
            out.append(value.item() if isinstance(value, np.generic) else value)

    def flatten(value: Any) -> tuple[Any, ...]:
        out: list[Any] = []
        flat(value, ann, out)
        return tuple(out)

    return flatten


def _is_texture_value(value: Any) -> bool:
    """A ti.Texture, or the unbound texture a graph or AOT module compiles with."""
    from .texture import TextureSlot

    return hasattr(value, "vulkan_image") or isinstance(value, TextureSlot)


def _is_texture(ann: Any) -> bool:
    from .texture import is_texture_annotation

    return is_texture_annotation(ann)


def _template_key(x: Any) -> Any:
    if type(x) in (int, float, bool, str):
        return (type(x), x)
    if getattr(type(x), "_ti_data_oriented", False):
        return _data_oriented_key(x, set())
    return id(x)


def _data_oriented_key(obj: Any, seen: set[int]) -> Any:
    """
    A `@ti.data_oriented` object as a template argument: its identity and that of the
    fields, ndarrays and data-oriented objects it holds now, so that replacing a member
    (`self.x = ti.field(...)` after a kernel ran) selects a new instance instead of the
    one compiled against the old field (Taichi's test_class_with_field).
    """
    from .field import Field
    from .struct import StructField

    seen.add(id(obj))
    parts: list[Any] = [id(obj)]
    for name, value in getattr(obj, "__dict__", {}).items():
        if isinstance(value, Field | StructField | Ndarray):
            parts.append((name, id(value)))
        elif getattr(type(value), "_ti_data_oriented", False) and id(value) not in seen:
            parts.append((name, _data_oriented_key(value, seen)))
    return tuple(parts)


def _ndarray_key(x: Any) -> Any:
    if type(x) is Ndarray:
        arr = x.arr
        return (arr.dtype, arr.ndim, arr.flags.c_contiguous, x.element_shape)
    return (x.dtype, x.ndim, x.flags.c_contiguous, x.flags.f_contiguous)


def _ndarray_data(x: Any) -> Any:
    return x.arr if type(x) is Ndarray else x


def _wrap(dt: DataType) -> Callable[[Any], Any]:
    bits = dt.bits

    def wrap(x: Any) -> Any:
        # an unsigned scalar travels in a signless slot: pass its two's complement bits
        x = int(x) & ((1 << bits) - 1)
        return x - (1 << bits) if x >= 1 << (bits - 1) else x

    return wrap


_call_hook: Callable[[Kernel, tuple[Any, ...], dict[str, Any]], None] | None = None
"""Called with every kernel call's arguments while ti.aot records launches (aot.py)."""

_tape_hook: Callable[[Kernel, tuple[Any, ...], dict[str, Any]], None] | None = None
_forward_hook: Callable[[Kernel, tuple[Any, ...], dict[str, Any]], Any] | None = None
"""Called with every kernel call's arguments inside a `ti.ad.Tape` (autodiff.py)."""

_build_hook: Callable[[Any, Any], None] | None = None
"""Called with (kernel, module) for every module a kernel builds (lang/ir.py)."""


def set_hook(name: str, hook: Callable[..., Any] | None) -> None:
    """Set `_call_hook`, `_tape_hook` or `_forward_hook` (`name` "call", "tape" or
    "forward"; None: off). Armed kernels take the general path from now on
    (direct_call.py), which sees the hook."""
    if name not in ("call", "tape", "forward"):
        raise ValueError(f"no kernel hook named {name!r}")
    globals()[f"_{name}_hook"] = hook
    direct_call.invalidate()


class Kernel:
    """A `@ti.kernel` function: call it to compile (once per signature) and run."""

    autodiff_mode = AutodiffMode.NONE
    """VALIDATION while a ti.ad.Tape(validation=True) records it (Taichi's attribute)."""

    def __init__(self, fn: Callable[..., Any], passes: Any = None):
        from taichi_xdsl.utils.pipelines import PipelineEdits

        check_string_annotations(fn, "kernel")
        self.fn = fn
        self.passes = PipelineEdits.parse(passes)
        """This kernel's own pipeline edits (`@ti.kernel(passes=...)`), after ti.init's."""
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._source: FunctionSource | None = None
        self._source_error: Exception | None = None
        try:
            self._source = parse_function(fn)  # keep the AST from decoration
        except TaichiError as e:
            self._source_error = e
        self._params: list[_Param] | None = None
        self._returns: list[DataType] = []
        self._ret_layout: list[tuple[int, ...]] = []  # the shape of each returned item
        self._nparams = -1
        self._packs: list[tuple[int, ArgPackType]] = []  # (position, type) of argpacks
        self._keyer: Callable[[tuple[Any, ...]], Any] | None = None
        self._instances: dict[Any, Callable[[tuple[Any, ...]], Any]] = {}
        self._keepalive: list[Any] = []
        self._generation = -1
        self._direct_epoch = 0  # the epoch this kernel was last armed at (direct_call.py)

    # -- the fast path ---------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _call_hook is not None:  # ti.aot.start_recording
            _call_hook(self, args, kwargs)
        if _tape_hook is not None:  # ti.ad.Tape
            _tape_hook(self, args, kwargs)
        if _forward_hook is not None:  # ti.ad.FwdMode: run the tangent kernel instead
            return _forward_hook(self, args, kwargs)
        prog = _program._current
        if (
            kwargs
            or prog is None
            or prog.generation != self._generation
            or len(args) != self._nparams
        ):
            return self._slow_call(args, kwargs)
        keyer = self._keyer
        try:
            key = keyer(args) if keyer is not None else None
        except Exception:  # noqa: BLE001 - the slow path reports what is wrong
            return self._slow_call(args, kwargs)
        run = self._instances.get(key)
        if run is None:
            return self._slow_call(args, kwargs)
        return run(args)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return _BoundKernel(self, obj)

    @property
    def grad(self) -> Any:
        """The adjoint kernel (ti.ad): `k.grad(*args)` runs it (autodiff.py)."""
        from .autodiff import AdjointKernel

        return AdjointKernel(self)

    # -- the slow path: bind, check, instantiate -------------------------------------

    def _slow_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        run, args = self._instance(args, kwargs)
        result = run(args)
        if self._direct_epoch != direct_call.epoch:
            self._arm_direct()
        return result

    # -- direct calls (direct_call.py) ------------------------------------------------

    def _direct_fallback(self, *args: Any, **kwargs: Any) -> Any:
        """An armed kernel's call after the epoch moved (direct_call.py): the general
        path, then armed again where it may be."""
        result = Kernel.__call__(self, *args, **kwargs)
        if self._direct_epoch != direct_call.epoch:
            self._arm_direct()
        return result

    def _arm_direct(self) -> None:
        """Let calls of this kernel run its instance natively (direct_call.py) where
        `__call__` would find that instance and launch it unwrapped: no hook, the
        current program, scalar parameters alone, an instance on the native launcher."""
        if _call_hook is not None or _tape_hook is not None or _forward_hook is not None:
            return
        prog = _program._current
        if prog is None or prog.generation != self._generation or self._keyer is not None:
            return
        run = self._instances.get(None)
        if run is None or self._nparams < 0 or not getattr(run, "direct", False):
            return
        fallback = MethodType(Kernel._direct_fallback, self)
        general = MethodType(Kernel.__call__, self)
        direct_call.arm(self, run.compiled, fallback, general, prog._root)

    def instance(self, *args: Any, **kwargs: Any) -> Callable[[tuple[Any, ...]], Any]:
        """
        The launcher of the instance these arguments select, compiled now if new but not
        run (ti.graph): call it with the bound argument tuple.
        """
        return self._instance(args, kwargs)[0]

    def _instance(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[Callable[[tuple[Any, ...]], Any], tuple[Any, ...]]:
        prog = _program.get_program()
        if prog.generation != self._generation:
            self._instances.clear()
            self._keepalive.clear()
            self._params = None
            self._generation = prog.generation
        params = self._resolve_params(prog)
        args = self._bind(args, kwargs)
        key = self._key_checked(args)
        run = self._instances.get(key)
        if run is None:
            try:
                run = self._instantiate(prog, args)
            except TaichiError as e:
                if is_located(e):  # the message says where: drop the compiler's frames
                    raise e.with_traceback(None) from None
                raise
            self._instances[key] = run
            self._hold_templates(key, [a for a, p in zip(args, params) if p.kind == "template"])
        return run, args

    def _hold_templates(self, key: Any, templates: list[Any]) -> None:
        """
        The instance under `key` names its template arguments by id, so no other object
        may take that id while the entry lives. An object that allows weak references
        takes its entry with it when it dies (`@ti.data_oriented` instances, however many
        a program creates, are not kept alive by their kernels: Taichi's
        test_oop_memory_leak); any other object is kept alive by the kernel.
        """
        instances = self._instances
        for obj in templates:
            if type(obj) in (int, float, bool, str):
                continue
            try:
                weakref.finalize(obj, instances.pop, key, None)
            except TypeError:
                self._keepalive.append(obj)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if not kwargs and len(args) == self._nparams:
            return args
        anns = _annotations(self.fn)

        def describe(name: str) -> str:
            ann = anns.get(name)
            if ann is None:
                return name
            return f"{name} : {ann}"

        bound = bind_arguments(inspect.signature(self.fn), args, kwargs, describe)
        values = tuple(bound.arguments.values())
        if not self._packs:
            return values
        flat: list[Any] = []  # each argpack gives its members, as _resolve_params named them
        pack_at = dict(self._packs)
        for i, (name, value) in enumerate(zip(bound.arguments, values)):
            if i in pack_at:
                flatten_pack(name, pack_at[i], value, flat)
            else:
                flat.append(value)
        return tuple(flat)

    def _resolve_params(self, prog: _program.Program) -> list[_Param]:
        if self._params is not None:
            return self._params
        if self._source_error is not None:
            raise self._source_error
        cfg = prog.config
        anns = _annotations(self.fn)
        params: list[_Param] = []
        packs: list[tuple[int, ArgPackType]] = []
        for i, name in enumerate(inspect.signature(self.fn).parameters):
            ann = anns.get(name, inspect.Parameter.empty)
            if i == 0 and name == "self" and ann is inspect.Parameter.empty:
                params.append(_Param(name, "template", ann, None))
                continue
            if isinstance(ann, ArgPackType):
                packs.append((i, ann))
            self._add_param(params, name, ann, cfg)
        self._packs = packs
        assert self._source is not None
        ndarrays = {p.name: p for p in params if p.kind == "ndarray"}
        for name, attrs in _companion_uses(self._source.tree, set(ndarrays)).items():
            ndarrays[name].companions = attrs
        self._returns = self._return_types(anns.get("return"), cfg)
        self._params = params
        # A call with argpacks always binds on the slow path (_bind flattens the packs).
        self._nparams = len(params) if not self._packs else -1
        self._keyer = self._make_keyer(params)
        return params

    def _add_param(
        self, params: list[_Param], name: str, ann: Any, cfg: _program.Config
    ) -> None:
        """Append the parameter(s) of `name: ann`; an argpack adds its members, named
        `pack.member`, in order."""
        if _is_template(ann):
            params.append(_Param(name, "template", ann, None))
        elif _is_ndarray(ann):
            params.append(_Param(name, "ndarray", ann, None))
        elif _is_texture(ann):
            params.append(_Param(name, "texture", ann, None))
        elif isinstance(ann, ArgPackType):
            for m, t in ann.members.items():
                self._add_param(params, f"{name}.{m}", t, cfg)
        elif ann is inspect.Parameter.empty:
            raise self._source_located(
                TaichiSyntaxError,
                f"kernel parameter '{name}' needs a type annotation "
                "(ti.f32, ti.types.ndarray(), ti.template(), ...)",
            )
        elif _is_aggregate_type(ann):
            # a vector, matrix or struct: passed as its scalar components, in order
            params.append(_Param(name, "aggregate", ann, None))
        else:
            try:
                dt = dtypes.cook_dtype(ann, cfg.default_ip, cfg.default_fp)
            except (TypeError, ValueError):
                raise self._source_located(
                    TaichiTypeError,
                    f"kernel parameter '{name}' has an unsupported annotation {ann!r}",
                ) from None
            params.append(_Param(name, "scalar", ann, dt))

    def _return_types(self, ann: Any, cfg: _program.Config) -> list[DataType]:
        from .matrix import MatrixType
        from .struct import StructType

        self._ret_layout = []
        if ann is None:
            return []
        if isinstance(ann, ArgPackType):
            raise self._source_located(
                TaichiSyntaxError, f"a kernel cannot return an argpack ({ann!r})"
            )
        items = ann if isinstance(ann, tuple | list) else getattr(ann, "__args__", None)
        if items is None or isinstance(ann, DataType | MatrixType | StructType):
            items = (ann,)

        def flat(a: Any, out: list[DataType]) -> Any:
            if isinstance(a, StructType):  # a struct: its members, in order
                return ("struct", [(m, flat(t, out)) for m, t in a.members.items()], a)
            if isinstance(a, MatrixType):  # a vector/matrix: its components
                dt = dtypes.cook_dtype(a.dtype, cfg.default_ip, cfg.default_fp)
                out.extend([dt] * int(np.prod(a.shape)))
                return a.shape
            out.append(dtypes.cook_dtype(a, cfg.default_ip, cfg.default_fp))
            return ()

        try:
            out: list[DataType] = []
            self._ret_layout = [flat(a, out) for a in items]
            return out
        except TypeError:
            raise self._source_located(
                TaichiTypeError, f"unsupported return annotation {ann!r}"
            ) from None

    def _source_located(self, cls: type[Exception], message: str) -> Exception:
        assert self._source is not None
        return self._source.located(cls, self._source.tree, message)

    @staticmethod
    def _make_keyer(params: list[_Param]) -> Callable[[tuple[Any, ...]], Any] | None:
        parts = []
        for i, p in enumerate(params):
            if p.kind == "template":
                parts.append(f"_tk(args[{i}])")
            elif p.kind == "ndarray":
                part = f"_nk(args[{i}])"
                dtype = getattr(p.annotation, "dtype", None)
                if hasattr(dtype, "cooked") and hasattr(dtype, "shape"):
                    # Vector/matrix elements: a NumPy argument's trailing dimensions
                    # are checked on the slow path, so they belong to the key.
                    part += f" + (_nd(args[{i}]).shape[-{len(dtype.shape)}:],)"
                if getattr(p.annotation, "needs_grad", None):
                    part += f" + (args[{i}].grad is not None,)"
                parts.append(part)
        if not parts:
            return None
        scope: dict[str, Any] = {
            "_tk": _template_key,
            "_nk": _ndarray_key,
            "_nd": _ndarray_data,
        }
        exec(f"def key(args):\n    return ({', '.join(parts)},)", scope)  # noqa: S102
        return scope["key"]

    def _key_checked(self, args: tuple[Any, ...]) -> Any:
        assert self._params is not None
        for p, a in zip(self._params, args):
            if p.kind == "template" and isinstance(a, Ndarray):
                raise TaichiRuntimeTypeError(
                    f"kernel '{self.__name__}', argument '{p.name}': Ndarray shouldn't be "
                    "passed in via `ti.template()`, please annotate your kernel using "
                    "`ti.types.ndarray(...)` instead"
                )
            if p.kind == "ndarray" and not isinstance(a, Ndarray | np.ndarray):
                raise TaichiRuntimeTypeError(
                    f"Invalid type for argument {p.name}, got {a!r}: kernel "
                    f"'{self.__name__}' expects a ti.ndarray or a NumPy array, got "
                    f"{type(a).__name__}"
                )
            if (
                p.kind == "ndarray"
                and getattr(p.annotation, "needs_grad", None)
                and getattr(a, "grad", None) is None
            ):
                raise TaichiTypeError(
                    f"kernel '{self.__name__}': argument '{p.name}' has no gradient; the "
                    "kernel expects needs_grad=True (ti.ndarray(..., needs_grad=True))"
                )
            if p.kind == "texture" and not _is_texture_value(a):
                raise TaichiTypeError(
                    f"kernel '{self.__name__}': argument '{p.name}' must be a ti.Texture, "
                    f"got {type(a).__name__}"
                )
            if p.kind == "texture":
                from .texture import check_texture_argument

                check_texture_argument(p.name, p.annotation, a)
            if p.kind == "scalar" and not isinstance(a, int | float | np.number | np.bool_):
                raise TaichiRuntimeTypeError(
                    f"kernel '{self.__name__}': argument '{p.name}' must be a number "
                    f"({p.dtype}), got {type(a).__name__}"
                )
        return self._keyer(args) if self._keyer is not None else None

    def _arg_specs(self, args: tuple[Any, ...], cfg: _program.Config) -> list[Any]:
        assert self._params is not None
        specs = []
        for p, a in zip(self._params, args):
            if p.kind == "aggregate":
                specs.append(ArgSpec(p.name, "aggregate", obj=_aggregate_layout(p.annotation, cfg)))
            elif p.kind == "scalar":
                specs.append(ArgSpec(p.name, "scalar", p.dtype))
            elif p.kind == "template":
                specs.append(ArgSpec(p.name, "template", obj=a))
            elif p.kind == "texture":
                specs.append(ArgSpec(p.name, "texture", obj=p.annotation))
            else:
                specs.append(self._ndarray_spec(p, a, cfg))
        return specs

    def _ndarray_spec(self, p: _Param, a: Any, cfg: _program.Config) -> Any:
        arr = _ndarray_data(a)
        if not (arr.flags.c_contiguous or arr.flags.f_contiguous):  # (F: see _instantiate)
            raise ValueError(
                "Non contiguous numpy arrays are not supported, please call "
                "np.ascontiguousarray(arr) before passing it into taichi kernel. "
                f"(kernel '{self.__name__}', argument '{p.name}')"
            )
        # a u1 ndarray holds NumPy bools, which no other Taichi type has
        dt = a.dtype if isinstance(a, Ndarray) else dtypes.from_numpy_dtype(arr.dtype)
        if dt is None:
            raise TaichiTypeError(
                f"kernel '{self.__name__}': argument '{p.name}' has "
                f"dtype {arr.dtype}, which Taichi does not have"
            )
        ann = p.annotation if isinstance(p.annotation, NdarrayType) else NdarrayType()
        if isinstance(a, Ndarray):
            element_shape, ndim = self._check_ndarray(p.name, ann, a, dt, cfg)
        else:
            element_shape, ndim, dt = self._check_numpy(p.name, ann, arr, dt, cfg)
        return ArgSpec(
            p.name,
            "ndarray",
            dt,
            ndim,
            obj=ann.boundary,
            element_shape=element_shape,
            companions=p.companions,
        )

    @staticmethod
    def _wanted_element(ann: NdarrayType, cfg: _program.Config) -> tuple[Any, Any, Any]:
        """(element shape or None for scalars, element dtype or None, the annotation's
        element type as Taichi names it) of an ndarray parameter."""
        ann_dtype = ann.dtype
        if isinstance(ann_dtype, AnyMatrixType):  # ti.types.vector(): any size, any dtype
            return (None,) * ann_dtype.ndim, None, ann_dtype.taichi_name()
        if hasattr(ann_dtype, "cooked") and hasattr(ann_dtype, "shape"):  # vec3 etc.
            shape = tuple(ann_dtype.shape)
            dt = dtypes.cook_dtype(ann_dtype.dtype, cfg.default_ip, cfg.default_fp)
            kind = (
                f"VectorType[{shape[0]}, {dt}]"
                if len(shape) == 1
                else f"MatrixType[{shape[0]},{shape[1]}, {dt}]"
            )
            return shape, dt, kind
        if ann_dtype is None:
            return None, None, None
        dt = dtypes.cook_dtype(ann_dtype, cfg.default_ip, cfg.default_fp)
        return None, dt, str(dt)

    def _check_ndarray(
        self, name: str, ann: NdarrayType, a: Ndarray, dt: DataType, cfg: _program.Config
    ) -> tuple[tuple[int, ...], int]:
        """A ti.ndarray argument against its annotation, with Taichi's messages: its
        (element shape, ndim)."""
        element_shape = tuple(a.element_shape)
        given = f"[Tensor {tuple(element_shape)} {dt}]".replace(",)", ")") if element_shape else str(dt)
        want_shape, want_dt, kind = self._wanted_element(ann, cfg)
        if want_shape is not None and None in want_shape:  # a size-less vector()/matrix()
            if len(element_shape) != len(want_shape):
                raise ValueError(
                    f"Invalid value for argument {name} - required element type: {kind}, "
                    f"but {given} is provided"
                )
        elif want_shape is not None and (want_shape != element_shape or want_dt is not dt):
            raise ValueError(
                f"Invalid value for argument {name} - required element type: {kind}, "
                f"but {given} is provided"
            )
        if want_shape is None and want_dt is not None and (element_shape or want_dt is not dt):
            raise TypeError(
                f"Expect element type {want_dt} for argument {name}, but get {given}"
            )
        ndim = a.arr.ndim - len(element_shape)
        if ann.ndim is not None and ann.ndim != ndim:
            shape = tuple(a.arr.shape[:ndim])
            raise ValueError(
                f"Invalid value for argument {name} - required ndim={ann.ndim}, but "
                f"{ndim}d ndarray with shape {shape} is provided"
            )
        return element_shape, ndim

    def _check_numpy(
        self, name: str, ann: NdarrayType, arr: Any, dt: DataType, cfg: _program.Config
    ) -> tuple[tuple[int, ...], int, DataType]:
        """A NumPy argument against its annotation, with Taichi's messages: its (element
        shape, ndim, dtype). As Taichi, a vector/matrix annotation takes the array's own
        scalar type (a mat2 parameter given an int32 array works on int32)."""
        want_shape, want_dt, _ = self._wanted_element(ann, cfg)
        prefix = f"Invalid value for argument {name} - required"
        if want_shape is None:
            if want_dt is not None and want_dt is not dt:
                raise ValueError(
                    f"{prefix} array has dtype={want_dt}, array with dtype={dt} is provided"
                )
            if ann.ndim is not None and ann.ndim != arr.ndim:
                raise ValueError(
                    f"{prefix} array has ndim={ann.ndim}, array with {arr.ndim} dimensions "
                    "is provided"
                )
            return (), arr.ndim, dt
        k = len(want_shape)
        if ann.ndim is not None and arr.ndim != ann.ndim + k:
            raise ValueError(
                f"{prefix} array has ndim={ann.ndim} element_dim={k}, array with "
                f"{arr.ndim} dimensions is provided"
            )
        if None in want_shape and arr.ndim >= k:  # a size-less vector()/matrix()
            want_shape = tuple(arr.shape[arr.ndim - k :])
        if arr.ndim < k or tuple(arr.shape[arr.ndim - k :]) != want_shape:
            raise ValueError(
                f"{prefix} element_shape={want_shape}, array with element shape of "
                f"{tuple(arr.shape[max(arr.ndim - k, 0) :])} is provided"
            )
        return want_shape, arr.ndim - k, dt

    # -- instantiation ---------------------------------------------------------------

    def build_module(
        self,
        prog: _program.Program,
        args: tuple[Any, ...],
        symbol: str | None = None,
        real_calls: bool = True,
    ) -> Any:
        """The module (fields + taichi.kernel) of the instance these arguments select;
        without `real_calls`, ti.real_funcs are inlined (autodiff differentiates the
        kernel's own code, not calls)."""
        from ..codegen.visitor import KernelCodegen, build_module

        assert self._source is not None
        prog.settle_layout()  # the field offsets the module names are final
        specs = self._arg_specs(args, prog.config)
        symbol = symbol or prog.unique_symbol(self.__name__)
        cg = KernelCodegen(prog, symbol)
        cg.real_calls = real_calls
        kernel_op = cg.build_kernel(
            self._source,
            self.fn.__globals__,
            closure_vars(self.fn),
            specs,
            self._returns,
            self._ret_layout,
        )
        module = build_module(prog, kernel_op, cg.function_ops)
        if _build_hook is not None:  # ti-opt --from-python
            _build_hook(self, module)
        return module

    def _instantiate(self, prog: _program.Program, args: tuple[Any, ...]) -> Any:
        assert self._params is not None
        textures = [p.name for p in self._params if p.kind == "texture"]
        if textures and prog.config.arch is not _program.vulkan:
            raise self._source_located(
                TaichiCompilationError,
                f"kernel '{self.__name__}': texture parameter '{textures[0]}': textures "
                f"need arch=ti.vulkan (this program runs on {prog.config.arch})",
            )
        check_companions_placed(prog)  # x.grad / x.dual placed where needs_grad asks
        prog.settle_layout()  # before the offline cache key names field offsets
        symbol = prog.unique_symbol(self.__name__)
        backend = prog.backend
        source_key = self._source_key(prog, backend, args, symbol)
        compiled = None
        if source_key is not None:  # a warm offline cache: no frontend, no xDSL
            compiled = backend.load_by_source(source_key, symbol)
        if compiled is None:
            with _no_cycle_collection():
                compiled = self._compile(prog, backend, args, symbol, source_key)
        prog.materialize()
        prog.compiled_kernels += 1
        if getattr(compiled, "native_call", None) is not None and self._plain_scalars():
            run = self._native_run(prog, compiled, len(self._returns))
        else:
            run = self._launcher(prog, compiled.launch)
        run = self._through_c_order(run, args)
        if prog.__dict__.get("pools") and (prog.config.arch is not _program.vulkan or self._returns):
            from .pools import checked_launcher

            run = checked_launcher(prog, run)  # an exhausted sparse pool raises
        if prog.config.kernel_profiler:
            run = profiler.timed_launcher(prog, self.__name__, run)
        run.compiled = compiled  # ti.graph on Vulkan records the compiled dispatches
        return run

    def _compile(
        self,
        prog: _program.Program,
        backend: Any,
        args: tuple[Any, ...],
        symbol: str,
        source_key: str | None,
    ) -> Any:
        """The frontend's module of this instance, compiled by `backend`."""
        from .source_key import field_layouts

        fields = field_layouts(prog)
        module = self.build_module(prog, args, symbol)
        if field_layouts(prog) != fields:  # the frontend placed a field (ti.random)
            source_key = None
        options: dict[str, Any] = {"in_place": True}  # the module is this compile's
        if self.passes is not None:
            options["passes"] = self.passes
        if source_key is not None:
            options["source_key"] = source_key
        compiled = backend.compile(module, symbol, **options)
        profiler.record_compile(symbol, getattr(backend, "pass_times", []))
        return compiled

    def _through_c_order(
        self, run: Callable[[tuple[Any, ...]], Any], args: tuple[Any, ...]
    ) -> Callable[[tuple[Any, ...]], Any]:
        """
        An instance whose NumPy arguments are not in C order (a transposed array, which
        _ndarray_spec admits; the instance key tells C order apart) runs on C-ordered
        copies of them, copied back after the launch, as Taichi does.
        """
        assert self._params is not None
        reordered = [
            i
            for i, (p, a) in enumerate(zip(self._params, args))
            if p.kind == "ndarray" and isinstance(a, np.ndarray) and not a.flags.c_contiguous
        ]
        if not reordered:
            return run

        def run_c_order(args: tuple[Any, ...]) -> Any:
            given = list(args)
            copies = [(given[i], np.ascontiguousarray(given[i])) for i in reordered]
            for i, (_, copy) in zip(reordered, copies):
                given[i] = copy
            try:
                return run(tuple(given))
            finally:
                for original, copy in copies:
                    np.copyto(original, copy)

        return run_c_order

    def _source_key(
        self, prog: _program.Program, backend: Any, args: tuple[Any, ...], symbol: str
    ) -> str | None:
        """The offline cache's first-level key of this instance (source_key.py), or
        None (no offline cache, a backend without one, or a kernel it cannot key)."""
        make_key = getattr(backend, "source_cache_key", None)
        if make_key is None or getattr(backend, "offline_cache", None) is None:
            return None
        from .source_key import source_key_parts

        parts = source_key_parts(self, prog, args, symbol)
        if parts is None:
            return None
        return make_key(parts) if self.passes is None else make_key(parts, passes=self.passes)

    def _launcher(self, prog: _program.Program, launch: Callable[..., Any]) -> Any:
        assert self._params is not None
        conv = self._make_converter(self._params)
        nret = len(self._returns)
        if any(t.is_unsigned for t in self._returns):
            # the IR is signless: unsigned results come back as their signed bit pattern
            masks = [(1 << t.bits) - 1 if t.is_unsigned else 0 for t in self._returns]
            raw_launch = launch

            def launch(root: Any, args: Any) -> Any:
                result = raw_launch(root, args)
                return tuple(int(r) & m if m else r for r, m in zip(result, masks))

        layout = self._ret_layout
        if any(layout):  # vectors/matrices among the results: regroup the components
            from .matrix import Matrix

            flat_launch = launch

            def regroup(entry: Any, it: Any) -> Any:
                if entry and entry[0] == "struct":
                    from .struct import Struct

                    return entry[2]._value({m: regroup(e, it) for m, e in entry[1]})
                if entry:
                    part = [next(it) for _ in range(int(np.prod(entry)))]
                    # the element type, not NumPy's guess (2**63 in a u64 is no float)
                    values = np.array([v for v, _ in part], dtype=part[0][1].np_dtype)
                    return Matrix(values.reshape(entry))
                return next(it)[0]

            returns = self._returns

            def launch(root: Any, args: Any) -> Any:
                it = iter(zip(flat_launch(root, args), returns))
                return tuple(regroup(entry, it) for entry in layout)

            nret = len(layout)

        if conv is None and nret == 0:  # the common case, one test less a call

            def run(args: tuple[Any, ...]) -> Any:
                launch(prog._root, args)

        elif conv is None:

            def run(args: tuple[Any, ...]) -> Any:
                result = launch(prog._root, args)
                return None if nret == 0 else result[0] if nret == 1 else tuple(result)

        else:

            def run(args: tuple[Any, ...]) -> Any:
                result = launch(prog._root, conv(args))
                return None if nret == 0 else result[0] if nret == 1 else tuple(result)

        return run

    def _plain_scalars(self) -> bool:
        """Whether the launch arguments are the kernel's arguments as given and the
        results need no regrouping or unsigned reinterpretation (`_launcher` does
        nothing to them)."""
        assert self._params is not None
        return (
            self._make_converter(self._params) is None
            and not any(t.is_unsigned for t in self._returns)
            and not any(self._ret_layout)
        )

    @staticmethod
    def _native_run(prog: _program.Program, compiled: Any, nret: int) -> Any:
        """`run` of a `_plain_scalars` kernel on the CPU runtime's native launcher
        (targets/llvm/native_launch.py), called straight: one Python frame less than
        `_launcher`'s run a launch."""
        native, after = compiled.native_call, compiled.after_native
        if nret == 0:

            def run(args: tuple[Any, ...]) -> Any:
                root = prog._root
                result = native(root, args)
                if result.__class__ is not tuple:
                    after(result, root, args)

        else:

            def run(args: tuple[Any, ...]) -> Any:
                root = prog._root
                result = native(root, args)
                if result.__class__ is not tuple:
                    result = after(result, root, args)
                return result[0] if nret == 1 else result

        run.direct = True  # type: ignore[attr-defined] - what `_arm_direct` may arm
        return run

    @staticmethod
    def _make_converter(params: list[_Param]) -> Callable[[tuple[Any, ...]], Any] | None:
        """Kernel arguments -> launch arguments (templates dropped, arrays unwrapped)."""
        parts, scope = [], {"_nd": _ndarray_data, "_cd": _companion_data}
        changed = False
        for i, p in enumerate(params):
            if p.kind == "template":
                changed = True
            elif p.kind == "aggregate":
                scope[f"_f{i}"] = _aggregate_flattener(p.name, p.annotation)
                parts.append(f"*_f{i}(args[{i}])")
                changed = True
            elif p.kind == "ndarray":
                parts.append(f"_nd(args[{i}])")
                changed = True
            elif p.dtype is not None and p.dtype.is_unsigned and p.dtype.bits > 1:
                scope[f"_w{i}"] = _wrap(p.dtype)
                parts.append(f"_w{i}(args[{i}])")
                changed = True
            else:
                parts.append(f"args[{i}]")
        for i, p in enumerate(params):  # after all the parameters' own (visitor.py)
            parts += [f"_cd(args[{i}], {a!r}, {p.name!r})" for a in p.companions]
        if not changed:
            return None
        body = f"({', '.join(parts)},)" if parts else "()"
        exec(f"def conv(args):\n    return {body}", scope)  # noqa: S102
        return scope["conv"]  # type: ignore[return-value]

    # -- debugging -------------------------------------------------------------------

    def get_ir(self, *args: Any, stage: str = "taichi", **kwargs: Any) -> Any:
        """
        The `builtin.module` these arguments select, at `stage` of the current arch's
        pipeline: "taichi" (default: fields + the frontend's `taichi.kernel`, not
        compiled), "offload", "llvm" / "spirv", or the name of a pass (the IR right
        after it). `str()` of it is text that `ti-opt` and `ti.compile_ir` read back;
        `ti.compiler.print_ir_text(m, locations=True)` adds the Python source positions.
        ti.init's and this kernel's pipeline edits apply.

        Raises:
            ValueError: `stage` is neither a stage nor a pass of the pipeline.
        """
        prog = _program.get_program()
        if prog.generation != self._generation:
            self._params = None
            self._instances.clear()
            self._generation = prog.generation
        self._resolve_params(prog)
        args = self._bind(args, kwargs)
        self._key_checked(args)
        module = self.build_module(prog, args, self.__name__)
        if stage == "taichi":
            return module
        return prog.backend.lower(module, self.__name__, stage, passes=self.passes)


class _BoundKernel:
    """A kernel method bound to its object (`self` is a template argument)."""

    __slots__ = ("kernel", "obj")

    def __init__(self, kernel: Kernel, obj: Any):
        self.kernel = kernel
        self.obj = obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not getattr(type(self.obj), "_ti_data_oriented", False):
            raise TaichiSyntaxError(
                f"kernel '{self.kernel.__name__}' is a method of class "
                f"'{type(self.obj).__name__}', which is not decorated with "
                "@ti.data_oriented (Taichi needs it to treat `self` as a template)"
            )
        return self.kernel(self.obj, *args, **kwargs)

    def get_ir(self, *args: Any, stage: str = "taichi", **kwargs: Any) -> Any:
        return self.kernel.get_ir(self.obj, *args, stage=stage, **kwargs)

    @property
    def grad(self) -> Any:
        """The adjoint of the bound kernel (ti.ad)."""
        from .autodiff import AdjointKernel

        return AdjointKernel(self.kernel, self.obj)


def kernel(fn: Callable[..., Any] | None = None, *, passes: Any = None) -> Any:
    """
    Decorate a Taichi kernel: compiled on first call, run on the current arch.
    `@ti.kernel(passes={...})` gives the kernel its own pipeline edits, applied after
    ti.init's (the same dict as `ti.init(passes=...)`, ti.compiler.PipelineEdits).
    """
    if fn is None:
        return lambda f: Kernel(f, passes)
    return Kernel(fn, passes)


class Func:
    """A `@ti.func`: inlined into the kernels that call it."""

    def __init__(self, fn: Callable[..., Any]):
        check_string_annotations(fn, "function")
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "func")
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._source: FunctionSource | None = None
        self._annotations: dict[str, Any] | None = None

    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = parse_function(self.fn)
        return self._source

    def signature(self) -> inspect.Signature:
        return inspect.signature(self.fn)

    def annotations(self) -> dict[str, Any]:
        if self._annotations is None:
            self._annotations = _annotations(self.fn)
        return self._annotations

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TaichiError(
            f"ti.func '{self.__name__}' can only be called from a kernel or another ti.func"
        )

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else BoundFunc(self, obj)


class BoundFunc:
    """A ti.func method bound to its object."""

    __slots__ = ("func", "obj")

    def __init__(self, func: Func, obj: Any):
        self.func = func
        self.obj = obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)


def func(fn: Callable[..., Any]) -> Func:
    """Decorate a Taichi function, callable from kernels (inlined)."""
    return Func(fn)


def data_oriented(cls: type) -> type:
    """Mark a class whose methods are kernels (`self` becomes a template argument,
    told apart by its identity and the fields it holds: _data_oriented_key)."""
    cls._ti_data_oriented = True
    return cls


class RealFunc(Func):
    """
    A `@ti.real_func`: Taichi compiles it as a function of its own, with typed
    parameters (every one annotated) and a typed return value, so it may recurse. On
    CPU, taichi-xdsl calls it for real (codegen/real_funcs.py says which signatures);
    otherwise, and on Vulkan (SPIR-V forbids recursion), it is inlined like a ti.func,
    which gives the same results for every call that does not recurse; a recursive one
    there is a compile error naming it.

    Raises:
        TaichiSyntaxError: a parameter without a type annotation.
    """

    def __init__(self, fn: Callable[..., Any]):
        super().__init__(fn)
        for i, p in enumerate(inspect.signature(fn).parameters.values()):
            if i == 0 and p.name == "self":
                continue  # a method of a data-oriented class: the object itself
            if p.annotation is inspect.Parameter.empty:
                raise TaichiSyntaxError(
                    f"Taichi function '{self.__name__}': parameter '{p.name}' must be "
                    "type annotated"
                )


def real_func(fn: Callable[..., Any]) -> RealFunc:
    """`@ti.real_func`: see RealFunc."""
    return RealFunc(fn)

