"""`ti.lang.util`: type conversions between Taichi and NumPy, optional packages."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from ..frontends.python.lang import dtypes as _dtypes


def to_numpy_type(dt: Any) -> type:
    """The NumPy scalar type of a Taichi type (`ti.f32` -> `np.float32`)."""
    cooked = _dtypes.cook_dtype(dt, _dtypes.i32, _dtypes.f32)
    return cooked.np_dtype.type


def to_taichi_type(dt: Any) -> _dtypes.DataType:
    """The Taichi type of a NumPy dtype or scalar type (`np.int64` -> `ti.i64`)."""
    found = _dtypes.from_numpy_dtype(np.dtype(dt))
    if found is None:
        raise TypeError(f"{dt!r} has no Taichi type")
    return found


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def has_pytorch() -> bool:
    """Whether PyTorch can be imported."""
    return _has("torch")


def has_paddle() -> bool:
    """Whether PaddlePaddle can be imported."""
    return _has("paddle")


def has_clangpp() -> bool:
    """Whether clang++ external functions can be built (never in taichi-xdsl)."""
    return False


__all__ = [
    "has_clangpp",
    "has_paddle",
    "has_pytorch",
    "to_numpy_type",
    "to_taichi_type",
]
