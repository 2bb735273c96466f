"""
convert-arith-to-llvm: arith ops -> xDSL's llvm dialect (and llvm_ext where xDSL lacks an
instruction), as MLIR's ArithToLLVM (mlir/lib/Conversion/ArithToLLVM) does.

- `index` is i64 (lowering/llvm_conversion.py casts at the boundary with unconverted ops);
- fast-math flags and integer overflow flags are kept: the pipeline is fast-math by
  default, as Taichi is, and LLVM's vectoriser needs `reassoc` to vectorise reductions;
- floordivsi / ceildivsi / ceildivui expand to division, remainder and a correction
  (MLIR's arith-expand); integer min/max and minimumf/maximumf become intrinsic calls;
- ops on types LLVM has no use for (tensors, index vectors in constants) are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from taichi_xdsl.dialects import llvm_ext
from taichi_xdsl.lowering.llvm_conversion import (
    fastmath,
    intrinsic_suffix,
    llvm_operands,
    op_fastmath,
    overflow,
    replace_with_llvm,
    to_llvm_type,
)
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier


def _is_llvm_compatible(t: Attribute) -> bool:
    """Scalars and vectors: the types this pass converts (tensors are not)."""
    return isinstance(t, IntegerType | IndexType | AnyFloat | VectorType)


def _call_intrinsic(
    name: str, args: list[SSAValue], result_type: Attribute, flags: llvm.FastMathAttr | None
) -> llvm.CallIntrinsicOp:
    call = llvm.CallIntrinsicOp(
        f"{name}.{intrinsic_suffix(result_type)}", args, [result_type]
    )
    if flags is not None and flags.data:
        call.properties["fastmathFlags"] = flags
    return call


BinaryFactory = Callable[[Operation, SSAValue, SSAValue], Operation]

_BINARY: dict[type[Operation], BinaryFactory] = {
    # Integers; overflow flags carried over where both dialects have them.
    arith.AddiOp: lambda op, a, b: llvm.AddOp(a, b, overflow=overflow(op.overflow_flags)),
    arith.SubiOp: lambda op, a, b: llvm.SubOp(a, b, overflow=overflow(op.overflow_flags)),
    arith.MuliOp: lambda op, a, b: llvm.MulOp(a, b, overflow=overflow(op.overflow_flags)),
    arith.ShLIOp: lambda op, a, b: llvm.ShlOp(a, b, overflow=overflow(op.overflow_flags)),
    arith.DivSIOp: lambda op, a, b: llvm.SDivOp(a, b),
    arith.DivUIOp: lambda op, a, b: llvm.UDivOp(a, b),
    arith.RemSIOp: lambda op, a, b: llvm.SRemOp(a, b),
    arith.RemUIOp: lambda op, a, b: llvm.URemOp(a, b),
    arith.AndIOp: lambda op, a, b: llvm.AndOp(a, b),
    arith.OrIOp: lambda op, a, b: llvm.OrOp(a, b),
    arith.XOrIOp: lambda op, a, b: llvm.XOrOp(a, b),
    arith.ShRSIOp: lambda op, a, b: llvm.AShrOp(a, b),
    arith.ShRUIOp: lambda op, a, b: llvm.LShrOp(a, b),
    arith.MinSIOp: lambda op, a, b: _call_intrinsic("llvm.smin", [a, b], a.type, None),
    arith.MaxSIOp: lambda op, a, b: _call_intrinsic("llvm.smax", [a, b], a.type, None),
    arith.MinUIOp: lambda op, a, b: _call_intrinsic("llvm.umin", [a, b], a.type, None),
    arith.MaxUIOp: lambda op, a, b: _call_intrinsic("llvm.umax", [a, b], a.type, None),
    # Floats, with their fast-math flags.
    arith.AddfOp: lambda op, a, b: llvm.FAddOp(a, b, fastmath(op.fastmath)),
    arith.SubfOp: lambda op, a, b: llvm.FSubOp(a, b, fastmath(op.fastmath)),
    arith.MulfOp: lambda op, a, b: llvm.FMulOp(a, b, fastmath(op.fastmath)),
    arith.DivfOp: lambda op, a, b: llvm.FDivOp(a, b, fastmath(op.fastmath)),
    arith.MinnumfOp: lambda op, a, b: llvm.VectorFMinOp(a, b, fastmath(op.fastmath)),
    arith.MaxnumfOp: lambda op, a, b: llvm.VectorFMaxOp(a, b, fastmath(op.fastmath)),
    arith.MinimumfOp: lambda op, a, b: _call_intrinsic(
        "llvm.minimum", [a, b], a.type, fastmath(op.fastmath)
    ),
    arith.MaximumfOp: lambda op, a, b: _call_intrinsic(
        "llvm.maximum", [a, b], a.type, fastmath(op.fastmath)
    ),
}
"""arith binary op -> the llvm op computing it from the converted operands."""

_CASTS: dict[type[Operation], Callable[[SSAValue, Attribute], Operation]] = {
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.UIToFPOp: llvm_ext.UIToFPOp,
    arith.FPToSIOp: llvm_ext.FPToSIOp,
    arith.FPToUIOp: llvm_ext.FPToUIOp,
    arith.BitcastOp: llvm.BitcastOp,
}
"""arith cast -> the llvm op of the same meaning, built as `Op(value, result_type)`."""


class BinaryLowering(RewritePattern):
    """
    One arith binary op -> one llvm op, by `_BINARY`.

        %c = arith.addf %a, %b fastmath<fast> : f32
        ~> %c = llvm.fadd %a, %b {fastmathFlags = #llvm.fastmath<fast>} : f32
    """

    op_types = tuple(_BINARY)  # for TypeDispatchApplier

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        factory = _BINARY.get(type(op))
        if factory is None or not _is_llvm_compatible(op.results[0].type):
            return
        lhs, rhs = llvm_operands(rewriter, op)
        new = factory(op, lhs, rhs)
        replace_with_llvm(rewriter, op, [new], new.results)


class CastLowering(RewritePattern):
    """
    One arith cast -> one llvm cast, by `_CASTS`.

        %f = arith.uitofp %u : i32 to f32  ~>  %f = llvm_ext.uitofp %u : i32 to f32
    """

    op_types = tuple(_CASTS)  # for TypeDispatchApplier

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        factory = _CASTS.get(type(op))
        result_type = op.results[0].type if op.results else None
        if factory is None or result_type is None or not _is_llvm_compatible(result_type):
            return
        if to_llvm_type(result_type) != result_type or any(
            to_llvm_type(o.type) != o.type for o in op.operands
        ):
            return  # an index bitcast: meaningless once index is i64
        (value,) = llvm_operands(rewriter, op)
        new = factory(value, result_type)
        replace_with_llvm(rewriter, op, [new], new.results)


class ConstantLowering(RewritePattern):
    """
    arith.constant -> llvm.mlir.constant; index constants become i64.

        %c = arith.constant 4 : index  ~>  %c = llvm.mlir.constant(4 : i64) : i64
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
        value = op.value
        result_type = to_llvm_type(op.result.type)
        if isinstance(value, IntegerAttr):
            value = IntegerAttr(value.value.data, result_type)
        elif isinstance(value, DenseIntOrFPElementsAttr):
            if result_type != op.result.type or not isinstance(result_type, VectorType):
                return  # index vectors, tensors: not LLVM values
        elif not isinstance(value, FloatAttr):
            return  # dense resources
        new = llvm.ConstantOp(value, result_type)
        replace_with_llvm(rewriter, op, [new], [new.result])


class IndexCastLowering(RewritePattern):
    """
    arith.index_cast -> sign extension or truncation to/from i64 (nothing for i64).

        %i = arith.index_cast %x : i32 to index  ~>  %i = llvm.sext %x : i32 to i64
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter) -> None:
        (value,) = llvm_operands(rewriter, op)
        target = to_llvm_type(op.result.type)
        assert isinstance(value.type, IntegerType) and isinstance(target, IntegerType)
        source_bits, target_bits = value.type.width.data, target.width.data
        if source_bits == target_bits:
            replace_with_llvm(rewriter, op, [], [value])
            return
        new = (llvm.SExtOp if source_bits < target_bits else llvm.TruncOp)(value, target)
        replace_with_llvm(rewriter, op, [new], new.results)


class CmpiLowering(RewritePattern):
    """
    arith.cmpi -> llvm.icmp (the two predicate enums have the same order).

        %p = arith.cmpi slt, %a, %b : i32  ~>  %p = llvm.icmp "slt" %a, %b : i32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter) -> None:
        if not _is_llvm_compatible(op.lhs.type):
            return
        lhs, rhs = llvm_operands(rewriter, op)
        new = llvm.ICmpOp(lhs, rhs, IntegerAttr(op.predicate.value.data, i64))
        replace_with_llvm(rewriter, op, [new], [new.res])


