"""
ti-lower-sparse: the cell ops of sparse SNodes become loads, stores and atomics on the
words of their mask or length fields.

A bitmasked SNode keeps one i32 word per cell (0 inactive, 1 active); a pointer SNode
one block index per cell (0 inactive, -1 while an activation claims it; its pool is
frontends/python/lang/pools.py); a dynamic SNode one i32 length per list. After this
pass a kernel holds only ops that both the LLVM and the SPIR-V conversions already
handle: taichi.element_ptr, memref.load / memref.store / memref.alloca, taichi
atomics, taichi.if and arith. Taichi's counterpart is the SNodeOpStmt
lowering of taichi/transforms/lower_access.cpp (activate, deactivate, is_active,
append, length).

    taichi.activate %m[%i] : memref<4xi32>
    ~>
    %p = taichi.element_ptr %m[%i] : memref<4xi32> -> memref<i32>
    %c1 = arith.constant 1 : i32
    memref.store %c1, %p[] : memref<i32>

    %old = taichi.append %l[%i] capacity 8 : memref<4xi32>
    ~>
    %p = taichi.element_ptr %l[%i] : memref<4xi32> -> memref<i32>
    %c1 = arith.constant 1 : i32
    %old = taichi.atomic_add %p, %c1 : memref<i32>

A pointer SNode's pool (frontends/python/lang/pools.py) is two more ops:

    %b = taichi.pool_alloc %state, %free : memref<4xi32>, memref<64xi32>
    ~>
    %slot = memref.alloca() : memref<i32>           (0: no block yet)
    %top = memref.load (taichi.element_ptr %state[1])
    taichi.if (%top > 0) {                            pop the free stack
      %k = taichi.atomic_sub (taichi.element_ptr %state[1]), 1
      taichi.if (%k > 0) { memref.store (memref.load %free[%k - 1]), %slot }
    }
    taichi.if (memref.load %slot == 0) {              else the bump counter
      %n = taichi.atomic_add (taichi.element_ptr %state[0]), 1
      memref.store (select %n < 64, %n + 2, 1), %slot   (1: the sink block)
      taichi.if (%n >= 64) { memref.store 1, (taichi.element_ptr %state[3]) }
    }
    %b = memref.load %slot

    taichi.pool_release %state, %release, %b : memref<4xi32>, memref<64xi32>
    ~>
    %k = taichi.atomic_add (taichi.element_ptr %state[2]), 1
    memref.store %b, (taichi.element_ptr %release[%k])

A cell list (a struct-for's list generation, codegen/sparse.py) keeps its count in
word 0 and entry k in word 1 + k:

    taichi.list_clear %l : memref<17xi32>
    ~>
    memref.store 0, (taichi.element_ptr %l[0])

    taichi.list_append %l, %cell : memref<17xi32>
    ~>
    %k = taichi.atomic_add (taichi.element_ptr %l[0]), 1
    memref.store %cell, (taichi.element_ptr %l[%k + 1])

    %n = taichi.list_length %l : memref<17xi32>      ~> %n = memref.load (taichi.element_ptr %l[0])
    %c = taichi.list_get %l[%e] : memref<17xi32>     ~> %c = memref.load (taichi.element_ptr %l[%e + 1])

When the module carries its SNode trees (the `taichi.snode_trees` attribute, which the
frontend emits), each cell op is first checked against the level whose mask it names:
a store of 1 or 0 is only a bitmasked cell's activation (a pointer word is a block
index: activating one takes a pool block, deactivating one gives it back), a dynamic
level's deactivation empties its list, is_active reads pointer and bitmasked words,
and append / length work on a dynamic level's lengths with its extent as capacity. A
cell-list op names a level's cell list (`cells @sym`), of 1 + the level's cell count
words (its cells along each axis times those of the levels above).

    builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes []
        children [#taichi.snode<pointer [4] axes [0] mask @ptr places [@x]>]>]} {
      ... taichi.activate %ptr[%i] : memref<4xi32> ...
    }
    ~> error: ti-lower-sparse: taichi.activate on @ptr, the cell words of a pointer
       SNode: it activates bitmasked cells only
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import ArrayAttr, MemRefType, ModuleOp, i32
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.hints import isa
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from taichi_xdsl.dialects import taichi
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier
from taichi_xdsl.utils.diagnostics import PassFailedAt
from taichi_xdsl.utils.sparse_abi import ALLOCATED, EXHAUSTED, FREE_TOP, RELEASED, RESERVED_BLOCKS, SINK_BLOCK

ACTIVE = 1
"""A bitmasked cell's word when active (inactive: 0)."""


