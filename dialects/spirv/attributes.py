"""
Attributes and types of the `spirv` dialect, spelled as MLIR's SPIR-V dialect prints them.

Enum attributes (`#spirv.scope<Device>`, `#spirv.memory_semantics<Acquire|UniformMemory>`,
...) hold SPIR-V enumerant names; `.value` gives the number the serializer writes.

Types:

    !spirv.ptr<f32, StorageBuffer>                     pointer: pointee, storage class
    !spirv.rtarray<f32, stride=4>                      runtime array (stride optional)
    !spirv.array<4 x f32, stride=4>                    array (stride optional)
    !spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>
                                                       struct: member types, each with its
                                                       optional `[offset, Decoration...]`,
                                                       then the struct's own decorations

Scalars and vectors are the builtin types: i1 (bool), i8..i64 (signless, si or ui), f16,
f32, f64, and 1-D `vector<Nxf32>` with N in 2, 3, 4, 8, 16.
"""

from __future__ import annotations

import re
from abc import ABC
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar

from taichi_xdsl.dialects.spirv import enums
from xdsl.dialects.builtin import (
    ArrayAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
    StringAttr,
    VectorType,
)
from xdsl.ir import Attribute, Data, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


def _parsed(parser: AttrParser, start: int, build: Callable[[], Attribute]) -> None:
    """Build the attribute just parsed; a verifier error becomes a located parse error."""
    try:
        build()
    except VerifyException as error:
        text = parser.lexer.input.content[start : parser.pos]
        parser.raise_error(str(error), start, start + len(text.rstrip()))


# ---------------------------------------------------------------------------------------
# Enum attributes
# ---------------------------------------------------------------------------------------


class SpirvEnumAttr(Data[str], ABC):
    """One enumerant of a SPIR-V enumeration, printed `#spirv.<kind><Name>`."""

    cases: ClassVar[dict[str, int]]

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        with parser.in_angle_brackets():
            return cls.parse_case(parser)

    @classmethod
    def parse_case(cls, parser: AttrParser) -> str:
        """Parse a bare enumerant name (as in `<Device>`'s `Device`)."""
        pos = parser.pos
        name = parser.parse_identifier_or_str_literal(f" ({cls._kind()} name)")
        if name not in cls.cases:
            parser.raise_error(
                f"unknown {cls._kind()} '{name}', expected one of {', '.join(cls.cases)}",
                pos,
                parser.pos,
            )
        return name

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")

    def verify(self) -> None:
        if self.data not in self.cases:
            raise VerifyException(f"unknown {self._kind()} '{self.data}'")

    @classmethod
    def _kind(cls) -> str:
        return cls.name.removeprefix("spirv.").replace("_", " ")

    @property
    def value(self) -> int:
        """The enumerant's number in the SPIR-V binary."""
        return self.cases[self.data]


