"""
A researcher's pass (docs/tutorial-pass.md): strength-reduce a multiplication by two
into an addition, `x * 2 -> x + x`, for integers and floats (exact for floats too:
x + x rounds as 2 * x does).

    %c2 = arith.constant 2 : i32
    %y = arith.muli %x, %c2 : i32
    ~>
    %y = arith.addi %x, %x : i32

Load it with `ti-opt --pass-plugin strength_reduce.py -p strength-reduce-mul2`, or in a
program with `ti.compiler.load_pass_plugin("strength_reduce.py")`.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)


def is_two(value: SSAValue) -> bool:
    """Whether `value` is the constant 2 (or 2.0)."""
    op = value.owner
    if not isinstance(op, arith.ConstantOp):
        return False
    attr = op.value
    if isinstance(attr, IntegerAttr):
        return attr.value.data == 2
    return isinstance(attr, FloatAttr) and attr.value.data == 2.0


class MulByTwoToAdd(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp | arith.MulfOp, rewriter: PatternRewriter):
        lhs, rhs = op.lhs, op.rhs
        if is_two(lhs):
            lhs, rhs = rhs, lhs
        if not is_two(rhs):
            return
        if isinstance(op, arith.MuliOp):
            rewriter.replace_matched_op(arith.AddiOp(lhs, lhs))
        else:
            rewriter.replace_matched_op(arith.AddfOp(lhs, lhs, flags=op.fastmath))


@dataclass(frozen=True)
class StrengthReduceMul2(ModulePass):
    """Rewrite `x * 2` into `x + x` (integers and floats)."""

    name = "strength-reduce-mul2"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MulByTwoToAdd()).rewrite_module(op)
