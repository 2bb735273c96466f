"""
`ti.math`: the math functions of kernels under their `ti.math.*` names, and constants.

    ti.math.sqrt(x), ti.math.clamp(x, 0.0, 1.0), ti.math.pi
"""

from __future__ import annotations

import builtins
import math as _math

from .ops import (
    Intrinsic,
    abs,
    atan2,
    ceil,
    cos,
    exp,
    floor,
    log,
    max,
    min,
    pow,
    rsqrt,
    sin,
    sqrt,
    tan,
    tanh,
)

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan

clamp = Intrinsic("clamp", lambda x, lo, hi: builtins.min(builtins.max(x, lo), hi))

__all__ = [
    "abs",
    "atan2",
    "ceil",
    "clamp",
    "cos",
    "e",
    "exp",
    "floor",
    "inf",
    "log",
    "max",
    "min",
    "nan",
    "pi",
    "pow",
    "rsqrt",
    "sin",
    "sqrt",
    "tan",
    "tanh",
]