class SpirvBitEnumAttr(Data[tuple[str, ...]], ABC):
    """
    A SPIR-V bit mask as a set of flag names, printed `<A|B>` (`<None>` when empty).

    The flags are kept sorted by bit value, so equal masks are equal attributes.
    """

    cases: ClassVar[dict[str, int]]

    def __init__(self, flags: str | Iterable[str] = ()):
        super().__init__(self.canonical(flags))

    @classmethod
    def canonical(cls, flags: str | Iterable[str]) -> tuple[str, ...]:
        names = flags.split("|") if isinstance(flags, str) else list(flags)
        names = [name.strip() for name in names if name.strip() not in ("", "None")]
        return tuple(sorted(set(names), key=lambda name: cls.cases.get(name, 1 << 32)))

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[str, ...]:
        start = parser.pos
        with parser.in_angle_brackets():
            flags = cls.parse_flags(parser)
        _parsed(parser, start, lambda: cls.new(flags))
        return flags

    @classmethod
    def parse_flags(cls, parser: AttrParser) -> tuple[str, ...]:
        """Parse `A|B|C` (bare names)."""
        names = [cls._parse_flag(parser)]
        while parser.parse_optional_punctuation("|") is not None:
            names.append(cls._parse_flag(parser))
        return cls.canonical(names)

    @classmethod
    def parse_quoted(cls, parser: AttrParser) -> tuple[str, ...]:
        """Parse `"A|B"` (a string literal, as in spirv.Load's `["Volatile|Aligned", 4]`)."""
        pos = parser.pos
        return cls.flags_of(parser.parse_str_literal(), parser, pos)

    @classmethod
    def flags_of(cls, text: str, parser: AttrParser, pos: int) -> tuple[str, ...]:
        """The flags of `A|B` read from a string literal at `pos`, checked by name."""
        for name in text.split("|"):
            if name not in cls.cases:
                parser.raise_error(
                    f'invalid {cls._kind()} attribute specification: "{text}"',
                    pos,
                    parser.pos,
                )
        return cls.canonical(text)

    @classmethod
    def _parse_flag(cls, parser: AttrParser) -> str:
        pos = parser.pos
        name = parser.parse_identifier(f" ({cls._kind()} flag)")
        if name not in cls.cases:
            parser.raise_error(
                f"unknown {cls._kind()} flag '{name}', expected one of {', '.join(cls.cases)}",
                pos,
                parser.pos,
            )
        return name

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.text}>")

    @property
    def text(self) -> str:
        """The flags as `A|B`, `None` when empty."""
        return "|".join(self.data) or "None"

    def verify(self) -> None:
        for name in self.data:
            if name not in self.cases:
                raise VerifyException(f"unknown {self._kind()} flag '{name}'")

    @classmethod
    def _kind(cls) -> str:
        return cls.name.removeprefix("spirv.").replace("_", " ")

    @property
    def value(self) -> int:
        """The mask's number in the SPIR-V binary."""
        result = 0
        for name in self.data:
            result |= self.cases[name]
        return result


@irdl_attr_definition
class ScopeAttr(SpirvEnumAttr):
    """An execution or memory scope: `#spirv.scope<Device>`."""

    name = "spirv.scope"
    cases = enums.SCOPE


@irdl_attr_definition
class GroupOperationAttr(SpirvEnumAttr):
    """What a group arithmetic op computes: `#spirv.group_operation<Reduce>`."""

    name = "spirv.group_operation"
    cases = enums.GROUP_OPERATION


@irdl_attr_definition
class MemorySemanticsAttr(SpirvBitEnumAttr):
    """Memory semantics: `#spirv.memory_semantics<AcquireRelease|UniformMemory>`."""

    name = "spirv.memory_semantics"
    cases = enums.MEMORY_SEMANTICS

    def verify(self) -> None:
        super().verify()
        if sum(name in enums.MEMORY_ORDERINGS for name in self.data) > 1:
            raise VerifyException(
                "expected at most one of these four memory constraints to be set: "
                "`Acquire`, `Release`,`AcquireRelease` or `SequentiallyConsistent`"
            )


@irdl_attr_definition
class StorageClassAttr(SpirvEnumAttr):
    """A storage class: `#spirv.storage_class<StorageBuffer>`."""

    name = "spirv.storage_class"
    cases = enums.STORAGE_CLASS


@irdl_attr_definition
class ExecutionModelAttr(SpirvEnumAttr):
    """An entry point's execution model: `#spirv.execution_model<GLCompute>`."""

    name = "spirv.execution_model"
    cases = enums.EXECUTION_MODEL


@irdl_attr_definition
class ExecutionModeAttr(SpirvEnumAttr):
    """An execution mode: `#spirv.execution_mode<LocalSize>`."""

    name = "spirv.execution_mode"
    cases = enums.EXECUTION_MODE


@irdl_attr_definition
class AddressingModelAttr(SpirvEnumAttr):
    """A module's addressing model: `#spirv.addressing_model<Logical>`."""

    name = "spirv.addressing_model"
    cases = enums.ADDRESSING_MODEL


