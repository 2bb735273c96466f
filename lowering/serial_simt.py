"""
ti-serial-simt: the ti.simt ops for CPU threads, where every invocation is a subgroup of
one.

A subgroup of one invocation combines only its own value, elects itself and shuffles
with itself, so each op becomes what it means for one invocation:

    %s = taichi.subgroup_reduce add reduce %v : f32         ~>  (uses of %s use %v)
    %t = taichi.subgroup_reduce add inclusive %v : f32      ~>  (uses of %t use %v)
    %x = taichi.subgroup_reduce min exclusive %n : i32      ~>  %x = arith.constant 2147483647 : i32
    %r = taichi.subgroup_shuffle down %v, %i : f32          ~>  (uses of %r use %v)
    %f = taichi.subgroup_broadcast_first %v : f32           ~>  (uses of %f use %v)
    %a = taichi.subgroup_vote any %c : i32                  ~>  %z = arith.constant 0 : i32
                                                                %b = arith.cmpi ne, %c, %z : i32
                                                                %a = arith.extui %b : i1 to i32
    %q = taichi.subgroup_vote all_equal %v : f32            ~>  %q = arith.constant 1 : i32
    %e = taichi.simt_id elect : i32                         ~>  %e = arith.constant 1 : i32
    %k = taichi.simt_id invocation_id : i32                 ~>  %k = arith.constant 0 : i32
    %n = taichi.simt_id group_size : i32                    ~>  %n = arith.constant 1 : i32
    taichi.barrier subgroup                                 ~>  (erased)

An exclusive scan gives the identity of its combination: 0 for add, or, xor; 1 for mul;
all ones for and; the type's largest value for min (+inf for floats) and its smallest
for max (-inf), unsigned where the op says so. Workgroup and device operations
(`ti.simt.block.*`, shared arrays, `ti.simt.grid.memfence`) have no CPU meaning, as in Taichi: the pass
rejects them at their source line.
"""

from __future__ import annotations

import math

from taichi_xdsl.dialects import taichi
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    i32,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)


def _identity(kind: str, type_: Attribute, unsigned: bool) -> arith.ConstantOp:
    """The constant `x` with `combine(x, v) == v` for every `v` of `type_`."""
    if isinstance(type_, AnyFloat):
        value = {"add": 0.0, "mul": 1.0, "min": math.inf, "max": -math.inf}[kind]
        return arith.ConstantOp(FloatAttr(value, type_))
    assert isinstance(type_, IntegerType)
    width = type_.width.data
    if kind == "min":
        value = -1 if unsigned else (1 << (width - 1)) - 1  # the pattern of the largest
    elif kind == "max":
        value = 0 if unsigned else -(1 << (width - 1))
    else:
        value = {"add": 0, "mul": 1, "and": -1, "or": 0, "xor": 0}[kind]
    return arith.ConstantOp(IntegerAttr(value, type_))


def _const(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, i32))


class _SerialReduce(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.SubgroupReduceOp, rewriter: PatternRewriter):
        if op.mode.data == "exclusive":
            rewriter.replace(op, _identity(op.kind.data, op.value.type, op.unsigned is not None))
        else:
            rewriter.replace(op, [], [op.value])


class _SerialShuffle(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.SubgroupShuffleOp, rewriter: PatternRewriter):
        rewriter.replace(op, [], [op.value])


class _SerialBroadcastFirst(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: taichi.SubgroupBroadcastFirstOp, rewriter: PatternRewriter
    ):
        rewriter.replace(op, [], [op.value])


class _SerialVote(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.SubgroupVoteOp, rewriter: PatternRewriter):
        if op.kind.data == "all_equal":
            rewriter.replace(op, _const(1))
            return
        value = op.value
        assert isinstance(value.type, IntegerType)
        ops: list[Operation] = []
        if value.type.width.data != 1:
            zero = arith.ConstantOp(IntegerAttr(0, value.type))
            test = arith.CmpiOp(value, zero, "ne")
            ops += [zero, test]
            value = test.result
        ops.append(arith.ExtUIOp(value, i32))
        rewriter.replace(op, ops)


class _SerialId(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.SimtIdOp, rewriter: PatternRewriter):
        kind = op.kind.data
        if kind in ("thread_idx", "global_thread_idx"):
            raise PassFailedAt(
                op,
                f"ti-serial-simt: ti.simt.block.{kind}() needs a GPU arch (vulkan); "
                "CPU threads have no workgroups",
            )
        rewriter.replace(op, _const({"elect": 1, "invocation_id": 0}.get(kind, 1)))


class _SerialBarrier(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.BarrierOp, rewriter: PatternRewriter):
        scope = op.scope.data
        if scope != "subgroup":
            what = "ti.simt.grid.memfence()" if scope == "device" else (
                "ti.simt.block.mem_sync()" if op.memory_only else "ti.simt.block.sync()"
            )
            raise PassFailedAt(
                op,
                f"ti-serial-simt: {what} needs a GPU arch (vulkan); CPU threads have no "
                "workgroups",
            )
        rewriter.erase(op)


class _NoSharedArray(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.SharedArrayOp, rewriter: PatternRewriter):
        raise PassFailedAt(
            op,
            "ti-serial-simt: ti.simt.block.SharedArray needs a GPU arch (vulkan); CPU "
            "threads have no workgroups",
        )


class SerialSimtPass(ModulePass):
    """The ti.simt ops for invocations that are each a subgroup of one (CPU threads)."""

    name = "ti-serial-simt"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            TypeDispatchApplier(
                [
                    _SerialReduce(),
                    _SerialShuffle(),
                    _SerialBroadcastFirst(),
                    _SerialVote(),
                    _SerialId(),
                    _SerialBarrier(),
                    _NoSharedArray(),
                ]
            ),
            apply_recursively=False,
        ).rewrite_module(op)
