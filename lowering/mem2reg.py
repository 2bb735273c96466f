"""
ti-mem2reg: forward the stores of local variables to their loads.

The frontend keeps every Python local in a 0-d `memref.alloca` slot and reads it back with
`memref.load` at each use. Most of those loads read a value stored just before, in the
same block or in a block that encloses the load, with no other write to the slot on the
way: the load can take the stored value directly. This is Taichi's store-to-load
forwarding (taichi/transforms/store_forwarding, the `mem2reg`-like part of its
`full_simplify`), done on our structured IR without block arguments: a slot written on
two paths that join (an `if` that assigns it) or written in a loop body keeps its loads.

    %s = memref.alloca() : memref<f32>
    memref.store %v, %s[] : memref<f32>
    taichi.if %c {
      %a = memref.load %s[] : memref<f32>
      taichi.print "{}" %a : f32
      taichi.yield
    }
    ~>
    taichi.if %c {
      taichi.print "{}" %v : f32
      taichi.yield
    }

A load takes the value of the store found by walking backwards from it: through the ops
before it in its block, then up to the op enclosing the block and on backwards from there.
The walk gives up at any other write to the slot (a store, an op containing one, or any use
of the slot that is not a plain load or store, such as an atomic), at the slot's alloca
(a read of an uninitialised variable), at an isolated op (kernel, task), and when it
leaves the body of a loop (anything but `taichi.if`) that writes the slot: the loop's back
edge carries that write to the top of the body, even when it comes later in the body.

Slots left with stores only (never read) are deleted with their stores.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.hints import isa

from taichi_xdsl.dialects import taichi
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier


def _is_local_slot(value: SSAValue) -> bool:
    """A 0-d `memref.alloca`: one local scalar variable."""
    return (
        isinstance(value.owner, memref.AllocaOp)
        and isa(value.type, MemRefType)
        and value.type.get_num_dims() == 0
    )


def _is_plain_load(op: Operation, slot: SSAValue) -> bool:
    return isinstance(op, memref.LoadOp) and op.memref is slot


def _is_plain_store(op: Operation, slot: SSAValue) -> bool:
    return isinstance(op, memref.StoreOp) and op.memref is slot


def _writers(slot: SSAValue) -> set[Operation]:
    """Every op that may write `slot`, and every op that encloses one."""
    writers: set[Operation] = set()
    for use in slot.uses:
        if _is_plain_load(use.operation, slot):
            continue
        op: Operation | None = use.operation
        while op is not None and op not in writers:
            writers.add(op)
            op = op.parent_op()
    return writers


def reaching_store(load: memref.LoadOp) -> memref.StoreOp | None:
    """
    The store whose value `load` reads for sure, or None when no single store is known
    to reach it (see the module docstring for the walk).
    """
    slot = load.memref
    alloca = slot.owner
    writers = _writers(slot)
    op: Operation = load
    while True:
        prev = op.prev_op
        while prev is not None:
            if prev in writers:
                return prev if _is_plain_store(prev, slot) else None
            if prev is alloca:
                return None  # read before any write
            prev = prev.prev_op
        parent = op.parent_op()
        # The slot's alloca dominates the load: the walk meets it (above) before it
        # could leave the alloca's region.
        assert parent is not None and not parent.has_trait(IsolatedFromAbove)
        if parent in writers and not isinstance(parent, taichi.IfOp):
            return None  # a loop writing the slot: its back edge reaches this load
        op = parent


class ForwardStoreToLoad(RewritePattern):
    """
    A load of a local slot that one store reaches for sure reads that store's value.

        memref.store %v, %s[] : memref<i32>
        %a = memref.load %s[] : memref<i32>
        ~> (uses of %a read %v)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter):
        if not _is_local_slot(op.memref):
            return  # a global place: other tasks or threads may write it
        store = reaching_store(op)
        if store is None:
            return  # no single store reaches the load for sure
        rewriter.replace(op, [], [store.value])


class EraseWriteOnlySlot(RewritePattern):
    """
    A local slot that is only stored to is dead, stores and all.

        %s = memref.alloca() : memref<i32>
        memref.store %v, %s[] : memref<i32>
        ~> (nothing)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter):
        slot = op.memref
        if not _is_local_slot(slot):
            return
        stores = [use.operation for use in slot.uses]
        if not all(_is_plain_store(store, slot) for store in stores):
            return  # read, or escapes into an op we cannot see through
        for store in stores:
            rewriter.erase(store)
        rewriter.erase(op)


class Mem2RegPass(ModulePass):
    """Forward stores of local slots to their loads; delete slots nobody reads."""

    name = "ti-mem2reg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            TypeDispatchApplier([ForwardStoreToLoad(), EraseWriteOnlySlot()]),
            apply_recursively=True,
        ).rewrite_module(op)