@irdl_attr_definition
class MemoryModelAttr(SpirvEnumAttr):
    """A module's memory model: `#spirv.memory_model<GLSL450>`."""

    name = "spirv.memory_model"
    cases = enums.MEMORY_MODEL


@irdl_attr_definition
class FunctionControlAttr(SpirvBitEnumAttr):
    """Function control flags: `#spirv.function_control<Inline|Pure>`."""

    name = "spirv.function_control"
    cases = enums.FUNCTION_CONTROL


@irdl_attr_definition
class SelectionControlAttr(SpirvBitEnumAttr):
    """Selection control flags: `#spirv.selection_control<Flatten>`."""

    name = "spirv.selection_control"
    cases = enums.SELECTION_CONTROL


@irdl_attr_definition
class LoopControlAttr(SpirvBitEnumAttr):
    """Loop control flags: `#spirv.loop_control<Unroll>`."""

    name = "spirv.loop_control"
    cases = enums.LOOP_CONTROL


@irdl_attr_definition
class MemoryAccessAttr(SpirvBitEnumAttr):
    """Memory operand flags of a load or store: `#spirv.memory_access<Volatile|Aligned>`."""

    name = "spirv.memory_access"
    cases = enums.MEMORY_ACCESS


# ---------------------------------------------------------------------------------------
# The (version, capabilities, extensions) triple
# ---------------------------------------------------------------------------------------

_EXTENSION_NAME = re.compile(r"SPV_[A-Za-z0-9]+_\w+")


@irdl_attr_definition
class VerCapExtAttr(ParametrizedAttribute):
    """
    What a module needs: `#spirv.vce<v1.3, [Shader, Int64], [SPV_KHR_16bit_storage]>`.

    The serializer writes the version into the header, one OpCapability per capability and
    one OpExtension per extension, in the order given.
    """

    name = "spirv.vce"

    version: StringAttr
    capabilities: ArrayAttr[StringAttr]
    extensions: ArrayAttr[StringAttr]

    def __init__(
        self,
        version: str | StringAttr,
        capabilities: Iterable[str | StringAttr],
        extensions: Iterable[str | StringAttr] = (),
    ):
        super().__init__(
            StringAttr(version) if isinstance(version, str) else version,
            ArrayAttr(StringAttr(c) if isinstance(c, str) else c for c in capabilities),
            ArrayAttr(StringAttr(e) if isinstance(e, str) else e for e in extensions),
        )

    @property
    def version_word(self) -> int:
        return enums.VERSIONS[self.version.data]

    @property
    def capability_names(self) -> tuple[str, ...]:
        return tuple(c.data for c in self.capabilities)

    @property
    def extension_names(self) -> tuple[str, ...]:
        return tuple(e.data for e in self.extensions)

    def verify(self) -> None:
        if self.version.data not in enums.VERSIONS:
            raise VerifyException(
                f"unknown SPIR-V version '{self.version.data}', expected one of "
                f"{', '.join(enums.VERSIONS)}"
            )
        for capability in self.capabilities:
            if capability.data not in enums.CAPABILITY:
                raise VerifyException(f"unknown SPIR-V capability '{capability.data}'")
        for extension in self.extensions:
            if not _EXTENSION_NAME.fullmatch(extension.data):
                raise VerifyException(f"invalid SPIR-V extension name '{extension.data}'")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            version = parser.parse_identifier(" (SPIR-V version, e.g. v1.3)")
            parser.parse_punctuation(",")
            capabilities = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: StringAttr(parser.parse_identifier())
            )
            parser.parse_punctuation(",")
            extensions = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: StringAttr(parser.parse_identifier())
            )
        params = (StringAttr(version), ArrayAttr(capabilities), ArrayAttr(extensions))
        _parsed(parser, start, lambda: cls.new(params))
        return params

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{self.version.data}, [{', '.join(self.capability_names)}], "
            f"[{', '.join(self.extension_names)}]>"
        )


