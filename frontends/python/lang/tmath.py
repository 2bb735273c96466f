"""
`ti.math`: the math functions of kernels under their `ti.math.*` names, GLSL-style
vector helpers, the vector/matrix types and constants.

    ti.math.sqrt(x), ti.math.clamp(x, 0.0, 1.0), ti.math.pi
    ti.math.vec3(1.0, 2.0, 3.0), ti.math.normalize(v), ti.math.mix(a, b, t)

Called in Python scope they compute on Python numbers and `ti.Vector`s (NumPy).
"""

from __future__ import annotations

import builtins
import math as _math
from typing import Any

import numpy as np

from . import dtypes
from .matrix import Matrix, MatrixType, VectorType
from .ops import (
    Intrinsic,
    abs,
    acos,
    asin,
    atan,
    round,
    trunc,
    atan2,
    ceil,
    clz,
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


def _np_fn(fn: Any) -> Any:
    """A Python-scope implementation working on numbers and Matrix values."""

    def call(*args: Any) -> Any:
        arrays = [a.data if isinstance(a, Matrix) else a for a in args]
        r = fn(*arrays)
        return Matrix(r) if np.ndim(r) else (r.item() if isinstance(r, np.generic) else r)

    return call


def _norm(v: Any) -> Any:
    return np.sqrt(np.sum(np.asarray(v) ** 2))


clamp = Intrinsic("clamp", _np_fn(lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi)))
mix = Intrinsic("mix", _np_fn(lambda x, y, a: x + (y - x) * a))
step = Intrinsic("step", _np_fn(lambda edge, x: np.where(x < edge, 0.0, 1.0)))
smoothstep = Intrinsic(
    "smoothstep",
    _np_fn(
        lambda e0, e1, x: (t := np.clip((x - e0) / (e1 - e0), 0.0, 1.0)) * t * (3 - 2 * t)
    ),
)
fract = Intrinsic("fract", _np_fn(lambda x: x - np.floor(x)))
sign = Intrinsic("sign", _np_fn(np.sign))
log2 = Intrinsic("log2", _np_fn(np.log2))
isnan = Intrinsic("isnan", _np_fn(np.isnan))
isinf = Intrinsic("isinf", _np_fn(np.isinf))
dot = Intrinsic("dot", _np_fn(np.dot))
cross = Intrinsic("cross", _np_fn(np.cross))
length = Intrinsic("length", _np_fn(_norm))
normalize = Intrinsic("normalize", _np_fn(lambda v: v / _norm(v)))
distance = Intrinsic("distance", _np_fn(lambda a, b: _norm(np.asarray(a) - b)))
reflect = Intrinsic("reflect", _np_fn(lambda i, n: i - 2 * np.dot(n, i) * n))
determinant = Intrinsic("determinant", _np_fn(np.linalg.det))
inverse = Intrinsic("inverse", _np_fn(np.linalg.inv))

vec2, vec3, vec4 = (VectorType(n, float) for n in (2, 3, 4))
ivec2, ivec3, ivec4 = (VectorType(n, int) for n in (2, 3, 4))
uvec2, uvec3, uvec4 = (VectorType(n, dtypes.DEFAULT_UP) for n in (2, 3, 4))
dvec2, dvec3, dvec4 = (VectorType(n, dtypes.f64) for n in (2, 3, 4))
mat2, mat3, mat4 = (MatrixType(n, n, float) for n in (2, 3, 4))
dmat2, dmat3, dmat4 = (MatrixType(n, n, dtypes.f64) for n in (2, 3, 4))

_ = builtins

from .tmath_funcs import *  # noqa: E402, F403
from .tmath_funcs import __all__ as _funcs_all  # noqa: E402

__all__ = [
    "abs",
    "acos",
    "asin",
    "atan",
    "round",
    "trunc",
    "atan2",
    "ceil",
    "clamp",
    "cos",
    "cross",
    "determinant",
    "distance",
    "dmat2",
    "dmat3",
    "dmat4",
    "dot",
    "dvec2",
    "dvec3",
    "dvec4",
    "e",
    "exp",
    "floor",
    "fract",
    "inf",
    "inverse",
    "isinf",
    "isnan",
    "ivec2",
    "ivec3",
    "ivec4",
    "length",
    "log",
    "log2",
    "mat2",
    "mat3",
    "mat4",
    "max",
    "min",
    "mix",
    "nan",
    "normalize",
    "pi",
    "pow",
    "reflect",
    "rsqrt",
    "sign",
    "sin",
    "smoothstep",
    "sqrt",
    "step",
    "tan",
    "tanh",
    "uvec2",
    "uvec3",
    "uvec4",
    "vec2",
    "vec3",
    "vec4",
]
__all__ += _funcs_all