def _word(op: taichi._CellOp) -> tuple[list[Operation], SSAValue]:
    ptr = taichi.ElementPtrOp(op.mask, list(op.indices))
    return [ptr], ptr.result


def _replace(
    rewriter: PatternRewriter, op: Operation, ops: list[Operation], results: list[SSAValue]
) -> None:
    for new_op in ops:
        new_op.location = op.location
    rewriter.replace(op, ops, results)


def _store(op: taichi._CellOp, rewriter: PatternRewriter, state: int) -> None:
    ops, ptr = _word(op)
    ops.append(value := arith.ConstantOp.from_int_and_width(state, i32))
    ops.append(memref.StoreOp.get(value, ptr, []))
    _replace(rewriter, op, ops, [])


class ActivateLowering(RewritePattern):
    """The word of the cell becomes 1 (a plain store: every writer stores the same)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.ActivateOp, rewriter: PatternRewriter):
        _store(op, rewriter, ACTIVE)


class DeactivateLowering(RewritePattern):
    """The word becomes 0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.DeactivateOp, rewriter: PatternRewriter):
        _store(op, rewriter, 0)


class IsActiveLowering(RewritePattern):
    """Active means the word is positive (a bitmasked 1, a pointer's block index;
    a pointer word is -1 while an activation claims it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.IsActiveOp, rewriter: PatternRewriter):
        ops, ptr = _word(op)
        ops.append(word := memref.LoadOp.get(ptr, []))
        ops.append(zero := arith.ConstantOp.from_int_and_width(0, i32))
        ops.append(on := arith.CmpiOp(word, zero, "sgt"))
        _replace(rewriter, op, ops, [on.result])


class AppendLowering(RewritePattern):
    """An atomic add of 1 on the length; its old value is the claimed position."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.AppendOp, rewriter: PatternRewriter):
        ops, ptr = _word(op)
        ops.append(one := arith.ConstantOp.from_int_and_width(1, i32))
        ops.append(old := taichi.AtomicAddOp(ptr, one))
        _replace(rewriter, op, ops, [old.old])


class LengthLowering(RewritePattern):
    """The length, capped at the capacity (appends past it are counted, not stored)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.LengthOp, rewriter: PatternRewriter):
        ops, ptr = _word(op)
        ops.append(length := memref.LoadOp.get(ptr, []))
        capacity = op.capacity.value.data
        ops.append(cap := arith.ConstantOp.from_int_and_width(capacity, i32))
        ops.append(n := arith.MinSIOp(length, cap))
        _replace(rewriter, op, ops, [n.result])


def _const(value: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(value, i32)


def _at(memref_value: SSAValue, index: int | SSAValue) -> tuple[list[Operation], SSAValue]:
    """The place `memref_value[index]` (a constant or a value)."""
    ops: list[Operation] = []
    if isinstance(index, int):
        ops.append(c := _const(index))
        index = c.result
    ops.append(ptr := taichi.ElementPtrOp(memref_value, [index]))
    return ops, ptr.result


def _if(cond: SSAValue, body: list[Operation]) -> taichi.IfOp:
    return taichi.IfOp(cond, Block([*body, taichi.YieldOp()]), None)


class PoolAllocLowering(RewritePattern):
    """Pop the free stack, else bump the allocation counter (see the module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.PoolAllocOp, rewriter: PatternRewriter):
        free_type = op.blocks.type
        assert isa(free_type, MemRefType)
        capacity = free_type.get_shape()[0]
        ops: list[Operation] = [slot := memref.AllocaOp.get(i32, shape=[])]
        ops += [zero := _const(0), one := _const(1), memref.StoreOp.get(zero, slot, [])]
        top_ops, top_ptr = _at(op.state, FREE_TOP)
        ops += [*top_ops, top := memref.LoadOp.get(top_ptr, [])]
        ops.append(has := arith.CmpiOp(top, zero, "sgt"))
        k = taichi.AtomicSubOp(top_ptr, one)
        ok = arith.CmpiOp(k, zero, "sgt")
        below = arith.SubiOp(k, one)
        free_ops, free_ptr = _at(op.blocks, below.result)
        popped = memref.LoadOp.get(free_ptr, [])
        pop = _if(ok.result, [below, *free_ops, popped, memref.StoreOp.get(popped, slot, [])])
        ops.append(_if(has.result, [k, ok, pop]))
        ops += [got := memref.LoadOp.get(slot, []), none := arith.CmpiOp(got, zero, "eq")]
        count_ops, count_ptr = _at(op.state, ALLOCATED)
        n = taichi.AtomicAddOp(count_ptr, one)
        cap = _const(capacity)
        fits = arith.CmpiOp(n, cap, "slt")
        reserved = _const(RESERVED_BLOCKS)
        fresh = arith.AddiOp(n, reserved)
        sink = _const(SINK_BLOCK)
        chosen = arith.SelectOp(fits, fresh, sink)
        full = arith.CmpiOp(n, cap, "sge")
        flag_ops, flag_ptr = _at(op.state, EXHAUSTED)
        mark = _if(full.result, [*flag_ops, memref.StoreOp.get(one, flag_ptr, [])])
        bump = [*count_ops, n, cap, fits, reserved, fresh, sink, chosen]
        bump += [memref.StoreOp.get(chosen, slot, []), full, mark]
        ops.append(_if(none.result, bump))
        ops.append(block := memref.LoadOp.get(slot, []))
        _replace(rewriter, op, ops, [block.res])


