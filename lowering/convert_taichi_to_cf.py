"""
convert-taichi-to-cf: the structured control flow left inside tasks (serial inner
`taichi.range_for`, `taichi.while`, `taichi.if`, `taichi.break`, `taichi.continue`,
`taichi.yield`) becomes blocks joined by `cf.br` / `cf.cond_br`, as MLIR's
convert-scf-to-cf does for scf (xdsl/transforms/convert_scf_to_cf.py).

A task's regions are single blocks without terminator, so a region that holds control
flow first becomes one `offload.cfg` whose blocks are the flow graph; its
`offload.cfg_exit` is the end of the task, or of one iteration of a range_for task
(where a `taichi.continue` of the task's own loop goes). convert-offload-to-llvm splices
those blocks into the task's function.

    offload.serial {                         offload.serial {
      taichi.if %c {                           offload.cfg {
        A                                        cf.cond_br %c, ^then, ^join
        taichi.yield                    ~>     ^then:
      }                                          A
      B                                          cf.br ^join
    }                                          ^join:
                                                 B
                                                 cf.br ^end
                                               ^end:
                                                 offload.cfg_exit
                                               }
                                             }

In a real function (`func.func`, a ti.real_func called for real) the blocks go into the
function's own region, which ends in its `func.return`: no `offload.cfg` is needed.

A loop keeps its index as the argument of its header block:

    taichi.range_for %j = %lo to %hi : i32 { ... }
    ~> cf.br ^header(%lo) ; ^header(%j): cf.cond_br (%j < %hi), ^body, ^exit
       ^body: ... cf.br ^latch ; ^latch: cf.br ^header(%j + 1) ; ^exit: ...
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.context import Context
from xdsl.dialects import arith, cf, func
from xdsl.dialects.arith import IntegerOverflowAttr, IntegerOverflowFlag
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import BlockInsertPoint, InsertPoint, Rewriter

from taichi_xdsl.dialects import offload, taichi
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier
from taichi_xdsl.utils.diagnostics import PassFailedAt

_CONTROL_FLOW = (
    taichi.RangeForOp,
    taichi.WhileOp,
    taichi.IfOp,
    taichi.BreakOp,
    taichi.ContinueOp,
    taichi.StructForOp,
)
_LOOPS = (taichi.RangeForOp, taichi.WhileOp, taichi.StructForOp)


def _jumps(region: Region) -> Iterator[Operation]:
    """The break, continue and yield ops that leave `region`, not those of inner loops."""
    for block in region.blocks:
        for op in block.ops:
            if isinstance(op, taichi.BreakOp | taichi.ContinueOp | taichi.YieldOp):
                yield op
            elif isinstance(op, taichi.IfOp):
                for inner in op.regions:
                    # an if's own yields stay: they end its branches, not the loop
                    yield from (j for j in _jumps(inner) if not _ends(j, inner))


def _ends(op: Operation, region: Region) -> bool:
    return isinstance(op, taichi.YieldOp) and op.parent_region() is region


def _retarget(
    region: Region,
    rewriter: PatternRewriter,
    next_iteration: Block,
    exit: Block | None,
) -> None:
    """
    Turn the jumps out of a loop body into branches: `taichi.yield` and
    `taichi.continue` to `next_iteration`, `taichi.break` to `exit`. A jump inside a
    `taichi.if` not lowered yet becomes a branch out of that if's region, which
    IfLowering then inlines into the loop.
    """
    for jump in list(_jumps(region)):
        if isinstance(jump, taichi.BreakOp):
            assert exit is not None  # the verifier keeps break out of parallel tasks
            target = exit
        else:
            target = next_iteration
        rewriter.replace(jump, cf.BranchOp(target))


class WrapTaskRegion(RewritePattern):
    """
    A task region with control flow becomes one `offload.cfg`, so the flow graph's
    blocks have a region to live in; a `taichi.continue` of a range_for task ends the
    iteration: it goes to the `offload.cfg_exit`.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.TaskOp, rewriter: PatternRewriter):
        for region in op.regions:
            if not region.blocks or isinstance(region.block.first_op, offload.CfgOp):
                continue
            if not any(isinstance(inner, _CONTROL_FLOW) for inner in region.walk()):
                continue
            block = region.block
            body = Block()
            for inner in list(block.ops):
                inner.detach()
                body.add_op(inner)
            end = Block([offload.CfgExitOp()])
            if not isinstance(body.last_op, taichi.ContinueOp):
                body.add_op(taichi.YieldOp())
            wrapper = offload.CfgOp(Region([body, end]))
            rewriter.insert(wrapper, InsertPoint.at_end(block))
            _retarget(wrapper.body, rewriter, end, None)


