"""
convert-math-to-llvm: math ops -> LLVM intrinsics, or libm calls where LLVM has no
intrinsic that every backend expands (tan, atan2, tanh, ...), as MLIR's MathToLLVM and
MathToLibm (mlir/lib/Conversion/MathToLLVM, MathToLibm) do between them.

- xDSL's llvm dialect has ops for some intrinsics (`llvm.intr.sqrt`, `llvm.intr.pow`, ...);
  the others are `llvm.call_intrinsic "llvm.<name>.<type>"`;
- a libm function is an `llvm.call @tanf` (f32) / `@tan` (f64) to an `llvm.func`
  declaration added to the module; f16 is computed in f32;
- fast-math flags are kept on the intrinsic or call (Taichi compiles with fast math);
- `math.rsqrt` is `1 / sqrt(x)`, which LLVM turns into `rsqrtps` + Newton under `afn`.

Ops on vectors that would need a libm call are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm, math
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    VectorType,
    f32,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from taichi_xdsl.lowering.llvm_conversion import (
    declare_function,
    intrinsic_suffix,
    llvm_operands,
    op_fastmath,
    replace_with_llvm,
)
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier

_INTRINSIC_OPS: dict[type[Operation], Callable[..., Operation]] = {
    math.SqrtOp: llvm.FSqrtOp,
    math.SinOp: llvm.FSinOp,
    math.CosOp: llvm.FCosOp,
    math.ExpOp: llvm.FExpOp,
    math.Exp2Op: llvm.FExp2Op,
    math.LogOp: llvm.FLogOp,
    math.Log2Op: llvm.FLog2Op,
    math.FloorOp: llvm.FFloorOp,
    math.CeilOp: llvm.FCeilOp,
    math.AbsFOp: lambda x, flags: llvm.FAbsOp(x, SSAValue.get(x).type, flags),
    math.PowFOp: llvm.FPowOp,
    math.CopySignOp: llvm.FCopySignOp,
    math.FmaOp: llvm.FMAOp,
}
"""math op -> xDSL's llvm intrinsic op, built as `Op(*operands, fastmath)`."""

_CALLED_INTRINSICS: dict[type[Operation], str] = {
    math.Log10Op: "llvm.log10",
    math.TruncOp: "llvm.trunc",
    math.RoundOp: "llvm.round",
    math.RoundEvenOp: "llvm.roundeven",
    math.CtPopOp: "llvm.ctpop",
}
"""math op -> an intrinsic without an op in xDSL's llvm dialect, same operands."""

_POISON_FLAG_INTRINSICS: dict[type[Operation], str] = {
    math.AbsIOp: "llvm.abs",
    math.CountLeadingZerosOp: "llvm.ctlz",
    math.CountTrailingZerosOp: "llvm.cttz",
}
"""Integer intrinsics whose second operand says whether 0 / INT_MIN gives poison: false."""

_LIBM: dict[type[Operation], str] = {
    math.TanOp: "tan",
    math.TanhOp: "tanh",
    math.Atan2Op: "atan2",
    math.AtanOp: "atan",
    math.AsinOp: "asin",
    math.AcosOp: "acos",
    math.SinhOp: "sinh",
    math.CoshOp: "cosh",
    math.AsinhOp: "asinh",
    math.AcoshOp: "acosh",
    math.AtanhOp: "atanh",
    math.ErfOp: "erf",
    math.ExpM1Op: "expm1",
    math.Log1pOp: "log1p",
    math.CbrtOp: "cbrt",
}
"""math op -> the libm function computing it in double (`tan`); `tanf` in float."""


class IntrinsicOpLowering(RewritePattern):
    """
    A math op that xDSL's llvm dialect has an intrinsic op for.

        %r = math.sqrt %x fastmath<fast> : f32
        ~> %r = llvm.intr.sqrt(%x) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        factory = _INTRINSIC_OPS.get(type(op))
        if factory is None:
            return
        new = factory(*op.operands, op_fastmath(op))
        replace_with_llvm(rewriter, op, [new], new.results)


class CalledIntrinsicLowering(RewritePattern):
    """
    A math op whose intrinsic xDSL's llvm dialect has no op for: `llvm.call_intrinsic`.

        %r = math.absi %x : i32
        ~> %false = llvm.mlir.constant(false) : i1
           %r = llvm.call_intrinsic "llvm.abs.i32"(%x, %false) : (i32, i1) -> i32
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        name = _CALLED_INTRINSICS.get(type(op)) or _POISON_FLAG_INTRINSICS.get(type(op))
        if name is None:
            return
        args = llvm_operands(rewriter, op)
        result_type = args[0].type
        new_ops: list[Operation] = []
        if type(op) in _POISON_FLAG_INTRINSICS:
            false = llvm.ConstantOp(IntegerAttr(0, i1), i1)
            new_ops.append(false)
            args.append(false.result)
        call = llvm.CallIntrinsicOp(
            f"{name}.{intrinsic_suffix(result_type)}", args, [result_type]
        )
        if (flags := op_fastmath(op)).data:
            call.properties["fastmathFlags"] = flags
        replace_with_llvm(rewriter, op, [*new_ops, call], call.results)


