"""
convert-taichi-to-spirv: taichi's structured control flow and local slots -> SPIR-V's
structured control flow and Function variables.

SPIR-V requires structured control flow, so the conversion starts from the structured
taichi ops (not from `cf`): `taichi.if` becomes a `spirv.mlir.selection`, serial
`taichi.range_for` / `taichi.while` a `spirv.mlir.loop`, a local `memref.alloca` a
`spirv.Variable` in Function storage with `spirv.Load` / `spirv.Store` for its
`memref.load` / `memref.store`, an adstack two Function variables (lowering/spirv_adstack.py).

`taichi.break` and `taichi.continue` cannot branch out of a selection region, so they set
a flag (a Function variable of the loop) and the ops after the construct that set it run
only while no flag is set; the loop header tests the break flag, the body start clears the
continue flag. A `continue` in a parallel task's body ends that iteration the same way.

    taichi.while {                          %brk = spirv.Variable : !spirv.ptr<i1, Function>
      %c = ...                              spirv.Store "Function" %brk, %false : i1
      taichi.if %c {                        spirv.mlir.loop {
        taichi.break                          spirv.Branch ^header
      }                              ~>     ^header:
      <rest>                                  %b = spirv.Load "Function" %brk : i1
      taichi.yield                            %go = spirv.LogicalNot %b : i1
    }                                         spirv.BranchConditional %go, ^body, ^merge
                                            ^body:
                                              %c = ...
                                              spirv.mlir.selection { <store true to %brk> }
                                              spirv.mlir.selection { <rest, if no flag> }
                                              spirv.Branch ^continue
                                            ^continue:
                                              spirv.Branch ^header
                                            ^merge:
                                              spirv.mlir.merge
                                            }

Other ops are left where they are: arith (convert-arith-to-spirv) and the accesses to
global places (convert-offload-to-spirv) are converted by their own passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from taichi_xdsl.dialects import offload, spirv, taichi
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier
from taichi_xdsl.lowering.spirv_adstack import AdStackToSpirv
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp, i1, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator

_LOOPS = (taichi.RangeForOp, taichi.WhileOp, taichi.StructForOp)
_TASK_LOOPS = (offload.RangeForTask, offload.StructForTask)


def _fn_ptr(type_: object) -> spirv.PointerType:
    return spirv.PointerType(i32 if isinstance(type_, IndexType) else type_, "Function")


def _jumps_of(loop: Operation) -> list[taichi.BreakOp | taichi.ContinueOp]:
    """The break/continue ops that leave `loop`'s body (not those of nested loops)."""
    found: list[taichi.BreakOp | taichi.ContinueOp] = []

    def visit(block: Block) -> None:
        for op in block.ops:
            if isinstance(op, taichi.BreakOp | taichi.ContinueOp):
                found.append(op)
            elif not isinstance(op, _LOOPS):
                for region in op.regions:
                    for inner in region.blocks:
                        visit(inner)

    for region in loop.regions[:1]:
        for block in region.blocks:
            visit(block)
    return found


def _sets_flag(op: Operation, flags: tuple[SSAValue, ...]) -> bool:
    return any(
        isinstance(inner, spirv.StoreOp) and inner.ptr in flags for inner in op.walk()
    )


def _no_flag(flags: tuple[SSAValue, ...]) -> tuple[list[Operation], SSAValue]:
    """`!(flag0 || flag1 ...)`, reading the flags now."""
    ops: list[Operation] = []
    value: SSAValue | None = None
    for flag in flags:
        load = spirv.LoadOp(flag)
        ops.append(load)
        if value is None:
            value = load.results[0]
        else:
            either = spirv.LogicalOrOp(value, load.results[0])
            ops.append(either)
            value = either.results[0]
    assert value is not None
    negated = spirv.LogicalNotOp(value)
    return [*ops, negated], negated.results[0]


def _guard(block: Block, flags: tuple[SSAValue, ...], rewriter: PatternRewriter) -> None:
    """
    In `block` (and the blocks of its constructs), the ops after a construct that may set
    one of `flags` move into a `taichi.if` that runs them only while no flag is set.
    """
    for op in list(block.ops):
        if isinstance(op, _LOOPS) or not _sets_flag(op, flags):
            continue
        for region in op.regions:
            for inner in region.blocks:
                _guard(inner, flags, rewriter)
        rest: list[Operation] = []
        nxt = op.next_op
        while nxt is not None and not nxt.has_trait(IsTerminator):
            rest.append(nxt)
            nxt = nxt.next_op
        if not rest:
            return
        check, go = _no_flag(flags)
        body = Block()
        for moved in rest:
            moved.detach()
            body.add_op(moved)
        body.add_op(taichi.YieldOp())
        guarded = taichi.IfOp(go, Region(body))
        anchor = InsertPoint.after(op)
        rewriter.insert([*check, guarded], anchor)
        _guard(body, flags, rewriter)
        return