class PoolReleaseLowering(RewritePattern):
    """Push the block on the release list (an atomic add claims the entry)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.PoolReleaseOp, rewriter: PatternRewriter):
        count_ops, count_ptr = _at(op.state, RELEASED)
        ops: list[Operation] = [*count_ops, one := _const(1)]
        ops.append(k := taichi.AtomicAddOp(count_ptr, one))
        entry_ops, entry = _at(op.blocks, k.old)
        ops += [*entry_ops, memref.StoreOp.get(op.block, entry, [])]
        _replace(rewriter, op, ops, [])


class ListClearLowering(RewritePattern):
    """The count (word 0) becomes 0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.ListClearOp, rewriter: PatternRewriter):
        ops, count = _at(op.cell_list, 0)
        ops += [zero := _const(0), memref.StoreOp.get(zero, count, [])]
        _replace(rewriter, op, ops, [])


class ListAppendLowering(RewritePattern):
    """An atomic add on the count claims entry k; the cell goes to word 1 + k."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.ListAppendOp, rewriter: PatternRewriter):
        ops, count = _at(op.cell_list, 0)
        ops += [one := _const(1), k := taichi.AtomicAddOp(count, one)]
        ops.append(word := arith.AddiOp(k.old, one))
        entry_ops, entry = _at(op.cell_list, word.result)
        ops += [*entry_ops, memref.StoreOp.get(op.cell, entry, [])]
        _replace(rewriter, op, ops, [])


class ListLengthLowering(RewritePattern):
    """A load of the count."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.ListLengthOp, rewriter: PatternRewriter):
        ops, count = _at(op.cell_list, 0)
        ops.append(n := memref.LoadOp.get(count, []))
        _replace(rewriter, op, ops, [n.res])