class IfLowering(RewritePattern):
    """
    `taichi.if` -> `cf.cond_br` into its inlined branches, which join after it.

        taichi.if %c { A } else { B }
        ~> cf.cond_br %c, ^then, ^else ; ^then: A cf.br ^join ; ^else: B cf.br ^join
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.IfOp, rewriter: PatternRewriter):
        before = op.parent_block()
        if before is None or not _in_flow_graph(op):
            return
        join = before.split_before(op)
        targets: list[Block] = []
        for region in (op.then_region, op.else_region):
            if not region.blocks:
                targets.append(join)
                continue
            for block in region.blocks:
                if isinstance(block.last_op, taichi.YieldOp):
                    rewriter.replace(block.last_op, cf.BranchOp(join))
            targets.append(region.first_block)
            rewriter.inline_region(region, BlockInsertPoint.before(join))
        branch = cf.ConditionalBranchOp(op.cond, targets[0], (), targets[1], ())
        branch.location = op.location
        rewriter.insert(branch, InsertPoint.at_end(before))
        rewriter.erase(op)


class RangeForLowering(RewritePattern):
    """
    A serial `taichi.range_for` -> header, body and latch blocks; the index is the
    header's argument.

        taichi.range_for %j = %lo to %hi : i32 { A }
        ~> cf.br ^header(%lo)
           ^header(%j: i32): %go = arith.cmpi slt, %j, %hi ; cf.cond_br %go, ^body, ^exit
           ^body: A cf.br ^latch
           ^latch: %next = arith.addi %j, 1 ; cf.br ^header(%next)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.RangeForOp, rewriter: PatternRewriter):
        before = op.parent_block()
        if before is None or not _in_flow_graph(op):
            return
        exit = before.split_before(op)
        index_type = op.lower.type
        header, latch = Block(arg_types=[index_type]), Block()
        index = header.args[0]
        index.name_hint = op.index.name_hint
        body = op.body.first_block
        assert body is not None
        rewriter.replace_all_uses_with(op.index, index)
        rewriter.erase_block_argument(op.index)
        _retarget(op.body, rewriter, latch, exit)
        rewriter.inline_region(op.body, BlockInsertPoint.before(exit))
        Rewriter.insert_block(header, BlockInsertPoint.before(body))
        Rewriter.insert_block(latch, BlockInsertPoint.before(exit))
        go = arith.CmpiOp(index, op.upper, "slt")
        one = arith.ConstantOp(IntegerAttr(1, index_type))
        nsw = IntegerOverflowAttr([IntegerOverflowFlag.NSW])
        step = arith.AddiOp(index, one, overflow=nsw)
        new_ops = [
            (before, [cf.BranchOp(header, op.lower)]),
            (header, [go, cf.ConditionalBranchOp(go, body, (), exit, ())]),
            (latch, [one, step, cf.BranchOp(header, step)]),
        ]
        for block, ops in new_ops:
            for new_op in ops:
                new_op.location = op.location
            rewriter.insert(ops, InsertPoint.at_end(block))
        rewriter.erase(op)


class WhileLowering(RewritePattern):
    """
    `taichi.while` -> its body as a loop: the end of the body and `taichi.continue` go
    back to its first block, `taichi.break` past the loop.

        taichi.while { A }  ~>  cf.br ^body ; ^body: A cf.br ^body ; ^exit:
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.WhileOp, rewriter: PatternRewriter):
        before = op.parent_block()
        if before is None or not _in_flow_graph(op):
            return
        exit = before.split_before(op)
        body = op.body.first_block
        assert body is not None
        _retarget(op.body, rewriter, body, exit)
        rewriter.inline_region(op.body, BlockInsertPoint.before(exit))
        enter = cf.BranchOp(body)
        enter.location = op.location
        rewriter.insert(enter, InsertPoint.at_end(before))
        rewriter.erase(op)


class StructForRejection(RewritePattern):
    """A struct_for inside a task is not a loop this pass can lower: Taichi runs those
    only as outermost loops, which ti-offload makes tasks."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.StructForOp, rewriter: PatternRewriter):
        raise PassFailedAt(
            op,
            "convert-taichi-to-cf: a struct_for inside a task; only an outermost "
            "struct_for runs, as a task of its own",
        )


def _in_flow_graph(op: Operation) -> bool:
    """Whether `op` is inside an `offload.cfg` that WrapTaskRegion made, or inside a
    real function (a `func.func`, whose region takes the blocks itself)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, offload.CfgOp | func.FuncOp):
        parent = parent.parent_op()
    return parent is not None


class ConvertTaichiToCfPass(ModulePass):
    """Lower the structured taichi control flow inside tasks to cf branches."""

    name = "convert-taichi-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(WrapTaskRegion(), apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(
            TypeDispatchApplier(
                [IfLowering(), RangeForLowering(), WhileLowering(), StructForRejection()],
                dce_enabled=False,
            )
        ).rewrite_module(op)
