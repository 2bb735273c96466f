"""
ti-split-parallel-loop: a flattened n-d parallel loop becomes rows x a serial inner loop.

The frontend flattens `ti.ndrange(...)` and ti-demote-dense-struct-for flattens a struct-for
over a dense n-d container into ONE parallel range_for whose body recovers the indices
with `remsi`/`divsi` by the extents. The whole index space stays the parallel loop (as in
Taichi), but a div and a rem per element keep LLVM from vectorising the body. When the
last extent is a constant of at least 32, this pass splits the loop: the parallel
range_for runs over the flattened OUTER dimensions, and a serial range_for over the last
dimension runs inside it, so the innermost index is a plain induction variable.

    %c62 = arith.constant 62 : i32
    %n = arith.constant 3844 : i32                  (62 * 62)
    %lo = arith.constant 0 : i32
    taichi.range_for %t = %lo to %n : i32 {
      %r = arith.remsi %t, %c62 : i32
      %q = arith.divsi %t, %c62 : i32
      ... (uses %r, %q)
      taichi.yield
    }
    ~>
    %rows = arith.constant 62 : i32                 (3844 / 62)
    taichi.range_for %q = %lo to %rows : i32 {
      %c0 = arith.constant 0 : i32
      %e = arith.constant 62 : i32
      taichi.range_for %r = %c0 to %e : i32 {
        ... (uses %r, %q)
        taichi.yield
      } {serialize}
      taichi.yield
    }

It fires only on an outermost, non-serialized range_for (a kernel's parallel loop) that
starts at 0, whose index is used only by `remsi`/`divsi` by one constant E >= 32, and
whose upper bound is provably a multiple of E: a constant multiple, or `arith.muli %rows,
E` (the form the frontend and ti-demote-dense-struct-for build for dynamic outer extents),
where the outer loop then runs to %rows. A 3-d loop keeps its div/rem of the outer index,
hoisted with the other pure ops that do not depend on the inner index. A loop with a `break` of its own is left alone (ti-offload
rejects it), and so is a short last dimension (E < 32), which keeps the flat form so that
tiny rows do not cost parallelism; a dynamic last extent (an ndarray) too, as it may be
short. `continue` in the body now continues the inner loop: the same next element.
"""

from __future__ import annotations

from taichi_xdsl.dialects import taichi
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

MIN_ROW = 32
"""The shortest last extent that gets its own serial inner loop."""


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _breaks_out(loop: taichi.RangeForOp) -> bool:
    """Whether a `taichi.break` in the body leaves `loop` itself."""
    return any(
        isinstance(op, taichi.BreakOp) and taichi.innermost_loop(op) is loop
        for op in loop.body.walk()
    )


def _row_length(loop: taichi.RangeForOp) -> int | None:
    """E when every use of the index is `remsi`/`divsi` by a constant E >= MIN_ROW."""
    row: int | None = None
    for use in loop.index.uses:
        user = use.operation
        if not isinstance(user, arith.RemSIOp | arith.DivSIOp) or use.index != 0:
            return None
        extent = _constant(user.rhs)
        if extent is None or extent < MIN_ROW or (row is not None and extent != row):
            return None
        row = extent
    return row


def _rows(upper: SSAValue, row: int) -> SSAValue | int | None:
    """`upper / row` when `upper` is provably a multiple of `row`: an int or a value."""
    count = _constant(upper)
    if count is not None:
        return count // row if count % row == 0 else None
    owner = upper.owner
    if isinstance(owner, arith.MuliOp):
        if _constant(owner.rhs) == row:
            return owner.lhs
        if _constant(owner.lhs) == row:
            return owner.rhs
    return None


def _invariant_ops(inner: Block) -> list[Operation]:
    """Detach the pure top-level ops of `inner` that use nothing defined in it (the
    outer indices' div/rem of a 3-d loop): they move before the serial loop, which
    always runs (E >= 32 iterations), so even a division is safe to hoist."""
    hoisted: list[Operation] = []
    for op in list(inner.ops):
        if op.regions or not is_side_effect_free(op):
            continue
        if any(
            operand.owner is inner
            or (isinstance(operand.owner, Operation) and operand.owner.parent is inner)
            for operand in op.operands
        ):
            continue
        op.detach()
        hoisted.append(op)
    return hoisted


class SplitParallelLoop(RewritePattern):
    """A flat parallel loop over rows of >= 32 becomes rows x serial row (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.RangeForOp, rewriter: PatternRewriter):
        if op.serialize is not None or not isinstance(op.parent_op(), taichi.KernelOp):
            return
        if _constant(op.lower) != 0 or _breaks_out(op):
            return
        row = _row_length(op)
        if row is None:
            return
        rows = _rows(op.upper, row)
        if rows is None:
            return
        index_type = op.index.type
        outside: list[Operation] = []
        if isinstance(rows, int):
            outside.append(count := arith.ConstantOp(IntegerAttr(rows, index_type)))
            upper: SSAValue = count.result
        else:
            upper = rows

        outer = Block(arg_types=[index_type])
        inner = Block(arg_types=[index_type])
        outer.args[0].name_hint = "row"
        inner.args[0].name_hint = "col"
        for use in list(op.index.uses):
            user = use.operation
            new = inner.args[0] if isinstance(user, arith.RemSIOp) else outer.args[0]
            rewriter.replace(user, [], [new])
        rewriter.inline_block(op.body.block, InsertPoint.at_end(inner), inner.args)

        lower = arith.ConstantOp(IntegerAttr(0, index_type))
        extent = arith.ConstantOp(IntegerAttr(row, index_type))
        serial = taichi.RangeForOp(lower, extent, inner, serialize=True)
        outer.add_ops([lower, extent, *_invariant_ops(inner), serial, taichi.YieldOp()])
        loop = taichi.RangeForOp(op.lower, upper, outer)
        loop.attributes.update(op.attributes)
        for new_op in (*outside, lower, extent, serial, loop):
            new_op.location = op.location
        rewriter.replace(op, [*outside, loop], [])


class SplitParallelLoopPass(ModulePass):
    """Split flattened n-d parallel loops into parallel rows and a serial last dimension."""

    name = "ti-split-parallel-loop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SplitParallelLoop(), apply_recursively=False).rewrite_module(
            op
        )
