"""
`ti.ndarray(dtype, shape)`: an external array backed by a NumPy array, passed to
kernels by pointer and shape (a `memref<?x...xT>` argument). A NumPy array may be passed
to an ndarray parameter directly, without a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError

from . import program as _program
from .dtypes import DataType
from .field import _ArrayLike, _normalize_shape, storage_dtype


class Ndarray(_ArrayLike):
    """A C-contiguous NumPy array with a Taichi dtype."""

    def __init__(
        self, dtype: DataType, shape: tuple[int, ...], element_shape: tuple[int, ...] = ()
    ):
        self.dtype = dtype
        self.shape = shape
        self.element_shape = element_shape  # (n,) / (n, m) for Vector/Matrix ndarrays
        self.arr = np.zeros(shape + element_shape, dtype=dtype.np_dtype)

    grad: Ndarray | None = None
    """The gradient ndarray (`needs_grad=True`, ti.ad): passed to adjoint kernels."""

    def _array(self) -> np.ndarray:
        return self.arr

    def __repr__(self) -> str:
        return f"<ti.ndarray {self.dtype} {self.shape}>"


def ndarray(dtype: Any, shape: Any, needs_grad: bool = False, **_ignored: Any) -> Ndarray:
    """A zero-filled ndarray of `dtype` and `shape` (an int or a tuple); with
    `needs_grad=True` it has a zero-filled gradient `.grad` of the same shape (ti.ad)."""
    cfg = _program.get_program().config
    element_shape: tuple[int, ...] = ()
    if hasattr(dtype, "shape") and hasattr(dtype, "cooked"):  # ti.types.vector/matrix
        element_shape, dtype = dtype.shape, dtype.dtype
    arr = Ndarray(storage_dtype(dtype, cfg), _normalize_shape(shape), element_shape)
    if needs_grad:
        if not arr.dtype.is_float:
            raise TaichiError(f"ti.ndarray: needs_grad=True needs a float type, got {arr.dtype}")
        arr.grad = Ndarray(arr.dtype, arr.shape, element_shape)
    return arr