def _lower_jumps(
    loop: Operation, entry: InsertPoint, rewriter: PatternRewriter
) -> tuple[SSAValue | None, SSAValue | None]:
    """
    Turn the loop's break/continue into flag stores; return the (break, continue) flag
    variables, created at `entry`, None where the loop has no such jump.
    """
    jumps = _jumps_of(loop)
    if not jumps:
        return None, None
    variables: dict[type, SSAValue] = {}
    for kind in (taichi.BreakOp, taichi.ContinueOp):
        if any(isinstance(j, kind) for j in jumps):
            var = spirv.VariableOp(spirv.PointerType(i1, "Function"))
            rewriter.insert(var, entry)
            variables[kind] = var.results[0]
    for jump in jumps:
        true = spirv.ConstantOp.from_bool(True)
        store = spirv.StoreOp(variables[type(jump)], true)
        rewriter.replace(jump, [true, store, taichi.YieldOp()])
    flags = tuple(variables.values())
    for region in loop.regions[:1]:
        for block in region.blocks:
            _guard(block, flags, rewriter)
    return variables.get(taichi.BreakOp), variables.get(taichi.ContinueOp)


def _store_false(var: SSAValue | None) -> list[Operation]:
    if var is None:
        return []
    false = spirv.ConstantOp.from_bool(False)
    return [false, spirv.StoreOp(var, false)]


def _move_body(source: Block, target: Block, rewriter: PatternRewriter) -> None:
    """Move `source`'s ops into `target`, dropping its taichi terminator."""
    for op in list(source.ops):
        if isinstance(op, taichi.YieldOp):
            rewriter.erase(op)
            continue
        op.detach()
        target.add_op(op)


def _loop(header_ops: list[Operation], go: SSAValue, body: Block, latch: list[Operation]):
    entry, header, cont, merge = Block(), Block(), Block(), Block()
    entry.add_op(spirv.BranchOp(header))
    header.add_ops([*header_ops, spirv.BranchConditionalOp(go, body, merge)])
    body.add_op(spirv.BranchOp(cont))
    cont.add_ops([*latch, spirv.BranchOp(header)])
    merge.add_op(spirv.MergeOp())
    return spirv.LoopOp(Region([entry, header, body, cont, merge]))


def _header(
    brk: SSAValue | None, condition: list[Operation], cond: SSAValue | None
) -> tuple[list[Operation], SSAValue]:
    ops = list(condition)
    if brk is None:
        assert cond is not None
        return ops, cond
    load = spirv.LoadOp(brk)
    go = spirv.LogicalNotOp(load)
    ops += [load, go]
    if cond is None:
        return ops, go.results[0]
    both = spirv.LogicalAndOp(cond, go)
    return [*ops, both], both.results[0]


LOOP_CUT_SHORT = (
    "a serial loop ended before its last iteration: this Vulkan driver stops the loops "
    "of a shader invocation once they ran a number of iterations in all (Mesa's "
    "lavapipe: 65535, shared by the loops of neighbouring invocations too); run this "
    "kernel on another device or the CPU"
)
"""The message of the loop-exit check (`check-loop-exits`)."""