# ---------------------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------------------

_VECTOR_LENGTHS = (2, 3, 4, 8, 16)


def is_scalar_type(type_: Attribute) -> bool:
    """i1, i8/i16/i32/i64 (any signedness), f16, f32 or f64."""
    if isinstance(type_, IntegerType):
        return type_.width.data in (1, 8, 16, 32, 64)
    return isinstance(type_, Float16Type | Float32Type | Float64Type)


def is_bool_type(type_: Attribute) -> bool:
    return isinstance(type_, IntegerType) and type_.width.data == 1


def is_vector_type(type_: Attribute) -> bool:
    """A 1-D vector of 2, 3, 4, 8 or 16 scalars."""
    return (
        isinstance(type_, VectorType)
        and type_.get_num_dims() == 1
        and type_.get_shape()[0] in _VECTOR_LENGTHS
        and is_scalar_type(type_.element_type)
        and not any(s.value.data for s in type_.scalable_dims)
    )


def element_type(type_: Attribute) -> Attribute:
    """The scalar of a scalar or vector type."""
    return type_.element_type if isinstance(type_, VectorType) else type_


def is_spirv_type(type_: Attribute) -> bool:
    """Whether `type_` can be used to compose SPIR-V types."""
    return is_scalar_type(type_) or is_vector_type(type_) or isinstance(type_, SpirvType)


def _check_composable(type_: Attribute, what: str) -> None:
    if not is_spirv_type(type_):
        raise VerifyException(f"cannot use '{type_}' to compose SPIR-V types ({what})")


def _print_stride(printer: Printer, stride: IntAttr) -> None:
    if stride.data:
        printer.print_string(f", stride={stride.data}")


def _parse_optional_stride(parser: AttrParser) -> IntAttr:
    if parser.parse_optional_punctuation(",") is None:
        return IntAttr(0)
    parser.parse_keyword("stride")
    parser.parse_punctuation("=")
    pos = parser.pos
    stride = parser.parse_integer(allow_boolean=False)
    if stride <= 0:
        parser.raise_error("ArrayStride must be greater than zero", pos, parser.pos)
    return IntAttr(stride)


class SpirvType(ParametrizedAttribute, TypeAttribute, ABC):
    """Base of the types the dialect defines (pointers, arrays, structs)."""


@irdl_attr_definition
class PointerType(SpirvType):
    """
    A pointer into a storage class: `!spirv.ptr<f32, StorageBuffer>`.

    Example: `PointerType(f32, "StorageBuffer")`.
    """

    name = "spirv.ptr"

    pointee_type: Attribute
    storage_class: StorageClassAttr

    def __init__(self, pointee_type: Attribute, storage_class: str | StorageClassAttr):
        if isinstance(storage_class, str):
            storage_class = StorageClassAttr(storage_class)
        super().__init__(pointee_type, storage_class)

    def verify(self) -> None:
        _check_composable(self.pointee_type, "pointee of !spirv.ptr")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            pointee = parser.parse_type()
            parser.parse_punctuation(",")
            pos = parser.pos
            storage = parser.parse_identifier(" (storage class)")
            if storage not in enums.STORAGE_CLASS:
                parser.raise_error(f"unknown storage class: {storage}", pos, parser.pos)
        params = (pointee, StorageClassAttr(storage))
        _parsed(parser, start, lambda: cls.new(params))
        return params

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.pointee_type)
        printer.print_string(f", {self.storage_class.data}>")


