"""
ti-demote-atomics: turn atomics that cannot race into plain load, op, store.

An atomic read-modify-write costs far more than a load and a store, and the frontend
emits one for every `+=` on global data. Taichi demotes those that no other thread can
see (taichi/transforms/demote_atomics.cpp); so do we, for:

- a thread-private slot: a local `memref.alloca` or an `offload.thread_local`;
- any place in an `offload.serial` task, which runs on one thread;
- in an `offload.range_for` task, an element `x[i, ...]` whose first index is the task's
  own loop index, when every access of the task to `x` has that first index: each
  iteration owns its slice `x[i, ...]` (a 1-d field's element, a vector field's
  components `x[i, c]`, the row that ti-split-parallel-loop gives each index of a 2-d
  loop, `grid[row, col]`). Slices of distinct indices are disjoint as long as the other
  indices are in bounds, which Taichi requires of every access. A task that calls a real
  function (`func.call`) may access `x` anywhere through it: its atomics on fields stay.

The demoted op's result is the value *loaded* before the update, as the atomic's was
(Taichi issue #332).

    %old = taichi.atomic_add %slot, %v : memref<f32>
    ~>
    %old = memref.load %slot[] : memref<f32>
    %new = arith.addf %old, %v : f32
    memref.store %new, %slot[] : memref<f32>
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from taichi_xdsl.dialects import offload, taichi

Combine = Callable[[SSAValue, SSAValue], Operation]

# How each atomic combines the old value with the operand: (integer op, float op).
_COMBINE: dict[type[taichi.AtomicOp], tuple[Combine, Combine | None]] = {
    taichi.AtomicAddOp: (arith.AddiOp, arith.AddfOp),
    taichi.AtomicSubOp: (arith.SubiOp, arith.SubfOp),
    taichi.AtomicMulOp: (arith.MuliOp, arith.MulfOp),
    taichi.AtomicMinOp: (arith.MinSIOp, arith.MinnumfOp),
    taichi.AtomicMaxOp: (arith.MaxSIOp, arith.MaxnumfOp),
    taichi.AtomicAndOp: (arith.AndIOp, None),
    taichi.AtomicOrOp: (arith.OrIOp, None),
    taichi.AtomicXorOp: (arith.XOrIOp, None),
}
_UNSIGNED_COMBINE: dict[type[taichi.AtomicOp], Combine] = {
    taichi.AtomicMinOp: arith.MinUIOp,
    taichi.AtomicMaxOp: arith.MaxUIOp,
}


def _enclosing_task(op: Operation) -> offload.TaskOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, offload.TaskOp):
        parent = parent.parent_op()
    return parent


def container(value: SSAValue) -> Hashable | None:
    """
    The global container `value` points into: `("field", name)`, `("arg", index)` or
    `("tmp", offset)`, seen through `taichi.element_ptr`; None for a thread-private slot
    (`memref.alloca`, `offload.thread_local`) or an address of unknown origin.

    A container is named by what it is, not by the SSA value that reads it: a task may
    hold two `offload.arg 0` ops, and both are the same ndarray.
    """
    owner = value.owner
    match owner:
        case taichi.ElementPtrOp():
            return container(owner.base)
        case taichi.GetFieldOp():
            return ("field", owner.field.root_reference.data)
        case offload.ArgOp():
            return ("arg", owner.index.value.data)
        case offload.GlobalTmpOp():
            return ("tmp", owner.offset.value.data)
        case _:
            return None


def _owned_by_iteration(place: SSAValue, task: offload.RangeForTask) -> bool:
    """
    `x[i, ...]` with `i` the range_for task's loop index, and every access to `x` in the
    task is some `x[i, ...]`: no two iterations touch the same element.
    """
    ptr = place.owner
    if not isinstance(ptr, taichi.ElementPtrOp) or not _leads_with(ptr, task.index):
        return False
    if calls_functions(task):  # the callee may touch another iteration's element
        return False
    # An address of unknown origin is only known to be itself.
    key = container(ptr.base) or ptr.base
    return all(
        _leads_with(other, task.index)
        for other in task.walk()
        if isinstance(other, taichi.ElementPtrOp)
        and (container(other.base) or other.base) == key
    )


def _leads_with(ptr: taichi.ElementPtrOp, index: SSAValue) -> bool:
    """Whether the first index of `ptr` is `index`."""
    return bool(ptr.indices) and ptr.indices[0] == index


def calls_functions(task: offload.TaskOp) -> bool:
    """Whether `task` calls a real function, which may access any field."""
    return any(isinstance(op, func.CallOp) for op in task.walk())


def cannot_race(op: taichi.AtomicOp) -> bool:
    """True when no other thread can touch `op.dest` while `op` runs."""
    if isinstance(op.dest.owner, memref.AllocaOp | offload.ThreadLocalOp):
        return True
    task = _enclosing_task(op)
    if isinstance(task, offload.SerialTask):
        return True
    if isinstance(task, offload.RangeForTask) and task.body.block.is_ancestor(op):
        # Only the body iterates over the index; the epilogue combines across threads.
        return _owned_by_iteration(op.dest, task)
    return False


class DemoteAtomic(RewritePattern):
    """
    An atomic that cannot race becomes load, combine, store; its result is the loaded
    value.

        %old = taichi.atomic_max unsigned %p, %v : memref<i32>
        ~> %old = memref.load %p[] ; %new = arith.maxui %old, %v ; memref.store %new, %p[]
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.AtomicOp, rewriter: PatternRewriter):
        if not cannot_race(op):
            return  # another thread may update the place: keep the atomic
        new_ops = demoted(op)
        rewriter.replace(op, new_ops, [new_ops[0].results[0]])


def demoted(op: taichi.AtomicOp) -> list[Operation]:
    """The load, combine and store that do what `op` does on one thread; the load's
    result stands for the atomic's."""
    int_combine, float_combine = _COMBINE[type(op)]
    if isinstance(op.value.type, IntegerType):
        combine = int_combine
        if getattr(op, "unsigned", None) is not None:
            combine = _UNSIGNED_COMBINE[type(op)]
    else:
        assert float_combine is not None, "the verifier admits integers only"
        combine = float_combine
    old = memref.LoadOp.get(op.dest, [])
    new = combine(old.res, op.value)
    store = memref.StoreOp.get(new.results[0], op.dest, [])
    for new_op in (old, new, store):
        new_op.location = op.location
    return [old, new, store]


class DemoteAtomicsPass(ModulePass):
    """Demote atomics whose destination no other thread can see."""

    name = "ti-demote-atomics"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(DemoteAtomic()).rewrite_module(op)
