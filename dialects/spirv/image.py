"""
Image types and ops of the `spirv` dialect, spelled as MLIR's SPIR-V dialect spells
them: what a Taichi texture (a sampled image with a sampler) and an rw texture (a storage
image with an explicit format) lower to.

    !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>
    !spirv.sampled_image<!spirv.image<f32, Dim2D, ..., NeedSampler, Unknown>>
    %si = spirv.Load "UniformConstant" %tex_ptr : !spirv.sampled_image<...>
    %img = spirv.Image %si : !spirv.sampled_image<...> -> !spirv.image<...>
    %t = spirv.ImageFetch %img, %ij lod %l : !spirv.image<...>, vector<2xi32>, i32 -> vector<4xf32>
    %s = spirv.ImageSampleExplicitLod %si, %uv lod %x : !spirv.sampled_image<...>, vector<2xf32>, f32 -> vector<4xf32>
    %v = spirv.ImageRead %rw, %ij : !spirv.image<..., NoSampler, Rgba8>, vector<2xi32> -> vector<4xf32>
    spirv.ImageWrite %rw, %ij, %v : !spirv.image<..., NoSampler, Rgba8>, vector<2xi32>, vector<4xf32>

The explicit-lod forms always carry their `Lod` image operand (compute shaders have no
implicit derivatives).
"""

from __future__ import annotations

from collections.abc import Sequence

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.spirv.attributes import SpirvType, is_scalar_type
from xdsl.dialects.builtin import StringAttr, VectorType, f32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

DIM: dict[str, int] = {
    "Dim1D": 0,
    "Dim2D": 1,
    "Dim3D": 2,
    "Cube": 3,
    "Rect": 4,
    "Buffer": 5,
}
DEPTH: dict[str, int] = {"NoDepth": 0, "IsDepth": 1, "DepthUnknown": 2}
ARRAYED: dict[str, int] = {"NonArrayed": 0, "Arrayed": 1}
SAMPLING: dict[str, int] = {"SingleSampled": 0, "MultiSampled": 1}
SAMPLER_USE: dict[str, int] = {"SamplerUnknown": 0, "NeedSampler": 1, "NoSampler": 2}
IMAGE_FORMAT: dict[str, int] = {
    "Unknown": 0,
    "Rgba32f": 1,
    "Rgba16f": 2,
    "R32f": 3,
    "Rgba8": 4,
    "Rgba8Snorm": 5,
    "Rg32f": 6,
    "Rg16f": 7,
    "R11fG11fB10f": 8,
    "R16f": 9,
    "Rgba16": 10,
    "Rgb10A2": 11,
    "Rg16": 12,
    "Rg8": 13,
    "R16": 14,
    "R8": 15,
    "Rgba16Snorm": 16,
    "Rg16Snorm": 17,
    "Rg8Snorm": 18,
    "R16Snorm": 19,
    "R8Snorm": 20,
    "Rgba32i": 21,
    "Rgba16i": 22,
    "Rgba8i": 23,
    "R32i": 24,
    "Rg32i": 25,
    "Rg16i": 26,
    "Rg8i": 27,
    "R16i": 28,
    "R8i": 29,
    "Rgba32ui": 30,
    "Rgba16ui": 31,
    "Rgba8ui": 32,
    "R32ui": 33,
    "Rgb10a2ui": 34,
    "Rg32ui": 35,
    "Rg16ui": 36,
    "Rg8ui": 37,
    "R16ui": 38,
    "R8ui": 39,
}
BASE_FORMATS = frozenset(
    {"Unknown", "Rgba32f", "Rgba16f", "R32f", "Rgba8", "Rgba8Snorm", "Rgba32i",
     "Rgba16i", "Rgba8i", "R32i", "Rgba32ui", "Rgba16ui", "Rgba8ui", "R32ui"}
)  # fmt: skip
"""Storage-image formats of the Shader capability; the others need
StorageImageExtendedFormats."""
DIM_TEXT = {"Dim1D": "1D", "Dim2D": "2D", "Dim3D": "3D"}
"""How spirv-dis names the dims (the serializer's text form)."""
LOD_OPERAND = 0x2
"""The `Lod` bit of the Image Operands mask."""

_TABLES: tuple[tuple[str, dict[str, int]], ...] = (
    ("dim", DIM),
    ("depth", DEPTH),
    ("arrayed", ARRAYED),
    ("sampling", SAMPLING),
    ("sampler use", SAMPLER_USE),
    ("image format", IMAGE_FORMAT),
)


