"""
The adstack lowering's LLVM target (lowering/adstack.py has the ops it lowers and the
SPIR-V target's file its twin): a stack is an `llvm.alloca` array and an i32 count at
the task function's entry. Used by convert-offload-to-llvm.

    %s = taichi.adstack_alloca : !taichi.adstack<f32, 16>
    ~>
    (entry) %adstack = llvm.alloca %c16 x f32 ; %adstack_count = llvm.alloca %c1 x i32
    (then the pushes, pops and tops as in lowering/adstack.py)
"""

from __future__ import annotations

from taichi_xdsl.dialects import taichi
from taichi_xdsl.lowering.adstack import StackTarget, lower_stack_uses
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import AnyFloat, IntegerAttr, IntegerType, i32, i64
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint


def _llvm_target(element: Attribute) -> StackTarget:
    def const(value: int) -> Operation:
        return arith.ConstantOp(IntegerAttr(value, i32))

    return StackTarget(
        const=const,
        load=lambda ptr, type_: llvm.LoadOp(ptr, type_),
        store=lambda value, ptr: llvm.StoreOp(value, ptr),
        element_ptr=lambda buffer, index: llvm.GEPOp.from_mixed_indices(
            buffer, [index], element
        ),
        less_than=lambda a, b: arith.CmpiOp(a, b, "ult"),
        select=lambda c, a, b: arith.SelectOp(c, a, b),
        add=lambda a, b: arith.AddiOp(a, b),
        sub=lambda a, b: arith.SubiOp(a, b),
    )


MAX_STACK_BYTES = 1 << 20
"""The largest adstack buffer on a CPU thread's stack (threads have a few MiB)."""


class AdStackToLLVM(RewritePattern):
    """
    An adstack in a task function: its buffer and count are `llvm.alloca`s at the
    function's entry (once per call, even for a stack made in a loop); see the module
    docstring for its ops. A buffer over MAX_STACK_BYTES is a compile error (it would
    overflow the thread's stack).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.AdStackAllocaOp, rewriter: PatternRewriter):
        function = op.parent_op()
        while function is not None and not isinstance(function, llvm.FuncOp):
            function = function.parent_op()
        if function is None:
            return
        stack_type = op.stack.type
        assert isinstance(stack_type, taichi.AdStackType)
        element = stack_type.element_type
        assert isinstance(element, IntegerType | AnyFloat)  # AdStackType.verify
        if stack_type.size * max(element.bitwidth // 8, 1) > MAX_STACK_BYTES:
            raise PassFailedAt(
                op,
                f"an adstack of {stack_type.size} values of {element} is more than "
                f"{MAX_STACK_BYTES} bytes of a CPU thread's stack; lower "
                "ti.init(ad_stack_size=...)",
            )
        size = llvm.ConstantOp(IntegerAttr(stack_type.size, i64), i64)
        buffer = llvm.AllocaOp(size, element, alignment=8)
        one = llvm.ConstantOp(IntegerAttr(1, i64), i64)
        count = llvm.AllocaOp(one, i32, alignment=4)
        buffer.res.name_hint, count.res.name_hint = "adstack", "adstack_count"
        rewriter.insert(
            [size, buffer, one, count], InsertPoint.at_start(function.body.blocks[0])
        )
        lower_stack_uses(op, buffer.res, count.res, _llvm_target(element), rewriter)
