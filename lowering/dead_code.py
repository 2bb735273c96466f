"""
canonicalize and dce with xDSL's dead-code step made cheaper: the same ops erased, fewer
effect queries.

xDSL's `region_dce` (canonicalize runs it after each walk, `dce` is it alone, and
ti-offload and convert-offload-to-spirv call it) sweeps every op until liveness stops
changing; for an op not yet live each sweep first asks `would_be_trivially_dead` (its
traits, then `get_effects` over its memory effects: a tenth of a small kernel's
canonicalize) and only then whether a live op uses its results. Most ops have a live
user (the sweep goes backwards, users first), so `region_dce` here asks that first and
the effects only of ops without one. An op is live when either holds, in either order,
so the live set and what is erased are xDSL's:

    %a = arith.addi %x, %y : i32        live: its user, the store, is live (no effects asked)
    %b = arith.muli %x, %y : i32        dead: no user, and no effect beyond its result
    memref.store %a, %m[] : memref<i32> live: it writes memory (effects asked)

On a cold Vulkan nbody compile `region_dce` went from 5.9% to 3.3% of the compile
(sampled profile; docs/compile-latency.md, Session 8).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriterListener,
    PatternRewriteWalker,
)
from xdsl.transforms.canonicalize import (
    CanonicalizationRewritePattern,
    CanonicalizePass as XdslCanonicalizePass,
)
from xdsl.transforms.dead_code_elimination import (
    DeadCodeElimination,
    LiveSet,
    would_be_trivially_dead,
)


class _LiveSet(LiveSet):
    """xDSL's liveness, asking for a live user before asking for effects."""

    def propagate_op_liveness(self, op: Operation) -> None:
        for region in op.regions:
            self.propagate_region_liveness(region)
        if self.is_live(op):
            return
        if any(
            self.is_live(use.operation) for result in op.results for use in result.uses
        ) or not would_be_trivially_dead(op):
            self.set_live(op)


def region_dce(region: Region, listener: PatternRewriterListener | None = None) -> bool:
    """Erase the dead ops of `region` as xDSL's `region_dce` does (the module
    docstring); True when something was erased."""
    live_set = _LiveSet()
    while live_set.changed:
        live_set.changed = False
        live_set.propagate_region_liveness(region)
    live_set.delete_dead(region, listener)
    return live_set.changed


class CanonicalizePass(XdslCanonicalizePass):
    """xDSL's canonicalize (each op's canonicalization patterns and folds, then dead
    code after each walk) with the cheaper dead-code step: the same IR out."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier(
            [CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True
        )
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)


class DeadCodeEliminationPass(DeadCodeElimination):
    """xDSL's dce (ops with no use and no effect beyond their results, and what only
    they used) with the cheaper liveness: the same IR out."""

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        region_dce(op.body)