@dataclass
class RangeForLowering(RewritePattern):
    """
    A serial `taichi.range_for` -> a `spirv.mlir.loop` over a Function variable.
    With `check_exits`, the loop is checked to have run to its bound (or been left by a
    break): %done = (iv >= %hi) or the break flag. Some drivers end long loops silently.
    Outside a task: `taichi.assert %done, LOOP_CUT_SHORT always` right after the loop.
    Inside an offload task: the loop ORs `not %done` into a flag of the task body
    (`cut_flags`: a Function variable cleared at the body's top), and `finish_checks`
    asserts the flag once at the body's end: on lavapipe, which runs every branch of an
    invocation masked, an assert after each inner loop cost as much as the loop itself
    (a check is an atomic and three stores, each a loop over the SIMD lanes).

        offload.range_for %k ... {            offload.range_for %k ... {
          taichi.range_for %i ... { A }         %cut = spirv.Variable; store false
          taichi.range_for %j ... { B }   ~>    loop A; %cut |= !done_i
        }                                       loop B; %cut |= !done_j
                                                taichi.assert !%cut, LOOP_CUT_SHORT always
                                              }

        taichi.range_for %i = %lo to %hi : i32 { ... }
        ~>
        %iv = spirv.Variable : !spirv.ptr<i32, Function>
        spirv.Store "Function" %iv, %lo : i32
        spirv.mlir.loop {
          spirv.Branch ^header
        ^header:
          %i = spirv.Load "Function" %iv : i32
          %lt = spirv.SLessThan %i, %hi : i32
          spirv.BranchConditional %lt, ^body, ^merge
        ^body: ... spirv.Branch ^continue
        ^continue: %i1 = spirv.IAdd ...; spirv.Store ...; spirv.Branch ^header
        ^merge: spirv.mlir.merge
        }
    """

    check_exits: bool
    cut_flags: dict[Block, SSAValue] = field(default_factory=dict)
    """A task body -> its loop-cut flag (check_exits)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.RangeForOp, rewriter: PatternRewriter) -> None:
        at = InsertPoint.before(op)
        brk, cont = _lower_jumps(op, at, rewriter)
        iv = spirv.VariableOp(_fn_ptr(op.lower.type))
        init = spirv.StoreOp(iv, op.lower)
        load = spirv.LoadOp(iv)
        lt = spirv.SLessThanOp(load, op.upper)
        header_ops, go = _header(brk, [load, lt], lt.results[0])
        body = Block()
        body.add_ops(_store_false(cont))
        op.index.replace_all_uses_with(load.results[0])
        _move_body(op.body.block, body, rewriter)
        again = spirv.LoadOp(iv)
        one = spirv.ConstantOp.from_int(1, op.lower.type)  # type: ignore[arg-type]
        step = spirv.IAddOp(again, one)
        latch = [again, one, step, spirv.StoreOp(iv, step)]
        loop = _loop(header_ops, go, body, latch)
        new_ops = [iv, init, *_store_false(brk), loop]
        if self.check_exits:
            body = _task_body(op)
            if body is None:
                new_ops += _exit_check(iv, op.upper, brk)
            else:
                new_ops += _note_exit(iv, op.upper, brk, self._cut_flag(body, rewriter))
        for new_op in new_ops:
            new_op.location = op.location
        rewriter.replace(op, new_ops, [])

    def _cut_flag(self, body: Block, rewriter: PatternRewriter) -> SSAValue:
        """The loop-cut flag of task body `body`, made (and cleared) at its top."""
        flag = self.cut_flags.get(body)
        if flag is None:
            var = spirv.VariableOp(spirv.PointerType(i1, "Function"))
            rewriter.insert([var, *_store_false(var.results[0])], InsertPoint.at_start(body))
            flag = self.cut_flags[body] = var.results[0]
        return flag

    def finish_checks(self) -> None:
        """At the end of each task body with a flag: assert that no loop was cut."""
        for body, flag in self.cut_flags.items():
            cut = spirv.LoadOp(flag)
            ok = spirv.LogicalNotOp(cut)
            check = taichi.AssertOp(ok, LOOP_CUT_SHORT, always=True)
            task = body.parent_op()
            for new_op in (cut, ok, check):
                if task is not None:
                    new_op.location = task.location
                body.add_op(new_op)
        self.cut_flags.clear()


def _task_body(op: Operation) -> Block | None:
    """The body of the offload task `op` lies in, None outside one."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, offload.TaskOp):
        parent = parent.parent_op()
    return parent.body.block if parent is not None else None


def _loop_done(iv: SSAValue, upper: SSAValue, brk: SSAValue | None):
    """(ops, %done): the loop's counter reached `upper`, or it broke out."""
    end = spirv.LoadOp(iv)
    reached = spirv.SGreaterThanEqualOp(end, upper)
    ops: list[Operation] = [end, reached]
    done = reached.results[0]
    if brk is not None:
        broke = spirv.LoadOp(brk)
        either = spirv.LogicalOrOp(broke, done)
        ops += [broke, either]
        done = either.results[0]
    return ops, done


def _note_exit(
    iv: SSAValue, upper: SSAValue, brk: SSAValue | None, flag: SSAValue
) -> list[Operation]:
    """After a loop in a task: flag |= the loop ended before its bound, without a break."""
    ops, done = _loop_done(iv, upper, brk)
    cut = spirv.LogicalNotOp(done)
    before = spirv.LoadOp(flag)
    either = spirv.LogicalOrOp(before, cut)
    return [*ops, cut, before, either, spirv.StoreOp(flag, either)]


