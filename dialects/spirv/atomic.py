"""
Atomics and barriers of the `spirv` dialect.

An atomic names its memory scope and memory semantics; the type after `:` is the
pointer's, and the result (the value before the update) is its pointee.

    %old = spirv.AtomicIAdd <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %old = spirv.AtomicCompareExchange <Device> <None> <None> %p, %new, %expected : !spirv.ptr<i32, StorageBuffer>
    %old = spirv.EXT.AtomicFAdd <Device> <None> %p, %f : !spirv.ptr<f32, StorageBuffer>
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>

Devices without the float-atomic extension add floats with a compare-and-swap loop on the
bit pattern (spirv.Bitcast + spirv.AtomicCompareExchange).
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.spirv.arithmetic import check_kind
from taichi_xdsl.dialects.spirv.attributes import (
    MemorySemanticsAttr,
    PointerType,
    ScopeAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException


def _scope(value: str | ScopeAttr) -> ScopeAttr:
    return ScopeAttr(value) if isinstance(value, str) else value


def _semantics(value: str | MemorySemanticsAttr) -> MemorySemanticsAttr:
    return MemorySemanticsAttr(value) if isinstance(value, str) else value


def _pointee(op: Operation, pointer: SSAValue) -> Attribute:
    if not isinstance(pointer.type, PointerType):
        raise VerifyException(f"'{op.name}' expects a !spirv.ptr, got {pointer.type}")
    return pointer.type.pointee_type


def _parse_operands(parser: Parser, count: int) -> list[UnresolvedOperand]:
    operands = [parser.parse_unresolved_operand()]
    for _ in range(count - 1):
        parser.parse_punctuation(",")
        operands.append(parser.parse_unresolved_operand())
    return operands


def _parse_pointer_type(parser: Parser) -> PointerType:
    parser.parse_punctuation(":")
    pos = parser.pos
    type_ = parser.parse_type()
    if not isinstance(type_, PointerType):
        parser.raise_error(f"expected a !spirv.ptr type, got {type_}", pos, parser.pos)
    return type_


class AtomicUpdateOp(IRDLOperation, ABC):
    """`%old = spirv.X <Scope> <Semantics> %pointer, %value : !spirv.ptr<T, ...>`."""

    VALUE_KIND: ClassVar[str]

    pointer = operand_def(PointerType)
    value = operand_def()
    result = result_def()
    memory_scope = prop_def(ScopeAttr)
    semantics = prop_def(MemorySemanticsAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        pointer: SSAValue | Operation,
        value: SSAValue | Operation,
        memory_scope: str | ScopeAttr = "Device",
        semantics: str | MemorySemanticsAttr = "None",
    ):
        super().__init__(
            operands=[pointer, value],
            result_types=[SSAValue.get(value).type],
            properties={
                "memory_scope": _scope(memory_scope),
                "semantics": _semantics(semantics),
            },
        )

    def verify_(self) -> None:
        pointee = _pointee(self, self.pointer)
        if self.value.type != pointee:
            raise VerifyException(
                f"'{self.name}' op failed to verify that `value` type matches pointee type "
                f"of `pointer`: {self.value.type} vs {pointee}"
            )
        if self.result.type != pointee:
            raise VerifyException(
                f"'{self.name}' op failed to verify that `result` type matches pointee type "
                f"of `pointer`: {self.result.type} vs {pointee}"
            )
        check_kind(self, pointee, self.VALUE_KIND, "value")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.memory_scope.print_parameter(printer)
        printer.print_string(" ")
        self.semantics.print_parameter(printer)
        printer.print_string(" ")
        printer.print_operand(self.pointer)
        printer.print_string(", ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.pointer.type)

    @classmethod
    def parse(cls, parser: Parser):
        scope = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        semantics = MemorySemanticsAttr.new(MemorySemanticsAttr.parse_parameter(parser))
        pointer, value = _parse_operands(parser, 2)
        attributes = parser.parse_optional_attr_dict()
        type_ = _parse_pointer_type(parser)
        op = cls(
            parser.resolve_operand(pointer, type_),
            parser.resolve_operand(value, type_.pointee_type),
            scope,
            semantics,
        )
        op.attributes.update(attributes)
        return op


class IntegerAtomicUpdateOp(AtomicUpdateOp, ABC):
    VALUE_KIND: ClassVar[str] = "integer"


@irdl_op_definition
class AtomicIAddOp(IntegerAtomicUpdateOp):
    """*p += v; returns the old *p.

    Example: `%o = spirv.AtomicIAdd <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicIAdd"


@irdl_op_definition
class AtomicISubOp(IntegerAtomicUpdateOp):
    """*p -= v; returns the old *p.

    Example: `%o = spirv.AtomicISub <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicISub"


