"""
Subgroup operations of the `spirv` dialect (SPIR-V 1.3 non-uniform group instructions):
each combines the values of the *active* invocations of the scope, so they stay correct
where control flow diverged.

    %sum = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %v : f32 -> f32
    %sum = spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %v : i32 -> i32
    %one = spirv.GroupNonUniformElect <Subgroup> : i1
    %r = spirv.GroupNonUniformShuffleDown <Subgroup> %v, %delta : f32, i32 -> f32
    %b = spirv.GroupNonUniformAll <Subgroup> %c : i1 -> i1

`Reduce` gives every active invocation the combination of all of theirs; `Elect` is true
in exactly one active invocation (the lowest-numbered). The arithmetic ops need the
GroupNonUniformArithmetic capability, Elect GroupNonUniform, Broadcast(First)
GroupNonUniformBallot, Shuffle(Xor) GroupNonUniformShuffle, ShuffleUp/Down
GroupNonUniformShuffleRelative, All/Any/AllEqual GroupNonUniformVote.
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.spirv.arithmetic import check_kind
from taichi_xdsl.dialects.spirv.attributes import GroupOperationAttr, ScopeAttr
from xdsl.dialects.builtin import i1, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

_SCOPES = ("Workgroup", "Subgroup")


def _check_scope(op: Operation, scope: ScopeAttr) -> None:
    if scope.data not in _SCOPES:
        raise VerifyException(
            f"'{op.name}' execution scope must be 'Workgroup' or 'Subgroup', got "
            f"'{scope.data}'"
        )


class GroupNonUniformArithmeticOp(IRDLOperation, ABC):
    """`%r = spirv.X <Scope> <Operation> %value : T -> T`."""

    VALUE_KIND: ClassVar[str]

    value = operand_def()
    result = result_def()
    execution_scope = prop_def(ScopeAttr)
    group_operation = prop_def(GroupOperationAttr)

    def __init__(
        self,
        value: SSAValue | Operation,
        execution_scope: str | ScopeAttr = "Subgroup",
        group_operation: str | GroupOperationAttr = "Reduce",
    ):
        if isinstance(execution_scope, str):
            execution_scope = ScopeAttr(execution_scope)
        if isinstance(group_operation, str):
            group_operation = GroupOperationAttr(group_operation)
        super().__init__(
            operands=[value],
            result_types=[SSAValue.get(value).type],
            properties={
                "execution_scope": execution_scope,
                "group_operation": group_operation,
            },
        )

    def verify_(self) -> None:
        _check_scope(self, self.execution_scope)
        if self.result.type != self.value.type:
            raise VerifyException(
                f"'{self.name}' result type must match the value's: "
                f"{self.result.type} vs {self.value.type}"
            )
        check_kind(self, self.value.type, self.VALUE_KIND, "value")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.execution_scope.print_parameter(printer)
        printer.print_string(" ")
        self.group_operation.print_parameter(printer)
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser):
        scope = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        operation = GroupOperationAttr.new(GroupOperationAttr.parse_parameter(parser))
        value = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls.create(
            operands=[parser.resolve_operand(value, value_type)],
            result_types=[result_type],
            properties={"execution_scope": scope, "group_operation": operation},
            attributes=attributes,
        )
        return op

    traits = traits_def(Pure())


@irdl_op_definition
class GroupNonUniformFAddOp(GroupNonUniformArithmeticOp):
    """The float sum over the active invocations of the scope.

    Example: `%s = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %v : f32 -> f32`
    """

    name = "spirv.GroupNonUniformFAdd"
    VALUE_KIND: ClassVar[str] = "float"


@irdl_op_definition
class GroupNonUniformIAddOp(GroupNonUniformArithmeticOp):
    """The integer sum (wrapping) over the active invocations of the scope.

    Example: `%s = spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformIAdd"
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class GroupNonUniformElectOp(IRDLOperation):
    """True in exactly one active invocation of the scope (the lowest-numbered).

    Example: `%e = spirv.GroupNonUniformElect <Subgroup> : i1`
    """

    name = "spirv.GroupNonUniformElect"

    result = result_def(i1)
    execution_scope = prop_def(ScopeAttr)

    def __init__(self, execution_scope: str | ScopeAttr = "Subgroup"):
        if isinstance(execution_scope, str):
            execution_scope = ScopeAttr(execution_scope)
        super().__init__(
            result_types=[i1], properties={"execution_scope": execution_scope}
        )

    def verify_(self) -> None:
        _check_scope(self, self.execution_scope)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.execution_scope.print_parameter(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> GroupNonUniformElectOp:
        scope = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_type()
        op = cls(scope)
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class GroupNonUniformIMulOp(GroupNonUniformArithmeticOp):
    """The integer product (wrapping).

    Example: `%r = spirv.GroupNonUniformIMul <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformIMul"
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class GroupNonUniformFMulOp(GroupNonUniformArithmeticOp):
    """The float product.

    Example: `%r = spirv.GroupNonUniformFMul <Subgroup> <Reduce> %v : f32 -> f32`
    """

    name = "spirv.GroupNonUniformFMul"
    VALUE_KIND: ClassVar[str] = "float"