class ListGetLowering(RewritePattern):
    """A load of word 1 + index."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.ListGetOp, rewriter: PatternRewriter):
        ops: list[Operation] = [one := _const(1), word := arith.AddiOp(op.index, one)]
        entry_ops, entry = _at(op.cell_list, word.result)
        ops += [*entry_ops, cell := memref.LoadOp.get(entry, [])]
        _replace(rewriter, op, ops, [cell.res])


_LEGAL_KINDS: dict[type[taichi._CellOp], tuple[str, ...]] = {
    taichi.ActivateOp: ("bitmasked",),
    taichi.DeactivateOp: ("bitmasked", "dynamic"),
    taichi.IsActiveOp: ("pointer", "bitmasked"),
    taichi.AppendOp: ("dynamic",),
    taichi.LengthOp: ("dynamic",),
}
"""The SNode kinds whose mask each cell op may name (the module docstring says why)."""


def check_cell_ops(module: ModuleOp) -> None:
    """Check every cell op against the level of `module`'s SNode trees whose mask it
    names, and every cell-list op against the level whose list it names (nothing to
    check without trees, or for a mask or list that is not a field)."""
    trees = module.attributes.get(taichi.SNODE_TREES)
    if trees is None:
        return
    assert isa(trees, ArrayAttr[Attribute])
    levels = {
        level.mask_symbol: level
        for tree in trees.data
        if isinstance(tree, taichi.SNodeAttr)
        for level in tree.walk()
        if level.mask_symbol is not None
    }
    lists = {
        symbol: cells
        for tree in trees.data
        if isinstance(tree, taichi.SNodeAttr)
        for symbol, cells in _cell_lists(tree, {})
    }
    for op in module.walk():
        if isinstance(op, taichi._CellListOp):
            _check_cell_list(op, lists)
        if not isinstance(op, taichi._CellOp) or not isinstance(
            field := op.mask.owner, taichi.GetFieldOp
        ):
            continue
        symbol = field.field.root_reference.data
        level = levels.get(symbol)
        if level is None:
            raise PassFailedAt(
                op, f"ti-lower-sparse: {op.name} on @{symbol}, which is no sparse SNode's mask"
            )
        kind, legal = level.kind.data, _LEGAL_KINDS[type(op)]
        if kind not in legal:
            raise PassFailedAt(
                op,
                f"ti-lower-sparse: {op.name} on @{symbol}, the cell words of a {kind} "
                f"SNode: it works on {' and '.join(legal)} SNodes only",
            )
        if isinstance(op, taichi._ListOp):
            extent = level.extents.data[0].data
            if op.capacity.value.data != extent:
                raise PassFailedAt(
                    op,
                    f"ti-lower-sparse: {op.name} with capacity {op.capacity.value.data} "
                    f"on @{symbol}, a dynamic SNode of {extent} cells",
                )


def _cell_lists(level: taichi.SNodeAttr, above: dict[int, int]) -> Iterable[tuple[str, int]]:
    """(cell list symbol, the level's cell count) of `level` and the levels below it;
    `above` holds the cells along each axis above `level`."""
    extents = dict(above)
    for axis, extent in zip(level.axes.data, level.extents.data):
        extents[axis.data] = extents.get(axis.data, 1) * extent.data
    if level.cells_symbol is not None:
        yield level.cells_symbol, math.prod(extents.values())
    for child in level.children.data:
        assert isinstance(child, taichi.SNodeAttr)
        yield from _cell_lists(child, extents)


def _check_cell_list(op: taichi._CellListOp, lists: dict[str, int]) -> None:
    """A list op names a level's cell list, of 1 + the level's cell count words."""
    field = op.cell_list.owner
    if not isinstance(field, taichi.GetFieldOp):
        return
    symbol = field.field.root_reference.data
    if symbol not in lists:
        raise PassFailedAt(op, f"ti-lower-sparse: {op.name} on @{symbol}, which is no sparse SNode's cell list")
    list_type = op.cell_list.type
    assert isa(list_type, MemRefType)
    if list_type.get_shape() != (1 + lists[symbol],):
        raise PassFailedAt(
            op,
            f"ti-lower-sparse: {op.name} on @{symbol} as {list_type}, the cell list of a "
            f"level of {lists[symbol]} cells (memref<{1 + lists[symbol]}xi32>)",
        )


class LowerSparsePass(ModulePass):
    """Lower taichi.activate / deactivate / is_active / append / length, the pool ops
    (pool_alloc, pool_release) and the cell-list ops (list_clear, list_append,
    list_length, list_get) to word accesses and atomics."""

    name = "ti-lower-sparse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_cell_ops(op)
        PatternRewriteWalker(
            TypeDispatchApplier(
                [
                    ActivateLowering(),
                    DeactivateLowering(),
                    IsActiveLowering(),
                    AppendLowering(),
                    LengthLowering(),
                    PoolAllocLowering(),
                    PoolReleaseLowering(),
                    ListClearLowering(),
                    ListAppendLowering(),
                    ListLengthLowering(),
                    ListGetLowering(),
                ]
            )
        ).rewrite_module(op)
