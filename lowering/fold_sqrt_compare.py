"""
ti-fold-sqrt-compare: compare a square root with a constant by comparing its operand with
a threshold, when the operand cannot be negative. Exact: the result is the same for every
input, in IEEE arithmetic and under fast math alike.

`v.norm() < r` is the commonest test of Taichi programs (a particle in a radius, an
escape-time fractal's `while z.norm() < 20`). A correctly rounded square root is
monotonic, so for x >= 0

    fl(sqrt(x)) < C   <=>   x < T,   T = the smallest float x with fl(sqrt(x)) >= C

(T is not C*C: for f32, fl(sqrt(399.99997)) is 20, so `sqrt(x) < 20` needs
`x < 399.99997`). NaN and +inf compare the same way on both sides, so an operand that is
non-negative or NaN (a square `a*a`, a sum or product of such, an `absf`, a `sqrt`) is
enough; a plain argument is left alone (sqrt(-1) < 20 is false, -1 < 400 is true).
Julia's loop then waits for a multiply-add, not a 14-cycle `vsqrtss`, before its exit
branch (docs/cpu-speed/julia.md).

    %sq0 = arith.mulf %x, %x : f32
    %sq1 = arith.mulf %y, %y : f32
    %n2 = arith.addf %sq0, %sq1 : f32
    %n = math.sqrt %n2 : f32                       %t = arith.constant 399.99997 : f32
    %c = arith.constant 2.000000e+01 : f32   ~>    %in = arith.cmpf olt, %n2, %t : f32
    %in = arith.cmpf olt, %n, %c : f32

`<=` and `>` use the smallest x whose root exceeds C (`sqrt(x) <= C` is `x < T'`,
`sqrt(x) > C` is `x >= T'`); `>=` is `x >= T`; unordered predicates keep their NaN
answer the same way. A constant on the left is swapped to the right first. Equality, a
non-positive or non-finite C, or a C whose square overflows the type are left alone; the
square root goes when the compare was its last use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float32Type, Float64Type, FloatAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

_NUMPY_TYPES = {Float32Type: np.float32, Float64Type: np.float64}

_PREDICATES = arith.CMPF_COMPARISON_OPERATIONS
_SWAPPED = {"olt": "ogt", "ole": "oge", "ogt": "olt", "oge": "ole",
            "ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule"}  # fmt: skip
_FOLDED = {
    # predicate on sqrt(x) vs C -> (predicate on x vs threshold, the root must exceed C)
    "olt": ("olt", False), "oge": ("oge", False), "ult": ("ult", False),
    "uge": ("uge", False), "ole": ("olt", True), "ogt": ("oge", True),
    "ule": ("ult", True), "ugt": ("uge", True),
}  # fmt: skip
_MAX_DEPTH = 8


def _non_negative_or_nan(value: SSAValue, depth: int = 0) -> bool:
    """Whether `value` is >= 0 (-0 included), +inf or NaN whatever the inputs."""
    op = value.owner
    if depth > _MAX_DEPTH:
        return False
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, FloatAttr):
        return not op.value.value.data < 0
    if isinstance(op, (math.SqrtOp, math.AbsFOp, math.ExpOp)):
        return True
    if isinstance(op, arith.MulfOp) and op.lhs == op.rhs:
        return True
    # Not a division: sqrt(-0.0) is -0.0, and 1 / -0.0 is -inf.
    if isinstance(op, (arith.MulfOp, arith.AddfOp)):
        return _non_negative_or_nan(op.lhs, depth + 1) and _non_negative_or_nan(
            op.rhs, depth + 1
        )
    return False


def root_threshold(bound: float, dtype: type[np.floating], exceed: bool) -> float | None:
    """
    The smallest `dtype` x >= 0 whose rounded square root is >= `bound` (> `bound` when
    `exceed`); None where that is not a finite number.

        >>> float(root_threshold(20.0, np.float32, False))
        399.9999694824219
    """
    c = dtype(bound)
    reaches = (lambda root: root > c) if exceed else (lambda root: root >= c)
    with np.errstate(over="ignore"):
        x = c * c
    if not np.isfinite(x):
        return None
    zero, inf = dtype(0), dtype(np.inf)
    while x > zero and reaches(np.sqrt(np.nextafter(x, zero))):
        x = np.nextafter(x, zero)
    while not reaches(np.sqrt(x)):
        x = np.nextafter(x, inf)
        if not np.isfinite(x):
            return None
    return float(x)


class CompareSquareInsteadOfRoot(RewritePattern):
    """`sqrt(x) <op> C` -> `x <op'> T` (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpfOp, rewriter: PatternRewriter) -> None:
        predicate = _name_of(op.predicate.value.data)
        root, bound = op.lhs.owner, op.rhs.owner
        if isinstance(bound, math.SqrtOp) and predicate in _SWAPPED:
            root, bound, predicate = bound, root, _SWAPPED[predicate]
        if predicate not in _FOLDED or not isinstance(root, math.SqrtOp):
            return  # equality, or no square root compared
        if not (isinstance(bound, arith.ConstantOp) and isinstance(bound.value, FloatAttr)):
            return  # a bound known only at run time
        dtype = _NUMPY_TYPES.get(type(root.result.type))
        c = bound.value.value.data
        if dtype is None or not (0 < c < float("inf")):
            return  # f16, or a bound no root of a non-negative number is below
        if not _non_negative_or_nan(root.operand):
            return  # sqrt of a negative number is NaN: x < T would answer otherwise
        folded, exceed = _FOLDED[predicate]
        threshold = root_threshold(c, dtype, exceed)
        if threshold is None:
            return
        constant = arith.ConstantOp(FloatAttr(threshold, root.result.type))
        compare = arith.CmpfOp(root.operand, constant.result, folded, op.fastmath)
        constant.location = compare.location = op.location
        rewriter.replace(op, [constant, compare])
        if not root.result.uses:
            rewriter.erase(root)


def _name_of(predicate: int) -> str:
    return _PREDICATES[predicate]


@dataclass(frozen=True)
class FoldSqrtComparePass(ModulePass):
    """Compare a square root's operand with a threshold instead of the root with C."""

    name = "ti-fold-sqrt-compare"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(CompareSquareInsteadOfRoot()).rewrite_module(op)