@irdl_attr_definition
class RuntimeArrayType(SpirvType):
    """
    An array whose length is known only at run time (the last member of a buffer's
    struct): `!spirv.rtarray<f32, stride=4>`.

    Example: `RuntimeArrayType(f32, stride=4)`.
    """

    name = "spirv.rtarray"

    element_type: Attribute
    stride: IntAttr

    def __init__(self, element_type: Attribute, stride: int | IntAttr = 0):
        super().__init__(
            element_type, IntAttr(stride) if isinstance(stride, int) else stride
        )

    def verify(self) -> None:
        _check_composable(self.element_type, "element of !spirv.rtarray")
        if self.stride.data < 0:
            raise VerifyException("ArrayStride must be greater than zero")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            element = parser.parse_type()
            stride = _parse_optional_stride(parser)
        _parsed(parser, start, lambda: cls.new((element, stride)))
        return (element, stride)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element_type)
        _print_stride(printer, self.stride)
        printer.print_string(">")


@irdl_attr_definition
class ArrayType(SpirvType):
    """
    A fixed-length array: `!spirv.array<4 x f32, stride=4>`.

    Example: `ArrayType(4, f32, stride=4)`.
    """

    name = "spirv.array"

    size: IntAttr
    element_type: Attribute
    stride: IntAttr

    def __init__(
        self, size: int | IntAttr, element_type: Attribute, stride: int | IntAttr = 0
    ):
        super().__init__(
            IntAttr(size) if isinstance(size, int) else size,
            element_type,
            IntAttr(stride) if isinstance(stride, int) else stride,
        )

    def verify(self) -> None:
        _check_composable(self.element_type, "element of !spirv.array")
        if self.size.data <= 0:
            raise VerifyException("expected array length greater than 0")
        if self.stride.data < 0:
            raise VerifyException("ArrayStride must be greater than zero")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            pos = parser.pos
            size = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
            if size is None:
                parser.raise_error("expected single integer for array element count", pos)
            if size <= 0:
                parser.raise_error("expected array length greater than 0", pos, parser.pos)
            parser.parse_shape_delimiter()
            element = parser.parse_type()
            stride = _parse_optional_stride(parser)
        params = (IntAttr(size), element, stride)
        _parsed(parser, start, lambda: cls.new(params))
        return params

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.size.data} x ")
        printer.print_attribute(self.element_type)
        _print_stride(printer, self.stride)
        printer.print_string(">")


def _decoration_name(text: str) -> str:
    return text.partition("=")[0]


def _check_decoration(text: str, where: str) -> None:
    name, has_value, value = text.partition("=")
    if name not in enums.DECORATION:
        raise VerifyException(f"unknown decoration '{name}' on {where}")
    if (name in enums.DECORATIONS_WITH_VALUE) != bool(has_value):
        expectation = "needs a value (Name=N)" if not has_value else "takes no value"
        raise VerifyException(f"decoration '{name}' on {where} {expectation}")
    if has_value and not value.isdigit():
        raise VerifyException(f"decoration '{text}' on {where} needs an integer value")