@irdl_op_definition
class GroupNonUniformSMinOp(GroupNonUniformArithmeticOp):
    """The signed integer minimum.

    Example: `%r = spirv.GroupNonUniformSMin <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformSMin"
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class GroupNonUniformUMinOp(GroupNonUniformArithmeticOp):
    """The unsigned integer minimum.

    Example: `%r = spirv.GroupNonUniformUMin <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformUMin"
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class GroupNonUniformFMinOp(GroupNonUniformArithmeticOp):
    """The float minimum.

    Example: `%r = spirv.GroupNonUniformFMin <Subgroup> <Reduce> %v : f32 -> f32`
    """

    name = "spirv.GroupNonUniformFMin"
    VALUE_KIND: ClassVar[str] = "float"


@irdl_op_definition
class GroupNonUniformSMaxOp(GroupNonUniformArithmeticOp):
    """The signed integer maximum.

    Example: `%r = spirv.GroupNonUniformSMax <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformSMax"
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class GroupNonUniformUMaxOp(GroupNonUniformArithmeticOp):
    """The unsigned integer maximum.

    Example: `%r = spirv.GroupNonUniformUMax <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformUMax"
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class GroupNonUniformFMaxOp(GroupNonUniformArithmeticOp):
    """The float maximum.

    Example: `%r = spirv.GroupNonUniformFMax <Subgroup> <Reduce> %v : f32 -> f32`
    """

    name = "spirv.GroupNonUniformFMax"
    VALUE_KIND: ClassVar[str] = "float"


@irdl_op_definition
class GroupNonUniformBitwiseAndOp(GroupNonUniformArithmeticOp):
    """The bitwise and.

    Example: `%r = spirv.GroupNonUniformBitwiseAnd <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformBitwiseAnd"
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class GroupNonUniformBitwiseOrOp(GroupNonUniformArithmeticOp):
    """The bitwise or.

    Example: `%r = spirv.GroupNonUniformBitwiseOr <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformBitwiseOr"
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class GroupNonUniformBitwiseXorOp(GroupNonUniformArithmeticOp):
    """The bitwise xor.

    Example: `%r = spirv.GroupNonUniformBitwiseXor <Subgroup> <Reduce> %v : i32 -> i32`
    """

    name = "spirv.GroupNonUniformBitwiseXor"
    VALUE_KIND: ClassVar[str] = "integer"


class GroupNonUniformIndexedOp(IRDLOperation, ABC):
    """`%r = spirv.X <Scope> %value, %id : T, i32 -> T`: `value` of another invocation."""

    value = operand_def()
    id = operand_def(i32)
    result = result_def()
    execution_scope = prop_def(ScopeAttr)

    def __init__(
        self,
        value: SSAValue | Operation,
        id: SSAValue | Operation,
        execution_scope: str | ScopeAttr = "Subgroup",
    ):
        if isinstance(execution_scope, str):
            execution_scope = ScopeAttr(execution_scope)
        super().__init__(
            operands=[value, id],
            result_types=[SSAValue.get(value).type],
            properties={"execution_scope": execution_scope},
        )

    def verify_(self) -> None:
        _check_scope(self, self.execution_scope)
        if self.result.type != self.value.type:
            raise VerifyException(
                f"'{self.name}' result type must match the value's: "
                f"{self.result.type} vs {self.value.type}"
            )
        check_kind(self, self.value.type, "number", "value")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.execution_scope.print_parameter(printer)
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.id)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_attribute(self.id.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser):
        scope = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        id = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        parser.parse_punctuation(",")
        id_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.create(
            operands=[
                parser.resolve_operand(value, value_type),
                parser.resolve_operand(id, id_type),
            ],
            result_types=[result_type],
            properties={"execution_scope": scope},
            attributes=attributes,
        )


@irdl_op_definition
class GroupNonUniformBroadcastOp(GroupNonUniformIndexedOp):
    """`value` of invocation `id` (a constant below SPIR-V 1.5).

    Example: `%r = spirv.GroupNonUniformBroadcast <Subgroup> %v, %c0 : f32, i32 -> f32`
    """

    name = "spirv.GroupNonUniformBroadcast"


@irdl_op_definition
class GroupNonUniformShuffleOp(GroupNonUniformIndexedOp):
    """`value` of invocation `id` (any id, per invocation).

    Example: `%r = spirv.GroupNonUniformShuffle <Subgroup> %v, %i : f32, i32 -> f32`
    """

    name = "spirv.GroupNonUniformShuffle"


