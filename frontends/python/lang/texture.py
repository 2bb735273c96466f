"""
Textures (Taichi's `ti.Texture`, `ti.types.texture`, `ti.types.rw_texture`), on Vulkan.

    ti.init(arch=ti.vulkan)
    tex = ti.Texture(ti.Format.rgba8, (w, h))
    tex.from_ndarray(arr)                       # (w, h, 4) floats in [0, 1] (or uint8)

    @ti.kernel
    def k(src: ti.types.texture(num_dimensions=2),
          dst: ti.types.rw_texture(num_dimensions=2, fmt=ti.Format.rgba8, lod=0)):
        for i, j in dst:                        # a struct-for over an rw texture
            c = src.fetch(ti.Vector([i, j]), 0) # vec4 of f32 (normalized for rgba8)
            s = src.sample_lod(ti.Vector([u, v]), 0.0)
            dst.store(ti.Vector([i, j]), c)     # rw: load(coords) / store(coords, vec4)

    out = tex2.to_ndarray()                     # (w, h, 4) float32

A texture is a Vulkan image that lives on the device only (targets/vulkan/images.py); its
texels are addressed as Taichi does: `(i, j, k)` is `(x, y, z)`, `arr[i, j]` of a host
array is texel (i, j). Supported formats: normalized and float ones (`r8`, `rg8`,
`rgba8`, `r16`, `rg16`, `rgba16`, `r16f`, `rg16f`, `rgba16f`, `r32f`, `rg32f`,
`rgba32f`); the others of ti.Format raise a clear error. Textures need arch=ti.vulkan:
on the CPU, creating one or compiling a kernel that takes one raises
TaichiCompilationError.

Inside kernels, texture arguments become `!taichi.texture` values and `taichi.texture_*`
ops (dialects/taichi.py, emitted by codegen/textures.py); SPIR-V binds them after the
ndarrays (utils/spirv_abi.py).
"""

from __future__ import annotations

import enum
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
from taichi_xdsl.utils import spirv_abi
from taichi_xdsl.utils.errors import TaichiCompilationError, TaichiRuntimeError, TaichiTypeError

from . import dtypes
from . import program as _program


class Format(enum.Enum):
    """Texel formats, named as Taichi 1.7's `ti.Format`."""

    unknown = "unknown"
    r8 = "r8"
    rg8 = "rg8"
    rgba8 = "rgba8"
    rgba8srgb = "rgba8srgb"
    bgra8 = "bgra8"
    bgra8srgb = "bgra8srgb"
    r8u = "r8u"
    rg8u = "rg8u"
    rgba8u = "rgba8u"
    r8i = "r8i"
    rg8i = "rg8i"
    rgba8i = "rgba8i"
    r16 = "r16"
    rg16 = "rg16"
    rgb16 = "rgb16"
    rgba16 = "rgba16"
    r16u = "r16u"
    rg16u = "rg16u"
    rgb16u = "rgb16u"
    rgba16u = "rgba16u"
    r16i = "r16i"
    rg16i = "rg16i"
    rgb16i = "rgb16i"
    rgba16i = "rgba16i"
    r16f = "r16f"
    rg16f = "rg16f"
    rgb16f = "rgb16f"
    rgba16f = "rgba16f"
    r32u = "r32u"
    rg32u = "rg32u"
    rgb32u = "rgb32u"
    rgba32u = "rgba32u"
    r32i = "r32i"
    rg32i = "rg32i"
    rgb32i = "rgb32i"
    rgba32i = "rgba32i"
    r32f = "r32f"
    rg32f = "rg32f"
    rgb32f = "rgb32f"
    rgba32f = "rgba32f"
    depth16 = "depth16"
    depth24stencil8 = "depth24stencil8"
    depth32f = "depth32f"


_CHANNEL_FORMATS: dict[tuple[str, int], str] = {
    ("u8", 1): "r8",
    ("u8", 2): "rg8",
    ("u8", 4): "rgba8",
    ("u16", 1): "r16",
    ("u16", 2): "rg16",
    ("u16", 4): "rgba16",
    ("f16", 1): "r16f",
    ("f16", 2): "rg16f",
    ("f16", 4): "rgba16f",
    ("f32", 1): "r32f",
    ("f32", 2): "rg32f",
    ("f32", 4): "rgba32f",
}
"""(channel_format, num_channels) -> format, as Taichi's TY_CH2FORMAT (the deprecated
spelling of rw_texture(...), which seed 004 uses)."""

_STORED: dict[str, tuple[type[np.generic], float]] = {
    "unorm8": (np.uint8, 255.0),
    "unorm16": (np.uint16, 65535.0),
    "f16": (np.float16, 0.0),
    "f32": (np.float32, 0.0),
}
"""Texel channel storage: numpy type, and the scale of a normalized format (0: float)."""


