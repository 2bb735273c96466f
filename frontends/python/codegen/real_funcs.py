"""
`@ti.real_func` as a real call (CPU): each instantiation of a real function becomes one
`func.func` of the kernel's module, and each call a `func.call`; so a real function may
call itself (Taichi's recursion).

    @ti.real_func                             func.func private @k__fn0_sum(%n: i32) -> i32 {
    def sum(n: ti.i32) -> ti.i32:               ... (the body, in the taichi dialect;
        if n == 0:                                   early returns through a slot)
            return 0                            %r = func.call @k__fn0_sum(%m) : (i32) -> i32
        return sum(n - 1) + n                    ...
                                                func.return %s : i32
    @ti.kernel                                }
    def k(n: ti.i32) -> ti.i32:               taichi.kernel @k(%n: i32) -> i32 {
        return sum(n)                           %r = func.call @k__fn0_sum(%n) : (i32) -> i32
                                                taichi.return %r : i32
                                              }

An instantiation is the function and its template arguments (fields by identity, Python
numbers by value), as in Taichi. Its body is compiled by a code generator of its own (the
function's fields are read through `taichi.get_field` in the function; its loops are
serial). The passes that follow run inside the functions too; the LLVM conversion gives
each function the task's RuntimeContext as its first parameter, so the function reaches the
kernel's fields.

What goes through a real call: parameters that are scalars (primitive annotations),
vectors or matrices (passed as their elements), or template arguments naming Python
objects (a field, a number, a tuple of fields, a data-oriented object); a scalar, a
vector or matrix (the function's results are its elements) or no return value. Other
real functions (struct, ndarray or ti.ref parameters, struct or tuple returns), every real function on Vulkan (SPIR-V forbids recursion) and those of a
kernel being differentiated (ti-auto-diff differentiates a kernel's own code) are
inlined, which gives the same results for every call that does not recurse; a recursive
one of those is a compile error naming it.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from taichi_xdsl.utils.errors import TaichiCompilationError
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, FunctionType, IntAttr, StringAttr
from xdsl.ir import Attribute, Block, Region

from ..lang.dtypes import DataType
from ..lang.matrix import MatrixType
from .emitter import Value, ir_type
from .lists import KernelList
from .values import Container, FieldHandle, NdarrayHandle, Place
from .vectors import Vec

if TYPE_CHECKING:
    from .visitor import KernelCodegen

INLINE = object()
"""What `call` returns for a real function it leaves to inlining."""


def call(cg: KernelCodegen, fn: Any, arguments: dict[str, Any], node: ast.Call) -> Any:
    """
    The call of the real function `fn` with `arguments` bound to its parameters: a
    `func.call` of its instantiation (built on first use), whose result it returns; or
    INLINE where the function is inlined instead (see the module docstring).

    Raises:
        TaichiCompilationError: a recursive real function that must be inlined.
    """
    signature = _signature(cg, fn, arguments, node) if _real_calls(cg) else None
    if signature is None:
        if fn in cg.inlining:
            raise cg.error(
                TaichiCompilationError,
                node,
                f"ti.real_func '{fn.__name__}' calls itself: {_why_inlined(cg)}",
            )
        return INLINE
    key, params, ret = signature
    symbol = cg.real_functions.get(key)
    if symbol is None:
        symbol = _instantiate(cg, fn, key, params, ret, arguments, node)
        if symbol is None:
            return INLINE
    operands = [cg.em.value(x, p.dtype).ssa for p in params for x in p.values]
    op = cg.em.emit(func.CallOp(symbol, operands, _result_types(ret)))
    if ret is None:
        return None
    values = [Value(r, ret.dtype) for r in op.results]
    return values[0] if ret.shape is None else Vec(ret.shape, values)


@dataclass
class _Return:
    """What a real function returns: a scalar (shape None) or a vector / matrix of
    `shape`, as its elements (the function's results)."""

    dtype: DataType
    shape: tuple[int, ...] | None

    @property
    def size(self) -> int:
        return 1 if self.shape is None else int(np.prod(self.shape))


def _result_types(ret: _Return | None) -> list[Attribute]:
    return [] if ret is None else [ir_type(ret.dtype)] * ret.size


def _real_calls(cg: KernelCodegen) -> bool:
    """Whether real functions are called for real: on CPU, in a kernel that is not
    being differentiated (ti-auto-diff differentiates a kernel's own code)."""
    from ..lang.program import vulkan

    return cg.real_calls and cg.program.config.arch is not vulkan


def _why_inlined(cg: KernelCodegen) -> str:
    if not cg.real_calls:
        return (
            "autodiff through a recursive real function is not supported (the "
            "differentiated kernel inlines its real functions)"
        )
    if not _real_calls(cg):
        return (
            "recursion needs a cpu arch (SPIR-V forbids recursion: on Vulkan real "
            "functions are inlined)"
        )
    return (
        "recursion is supported for real functions whose parameters are scalars, "
        "vectors, matrices or ti.template() arguments (fields, numbers) and whose return "
        "value is a scalar, a vector, a matrix or nothing; this one is inlined"
    )


@dataclass
class _Param:
    """A run-time parameter of a real function: a scalar (shape None) or a vector /
    matrix of `shape`, passed as its elements; `values` are what this call passes."""

    name: str
    dtype: DataType
    shape: tuple[int, ...] | None
    values: list[Any]


def _signature(
    cg: KernelCodegen, fn: Any, arguments: dict[str, Any], node: ast.Call
) -> tuple[tuple[Any, ...], list[_Param], _Return | None] | None:
    """
    (instantiation key, run-time parameters, return type) of a call that can be a real
    call; None when the function must be inlined.
    """
    from .calls import _is_template

    annotations = fn.annotations()
    key: list[Any] = [fn]
    params: list[_Param] = []
    for name, value in arguments.items():
        ann = annotations.get(name)
        if _is_template(ann) or (name == "self" and ann is None):  # a data-oriented object
            template = _template_key(value)
            if template is None:
                return None
            key.append((name, template))
        elif _is_scalar_type(ann) and isinstance(value, Value | bool | int | float):
            params.append(_Param(name, cg.cook_dtype(ann, node), None, [value]))
        elif isinstance(ann, MatrixType) and (vec := _vector_arg(cg, ann, value, node)):
            params.append(_Param(name, vec[0], tuple(ann.shape), vec[1]))
        else:
            return None
    ret_ann = annotations.get("return")
    ret: _Return | None = None
    if _is_scalar_type(ret_ann):
        ret = _Return(cg.cook_dtype(ret_ann, node), None)
    elif isinstance(ret_ann, MatrixType) and _fixed_shape(ret_ann):
        ret = _Return(cg.cook_dtype(ret_ann.dtype, node), tuple(ret_ann.shape))
    elif ret_ann is not None:
        return None
    return tuple(key), params, ret


def _fixed_shape(t: MatrixType) -> bool:
    return len(t.shape) in (1, 2) and all(isinstance(n, int) for n in t.shape)


def _vector_arg(
    cg: KernelCodegen, ann: MatrixType, value: Any, node: ast.Call
) -> tuple[DataType, list[Any]] | None:
    """The element type and elements of a vector / matrix argument (a scalar fills
    it, as Taichi's); None when its shape differs (inlining then names the error)."""
    if not _fixed_shape(ann):
        return None
    v = cg.as_vec(value)
    if v is None:
        if not isinstance(value, Value | bool | int | float):
            return None
        v = cg.construct_type(ann, [value], node)
    if tuple(v.shape) != tuple(ann.shape):
        return None
    dt = cg.cook_dtype(ann.dtype, node)
    return dt, list(cg.vec_cast(v, dt).elems)


def _is_scalar_type(ann: Any) -> bool:
    return isinstance(ann, DataType) or ann in (int, float, bool)


def _template_key(value: Any) -> Any:
    """What tells template argument `value` apart; None for one a call cannot pass (a
    variable of the caller, an ndarray argument, a run-time value)."""
    if isinstance(value, FieldHandle):
        return ("field", _Identity(value.field))
    if isinstance(value, bool | int | float | str) or value is None:
        return ("value", type(value).__name__, value)
    if isinstance(value, Value | Place | Container | NdarrayHandle | KernelList):
        return None
    if type(value) in (tuple, list):  # `(a, b)` of fields: by its items
        items = [_template_key(item) for item in value]
        if any(item is None for item in items):
            return None
        return ("items", type(value).__name__, tuple(items))
    if getattr(type(value), "_ti_data_oriented", False) or isinstance(
        value, types.FunctionType | types.ModuleType | type | DataType
    ):  # an object whose fields the function reads; a function, module or type
        return ("object", _Identity(value))
    return None


def _rebind(body: KernelCodegen, value: Any) -> Any:
    """A template argument as the function's body sees it: a field through the
    function's own `taichi.get_field`, inside tuples and lists too."""
    if isinstance(value, FieldHandle):
        return body.field_handle(value.field)
    if type(value) in (tuple, list):
        return type(value)(_rebind(body, item) for item in value)
    return value


class _Identity:
    """An object compared by identity, kept alive by the key that holds it (so that no
    later object reuses its id while the kernel is compiled)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


def _instantiate(
    cg: KernelCodegen,
    fn: Any,
    key: tuple[Any, ...],
    params: list[_Param],
    ret: _Return | None,
    arguments: dict[str, Any],
    node: ast.Call,
) -> str | None:
    """Build the `func.func` of one instantiation of `fn`; returns its symbol, or None
    when the body draws ti.random numbers (the kernel's random state is not passed to
    functions: such a function is inlined instead, unless it recurses)."""
    from .calls import inline_bound_func

    symbol = f"{cg.symbol}__fn{len(cg.real_functions)}_{fn.__name__}"
    cg.real_functions[key] = symbol  # before the body: a recursive call finds it
    body = type(cg)(cg.program, cg.symbol)
    body.real_calls = cg.real_calls
    body.kernel_name = cg.kernel_name
    body.real_functions = cg.real_functions
    body.function_ops = cg.function_ops
    input_types = [ir_type(p.dtype) for p in params for _ in p.values]
    body.entry = Block(arg_types=input_types)
    body.em.block = body.entry
    body.em.loc = cg.em.loc
    body.ctx = cg.ctx  # the caller: errors inside name the call too
    bound = {name: _rebind(body, value) for name, value in arguments.items()}
    args = iter(body.entry.args)
    for p in params:
        elems = []
        for index in range(len(p.values)):
            arg = next(args)
            arg.name_hint = p.name if p.shape is None else f"{p.name}_{index}"
            elems.append(Value(arg, p.dtype))
        bound[p.name] = elems[0] if p.shape is None else Vec(p.shape, elems)
    result = inline_bound_func(body, fn, bound, node)
    if body.rng_used:
        del cg.real_functions[key]
        recursive = any(  # directly, or through a function it called
            isinstance(op, func.CallOp) and op.callee.string_value() == symbol
            for holder in (body.entry, *cg.function_ops)
            for op in holder.walk()
        )
        if recursive:
            raise cg.error(
                TaichiCompilationError,
                node,
                f"ti.real_func '{fn.__name__}' calls itself and draws ti.random numbers: "
                "not supported (a real function does not share the kernel's random state)",
            )
        return None
    if ret is None:
        results = []
    elif ret.shape is None:
        results = [body.em.value(result, ret.dtype).ssa]
    else:  # inline_bound_func gave a vector of the annotated shape and type
        results = [body.em.value(e, ret.dtype).ssa for e in result.elems]
    body.em.emit(func.ReturnOp(*results))
    function = func.FuncOp(
        symbol,
        FunctionType.from_lists(input_types, _result_types(ret)),
        Region(body.entry),
        visibility=StringAttr("private"),
    )
    src = fn.source()
    function.location = FileLineColLoc(  # pyright: ignore[reportAttributeAccessIssue]
        StringAttr(src.filename), IntAttr(src.file_line(src.tree)), IntAttr(1)
    )
    cg.function_ops.append(function)
    return symbol


__all__ = ["INLINE", "call"]