@irdl_attr_definition
class ImageType(SpirvType):
    """
    OpTypeImage: `!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled,
    NeedSampler, Unknown>` (sampled type, dim, depth, arrayed, sampling, sampler use,
    format).

    Example: `ImageType(f32, "Dim2D", sampler_use="NoSampler", format="Rgba8")`.
    """

    name = "spirv.image"

    sampled_type: Attribute
    dim: StringAttr
    depth: StringAttr
    arrayed: StringAttr
    sampling: StringAttr
    sampler_use: StringAttr
    format: StringAttr

    def __init__(
        self,
        sampled_type: Attribute,
        dim: str,
        *,
        depth: str = "NoDepth",
        arrayed: str = "NonArrayed",
        sampling: str = "SingleSampled",
        sampler_use: str = "NeedSampler",
        format: str = "Unknown",
    ):
        super().__init__(
            sampled_type,
            *(StringAttr(x) for x in (dim, depth, arrayed, sampling, sampler_use, format)),
        )

    @property
    def enums(self) -> tuple[str, ...]:
        return tuple(
            a.data
            for a in (self.dim, self.depth, self.arrayed, self.sampling)
            + (self.sampler_use, self.format)
        )

    def verify(self) -> None:
        if not is_scalar_type(self.sampled_type):
            raise VerifyException(
                f"image sampled type must be a scalar, got {self.sampled_type}"
            )
        for (what, table), value in zip(_TABLES, self.enums):
            if value not in table:
                raise VerifyException(f"unknown {what} '{value}' in !spirv.image")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            sampled = parser.parse_type()
            names: list[StringAttr] = []
            for what, table in _TABLES:
                parser.parse_punctuation(",")
                pos = parser.pos
                name = parser.parse_identifier(f" ({what})")
                if name not in table:
                    parser.raise_error(f"unknown {what} '{name}'", pos, parser.pos)
                names.append(StringAttr(name))
        return (sampled, *names)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.sampled_type)
        printer.print_string(", " + ", ".join(self.enums) + ">")


@irdl_attr_definition
class SampledImageType(SpirvType):
    """
    OpTypeSampledImage: an image with its sampler, `!spirv.sampled_image<!spirv.image<...>>`.

    Example: `SampledImageType(ImageType(f32, "Dim2D"))`.
    """

    name = "spirv.sampled_image"

    image_type: ImageType

    def __init__(self, image_type: ImageType):
        super().__init__(image_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            image = parser.parse_type()
        return (image,)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.image_type)
        printer.print_string(">")


def _texel_type(op: Operation, t: Attribute, sampled: Attribute) -> None:
    if not (
        isinstance(t, VectorType) and t.get_shape() == (4,) and t.element_type == sampled
    ):
        raise VerifyException(f"'{op.name}' texels are vector<4x{sampled}>, got {t}")


def _coordinate(
    op: Operation, image: ImageType, coordinate: Attribute, element: str
) -> None:
    n = {"Dim1D": 1, "Dim2D": 2, "Dim3D": 3}.get(image.dim.data)
    if n is None:
        raise VerifyException(f"'{op.name}' on a {image.dim.data} image")
    scalar = coordinate.element_type if isinstance(coordinate, VectorType) else coordinate
    size = coordinate.get_shape()[0] if isinstance(coordinate, VectorType) else 1
    if size != n or not str(scalar).startswith(element):
        raise VerifyException(
            f"'{op.name}' on a {image.dim.data} image takes {n} {element} coordinate(s), "
            f"got {coordinate}"
        )


@irdl_op_definition
class ImageOp(IRDLOperation):
    """
    OpImage: the image of a sampled image.

    Example: `%img = spirv.Image %si : !spirv.sampled_image<...> -> !spirv.image<...>`
    """

    name = "spirv.Image"
    sampled_image = operand_def(SampledImageType)
    result = result_def(ImageType)
    assembly_format = "$sampled_image attr-dict `:` type($sampled_image) `->` type($result)"
    traits = traits_def(Pure())

    def __init__(self, sampled_image: SSAValue | Operation):
        t = SSAValue.get(sampled_image).type
        assert isinstance(t, SampledImageType)
        super().__init__(operands=[sampled_image], result_types=[t.image_type])

    def verify_(self) -> None:
        t = self.sampled_image.type
        assert isinstance(t, SampledImageType)
        if t.image_type != self.result.type:
            raise VerifyException(f"'{self.name}' of {t} gives {t.image_type}")


