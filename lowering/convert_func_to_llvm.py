"""
convert-func-to-llvm: func.func / func.call / func.return -> llvm.func / llvm.call /
llvm.return (MLIR's FuncToLLVM, without its memref descriptors: a function with memref
arguments or several results is left alone).

Not part of the ti-to-llvm pipeline (tasks are llvm.funcs from the start); it lets a
function written with func, arith, math and cf go to LLVM IR through ti-opt:

    ti-opt f.mlir -p convert-arith-to-llvm,convert-math-to-llvm,convert-cf-to-llvm,\
convert-func-to-llvm,reconcile-unrealized-casts -t llvm
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    FunctionType,
    IndexType,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from taichi_xdsl.lowering.llvm_conversion import (
    convert_block_args,
    llvm_operands,
    replace_with_llvm,
    to_llvm_type,
)


def _llvm_function_type(t: FunctionType) -> llvm.LLVMFunctionType | None:
    """The LLVM signature of `t`, or None when it has no direct one."""
    types = [*t.inputs.data, *t.outputs.data]
    if len(t.outputs.data) > 1 or not all(
        isinstance(
            x, IntegerType | IndexType | AnyFloat | VectorType | llvm.LLVMPointerType
        )
        for x in types
    ):
        return None
    output: Attribute = (
        to_llvm_type(t.outputs.data[0]) if t.outputs.data else llvm.LLVMVoidType()
    )
    return llvm.LLVMFunctionType([to_llvm_type(x) for x in t.inputs.data], output)


def _in_llvm_func(op: Operation) -> bool:
    """Whether `op` is in a function already converted (returns follow their function)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp | llvm.FuncOp):
        parent = parent.parent_op()
    return isinstance(parent, llvm.FuncOp)


class FuncLowering(RewritePattern):
    """
    func.func -> llvm.func with the same body (external linkage: the JIT calls it).

        func.func @f(%x: index) -> f32 {...}  ~>  llvm.func @f(%x: i64) -> f32 {...}
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        function_type = _llvm_function_type(op.function_type)
        if function_type is None:
            return  # memrefs, tuples, several results: no direct LLVM signature
        if op.body.blocks:
            convert_block_args(rewriter, op.body.blocks.first, op)  # type: ignore[arg-type]
        body = rewriter.move_region_contents_to_new_regions(op.body)
        new = llvm.FuncOp(
            op.sym_name,
            function_type,
            linkage=llvm.LinkageAttr("external"),
            body=body,
        )
        replace_with_llvm(rewriter, op, [new], [])


class ReturnLowering(RewritePattern):
    """
    func.return -> llvm.return.

        func.return %x : f32  ~>  llvm.return %x : f32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        if not _in_llvm_func(op):
            return
        args = llvm_operands(rewriter, op)
        replace_with_llvm(rewriter, op, [llvm.ReturnOp(*args)], [])


class CallLowering(RewritePattern):
    """
    func.call -> llvm.call.

        %r = func.call @g(%x) : (f32) -> f32  ~>  %r = llvm.call @g(%x) : (f32) -> f32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        signature = FunctionType.from_lists(op.arguments.types, op.res.types)
        if not _in_llvm_func(op) or _llvm_function_type(signature) is None:
            return
        args = llvm_operands(rewriter, op)
        return_type = to_llvm_type(op.res[0].type) if op.res else None
        new = llvm.CallOp(op.callee, *args, return_type=return_type)
        replace_with_llvm(rewriter, op, [new], new.results)


@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ModulePass):
    """Lower func.func/call/return with scalar signatures to the llvm dialect."""

    name = "convert-func-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [FuncLowering(), ReturnLowering(), CallLowering()],
                dce_enabled=False,
            ),
            apply_recursively=False,
        ).rewrite_module(op)
