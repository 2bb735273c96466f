"""
ti-auto-diff: automatic differentiation of `taichi.kernel`s. This file is the reverse
mode (the default, `{mode=reverse}`); `{mode=forward}` is in auto_diff_forward.py.

For each kernel `@k` the pass adds its adjoint kernel `@k_grad` (same arguments, no
results): run after the primal, it adds d(outputs)/d(inputs) times the gradients of the
outputs into the gradients of the inputs. A field's gradient is the field its
`taichi.field` names with `grad = @sym`; fields without one are constants to the
adjoint.

    taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
    taichi.field @x_grad : memref<8xf32> offset 64
    taichi.field @loss : memref<f32> offset 128 {grad = @loss_grad}
    taichi.field @loss_grad : memref<f32> offset 192
    taichi.kernel @sum_sq() {
      %x = taichi.get_field @x : memref<8xf32>
      %loss = taichi.get_field @loss : memref<f32>
      taichi.struct_for (%i) in %x : memref<8xf32> {
        %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
        %v = memref.load %p[] : memref<f32>
        %sq = arith.mulf %v, %v : f32
        %l = taichi.element_ptr %loss[] : memref<f32> -> memref<f32>
        %old = taichi.atomic_add %l, %sq : memref<f32>
        taichi.yield
      }
      taichi.return
    }
    ~> (added)
    taichi.kernel @sum_sq_grad() {
      %x_grad = taichi.get_field @x_grad ; %loss_grad = taichi.get_field @loss_grad
      %x = ... ; %loss = ...
      taichi.struct_for (%i) in %x : memref<8xf32> {
        %p = taichi.element_ptr %x[%i] ; %v = memref.load %p[]      (forward replay)
        %sq = arith.mulf %v, %v
        %lg = taichi.element_ptr %loss_grad[] ; %a = memref.load %lg[]  (reverse sweep)
        %d0 = arith.mulf %a, %v ; %d1 = arith.mulf %a, %v ; %d = arith.addf %d0, %d1
        %xg = taichi.element_ptr %x_grad[%i] ; taichi.atomic_add %xg, %d
        taichi.yield
      }
      taichi.return
    }

As in Taichi (taichi/transforms/auto_diff.cpp), each block is replayed forward and then
reversed statement by statement: a global load of a field with a gradient becomes an
atomic add into the gradient, a global store or atomic add reads the gradient of its
destination (a store then zeroes it: what it overwrote receives nothing), and global
writes of the replay are dropped (Taichi's global data access rule: a kernel does not
overwrite what its adjoint reads; with `{restore_overwritten=true}` one that does is
accepted and its adjoint names what its caller must put back: auto_diff_restore.py).
Adjoints of SSA values accumulate in SSA
within their block; adjoints of values used in nested regions, and of local variables,
live in zero-initialised local slots updated with `taichi.atomic_add` (demoted later
where no other thread sees them).

Nested regions are reversed by replaying them: before an `if` or a serial loop the
replay snapshots the locals the region reads; its reverse restores them into fresh
slots, replays the region's block and reverses it. A serial `range_for` runs its
iterations backwards. When its body carries a local from one iteration to the next,
the forward replay pushes the local's value onto an adstack (Taichi's AdStack*Stmt)
at the start of each iteration, and each reverse iteration pops its state back:

    taichi.range_for %j = %lo to %hi {
      %r = memref.load %ret[] ; %m = arith.mulf %r, %a ; memref.store %m, %ret[]
    }
    ~> (in the adjoint)
    %st = taichi.adstack_alloca : !taichi.adstack<f32, N>
    taichi.range_for %j = %lo to %hi {                               (replay)
      %v = memref.load %ret[] ; %ok = taichi.adstack_push %st, %v
      taichi.assert %ok, "adstack overflow ..." always
      ...
    }
    taichi.range_for %jr = %lo to %hi {                              (reverse)
      %t = taichi.adstack_load_top %st ; memref.store %t, %ret2[]
      taichi.adstack_pop %st
      <replay and reverse of the body at %hi - 1 - %jr>
    }

A stack holds the loop's trip count when its bounds are constants (no check needed),
else `ad_stack_size` values (the pass option; ti.init(ad_stack_size=...), 0: the
default DEFAULT_AD_STACK_SIZE); pushing past that fails the `always` assert, an error
on both targets, never a silently wrong gradient. `while` loops and `break`/`continue` in
regions that need an adjoint are rejected with a diagnostic, as are atomics other than
add/sub on differentiated values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from taichi_xdsl.dialects import taichi
from taichi_xdsl.lowering.auto_diff_restore import RESTORE_ATTR, plan_restores
from taichi_xdsl.utils.diagnostics import PassFailedAt, PassOptionError
from xdsl.context import Context
from xdsl.dialects import arith, math, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.hints import isa

_LOOPS = (taichi.RangeForOp, taichi.StructForOp, taichi.WhileOp)
_REGION_OPS = (taichi.IfOp, *_LOOPS)


def _exits_a_loop(op: Operation) -> bool:
    """Whether an `if` holds a `continue` or `break` of an enclosing loop."""
    return isinstance(op, taichi.IfOp) and any(
        isinstance(inner, taichi.BreakOp | taichi.ContinueOp) for inner in op.walk()
    )
_LINEAR = (
    arith.AddfOp,
    arith.SubfOp,
    arith.NegfOp,
    arith.ExtFOp,
    arith.TruncFOp,
    math.FloorOp,
    math.CeilOp,
    math.RoundOp,
    math.TruncOp,
)
"""Ops whose adjoint reads none of their operands."""
_DROPPED = (taichi.PrintOp, taichi.AssertOp)
"""Ops the adjoint kernel does not replay (they would run twice)."""

STOP_GRAD_ATTR = "stop_grad"
"""A unit attribute on a `taichi.get_field`: loads through it get no gradient
(`ti.stop_grad(x)` in the kernel)."""
ADJOINT_OF_ATTR = "adjoint_of"
"""Marks an adjoint kernel with the symbol of its primal."""
DEFAULT_AD_STACK_SIZE = 1024
"""Values an adstack holds for a loop of non-constant bounds when ad_stack_size is 0."""
NEEDS_GRAD_ARG = "taichi.grad"
"""An argument attribute of an ndarray argument with a gradient: the adjoint kernel
takes the gradient ndarray as one more argument at the end, in argument order."""


def _is_float(value: SSAValue) -> bool:
    return isinstance(value.type, AnyFloat)


def _is_slot(value: SSAValue) -> bool:
    return isinstance(value.owner, memref.AllocaOp)


def _field_symbol(ptr: SSAValue) -> str | None:
    """The field an element pointer points into, if it is a field's."""
    owner = ptr.owner
    if isinstance(owner, taichi.ElementPtrOp) and isinstance(
        owner.base.owner, taichi.GetFieldOp
    ):
        return owner.base.owner.field.root_reference.data
    return None