@irdl_op_definition
class ImageFetchOp(IRDLOperation):
    """
    OpImageFetch with the Lod operand: the texel at integer coordinates of an image
    that needs a sampler.

    Example:
        %t = spirv.ImageFetch %img, %ij lod %l : !spirv.image<...>, vector<2xi32>, i32 -> vector<4xf32>
    """

    name = "spirv.ImageFetch"
    image = operand_def(ImageType)
    coordinate = operand_def()
    lod = operand_def()
    result = result_def(VectorType)
    assembly_format = (
        "$image `,` $coordinate `lod` $lod attr-dict `:` type($image) `,` "
        "type($coordinate) `,` type($lod) `->` type($result)"
    )
    traits = traits_def(Pure())

    def __init__(
        self,
        image: SSAValue | Operation,
        coordinate: SSAValue | Operation,
        lod: SSAValue | Operation,
    ):
        super().__init__(
            operands=[image, coordinate, lod], result_types=[VectorType(f32, [4])]
        )

    def verify_(self) -> None:
        t = self.image.type
        assert isinstance(t, ImageType)
        if t.sampler_use.data != "NeedSampler":
            raise VerifyException(f"'{self.name}' needs an image of a sampled image")
        _coordinate(self, t, self.coordinate.type, "i")
        _texel_type(self, self.result.type, t.sampled_type)


@irdl_op_definition
class ImageSampleExplicitLodOp(IRDLOperation):
    """
    OpImageSampleExplicitLod with the Lod operand: filtered sampling at normalized
    coordinates.

    Example:
        %s = spirv.ImageSampleExplicitLod %si, %uv lod %x : !spirv.sampled_image<...>, vector<2xf32>, f32 -> vector<4xf32>
    """

    name = "spirv.ImageSampleExplicitLod"
    sampled_image = operand_def(SampledImageType)
    coordinate = operand_def()
    lod = operand_def()
    result = result_def(VectorType)
    assembly_format = (
        "$sampled_image `,` $coordinate `lod` $lod attr-dict `:` type($sampled_image) "
        "`,` type($coordinate) `,` type($lod) `->` type($result)"
    )
    traits = traits_def(Pure())

    def __init__(
        self,
        sampled_image: SSAValue | Operation,
        coordinate: SSAValue | Operation,
        lod: SSAValue | Operation,
    ):
        super().__init__(
            operands=[sampled_image, coordinate, lod], result_types=[VectorType(f32, [4])]
        )

    def verify_(self) -> None:
        t = self.sampled_image.type
        assert isinstance(t, SampledImageType)
        _coordinate(self, t.image_type, self.coordinate.type, "f")
        _texel_type(self, self.result.type, t.image_type.sampled_type)


@irdl_op_definition
class ImageReadOp(IRDLOperation):
    """
    OpImageRead: a texel of a storage image.

    Example:
        %v = spirv.ImageRead %rw, %ij : !spirv.image<...>, vector<2xi32> -> vector<4xf32>
    """

    name = "spirv.ImageRead"
    image = operand_def(ImageType)
    coordinate = operand_def()
    result = result_def(VectorType)
    assembly_format = (
        "$image `,` $coordinate attr-dict `:` type($image) `,` type($coordinate) "
        "`->` type($result)"
    )
    traits = traits_def(MemoryReadEffect())

    def __init__(self, image: SSAValue | Operation, coordinate: SSAValue | Operation):
        super().__init__(operands=[image, coordinate], result_types=[VectorType(f32, [4])])

    def verify_(self) -> None:
        t = self.image.type
        assert isinstance(t, ImageType)
        if t.sampler_use.data != "NoSampler":
            raise VerifyException(f"'{self.name}' needs a storage image (NoSampler)")
        _coordinate(self, t, self.coordinate.type, "i")
        _texel_type(self, self.result.type, t.sampled_type)


@irdl_op_definition
class ImageWriteOp(IRDLOperation):
    """
    OpImageWrite: write a texel of a storage image.

    Example:
        spirv.ImageWrite %rw, %ij, %v : !spirv.image<...>, vector<2xi32>, vector<4xf32>
    """

    name = "spirv.ImageWrite"
    image = operand_def(ImageType)
    coordinate = operand_def()
    texel = operand_def(VectorType)
    assembly_format = (
        "$image `,` $coordinate `,` $texel attr-dict `:` type($image) `,` "
        "type($coordinate) `,` type($texel)"
    )
    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        image: SSAValue | Operation,
        coordinate: SSAValue | Operation,
        texel: SSAValue | Operation,
    ):
        super().__init__(operands=[image, coordinate, texel])

    def verify_(self) -> None:
        t = self.image.type
        assert isinstance(t, ImageType)
        if t.sampler_use.data != "NoSampler":
            raise VerifyException(f"'{self.name}' needs a storage image (NoSampler)")
        _coordinate(self, t, self.coordinate.type, "i")
        _texel_type(self, self.texel.type, t.sampled_type)
