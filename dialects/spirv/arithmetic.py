"""
Arithmetic, bitwise, logical, comparison and conversion ops of the `spirv` dialect.

Each takes scalars or vectors (`vector<4xf32>`); the type after `:` is the operands'.
Comparisons and the logical ops produce i1 (or a vector of i1 of the same length).

    %s = spirv.IAdd %a, %b : i32
    %f = spirv.FMul %x, %y : vector<4xf32>
    %n = spirv.ShiftLeftLogical %a, %sh : i32, i32
    %lt = spirv.SLessThan %a, %b : i32
    %r = spirv.Select %lt, %x, %y : i1, f32
    %i = spirv.ConvertFToS %x : f32 to i32
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.op_init import init_op
from taichi_xdsl.dialects.spirv.attributes import (
    PointerType,
    element_type,
    is_bool_type,
    is_scalar_type,
    is_vector_type,
)
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

# ---------------------------------------------------------------------------------------
# Type classes
# ---------------------------------------------------------------------------------------


def _is_int(type_: Attribute) -> bool:
    scalar = element_type(type_)
    return (
        (is_scalar_type(type_) or is_vector_type(type_))
        and isinstance(scalar, IntegerType)
        and scalar.width.data != 1
    )


def _is_float(type_: Attribute) -> bool:
    return (is_scalar_type(type_) or is_vector_type(type_)) and isinstance(
        element_type(type_), Float16Type | Float32Type | Float64Type
    )


def _is_bool(type_: Attribute) -> bool:
    return (is_scalar_type(type_) or is_vector_type(type_)) and is_bool_type(
        element_type(type_)
    )


_KINDS = {
    "integer": _is_int,
    "float": _is_float,
    "bool": _is_bool,
    "number": lambda type_: _is_int(type_) or _is_float(type_),
}


def check_kind(op: Operation, type_: Attribute, kind: str, what: str = "operands") -> None:
    """Raise unless `type_` is a scalar or vector of `kind` (integer, float, bool, number)."""
    if not _KINDS[kind](type_):
        raise VerifyException(
            f"'{op.name}' expects {kind} or vector of {kind} {what}, got {type_}"
        )


def bool_like(type_: Attribute) -> Attribute:
    """i1, or a vector of i1 as long as `type_`."""
    if isinstance(type_, VectorType):
        return VectorType(i1, type_.get_shape())
    return i1


def bit_width(type_: Attribute) -> int:
    scalar = element_type(type_)
    width = scalar.width.data if isinstance(scalar, IntegerType) else scalar.bitwidth  # type: ignore[union-attr]
    count = type_.get_shape()[0] if isinstance(type_, VectorType) else 1
    return width * count


def _same_shape(a: Attribute, b: Attribute) -> bool:
    if isinstance(a, VectorType) != isinstance(b, VectorType):
        return False
    return not isinstance(a, VectorType) or a.get_shape() == b.get_shape()  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------
# Abstract op shapes
# ---------------------------------------------------------------------------------------


class BinaryOp(IRDLOperation, ABC):
    """`%r = spirv.X %a, %b : T`, all three of type T."""

    OPERAND_KIND: ClassVar[str]
    T: ClassVar = VarConstraint("T", AnyAttr())

    operand1 = operand_def(T)
    operand2 = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$operand1 `,` $operand2 attr-dict `:` type($result)"

    def __init__(self, operand1: SSAValue | Operation, operand2: SSAValue | Operation):
        init_op(
            self,
            operands=[operand1, operand2], result_types=[SSAValue.get(operand1).type]
        )

    def verify_(self) -> None:
        check_kind(self, self.result.type, self.OPERAND_KIND)


class UnaryOp(IRDLOperation, ABC):
    """`%r = spirv.X %a : T`, both of type T."""

    OPERAND_KIND: ClassVar[str]
    T: ClassVar = VarConstraint("T", AnyAttr())

    operand = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$operand attr-dict `:` type($operand)"

    def __init__(self, operand: SSAValue | Operation):
        init_op(self, operands=[operand], result_types=[SSAValue.get(operand).type])

    def verify_(self) -> None:
        check_kind(self, self.result.type, self.OPERAND_KIND)


class CompareOp(IRDLOperation, ABC):
    """`%r = spirv.X %a, %b : T`: a and b of type T, r an i1 (vector) of T's length."""

    OPERAND_KIND: ClassVar[str]
    T: ClassVar = VarConstraint("T", AnyAttr())

    operand1 = operand_def(T)
    operand2 = operand_def(T)
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, operand1: SSAValue | Operation, operand2: SSAValue | Operation):
        init_op(
            self,
            operands=[operand1, operand2],
            result_types=[bool_like(SSAValue.get(operand1).type)],
        )

    def verify_(self) -> None:
        check_kind(self, self.operand1.type, self.OPERAND_KIND)
        expected = bool_like(self.operand1.type)
        if self.result.type != expected:
            raise VerifyException(
                f"'{self.name}' result must be {expected}, got {self.result.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand1)
        printer.print_string(", ")
        printer.print_operand(self.operand2)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operand1.type)

    @classmethod
    def parse(cls, parser: Parser):
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        op = cls(parser.resolve_operand(lhs, type_), parser.resolve_operand(rhs, type_))
        op.attributes.update(attributes)
        return op