@irdl_op_definition
class AtomicSMinOp(IntegerAtomicUpdateOp):
    """*p = min(*p, v), signed; returns the old *p.

    Example: `%o = spirv.AtomicSMin <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicSMin"


@irdl_op_definition
class AtomicSMaxOp(IntegerAtomicUpdateOp):
    """*p = max(*p, v), signed; returns the old *p.

    Example: `%o = spirv.AtomicSMax <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicSMax"


@irdl_op_definition
class AtomicUMinOp(IntegerAtomicUpdateOp):
    """*p = min(*p, v), unsigned; returns the old *p.

    Example: `%o = spirv.AtomicUMin <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicUMin"


@irdl_op_definition
class AtomicUMaxOp(IntegerAtomicUpdateOp):
    """*p = max(*p, v), unsigned; returns the old *p.

    Example: `%o = spirv.AtomicUMax <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicUMax"


@irdl_op_definition
class AtomicAndOp(IntegerAtomicUpdateOp):
    """*p &= v; returns the old *p.

    Example: `%o = spirv.AtomicAnd <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicAnd"


@irdl_op_definition
class AtomicOrOp(IntegerAtomicUpdateOp):
    """*p |= v; returns the old *p.

    Example: `%o = spirv.AtomicOr <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicOr"


@irdl_op_definition
class AtomicXorOp(IntegerAtomicUpdateOp):
    """*p ^= v; returns the old *p.

    Example: `%o = spirv.AtomicXor <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>`
    """

    name = "spirv.AtomicXor"


@irdl_op_definition
class AtomicExchangeOp(AtomicUpdateOp):
    """*p = v (integer or float); returns the old *p.

    Example: `%o = spirv.AtomicExchange <Device> <None> %p, %v : !spirv.ptr<f32, StorageBuffer>`
    """

    name = "spirv.AtomicExchange"
    VALUE_KIND: ClassVar[str] = "number"


@irdl_op_definition
class EXTAtomicFAddOp(AtomicUpdateOp):
    """
    *p += v on a float (needs SPV_EXT_shader_atomic_float_add and the AtomicFloat32AddEXT
    capability); returns the old *p.

    Example: `%o = spirv.EXT.AtomicFAdd <Device> <None> %p, %v : !spirv.ptr<f32, StorageBuffer>`
    """

    name = "spirv.EXT.AtomicFAdd"
    VALUE_KIND: ClassVar[str] = "float"