@irdl_attr_definition
class StructType(SpirvType):
    """
    A struct: member types, optional member offsets and decorations, and decorations of
    the struct itself.

        !spirv.struct<(f32, i32)>
        !spirv.struct<(f32 [0], i32 [4, NonWritable])>
        !spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>

    Example: `StructType([RuntimeArrayType(f32, 4)], offsets=[0], decorations=["Block"])`.
    """

    name = "spirv.struct"

    member_types: ArrayAttr[Attribute]
    offsets: ArrayAttr[IntAttr]
    """One offset per member, or none at all."""
    member_decorations: ArrayAttr[ArrayAttr[StringAttr]]
    """One list per member (`"NonWritable"`, `"MatrixStride=16"`), or none at all."""
    decorations: ArrayAttr[StringAttr]
    """Decorations of the struct type itself (`"Block"`)."""

    def __init__(
        self,
        member_types: Iterable[Attribute],
        offsets: Iterable[int] | None = None,
        member_decorations: Iterable[Iterable[str]] | None = None,
        decorations: Iterable[str] = (),
    ):
        super().__init__(
            ArrayAttr(member_types),
            ArrayAttr(IntAttr(o) for o in offsets or ()),
            ArrayAttr(
                ArrayAttr(StringAttr(d) for d in decs) for decs in member_decorations or ()
            ),
            ArrayAttr(StringAttr(d) for d in decorations),
        )

    @property
    def num_members(self) -> int:
        return len(self.member_types.data)

    def offset_of(self, index: int) -> int | None:
        return self.offsets.data[index].data if self.offsets.data else None

    def decorations_of(self, index: int) -> tuple[str, ...]:
        if not self.member_decorations.data:
            return ()
        return tuple(d.data for d in self.member_decorations.data[index])

    @property
    def decoration_names(self) -> tuple[str, ...]:
        return tuple(d.data for d in self.decorations)

    def verify(self) -> None:
        for member in self.member_types:
            _check_composable(member, "member of !spirv.struct")
        if self.offsets.data and len(self.offsets.data) != self.num_members:
            raise VerifyException("offset specification must be given for all members")
        if (
            self.member_decorations.data
            and len(self.member_decorations.data) != self.num_members
        ):
            raise VerifyException("member decorations must be given for all members")
        for index in range(self.num_members):
            for decoration in self.decorations_of(index):
                _check_decoration(decoration, f"struct member {index}")
                if _decoration_name(decoration) == "Offset":
                    raise VerifyException(
                        "member offsets go in the offset list, not as Offset="
                    )
        for decoration in self.decoration_names:
            _check_decoration(decoration, "a struct")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        members: list[tuple[Attribute, int | None, list[str]]] = []

        def parse_member() -> None:
            member_type = parser.parse_type()
            offset: int | None = None
            decorations: list[str] = []
            if parser.parse_optional_punctuation("[") is not None:
                offset = parser.parse_optional_integer(allow_boolean=False)
                if offset is None or parser.parse_optional_punctuation(",") is not None:
                    decorations.append(_parse_decoration(parser))
                    while parser.parse_optional_punctuation(",") is not None:
                        decorations.append(_parse_decoration(parser))
                parser.parse_punctuation("]")
            members.append((member_type, offset, decorations))

        start = parser.pos
        with parser.in_angle_brackets():
            parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_member)
            struct_decorations: list[str] = []
            while parser.parse_optional_punctuation(",") is not None:
                struct_decorations.append(_parse_decoration(parser))
        with_offset = [m for m in members if m[1] is not None]
        if with_offset and len(with_offset) != len(members):
            parser.raise_error(
                "offset specification must be given for all members", start, parser.pos
            )
        offsets = [m[1] for m in members if m[1] is not None]
        member_decorations = [m[2] for m in members] if any(m[2] for m in members) else None
        params = (
            ArrayAttr(m[0] for m in members),
            ArrayAttr(IntAttr(o) for o in offsets),
            ArrayAttr(
                ArrayAttr(StringAttr(d) for d in decs) for decs in member_decorations or ()
            ),
            ArrayAttr(StringAttr(d) for d in struct_decorations),
        )
        _parsed(parser, start, lambda: cls.new(params))
        return params

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<(")
        for index, member in enumerate(self.member_types):
            if index:
                printer.print_string(", ")
            printer.print_attribute(member)
            info = [str(self.offset_of(index))] if self.offsets.data else []
            info += self.decorations_of(index)
            if info:
                printer.print_string(f" [{', '.join(info)}]")
        printer.print_string(")")
        for decoration in self.decoration_names:
            printer.print_string(f", {decoration}")
        printer.print_string(">")


def _parse_decoration(parser: AttrParser) -> str:
    pos = parser.pos
    name = parser.parse_identifier(" (decoration)")
    if name not in enums.DECORATION:
        parser.raise_error(f"unknown decoration '{name}'", pos, parser.pos)
    if parser.parse_optional_punctuation("=") is not None:
        return f"{name}={parser.parse_integer(allow_boolean=False, allow_negative=False)}"
    return name


def pointee_of(type_: Attribute) -> Attribute | None:
    """The pointee type of a `!spirv.ptr`, None for other types."""
    return type_.pointee_type if isinstance(type_, PointerType) else None