class FPowIOpLowering(RewritePattern):
    """
    math.fpowi -> llvm.powi, overloaded on both operand types.

        %r = math.fpowi %x, %n : f32, i32
        ~> %r = llvm.call_intrinsic "llvm.powi.f32.i32"(%x, %n) : (f32, i32) -> f32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: math.FPowIOp, rewriter: PatternRewriter) -> None:
        lhs, rhs = llvm_operands(rewriter, op)
        name = f"llvm.powi.{intrinsic_suffix(lhs.type)}.{intrinsic_suffix(rhs.type)}"
        call = llvm.CallIntrinsicOp(name, [lhs, rhs], [lhs.type])
        if (flags := op_fastmath(op)).data:
            call.properties["fastmathFlags"] = flags
        replace_with_llvm(rewriter, op, [call], call.results)


class RsqrtLowering(RewritePattern):
    """
    math.rsqrt -> 1 / sqrt(x).

        %r = math.rsqrt %x fastmath<fast> : f32
        ~> %one = llvm.mlir.constant(1.0 : f32) : f32
           %s = llvm.intr.sqrt(%x) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
           %r = llvm.fdiv %one, %s {fastmathFlags = #llvm.fastmath<fast>} : f32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: math.RsqrtOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        element = t.element_type if isinstance(t, VectorType) else t
        one_value: Attribute = FloatAttr(1.0, element)  # type: ignore[arg-type]
        if isinstance(t, VectorType):
            one_value = DenseIntOrFPElementsAttr.from_list(t, [1.0])  # type: ignore[arg-type]
        one = llvm.ConstantOp(one_value, t)
        flags = op_fastmath(op)
        sqrt = llvm.FSqrtOp(op.operand, flags)
        div = llvm.FDivOp(one.result, sqrt.res, flags)
        replace_with_llvm(rewriter, op, [one, sqrt, div], [div.res])


class LibmLowering(RewritePattern):
    """
    A math op without an LLVM intrinsic: a call to libm, declared in the module.

        %r = math.tan %x fastmath<fast> : f32
        ~> %r = llvm.call @tanf(%x) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
           (and, once per module, `llvm.func @tanf(f32) -> f32`)

    f16 is extended to f32 for the call and truncated back; vectors are not converted.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        base_name = _LIBM.get(type(op))
        t = op.results[0].type if base_name is not None else None
        if base_name is None or not isinstance(t, Float16Type | Float32Type | Float64Type):
            return
        call_type = f32 if isinstance(t, Float16Type) else t
        name = base_name if isinstance(call_type, Float64Type) else base_name + "f"
        ops: list[Operation] = []
        args = list(op.operands)
        if call_type != t:
            ops = [llvm.FPExtOp(arg, call_type) for arg in args]
            args = [ext.results[0] for ext in ops]
        declare_function(
            rewriter, op, name, llvm.LLVMFunctionType([call_type] * len(args), call_type)
        )
        call = llvm.CallOp(name, *args, return_type=call_type, fastmath=op_fastmath(op))
        ops.append(call)
        result = call.results[0]
        if call_type != t:
            ops.append(trunc := llvm.FPTruncOp(result, t))
            result = trunc.result
        replace_with_llvm(rewriter, op, ops, [result])


@dataclass(frozen=True)
class ConvertMathToLLVMPass(ModulePass):
    """Lower math ops to LLVM intrinsics and libm calls (fast-math flags kept)."""

    name = "convert-math-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            TypeDispatchApplier(
                [
                    IntrinsicOpLowering(),
                    CalledIntrinsicLowering(),
                    FPowIOpLowering(),
                    RsqrtLowering(),
                    LibmLowering(),
                ],
                dce_enabled=False,  # a conversion: unused values stay, for `dce` to judge
            ),
            apply_recursively=False,
        ).rewrite_module(op)
