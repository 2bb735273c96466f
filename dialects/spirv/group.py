"""
Subgroup operations of the `spirv` dialect (SPIR-V 1.3 non-uniform group instructions):
each combines the values of the *active* invocations of the scope, so they stay correct
where control flow diverged.

    %sum = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %v : f32 -> f32
    %sum = spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %v : i32 -> i32
    %one = spirv.GroupNonUniformElect <Subgroup> : i1

`Reduce` gives every active invocation the combination of all of theirs; `Elect` is true
in exactly one active invocation (the lowest-numbered). The arithmetic ops need the
GroupNonUniformArithmetic capability, Elect GroupNonUniform.
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from taichi_xdsl.dialects.spirv.arithmetic import check_kind
from taichi_xdsl.dialects.spirv.attributes import GroupOperationAttr, ScopeAttr
from xdsl.dialects.builtin import i1
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
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
