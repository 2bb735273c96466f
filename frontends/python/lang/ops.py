"""
The functions a kernel calls: `ti.static`, `ti.ndrange`, `ti.cast`, `ti.atomic_add`,
`ti.sqrt`, ... Each is an `Intrinsic` that the code generator recognizes by identity
and lowers by name; called in Python scope, most compute on Python numbers.
"""

from __future__ import annotations

import builtins
import itertools
import math as _math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError

from .dtypes import DataType


class Intrinsic:
    """A `ti.*` function with a meaning inside kernels (`name` keys its lowering)."""

    __slots__ = ("_py", "name")

    def __init__(self, name: str, py: Callable[..., Any] | None = None):
        self.name = name
        self._py = py

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._py is None:
            raise TaichiError(f"ti.{self.name}() can only be used inside a kernel")
        if self.name in _ELEMENTWISE and any(hasattr(a, "to_numpy") for a in args):
            from .matrix import Matrix  # a Python-scope vector: component-wise

            arrays = [a.to_numpy() if hasattr(a, "to_numpy") else a for a in args]
            out = np.vectorize(self._py)(*arrays, **kwargs)
            floats = [np.asarray(x) for x in arrays if np.asarray(x).dtype.kind == "f"]
            if floats and out.dtype.kind in "iu":  # floor/round of floats stay floats
                out = out.astype(floats[0].dtype)
            return Matrix(out)
        return self._py(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<ti.{self.name}>"


_ELEMENTWISE = frozenset(
    (
        "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "exp", "log", "floor", "ceil",
        "abs", "asin", "acos", "atan", "round", "trunc", "atan2", "pow", "raw_div",
        "raw_mod", "select", "min", "max", "logical_not", "bit_not", "bit_shr",
    )
)  # fmt: skip
"""The intrinsics that apply to each component of a vector/matrix argument."""


class NdRange:
    """`ti.ndrange(n, (a, b), ...)`: a product of ranges (iterable in Python scope)."""

    def __init__(self, *ranges: Any):
        self.ranges = ranges

    def bounds(self) -> list[tuple[int, int]]:
        from taichi_xdsl.utils.errors import TaichiSyntaxError, TaichiTypeError

        out = []
        for r in self.ranges:
            pair = tuple(r) if isinstance(r, tuple | list) else (0, r)
            if len(pair) != 2:
                raise TaichiSyntaxError(
                    "Every argument of ndrange should be a scalar or a tuple/list like "
                    f"(begin, end), got {r!r}"
                )
            if any(isinstance(b, float | np.floating) for b in pair):
                raise TaichiTypeError(
                    "Every argument of ndrange should be an integer scalar or a "
                    f"tuple/list of (int, int), got {r!r}"
                )
            out.append((int(pair[0]), int(pair[1])))
        return out

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return itertools.product(*(range(b, e) for b, e in self.bounds()))


class Grouped:
    """`ti.grouped(x)`: loop over x's indices as one tuple."""

    def __init__(self, container: Any):
        self.container = container

    def __iter__(self) -> Iterator[Any]:
        """In Python scope and under ti.static: each index as a ti.Vector."""
        from .matrix import Vector

        c = self.container
        if isinstance(c, NdRange):
            indices: Any = iter(c)
        elif isinstance(c, range):
            indices = ((i,) for i in c)
        elif hasattr(c, "shape") and isinstance(c.shape, tuple):
            offsets = tuple(getattr(c, "index_offset", ())) or (0,) * len(c.shape)
            indices = itertools.product(
                *(range(o, o + n) for o, n in zip(offsets, c.shape))
            )
        else:
            raise TaichiError(f"ti.grouped({c!r}): not a range, ndrange, field or ndarray")
        for index in indices:
            yield Vector(list(index))


def _static(x: Any, *xs: Any) -> Any:
    return (x, *xs) if xs else x


def _cast(x: Any, dtype: Any) -> Any:
    if isinstance(dtype, DataType):
        return dtype(x)
    return dtype(x)


def _bit_cast(x: Any, dtype: Any) -> Any:
    """Python scope: the bits of x read as dtype. A Python number is taken as the float
    or signed integer of dtype's width; a NumPy scalar keeps its own type."""
    dst = np.dtype(dtype.np_dtype)
    if isinstance(x, np.generic):
        src = np.asarray(x)
    else:
        kind = "f" if isinstance(x, float) else "i"
        src = np.asarray(x, dtype=np.dtype(f"{kind}{dst.itemsize}"))
    if src.dtype.itemsize != dst.itemsize:
        raise TaichiError(f"ti.bit_cast: {src.dtype} and {dst} differ in width")
    return src.reshape(1).view(dst)[0].item()


def _select(c: Any, a: Any, b: Any) -> Any:
    return a if c else b


def _loop_config(**_kwargs: Any) -> None:
    return None


def _rsqrt(x: float) -> float:
    return 1.0 / _math.sqrt(x)


static = Intrinsic("static", _static)
ndrange = Intrinsic("ndrange", NdRange)
grouped = Intrinsic("grouped", Grouped)
loop_config = Intrinsic("loop_config", _loop_config)
cast = Intrinsic("cast", _cast)
select = Intrinsic("select", _select)
bit_cast = Intrinsic("bit_cast", _bit_cast)

atomic_add = Intrinsic("atomic_add")
atomic_sub = Intrinsic("atomic_sub")
atomic_mul = Intrinsic("atomic_mul")
atomic_min = Intrinsic("atomic_min")
atomic_max = Intrinsic("atomic_max")
atomic_and = Intrinsic("atomic_and")
atomic_or = Intrinsic("atomic_or")
atomic_xor = Intrinsic("atomic_xor")

sqrt = Intrinsic("sqrt", _math.sqrt)
rsqrt = Intrinsic("rsqrt", _rsqrt)
sin = Intrinsic("sin", _math.sin)
cos = Intrinsic("cos", _math.cos)
tan = Intrinsic("tan", _math.tan)
tanh = Intrinsic("tanh", _math.tanh)
exp = Intrinsic("exp", _math.exp)
log = Intrinsic("log", _math.log)
floor = Intrinsic("floor", _math.floor)
ceil = Intrinsic("ceil", _math.ceil)
atan2 = Intrinsic("atan2", _math.atan2)
pow = Intrinsic("pow", builtins.pow)
abs = Intrinsic("abs", builtins.abs)
min = Intrinsic("min", builtins.min)
max = Intrinsic("max", builtins.max)

def _round(x: Any, dtype: Any = None) -> Any:
    """Round half away from zero (C's round, as Taichi's ti.round), as `dtype` if given."""
    r = _math.copysign(_math.floor(builtins.abs(x) + 0.5), x)
    return r if dtype is None else _cast(r, dtype)


def _raw_div(a: Any, b: Any) -> Any:
    """C's division: truncating for integers."""
    if isinstance(a, int) and isinstance(b, int):
        q = builtins.abs(a) // builtins.abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def _raw_mod(a: Any, b: Any) -> Any:
    """C's remainder: the sign of the dividend."""
    if isinstance(a, int) and isinstance(b, int):
        return a - _raw_div(a, b) * b
    return _math.fmod(a, b)


def _zero(x: Any) -> Any:
    """A zero of x's type and shape (ti.zero)."""
    if hasattr(x, "to_numpy"):
        from .matrix import Matrix

        return Matrix(x.to_numpy() * 0)
    return type(x)(0)


def _one(x: Any) -> Any:
    """A one of x's type and shape (ti.one)."""
    if hasattr(x, "to_numpy"):
        from .matrix import Matrix

        return Matrix(x.to_numpy() * 0 + 1)
    return type(x)(1)


def _logical_not(x: Any) -> int:
    return int(not x)


def _bit_shr(x: int, n: int) -> int:
    """A logical shift right of a 32-bit integer (Python scope: its bits read unsigned)."""
    return (x & 0xFFFFFFFF) >> n if x < 0 else x >> n


def _clz(x: int, bits: int = 32) -> int:
    """The number of leading zero bits of a 32-bit integer (Python scope)."""
    return bits - (x & ((1 << bits) - 1)).bit_length()


logical_not = Intrinsic("logical_not", _logical_not)
frexp = Intrinsic("frexp", _math.frexp)
clz = Intrinsic("clz", _clz)
bit_not = Intrinsic("bit_not", lambda x: ~x)
bit_shr = Intrinsic("bit_shr", _bit_shr)
asin = Intrinsic("asin", _math.asin)
acos = Intrinsic("acos", _math.acos)
atan = Intrinsic("atan", _math.atan)
round = Intrinsic("round", _round)
trunc = Intrinsic("trunc", _math.trunc)
raw_div = Intrinsic("raw_div", _raw_div)
raw_mod = Intrinsic("raw_mod", _raw_mod)
zero = Intrinsic("zero", _zero)
one = Intrinsic("one", _one)


def _random(dtype: Any = float) -> Any:
    import random as _py_random

    return _py_random.random()


def _randn(dtype: Any = float) -> Any:
    import random as _py_random

    return _py_random.gauss(0.0, 1.0)


def _static_assert(cond: Any, msg: str = "") -> None:
    if not cond:
        raise TaichiError(f"ti.static_assert failed: {msg}" if msg else "ti.static_assert failed")


random = Intrinsic("random", _random)
randn = Intrinsic("randn", _randn)
static_assert = Intrinsic("static_assert", _static_assert)


def _loop_unique(val: Any, covers: Any = None) -> Any:
    return val


loop_unique = Intrinsic("loop_unique", _loop_unique)
"""`ti.loop_unique(v, covers=None)`: a hint that v differs between the iterations of the
enclosing parallel loop (Taichi uses it to skip atomics); the value itself, unchanged."""
static_print = Intrinsic("static_print", print)

block_local = Intrinsic("block_local")
"""`ti.block_local(*fields)`: Taichi's hint to cache fields in GPU shared memory for the
struct-for that follows (block local storage). Taichi applies it on CUDA only and ignores
it on CPU and Vulkan, as taichi-xdsl does: the fields are checked, the values unchanged."""

cache_read_only = Intrinsic("cache_read_only")
"""`ti.cache_read_only(*fields)`: Taichi's hint that the loop that follows only reads the
fields (read through CUDA's read-only cache); as `block_local`, checked and ignored."""

ATOMICS = (
    "atomic_add",
    "atomic_sub",
    "atomic_mul",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
)

__all__ = [
    "bit_not",
    "bit_shr",
    "logical_not",
    "Grouped",
    "Intrinsic",
    "NdRange",
    "abs",
    "acos",
    "asin",
    "atan",
    "one",
    "raw_div",
    "clz",
    "frexp",
    "raw_mod",
    "round",
    "trunc",
    "zero",
    "atan2",
    "atomic_add",
    "atomic_and",
    "atomic_max",
    "atomic_min",
    "atomic_mul",
    "atomic_or",
    "atomic_sub",
    "atomic_xor",
    "bit_cast",
    "cast",
    "ceil",
    "cos",
    "exp",
    "floor",
    "grouped",
    "log",
    "loop_config",
    "max",
    "min",
    "ndrange",
    "pow",
    "randn",
    "random",
    "rsqrt",
    "select",
    "sin",
    "sqrt",
    "static",
    "static_assert",
    "static_print",
    "loop_unique",
    "block_local",
    "cache_read_only",
    "tan",
    "tanh",
]