def _block_of(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.block
    assert isinstance(value.owner, Operation)
    return value.owner.parent_block()


class _Scope(dict[SSAValue, SSAValue]):
    """A value mapping that falls back to its parent (what clone() reads through)."""

    def __init__(self, parent: _Scope | None):
        self.parent = parent  # (dict.__init__ without arguments does nothing)

    def get(self, key: SSAValue, default: SSAValue | None = None) -> SSAValue | None:  # type: ignore[override]
        scope: _Scope | None = self
        while scope is not None:
            if dict.__contains__(scope, key):
                return dict.__getitem__(scope, key)
            scope = scope.parent
        return default


@dataclass
class _Ctx:
    """One replay of a primal block: where its values live in the adjoint kernel."""

    block: Block
    values: _Scope
    parent: _Ctx | None
    adjoint: dict[SSAValue, SSAValue]
    slots: dict[SSAValue, SSAValue]
    snapshots: dict[Operation, dict[SSAValue, SSAValue]]
    stacks: dict[Operation, dict[SSAValue, SSAValue]] = field(default_factory=dict)
    """Serial loop -> the adstack of each local it carries (pushed by its replay)."""


class _Adjoint:
    """Builds the adjoint of one kernel."""

    def __init__(
        self,
        kernel: taichi.KernelOp,
        grads: dict[str, str],
        field_types: dict[str, MemRefType],
        ad_stack_size: int,
        restore_overwritten: bool = False,
    ):
        self.kernel = kernel
        self.ad_stack_size = ad_stack_size
        self.restore_overwritten = restore_overwritten
        self.restores: ArrayAttr | None = None
        """The fields the caller must hold at their values from before the primal's
        launch while the adjoint runs (auto_diff_restore.py)."""
        self.grads = grads
        self.field_types = field_types
        self.ndarray_grads: dict[SSAValue, SSAValue] = {}
        self.grad_fields: dict[str, SSAValue] = {}
        self.out: Block = Block()
        self.entry: Block = Block()
        self.active: set[SSAValue] = set()
        self.live: set[Operation] = set()

    # -- analysis -------------------------------------------------------------------

    def grad_base(self, ptr: SSAValue) -> SSAValue | str | None:
        """The gradient of the container `ptr` points into: a field symbol, a gradient
        ndarray argument, or None (no gradient)."""
        owner = ptr.owner
        if not isinstance(owner, taichi.ElementPtrOp):
            return None
        base = owner.base
        if isinstance(base.owner, taichi.GetFieldOp):
            if STOP_GRAD_ATTR in base.owner.attributes:
                return None
            return self.grads.get(base.owner.field.root_reference.data)
        return self.ndarray_grads.get(base)

    def analyse(self) -> None:
        """Activity: float values that depend on a load of data with a gradient."""
        active = self.active
        changed = True
        while changed:
            changed = False
            for op in self.kernel.walk():
                for value in self._activated(op):
                    if value not in active:
                        active.add(value)
                        changed = True
        # Ops whose reverse does something, and the regions holding them.
        for op in self.kernel.walk():
            if any(v in active for v in (*op.operands, *op.results)) or (
                isinstance(op, memref.LoadOp) and op.res in active
            ):
                parent: Operation | None = op
                while parent is not None and parent is not self.kernel:
                    self.live.add(parent)
                    parent = parent.parent_op()

    def check_replayable(self) -> None:
        """
        Reject a global load that the reverse sweep depends on when the kernel may
        write that field after it (in the same top-level statement or a later one): the
        adjoint, launched after the primal, would replay it with the written value
        (Taichi's global data access rule; ti.random's launch counter). A field written
        only by earlier top-level statements (earlier tasks) holds, when the adjoint
        runs, the value the load read: `F[i] = ...` in one loop, `... F[i] ...` in the
        next (Taichi's fem99).
        """
        top = list(self.kernel.body.block.ops)
        position = {op: n for n, op in enumerate(top)}

        def statement(op: Operation) -> int:
            while op.parent_op() is not self.kernel:
                parent = op.parent_op()
                assert parent is not None
                op = parent
            return position[op]

        last_write: dict[str, int] = {}
        for op in self.kernel.walk():
            if isinstance(op, memref.StoreOp | taichi.AtomicOp):
                dest = op.memref if isinstance(op, memref.StoreOp) else op.dest
                sym = _field_symbol(dest)
                if sym is not None:
                    last_write[sym] = max(last_write.get(sym, -1), statement(op))
        if not last_write:
            return
        work = [v for op in self.live for v in self.needed_operands(op)]
        seen: set[SSAValue] = set()
        needed: dict[str, list[memref.LoadOp]] = {}
        stale: list[str] = []
        while work:
            value = work.pop()
            if value in seen or not isinstance(value.owner, Operation):
                continue
            seen.add(value)
            owner = value.owner
            if isinstance(owner, memref.LoadOp):
                sym = _field_symbol(owner.memref)
                if sym is not None:
                    needed.setdefault(sym, []).append(owner)
                if sym in last_write and last_write[sym] >= statement(owner):
                    if not self.restore_overwritten:
                        raise PassFailedAt(
                            owner,
                            f"ti-auto-diff: the adjoint needs this load of @{sym}, which "
                            "the kernel also writes: it would read the written value "
                            "(global data access rule)",
                        )
                    if sym not in stale:
                        stale.append(sym)
            if isinstance(owner, memref.AllocaOp):
                for use in value.uses:
                    work.extend(use.operation.operands)
            work.extend(owner.operands)
        if stale:
            serial = lambda loop: not self.is_parallel(loop)  # noqa: E731
            self.restores = plan_restores(
                self.kernel, {sym: needed[sym] for sym in stale}, serial
            )

    def needed_operands(self, op: Operation) -> list[SSAValue]:
        """
        The operands of a live op whose values its reverse reads. A store or atomic
        needs its destination (the gradient's index), not its value; a sum, a
        difference and a cast are linear (their adjoints need no operand); a product
        needs the factor that scales the other, active, one; a quotient its divisor (and
        its numerator only when the divisor is active); a select its condition.
        So `x[i + 1] = x[i] * 2`
        may write the x it read (Taichi's test_loop_grad): the adjoint never reads x.
        """
        if isinstance(op, memref.StoreOp):
            return [op.memref]
        if isinstance(op, taichi.AtomicMaxOp | taichi.AtomicMinOp):
            return [op.dest, op.value]  # the value is compared with the final one
        if isinstance(op, taichi.AtomicOp):
            return [op.dest]
        if isinstance(op, _LINEAR):
            return []
        if isinstance(op, arith.MulfOp):
            return [a for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)) if b in self.active]
        if isinstance(op, arith.DivfOp):  # the numerator only for an active divisor
            return [op.rhs, op.lhs] if op.rhs in self.active else [op.rhs]
        if isinstance(op, arith.SelectOp):  # routes the adjoint by its condition alone
            return [op.cond]
        return list(op.operands)

    def _activated(self, op: Operation) -> list[SSAValue]:
        active = self.active
        if isinstance(op, memref.LoadOp):
            if not _is_float(op.res):
                return []
            if _is_slot(op.memref):
                return [op.res] if op.memref in active else []
            return [op.res] if self.grad_base(op.memref) is not None else []
        if isinstance(op, memref.StoreOp):
            if _is_slot(op.memref) and op.value in active:
                return [op.memref]
            return []
        if isinstance(op, taichi.AtomicOp):
            if _is_slot(op.dest) and op.value in active:
                return [op.dest, op.old]
            return []
        if any(v in active for v in op.operands):
            return [r for r in op.results if _is_float(r)]
        return []

    # -- emission helpers ------------------------------------------------------------

    def emit(self, op: Operation) -> SSAValue:
        """Append `op` to the block being built; its first result (ops without one are
        emitted for their effect, and their callers ignore what this returns)."""
        self.out.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: float, type_: Attribute) -> SSAValue:
        assert isinstance(type_, AnyFloat)
        return self.emit(arith.ConstantOp(FloatAttr(value, type_)))

    def zero_slot(self, type_: Attribute) -> SSAValue:
        slot = self.emit(memref.AllocaOp.get(type_, shape=[]))
        self.emit(memref.StoreOp.get(self.const(0.0, type_), slot, []))
        return slot

    def grad_field(self, sym: str) -> SSAValue:
        value = self.grad_fields.get(sym)
        if value is None:
            op = taichi.GetFieldOp(sym, self.field_types[sym])
            op.result.name_hint = sym
            first = self.entry.first_op
            if first is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, first)
            value = self.grad_fields[sym] = op.result
        return value

    def grad_ptr(self, ptr: SSAValue, ctx: _Ctx) -> SSAValue | None:
        base = self.grad_base(ptr)
        if base is None:
            return None
        owner = ptr.owner
        assert isinstance(owner, taichi.ElementPtrOp)
        container = self.grad_field(base) if isinstance(base, str) else base
        indices = [self.lookup(i, ctx) for i in owner.indices]
        return self.emit(taichi.ElementPtrOp(container, indices))

    def lookup(self, value: SSAValue, ctx: _Ctx) -> SSAValue:
        mapped = ctx.values.get(value)
        if mapped is None:
            raise PassFailedAt(
                self.kernel, f"ti-auto-diff: internal error: {value} has no replay"
            )
        return mapped

    # -- adjoints --------------------------------------------------------------------

    def owner_ctx(self, value: SSAValue, ctx: _Ctx) -> _Ctx:
        block = _block_of(value)
        c: _Ctx | None = ctx
        while c is not None and c.block is not block:
            c = c.parent
        assert c is not None, "a value is defined in an enclosing replayed block"
        return c

    def accumulate(self, value: SSAValue, delta: SSAValue, ctx: _Ctx) -> None:
        """Add `delta` to the adjoint of the primal `value`."""
        if value not in self.active:
            return
        home = self.owner_ctx(value, ctx)
        if home is ctx and value not in ctx.slots:
            old = ctx.adjoint.get(value)
            ctx.adjoint[value] = (
                delta if old is None else self.emit(arith.AddfOp(old, delta))
            )
        else:
            self.emit(taichi.AtomicAddOp(home.slots[value], delta))

    def take_adjoint(self, value: SSAValue, ctx: _Ctx) -> SSAValue | None:
        """The adjoint of `value` (defined in ctx's block), or None when it is zero."""
        adjoint = ctx.adjoint.get(value)
        slot = ctx.slots.get(value)
        if slot is not None:
            loaded = self.emit(memref.LoadOp.get(slot, []))
            adjoint = (
                loaded if adjoint is None else self.emit(arith.AddfOp(adjoint, loaded))
            )
        return adjoint

    def slot_adjoint(self, slot: SSAValue, ctx: _Ctx) -> SSAValue:
        return self.owner_ctx(slot, ctx).slots[slot]

    # -- forward replay --------------------------------------------------------------

    def writes_outside(self, region_op: Operation) -> bool:
        """Whether a region op stores into a local defined outside it, or appends to a
        cell list (a struct-for's list generation, which the adjoint's loops walk)."""
        for op in region_op.walk():
            if isinstance(op, taichi.ListAppendOp):
                return True
            if isinstance(op, memref.StoreOp | taichi.AtomicOp):
                dest = op.memref if isinstance(op, memref.StoreOp) else op.dest
                if _is_slot(dest) and not region_op.is_ancestor(dest.owner):  # pyright: ignore
                    return True
        return False

    def outer_slots(self, region_op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
        """Locals defined outside `region_op` that it uses, and those of them it reads."""
        used: dict[SSAValue, None] = {}
        read: dict[SSAValue, None] = {}
        for op in region_op.walk():
            for operand in op.operands:
                if _is_slot(operand) and not region_op.is_ancestor(operand.owner):  # pyright: ignore
                    used[operand] = None
                    if isinstance(op, memref.LoadOp):
                        read[operand] = None
        return list(used), list(read)

    def forward(self, block: Block, ctx: _Ctx, snapshot: bool) -> None:
        """Replay the ops of a primal block (without its terminator) into self.out."""
        for op in block.ops:
            if isinstance(
                op, taichi.YieldOp | taichi.ReturnOp | taichi.BreakOp | taichi.ContinueOp
            ):
                if isinstance(op, taichi.BreakOp | taichi.ContinueOp):
                    self.emit(op.clone())
                return
            self.forward_op(op, ctx, snapshot)

    def forward_op(self, op: Operation, ctx: _Ctx, snapshot: bool) -> None:
        if isinstance(op, _DROPPED):
            return
        if isinstance(op, memref.StoreOp) and not _is_slot(op.memref):
            return  # a global write: the primal did it
        if isinstance(op, taichi.AtomicOp) and not _is_slot(op.dest):
            if op.old.uses:
                raise PassFailedAt(
                    op,
                    f"ti-auto-diff: the result of {op.name} on global data cannot be "
                    "replayed in the adjoint kernel",
                )
            return
        if isinstance(op, _REGION_OPS):
            if snapshot and op in self.live:
                _, read = self.outer_slots(op)
                ctx.snapshots[op] = {
                    s: self.emit(memref.LoadOp.get(self.lookup(s, ctx), [])) for s in read
                }
            # An `if` holding a `continue` or `break` changes which iterations of its
            # loop reach the writes after it: replay it as well (a replay without it
            # counted every iteration: a gradient twice too large).
            if self.writes_outside(op) or _exits_a_loop(op):
                push = None
                if snapshot and op in self.live:
                    push = self.stack_carried(op, ctx)
                self.emit(self.replay_region_op(op, ctx, push))
            return
        self.emit(op.clone_without_regions(ctx.values))

    def carried(self, op: Operation) -> list[SSAValue]:
        """The locals a serial range_for carries from one iteration to the next: defined
        outside it, read and written inside it."""
        if not isinstance(op, taichi.RangeForOp) or self.is_parallel(op):
            return []
        _, read = self.outer_slots(op)
        written: set[SSAValue] = set()
        for inner in op.walk():
            if isinstance(inner, memref.StoreOp | taichi.AtomicOp):
                dest = inner.memref if isinstance(inner, memref.StoreOp) else inner.dest
                written.add(dest)
        return [s for s in read if s in written]

    def is_parallel(self, op: Operation) -> bool:
        return isinstance(op, taichi.StructForOp) or (
            isinstance(op, taichi.RangeForOp)
            and op.parent_op() is self.kernel
            and op.serialize is None
        )

    @staticmethod
    def trip_count(op: taichi.RangeForOp) -> int | None:
        """The trip count of a loop with constant bounds (None for other loops)."""
        lower, upper = op.lower.owner, op.upper.owner
        if (
            isinstance(lower, arith.ConstantOp)
            and isinstance(upper, arith.ConstantOp)
            and isinstance(lower.value, IntegerAttr)
            and isinstance(upper.value, IntegerAttr)
        ):
            return max(0, upper.value.value.data - lower.value.value.data)
        return None

    def stack_size(self, op: taichi.RangeForOp) -> int:
        """The trip count of a loop with constant bounds, else the configured size."""
        count = self.trip_count(op)
        if count is not None:
            return max(1, count)
        return self.ad_stack_size or DEFAULT_AD_STACK_SIZE

    def stack_carried(self, op: Operation, ctx: _Ctx) -> Callable[[_Ctx], None] | None:
        """
        Emit an adstack for each local the serial loop `op` carries (recorded in
        ctx.stacks for its reverse) and return what its replay runs at the start of each
        iteration: push those locals' values, asserting that they fit.
        """
        carried = self.carried(op)
        if not carried:
            return None
        assert isinstance(op, taichi.RangeForOp)
        size = self.stack_size(op)
        bounded = self.trip_count(op) is not None  # then the stacks cannot overflow
        stacks: dict[SSAValue, SSAValue] = {}
        for slot in carried:
            assert isa(slot.type, MemRefType)
            stacks[slot] = self.emit(taichi.AdStackAllocaOp(slot.type.element_type, size))
        ctx.stacks[op] = stacks
        message = (
            f"adstack overflow: a loop of kernel '{self.kernel.sym_name.data}' ran more "
            f"than {size} iterations, the values its adjoint keeps for it; raise "
            "ti.init(ad_stack_size=...)"
        )

        def push(inner: _Ctx) -> None:
            for slot, stack in stacks.items():
                value = self.emit(memref.LoadOp.get(self.lookup(slot, inner), []))
                fits = self.emit(taichi.AdStackPushOp(stack, value))
                if not bounded:
                    self.emit(taichi.AssertOp(fits, message, always=True))

        return push

    def replay_region_op(
        self,
        op: Operation,
        ctx: _Ctx,
        prologue: Callable[[_Ctx], None] | None = None,
    ) -> Operation:
        """A forward-only copy of a structured op, global writes dropped; `prologue`
        emits ops at the start of each of its blocks."""
        new = op.clone_without_regions(ctx.values)
        for region, new_region in zip(op.regions, new.regions):
            for block in region.blocks:
                new_block = Block(arg_types=block.arg_types)
                inner = _Ctx(block, _Scope(ctx.values), ctx, {}, {}, {})
                for arg, new_arg in zip(block.args, new_block.args):
                    inner.values[arg] = new_arg
                    new_arg.name_hint = arg.name_hint
                new_region.add_block(new_block)
                saved, self.out = self.out, new_block
                if prologue is not None:
                    prologue(inner)
                self.forward(block, inner, snapshot=False)
                if not isinstance(new_block.last_op, taichi.BreakOp | taichi.ContinueOp):
                    self.emit(taichi.YieldOp())
                self.out = saved
        return new

    # -- the reverse sweep -----------------------------------------------------------

    def adjoint_block(self, block: Block, parent: _Ctx | None, values: _Scope) -> _Ctx:
        """Replay `block` into self.out, then emit its reverse sweep after it."""
        ctx = _Ctx(block, values, parent, {}, {}, {})
        self.forward(block, ctx, snapshot=True)
        for op in block.ops:
            nested = [
                r
                for r in op.results
                if r in self.active
                and (
                    _is_slot(r)
                    or any(u.operation.parent_block() is not block for u in r.uses)
                )
            ]
            for r in nested:
                assert isa(r.type, MemRefType) or isinstance(r.type, AnyFloat)
                elem = r.type.element_type if isa(r.type, MemRefType) else r.type
                ctx.slots[r] = self.zero_slot(elem)
        for op in reversed(list(block.ops)):
            if op in self.live or isinstance(op, taichi.AtomicOp | memref.StoreOp):
                self.reverse_op(op, ctx)
        return ctx

    def reverse_op(self, op: Operation, ctx: _Ctx) -> None:
        if isinstance(op, taichi.IfOp):
            return self.reverse_if(op, ctx)
        if isinstance(op, taichi.RangeForOp | taichi.StructForOp):
            return self.reverse_loop(op, ctx)
        if isinstance(op, taichi.WhileOp):
            raise PassFailedAt(
                op,
                "ti-auto-diff: a while loop that computes a differentiated value is not "
                "supported (use a range-for with a bound)",
            )
        if isinstance(op, taichi.BreakOp | taichi.ContinueOp):
            raise PassFailedAt(
                op,
                f"ti-auto-diff: '{op.name}' in a loop that computes a differentiated "
                "value is not supported",
            )
        if isinstance(op, memref.LoadOp):
            return self.reverse_load(op, ctx)
        if isinstance(op, memref.StoreOp):
            return self.reverse_store(op, ctx)
        if isinstance(op, taichi.AtomicOp):
            return self.reverse_atomic(op, ctx)
        if isinstance(op, memref.AllocaOp):
            return  # its adjoint slot was made with the block's
        results = [r for r in op.results if r in self.active]
        if not results:
            return
        adjoint = self.take_adjoint(results[0], ctx)
        if adjoint is None:
            return
        rule = _RULES.get(type(op))
        if rule is None:
            raise PassFailedAt(op, f"ti-auto-diff: cannot differentiate '{op.name}'")
        operands = [self.lookup(v, ctx) for v in op.operands]
        result = self.lookup(op.results[0], ctx)
        for index, delta in rule(self, adjoint, operands, result):
            primal = op.operands[index]
            if primal in self.active and delta is not None:
                self.accumulate(primal, delta, ctx)

    def reverse_load(self, op: memref.LoadOp, ctx: _Ctx) -> None:
        if op.res not in self.active:
            return
        adjoint = self.take_adjoint(op.res, ctx)
        if adjoint is None:
            return
        if _is_slot(op.memref):
            self.emit(taichi.AtomicAddOp(self.slot_adjoint(op.memref, ctx), adjoint))
            return
        ptr = self.grad_ptr(op.memref, ctx)
        if ptr is not None:
            self.emit(taichi.AtomicAddOp(ptr, adjoint))

    def reverse_store(self, op: memref.StoreOp, ctx: _Ctx) -> None:
        if _is_slot(op.memref):
            if op.memref not in self.active:
                return
            slot = self.slot_adjoint(op.memref, ctx)
            self.accumulate(op.value, self.emit(memref.LoadOp.get(slot, [])), ctx)
            self.emit(memref.StoreOp.get(self.const(0.0, op.value.type), slot, []))
            return
        # The store overwrote the destination: the gradient that reached it goes to the
        # stored value and no further (an earlier store's adjoint must not see it again;
        # Taichi's test_ad_set_loss_grad).
        if not isinstance(op.value.type, AnyFloat):
            return
        ptr = self.grad_ptr(op.memref, ctx)
        if ptr is None:
            return
        if op.value in self.active:
            self.accumulate(op.value, self.emit(memref.LoadOp.get(ptr, [])), ctx)
        self.emit(memref.StoreOp.get(self.const(0.0, op.value.type), ptr, []))

    def reverse_atomic(self, op: taichi.AtomicOp, ctx: _Ctx) -> None:
        if op.value not in self.active:
            return
        if isinstance(op, taichi.AtomicMaxOp | taichi.AtomicMinOp) and not _is_slot(op.dest):
            return self.reverse_extremum(op, ctx)
        if not isinstance(op, taichi.AtomicAddOp | taichi.AtomicSubOp):
            raise PassFailedAt(
                op,
                f"ti-auto-diff: cannot differentiate '{op.name}' (only atomic add/sub, "
                "and atomic max/min into a field)",
            )
        if op.old in self.active and op.old.uses:
            raise PassFailedAt(
                op, f"ti-auto-diff: the old value of '{op.name}' cannot be differentiated"
            )
        if _is_slot(op.dest):
            adjoint = self.emit(memref.LoadOp.get(self.slot_adjoint(op.dest, ctx), []))
        else:
            ptr = self.grad_ptr(op.dest, ctx)
            if ptr is None:
                return
            adjoint = self.emit(memref.LoadOp.get(ptr, []))
        if isinstance(op, taichi.AtomicSubOp):
            adjoint = self.emit(arith.NegfOp(adjoint))
        self.accumulate(op.value, adjoint, ctx)

    def reverse_extremum(self, op: taichi.AtomicOp, ctx: _Ctx) -> None:
        """
        `ti.atomic_max(y[j], v)` (or min): the gradient of y reaches one v that is y's
        final value, read back after the primal, and no other v: the first to find it
        takes it, leaving y's gradient zero (an atomic multiply by 0 returns and clears
        it). Ties are common (particles of one layer moving alike in Taichi's diff_sph;
        giving each of k tied values the gradient multiplied it by k). A y that no v
        reached keeps its gradient, for the value it held before (Taichi treats every
        atomic as an add: all v would receive it).

            %old = taichi.atomic_max %p, %v            (forward, %p into @y)
            ~>
            %g = taichi.element_ptr %y_grad[...]
            %y = memref.load %p[]                      (y after the primal)
            %taken = memref.alloca ; memref.store 0.0, %taken[]
            taichi.if (arith.cmpf oeq, %v, %y) {
              %t = taichi.atomic_mul %g, 0.0 ; memref.store %t, %taken[]
            }
            %d = memref.load %taken[]                  ; into v's adjoint
        """
        if op.old in self.active and op.old.uses:
            raise PassFailedAt(
                op, f"ti-auto-diff: the old value of '{op.name}' cannot be differentiated"
            )
        grad = self.grad_ptr(op.dest, ctx)
        if grad is None:
            return
        owner = op.dest.owner
        assert isinstance(owner, taichi.ElementPtrOp)
        primal = self.emit(
            taichi.ElementPtrOp(
                self.lookup(owner.base, ctx), [self.lookup(i, ctx) for i in owner.indices]
            )
        )
        final = self.emit(memref.LoadOp.get(primal, []))
        value = self.lookup(op.value, ctx)
        hit = self.emit(arith.CmpfOp(value, final, "oeq"))
        taken = self.zero_slot(op.value.type)

        def take() -> None:
            cleared = self.emit(taichi.AtomicMulOp(grad, self.const(0.0, op.value.type)))
            self.emit(memref.StoreOp.get(cleared, taken, []))

        self.emit(taichi.IfOp(hit, self.in_block(Block(), take), None))
        self.accumulate(op.value, self.emit(memref.LoadOp.get(taken, [])), ctx)

    def restore(self, op: Operation, ctx: _Ctx, values: _Scope) -> None:
        """Fresh slots for the outer locals `op` uses, holding their values at its entry."""
        used, _ = self.outer_slots(op)
        snap = ctx.snapshots.get(op, {})
        for slot in used:
            assert isa(slot.type, MemRefType)
            fresh = self.emit(memref.AllocaOp.get(slot.type.element_type, shape=[]))
            if slot in snap:
                self.emit(memref.StoreOp.get(snap[slot], fresh, []))
            values[slot] = fresh

    def in_block(self, block: Block, build: Callable[[], None]) -> Block:
        saved, self.out = self.out, block
        build()
        if not isinstance(block.last_op, taichi.YieldOp):
            self.emit(taichi.YieldOp())
        self.out = saved
        return block

    def reverse_if(self, op: taichi.IfOp, ctx: _Ctx) -> None:
        def branch(region: Region) -> Block:
            new = Block()

            def build() -> None:
                values = _Scope(ctx.values)
                self.restore(op, ctx, values)
                self.adjoint_block(region.block, ctx, values)

            return self.in_block(new, build)

        then_block = branch(op.then_region)
        else_block = branch(op.else_region) if op.else_region.blocks else None
        self.emit(taichi.IfOp(self.lookup(op.cond, ctx), then_block, else_block))

    def reverse_loop(self, op: taichi.RangeForOp | taichi.StructForOp, ctx: _Ctx) -> None:
        body = op.body.block
        for inner in op.walk():
            if isinstance(inner, taichi.BreakOp | taichi.ContinueOp) and (
                taichi.innermost_loop(inner) is op
            ):
                raise PassFailedAt(
                    inner,
                    f"ti-auto-diff: '{inner.name}' in a loop that computes a "
                    "differentiated value is not supported",
                )
        if self.is_parallel(op):
            # Parallel iterations are independent: reverse each one in place.
            new_body = Block(arg_types=body.arg_types)

            def build_parallel() -> None:
                values = _Scope(ctx.values)
                for arg, new_arg in zip(body.args, new_body.args):
                    values[arg] = new_arg
                    new_arg.name_hint = arg.name_hint
                self.restore(op, ctx, values)
                self.adjoint_block(body, ctx, values)

            self.in_block(new_body, build_parallel)
            new = op.clone_without_regions(ctx.values)
            new.regions[0].add_block(new_body)
            self.emit(new)
            return
        # A serial loop: iterations backwards, j = lo + hi - 1 - jr.
        lower, upper = self.lookup(op.lower, ctx), self.lookup(op.upper, ctx)
        one = self.emit(arith.ConstantOp(IntegerAttr(1, lower.type)))  # pyright: ignore
        last = self.emit(arith.SubiOp(self.emit(arith.AddiOp(lower, upper)), one))
        new_body = Block(arg_types=body.arg_types)
        stacks = ctx.stacks.get(op, {})

        def build_serial() -> None:
            index = self.emit(arith.SubiOp(last, new_body.args[0]))
            index.name_hint = body.args[0].name_hint
            values = _Scope(ctx.values)
            self.restore(op, ctx, values)
            for slot, stack in stacks.items():  # the carried locals at this iteration
                top = self.emit(taichi.AdStackLoadTopOp(stack))
                self.emit(memref.StoreOp.get(top, values[slot], []))
                self.emit(taichi.AdStackPopOp(stack))
            values[body.args[0]] = index
            self.adjoint_block(body, ctx, values)

        self.in_block(new_body, build_serial)
        self.emit(
            taichi.RangeForOp(lower, upper, new_body, serialize=op.serialize is not None)
        )

    # -- the kernel ------------------------------------------------------------------

    def build(self, name: str) -> taichi.KernelOp:
        inputs = list(self.kernel.function_type.inputs.data)
        arg_attrs = self.kernel.arg_attrs
        grad_inputs: list[Attribute] = []
        if arg_attrs is not None:
            for arg, attrs in zip(self.kernel.body.block.args, arg_attrs.data):
                if NEEDS_GRAD_ARG in attrs.data:
                    grad_inputs.append(arg.type)
        self.entry = Block(arg_types=[*inputs, *grad_inputs])
        primal_args = self.kernel.body.block.args
        grad_args = self.entry.args[len(inputs) :]
        if arg_attrs is not None:
            it = iter(grad_args)
            for arg, attrs in zip(primal_args, arg_attrs.data):
                if NEEDS_GRAD_ARG in attrs.data:
                    self.ndarray_grads[arg] = next(it)
        self.analyse()
        self.check_replayable()
        self.out = self.entry
        values = _Scope(None)
        for arg, new_arg in zip(primal_args, self.entry.args):
            values[arg] = new_arg
            new_arg.name_hint = arg.name_hint
        self.adjoint_block(self.kernel.body.block, None, values)
        self.emit(taichi.ReturnOp())
        kernel = taichi.KernelOp(
            name,
            FunctionType.from_lists([*inputs, *grad_inputs], []),
            Region(self.entry),
            {ADJOINT_OF_ATTR: SymbolRefAttr(self.kernel.sym_name.data)},
        )
        if self.restores is not None:
            kernel.attributes[RESTORE_ATTR] = self.restores
        kernel.location = self.kernel.location  # pyright: ignore
        return kernel


# -- derivative rules: (adjoint, operands, result) -> (operand index, delta) ------------

_Rule = Callable[
    [_Adjoint, SSAValue, list[SSAValue], SSAValue], list[tuple[int, SSAValue | None]]
]


def _mul(b: _Adjoint, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.emit(arith.MulfOp(x, y))


def _neg(b: _Adjoint, x: SSAValue) -> SSAValue:
    return b.emit(arith.NegfOp(x))


def _select(b: _Adjoint, cond: SSAValue, a: SSAValue, when_true: bool) -> SSAValue:
    zero = b.const(0.0, a.type)
    args = (a, zero) if when_true else (zero, a)
    return b.emit(arith.SelectOp(cond, *args))


def _minmax(predicate: str) -> _Rule:
    def rule(b: _Adjoint, a: SSAValue, o: list[SSAValue], r: SSAValue):
        c = b.emit(arith.CmpfOp(o[0], o[1], predicate))
        return [(0, _select(b, c, a, True)), (1, _select(b, c, a, False))]

    return rule


def _divf(b: _Adjoint, a: SSAValue, o: list[SSAValue], r: SSAValue):
    return [
        (0, b.emit(arith.DivfOp(a, o[1]))),
        (1, _neg(b, b.emit(arith.DivfOp(_mul(b, a, r), o[1])))),
    ]


def _pow(b: _Adjoint, a: SSAValue, o: list[SSAValue], r: SSAValue):
    x, y = o
    one = b.const(1.0, y.type)
    dx = _mul(b, _mul(b, a, y), b.emit(math.PowFOp(x, b.emit(arith.SubfOp(y, one)))))
    return [(0, dx), (1, _mul(b, _mul(b, a, r), b.emit(math.LogOp(x))))]


def _atan2(b: _Adjoint, a: SSAValue, o: list[SSAValue], r: SSAValue):
    y, x = o
    denom = b.emit(arith.AddfOp(_mul(b, x, x), _mul(b, y, y)))
    return [
        (0, b.emit(arith.DivfOp(_mul(b, a, x), denom))),
        (1, _neg(b, b.emit(arith.DivfOp(_mul(b, a, y), denom)))),
    ]


def _abs(b: _Adjoint, a: SSAValue, o: list[SSAValue], r: SSAValue):
    zero = b.const(0.0, a.type)
    positive = b.emit(arith.CmpfOp(o[0], zero, "ogt"))
    negative = b.emit(arith.CmpfOp(o[0], zero, "olt"))
    signed = b.emit(arith.SelectOp(negative, _neg(b, a), zero))
    return [(0, b.emit(arith.SelectOp(positive, a, signed)))]


def _one_minus_sq_plus(sign: float) -> _Rule:
    """tan: a * (1 + r^2); tanh: a * (1 - r^2)."""

    def rule(b: _Adjoint, a: SSAValue, o: list[SSAValue], r: SSAValue):
        one = b.const(1.0, r.type)
        sq = _mul(b, r, r)
        factor = b.emit(arith.AddfOp(one, sq) if sign > 0 else arith.SubfOp(one, sq))
        return [(0, _mul(b, a, factor))]

    return rule


def _cast(b: _Adjoint, a: SSAValue, o: list[SSAValue], r: SSAValue):
    target = o[0].type
    if target == a.type:
        return [(0, a)]
    assert isinstance(target, AnyFloat) and isinstance(a.type, AnyFloat)
    wider = target.bitwidth > a.type.bitwidth
    return [(0, b.emit((arith.ExtFOp if wider else arith.TruncFOp)(a, target)))]


def _zero(b: _Adjoint, a: SSAValue, o: list[SSAValue], r: SSAValue):
    return []


_RULES: dict[type[Operation], _Rule] = {
    arith.AddfOp: lambda b, a, o, r: [(0, a), (1, a)],
    arith.SubfOp: lambda b, a, o, r: [(0, a), (1, _neg(b, a))],
    arith.MulfOp: lambda b, a, o, r: [(0, _mul(b, a, o[1])), (1, _mul(b, a, o[0]))],
    arith.DivfOp: _divf,
    arith.NegfOp: lambda b, a, o, r: [(0, _neg(b, a))],
    arith.MaxnumfOp: _minmax("oge"),
    arith.MaximumfOp: _minmax("oge"),
    arith.MinnumfOp: _minmax("ole"),
    arith.MinimumfOp: _minmax("ole"),
    arith.SelectOp: lambda b, a, o, r: [
        (1, _select(b, o[0], a, True)),
        (2, _select(b, o[0], a, False)),
    ],
    arith.ExtFOp: _cast,
    arith.TruncFOp: _cast,
    math.SinOp: lambda b, a, o, r: [(0, _mul(b, a, b.emit(math.CosOp(o[0]))))],
    math.CosOp: lambda b, a, o, r: [(0, _neg(b, _mul(b, a, b.emit(math.SinOp(o[0])))))],
    math.TanOp: _one_minus_sq_plus(1.0),
    math.TanhOp: _one_minus_sq_plus(-1.0),
    math.ExpOp: lambda b, a, o, r: [(0, _mul(b, a, r))],
    math.LogOp: lambda b, a, o, r: [(0, b.emit(arith.DivfOp(a, o[0])))],
    math.SqrtOp: lambda b, a, o, r: [
        (0, b.emit(arith.DivfOp(_mul(b, a, b.const(0.5, r.type)), r)))
    ],
    math.RsqrtOp: lambda b, a, o, r: [
        (0, _mul(b, _mul(b, a, b.const(-0.5, r.type)), _mul(b, r, _mul(b, r, r))))
    ],
    math.Log2Op: lambda b, a, o, r: [
        (0, b.emit(arith.DivfOp(a, _mul(b, o[0], b.const(0.6931471805599453, r.type)))))
    ],
    math.PowFOp: _pow,
    math.Atan2Op: _atan2,
    math.AbsFOp: _abs,
    math.FloorOp: _zero,
    math.CeilOp: _zero,
    math.RoundOp: _zero,
    math.TruncOp: _zero,
    math.FmaOp: lambda b, a, o, r: [(0, _mul(b, a, o[1])), (1, _mul(b, a, o[0])), (2, a)],
}


# -- the pass ----------------------------------------------------------------------------


def add_adjoint(
    kernel: taichi.KernelOp,
    grads: dict[str, str],
    field_types: dict[str, MemRefType],
    ad_stack_size: int,
    restore_overwritten: bool = False,
) -> None:
    """
    Add `@k_grad` right after the primal `taichi.kernel @k` (see the module docstring for
    what it computes). One whole-kernel transform rather than local rewrites: the reverse
    sweep of a block depends on every op of it.

    Raises:
        PassFailedAt: a construct the adjoint cannot be built for.
    """
    adjoint = _Adjoint(
        kernel, grads, field_types, ad_stack_size, restore_overwritten
    ).build(
        f"{kernel.sym_name.data}_grad"
    )
    Rewriter.insert_op(adjoint, InsertPoint.after(kernel))


_KIND_NAMES = {"grad": "gradient", "dual": "dual"}


def _companions(
    fields: list[taichi.FieldOp], field_types: dict[str, MemRefType], kind: str
) -> dict[str, str]:
    """Field symbol -> the symbol of its gradient (kind 'grad') or dual ('dual')."""
    out: dict[str, str] = {}
    for f in fields:
        companion = f.attributes.get(kind)
        if companion is None:
            continue
        if not isinstance(companion, SymbolRefAttr):
            raise PassFailedAt(f, f"ti-auto-diff: a field's '{kind}' must be a symbol")
        target = companion.root_reference.data
        if field_types.get(target) != f.type:
            raise PassFailedAt(
                f,
                f"ti-auto-diff: the {_KIND_NAMES[kind]} @{target} of "
                f"@{f.sym_name.data} must be a taichi.field of type {f.type}",
            )
        if not isinstance(f.type.element_type, AnyFloat):
            raise PassFailedAt(
                f,
                f"ti-auto-diff: @{f.sym_name.data} needs a float type for a "
                f"{_KIND_NAMES[kind]}",
            )
        out[f.sym_name.data] = target
    return out


@dataclass(frozen=True)
class AutoDiffPass(ModulePass):
    """
    Differentiate every taichi.kernel `@k`: mode=reverse (the default) adds its adjoint
    `@k_grad`, mode=forward its tangent kernel `@k_fwd` (auto_diff_forward.py).
    """

    name = "ti-auto-diff"

    mode: str = "reverse"
    ad_stack_size: int = 0
    """Values an adstack holds for a loop of non-constant bounds (0: the default)."""
    restore_overwritten: bool = False
    """Accept a kernel whose adjoint needs values the kernel overwrites, naming those
    fields on the adjoint (`restore`) for the caller to put back (auto_diff_restore.py);
    without it such a kernel is refused."""

    def __post_init__(self) -> None:
        if self.ad_stack_size < 0:
            raise PassOptionError(
                "ad_stack_size",
                f"ti-auto-diff: ad_stack_size must be >= 0, got {self.ad_stack_size}",
            )
        if self.mode not in ("reverse", "forward"):
            raise PassOptionError(
                "mode",
                f"ti-auto-diff: mode must be 'reverse' or 'forward', got '{self.mode}'",
            )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fields = [f for f in op.walk() if isinstance(f, taichi.FieldOp)]
        field_types = {f.sym_name.data: f.type for f in fields}
        forward = self.mode == "forward"
        companions = _companions(fields, field_types, "dual" if forward else "grad")
        kernels = [k for k in op.walk() if isinstance(k, taichi.KernelOp)]
        names = {k.sym_name.data for k in kernels}
        suffix = "_fwd" if forward else "_grad"
        from taichi_xdsl.lowering.auto_diff_forward import (  # noqa: PLC0415 (cycle)
            TANGENT_OF_ATTR,
            add_tangent_kernel,
        )

        for kernel in kernels:
            if ADJOINT_OF_ATTR in kernel.attributes or TANGENT_OF_ATTR in kernel.attributes:
                continue  # a derived kernel itself
            if f"{kernel.sym_name.data}{suffix}" in names:
                continue  # already differentiated
            if forward:
                add_tangent_kernel(kernel, companions, field_types)
            else:
                add_adjoint(
                    kernel,
                    companions,
                    field_types,
                    self.ad_stack_size,
                    self.restore_overwritten,
                )
