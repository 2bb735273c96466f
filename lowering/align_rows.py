"""
ti-align-rows: a flattened nd parallel loop (ti.ndrange, a dense struct-for) iterates
its innermost extent E padded to a power of two P, so that on a GPU each row starts at
an invocation index that is a multiple of P (a warp never straddles two rows, and its
loads of a row are whole 128-byte lines) and the index splits into (row, column) with a
shift and a mask instead of a division by E. The padded columns [E, P) skip the body,
so the same (i, j) run and compute the same values.

A range_for task of constant bounds [0, R * E) whose index is used only as
`remsi(t, E)` and `divsi(t, E)` (what the frontend writes for an ndrange and
ti-demote-dense-struct-for for a struct-for) is rewritten when P - E <= E / `pad-ratio`
(P = E: no guard, only the shift and mask). Where the column index is only added to a
constant begin b (j = t % E + b) and the padding leaves room, columns [f, f + E) run
with f = b % `align`, so that the first j of a row, b, falls at a column that is a
multiple of `align` (32: a warp's f32 loads start on a 128-byte line):

    %hi = arith.constant 4186116 : i32          // ndrange((1, 2047), (1, 2047))
    offload.range_for %t = %c0 to %hi : i32 {
      %c2046 = arith.constant 2046 : i32
      %r = arith.remsi %t, %c2046 : i32
      %j = arith.addi %r, %c1 : i32
      %q = arith.divsi %t, %c2046 : i32
      <body>
    }
    ~>
    %hi2 = arith.constant 4190208 : i32         // 2046 * 2048
    offload.range_for %t = %c0 to %hi2 : i32 {
      %mask = arith.constant 2047 : i32
      %col = arith.andi %t, %mask : i32
      %shift = arith.constant 11 : i32
      %q = arith.shrui %t, %shift : i32
      %front = arith.constant 1 : i32
      %r = arith.subi %col, %front : i32        // column 1 is j = 1
      %extent = arith.constant 2046 : i32
      %in = arith.cmpi ult, %r, %extent : i32   // 1 <= col < 2047
      taichi.if %in {
        %c2046 = arith.constant 2046 : i32
        %j = arith.addi %r, %c1 : i32
        <body>
        taichi.yield
      }
    }

Measured on an H100 (Vulkan, docs/gpu-speed/stencil.md): a 5-point stencil over
ndrange((1, 2047), (1, 2047)), 17.3 us -> 15.7-16.2 us of GPU time. Runs in the GPU
pipeline only: on CPU threads ti-split-parallel-loop gives rows a serial inner loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from taichi_xdsl.dialects import offload, taichi
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

_I32_MAX = 2**31 - 1


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _row_extent(index: SSAValue) -> int | None:
    """E when every use of `index` is remsi or divsi of it by the constant E > 0."""
    extent: int | None = None
    for use in index.uses:
        op = use.operation
        if not isinstance(op, arith.RemSIOp | arith.DivSIOp) or use.index != 0:
            return None
        divisor = _constant(op.rhs)
        if divisor is None or divisor <= 0 or extent not in (None, divisor):
            return None
        extent = divisor
    return extent


def _column_begin(index: SSAValue) -> int:
    """b when every remsi of `index` is only added to the constant b (ndrange((.., ..),
    (b, e)): j = t % E + b), else 0."""
    begins: set[int] = set()
    for use in index.uses:
        if not isinstance(use.operation, arith.RemSIOp):
            continue
        for add in use.operation.results[0].uses:
            op = add.operation
            if not isinstance(op, arith.AddiOp):
                return 0
            begins.add(_constant(op.operands[1 - add.index]) or 0)
    return begins.pop() if len(begins) == 1 else 0


@dataclass
class PadRows(RewritePattern):
    """A range_for over [0, R * E) split by E: iterate rows of P >= E columns."""

    pad_ratio: int
    align: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, task: offload.RangeForTask, rewriter: PatternRewriter):
        if task.serial_form is not None:
            return  # a one-thread form keeps its plain loop
        if task.lower.type != i32 or _constant(task.lower) != 0:
            return
        total = _constant(task.upper)
        index = task.body.block.args[0]
        extent = _row_extent(index)
        if total is None or extent is None or total % extent:
            return
        padded = 1 << (extent - 1).bit_length()
        rows = total // extent
        if (padded - extent) * self.pad_ratio > extent or rows * padded > _I32_MAX:
            return
        # Columns [front, front + E) run, so that the first j = begin is at a multiple
        # of `align` (a warp's loads start on a line) where the padding leaves room.
        front = _column_begin(index) % self.align
        if front + extent > padded:
            front = 0
        body = task.body.block
        mask = arith.ConstantOp.from_int_and_width(padded - 1, i32)
        column = arith.AndIOp(index, mask)
        shift = arith.ConstantOp.from_int_and_width(padded.bit_length() - 1, i32)
        row = arith.ShRUIOp(index, shift)
        split: list[Operation] = [mask, column, shift, row]
        remainder: SSAValue = column.result
        if front:
            skip = arith.ConstantOp.from_int_and_width(front, i32)
            moved = arith.SubiOp(column, skip)
            split += [skip, moved]
            remainder = moved.result
        for use in list(index.uses):
            if use.operation in split:
                continue
            op = use.operation
            new = remainder if isinstance(op, arith.RemSIOp) else row.result
            op.results[0].replace_all_uses_with(new)
            rewriter.erase(op)
        if padded != extent:
            inner = Block()
            for op in list(body.ops):
                op.detach()
                inner.add_op(op)
            inner.add_op(taichi.YieldOp())
            bound = arith.ConstantOp.from_int_and_width(extent, i32)
            inside = arith.CmpiOp(remainder, bound, "ult")  # front <= column < front + E
            guard = taichi.IfOp(inside, Region(inner))
            split += [bound, inside, guard]
        for op in split:
            op.location = task.location
        if body.first_op is None:
            body.add_ops(split)
        else:
            body.insert_ops_before(split, body.first_op)
        if padded != extent:
            upper = arith.ConstantOp.from_int_and_width(rows * padded, i32)
            rewriter.insert(upper, InsertPoint.before(task))
            task.operands = [task.lower, upper.result]


@dataclass(frozen=True)
class AlignRowsPass(ModulePass):
    """
    Flattened nd range_for tasks iterate rows padded to a power of two (at most
    1/`pad-ratio` more invocations), split by shift and mask, the first column where
    j = begin is a multiple of `align` when the padding leaves room (see the module
    docstring).
    """

    name = "ti-align-rows"

    pad_ratio: int = 16
    align: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            PadRows(self.pad_ratio, self.align), apply_recursively=False
        ).rewrite_module(op)