class UnaryPredicateOp(IRDLOperation, ABC):
    """`%r = spirv.X %a : T`: r an i1 (vector) of T's length."""

    OPERAND_KIND: ClassVar[str]

    operand = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, operand: SSAValue | Operation):
        init_op(
            self,
            operands=[operand], result_types=[bool_like(SSAValue.get(operand).type)]
        )

    def verify_(self) -> None:
        check_kind(self, self.operand.type, self.OPERAND_KIND)
        if self.result.type != bool_like(self.operand.type):
            raise VerifyException(
                f"'{self.name}' result must be {bool_like(self.operand.type)}, got "
                f"{self.result.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)

    @classmethod
    def parse(cls, parser: Parser):
        operand = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(parser.resolve_operand(operand, parser.parse_type()))
        op.attributes.update(attributes)
        return op


class ShiftOp(IRDLOperation, ABC):
    """`%r = spirv.X %base, %shift : T, S`: r of type T; S may have another width."""

    T: ClassVar = VarConstraint("T", AnyAttr())

    base = operand_def(T)
    shift = operand_def()
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$base `,` $shift attr-dict `:` type($base) `,` type($shift)"

    def __init__(self, base: SSAValue | Operation, shift: SSAValue | Operation):
        init_op(self, operands=[base, shift], result_types=[SSAValue.get(base).type])

    def verify_(self) -> None:
        check_kind(self, self.base.type, "integer", "base")
        check_kind(self, self.shift.type, "integer", "shift")
        if not _same_shape(self.base.type, self.shift.type):
            raise VerifyException(
                f"'{self.name}' base and shift must have the same number of components"
            )


class ConversionOp(IRDLOperation, ABC):
    """`%r = spirv.X %a : T to U`."""

    FROM_KIND: ClassVar[str]
    TO_KIND: ClassVar[str]
    SAME_WIDTH_ALLOWED: ClassVar[bool] = True

    operand = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "$operand attr-dict `:` type($operand) `to` type($result)"

    def __init__(self, operand: SSAValue | Operation, result_type: Attribute):
        init_op(self, operands=[operand], result_types=[result_type])

    def verify_(self) -> None:
        check_kind(self, self.operand.type, self.FROM_KIND, "operand")
        check_kind(self, self.result.type, self.TO_KIND, "result")
        if not _same_shape(self.operand.type, self.result.type):
            raise VerifyException(
                f"'{self.name}' operand and result must have the same number of components"
            )
        if not self.SAME_WIDTH_ALLOWED and bit_width(self.operand.type) == bit_width(
            self.result.type
        ):
            raise VerifyException(
                f"'{self.name}' expects different bit widths for operand type and result "
                f"type, got {self.operand.type} to {self.result.type}"
            )


class CommutativeBinaryOp(BinaryOp, ABC):
    """A BinaryOp whose operands can be swapped."""

    traits = traits_def(Pure(), Commutative())


# ---------------------------------------------------------------------------------------
# Arithmetic, bitwise and logical binary ops
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class IAddOp(CommutativeBinaryOp):
    """Integer a + b (wraps). Example: `%r = spirv.IAdd %a, %b : i32`"""

    name = "spirv.IAdd"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class ISubOp(BinaryOp):
    """Integer a - b (wraps). Example: `%r = spirv.ISub %a, %b : i32`"""

    name = "spirv.ISub"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class IMulOp(CommutativeBinaryOp):
    """Integer a * b (wraps). Example: `%r = spirv.IMul %a, %b : i32`"""

    name = "spirv.IMul"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SDivOp(BinaryOp):
    """Signed a / b, rounding toward zero. Example: `%r = spirv.SDiv %a, %b : i32`"""

    name = "spirv.SDiv"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class UDivOp(BinaryOp):
    """Unsigned a / b. Example: `%r = spirv.UDiv %a, %b : i32`"""

    name = "spirv.UDiv"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SModOp(BinaryOp):
    """Signed remainder taking the sign of b (Python's `%`). Example: `%r = spirv.SMod %a, %b : i32`"""

    name = "spirv.SMod"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SRemOp(BinaryOp):
    """Signed remainder taking the sign of a (C's `%`). Example: `%r = spirv.SRem %a, %b : i32`"""

    name = "spirv.SRem"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class UModOp(BinaryOp):
    """Unsigned remainder. Example: `%r = spirv.UMod %a, %b : i32`"""

    name = "spirv.UMod"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class FAddOp(CommutativeBinaryOp):
    """Float a + b. Example: `%r = spirv.FAdd %a, %b : f32`"""

    name = "spirv.FAdd"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FSubOp(BinaryOp):
    """Float a - b. Example: `%r = spirv.FSub %a, %b : f32`"""

    name = "spirv.FSub"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FMulOp(CommutativeBinaryOp):
    """Float a * b. Example: `%r = spirv.FMul %a, %b : f32`"""

    name = "spirv.FMul"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FDivOp(BinaryOp):
    """Float a / b. Example: `%r = spirv.FDiv %a, %b : f32`"""

    name = "spirv.FDiv"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FRemOp(BinaryOp):
    """Float remainder taking the sign of a (C's `fmod`). Example: `%r = spirv.FRem %a, %b : f32`"""

    name = "spirv.FRem"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FModOp(BinaryOp):
    """Float remainder taking the sign of b (Python's `%`). Example: `%r = spirv.FMod %a, %b : f32`"""

    name = "spirv.FMod"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class BitwiseAndOp(CommutativeBinaryOp):
    """Bitwise a & b. Example: `%r = spirv.BitwiseAnd %a, %b : i32`"""

    name = "spirv.BitwiseAnd"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class BitwiseOrOp(CommutativeBinaryOp):
    """Bitwise a | b. Example: `%r = spirv.BitwiseOr %a, %b : i32`"""

    name = "spirv.BitwiseOr"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class BitwiseXorOp(CommutativeBinaryOp):
    """Bitwise a ^ b. Example: `%r = spirv.BitwiseXor %a, %b : i32`"""

    name = "spirv.BitwiseXor"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class LogicalAndOp(CommutativeBinaryOp):
    """Logical a and b. Example: `%r = spirv.LogicalAnd %a, %b : i1`"""

    name = "spirv.LogicalAnd"
    OPERAND_KIND: ClassVar[str] = "bool"


@irdl_op_definition
class LogicalOrOp(CommutativeBinaryOp):
    """Logical a or b. Example: `%r = spirv.LogicalOr %a, %b : i1`"""

    name = "spirv.LogicalOr"
    OPERAND_KIND: ClassVar[str] = "bool"


@irdl_op_definition
class LogicalEqualOp(CommutativeBinaryOp):
    """Logical a == b. Example: `%r = spirv.LogicalEqual %a, %b : i1`"""

    name = "spirv.LogicalEqual"
    OPERAND_KIND: ClassVar[str] = "bool"


@irdl_op_definition
class LogicalNotEqualOp(CommutativeBinaryOp):
    """Logical a != b. Example: `%r = spirv.LogicalNotEqual %a, %b : i1`"""

    name = "spirv.LogicalNotEqual"
    OPERAND_KIND: ClassVar[str] = "bool"


@irdl_op_definition
class FNegateOp(UnaryOp):
    """Float -a. Example: `%r = spirv.FNegate %a : f32`"""

    name = "spirv.FNegate"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class SNegateOp(UnaryOp):
    """Integer -a (wraps). Example: `%r = spirv.SNegate %a : i32`"""

    name = "spirv.SNegate"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class NotOp(UnaryOp):
    """Bitwise ~a. Example: `%r = spirv.Not %a : i32`"""

    name = "spirv.Not"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class LogicalNotOp(UnaryOp):
    """Logical not a. Example: `%r = spirv.LogicalNot %a : i1`"""

    name = "spirv.LogicalNot"
    OPERAND_KIND: ClassVar[str] = "bool"


# Shifts


@irdl_op_definition
class ShiftLeftLogicalOp(ShiftOp):
    """base << shift. Example: `%r = spirv.ShiftLeftLogical %a, %s : i32, i32`"""

    name = "spirv.ShiftLeftLogical"


@irdl_op_definition
class ShiftRightArithmeticOp(ShiftOp):
    """base >> shift, filling with the sign bit.

    Example: `%r = spirv.ShiftRightArithmetic %a, %s : i32, i32`
    """

    name = "spirv.ShiftRightArithmetic"


@irdl_op_definition
class ShiftRightLogicalOp(ShiftOp):
    """base >> shift, filling with zeros.

    Example: `%r = spirv.ShiftRightLogical %a, %s : i32, i32`
    """

    name = "spirv.ShiftRightLogical"


@irdl_op_definition
class BitFieldSExtractOp(IRDLOperation):
    """
    The `count` bits of base from bit `offset`, sign-extended to base's width (count 0
    gives 0). Vulkan takes 32-bit bases only.

    Example: `%r = spirv.BitFieldSExtract %a, %offset, %count : i32, i32, i32`
    """

    name = "spirv.BitFieldSExtract"

    T: ClassVar = VarConstraint("T", AnyAttr())

    base = operand_def(T)
    offset = operand_def()
    count = operand_def()
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = (
        "$base `,` $offset `,` $count attr-dict `:` type($base) `,` type($offset) `,` "
        "type($count)"
    )

    def __init__(
        self,
        base: SSAValue | Operation,
        offset: SSAValue | Operation,
        count: SSAValue | Operation,
    ):
        super().__init__(
            operands=[base, offset, count], result_types=[SSAValue.get(base).type]
        )

    def verify_(self) -> None:
        check_kind(self, self.base.type, "integer", "base")
        for operand, role in ((self.offset, "offset"), (self.count, "count")):
            if not isinstance(operand.type, IntegerType) or is_bool_type(operand.type):
                raise VerifyException(
                    f"'{self.name}' {role} must be an integer scalar, got {operand.type}"
                )


# ---------------------------------------------------------------------------------------
# Comparisons
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class IEqualOp(CompareOp):
    """Integer a == b. Example: `%r = spirv.IEqual %a, %b : i32`"""

    name = "spirv.IEqual"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class INotEqualOp(CompareOp):
    """Integer a != b. Example: `%r = spirv.INotEqual %a, %b : i32`"""

    name = "spirv.INotEqual"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SGreaterThanOp(CompareOp):
    """Signed a > b. Example: `%r = spirv.SGreaterThan %a, %b : i32`"""

    name = "spirv.SGreaterThan"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SGreaterThanEqualOp(CompareOp):
    """Signed a >= b. Example: `%r = spirv.SGreaterThanEqual %a, %b : i32`"""

    name = "spirv.SGreaterThanEqual"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SLessThanOp(CompareOp):
    """Signed a < b. Example: `%r = spirv.SLessThan %a, %b : i32`"""

    name = "spirv.SLessThan"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class SLessThanEqualOp(CompareOp):
    """Signed a <= b. Example: `%r = spirv.SLessThanEqual %a, %b : i32`"""

    name = "spirv.SLessThanEqual"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class UGreaterThanOp(CompareOp):
    """Unsigned a > b. Example: `%r = spirv.UGreaterThan %a, %b : i32`"""

    name = "spirv.UGreaterThan"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class UGreaterThanEqualOp(CompareOp):
    """Unsigned a >= b. Example: `%r = spirv.UGreaterThanEqual %a, %b : i32`"""

    name = "spirv.UGreaterThanEqual"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class ULessThanOp(CompareOp):
    """Unsigned a < b. Example: `%r = spirv.ULessThan %a, %b : i32`"""

    name = "spirv.ULessThan"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class ULessThanEqualOp(CompareOp):
    """Unsigned a <= b. Example: `%r = spirv.ULessThanEqual %a, %b : i32`"""

    name = "spirv.ULessThanEqual"
    OPERAND_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class FOrdEqualOp(CompareOp):
    """Ordered a == b (false if either is NaN). Example: `%r = spirv.FOrdEqual %a, %b : f32`"""

    name = "spirv.FOrdEqual"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FOrdNotEqualOp(CompareOp):
    """Ordered a != b (false if either is NaN). Example: `%r = spirv.FOrdNotEqual %a, %b : f32`"""

    name = "spirv.FOrdNotEqual"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FOrdLessThanOp(CompareOp):
    """Ordered a < b. Example: `%r = spirv.FOrdLessThan %a, %b : f32`"""

    name = "spirv.FOrdLessThan"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FOrdLessThanEqualOp(CompareOp):
    """Ordered a <= b. Example: `%r = spirv.FOrdLessThanEqual %a, %b : f32`"""

    name = "spirv.FOrdLessThanEqual"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FOrdGreaterThanOp(CompareOp):
    """Ordered a > b. Example: `%r = spirv.FOrdGreaterThan %a, %b : f32`"""

    name = "spirv.FOrdGreaterThan"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FOrdGreaterThanEqualOp(CompareOp):
    """Ordered a >= b. Example: `%r = spirv.FOrdGreaterThanEqual %a, %b : f32`"""

    name = "spirv.FOrdGreaterThanEqual"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FUnordEqualOp(CompareOp):
    """Unordered a == b (true if either is NaN). Example: `%r = spirv.FUnordEqual %a, %b : f32`"""

    name = "spirv.FUnordEqual"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FUnordNotEqualOp(CompareOp):
    """Unordered a != b (true if either is NaN). Example: `%r = spirv.FUnordNotEqual %a, %b : f32`"""

    name = "spirv.FUnordNotEqual"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FUnordLessThanOp(CompareOp):
    """Unordered a < b. Example: `%r = spirv.FUnordLessThan %a, %b : f32`"""

    name = "spirv.FUnordLessThan"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FUnordLessThanEqualOp(CompareOp):
    """Unordered a <= b. Example: `%r = spirv.FUnordLessThanEqual %a, %b : f32`"""

    name = "spirv.FUnordLessThanEqual"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FUnordGreaterThanOp(CompareOp):
    """Unordered a > b. Example: `%r = spirv.FUnordGreaterThan %a, %b : f32`"""

    name = "spirv.FUnordGreaterThan"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class FUnordGreaterThanEqualOp(CompareOp):
    """Unordered a >= b. Example: `%r = spirv.FUnordGreaterThanEqual %a, %b : f32`"""

    name = "spirv.FUnordGreaterThanEqual"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class IsNanOp(UnaryPredicateOp):
    """Whether a is NaN. Example: `%r = spirv.IsNan %a : f32`"""

    name = "spirv.IsNan"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class IsInfOp(UnaryPredicateOp):
    """Whether a is infinite. Example: `%r = spirv.IsInf %a : f32`"""

    name = "spirv.IsInf"
    OPERAND_KIND: ClassVar[str] = "float"


@irdl_op_definition
class SelectOp(IRDLOperation):
    """
    `condition ? true_value : false_value`, per component when the condition is a vector.

    Example: `%r = spirv.Select %c, %a, %b : i1, f32`
    """

    name = "spirv.Select"

    T: ClassVar = VarConstraint("T", AnyAttr())

    condition = operand_def()
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = (
        "$condition `,` $true_value `,` $false_value attr-dict `:` type($condition) `,` "
        "type($result)"
    )

    def __init__(
        self,
        condition: SSAValue | Operation,
        true_value: SSAValue | Operation,
        false_value: SSAValue | Operation,
    ):
        init_op(
            self,
            operands=[condition, true_value, false_value],
            result_types=[SSAValue.get(true_value).type],
        )

    def verify_(self) -> None:
        check_kind(self, self.condition.type, "bool", "condition")
        result_type = self.result.type
        if isinstance(self.condition.type, VectorType):
            if not isinstance(result_type, VectorType):
                raise VerifyException(
                    "result expected to be of vector type when condition is of vector type"
                )
            if not _same_shape(self.condition.type, result_type):
                raise VerifyException(
                    "result should have the same number of elements as the condition when "
                    "condition is of vector type"
                )
        if not (
            is_scalar_type(result_type)
            or is_vector_type(result_type)
            or isinstance(result_type, PointerType)
        ):
            raise VerifyException(
                f"'{self.name}' expects scalar, vector or pointer values, got {result_type}"
            )


# ---------------------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class ConvertFToSOp(ConversionOp):
    """Float to signed integer, rounding toward zero. Example: `%r = spirv.ConvertFToS %a : f32 to i32`"""

    name = "spirv.ConvertFToS"
    FROM_KIND: ClassVar[str] = "float"
    TO_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class ConvertFToUOp(ConversionOp):
    """Float to unsigned integer, rounding toward zero. Example: `%r = spirv.ConvertFToU %a : f32 to i32`"""

    name = "spirv.ConvertFToU"
    FROM_KIND: ClassVar[str] = "float"
    TO_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class ConvertSToFOp(ConversionOp):
    """Signed integer to float. Example: `%r = spirv.ConvertSToF %a : i32 to f32`"""

    name = "spirv.ConvertSToF"
    FROM_KIND: ClassVar[str] = "integer"
    TO_KIND: ClassVar[str] = "float"


@irdl_op_definition
class ConvertUToFOp(ConversionOp):
    """Unsigned integer to float. Example: `%r = spirv.ConvertUToF %a : i32 to f32`"""

    name = "spirv.ConvertUToF"
    FROM_KIND: ClassVar[str] = "integer"
    TO_KIND: ClassVar[str] = "float"


@irdl_op_definition
class SConvertOp(ConversionOp):
    """Sign-extend or truncate an integer. Example: `%r = spirv.SConvert %a : i32 to i64`"""

    name = "spirv.SConvert"
    FROM_KIND: ClassVar[str] = "integer"
    TO_KIND: ClassVar[str] = "integer"
    SAME_WIDTH_ALLOWED: ClassVar[bool] = False


@irdl_op_definition
class UConvertOp(ConversionOp):
    """Zero-extend or truncate an integer. Example: `%r = spirv.UConvert %a : i32 to i64`"""

    name = "spirv.UConvert"
    FROM_KIND: ClassVar[str] = "integer"
    TO_KIND: ClassVar[str] = "integer"
    SAME_WIDTH_ALLOWED: ClassVar[bool] = False


@irdl_op_definition
class FConvertOp(ConversionOp):
    """Convert a float to another width. Example: `%r = spirv.FConvert %a : f32 to f64`"""

    name = "spirv.FConvert"
    FROM_KIND: ClassVar[str] = "float"
    TO_KIND: ClassVar[str] = "float"
    SAME_WIDTH_ALLOWED: ClassVar[bool] = False


@irdl_op_definition
class BitcastOp(IRDLOperation):
    """
    Reinterpret the bits of a scalar, vector or pointer as another type of the same total
    width (a float's bit pattern as an integer, for a compare-and-swap loop).

    Example: `%r = spirv.Bitcast %a : f32 to i32`
    """

    name = "spirv.Bitcast"

    operand = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "$operand attr-dict `:` type($operand) `to` type($result)"

    def __init__(self, operand: SSAValue | Operation, result_type: Attribute):
        init_op(self, operands=[operand], result_types=[result_type])

    def verify_(self) -> None:
        source, target = self.operand.type, self.result.type
        for type_ in (source, target):
            if not (is_scalar_type(type_) or is_vector_type(type_)) or _is_bool(type_):
                raise VerifyException(
                    f"'{self.name}' expects numerical scalars or vectors, got {type_}"
                )
        if bit_width(source) != bit_width(target):
            raise VerifyException(
                f"'{self.name}' operand type {source} and result type {target} must have "
                "the same bit width"
            )
