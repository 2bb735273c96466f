"""
Taichi's primitive types and its type promotion rules.

    ti.i8 .. ti.i64, ti.u8 .. ti.u64, ti.f16, ti.f32, ti.f64 (+ ti.int32, ti.float32, ...)

The IR is signless (`i32` holds both ti.i32 and ti.u32); the frontend keeps the Taichi
type of every value and picks signed or unsigned ops from it. This module imports no
xDSL: the IR types are built by the code generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class DataType:
    """
    One Taichi primitive type.

    Calling it converts a value: `ti.f32(x)` is `ti.cast(x, ti.f32)` inside a kernel and
    a NumPy conversion in Python scope.
    """

    __slots__ = ("bits", "kind", "name", "np_dtype")

    def __init__(self, name: str, kind: str, bits: int, np_dtype: Any):
        self.name = name
        self.kind = kind  # "int", "uint" or "float"
        self.bits = bits
        self.np_dtype = np.dtype(np_dtype)

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind != "float"

    @property
    def is_signed(self) -> bool:
        return self.kind == "int"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "uint"

    @property
    def is_bool(self) -> bool:
        return self is u1

    def __repr__(self) -> str:
        return self.name

    def to_string(self) -> str:
        """The type's name (`ti.f32.to_string() == "f32"`), as Taichi's."""
        return self.name

    def __call__(self, value: Any) -> Any:
        if isinstance(value, np.generic):
            value = value.item()
        if not isinstance(value, bool | int | float):
            raise TypeError(f"{self.name}({value!r}): expected a number")
        if self is u1:
            return bool(value)
        if self.is_int:
            return self.wrap(int(value))  # float -> int truncates; ints wrap around
        return float(self.np_dtype.type(value))

    # Taichi lets `ti.f32 == float` style checks be made on dtypes; identity is enough.
    def __reduce__(self) -> str:
        return self.name

    def int_range(self) -> tuple[int, int]:
        """The values an integer type holds, as (min, max)."""
        if self.is_signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1

    def wrap(self, value: int) -> int:
        """`value` wrapped into this integer type (two's complement)."""
        value &= (1 << self.bits) - 1
        if self.is_signed and value >= 1 << (self.bits - 1):
            value -= 1 << self.bits
        return value


i8 = DataType("i8", "int", 8, np.int8)
i16 = DataType("i16", "int", 16, np.int16)
i32 = DataType("i32", "int", 32, np.int32)
i64 = DataType("i64", "int", 64, np.int64)
u1 = DataType("u1", "uint", 1, np.bool_)
u8 = DataType("u8", "uint", 8, np.uint8)
u16 = DataType("u16", "uint", 16, np.uint16)
u32 = DataType("u32", "uint", 32, np.uint32)
u64 = DataType("u64", "uint", 64, np.uint64)
f16 = DataType("f16", "float", 16, np.float16)
f32 = DataType("f32", "float", 32, np.float32)
f64 = DataType("f64", "float", 64, np.float64)

int8, int16, int32, int64 = i8, i16, i32, i64
uint8, uint16, uint32, uint64 = u8, u16, u32, u64
float16, float32, float64 = f16, f32, f64
half = f16

ALL_TYPES: tuple[DataType, ...] = (i8, i16, i32, i64, u1, u8, u16, u32, u64, f16, f32, f64)
"""Every primitive type (u1 is the type of comparisons, not a storage type)."""

_BY_NUMPY: dict[np.dtype, DataType] = {t.np_dtype: t for t in ALL_TYPES if t is not u1}


def from_numpy_dtype(dtype: Any) -> DataType | None:
    """The Taichi type of a NumPy dtype, or None when Taichi has none."""
    return _BY_NUMPY.get(np.dtype(dtype))


def float_literal(value: Any, default_fp: DataType) -> Any:
    """
    A Python float as Taichi takes it into a kernel or a fill: a default_fp value, so with
    f32 (the default) 0.1 becomes 0.10000000149011612 even where an f64 is stored.
    Anything else is returned as it is.
    """
    if not isinstance(value, float) or default_fp.bits >= 64:
        return value
    with np.errstate(over="ignore"):  # 1e300 is inf in f32, as in Taichi
        return float(default_fp.np_dtype.type(value))


class _DefaultUnsigned:
    """
    The unsigned type of `default_ip`, resolved when a type is used, as Python `int` is:
    ti.math.uvec2 holds u32, or u64 under `ti.init(default_ip=ti.i64)` (Taichi's
    default_up).
    """

    def __repr__(self) -> str:
        return "default_up"

    def __reduce__(self) -> str:
        return "DEFAULT_UP"


DEFAULT_UP = _DefaultUnsigned()


def cook_dtype(dtype: Any, default_ip: DataType, default_fp: DataType) -> DataType:
    """
    A Taichi type from what a user may write: a DataType, Python `int`/`float`/`bool`,
    DEFAULT_UP, or a NumPy dtype.

    Raises:
        TypeError: `dtype` names no Taichi type.
    """
    if isinstance(dtype, DataType):
        return dtype
    if dtype is int:
        return default_ip
    if dtype is float:
        return default_fp
    if dtype is bool:
        return u1
    if dtype is DEFAULT_UP:
        return u64 if default_ip.bits == 64 else u32
    try:
        found = from_numpy_dtype(dtype)
    except TypeError:
        found = None
    if found is None:
        raise TypeError(f"{dtype!r} is not a Taichi type (use ti.i32, ti.f32, ...)")
    return found


def promote(a: DataType, b: DataType) -> DataType:
    """
    Taichi's binary-operation type: a float beats an integer, the wider type beats the
    narrower, and between integers of one width the unsigned one wins.
    """
    if a is b:
        return a
    if a.is_float and b.is_float:
        return a if a.bits >= b.bits else b
    if a.is_float:
        return a
    if b.is_float:
        return b
    if a.bits != b.bits:
        return a if a.bits > b.bits else b
    return b if a.is_signed else a
