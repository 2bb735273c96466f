"""
ti-fast-reciprocal: float divisions become multiplications by a reciprocal, as fast math
allows (LLVM's `arcp`, what Taichi's CUDA backend gets from its fast-math flags). The
SPIR-V path runs it: a driver must keep OpFDiv within 2.5 ULP of the quotient, so each
division is a reciprocal plus correction steps on NVIDIA, where one reciprocal shared by
several divisions and plain multiplications will do. The CPU path leaves this to LLVM
(its `fast` flags). Not run under `ti.init(fast_math=False)`.

Three rewrites, on f32 and f64 scalars:

- a divisor that is a square root only divided by: `x / sqrt(y)` -> `x * rsqrt(y)`;
- a divisor `y * sqrt(y)` (y to the 3/2: gravity, Coulomb forces) only divided by, whose
  square root serves nothing else: `x / (y * sqrt(y))` -> `x * (rsqrt(y)^2 * rsqrt(y))`,
  one reciprocal square root and two multiplications where there were a square root, a
  multiplication and a reciprocal (each a special-function op on NVIDIA, in a chain);
- a divisor that two or more divisions of one block share: one `1 / y` there, and each
  division a multiplication by it (n-body: `d / (r2 * sqrt(r2))` for three components).

    %s = math.sqrt %y : f32                    %r = math.rsqrt %y : f32
    %a = arith.divf %x, %s : f32         ~>    %a = arith.mulf %x, %r : f32

    %a = arith.divf %x0, %d : f32              %one = arith.constant 1.0 : f32
    %b = arith.divf %x1, %d : f32        ~>    %r = arith.divf %one, %d : f32
                                               %a = arith.mulf %x0, %r : f32
                                               %b = arith.mulf %x1, %r : f32

    %s = math.sqrt %y : f32                    %r = math.rsqrt %y : f32
    %t = arith.mulf %y, %s : f32         ~>    %q = arith.mulf %r, %r : f32
    %a = arith.divf %x, %t : f32               %c = arith.mulf %q, %r : f32
                                               %a = arith.mulf %x, %c : f32

A division whose quotient differs from the product by a rounding (about 1 ULP) is the
price, as under Taichi's fast math (the cube: a few ULP, rsqrt's error tripled).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float32Type, Float64Type, FloatAttr, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

_FLOATS = (Float32Type, Float64Type)


def _divisions_by(value: SSAValue) -> list[arith.DivfOp] | None:
    """Every use of `value` when each is the divisor of an `arith.divf`, else None."""
    users = []
    for use in value.uses:
        op = use.operation
        if not isinstance(op, arith.DivfOp) or use.index != 1:
            return None
        users.append(op)
    return users


def _multiply(division: arith.DivfOp, by: SSAValue) -> None:
    product = arith.MulfOp(division.lhs, by, division.fastmath)
    Rewriter.replace_op(division, product)


def _rsqrt_divisors(roots: list[math.SqrtOp]) -> None:
    for op in roots:
        if not isinstance(op.result.type, _FLOATS):
            continue
        divisions = _divisions_by(op.result)
        if not divisions:
            continue
        rsqrt = math.RsqrtOp(op.operand, op.fastmath)
        Rewriter.insert_op(rsqrt, InsertPoint.before(op))
        for division in divisions:
            _multiply(division, rsqrt.result)
        Rewriter.erase_op(op)


def _sqrt_factor(product: arith.MulfOp) -> math.SqrtOp | None:
    """The `sqrt(y)` of `product = y * sqrt(y)` (either order) when it has no other use."""
    for y, s in ((product.lhs, product.rhs), (product.rhs, product.lhs)):
        root = s.owner
        if isinstance(root, math.SqrtOp) and root.operand == y and root.result.has_one_use():
            return root
    return None


def _rsqrt_cubed_divisors(products: list[arith.MulfOp]) -> None:
    for op in products:
        if not isinstance(op.result.type, _FLOATS):
            continue
        root = _sqrt_factor(op)
        divisions = _divisions_by(op.result) if root is not None else None
        if root is None or not divisions:
            continue
        rsqrt = math.RsqrtOp(root.operand, root.fastmath)
        square = arith.MulfOp(rsqrt.result, rsqrt.result, op.fastmath)
        cube = arith.MulfOp(square.result, rsqrt.result, op.fastmath)
        Rewriter.insert_op([rsqrt, square, cube], InsertPoint.before(op))
        for division in divisions:
            _multiply(division, cube.result)
        Rewriter.erase_op(op)
        Rewriter.erase_op(root)


def _shared_divisors(block: Block) -> None:
    by_divisor: dict[SSAValue, list[arith.DivfOp]] = {}
    for op in block.ops:
        if isinstance(op, arith.DivfOp) and isinstance(op.result.type, _FLOATS):
            by_divisor.setdefault(op.rhs, []).append(op)
    for divisor, divisions in by_divisor.items():
        if len(divisions) < 2:
            continue
        one = arith.ConstantOp(FloatAttr(1.0, divisor.type))
        reciprocal = arith.DivfOp(one.result, divisor, divisions[0].fastmath)
        Rewriter.insert_op([one, reciprocal], InsertPoint.before(divisions[0]))
        for division in divisions:
            _multiply(division, reciprocal.result)


@dataclass(frozen=True)
class FastReciprocalPass(ModulePass):
    """Divisions as multiplications by a reciprocal (see the module docstring)."""

    name = "ti-fast-reciprocal"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # One walk finds what the three rewrites look at (three walks took two thirds of
        # the pass on an unrolled kernel). What the first rewrite changes, the second
        # would not have found anyway: it erases square roots only divided by (never a
        # factor of a candidate product, whose root has that product as its one use),
        # turns divisions into products by a new rsqrt (no square-root factor) and makes
        # no region, so the products and blocks found before it are those found after.
        roots: list[math.SqrtOp] = []
        products: list[arith.MulfOp] = []
        blocks: list[Block] = []
        for inner in op.walk():
            if type(inner) is math.SqrtOp:
                roots.append(inner)
            elif type(inner) is arith.MulfOp:
                products.append(inner)
            for region in inner.regions:
                blocks.extend(region.blocks)
        _rsqrt_divisors(roots)
        _rsqrt_cubed_divisors(products)
        for block in blocks:
            _shared_divisors(block)
