"""
ti-unroll-loops: unroll the serial inner loops of tasks `factor` times.

A serial `taichi.range_for` inside a task (what is left of an inner `for j in range(n)`
once ti-offload made the outer loop the task) runs one iteration after another: on a GPU
each iteration waits for its loads and its long-latency math (sqrt, division) before the
next one starts, and with few threads an SM has nothing else to do (n-body: 4096 bodies,
4096 iterations each). With `factor` copies of the body in one iteration the driver's
compiler can issue their loads and math together. The CPU path leaves this to LLVM's
unroller; the SPIR-V path runs this pass (its drivers seldom unroll).

A loop qualifies when its bounds are integer constants, its body has no break or
continue and no nested loop, and the body has at most `max-ops` operations. It gets
`factor` copies, halved (down to two) while the loop has fewer iterations than copies or
the copies would hold more than `max-unrolled-ops` operations (0: no such limit; the
Vulkan backend runs 48 copies within 1536 operations: see SERIAL_UNROLL in
targets/vulkan/backend.py). The iterations left over (the
trip count modulo the copies) run in a second loop with the original body.

    taichi.range_for %j = %c0 to %c10 : i32 {     %k0 = arith.constant 0 : i32
      "use"(%j) : (i32) -> ()                     %k1 = arith.constant 2 : i32
      taichi.yield                          ~>    taichi.range_for %k = %k0 to %k1 : i32 {
    }                                               %f = arith.constant 4 : i32
                                                    %b = arith.muli %k, %f : i32
                                                    %o0 = arith.constant 0 : i32
                                                    %j0 = arith.addi %b, %o0 : i32
                                                    "use"(%j0) : (i32) -> ()
                                                    ... (offsets 1, 2, 3)
                                                    taichi.yield
                                                  }
                                                  %r = arith.constant 8 : i32
                                                  taichi.range_for %j = %r to %c10 : i32 {
                                                    "use"(%j) : (i32) -> ()
                                                    taichi.yield
                                                  }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from taichi_xdsl.dialects import offload, taichi

_LOOPS = (taichi.RangeForOp, taichi.StructForOp, taichi.WhileOp)


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _inside_task(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, offload.TaskOp):
            return True
        parent = parent.parent_op()
    return False


def _qualifies(
    loop: taichi.RangeForOp, factor: int, max_ops: int, max_unrolled_ops: int
) -> tuple[int, int, int] | None:
    """(lower, trip count, copies) when `loop` may be unrolled, else None."""
    if not isinstance(loop.lower.type, IntegerType) or not _inside_task(loop):
        return None
    lower, upper = _constant(loop.lower), _constant(loop.upper)
    if lower is None or upper is None:
        return None
    count = 0
    for op in loop.body.walk():
        count += 1
        if isinstance(op, (taichi.BreakOp, taichi.ContinueOp, *_LOOPS)):
            return None
    if count > max_ops:
        return None
    copies = factor
    while copies > 2 and (
        upper - lower < copies or (max_unrolled_ops and copies * count > max_unrolled_ops)
    ):
        copies //= 2
    if upper - lower < copies:
        return None
    return lower, upper - lower, copies


def _unroll(loop: taichi.RangeForOp, lower: int, trips: int, factor: int) -> None:
    index_type = loop.lower.type
    main = trips // factor
    start = arith.ConstantOp(IntegerAttr(0, index_type))
    stop = arith.ConstantOp(IntegerAttr(main, index_type))
    body = Block(arg_types=[index_type])
    k = body.args[0]
    step = arith.ConstantOp(IntegerAttr(factor, index_type))
    base = arith.MuliOp(k, step)
    body.add_ops([step, base])
    old_body = loop.body.block
    for copy in range(factor):
        offset = arith.ConstantOp(IntegerAttr(lower + copy, index_type))
        index = arith.AddiOp(base, offset)
        body.add_ops([offset, index])
        mapping: dict[SSAValue, SSAValue] = {old_body.args[0]: index.result}
        for op in old_body.ops:
            if isinstance(op, taichi.YieldOp):
                continue
            body.add_op(op.clone(value_mapper=mapping))
    body.add_op(taichi.YieldOp())
    unrolled = taichi.RangeForOp(start, stop, Region(body))
    Rewriter.insert_op([start, stop, unrolled], InsertPoint.before(loop))
    if trips % factor:
        rest = arith.ConstantOp(IntegerAttr(lower + main * factor, index_type))
        Rewriter.insert_op(rest, InsertPoint.before(loop))
        loop.operands = [rest.result, loop.upper]
    else:
        loop.detach()
        loop.erase()


@dataclass(frozen=True)
class UnrollLoopsPass(ModulePass):
    """Unroll qualifying serial inner `taichi.range_for` loops of tasks `factor` times
    (fewer, halving, while the copies would hold more than `max_unrolled_ops`
    operations or the loop has fewer iterations; 0: no such limit)."""

    name = "ti-unroll-loops"

    factor: int = 4
    max_ops: int = 128
    max_unrolled_ops: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.factor < 2:
            return
        loops = [o for o in op.walk() if isinstance(o, taichi.RangeForOp)]
        for loop in loops:
            found = _qualifies(loop, self.factor, self.max_ops, self.max_unrolled_ops)
            if found is not None:
                _unroll(loop, *found)
