"""
`ti.types`: kernel parameter annotations and the primitive types.

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1), f: ti.template(), a: ti.f32): ...
"""

from __future__ import annotations

from typing import Any

from .dtypes import (  # noqa: F401  (re-exported as ti.types.*)
    DataType,
    f16,
    f32,
    f64,
    float16,
    float32,
    float64,
    i8,
    i16,
    i32,
    i64,
    int8,
    int16,
    int32,
    int64,
    u1,
    u8,
    u16,
    u32,
    u64,
    uint8,
    uint16,
    uint32,
    uint64,
)


class NdarrayType:
    """
    `ti.types.ndarray(dtype=None, ndim=None)`: an ndarray parameter. What is left
    unspecified is taken from the argument of each call (and keys the instantiation).
    """

    def __init__(self, dtype: Any = None, ndim: int | None = None, **_ignored: Any):
        self.dtype = dtype
        self.ndim = ndim

    def __repr__(self) -> str:
        return f"ti.types.ndarray(dtype={self.dtype!r}, ndim={self.ndim!r})"


def ndarray(dtype: Any = None, ndim: int | None = None, **kwargs: Any) -> NdarrayType:
    """An ndarray parameter annotation (`ti.types.ndarray(dtype=ti.f32, ndim=2)`)."""
    return NdarrayType(dtype, ndim, **kwargs)


def vector(n: int, dtype: Any = None) -> Any:
    """`ti.types.vector(n, dtype)`: the type of n-vectors."""
    from .matrix import vector as _vector

    return _vector(n, dtype)


def matrix(n: int, m: int, dtype: Any = None) -> Any:
    """`ti.types.matrix(n, m, dtype)`: the type of n x m matrices."""
    from .matrix import matrix as _matrix

    return _matrix(n, m, dtype)


def struct(**members: Any) -> Any:
    """`ti.types.struct(a=ti.f32, v=ti.math.vec2)`: a struct type."""
    from .struct import struct as _struct

    return _struct(**members)


class Template:
    """
    `ti.template()`: a parameter whose argument is fixed at compile time (a field, a
    Python number, any Python object); each distinct argument instantiates the kernel.
    """

    def __repr__(self) -> str:
        return "ti.template()"


def template() -> Template:
    """A template parameter annotation."""
    return Template()


from .texture import RWTextureType, TextureType, rw_texture, texture  # noqa: E402

__all__ = [
    "DataType",
    "RWTextureType",
    "TextureType",
    "NdarrayType",
    "Template",
    "f16",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "matrix",
    "ndarray",
    "struct",
    "template",
    "texture",
    "rw_texture",
    "u1",
    "u8",
    "u16",
    "u32",
    "u64",
    "vector",
]
