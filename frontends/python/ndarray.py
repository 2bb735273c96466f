"""
`ti.ndarray(dtype, shape)`: an external array backed by a NumPy array, passed to
kernels by pointer and shape (a `memref<?x...xT>` argument). A NumPy array may be passed
to an ndarray parameter directly, without a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import program as _program
from .dtypes import DataType
from .field import _ArrayLike, _normalize_shape, storage_dtype


class Ndarray(_ArrayLike):
    """A C-contiguous NumPy array with a Taichi dtype."""

    def __init__(self, dtype: DataType, shape: tuple[int, ...]):
        self.dtype = dtype
        self.shape = shape
        self.arr = np.zeros(shape, dtype=dtype.np_dtype)

    def _array(self) -> np.ndarray:
        return self.arr

    def __repr__(self) -> str:
        return f"<ti.ndarray {self.dtype} {self.shape}>"


def ndarray(dtype: Any, shape: Any, **_ignored: Any) -> Ndarray:
    """A zero-filled ndarray of `dtype` and `shape` (an int or a tuple)."""
    cfg = _program.get_program().config
    return Ndarray(storage_dtype(dtype, cfg), _normalize_shape(shape))