@irdl_op_definition
class GroupNonUniformShuffleXorOp(GroupNonUniformIndexedOp):
    """`value` of invocation (this id xor `id`).

    Example: `%r = spirv.GroupNonUniformShuffleXor <Subgroup> %v, %m : i32, i32 -> i32`
    """

    name = "spirv.GroupNonUniformShuffleXor"


@irdl_op_definition
class GroupNonUniformShuffleUpOp(GroupNonUniformIndexedOp):
    """`value` of invocation (this id - `id`).

    Example: `%r = spirv.GroupNonUniformShuffleUp <Subgroup> %v, %d : f32, i32 -> f32`
    """

    name = "spirv.GroupNonUniformShuffleUp"


@irdl_op_definition
class GroupNonUniformShuffleDownOp(GroupNonUniformIndexedOp):
    """`value` of invocation (this id + `id`).

    Example: `%r = spirv.GroupNonUniformShuffleDown <Subgroup> %v, %d : f32, i32 -> f32`
    """

    name = "spirv.GroupNonUniformShuffleDown"


class GroupNonUniformValueOp(IRDLOperation, ABC):
    """`%r = spirv.X <Scope> %value : T -> R`: one value of the scope, or a vote on it."""

    value = operand_def()
    result = result_def()
    execution_scope = prop_def(ScopeAttr)

    def __init__(
        self, value: SSAValue | Operation, execution_scope: str | ScopeAttr = "Subgroup"
    ):
        if isinstance(execution_scope, str):
            execution_scope = ScopeAttr(execution_scope)
        super().__init__(
            operands=[value],
            result_types=[self._result_type(SSAValue.get(value).type)],
            properties={"execution_scope": execution_scope},
        )

    @staticmethod
    def _result_type(value_type: Attribute) -> Attribute:
        return i1

    def verify_(self) -> None:
        _check_scope(self, self.execution_scope)
        expected = self._result_type(self.value.type)
        if self.result.type != expected:
            raise VerifyException(
                f"'{self.name}' result type must be {expected}, got {self.result.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.execution_scope.print_parameter(printer)
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser):
        scope = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        value = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(value, value_type)],
            result_types=[result_type],
            properties={"execution_scope": scope},
            attributes=attributes,
        )


@irdl_op_definition
class GroupNonUniformBroadcastFirstOp(GroupNonUniformValueOp):
    """`value` of the lowest-numbered active invocation.

    Example: `%r = spirv.GroupNonUniformBroadcastFirst <Subgroup> %v : f32 -> f32`
    """

    name = "spirv.GroupNonUniformBroadcastFirst"

    @staticmethod
    def _result_type(value_type: Attribute) -> Attribute:
        return value_type


class _VoteOp(GroupNonUniformValueOp, ABC):
    def verify_(self) -> None:
        super().verify_()
        if self.value.type != i1:
            raise VerifyException(f"'{self.name}' votes on an i1, got {self.value.type}")


@irdl_op_definition
class GroupNonUniformAllOp(_VoteOp):
    """True if the predicate holds in every active invocation.

    Example: `%r = spirv.GroupNonUniformAll <Subgroup> %c : i1 -> i1`
    """

    name = "spirv.GroupNonUniformAll"


@irdl_op_definition
class GroupNonUniformAnyOp(_VoteOp):
    """True if the predicate holds in some active invocation.

    Example: `%r = spirv.GroupNonUniformAny <Subgroup> %c : i1 -> i1`
    """

    name = "spirv.GroupNonUniformAny"


@irdl_op_definition
class GroupNonUniformAllEqualOp(GroupNonUniformValueOp):
    """True if `value` is the same in every active invocation.

    Example: `%r = spirv.GroupNonUniformAllEqual <Subgroup> %v : f32 -> i1`
    """

    name = "spirv.GroupNonUniformAllEqual"


GROUP_OPS = (
    GroupNonUniformIMulOp,
    GroupNonUniformFMulOp,
    GroupNonUniformSMinOp,
    GroupNonUniformUMinOp,
    GroupNonUniformFMinOp,
    GroupNonUniformSMaxOp,
    GroupNonUniformUMaxOp,
    GroupNonUniformFMaxOp,
    GroupNonUniformBitwiseAndOp,
    GroupNonUniformBitwiseOrOp,
    GroupNonUniformBitwiseXorOp,
    GroupNonUniformBroadcastOp,
    GroupNonUniformShuffleOp,
    GroupNonUniformShuffleXorOp,
    GroupNonUniformShuffleUpOp,
    GroupNonUniformShuffleDownOp,
    GroupNonUniformBroadcastFirstOp,
    GroupNonUniformAllOp,
    GroupNonUniformAnyOp,
    GroupNonUniformAllEqualOp,
)
"""The group ops beyond IAdd, FAdd and Elect (listed by the dialect)."""
