"""
Bounds on xDSL passes that can run without end on some inputs. ti-opt runs these in
place of xDSL's passes of the same names (same options, and one more: the bound); past
the bound a pass stops with a located diagnostic, never silently.

- `apply-pdl` applies its patterns until none matches: forever when a rewrite makes an
  op that its pattern matches again.
- `apply-eqsat-pdl-interp` hash-conses every op of the module before its first
  iteration (xDSL's `populate_known_ops`); ops that hold regions and agree on their name,
  attributes, operands and result types all hash alike and are told apart by comparing
  their regions op by op. Nested `scf.execute_region`s 200 deep cost over 10 s (the work
  grows with the cube of the nesting), 1000 deep far longer.

The bounds count work, not time: the same input stops at the same point on every
machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.interpreters.pdl import PDLRewritePattern
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.transforms.apply_eqsat_pdl_interp import ApplyEqsatPDLInterpPass
from xdsl.transforms.apply_pdl import ApplyPDLPass

from taichi_xdsl.utils.diagnostics import PassFailedAt, PassOptionError


@contextmanager
def _wrapped(
    owner: type, name: str, wrap: Callable[[Callable], Callable]
) -> Iterator[None]:
    """`owner.name` replaced by `wrap(owner.name)` for the duration of the block."""
    original = owner.__dict__[name]
    setattr(owner, name, wrap(original))
    try:
        yield
    finally:
        setattr(owner, name, original)


@dataclass(frozen=True)
class BoundedApplyPDLPass(ApplyPDLPass):
    """
    xDSL's `apply-pdl`, stopped after `max_rewrites` rewrites. A pattern whose rewrite
    builds an op it matches again never converges:

        %x = "test.op"() : () -> i32
        pdl.pattern : benefit(1) {
          %t = pdl.type : i32
          %root = pdl.operation "test.op" -> (%t : !pdl.type)
          pdl.rewrite %root {
            %new = pdl.operation "test.op" -> (%t : !pdl.type)
            pdl.replace %root with %new
          }
        }

    -> `file:4:1: error: apply-pdl did not converge after 1000 rewrites: this pattern
    still matches ...`, at the `pdl.pattern` that made the last rewrite.
    """

    max_rewrites: int = 1000
    """Rewrites after which the pass gives up (a diagnostic): xDSL's pass has no bound."""

    def __post_init__(self) -> None:
        if self.max_rewrites < 1:
            raise PassOptionError(
                "max_rewrites",
                f"apply-pdl: max_rewrites must be >= 1, got {self.max_rewrites}",
            )

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrites = 0
        limit = self.max_rewrites

        def counted(match_and_rewrite: Callable) -> Callable:
            def counting(pattern: PDLRewritePattern, xdsl_op: Operation,
                         rewriter: PatternRewriter) -> None:
                nonlocal rewrites
                done_before = rewriter.has_done_action
                match_and_rewrite(pattern, xdsl_op, rewriter)
                if rewriter.has_done_action and not done_before:
                    rewrites += 1
                    if rewrites >= limit:
                        raise PassFailedAt(
                            pattern.pdl_rewrite_op.parent_op() or xdsl_op,
                            f"apply-pdl did not converge after {limit} rewrites: this "
                            "pattern still matches (does its rewrite build an op it "
                            "matches again?); raise max_rewrites if the input needs more",
                        )

            return counting

        with _wrapped(PDLRewritePattern, "match_and_rewrite", counted):
            super().apply(ctx, op)


@dataclass(frozen=True)
class BoundedApplyEqsatPDLInterpPass(ApplyEqsatPDLInterpPass):
    """
    xDSL's `apply-eqsat-pdl-interp`, stopped after `max_op_comparisons` comparisons of
    one op with another (xDSL's `Operation.is_structurally_equivalent`, one call per pair
    of ops compared, nested ones included). Deep nests of like ops cost a number of
    comparisons that grows with the cube of the depth:

        func.func @deep() {
          scf.execute_region {      // 200 deep: 1.3 million comparisons, over 10 s
            scf.execute_region {
              ...

    -> `file:2:3: error: apply-eqsat-pdl-interp gave up after 10000 op comparisons ...`,
    at the op being compared when the bound was reached.
    """

    max_op_comparisons: int = 10_000
    """Comparisons after which the pass gives up (a diagnostic): xDSL's has no bound."""

    def __post_init__(self) -> None:
        if self.max_op_comparisons < 1:
            raise PassOptionError(
                "max_op_comparisons",
                "apply-eqsat-pdl-interp: max_op_comparisons must be >= 1, got "
                f"{self.max_op_comparisons}",
            )

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        comparisons = 0
        limit = self.max_op_comparisons

        def counted(is_structurally_equivalent: Callable) -> Callable:
            def counting(
                this: Operation, other: object, context: dict | None = None
            ) -> bool:
                nonlocal comparisons
                comparisons += 1
                if comparisons >= limit:
                    raise PassFailedAt(
                        this,
                        f"apply-eqsat-pdl-interp gave up after {limit} op comparisons: "
                        "xDSL hash-conses the ops that hold regions by comparing their "
                        "regions op by op, which grows with the cube of their nesting; "
                        "raise max_op_comparisons if the input needs more",
                    )
                return is_structurally_equivalent(this, other, context)

            return counting

        with _wrapped(Operation, "is_structurally_equivalent", counted):
            super().apply(ctx, op)


BOUNDED_PASSES: dict[str, type] = {
    BoundedApplyPDLPass.name: BoundedApplyPDLPass,
    BoundedApplyEqsatPDLInterpPass.name: BoundedApplyEqsatPDLInterpPass,
}
"""The xDSL passes ti-opt replaces by their bounded versions, by name."""