def _exit_check(iv: SSAValue, upper: SSAValue, brk: SSAValue | None) -> list[Operation]:
    """After a loop: assert (always) that its counter reached `upper` or it broke out."""
    ops, done = _loop_done(iv, upper, brk)
    return [*ops, taichi.AssertOp(done, LOOP_CUT_SHORT, always=True)]


COUNT_WRAP = -1
"""The count (as i32) at which a checked while loop gives up: 2**32 - 1 iterations, far
past any driver's budget. It only makes the loop's exit opaque (see WhileLowering)."""


@dataclass
class WhileLowering(RewritePattern):
    """
    `taichi.while` -> a `spirv.mlir.loop` that runs until its break flag is set.

        taichi.while { ...; taichi.if %stop { taichi.break }; ... }
        ~>
        spirv.mlir.loop { ^header: %go = !brk; spirv.BranchConditional %go, ^body, ^merge
                          ^body: ...  ^continue: spirv.Branch ^header  ^merge: ... }

    With `loops.check_exits` (a driver that ends long loops silently), a loop that ends
    with its break flag unset was cut, flagged or asserted as RangeForLowering does.
    lavapipe's budget (65535 iterations) is shared by every loop of a SIMD group of
    invocations, so no count of the loop's own can tell; the break flag can, but after
    a loop whose only exit is `brk` the driver's compiler folds `brk` to true. So the
    loop also counts its iterations and leaves at COUNT_WRAP (2**32 - 1: never, on any
    driver that has the check): with two exits, `brk` after the loop is not foldable.

        %n = spirv.Variable; store %n, 0           (before the loop)
        ^header: %go = !brk && (load %n) != -1     (the loop's test)
        ^body:   store %n, (load %n) + 1; ...
        after:   taichi.assert (load %brk), LOOP_CUT_SHORT always
                 (in a task: %cut |= !(load %brk), asserted at the body's end)
    """

    loops: RangeForLowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.WhileOp, rewriter: PatternRewriter) -> None:
        brk, cont = _lower_jumps(op, InsertPoint.before(op), rewriter)
        assert brk is not None  # _check_supported rejects a while without break
        header_ops, go = _header(brk, [], None)
        body = Block()
        body.add_ops(_store_false(cont))
        new_ops: list[Operation] = []
        after: list[Operation] = []
        if self.loops.check_exits:
            count = spirv.VariableOp(_fn_ptr(i32))
            zero = spirv.ConstantOp.from_int(0, i32)
            one = spirv.ConstantOp.from_int(1, i32)
            wrap = spirv.ConstantOp.from_int(COUNT_WRAP, i32)
            new_ops += [count, zero, one, wrap, spirv.StoreOp(count, zero)]
            now = spirv.LoadOp(count)
            room = spirv.INotEqualOp(now, wrap)
            both = spirv.LogicalAndOp(go, room)
            header_ops += [now, room, both]
            go = both.results[0]
            seen = spirv.LoadOp(count)
            more = spirv.IAddOp(seen, one)
            body.add_ops([seen, more, spirv.StoreOp(count, more)])
            broke = spirv.LoadOp(brk)
            after.append(broke)
            task_body = _task_body(op)
            if task_body is None:
                after.append(taichi.AssertOp(broke, LOOP_CUT_SHORT, always=True))
            else:
                cut = spirv.LogicalNotOp(broke)
                flag = self.loops._cut_flag(task_body, rewriter)
                before = spirv.LoadOp(flag)
                either = spirv.LogicalOrOp(before, cut)
                after += [cut, before, either, spirv.StoreOp(flag, either)]
        _move_body(op.body.block, body, rewriter)
        loop = _loop(header_ops, go, body, [])
        new_ops += [*_store_false(brk), loop, *after]
        for new_op in new_ops:
            new_op.location = op.location
        rewriter.replace(op, new_ops, [])