def format_name(fmt: Any) -> str:
    """The supported format named by `fmt` (a ti.Format or its name), else raise."""
    name = fmt.value if isinstance(fmt, Format) else getattr(fmt, "name", fmt)
    if not isinstance(name, str) or name not in Format.__members__:
        raise TaichiTypeError(f"{fmt!r} is not a ti.Format")
    if name not in spirv_abi.TEXTURE_FORMATS:
        supported = ", ".join(spirv_abi.TEXTURE_FORMATS)
        raise TaichiTypeError(
            f"textures of format ti.Format.{name} are not supported (integer, 3-channel, "
            f"sRGB and depth formats are not); supported: {supported}"
        )
    return name


# ---------------------------------------------------------------------------------------
# Annotations


class TextureType:
    """`ti.types.texture(num_dimensions)`: a sampled texture parameter (fetch,
    sample_lod)."""

    rw = False
    fmt: str = ""

    def __init__(self, num_dimensions: int):
        if num_dimensions not in (1, 2, 3):
            raise TaichiTypeError(f"textures have 1 to 3 dimensions, got {num_dimensions}")
        self.num_dimensions = int(num_dimensions)

    def ir_type(self) -> Any:
        from taichi_xdsl.dialects.taichi import TextureType as IRTextureType

        return IRTextureType(self.num_dimensions, "rw" if self.rw else "sampled", self.fmt)

    def __repr__(self) -> str:
        return f"ti.types.texture(num_dimensions={self.num_dimensions})"


class RWTextureType(TextureType):
    """
    `ti.types.rw_texture(num_dimensions, lod=0, fmt=...)`: a storage-image parameter
    (load, store). `num_channels` + `channel_format` name the format as older Taichi did.
    """

    rw = True

    def __init__(
        self,
        num_dimensions: int,
        lod: int = 0,
        fmt: Any = None,
        *,
        num_channels: int | None = None,
        channel_format: Any = None,
    ):
        super().__init__(num_dimensions)
        if fmt is None and (num_channels is not None or channel_format is not None):
            dt = dtypes.cook_dtype(channel_format, dtypes.i32, dtypes.f32)
            key = (str(dt), int(num_channels or 0))
            if key not in _CHANNEL_FORMATS:
                raise TaichiTypeError(
                    f"rw_texture: no supported format has {num_channels} channel(s) of {dt}"
                )
            fmt = _CHANNEL_FORMATS[key]
        if fmt is None:
            raise TaichiCompilationError("fmt is required for rw_texture type")
        self.fmt = format_name(fmt)
        if lod != 0:
            raise TaichiTypeError(f"rw_texture(lod={lod}): only mip level 0 is supported")
        self.lod = 0

    def __repr__(self) -> str:
        return (
            f"ti.types.rw_texture(num_dimensions={self.num_dimensions}, "
            f"fmt=ti.Format.{self.fmt}, lod=0)"
        )


texture = TextureType
rw_texture = RWTextureType


def is_texture_annotation(ann: Any) -> bool:
    return isinstance(ann, TextureType)


def check_texture_argument(name: str, ann: TextureType, value: Any) -> None:
    """
    A ti.Texture given for parameter `name` against its annotation, with Taichi's
    messages.

    Raises:
        TaichiRuntimeError: another number of dimensions, or (rw_texture) another format.
    """
    if not isinstance(value, Texture):
        return
    kind = "RWTextureType" if ann.rw else "TextureType"
    if value.num_dims != ann.num_dimensions:
        raise TaichiRuntimeError(
            f"{kind} dimension mismatch for argument {name}: expected "
            f"{ann.num_dimensions}, got {value.num_dims}"
        )
    if ann.rw and value.format_name != ann.fmt:
        raise TaichiRuntimeError(
            f"{kind} format mismatch for argument {name}: expected Format.{ann.fmt}, "
            f"got Format.{value.format_name}"
        )


class TextureSlot:
    """
    A texture parameter not bound to a ti.Texture yet: what `ti.graph` and `ti.aot`
    compile a kernel with (the code depends on the annotation only). Launching a kernel
    with it raises the launch's "must be a ti.Texture" error.
    """

    def __init__(self, annotation: TextureType):
        self.annotation = annotation

    def __repr__(self) -> str:
        return f"TextureSlot({self.annotation!r})"


# ---------------------------------------------------------------------------------------
# ti.Texture


