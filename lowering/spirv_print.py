"""
Print of convert-offload-to-spirv: `taichi.print` -> a record appended to the print
buffer (utils/spirv_abi.py), whose formats the pass lists in the module's `ti.prints`.
"""

from __future__ import annotations

from taichi_xdsl.dialects import spirv, taichi
from taichi_xdsl.lowering.spirv_common import TaskPattern, byte_size, int_const
from taichi_xdsl.utils import spirv_abi
from xdsl.dialects.builtin import Float16Type, IntegerType, VectorType, f32, i1, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern


class PrintLowering(TaskPattern):
    """
    `taichi.print` -> a record appended to the print buffer: reserve words with an
    atomic add on word 0, then, if the record fits, write its id and values.

        taichi.print "i = {}" %i : i32
        ~> %at = spirv.AtomicIAdd <Device> <None> %count, %c2 ...
           spirv.mlir.selection { <store id, %i at words 1 + %at ...> }
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.PrintOp, rewriter: PatternRewriter) -> None:
        state = self.state
        words: list[tuple[SSAValue, str]] = []
        pre: list[Operation] = []
        for value in op.values:
            words += _print_words(value, pre)
        kinds = tuple(k for _, k in words if k != "hi")
        print_id = state.print_base + len(state.prints)
        state.prints.append((op.format.data + op.end_text, kinds))  # text and end
        n = 1 + len(words)
        ops: list[Operation] = [*pre]
        counter = state.byte_slot(spirv_abi.PRINT_BINDING, 0, i32, ops)
        size = int_const(n)
        at = spirv.AtomicIAddOp(counter, size)
        limit = int_const(spirv_abi.PRINT_BUFFER_WORDS - 1 - n)
        fits = spirv.SLessThanOp(at, limit)
        ops += [size, at, limit, fits]
        then = Block()
        record: list[Operation] = []
        # In the entry block: the dropped branch counts with it too, and a constant of
        # the record's block would not dominate that branch.
        one = state.const(1)
        start = spirv.IAddOp(at, one)
        record.append(start)
        ident = int_const(print_id)
        record.append(ident)
        for position, value in enumerate([ident.results[0], *(w for w, _ in words)]):
            offset = int_const(position)
            slot = spirv.IAddOp(start, offset)
            record += [offset, slot]
            t = value.type
            ptr = state.element_ptr(spirv_abi.PRINT_BINDING, t, slot.results[0], record)
            record.append(spirv.StoreOp(ptr, value))
        dropped: list[Operation] = []
        last = state.byte_slot(
            spirv_abi.PRINT_BINDING, 4 * (spirv_abi.PRINT_BUFFER_WORDS - 1), i32, dropped
        )
        dropped.append(spirv.AtomicIAddOp(last, one))
        merge = Block([spirv.MergeOp()])
        then.add_ops([*record, spirv.BranchOp(merge)])
        otherwise = Block([*dropped, spirv.BranchOp(merge)])
        header = Block([spirv.BranchConditionalOp(fits, then, otherwise)])
        ops.append(spirv.SelectionOp(Region([header, then, otherwise, merge])))
        rewriter.replace(op, ops, [])


def _print_words(value: SSAValue, ops: list[Operation]) -> list[tuple[SSAValue, str]]:
    """32-bit words holding `value`, with the type the host decodes them as."""
    t = value.type
    if t == i1:
        one, zero = int_const(1), int_const(0)
        word = spirv.SelectOp(value, one, zero)
        ops += [one, zero, word]
        return [(word.results[0], "i1")]
    if isinstance(t, IntegerType) and t.width.data < 32:
        wide = spirv.SConvertOp(value, i32)
        ops.append(wide)
        return [(wide.results[0], f"i{t.width.data}")]
    if isinstance(t, Float16Type):
        wide = spirv.FConvertOp(value, f32)
        ops.append(wide)
        return [(wide.results[0], "f32")]
    if byte_size(t) == 8:
        pair = spirv.BitcastOp(value, VectorType(i32, [2]))
        low = spirv.CompositeExtractOp(pair, [0])
        high = spirv.CompositeExtractOp(pair, [1])
        ops += [pair, low, high]
        return [(low.results[0], str(t)), (high.results[0], "hi")]
    return [(value, str(t))]
