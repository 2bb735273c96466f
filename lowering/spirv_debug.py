"""
Debug checks of convert-offload-to-spirv (`debug=true`): bounds checks of field and
ndarray element accesses, the guard that runs an access only when its check holds, the
error record (binding 5, utils/spirv_abi.py: the first error wins) and `taichi.assert`.
"""

from __future__ import annotations

from collections.abc import Sequence

from taichi_xdsl.dialects import spirv, taichi
from taichi_xdsl.lowering.spirv_common import (
    Check,
    TaskPattern,
    TaskState,
    if_then,
    int_const,
)
from taichi_xdsl.utils import spirv_abi
from taichi_xdsl.utils.errors import SITE_SHIFT, access_site
from taichi_xdsl.utils.print_format import assert_message
from xdsl.dialects.builtin import FileLineColLoc, FloatAttr, IntegerType, f32, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern


def check_site(state: TaskState, op: Operation) -> int:
    """
    The site word of `op`'s bounds check (utils/errors.py SITE_SHIFT): its
    `file:line:column` text's id + 1 in the kernel's `ti.asserts` table, shifted; 0
    when `op` has no source location.
    """
    where = op.location
    if not isinstance(where, FileLineColLoc):
        return 0
    text = access_site(where.filename.data, where.line.data, where.column.data)
    if text not in state.asserts:
        state.asserts.append(text)
    ident = state.assert_base + state.asserts.index(text)
    return (ident + 1) << SITE_SHIFT


def bounds_check(
    indices: list[SSAValue],
    dims: list[SSAValue | int],
    ops: list[Operation],
    site: int = 0,
) -> Check:
    """
    Every index in [0, extent) (one unsigned compare each), and the error words of the
    first index that is not, chosen with selects from the last axis back (as
    ti-lower-access does on the CPU); the first word is `site | dimension`.
    """
    oks: list[SSAValue] = []
    extents: list[SSAValue] = []
    for index, dim in zip(indices, dims):
        if isinstance(dim, int):
            dim_op = int_const(dim)
            ops.append(dim_op)
            dim = dim_op.results[0]
        in_range = spirv.ULessThanOp(index, dim)
        ops.append(in_range)
        oks.append(in_range.results[0])
        extents.append(dim)
    last = len(indices) - 1
    axis = int_const(site | last)
    ops.append(axis)
    words = (axis.results[0], indices[last], extents[last])
    ok = oks[last]
    for d in reversed(range(last)):
        d_op = int_const(site | d)
        selects = [
            spirv.SelectOp(oks[d], words[0], d_op),
            spirv.SelectOp(oks[d], words[1], indices[d]),
            spirv.SelectOp(oks[d], words[2], extents[d]),
        ]
        both = spirv.LogicalAndOp(oks[d], ok)
        ops += [d_op, *selects, both]
        words = (selects[0].results[0], selects[1].results[0], selects[2].results[0])
        ok = both.results[0]
    return Check(ok, words)


def _error_record(
    state: TaskState, code: int, words: Sequence[SSAValue], ops: list[Operation]
) -> None:
    """
    Append the write of the error record (utils/spirv_abi.py): the first invocation
    that swaps word 0 from 0 to `code` writes `words` after it; later errors are lost.
    """
    code_op, zero = int_const(code), int_const(0)
    ops += [code_op, zero]
    slot = state.byte_slot(spirv_abi.ERROR_BINDING, 0, i32, ops)
    swap = spirv.AtomicCompareExchangeOp(slot, code_op, zero)
    won = spirv.IEqualOp(swap, zero)
    ops += [swap, won]
    record: list[Operation] = []
    for position, word in enumerate(words, start=1):
        ptr = state.byte_slot(spirv_abi.ERROR_BINDING, 4 * position, i32, record)
        record.append(spirv.StoreOp(ptr, word))
    ops.append(if_then(won.results[0], record))


def guarded(
    state: TaskState,
    ptr: SSAValue,
    access: list[Operation],
    result: SSAValue | None,
    ops: list[Operation],
) -> SSAValue | None:
    """
    `access` (the ops of one load, store or atomic of `ptr`), run only when the
    place's debug check holds; otherwise the error record, and a result of 0.

        %v = <load>   ~>   %slot = spirv.Variable ...
                           spirv.mlir.selection { ok: <load>; store %v, %slot
                                                  else: <error record>; store 0, %slot }
                           %v = spirv.Load %slot
    """
    place = state.places.get(ptr)
    if place is None or place.check is None:
        ops += access
        return result
    check = place.check
    error: list[Operation] = []
    _error_record(state, spirv_abi.ERROR_INDEX_OUT_OF_BOUNDS, check.words, error)
    if result is None:
        ops.append(if_then(check.ok, access, error))
        return None
    slot = spirv.VariableOp(spirv.PointerType(result.type, "Function"))
    state.at_entry([slot])
    zero = _zero_of(result.type)
    access = [*access, spirv.StoreOp(slot, result)]
    error += [zero, spirv.StoreOp(slot, zero)]
    loaded = spirv.LoadOp(slot)
    ops += [if_then(check.ok, access, error), loaded]
    return loaded.results[0]


def _zero_of(t: Attribute) -> spirv.ConstantOp:
    if isinstance(t, IntegerType):
        return spirv.ConstantOp.from_int(0, t)  # an i1 gives `false`
    return spirv.ConstantOp(FloatAttr(0.0, t))  # type: ignore[arg-type]


class AssertLowering(TaskPattern):
    """
    `taichi.assert`: nothing without debug (unless `always`); in debug mode (or when
    `always`), when the condition is false, the error record (2, the message's id in
    the kernel's `ti.asserts` table, 0, 0): SPIR-V has no pointers to strings, so the
    host looks the message up. A message's values (i32, or an f32's bits) fill the two
    free words.

        taichi.assert %ok, "x must be positive"
        ~> %bad = spirv.LogicalNot %ok : i1
           spirv.mlir.selection { %bad: <error record 2, id, 0, 0> }
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.AssertOp, rewriter: PatternRewriter) -> None:
        state = self.state
        if not state.debug and op.always is None:
            rewriter.erase(op)
            return
        ident = int_const(state.assert_base + len(state.asserts))
        kinds = ["f32" if v.type == f32 else "i32" for v in op.values]
        state.asserts.append(assert_message(op.message.data, kinds))
        zero = int_const(0)
        bad = spirv.LogicalNotOp(op.cond)
        words: list[SSAValue] = [zero.results[0], zero.results[0]]
        bits: list[Operation] = []
        for position, value in enumerate(op.values):  # an f32's bits as an i32 word
            if value.type == f32:
                bits.append(spirv.BitcastOp(value, i32))
                value = bits[-1].results[0]
            words[position] = value
        record: list[Operation] = []
        _error_record(state, spirv_abi.ERROR_ASSERTION, [ident.results[0], *words], record)
        rewriter.replace(op, [ident, zero, *bits, bad, if_then(bad.results[0], record)], [])
