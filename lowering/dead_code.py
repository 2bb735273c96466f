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

`would_be_trivially_dead` and `is_trivially_dead` here give xDSL's answers with fewer
questions (they serve this liveness, the dead-op step of TypeDispatchApplier and so of
most of our walkers, and canonicalize): what an op's type alone decides (a terminator, a
symbol, no memory-effect trait: never dead; only NoMemoryEffect's own trait: dead once
unused) is found once a type, and an op with regions whose effects are its nested ops'
(RecursiveMemoryEffect: loops, selections, tasks) stops at the first nested effect that
is not a read or an allocation of its own, where xDSL collects the effects of every
nested op first (docs/compile-latency.md, Session 9):

    spirv.mlir.loop { ... spirv.Store "StorageBuffer" %p, %v ... }
        xDSL: the effects of every op of the loop, then "is any not a read?"
        here: stops at the store (a write): not dead
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriterListener,
    PatternRewriteWalker,
)
from xdsl.traits import (
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    NoMemoryEffect,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.transforms import dead_code_elimination as xdsl_dce
from xdsl.transforms.canonicalize import (
    CanonicalizationRewritePattern,
    CanonicalizePass as XdslCanonicalizePass,
)
from xdsl.transforms.dead_code_elimination import DeadCodeElimination, LiveSet

_NEVER = 0  # never dead, whatever the op of this type
_ONCE_UNUSED = 1  # dead as soon as its results are unused
_ASK = 2  # ask the op's effects
_XDSL = 3  # an unregistered op: ask xDSL

_BY_TYPE: dict[type[Operation], int] = {}
"""What an op type alone says of `would_be_trivially_dead`, found once a type."""


def _type_verdict(op: Operation) -> int:
    if isinstance(op, UnregisteredOp):
        return _XDSL  # its traits are not its type's
    if op.has_trait(IsTerminator) or op.has_trait(SymbolOpInterface):
        return _NEVER
    traits = op.get_traits_of_type(MemoryEffect)
    if not traits:
        return _NEVER  # unknown effects
    if all(
        type(t).get_effects.__func__ is NoMemoryEffect.get_effects.__func__  # type: ignore[attr-defined]
        for t in traits
    ):
        return _ONCE_UNUSED  # no effects at all
    return _ASK


def would_be_trivially_dead(op: Operation) -> bool:
    """xDSL's `would_be_trivially_dead` (dead once its results are unused: no
    terminator, no symbol, no effect beyond its results), the same answer, cheaper (the
    module docstring)."""
    verdict = _BY_TYPE.get(type(op))
    if verdict is None:
        verdict = _BY_TYPE[type(op)] = _type_verdict(op)
    if verdict == _ASK:
        return _only_result_effects(op, op)
    if verdict == _XDSL:
        return xdsl_dce.would_be_trivially_dead(op)
    return verdict == _ONCE_UNUSED


def is_trivially_dead(op: Operation) -> bool:
    """xDSL's `is_trivially_dead`: no use of its results, and dead once unused."""
    return all(r.first_use is None for r in op.results) and would_be_trivially_dead(op)


def _only_result_effects(root: Operation, op: Operation) -> bool:
    """Whether every memory effect of `op` (nested in `root`, or `root`) is a read or
    the allocation of a value defined in `root`, and none is unknown: xDSL's
    `result_only_effects(root)` over `get_effects`, ending at the first that is not."""
    traits = op.get_traits_of_type(MemoryEffect)
    if not traits:
        return False  # unknown effects
    for trait in traits:
        if type(trait) is RecursiveMemoryEffect:  # its effects: the nested ops'
            for region in op.regions:
                for block in region.blocks:
                    for child in block.ops:
                        if not _only_result_effects(root, child):
                            return False
            continue
        effects = trait.get_effects(op)
        if effects is None:
            return False
        for effect in effects:
            if effect.kind == MemoryEffectKind.READ:
                continue
            value = effect.value
            if (
                effect.kind == MemoryEffectKind.ALLOC
                and isinstance(value, SSAValue)
                and root.is_ancestor(value.owner)
            ):
                continue
            return False
    return True


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
        from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier

        # TypeDispatchApplier: xDSL's applier with our dead-op check (the pattern names
        # no op type, so it is tried on every op, as before).
        pattern = TypeDispatchApplier(
            [CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True
        )
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)


class DeadCodeEliminationPass(DeadCodeElimination):
    """xDSL's dce (ops with no use and no effect beyond their results, and what only
    they used) with the cheaper liveness: the same IR out."""

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        region_dce(op.body)
