"""
Canonicalization patterns of the taichi dialect, run by xDSL's `canonicalize` pass.

The ops list them through `HasCanonicalizationPatternsTrait` traits in dialects/taichi.py,
which import this module lazily (a dialect never imports a pass at load time), as xDSL's
own dialects do with xdsl/transforms/canonicalization_patterns/.

They clean up what store forwarding and constant folding leave behind: branches on a
constant condition (`if ti.static(...)`-like code, debug switches), empty branches, and
loops that never run.
"""

from __future__ import annotations

from xdsl.ir import Block
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.transforms.canonicalization_patterns.utils import const_evaluate_operand

from taichi_xdsl.dialects import taichi


def _only_yields(block: Block | None) -> bool:
    """An absent block, or one that holds nothing but `taichi.yield`."""
    return block is None or isinstance(block.first_op, taichi.YieldOp)


class InlineConstantIf(RewritePattern):
    """
    An `if` on a constant condition becomes the branch it always takes, when that branch
    ends in `taichi.yield` (a `break` or `continue` must stay the last op of its block).

        %t = arith.constant true
        taichi.if %t { taichi.print "a" ; taichi.yield } else { ... }
        ~> taichi.print "a"
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.IfOp, rewriter: PatternRewriter):
        cond = const_evaluate_operand(op.cond)
        if cond is None:
            return  # decided at run time
        region = op.then_region if cond != 0 else op.else_region
        if not region.blocks:
            rewriter.erase(op)  # false, and no else branch
            return
        block = region.block
        terminator = block.last_op
        if not isinstance(terminator, taichi.YieldOp):
            return  # the branch leaves the loop: inlining would misplace the terminator
        rewriter.erase(terminator)
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.erase(op)


class EraseEmptyIf(RewritePattern):
    """
    An `if` whose branches do nothing disappears.

        taichi.if %c { taichi.yield } else { taichi.yield }
        ~> (nothing)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.IfOp, rewriter: PatternRewriter):
        if not (
            _only_yields(op.then_region.block) and _only_yields(op.else_region.first_block)
        ):
            return  # a branch has work to do
        rewriter.erase(op)


class EraseEmptyRangeFor(RewritePattern):
    """
    A `range_for` disappears when its bounds are equal (the same value or the same
    constant: no iteration) or its body does nothing.

        %c = arith.constant 4 : i32
        taichi.range_for %i = %c to %c : i32 { ... }
        ~> (nothing)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.RangeForOp, rewriter: PatternRewriter):
        lower = const_evaluate_operand(op.lower)
        runs_never = op.lower is op.upper or (
            lower is not None and lower == const_evaluate_operand(op.upper)
        )
        if not (runs_never or _only_yields(op.body.block)):
            return  # iterates, and does something when it does
        rewriter.erase(op)