class IfLowering(RewritePattern):
    """
    `taichi.if` -> `spirv.mlir.selection` (after the enclosing loop turned its jumps
    into flag stores; must not fire while a branch still ends in break/continue).

        taichi.if %c { A } else { B }
        ~>
        spirv.mlir.selection {
          spirv.BranchConditional %c, ^then, ^else
        ^then: A; spirv.Branch ^merge
        ^else: B; spirv.Branch ^merge
        ^merge: spirv.mlir.merge
        }
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.IfOp, rewriter: PatternRewriter) -> None:
        # No jump is left in it: the walk visits its loop first, which lowers them.
        regions = [r for r in (op.then_region, op.else_region) if r.blocks]
        merge = Block([spirv.MergeOp()])
        blocks: list[Block] = []
        for region in regions:
            block = Block()
            _move_body(region.block, block, rewriter)
            block.add_op(spirv.BranchOp(merge))
            blocks.append(block)
        then_block = blocks[0]
        else_block = blocks[1] if len(blocks) > 1 else merge
        header = Block([spirv.BranchConditionalOp(op.cond, then_block, else_block)])
        selection = spirv.SelectionOp(Region([header, *blocks, merge]))
        selection.location = op.location
        rewriter.replace(op, [selection], [])


class TaskContinueLowering(RewritePattern):
    """
    A `taichi.continue` that ends an iteration of a parallel task: a flag cleared at the
    top of the body, the rest of the body guarded by it.

        offload.range_for %i = ... { taichi.if %c { taichi.continue }; A }
        ~>
        offload.range_for %i = ... { clear %cont; spirv.mlir.selection {...}; if !cont { A } }
    """

    op_types = _TASK_LOOPS
    """What it converts (lowering/pattern_dispatch.py)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, _TASK_LOOPS) or not _jumps_of(op):
            return
        block = op.body.block
        first = block.first_op
        at = InsertPoint.before(first) if first is not None else InsertPoint.at_end(block)
        _, cont = _lower_jumps(op, at, rewriter)
        assert cont is not None
        clear = _store_false(cont)
        anchor = cont.owner
        assert isinstance(anchor, Operation)
        rewriter.insert(clear, InsertPoint.after(anchor))


class AllocaLowering(RewritePattern):
    """
    A local 0-d slot -> a Function variable.

        %s = memref.alloca() : memref<f32>  ~>  %s = spirv.Variable : !spirv.ptr<f32, Function>
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter) -> None:
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        var = spirv.VariableOp(_fn_ptr(memref_type.element_type))
        var.location = op.location
        rewriter.replace(op, [var])


class LocalLoadLowering(RewritePattern):
    """`memref.load %var[]` of a Function variable -> `spirv.Load "Function" %var`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.memref.owner, spirv.VariableOp):
            return  # a global place: convert-offload-to-spirv
        load = spirv.LoadOp(op.memref)
        load.location = op.location
        rewriter.replace(op, [load])


class LocalStoreLowering(RewritePattern):
    """`memref.store %v, %var[]` of a Function variable -> `spirv.Store "Function"`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.memref.owner, spirv.VariableOp):
            return
        store = spirv.StoreOp(op.memref, op.value)
        store.location = op.location
        rewriter.replace(op, [store])


def _check_supported(op: Operation) -> None:
    """Reject, before rewriting anything, what this pass cannot lower."""
    name = ConvertTaichiToSpirvPass.name
    if isinstance(op, taichi.StructForOp):
        raise PassFailedAt(
            op,
            f"{name}: a serial 'taichi.struct_for' has no SPIR-V lowering; "
            "ti-demote-dense-struct-for turns it into a range_for",
        )
    if isinstance(op, taichi.WhileOp) and not any(
        isinstance(j, taichi.BreakOp) for j in _jumps_of(op)
    ):
        raise PassFailedAt(
            op, f"{name}: a 'taichi.while' without a taichi.break never ends"
        )
    if isinstance(op, taichi.RangeForOp) and isinstance(op.lower.type, IndexType):
        raise PassFailedAt(op, f"{name}: a 'taichi.range_for' over index values")
    if isinstance(op, memref.AllocaOp):
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        if memref_type.get_num_dims() != 0:
            raise PassFailedAt(op, f"{name}: only 0-d local slots have a SPIR-V lowering")


@dataclass(frozen=True)
class ConvertTaichiToSpirvPass(ModulePass):
    """Structured taichi control flow and local slots -> spirv. With
    `check-loop-exits`, each serial range_for is checked to have run to its bound, and
    each while loop to have left by its break: in an offload task once, at the end of
    the task body, for all its loops (a flag); elsewhere right after the loop
    (RangeForLowering, WhileLowering). The Vulkan backend asks for it on lavapipe, which
    ends the loops of a SIMD group of invocations silently once they ran 65535
    iterations in all."""

    name = "convert-taichi-to-spirv"

    check_loop_exits: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            _check_supported(inner)
        range_for = RangeForLowering(self.check_loop_exits)
        PatternRewriteWalker(
            TypeDispatchApplier(
                [
                    TaskContinueLowering(),
                    range_for,
                    WhileLowering(range_for),
                    IfLowering(),
                    AllocaLowering(),
                    AdStackToSpirv(),
                    LocalLoadLowering(),
                    LocalStoreLowering(),
                ]
            ),
            apply_recursively=True,
        ).rewrite_module(op)
        range_for.finish_checks()