@irdl_op_definition
class AtomicCompareExchangeOp(IRDLOperation):
    """
    If *p == comparator, *p = value; returns the old *p either way. The two semantics
    apply when the compare succeeds and fails.

    Example:
        %o = spirv.AtomicCompareExchange <Device> <None> <None> %p, %new, %expected : !spirv.ptr<i32, StorageBuffer>
    """

    name = "spirv.AtomicCompareExchange"

    pointer = operand_def(PointerType)
    value = operand_def()
    comparator = operand_def()
    result = result_def()
    memory_scope = prop_def(ScopeAttr)
    equal_semantics = prop_def(MemorySemanticsAttr)
    unequal_semantics = prop_def(MemorySemanticsAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        pointer: SSAValue | Operation,
        value: SSAValue | Operation,
        comparator: SSAValue | Operation,
        memory_scope: str | ScopeAttr = "Device",
        equal_semantics: str | MemorySemanticsAttr = "None",
        unequal_semantics: str | MemorySemanticsAttr = "None",
    ):
        super().__init__(
            operands=[pointer, value, comparator],
            result_types=[SSAValue.get(value).type],
            properties={
                "memory_scope": _scope(memory_scope),
                "equal_semantics": _semantics(equal_semantics),
                "unequal_semantics": _semantics(unequal_semantics),
            },
        )

    def verify_(self) -> None:
        pointee = _pointee(self, self.pointer)
        for what, value in (
            ("value", self.value),
            ("comparator", self.comparator),
            ("result", self.result),
        ):
            if value.type != pointee:
                raise VerifyException(
                    f"'{self.name}' op failed to verify that `{what}` type matches pointee "
                    f"type of `pointer`: {value.type} vs {pointee}"
                )
        check_kind(self, pointee, "integer", "value")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.memory_scope.print_parameter(printer)
        printer.print_string(" ")
        self.equal_semantics.print_parameter(printer)
        printer.print_string(" ")
        self.unequal_semantics.print_parameter(printer)
        printer.print_string(" ")
        printer.print_list(
            (self.pointer, self.value, self.comparator), printer.print_operand
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.pointer.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicCompareExchangeOp:
        scope = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        equal = MemorySemanticsAttr.new(MemorySemanticsAttr.parse_parameter(parser))
        unequal = MemorySemanticsAttr.new(MemorySemanticsAttr.parse_parameter(parser))
        pointer, value, comparator = _parse_operands(parser, 3)
        attributes = parser.parse_optional_attr_dict()
        type_ = _parse_pointer_type(parser)
        op = cls(
            parser.resolve_operand(pointer, type_),
            parser.resolve_operand(value, type_.pointee_type),
            parser.resolve_operand(comparator, type_.pointee_type),
            scope,
            equal,
            unequal,
        )
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class ControlBarrierOp(IRDLOperation):
    """
    Wait until every invocation of the execution scope reaches this point, then apply the
    memory barrier (`barrier()` in GLSL; Taichi's `ti.simt.block.sync()`).

    Example: `spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>`
    """

    name = "spirv.ControlBarrier"

    execution_scope = prop_def(ScopeAttr)
    memory_scope = prop_def(ScopeAttr)
    memory_semantics = prop_def(MemorySemanticsAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        execution_scope: str | ScopeAttr = "Workgroup",
        memory_scope: str | ScopeAttr = "Workgroup",
        memory_semantics: str | MemorySemanticsAttr = "AcquireRelease|WorkgroupMemory",
    ):
        super().__init__(
            properties={
                "execution_scope": _scope(execution_scope),
                "memory_scope": _scope(memory_scope),
                "memory_semantics": _semantics(memory_semantics),
            }
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.execution_scope.print_parameter(printer)
        printer.print_string(", ")
        self.memory_scope.print_parameter(printer)
        printer.print_string(", ")
        self.memory_semantics.print_parameter(printer)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ControlBarrierOp:
        execution = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        parser.parse_punctuation(",")
        memory = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        parser.parse_punctuation(",")
        semantics = MemorySemanticsAttr.new(MemorySemanticsAttr.parse_parameter(parser))
        op = cls(execution, memory, semantics)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


@irdl_op_definition
class MemoryBarrierOp(IRDLOperation):
    """
    Order this invocation's memory accesses as the semantics say, without waiting for
    other invocations.

    Example: `spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>`
    """

    name = "spirv.MemoryBarrier"

    memory_scope = prop_def(ScopeAttr)
    memory_semantics = prop_def(MemorySemanticsAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        memory_scope: str | ScopeAttr = "Device",
        memory_semantics: str | MemorySemanticsAttr = "AcquireRelease|UniformMemory",
    ):
        super().__init__(
            properties={
                "memory_scope": _scope(memory_scope),
                "memory_semantics": _semantics(memory_semantics),
            }
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.memory_scope.print_parameter(printer)
        printer.print_string(", ")
        self.memory_semantics.print_parameter(printer)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> MemoryBarrierOp:
        memory = ScopeAttr.new(ScopeAttr.parse_parameter(parser))
        parser.parse_punctuation(",")
        semantics = MemorySemanticsAttr.new(MemorySemanticsAttr.parse_parameter(parser))
        op = cls(memory, semantics)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op
