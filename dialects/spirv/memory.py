"""
Memory and composite ops of the `spirv` dialect: function variables, loads and stores,
access chains into buffers, and vector/array/struct values.

    %var = spirv.Variable : !spirv.ptr<f32, Function>
    %p = spirv.AccessChain %buf[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %v = spirv.Load "StorageBuffer" %p : f32
    spirv.Store "Function" %var, %v : f32
    %x = spirv.CompositeExtract %gid[0 : i32] : vector<3xi32>
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.op_init import init_op
from taichi_xdsl.dialects.spirv import enums
from taichi_xdsl.dialects.spirv.attributes import (
    ArrayType,
    MemoryAccessAttr,
    PointerType,
    RuntimeArrayType,
    StorageClassAttr,
    StructType,
)
from taichi_xdsl.dialects.spirv.structure import ConstantOp, constant_int
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, IntegerType, VectorType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException


def _type_list(types: Iterable[Attribute]) -> str:
    return ", ".join(str(t) for t in types)


# ---------------------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class VariableOp(IRDLOperation):
    """
    A function-local variable (SPIR-V puts it at the top of the function's first block;
    the serializer moves it there). An initializer must be a `spirv.Constant`.

    Example:
        %v = spirv.Variable : !spirv.ptr<f32, Function>
        %w = spirv.Variable init(%zero) : !spirv.ptr<i32, Function>
    """

    name = "spirv.Variable"

    storage_class = prop_def(StorageClassAttr, default_value=StorageClassAttr("Function"))
    initializer = opt_operand_def()
    pointer = result_def(PointerType)

    def __init__(self, type: PointerType, initializer: SSAValue | Operation | None = None):
        super().__init__(
            operands=[[initializer] if initializer is not None else []],
            properties={"storage_class": type.storage_class},
            result_types=[type],
        )

    def verify_(self) -> None:
        pointer_type = self.pointer.type
        assert isinstance(pointer_type, PointerType)
        if pointer_type.storage_class.data != "Function":
            raise VerifyException(
                f"'{self.name}' can only be used to model function-level variables; use "
                "spirv.GlobalVariable for module-level variables"
            )
        if self.storage_class != pointer_type.storage_class:
            raise VerifyException(
                f"'{self.name}' storage class must match the result pointer's storage class"
            )
        if self.initializer is not None:
            if self.initializer.type != pointer_type.pointee_type:
                raise VerifyException(
                    f"'{self.name}' initializer of type {self.initializer.type} does not "
                    f"match the pointee type {pointer_type.pointee_type}"
                )
            if not isinstance(self.initializer.owner, ConstantOp):
                raise VerifyException(f"'{self.name}' initializer must be a spirv.Constant")

    def print(self, printer: Printer) -> None:
        if self.initializer is not None:
            printer.print_string(" init(")
            printer.print_operand(self.initializer)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.pointer.type)

    @classmethod
    def parse(cls, parser: Parser) -> VariableOp:
        init: UnresolvedOperand | None = None
        if parser.parse_optional_keyword("init") is not None:
            with parser.in_parens():
                init = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        type_ = parser.parse_type()
        if not isinstance(type_, PointerType):
            parser.raise_error(f"expected spirv.ptr type, got {type_}", pos, parser.pos)
        value = (
            parser.resolve_operand(init, type_.pointee_type) if init is not None else None
        )
        op = cls(type_, value)
        op.attributes.update(attributes)
        return op


def _print_memory_access(printer: Printer, op: LoadOp | StoreOp) -> None:
    if op.memory_access is None:
        return
    printer.print_string(f' ["{op.memory_access.text}"')
    if op.alignment is not None:
        printer.print_string(f", {op.alignment.value.data}")
    printer.print_string("]")


def _parse_memory_access(parser: Parser) -> dict[str, Attribute]:
    if parser.parse_optional_punctuation("[") is None:
        return {}
    properties: dict[str, Attribute] = {
        "memory_access": MemoryAccessAttr.new(MemoryAccessAttr.parse_quoted(parser))
    }
    access = properties["memory_access"]
    assert isinstance(access, MemoryAccessAttr)
    if "Aligned" in access.data:
        parser.parse_punctuation(",")
        properties["alignment"] = IntegerAttr(
            parser.parse_integer(allow_boolean=False), i32
        )
    parser.parse_punctuation("]")
    return properties


def _verify_memory_access(op: LoadOp | StoreOp) -> None:
    aligned = op.memory_access is not None and "Aligned" in op.memory_access.data
    if aligned and op.alignment is None:
        raise VerifyException(f"'{op.name}' has the Aligned flag but no alignment")
    if op.alignment is not None and not aligned:
        raise VerifyException(f"'{op.name}' has an alignment but no Aligned flag")


def _pointee(op: Operation, value: SSAValue) -> Attribute:
    if not isinstance(value.type, PointerType):
        raise VerifyException(f"'{op.name}' expects a !spirv.ptr operand, got {value.type}")
    return value.type.pointee_type


@irdl_op_definition
class LoadOp(IRDLOperation):
    """
    Load through a pointer; the string names the pointer's storage class.

    Example:
        %v = spirv.Load "StorageBuffer" %p : f32
        %w = spirv.Load "Function" %q ["Volatile|Aligned", 4] : f32
    """

    name = "spirv.Load"

    ptr = operand_def(PointerType)
    value = result_def()
    memory_access = opt_prop_def(MemoryAccessAttr)
    alignment = opt_prop_def(IntegerAttr)

    traits = traits_def(MemoryReadEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        memory_access: str | None = None,
        alignment: int | None = None,
    ):
        ptr_value = SSAValue.get(ptr)
        assert isinstance(ptr_value.type, PointerType)
        init_op(
            self,
            operands=[ptr_value],
            result_types=[ptr_value.type.pointee_type],
            properties={
                "memory_access": MemoryAccessAttr(memory_access) if memory_access else None,
                "alignment": IntegerAttr(alignment, i32) if alignment is not None else None,
            },
        )

    def verify_(self) -> None:
        if _pointee(self, self.ptr) != self.value.type:
            raise VerifyException(
                f"'{self.name}' result type {self.value.type} does not match the pointee "
                f"type of {self.ptr.type}"
            )
        _verify_memory_access(self)

    def print(self, printer: Printer) -> None:
        assert isinstance(self.ptr.type, PointerType)
        printer.print_string(f' "{self.ptr.type.storage_class.data}" ')
        printer.print_operand(self.ptr)
        _print_memory_access(printer, self)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        storage = _parse_storage_class_string(parser)
        ptr = parser.parse_unresolved_operand()
        properties = _parse_memory_access(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        ptr_value = parser.resolve_operand(ptr, PointerType(value_type, storage))
        op = cls.create(
            operands=[ptr_value],
            result_types=[value_type],
            properties=properties,
            attributes=attributes,
        )
        return op


def _parse_storage_class_string(parser: Parser) -> str:
    pos = parser.pos
    storage = parser.parse_optional_str_literal()
    if storage is None:
        parser.raise_error("expected attribute value (the storage class as a string)", pos)
    if storage not in enums.STORAGE_CLASS:
        parser.raise_error(f"unknown storage class: {storage}", pos, parser.pos)
    return storage


@irdl_op_definition
class StoreOp(IRDLOperation):
    """
    Store through a pointer; the string names the pointer's storage class.

    Example: `spirv.Store "StorageBuffer" %p, %v : f32`
    """

    name = "spirv.Store"

    ptr = operand_def(PointerType)
    value = operand_def()
    memory_access = opt_prop_def(MemoryAccessAttr)
    alignment = opt_prop_def(IntegerAttr)

    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        value: SSAValue | Operation,
        memory_access: str | None = None,
        alignment: int | None = None,
    ):
        init_op(
            self,
            operands=[ptr, value],
            properties={
                "memory_access": MemoryAccessAttr(memory_access) if memory_access else None,
                "alignment": IntegerAttr(alignment, i32) if alignment is not None else None,
            },
        )

    def verify_(self) -> None:
        if _pointee(self, self.ptr) != self.value.type:
            raise VerifyException(
                f"'{self.name}' value of type {self.value.type} does not match the pointee "
                f"type of {self.ptr.type}"
            )
        _verify_memory_access(self)

    def print(self, printer: Printer) -> None:
        assert isinstance(self.ptr.type, PointerType)
        printer.print_string(f' "{self.ptr.type.storage_class.data}" ')
        printer.print_operand(self.ptr)
        printer.print_string(", ")
        printer.print_operand(self.value)
        _print_memory_access(printer, self)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        storage = _parse_storage_class_string(parser)
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        properties = _parse_memory_access(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        return cls.create(
            operands=[
                parser.resolve_operand(ptr, PointerType(value_type, storage)),
                parser.resolve_operand(value, value_type),
            ],
            properties=properties,
            attributes=attributes,
        )


def indexed_type(op: Operation, composite: Attribute, index: SSAValue | int) -> Attribute:
    """
    The type of element `index` of `composite` (a struct, array, runtime array or
    vector); struct indices must be constants.

    Raises:
        VerifyException: `composite` is not a composite, or a struct index is not a
            constant in range.
    """
    known = index if isinstance(index, int) else constant_int(index)
    if isinstance(composite, StructType):
        if known is None:
            owner = index.owner if isinstance(index, SSAValue) else None
            got = f", but provided {owner.name}" if isinstance(owner, Operation) else ""
            raise VerifyException(
                "index must be an integer spirv.Constant to access element of spirv.struct"
                + got
            )
        if not 0 <= known < composite.num_members:
            raise VerifyException(
                f"'{op.name}' op index {known} out of bounds for '{composite}'"
            )
        return composite.member_types.data[known]
    if isinstance(composite, ArrayType | RuntimeArrayType):
        return composite.element_type
    if isinstance(composite, VectorType):
        return composite.element_type
    raise VerifyException(
        f"cannot extract from non-composite type '{composite}' with index "
        f"{known if known is not None else '(dynamic)'}"
    )


@irdl_op_definition
class AccessChainOp(IRDLOperation):
    """
    A pointer to an element inside a composite: struct members by constant index, array,
    runtime-array and vector elements by any integer.

    Example:
        %p = spirv.AccessChain %buf[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    """

    name = "spirv.AccessChain"

    base_ptr = operand_def(PointerType)
    indices = var_operand_def()
    component_ptr = result_def(PointerType)

    traits = traits_def(Pure())

    def __init__(
        self, base_ptr: SSAValue | Operation, indices: Sequence[SSAValue | Operation]
    ):
        """Build the chain; its result type follows from the base and the indices."""
        base = SSAValue.get(base_ptr)
        assert isinstance(base.type, PointerType)
        element = base.type.pointee_type
        for index in indices:
            element = indexed_type(self, element, SSAValue.get(index))
        super().__init__(
            operands=[base, indices],
            result_types=[PointerType(element, base.type.storage_class)],
        )

    def verify_(self) -> None:
        base_type = self.base_ptr.type
        assert isinstance(base_type, PointerType)
        if not self.indices:
            raise VerifyException(f"'{self.name}' expected at least one index")
        element = base_type.pointee_type
        for index in self.indices:
            if not isinstance(index.type, IntegerType):
                raise VerifyException(
                    f"'{self.name}' indices must be integers, got {index.type}"
                )
            element = indexed_type(self, element, index)
        result = self.component_ptr.type
        assert isinstance(result, PointerType)
        if result.pointee_type == element and result.storage_class == base_type.storage_class:
            return  # what PointerType(element, storage class) would equal, unbuilt
        expected = PointerType(element, base_type.storage_class)
        if result != expected:
            raise VerifyException(
                f"'{self.name}' result type should be {expected}, got {self.component_ptr.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base_ptr)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(
            [self.base_ptr.type, *(i.type for i in self.indices)], printer.print_attribute
        )
        printer.print_string(" -> ")
        printer.print_attribute(self.component_ptr.type)

    @classmethod
    def parse(cls, parser: Parser) -> AccessChainOp:
        base = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        base_type = parser.parse_type()
        if not isinstance(base_type, PointerType):
            parser.raise_error(
                f"expected a pointer to composite type, but provided '{base_type}'",
                pos,
                parser.pos,
            )
        index_types: list[Attribute] = []
        while parser.parse_optional_punctuation(",") is not None:
            index_types.append(parser.parse_type())
        if len(index_types) != len(indices):
            parser.raise_error(
                "'spirv.AccessChain' op indices types' count must be equal to indices info count"
            )
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.create(
            operands=[
                parser.resolve_operand(base, base_type),
                *(
                    parser.resolve_operand(i, t)
                    for i, t in zip(indices, index_types, strict=True)
                ),
            ],
            result_types=[result_type],
            attributes=attributes,
        )


# ---------------------------------------------------------------------------------------
# Composites
# ---------------------------------------------------------------------------------------


def _print_literal_indices(printer: Printer, indices: ArrayAttr[IntegerAttr]) -> None:
    printer.print_string("[")
    printer.print_list(indices, printer.print_attribute)
    printer.print_string("]")


def _parse_literal_indices(parser: Parser) -> ArrayAttr[IntegerAttr]:
    def parse_index() -> IntegerAttr:
        value = parser.parse_attribute()
        if not isinstance(value, IntegerAttr):
            parser.raise_error(f"expected an integer index, got {value}")
        return value

    return ArrayAttr(
        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_index)
    )


def _verify_literal_indices(
    op: Operation, composite: Attribute, indices: ArrayAttr[IntegerAttr]
) -> Attribute:
    if not indices.data:
        raise VerifyException(f"'{op.name}' expected at least one index")
    element = composite
    for index in indices:
        element = indexed_type(op, element, index.value.data)
        if isinstance(composite, ArrayType) and index.value.data >= composite.size.data:
            raise VerifyException(f"'{op.name}' index {index.value.data} out of bounds")
    return element


@irdl_op_definition
class CompositeExtractOp(IRDLOperation):
    """
    Read an element of a composite value at constant indices.

    Example: `%x = spirv.CompositeExtract %gid[0 : i32] : vector<3xi32>`
    """

    name = "spirv.CompositeExtract"

    composite = operand_def()
    indices = prop_def(ArrayAttr[IntegerAttr])
    component = result_def()

    traits = traits_def(Pure())

    def __init__(self, composite: SSAValue | Operation, indices: Sequence[int]):
        value = SSAValue.get(composite)
        attr = ArrayAttr(IntegerAttr(i, i32) for i in indices)
        element = value.type
        for index in indices:
            element = indexed_type(self, element, index)
        init_op(
            self,
            operands=[value], properties={"indices": attr}, result_types=[element]
        )

    def verify_(self) -> None:
        element = _verify_literal_indices(self, self.composite.type, self.indices)
        if element != self.component.type:
            raise VerifyException(
                f"'{self.name}' result type should be {element}, got {self.component.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.composite)
        _print_literal_indices(printer, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.composite.type)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeExtractOp:
        composite = parser.parse_unresolved_operand()
        indices = _parse_literal_indices(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        op = cls(parser.resolve_operand(composite, type_), [i.value.data for i in indices])
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class CompositeInsertOp(IRDLOperation):
    """
    A copy of a composite with one element replaced.

    Example: `%w = spirv.CompositeInsert %x, %v[1 : i32] : f32 into vector<3xf32>`
    """

    name = "spirv.CompositeInsert"

    object = operand_def()
    composite = operand_def()
    indices = prop_def(ArrayAttr[IntegerAttr])
    result = result_def()

    traits = traits_def(Pure())

    def __init__(
        self,
        object: SSAValue | Operation,
        composite: SSAValue | Operation,
        indices: Sequence[int],
    ):
        value = SSAValue.get(composite)
        init_op(
            self,
            operands=[object, value],
            properties={"indices": ArrayAttr(IntegerAttr(i, i32) for i in indices)},
            result_types=[value.type],
        )

    def verify_(self) -> None:
        element = _verify_literal_indices(self, self.composite.type, self.indices)
        if element != self.object.type:
            raise VerifyException(
                f"'{self.name}' object type {self.object.type} does not match the element "
                f"type {element}"
            )
        if self.result.type != self.composite.type:
            raise VerifyException(f"'{self.name}' result type must be the composite's type")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.object)
        printer.print_string(", ")
        printer.print_operand(self.composite)
        _print_literal_indices(printer, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.object.type)
        printer.print_string(" into ")
        printer.print_attribute(self.composite.type)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeInsertOp:
        obj = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        composite = parser.parse_unresolved_operand()
        indices = _parse_literal_indices(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        obj_type = parser.parse_type()
        parser.parse_keyword("into")
        composite_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(obj, obj_type),
            parser.resolve_operand(composite, composite_type),
            [i.value.data for i in indices],
        )
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class CompositeConstructOp(IRDLOperation):
    """
    A vector (or array, or struct) from its elements.

    Example: `%v = spirv.CompositeConstruct %x, %y, %z : (f32, f32, f32) -> vector<3xf32>`
    """

    name = "spirv.CompositeConstruct"

    constituents = var_operand_def()
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = (
        "$constituents attr-dict `:` `(` type($constituents) `)` `->` type($result)"
    )

    def __init__(
        self, constituents: Sequence[SSAValue | Operation], result_type: Attribute
    ):
        super().__init__(operands=[constituents], result_types=[result_type])

    def verify_(self) -> None:
        result_type = self.result.type
        types = [c.type for c in self.constituents]
        if isinstance(result_type, VectorType):
            count = sum(t.get_shape()[0] if isinstance(t, VectorType) else 1 for t in types)
            scalars = {t.element_type if isinstance(t, VectorType) else t for t in types}
            if scalars != {result_type.element_type} or count != result_type.get_shape()[0]:
                raise VerifyException(
                    f"'{self.name}' operands ({_type_list(types)}) do not make a {result_type}"
                )
        elif isinstance(result_type, ArrayType):
            if types != [result_type.element_type] * result_type.size.data:
                raise VerifyException(
                    f"'{self.name}' operands ({_type_list(types)}) do not make a {result_type}"
                )
        elif isinstance(result_type, StructType):
            if tuple(types) != result_type.member_types.data:
                raise VerifyException(
                    f"'{self.name}' operands ({_type_list(types)}) do not make a {result_type}"
                )
        else:
            raise VerifyException(
                f"'{self.name}' expects a composite result type, got {result_type}"
            )
