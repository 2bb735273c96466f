"""
A field loaded or stored by itself (`memref.load %x[%i]`, as textual IR may write it)
becomes an access of its element (`taichi.element_ptr %x[%i]`), the one form the access
lowerings address (ti-lower-access, convert-offload-to-spirv). The frontend always writes
the element_ptr; without this rewrite ti-lower-access read and wrote element 0 whatever
the indices were.

    %x = taichi.get_field @x : memref<8xf32>
    %v = memref.load %x[%c3] : memref<8xf32>
    ~>
    %x = taichi.get_field @x : memref<8xf32>
    %i = arith.constant 3 : i32
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>

An index that is a constant, or an `arith.index_cast` of an i32, is taken as that i32
(the SPIR-V path has no `index` values); any other goes through `arith.index_cast`. A 0-d
field (`memref.load %s[]`) gets an element_ptr without indices.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from taichi_xdsl.dialects import taichi


def arith_i32(value: int) -> Operation:
    return arith.ConstantOp(IntegerAttr(value, i32))


def access_elements(
    field: taichi.GetFieldOp,
    rewriter: PatternRewriter,
    constant: Callable[[int], Operation] = arith_i32,
) -> None:
    """Rewrite each memref.load / memref.store of `field`'s result into one of its
    element (module docstring); other users are left alone. `constant` makes an i32
    constant (the SPIR-V path's, after convert-arith-to-spirv)."""
    place = field.result
    for use in list(place.uses):
        user = use.operation
        if not isinstance(user, memref.LoadOp | memref.StoreOp) or user.memref != place:
            continue  # an element_ptr, an atomic, or the field stored as a value
        ops: list[Operation] = []
        indices = [_as_i32(index, ops, constant) for index in user.indices]
        ops.append(ptr := taichi.ElementPtrOp(place, indices))
        if isinstance(user, memref.LoadOp):
            ops.append(access := memref.LoadOp.get(ptr, []))
        else:
            ops.append(access := memref.StoreOp.get(user.value, ptr, []))
        for op in ops:
            op.location = user.location
        rewriter.replace(user, ops, [access.results[0]] if user.results else [])


def _as_i32(
    index: SSAValue, ops: list[Operation], constant: Callable[[int], Operation]
) -> SSAValue:
    """`index` as the i32 an element_ptr takes (module docstring)."""
    source = index.owner
    if isinstance(source, arith.IndexCastOp) and source.input.type == i32:
        return source.input
    if isinstance(source, arith.ConstantOp) and isinstance(source.value, IntegerAttr):
        ops.append(made := constant(source.value.value.data))
    else:
        ops.append(made := arith.IndexCastOp(index, i32))
    return made.results[0]