class Texture:
    """
    A device texture (`ti.Texture(fmt, arr_shape)`), usable as a `ti.types.texture` and
    (for formats the device can store) a `ti.types.rw_texture` argument.

    Raises:
        TaichiCompilationError: not on arch=ti.vulkan.
        TaichiTypeError: an unsupported format or shape.
    """

    def __init__(self, fmt: Any, arr_shape: Sequence[int]):
        self.format_name = format_name(fmt)
        self.fmt = Format[self.format_name]
        self.shape = tuple(int(s) for s in arr_shape)
        self.num_dims = len(self.shape)
        if not 1 <= self.num_dims <= 3 or min(self.shape) < 1:
            raise TaichiTypeError(f"ti.Texture: bad shape {tuple(arr_shape)}")
        _, vk_format, self.channels, storage = spirv_abi.TEXTURE_FORMATS[self.format_name]
        self._dtype, self._scale = _STORED[storage]
        prog = _program.get_program()
        if prog.config.arch is not _program.vulkan:
            raise TaichiCompilationError(
                "ti.Texture: textures need arch=ti.vulkan "
                f"(this program runs on {prog.config.arch})"
            )
        self._backend = prog.backend
        self._generation = prog.generation
        texel_bytes = self.channels * np.dtype(self._dtype).itemsize
        runtime = self._backend.runtime
        self._image = runtime.create_image(self.shape, vk_format, texel_bytes)
        from taichi_xdsl.targets.vulkan.images import orphan

        # A dropped texture's image is destroyed at the next texture creation.
        weakref.finalize(self, orphan, runtime, self._image)

    def __repr__(self) -> str:
        return f"ti.Texture(ti.Format.{self.format_name}, {self.shape})"

    # -- launches ------------------------------------------------------------------------

    def vulkan_image(self, runtime: Any) -> Any:
        """The device image, for a launch on `runtime` (targets/vulkan/backend.py)."""
        if runtime is not self._backend.runtime or self._image.alloc is None:
            raise TaichiTypeError(f"{self!r} belongs to another (or an ended) program")
        return self._image

    # -- host transfers -----------------------------------------------------------------

    def from_ndarray(self, ndarray: Any) -> None:
        """
        Load texels from an ndarray or NumPy array of shape `arr_shape` (one channel)
        or `arr_shape + (channels,)`: floats (normalized formats: in [0, 1]), or the
        format's own channel type (uint8 for rgba8, ...) copied as they are. Elements
        with more channels than the format give it their first ones (a vec2 array fills
        an r32f texture with its x), as in Taichi; fewer channels are an error.
        """
        arr = np.asarray(getattr(ndarray, "arr", ndarray))
        want = self.shape + ((self.channels,) if self.channels > 1 else ())
        if arr.ndim == self.num_dims + 1 and arr.shape[:-1] == self.shape:
            if arr.shape[-1] > self.channels:  # as Taichi: channels past the format's are dropped
                arr = arr[..., : self.channels]
            if self.channels == 1:
                arr = arr.reshape(self.shape)
        if arr.shape != want:
            raise TaichiTypeError(
                f"{self!r}.from_ndarray: expected an array of shape {want}, got {arr.shape}"
            )
        if arr.dtype == self._dtype:
            texels = arr
        elif arr.dtype.kind in "fiub":
            values = arr.astype(np.float64)
            if self._scale:
                values = np.round(np.clip(values, 0.0, 1.0) * self._scale)
            texels = values.astype(self._dtype)
        else:
            raise TaichiTypeError(f"{self!r}.from_ndarray: unsupported dtype {arr.dtype}")
        texels = texels.reshape(self.shape + (self.channels,))
        order = tuple(reversed(range(self.num_dims))) + (self.num_dims,)
        host = np.ascontiguousarray(texels.transpose(order))  # x fastest
        self._host_changed()
        self._backend.runtime.upload_image(self._image, host)

    def from_field(self, field: Any) -> None:
        """Load texels from a field of shape `arr_shape` (a Vector field for several
        channels), as from_ndarray."""
        self.from_ndarray(field.to_numpy())

    def to_ndarray(self) -> np.ndarray:
        """
        The texels as float32 (normalized formats in [0, 1]), shape `arr_shape`
        (one channel) or `arr_shape + (channels,)`; waits for launched kernels.
        """
        raw = self._backend.runtime.download_image(self._image)
        texels = raw.view(self._dtype).astype(np.float32)
        if self._scale:
            texels = texels / np.float32(self._scale)
        texels = texels.reshape(tuple(reversed(self.shape)) + (self.channels,))
        order = tuple(reversed(range(self.num_dims))) + (self.num_dims,)
        out = np.ascontiguousarray(texels.transpose(order))
        return out.reshape(self.shape) if self.channels == 1 else out

    def to_numpy(self) -> np.ndarray:
        """Same as to_ndarray."""
        return self.to_ndarray()

    def _host_changed(self) -> None:
        if _program._current is None or _program._current.generation != self._generation:
            raise TaichiTypeError(f"{self!r} belongs to an ended program (ti.init again)")
