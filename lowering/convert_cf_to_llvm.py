"""
convert-cf-to-llvm: cf.br / cf.cond_br -> llvm.br / llvm.cond_br, block arguments and all
(MLIR's ControlFlowToLLVM). The translator turns block arguments into phi nodes.

Block arguments of type `index` become i64; their users not converted yet read them
through a cast, as everywhere in the convert-*-to-llvm passes (lowering/llvm_conversion.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from taichi_xdsl.lowering.llvm_conversion import (
    convert_block_args,
    llvm_value,
    replace_with_llvm,
)
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier


def _branch_args(
    rewriter: PatternRewriter, op: cf.BranchOp | cf.ConditionalBranchOp, block: Block, args
) -> list[SSAValue]:
    """Successor `block` with LLVM-typed arguments, and `args` converted to match."""
    convert_block_args(rewriter, block, op)
    return [llvm_value(rewriter, arg, op) for arg in args]


class BranchLowering(RewritePattern):
    """
    cf.br -> llvm.br with the same successor and arguments.

        cf.br ^bb1(%x : f32)  ~>  llvm.br ^bb1(%x : f32)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter) -> None:
        args = _branch_args(rewriter, op, op.successor, op.arguments)
        replace_with_llvm(rewriter, op, [llvm.BrOp(op.successor, *args)], [])


class ConditionalBranchLowering(RewritePattern):
    """
    cf.cond_br -> llvm.cond_br with the same successors and arguments.

        cf.cond_br %c, ^bb1(%x : f32), ^bb2  ~>  llvm.cond_br %c, ^bb1(%x : f32), ^bb2
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter
    ) -> None:
        then_args = _branch_args(rewriter, op, op.then_block, op.then_arguments)
        else_args = _branch_args(rewriter, op, op.else_block, op.else_arguments)
        new = llvm.CondBrOp(op.cond, op.then_block, then_args, op.else_block, else_args)
        replace_with_llvm(rewriter, op, [new], [])


@dataclass(frozen=True)
class ConvertCfToLLVMPass(ModulePass):
    """Lower cf branches to llvm branches."""

    name = "convert-cf-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            TypeDispatchApplier(
                [BranchLowering(), ConditionalBranchLowering()],
                dce_enabled=False,  # a conversion: unused values stay, for `dce` to judge
            ),
            apply_recursively=False,
        ).rewrite_module(op)
