"""
GLSL.std.450 extended instructions, as MLIR's `spirv.GL.*` ops.

The serializer imports the `GLSL.std.450` instruction set once when a module uses any of
them and emits each op as `OpExtInst`.

    %r = spirv.GL.Sqrt %x : f32
    %m = spirv.GL.FMax %a, %b : vector<4xf32>
    %f = spirv.GL.Fma %a, %b, %c : f32
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.spirv.arithmetic import BinaryOp, UnaryOp, check_kind
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure


class TernaryOp(IRDLOperation, ABC):
    """`%r = spirv.GL.X %a, %b, %c : T`, all four of type T."""

    OPERAND_KIND: ClassVar[str]
    T: ClassVar = VarConstraint("T", AnyAttr())

    x = operand_def(T)
    y = operand_def(T)
    z = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "operands attr-dict `:` type($result)"

    def __init__(
        self, x: SSAValue | Operation, y: SSAValue | Operation, z: SSAValue | Operation
    ):
        super().__init__(operands=[x, y, z], result_types=[SSAValue.get(x).type])

    def verify_(self) -> None:
        check_kind(self, self.result.type, self.OPERAND_KIND)


@irdl_op_definition
class SqrtOp(UnaryOp):
    """Square root. Example: `%r = spirv.GL.Sqrt %x : f32`"""

    name = "spirv.GL.Sqrt"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class InverseSqrtOp(UnaryOp):
    """1 / sqrt(x). Example: `%r = spirv.GL.InverseSqrt %x : f32`"""

    name = "spirv.GL.InverseSqrt"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class SinOp(UnaryOp):
    """Sine (radians). Example: `%r = spirv.GL.Sin %x : f32`"""

    name = "spirv.GL.Sin"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class CosOp(UnaryOp):
    """Cosine. Example: `%r = spirv.GL.Cos %x : f32`"""

    name = "spirv.GL.Cos"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class TanOp(UnaryOp):
    """Tangent. Example: `%r = spirv.GL.Tan %x : f32`"""

    name = "spirv.GL.Tan"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class AsinOp(UnaryOp):
    """Arc sine. Example: `%r = spirv.GL.Asin %x : f32`"""

    name = "spirv.GL.Asin"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class AcosOp(UnaryOp):
    """Arc cosine. Example: `%r = spirv.GL.Acos %x : f32`"""

    name = "spirv.GL.Acos"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class AtanOp(UnaryOp):
    """Arc tangent. Example: `%r = spirv.GL.Atan %x : f32`"""

    name = "spirv.GL.Atan"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class SinhOp(UnaryOp):
    """Hyperbolic sine. Example: `%r = spirv.GL.Sinh %x : f32`"""

    name = "spirv.GL.Sinh"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class CoshOp(UnaryOp):
    """Hyperbolic cosine. Example: `%r = spirv.GL.Cosh %x : f32`"""

    name = "spirv.GL.Cosh"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class TanhOp(UnaryOp):
    """Hyperbolic tangent. Example: `%r = spirv.GL.Tanh %x : f32`"""

    name = "spirv.GL.Tanh"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class ExpOp(UnaryOp):
    """e to the x. Example: `%r = spirv.GL.Exp %x : f32`"""

    name = "spirv.GL.Exp"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class LogOp(UnaryOp):
    """Natural logarithm. Example: `%r = spirv.GL.Log %x : f32`"""

    name = "spirv.GL.Log"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class Exp2Op(UnaryOp):
    """2 to the x. Example: `%r = spirv.GL.Exp2 %x : f32`"""

    name = "spirv.GL.Exp2"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class Log2Op(UnaryOp):
    """Base-2 logarithm. Example: `%r = spirv.GL.Log2 %x : f32`"""

    name = "spirv.GL.Log2"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FAbsOp(UnaryOp):
    """Float absolute value. Example: `%r = spirv.GL.FAbs %x : f32`"""

    name = "spirv.GL.FAbs"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FloorOp(UnaryOp):
    """Round toward negative infinity. Example: `%r = spirv.GL.Floor %x : f32`"""

    name = "spirv.GL.Floor"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class CeilOp(UnaryOp):
    """Round toward positive infinity. Example: `%r = spirv.GL.Ceil %x : f32`"""

    name = "spirv.GL.Ceil"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FSignOp(UnaryOp):
    """-1.0, 0.0 or 1.0 by the sign of x. Example: `%r = spirv.GL.FSign %x : f32`"""

    name = "spirv.GL.FSign"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class RoundOp(UnaryOp):
    """Round to nearest, halves away from zero (or to even: implementation's choice). Example: `%r = spirv.GL.Round %x : f32`"""

    name = "spirv.GL.Round"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class RoundEvenOp(UnaryOp):
    """Round to nearest, halves to even. Example: `%r = spirv.GL.RoundEven %x : f32`"""

    name = "spirv.GL.RoundEven"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class TruncOp(UnaryOp):
    """Round toward zero. Example: `%r = spirv.GL.Trunc %x : f32`"""

    name = "spirv.GL.Trunc"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FractOp(UnaryOp):
    """x - floor(x). Example: `%r = spirv.GL.Fract %x : f32`"""

    name = "spirv.GL.Fract"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class SAbsOp(UnaryOp):
    """Signed integer absolute value. Example: `%r = spirv.GL.SAbs %x : i32`"""

    name = "spirv.GL.SAbs"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SSignOp(UnaryOp):
    """-1, 0 or 1 by the sign of x. Example: `%r = spirv.GL.SSign %x : i32`"""

    name = "spirv.GL.SSign"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class PowOp(BinaryOp):
    """x to the y. Example: `%r = spirv.GL.Pow %x, %y : f32`"""

    name = "spirv.GL.Pow"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FMinOp(BinaryOp):
    """The smaller of x and y. Example: `%r = spirv.GL.FMin %x, %y : f32`"""

    name = "spirv.GL.FMin"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FMaxOp(BinaryOp):
    """The larger of x and y. Example: `%r = spirv.GL.FMax %x, %y : f32`"""

    name = "spirv.GL.FMax"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class Atan2Op(BinaryOp):
    """Arc tangent of y / x, in the quadrant of (x, y). Example: `%r = spirv.GL.Atan2 %x, %y : f32`"""

    name = "spirv.GL.Atan2"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class SMinOp(BinaryOp):
    """Signed minimum. Example: `%r = spirv.GL.SMin %x, %y : i32`"""

    name = "spirv.GL.SMin"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SMaxOp(BinaryOp):
    """Signed maximum. Example: `%r = spirv.GL.SMax %x, %y : i32`"""

    name = "spirv.GL.SMax"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class UMinOp(BinaryOp):
    """Unsigned minimum. Example: `%r = spirv.GL.UMin %x, %y : i32`"""

    name = "spirv.GL.UMin"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class UMaxOp(BinaryOp):
    """Unsigned maximum. Example: `%r = spirv.GL.UMax %x, %y : i32`"""

    name = "spirv.GL.UMax"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class FmaOp(TernaryOp):
    """a * b + c, fused. Example: `%r = spirv.GL.Fma %a, %b, %c : f32`"""

    name = "spirv.GL.Fma"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FClampOp(TernaryOp):
    """min(max(x, lo), hi). Example: `%r = spirv.GL.FClamp %a, %b, %c : f32`"""

    name = "spirv.GL.FClamp"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FMixOp(TernaryOp):
    """x * (1 - a) + y * a. Example: `%r = spirv.GL.FMix %a, %b, %c : f32`"""

    name = "spirv.GL.FMix"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class SClampOp(TernaryOp):
    """Signed min(max(x, lo), hi). Example: `%r = spirv.GL.SClamp %a, %b, %c : i32`"""

    name = "spirv.GL.SClamp"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class UClampOp(TernaryOp):
    """Unsigned min(max(x, lo), hi). Example: `%r = spirv.GL.UClamp %a, %b, %c : i32`"""

    name = "spirv.GL.UClamp"
    OPERAND_KIND: ClassVar[str] = "integer"


GL_OPS = (
    SqrtOp,
    InverseSqrtOp,
    SinOp,
    CosOp,
    TanOp,
    AsinOp,
    AcosOp,
    AtanOp,
    SinhOp,
    CoshOp,
    TanhOp,
    ExpOp,
    LogOp,
    Exp2Op,
    Log2Op,
    FAbsOp,
    FloorOp,
    CeilOp,
    FSignOp,
    RoundOp,
    RoundEvenOp,
    TruncOp,
    FractOp,
    SAbsOp,
    SSignOp,
    PowOp,
    FMinOp,
    FMaxOp,
    Atan2Op,
    SMinOp,
    SMaxOp,
    UMinOp,
    UMaxOp,
    FmaOp,
    FClampOp,
    FMixOp,
    SClampOp,
    UClampOp,
)