class CmpfLowering(RewritePattern):
    """
    arith.cmpf -> llvm.fcmp with the same predicate (the enums have the same order) and
    fast-math flags. xDSL prints llvm.fcmp's flags only from its attribute dictionary, so
    they are set there too, to survive a print and parse.

        %p = arith.cmpf olt, %a, %b fastmath<fast> : f32
        ~> %p = llvm.fcmp "olt" %a, %b {fastmathFlags = #llvm.fastmath<fast>} : f32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpfOp, rewriter: PatternRewriter) -> None:
        if not _is_llvm_compatible(op.lhs.type):
            return
        new = llvm.FCmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))
        flags = fastmath(op.fastmath)
        if flags.data:
            new.properties["fastmathFlags"] = flags
            new.attributes["fastmathFlags"] = flags
        replace_with_llvm(rewriter, op, [new], [new.res])


class SelectLowering(RewritePattern):
    """
    arith.select -> llvm.select.

        %r = arith.select %c, %a, %b : f32  ~>  %r = llvm.select %c, %a, %b : i1, f32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        if not _is_llvm_compatible(op.result.type):
            return
        cond, lhs, rhs = llvm_operands(rewriter, op)
        new = llvm.SelectOp(cond, lhs, rhs)
        replace_with_llvm(rewriter, op, [new], [new.res])


