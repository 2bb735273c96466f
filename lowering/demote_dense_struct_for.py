"""
ti-demote-dense-struct-for: a struct_for over a dense container becomes a range_for.

A dense field or an ndarray has every index of its shape active, so `for i, j in x`
visits exactly the row-major index space of its shape: one flat range_for over the
product of the extents, whose body recovers each index with div/rem (the last index runs
fastest, so consecutive iterations touch consecutive elements). Taichi does the same for
dense SNodes (taichi/transforms/demote_dense_struct_fors.cpp); afterwards ti-offload sees
only range_fors, and ndarrays (which have no SNode tree to walk) work too.

    taichi.struct_for (%i, %j) in %x : memref<4x8xf32> {
      ...
    }
    ~>
    %c8 = arith.constant 8 : i32
    %n = arith.constant 32 : i32
    %lo = arith.constant 0 : i32
    taichi.range_for %linear = %lo to %n : i32 {
      %j = arith.remsi %linear, %c8 : i32
      %i = arith.divsi %linear, %c8 : i32     (the first index needs no remsi)
      ...
    }

An ndarray's extents are read at run time (`memref.dim`, cast to i32) and multiplied.
The loop keeps the struct_for's `serialize` flag and other attributes.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.hints import isa

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.diagnostics import PassFailedAt

_I32_MAX = 2**31 - 1


def _extent(container: SSAValue, dim: int, size: int, ops: list[Operation]) -> SSAValue:
    """Extent `dim` as an i32: a constant, or the ndarray's `memref.dim`."""
    if size >= 0:
        ops.append(extent := arith.ConstantOp.from_int_and_width(size, i32))
    else:
        ops.append(index := arith.ConstantOp.from_int_and_width(dim, IndexType()))
        ops.append(length := memref.DimOp(container, index))
        ops.append(extent := arith.IndexCastOp(length, i32))
    return extent.result


def _static_count(op: taichi.StructForOp, shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    if count > _I32_MAX:
        raise PassFailedAt(
            op, f"ti-demote-dense-struct-for: {count} elements overflow the i32 loop index"
        )
    return count


def _recover_indices(
    linear: SSAValue, rank: int, extents: list[SSAValue]
) -> tuple[list[Operation], list[SSAValue]]:
    """The rem/div ops that split `linear` into `rank` row-major indices, and the
    indices; `extents` are those of dimensions 1 to rank - 1."""
    if rank == 0:
        return [], []  # a 0-d container: one iteration, no index
    ops: list[Operation] = []
    rest = linear
    indices: list[SSAValue] = []
    for extent in reversed(extents):
        ops.append(index := arith.RemSIOp(rest, extent))
        ops.append(quotient := arith.DivSIOp(rest, extent))
        indices.append(index.result)
        rest = quotient.result
    indices.append(rest)
    indices.reverse()
    return ops, indices


class DemoteStructFor(RewritePattern):
    """
    A struct_for becomes a range_for over the flattened index space (module docstring).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.StructForOp, rewriter: PatternRewriter):
        container_type = op.container.type
        assert isa(container_type, MemRefType)
        shape = container_type.get_shape()
        dynamic = any(size < 0 for size in shape)
        outside: list[Operation] = []
        # The first extent only counts the iterations: needed when not a constant.
        extents = [
            _extent(op.container, dim, size, outside)
            for dim, size in enumerate(shape)
            if dim > 0 or dynamic
        ]
        if dynamic:
            total = extents.pop(0)
            for extent in extents:
                outside.append(product := arith.MuliOp(total, extent))
                total = product.result
        else:
            count = _static_count(op, shape)
            outside.append(constant := arith.ConstantOp.from_int_and_width(count, i32))
            total = constant.result
        outside.append(lower := arith.ConstantOp.from_int_and_width(0, i32))

        body = Block(arg_types=[i32])
        body.args[0].name_hint = "linear"
        recover, indices = _recover_indices(body.args[0], len(shape), extents)
        body.add_ops(recover)
        rewriter.inline_block(op.body.block, InsertPoint.at_end(body), indices)

        loop = taichi.RangeForOp(lower, total, body, serialize=op.serialize is not None)
        loop.attributes.update(op.attributes)
        for new_op in (*outside, *recover, loop):
            new_op.location = op.location
        rewriter.replace(op, [*outside, loop], [])


class DemoteDenseStructForPass(ModulePass):
    """Turn every struct_for over a dense field or an ndarray into a flat range_for."""

    name = "ti-demote-dense-struct-for"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(DemoteStructFor()).rewrite_module(op)
