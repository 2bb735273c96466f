"""
`ti.simt.*` calls inside kernels -> the taichi dialect's subgroup and workgroup ops.

    subgroup.reduce_add(v)        ->  %s = taichi.subgroup_reduce add reduce %v : f32
    subgroup.exclusive_max(u)     ->  %m = taichi.subgroup_reduce max exclusive unsigned %u : i32
    subgroup.shuffle_down(v, 1)   ->  %r = taichi.subgroup_shuffle down %v, %c1 : f32
    subgroup.elect()              ->  %e = taichi.simt_id elect : i32
    block.sync()                  ->  taichi.barrier workgroup

The IR is the same for every arch; what an arch cannot do is rejected by its lowering
(ti-serial-simt on CPU, convert-offload-to-spirv on Vulkan), at the call's line.
Vectors and matrices are combined component by component.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiSyntaxError, TaichiTypeError

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from ..lang import dtypes
from .emitter import Value, ir_type
from .values import Container, describe, is_scalar
from .vectors import Vec

if TYPE_CHECKING:
    from .visitor import KernelCodegen

_SHUFFLES = {
    "shuffle": "index",
    "shuffle_xor": "xor",
    "shuffle_up": "up",
    "shuffle_down": "down",
    "broadcast": "broadcast",
}
_VOTES = {"all_true": "all", "any_true": "any", "all_equal": "all_equal"}
_IDS = {
    "subgroup.elect": "elect",
    "subgroup.invocation_id": "invocation_id",
    "subgroup.group_size": "group_size",
    "block.thread_idx": "thread_idx",
    "block.global_thread_idx": "global_thread_idx",
}
_BARRIERS = {
    "subgroup.barrier": ("subgroup", False),
    "subgroup.memory_barrier": ("subgroup", True),
    "block.sync": ("workgroup", False),
    "block.mem_sync": ("workgroup", True),
    "grid.memfence": ("device", True),
}


def lower_simt(
    cg: KernelCodegen, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call
) -> Any:
    """The IR of `ti.simt.<name>(*args)` (name: `subgroup.reduce_add`, `block.sync`, ...)."""
    space, _, fn = name.partition(".")
    if kwargs:
        raise cg.error(TaichiSyntaxError, node, f"ti.simt.{name}() takes no keyword arguments")
    if space == "warp" or fn.startswith("sync_") and fn.endswith("_nonzero"):
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"ti.simt.{name}() needs CUDA, which taichi-xdsl does not target; "
            "ti.simt.subgroup has the portable subgroup operations",
        )
    em = cg.em
    if name == "block.SharedArray":
        return _shared_array(cg, node, args)
    if name in _IDS:
        _expect(cg, node, name, args, 0)
        return em._v(taichi.SimtIdOp(_IDS[name]), dtypes.i32)
    if name in _BARRIERS:
        _expect(cg, node, name, args, 0)
        scope, memory_only = _BARRIERS[name]
        em.emit(taichi.BarrierOp(scope, memory_only))
        return None
    if fn in _VOTES:
        _expect(cg, node, name, args, 1)
        return _each(cg, node, name, args[0], lambda v: _vote(cg, node, name, fn, v))
    if fn == "broadcast_first":
        _expect(cg, node, name, args, 1)
        return _each(
            cg,
            node,
            name,
            args[0],
            lambda v: em._v(taichi.SubgroupBroadcastFirstOp(v.ssa), v.dtype),
        )
    if fn in _SHUFFLES:
        _expect(cg, node, name, args, 2)
        index = _index(cg, node, name, args[1])
        return _each(
            cg,
            node,
            name,
            args[0],
            lambda v: em._v(taichi.SubgroupShuffleOp(_SHUFFLES[fn], v.ssa, index.ssa), v.dtype),
        )
    mode, _, kind = fn.partition("_")
    if mode in taichi.SUBGROUP_SCANS and kind in taichi.SUBGROUP_REDUCTIONS:
        _expect(cg, node, name, args, 1)
        return _each(cg, node, name, args[0], lambda v: _reduce(cg, node, name, mode, kind, v))
    raise cg.error(TaichiSyntaxError, node, f"ti.simt.{name} is no ti.simt operation")


class SharedArrayHandle(Container):
    """`ti.simt.block.SharedArray(...)` as the kernel sees it: a container of static shape."""

    def __init__(self, ssa: SSAValue, dtype: dtypes.DataType, shape: tuple[int, ...]):
        self.ssa = ssa
        self.dtype = dtype
        self.ndim = len(shape)
        self.static_shape = shape

    def shape(self, cg: KernelCodegen) -> tuple[int, ...]:
        return self.static_shape


def _shared_array(cg: KernelCodegen, node: ast.Call, args: list[Any]) -> SharedArrayHandle:
    """`ti.simt.block.SharedArray(shape, dtype)`: `taichi.shared_array` of the kernel's
    next id (two arrays of one shape are two arrays)."""
    _expect(cg, node, "block.SharedArray", args, 2)
    shape, dtype = args
    shape = (shape,) if isinstance(shape, int) else tuple(shape) if isinstance(shape, tuple | list) else None
    if not shape or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
        raise cg.error(
            TaichiTypeError,
            node,
            "ti.simt.block.SharedArray(shape, dtype): shape must be positive integers known "
            "at compile time",
        )
    if hasattr(dtype, "shape") and hasattr(dtype, "cooked"):
        raise cg.error(
            TaichiTypeError,
            node,
            "ti.simt.block.SharedArray of vectors or matrices is not supported by "
            "taichi-xdsl yet: use a scalar dtype and a trailing axis",
        )
    dt = cg.cook_dtype(dtype, node)
    cg.shared_arrays += 1
    op = taichi.SharedArrayOp(cg.shared_arrays - 1, MemRefType(ir_type(dt), shape))
    cg.em.emit(op)
    return SharedArrayHandle(op.result, dt, shape)


def _expect(cg: KernelCodegen, node: ast.Call, name: str, args: list[Any], n: int) -> None:
    if len(args) != n:
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"ti.simt.{name}() takes {n} argument{'s' if n != 1 else ''}, got {len(args)}",
        )


def _each(cg: KernelCodegen, node: ast.Call, name: str, x: Any, fn: Any) -> Any:
    """`fn` of scalar `x`, or of each component of a vector/matrix `x`."""
    if isinstance(x, Vec):
        return Vec(x.shape, [fn(_scalar(cg, node, name, e)) for e in x.elems])
    return fn(_scalar(cg, node, name, x))


def _scalar(cg: KernelCodegen, node: ast.Call, name: str, x: Any) -> Value:
    if not is_scalar(x):
        raise cg.error(
            TaichiTypeError, node, f"ti.simt.{name}() takes a number, got {describe(x)}"
        )
    return cg.em.value(x)


def _index(cg: KernelCodegen, node: ast.Call, name: str, x: Any) -> Value:
    v = _scalar(cg, node, name, x)
    if not v.dtype.is_int:
        raise cg.error(
            TaichiTypeError, node, f"ti.simt.{name}(): the invocation index must be an integer"
        )
    return cg.em.value(v, dtypes.i32)


def _vote(cg: KernelCodegen, node: ast.Call, name: str, fn: str, v: Value) -> Value:
    if fn != "all_equal" and not v.dtype.is_int:
        raise cg.error(
            TaichiTypeError, node, f"ti.simt.{name}() tests an integer condition, got {v.dtype}"
        )
    return cg.em._v(taichi.SubgroupVoteOp(_VOTES[fn], v.ssa), dtypes.i32)


def _reduce(
    cg: KernelCodegen, node: ast.Call, name: str, mode: str, kind: str, v: Value
) -> Value:
    if kind in ("and", "or", "xor") and not v.dtype.is_int:
        raise cg.error(
            TaichiTypeError, node, f"ti.simt.{name}() combines integers, got {v.dtype}"
        )
    unsigned = kind in ("min", "max") and v.dtype.is_unsigned
    return cg.em._v(taichi.SubgroupReduceOp(kind, mode, v.ssa, unsigned), v.dtype)
