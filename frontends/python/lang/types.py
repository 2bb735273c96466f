"""
`ti.types`: kernel parameter annotations and the primitive types.

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1), f: ti.template(), a: ti.f32): ...
"""

from __future__ import annotations

from typing import Any

from taichi_xdsl.utils.errors import TaichiError

from .dtypes import (  # noqa: F401  (re-exported as ti.types.*)
    cook_dtype,
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
    `ti.types.ndarray(dtype=None, ndim=None, ...)`: an ndarray parameter. What is left
    unspecified is taken from the argument of each call (and keys the instantiation).

    `element_shape=(n,)` / `(n, m)` makes the elements vectors / matrices of `dtype`;
    `needs_grad=True` requires an argument with a gradient (`ti.ndarray(...,
    needs_grad=True)`); `boundary` is "unsafe" (the default) or "clamp" (indices clamped into range).
    """

    def __init__(
        self,
        dtype: Any = None,
        ndim: int | None = None,
        element_dim: int | None = None,
        element_shape: tuple[int, ...] | None = None,
        field_dim: int | None = None,
        needs_grad: bool | None = None,
        boundary: str = "unsafe",
    ):
        if field_dim is not None:
            raise ValueError(
                "ti.types.ndarray: field_dim is deprecated (as in Taichi); use ndim"
            )
        if element_dim is not None or element_shape is not None:
            dtype = _element_dtype(dtype, element_dim, element_shape)
        if boundary not in ("unsafe", "clamp"):
            raise ValueError(f"ti.types.ndarray: invalid boundary argument {boundary!r}")
        self.dtype = dtype
        self.ndim = ndim
        self.needs_grad = needs_grad
        self.boundary = boundary
        """'clamp': an index out of range reads/writes the nearest element."""

    def __repr__(self) -> str:
        return f"ti.types.ndarray(dtype={self.dtype!r}, ndim={self.ndim!r})"


def _element_dtype(
    dtype: Any, element_dim: int | None, element_shape: tuple[int, ...] | None
) -> Any:
    """The vector or matrix type that `element_dim` / `element_shape` make of `dtype`."""
    if hasattr(dtype, "cooked") and hasattr(dtype, "shape"):
        raise TypeError(
            f"ti.types.ndarray: a {dtype} dtype and an element shape or dim at once"
        )
    if element_shape is not None:
        element_shape = tuple(element_shape)
        if element_dim is not None and element_dim != len(element_shape):
            raise ValueError(
                f"ti.types.ndarray: element_shape {element_shape} does not have "
                f"element_dim={element_dim} dimensions"
            )
        if len(element_shape) > 2:
            raise ValueError("ti.types.ndarray: elements are scalars, vectors or matrices")
        if not element_shape:
            return dtype
        if len(element_shape) == 1:
            return vector(element_shape[0], dtype)
        return matrix(element_shape[0], element_shape[1], dtype)
    if element_dim == 0:
        return dtype
    raise TaichiError(
        f"ti.types.ndarray(element_dim={element_dim}) without element_shape is not "
        "supported: give element_shape, or dtype=ti.types.vector(n, ...) / matrix(n, m, ...)"
    )


def ndarray(
    dtype: Any = None,
    ndim: int | None = None,
    element_dim: int | None = None,
    element_shape: tuple[int, ...] | None = None,
    field_dim: int | None = None,
    needs_grad: bool | None = None,
    boundary: str = "unsafe",
) -> NdarrayType:
    """An ndarray parameter annotation (`ti.types.ndarray(dtype=ti.f32, ndim=2)`)."""
    return NdarrayType(
        dtype, ndim, element_dim, element_shape, field_dim, needs_grad, boundary
    )


def vector(n: int | None = None, dtype: Any = None) -> Any:
    """`ti.types.vector(n, dtype)`: the type of n-vectors (size-less: see
    matrix.AnyMatrixType)."""
    from .matrix import vector as _vector

    return _vector(n, dtype)


def matrix(n: int | None = None, m: int | None = None, dtype: Any = None) -> Any:
    """`ti.types.matrix(n, m, dtype)`: the type of n x m matrices (size-less: see
    matrix.AnyMatrixType)."""
    from .matrix import matrix as _matrix

    return _matrix(n, m, dtype)


def struct(**members: Any) -> Any:
    """`ti.types.struct(a=ti.f32, v=ti.math.vec2)`: a struct type."""
    from .struct import struct as _struct

    return _struct(**members)


def argpack(**members: Any) -> Any:
    """`ti.types.argpack(n=ti.i32, arr=ti.types.ndarray(...))`: an argument pack type."""
    from .argpack import ArgPackType

    return ArgPackType(**members)


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


class RefType:
    """
    `ti.ref(ti.f32)`: a ti.func / ti.real_func parameter passed by reference; the
    argument is a variable (or a field/ndarray element) of that type, and what the
    function assigns to the parameter the caller sees.
    """

    def __init__(self, dtype: Any):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"ti.ref({self.dtype!r})"


def ref(dtype: Any) -> RefType:
    """A by-reference parameter annotation (`def f(a: ti.ref(ti.f32))`)."""
    return RefType(dtype)


class SparseMatrixBuilderType(Template):
    """
    `ti.types.sparse_matrix_builder()`: the parameter takes a
    `ti.linalg.SparseMatrixBuilder`, whose fields the kernel writes through
    `builder[i, j] += v` (a template argument: one instance per builder).
    """

    def __repr__(self) -> str:
        return "ti.types.sparse_matrix_builder()"


def sparse_matrix_builder() -> SparseMatrixBuilderType:
    """The annotation of a SparseMatrixBuilder parameter."""
    return SparseMatrixBuilderType()


from .texture import RWTextureType, TextureType, rw_texture, texture  # noqa: E402

from . import quant  # noqa: E402  (ti.types.quant.int / fixed / float)


def _cooked(dt: Any) -> DataType:
    from . import program as _program

    cfg = _program.get_program().config
    return cook_dtype(dt, cfg.default_ip, cfg.default_fp)


def is_signed(dt: Any) -> bool:
    """Whether `dt` is a signed type (floats are; u1..u64 are not)."""
    d = _cooked(dt)
    return d.is_float or d.is_signed


def is_integral(dt: Any) -> bool:
    """Whether `dt` is an integer type."""
    return _cooked(dt).is_int


def is_real(dt: Any) -> bool:
    """Whether `dt` is a floating-point type."""
    return _cooked(dt).is_float


class _PrimitiveTypes:
    """`ti.types.primitive_types`: the primitive types and their groups."""

    def __init__(self) -> None:
        from . import dtypes as d

        for name in ("f16", "f32", "f64", "i8", "i16", "i32", "i64", "u1", "u8", "u16",
                     "u32", "u64"):  # fmt: skip
            setattr(self, name, getattr(d, name))
        for alias, name in (("float16", "f16"), ("float32", "f32"), ("float64", "f64"),
                            ("int8", "i8"), ("int16", "i16"), ("int32", "i32"),
                            ("int64", "i64"), ("uint8", "u8"), ("uint16", "u16"),
                            ("uint32", "u32"), ("uint64", "u64")):  # fmt: skip
            setattr(self, alias, getattr(d, name))
        self.real_types = [d.f16, d.f32, d.f64, float]
        self.real_type_ids = [id(t) for t in self.real_types]
        self.integer_types = [d.i8, d.i16, d.i32, d.i64, d.u8, d.u16, d.u32, d.u64, int]
        self.integer_type_ids = [id(t) for t in self.integer_types]
        self.all_types = self.real_types + self.integer_types
        self.type_ids = [id(t) for t in self.all_types]


primitive_types = _PrimitiveTypes()

__all__ = [
    "argpack",
    "quant",
    "is_integral",
    "is_real",
    "is_signed",
    "primitive_types",
    "ref",
    "RefType",
    "DataType",
    "RWTextureType",
    "TextureType",
    "NdarrayType",
    "SparseMatrixBuilderType",
    "Template",
    "f16",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "matrix",
    "sparse_matrix_builder",
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
