"""
Texture accesses of convert-offload-to-spirv: `taichi.texture_*` ops -> image ops on
the texture's binding (sampled images for sampled textures, storage images for rw
ones; utils/spirv_abi.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from taichi_xdsl.dialects import offload, spirv, taichi
from taichi_xdsl.dialects.spirv.image import BASE_FORMATS
from taichi_xdsl.lowering.spirv_common import (
    TaskPattern,
    TaskState,
    fail,
    kernel_inputs,
    shape_word,
)
from taichi_xdsl.utils import spirv_abi
from xdsl.dialects.builtin import MemRefType, VectorType, f32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter


def _texture_binding(kernel: offload.KernelOp, arg: int) -> int:
    """The binding of texture argument `arg` (utils/spirv_abi.py)."""
    inputs = kernel.function_type.inputs.data
    num_ndarrays = sum(isinstance(t, MemRefType) for t in inputs)
    position = sum(isinstance(t, taichi.TextureType) for t in inputs[:arg])
    return spirv_abi.texture_binding(num_ndarrays, position)


_DIMS = {1: "Dim1D", 2: "Dim2D", 3: "Dim3D"}


def _image(state: TaskState, texture: SSAValue, op: Operation) -> SSAValue:
    """
    The loaded image of a texture argument: a sampled image (combined image sampler)
    for a sampled texture, a storage image of the texture's format for an rw one; the
    global variable and its load are made once per task, in the entry block.
    """
    arg = texture.owner
    t = texture.type
    if not isinstance(arg, offload.ArgOp) or not isinstance(t, taichi.TextureType):
        raise fail(op, "a texture access on something other than a texture argument")
    binding = _texture_binding(state.kernel, arg.index.value.data)
    if binding in state.images:
        return state.images[binding]
    dim = _DIMS[t.ndim]
    if t.is_rw:
        spec = spirv_abi.TEXTURE_FORMATS.get(t.format.data)
        if spec is None:
            raise fail(op, f"rw textures of format '{t.format.data}' are not supported")
        image_format = spec[0]
        image_type: Attribute = spirv.ImageType(
            f32, dim, sampler_use="NoSampler", format=image_format
        )
        if image_format not in BASE_FORMATS:
            state.capabilities.add("StorageImageExtendedFormats")
        if t.ndim == 1:
            state.capabilities.add("Image1D")
    else:
        image_type = spirv.SampledImageType(spirv.ImageType(f32, dim))
        if t.ndim == 1:
            state.capabilities.add("Sampled1D")
    var = spirv.GlobalVariableOp(
        f"tex{binding}",
        spirv.PointerType(image_type, "UniformConstant"),
        descriptor_set=0,
        binding=binding,
    )
    module_block = state.module.body.block
    module_block.insert_op_before(var, module_block.first_op)  # type: ignore[arg-type]
    address = spirv.AddressOfOp(var)
    load = spirv.LoadOp(address)
    state.at_entry([address, load])
    state.images[binding] = load.results[0]
    return load.results[0]


def _coordinate(coords: Sequence[SSAValue], ops: list[Operation]) -> SSAValue:
    """One coordinate, or a vector of 2 or 3."""
    if len(coords) == 1:
        return coords[0]
    vector = spirv.CompositeConstructOp(coords, VectorType(coords[0].type, [len(coords)]))
    ops.append(vector)
    return vector.results[0]


def _channels(texel: SSAValue, ops: list[Operation]) -> list[SSAValue]:
    extracts = [spirv.CompositeExtractOp(texel, [c]) for c in range(4)]
    ops += extracts
    return [e.results[0] for e in extracts]


class TextureLowering(TaskPattern):
    """
    Texture accesses -> image ops on the texture's binding (utils/spirv_abi.py).

        %r, %g, %b, %a = taichi.texture_load %t[%i, %j] : !taichi.texture<2, rw, rgba8>
        ~> %ij = spirv.CompositeConstruct %i, %j : (i32, i32) -> vector<2xi32>
           %v = spirv.ImageRead %img, %ij : !spirv.image<..., NoSampler, Rgba8>, ...
           %r = spirv.CompositeExtract %v[0 : i32] : vector<4xf32>   (x4)

    `texture_fetch` is OpImageFetch on the image of the sampled image,
    `texture_sample_lod` OpImageSampleExplicitLod, `texture_store` OpImageWrite of the
    four channels, `texture_dim` the texture's extent word in the argument buffer.
    """

    op_types = (
        taichi.TextureDimOp,
        taichi.TextureFetchOp,
        taichi.TextureSampleLodOp,
        taichi.TextureLoadOp,
        taichi.TextureStoreOp,
    )
    """What it converts (lowering/pattern_dispatch.py)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        state = self.state
        ops: list[Operation] = []
        match op:
            case taichi.TextureDimOp():
                arg = op.texture.owner
                if not isinstance(arg, offload.ArgOp):
                    raise fail(op, "the extent of something other than a texture argument")
                offsets, _ = kernel_inputs(state.kernel)
                word = shape_word(
                    state, offsets[arg.index.value.data], op.axis.value.data, ops
                )
                rewriter.replace(op, ops, [word])
            case taichi.TextureFetchOp():
                sampled = _image(state, op.texture, op)
                image = spirv.ImageOp(sampled)
                ops.append(image)
                coordinate = _coordinate(op.coords, ops)
                texel = spirv.ImageFetchOp(image, coordinate, op.lod)
                ops.append(texel)
                rewriter.replace(op, ops, _channels(texel.result, ops))
            case taichi.TextureSampleLodOp():
                sampled = _image(state, op.texture, op)
                coordinate = _coordinate(op.coords, ops)
                texel = spirv.ImageSampleExplicitLodOp(sampled, coordinate, op.lod)
                ops.append(texel)
                rewriter.replace(op, ops, _channels(texel.result, ops))
            case taichi.TextureLoadOp():
                image = _image(state, op.texture, op)
                coordinate = _coordinate(op.coords, ops)
                texel = spirv.ImageReadOp(image, coordinate)
                ops.append(texel)
                rewriter.replace(op, ops, _channels(texel.result, ops))
            case taichi.TextureStoreOp():
                image = _image(state, op.texture, op)
                coordinate = _coordinate(op.coords, ops)
                texel = spirv.CompositeConstructOp(op.channels, VectorType(f32, [4]))
                ops += [texel, spirv.ImageWriteOp(image, coordinate, texel)]
                rewriter.replace(op, ops, [])
            case _:
                return
