"""
The adstack lowering's SPIR-V target (lowering/adstack.py has the ops it lowers and
the LLVM target): a stack is an array and an i32 count in `Function` variables. Used by
convert-taichi-to-spirv.

    %s = taichi.adstack_alloca : !taichi.adstack<f32, 16>
    ~>
    %adstack = spirv.Variable : !spirv.ptr<!spirv.array<16 x f32>, Function>
    %adstack_count = spirv.Variable : !spirv.ptr<i32, Function>
    (then the pushes, pops and tops as in lowering/adstack.py)
"""

from __future__ import annotations

from taichi_xdsl.dialects import spirv, taichi
from taichi_xdsl.lowering.adstack import StackTarget, lower_stack_uses
from xdsl.dialects.builtin import i32
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint


def _spirv_target() -> StackTarget:
    return StackTarget(
        const=lambda value: spirv.ConstantOp.from_int(value, i32),
        load=lambda ptr, _type: spirv.LoadOp(ptr),
        store=lambda value, ptr: spirv.StoreOp(ptr, value),
        element_ptr=lambda base, index: spirv.AccessChainOp(base, [index]),
        less_than=lambda a, b: spirv.ULessThanOp(a, b),
        select=lambda c, a, b: spirv.SelectOp(c, a, b),
        add=lambda a, b: spirv.IAddOp(a, b),
        sub=lambda a, b: spirv.ISubOp(a, b),
    )


class AdStackToSpirv(RewritePattern):
    """
    An adstack in a shader: an array and a count in `Function` variables (the
    serializer puts them at the function's top); see the module docstring for its ops.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.AdStackAllocaOp, rewriter: PatternRewriter):
        stack_type = op.stack.type
        assert isinstance(stack_type, taichi.AdStackType)
        array = spirv.ArrayType(stack_type.size, stack_type.element_type)
        buffer = spirv.VariableOp(spirv.PointerType(array, "Function"))
        count = spirv.VariableOp(spirv.PointerType(i32, "Function"))
        for new, name in ((buffer, "adstack"), (count, "adstack_count")):
            new.location = op.location
            new.results[0].name_hint = name
        rewriter.insert([buffer, count], InsertPoint.before(op))
        lower_stack_uses(op, buffer.results[0], count.results[0], _spirv_target(), rewriter)
