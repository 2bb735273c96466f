"""
ti-lower-sparse: the cell ops of sparse SNodes become loads, stores and atomics on the
words of their mask or length fields.

A pointer or bitmasked SNode keeps one i32 word per cell (0 free, 1 active, 2 released:
deactivated with its storage not yet zeroed); a dynamic SNode keeps one i32 length per
list (frontends/python/lang/snode.py). After this pass a kernel holds only ops that both
the LLVM and the SPIR-V conversions already handle: taichi.element_ptr, memref.load /
memref.store, taichi.atomic_add and arith. Taichi's counterpart is the SNodeOpStmt
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
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from taichi_xdsl.dialects import taichi

ACTIVE = 1
RELEASED = 2
"""Mask words: 0 free (storage zero), 1 active, 2 released (zeroed by the gc loop)."""


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
    """The word becomes 2 (`release`: the gc loop zeroes the storage) or 0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.DeactivateOp, rewriter: PatternRewriter):
        _store(op, rewriter, RELEASED if op.release is not None else 0)


class IsActiveLowering(RewritePattern):
    """Active means the word is 1 (a released cell is no longer active)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.IsActiveOp, rewriter: PatternRewriter):
        ops, ptr = _word(op)
        ops.append(word := memref.LoadOp.get(ptr, []))
        ops.append(one := arith.ConstantOp.from_int_and_width(ACTIVE, i32))
        ops.append(on := arith.CmpiOp(word, one, "eq"))
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


class LowerSparsePass(ModulePass):
    """Lower taichi.activate / deactivate / is_active / append / length to word accesses."""

    name = "ti-lower-sparse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    ActivateLowering(),
                    DeactivateLowering(),
                    IsActiveLowering(),
                    AppendLowering(),
                    LengthLowering(),
                ]
            )
        ).rewrite_module(op)