class NegfLowering(RewritePattern):
    """
    arith.negf -> llvm.fneg.

        %n = arith.negf %a : f32  ~>  %n = llvm.fneg %a : f32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.NegfOp, rewriter: PatternRewriter) -> None:
        if not _is_llvm_compatible(op.result.type):
            return
        new = llvm.FNegOp(op.operand, op_fastmath(op))
        replace_with_llvm(rewriter, op, [new], [new.res])


class RoundingDivLowering(RewritePattern):
    """
    floordivsi, ceildivsi, ceildivui -> the truncating division, corrected by one when the
    remainder is not zero and the quotient was rounded the wrong way (branch-free):

        %q = arith.floordivsi %a, %b : i32
        ~> %t = llvm.sdiv %a, %b ; %r = llvm.srem %a, %b
           %fix = (%r != 0) & ((%r < 0) != (%b < 0))
           %q = llvm.sub %t, zext(%fix)

    ceildivsi adds one when (%r != 0) & ((%r < 0) == (%b < 0)); ceildivui when %r != 0.
    """

    op_types = (arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.FloorDivSIOp | arith.CeilDivSIOp | arith.CeilDivUIOp):
            return
        t = to_llvm_type(op.results[0].type)
        if not isinstance(t, IntegerType):
            return  # vectors are not expanded
        a, b = llvm_operands(rewriter, op)
        unsigned = isinstance(op, arith.CeilDivUIOp)
        zero = llvm.ConstantOp(IntegerAttr(0, t), t)
        quotient = (llvm.UDivOp if unsigned else llvm.SDivOp)(a, b)
        remainder = (llvm.URemOp if unsigned else llvm.SRemOp)(a, b)
        inexact = llvm.ICmpOp(remainder.res, zero.result, _predicate("ne"))
        ops: list[Operation] = [zero, quotient, remainder, inexact]
        fix: Operation = inexact
        if not unsigned:
            r_negative = llvm.ICmpOp(remainder.res, zero.result, _predicate("slt"))
            b_negative = llvm.ICmpOp(b, zero.result, _predicate("slt"))
            # floor: rounded the wrong way when the signs differ; ceil: when they agree.
            wrong_way = llvm.ICmpOp(
                r_negative.res,
                b_negative.res,
                _predicate("ne" if isinstance(op, arith.FloorDivSIOp) else "eq"),
            )
            fix = llvm.AndOp(inexact.res, wrong_way.res)
            ops += [r_negative, b_negative, wrong_way, fix]
        step = llvm.ZExtOp(fix.results[0], t)
        adjust = llvm.SubOp if isinstance(op, arith.FloorDivSIOp) else llvm.AddOp
        result = adjust(quotient.res, step.res)
        replace_with_llvm(rewriter, op, [*ops, step, result], [result.res])


def _predicate(name: str) -> IntegerAttr:
    return IntegerAttr(llvm.ICmpPredicateFlag(name).to_int(), i64)


@dataclass(frozen=True)
class ConvertArithToLLVMPass(ModulePass):
    """Lower arith ops to the llvm dialect (index as i64, fast-math flags kept)."""

    name = "convert-arith-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            TypeDispatchApplier(
                [
                    ConstantLowering(),
                    BinaryLowering(),
                    CastLowering(),
                    IndexCastLowering(),
                    CmpiLowering(),
                    CmpfLowering(),
                    SelectLowering(),
                    NegfLowering(),
                    RoundingDivLowering(),
                ],
                dce_enabled=False,  # a conversion: unused values stay, for `dce` to judge
            ),
            apply_recursively=False,
        ).rewrite_module(op)
