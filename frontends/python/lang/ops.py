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
        return self._py(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<ti.{self.name}>"


class NdRange:
    """`ti.ndrange(n, (a, b), ...)`: a product of ranges (iterable in Python scope)."""

    def __init__(self, *ranges: Any):
        self.ranges = ranges

    def bounds(self) -> list[tuple[int, int]]:
        out = []
        for r in self.ranges:
            if isinstance(r, tuple | list):
                if len(r) != 2:
                    raise TaichiError(f"ti.ndrange takes n or (begin, end), got {r!r}")
                out.append((int(r[0]), int(r[1])))
            else:
                out.append((0, int(r)))
        return out

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return itertools.product(*(range(b, e) for b, e in self.bounds()))


class Grouped:
    """`ti.grouped(x)`: loop over x's indices as one tuple."""

    def __init__(self, container: Any):
        self.container = container


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
static_print = Intrinsic("static_print", print)

ATOMICS = (
    "atomic_add",
    "atomic_sub",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
)

__all__ = [
    "Grouped",
    "Intrinsic",
    "NdRange",
    "abs",
    "atan2",
    "atomic_add",
    "atomic_and",
    "atomic_max",
    "atomic_min",
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
    "tan",
    "tanh",
]
