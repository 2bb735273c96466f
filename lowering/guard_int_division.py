"""
ti-guard-int-division: give integer division and remainder one defined result on every
arch, whatever the divisor.

LLVM's `sdiv`/`udiv`/`srem`/`urem` are undefined for a zero divisor (x86 traps: the
process dies of SIGFPE) and for `INT_MIN / -1`; SPIR-V's OpSDiv/OpUDiv leave them to the
driver. Taichi on Vulkan (lavapipe) gives, and so we define on cpu and vulkan alike:

    a / 0   (signed, truncating)   = 0      a / 0   (unsigned) = all ones (UINT_MAX)
    a % 0   (both)                 = a      MIN / -1 = MIN,  MIN % -1 = 0

so `a == (a / b) * b + a % b` still holds. Python's `a // 0` (the truncating quotient with
the floor correction) is then -1 for a negative `a` and 0 otherwise, and `a % 0` is `a`,
as Taichi gives on Vulkan. With `debug=True` the frontend asserts a non-zero divisor
first (a located error); this pass makes the result defined when that check is off.

A divisor that is a constant other than 0 (and, for signed ops, -1) needs no guard.

    %q = arith.divsi %a, %b : i32
    ~>
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %minus_one = arith.constant -1 : i32
    %b_zero = arith.cmpi eq, %b, %zero : i32
    %b_minus_one = arith.cmpi eq, %b, %minus_one : i32
    %unsafe = arith.ori %b_zero, %b_minus_one : i1
    %safe_b = arith.select %unsafe, %one, %b : i32
    %raw = arith.divsi %a, %safe_b : i32             // a / 1 = a when b was 0 or -1
    %neg = arith.subi %zero, %a : i32                 // MIN / -1 wraps to MIN
    %by_minus_one = arith.select %b_minus_one, %neg, %raw : i32
    %q = arith.select %b_zero, %zero, %by_minus_one : i32
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

_SIGNED = (arith.DivSIOp, arith.RemSIOp)
_Division = arith.DivSIOp | arith.RemSIOp | arith.DivUIOp | arith.RemUIOp


def _constant_divisor(op: _Division) -> int | None:
    owner = op.rhs.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _needs_guard(op: _Division) -> bool:
    divisor = _constant_divisor(op)
    if divisor is None or divisor == 0:
        return True
    # a signed division by the constant -1 (xDSL holds a signless constant as its signed
    # value: `arith.constant 4294967295 : i32` is -1)
    return isinstance(op, _SIGNED) and divisor == -1


class GuardDivision(RewritePattern):
    """A division or remainder by a divisor that may be 0 (or -1, signed) -> the
    division by a safe divisor, then selects of the defined results (see the module)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: _Division, rewriter: PatternRewriter) -> None:
        if not isinstance(op.lhs.type, IntegerType):
            return  # index arithmetic: shapes and extents, never zero
        if op.attributes.get("ti.guarded") is not None or not _needs_guard(op):
            return
        a, b, t = op.lhs, op.rhs, op.lhs.type
        ops: list[Operation] = []

        def emit(new: Operation) -> SSAValue:
            new.location = op.location
            ops.append(new)
            return new.results[0]

        zero = emit(arith.ConstantOp(IntegerAttr(0, t)))
        one = emit(arith.ConstantOp(IntegerAttr(1, t)))
        b_zero = emit(arith.CmpiOp(b, zero, "eq"))
        signed = isinstance(op, _SIGNED)
        if signed:
            minus_one = emit(arith.ConstantOp(IntegerAttr(-1, t)))
            b_minus_one = emit(arith.CmpiOp(b, minus_one, "eq"))
            unsafe = emit(arith.OrIOp(b_zero, b_minus_one))
        else:
            b_minus_one, unsafe = None, b_zero
        safe_b = emit(arith.SelectOp(unsafe, one, b))
        raw_op = type(op)(a, safe_b)
        raw_op.attributes["ti.guarded"] = UnitAttr()  # do not guard it again
        raw = emit(raw_op)
        if isinstance(op, arith.DivSIOp):
            assert b_minus_one is not None
            negated = emit(arith.SubiOp(zero, a))
            raw = emit(arith.SelectOp(b_minus_one, negated, raw))
            result = emit(arith.SelectOp(b_zero, zero, raw))
        elif isinstance(op, arith.DivUIOp):
            all_ones = emit(arith.ConstantOp(IntegerAttr(-1, t)))
            result = emit(arith.SelectOp(b_zero, all_ones, raw))
        else:  # a remainder: a % 1 = 0 covers b == -1; a % 0 = a
            result = emit(arith.SelectOp(b_zero, a, raw))
        rewriter.replace(op, ops, [result])


class GuardIntDivisionPass(ModulePass):
    """Define integer division and remainder by 0 (and MIN / -1) on every arch."""

    name = "ti-guard-int-division"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GuardDivision(), apply_recursively=False).rewrite_module(op)
