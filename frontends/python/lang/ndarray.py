"""
`ti.ndarray(dtype, shape)`: an external array backed by a NumPy array, passed to
kernels by pointer and shape (a `memref<?x...xT>` argument). A NumPy array may be passed
to an ndarray parameter directly, without a copy.

On a device backend (Vulkan) an Ndarray is device-resident: the backend keeps one device
buffer per Ndarray (`Ndarray.device_copy`, set at its first launch) and the NumPy array
`arr` is only the host mirror. Python-scope access keeps the two consistent, as fields
do with the root buffer: reads (`to_numpy`, `x[i]`) first download what kernels wrote,
writes (`from_numpy`, `x[i] = v`, `fill`) mark the host copy newer so that the next
launch uploads it. A launch finds the Ndarray of the array it is given with `owner_of`.
A plain NumPy array passed to a kernel is copied in and out around each launch instead.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError, TaichiRuntimeError

from . import program as _program
from .dtypes import DataType, float_literal
from .field import _ArrayLike, _normalize_shape, python_scalar, storage_dtype

_OWNERS: weakref.WeakValueDictionary[int, Ndarray] = weakref.WeakValueDictionary()
"""id(Ndarray.arr) -> the Ndarray (entries go with their Ndarray)."""


def owner_of(array: Any) -> Ndarray | None:
    """The live Ndarray whose host array is `array`, None for any other object."""
    owner = _OWNERS.get(id(array))
    return owner if owner is not None and owner.arr is array else None


class Ndarray(_ArrayLike):
    """A C-contiguous NumPy array with a Taichi dtype (device-resident on Vulkan)."""

    def __init__(
        self, dtype: DataType, shape: tuple[int, ...], element_shape: tuple[int, ...] = ()
    ):
        self.dtype = dtype
        self.shape = shape
        self.element_shape = element_shape  # (n,) / (n, m) for Vector/Matrix ndarrays
        self.arr = np.zeros(shape + element_shape, dtype=dtype.np_dtype)
        self.device_copy: Any = None
        """A device backend's copy (host_read / host_wrote / host_overwrote), or None."""
        _OWNERS[id(self.arr)] = self

    grad: Ndarray | None = None
    """The gradient ndarray (`needs_grad=True`, ti.ad): passed to adjoint kernels."""

    @property
    def element_type(self) -> Any:
        """The element type: the scalar DataType, or for a Vector/Matrix ndarray its
        TensorType (`.element_type()` the scalar type, `.shape()` the element shape)."""
        return TensorType(self.dtype, self.element_shape) if self.element_shape else self.dtype

    def _get_element_size(self) -> int:
        """Bytes per element (all components of a vector/matrix element)."""
        return int(self.arr.dtype.itemsize * np.prod(self.element_shape, dtype=np.int64))

    def _get_nelement(self) -> int:
        """The number of elements (the product of the shape)."""
        return int(np.prod(self.shape, dtype=np.int64))

    def _read(self) -> np.ndarray:
        """The host array, up to date, for reading only."""
        if self.device_copy is not None:
            self.device_copy.host_read()
        return self.arr

    def _array(self) -> np.ndarray:
        """The host array, up to date, which the caller may write."""
        if self.device_copy is not None:
            self.device_copy.host_read()
            self.device_copy.host_wrote()
        return self.arr

    def _overwritten(self) -> np.ndarray:
        """The host array, for the caller to overwrite every element (no download)."""
        if self.device_copy is not None:
            self.device_copy.host_wrote()
        return self.arr

    def __getitem__(self, key: Any) -> Any:
        index = self._key(key)
        if self.element_shape:  # a Vector/Matrix element: a view that writes through
            from .matrix import Matrix

            return Matrix._view(self._array()[index])
        return python_scalar(self._read()[index])

    def to_numpy(self, dtype: Any = None, keep_dims: bool = False) -> np.ndarray:
        """A NumPy copy of the elements (see Field.to_numpy for `keep_dims`)."""
        arr = self._read()
        arr = arr.astype(dtype) if dtype is not None else arr.copy()
        if keep_dims and len(self.element_shape) == 1:
            arr = arr.reshape(arr.shape + (1,))
        return arr

    def fill(self, value: Any) -> None:
        """Set every element to `value`. On a device, for a 32-bit dtype, a fill of the
        device copy (if there is one already: after a launch), not of the host array."""
        value = float_literal(value, _program.get_program().config.default_fp)
        copy = self.device_copy
        if copy is not None and not copy.runtime.closed and self.arr.dtype.itemsize == 4:
            element = np.empty((), self.arr.dtype)
            element[...] = value  # converted as the host array's assignment converts
            copy.host_filled(int(element.view(np.uint32)))
            return
        self._overwritten()[...] = value

    def from_numpy(self, arr: Any) -> None:
        """Copy the elements of a NumPy array of the same shape in. On a device, an
        array of the same dtype, C-contiguous, goes straight to the device copy (if
        there is one already: after a launch) rather than through the host array."""
        arr = np.asarray(arr)
        full = self.shape + self.element_shape
        if arr.shape != full:
            raise ValueError(
                f"from_numpy: expected an array of shape {full}, got {arr.shape}"
            )
        copy = self.device_copy
        if (
            copy is not None
            and not copy.runtime.closed
            and arr.dtype == self.arr.dtype
            and arr.flags.c_contiguous
        ):
            copy.host_replaced(arr)
            return
        self._overwritten()[...] = arr

    def copy_from(self, other: _ArrayLike) -> None:
        """Copy the elements of another field or ndarray of the same shape."""
        if not isinstance(other, _ArrayLike):
            raise TypeError(f"copy_from takes a field or an ndarray, got {type(other).__name__}")
        source = other._read() if isinstance(other, Ndarray) else other._array()
        self.from_numpy(source)

    def __repr__(self) -> str:
        return f"<ti.ndarray {self.dtype} {self.shape}>"


class TensorType:
    """The element type of a Vector/Matrix ndarray: a scalar type and a shape."""

    def __init__(self, dtype: DataType, shape: tuple[int, ...]):
        self._dtype, self._shape = dtype, tuple(shape)

    def element_type(self) -> DataType:
        return self._dtype

    def shape(self) -> list[int]:
        return list(self._shape)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorType)
            and (self._dtype, self._shape) == (other._dtype, other._shape)
        )

    def __hash__(self) -> int:
        return hash((self._dtype, self._shape))

    def __repr__(self) -> str:
        return f"[Tensor {self._shape} {self._dtype}]".replace(",)", ")")


class _ElementKind(type):
    """`isinstance(a, ti.VectorNdarray)`: an Ndarray of vectors (element rank 1) or, for
    ti.MatrixNdarray, of matrices (rank 2); calling the class makes one."""

    rank: int

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Ndarray) and len(obj.element_shape) == cls.rank


class VectorNdarray(metaclass=_ElementKind):
    """`ti.VectorNdarray(n, dtype, shape)`: an ndarray of n-vectors (ti.Vector.ndarray)."""

    rank = 1

    def __new__(cls, n: int, dtype: Any, shape: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
        from .matrix import VectorType

        return ndarray(VectorType(n, dtype), shape, **kwargs)


class MatrixNdarray(metaclass=_ElementKind):
    """`ti.MatrixNdarray(n, m, dtype, shape)`: an ndarray of n x m matrices."""

    rank = 2

    def __new__(cls, n: int, m: int, dtype: Any, shape: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
        from .matrix import MatrixType

        return ndarray(MatrixType(n, m, dtype), shape, **kwargs)


def ndarray(dtype: Any, shape: Any, needs_grad: bool = False) -> Ndarray:
    """A zero-filled ndarray of `dtype` and `shape` (an int or a tuple); with
    `needs_grad=True` it has a zero-filled gradient `.grad` of the same shape (ti.ad)."""
    cfg = _program.get_program().config
    element_shape: tuple[int, ...] = ()
    if hasattr(dtype, "shape") and hasattr(dtype, "cooked"):  # ti.types.vector/matrix
        element_shape, dtype = dtype.shape, dtype.dtype
    arr = Ndarray(
        storage_dtype(dtype, cfg), _normalize_shape(shape, "ndarray"), element_shape
    )
    if needs_grad:
        if not arr.dtype.is_float:
            raise TaichiRuntimeError(
                f"{arr.dtype} is not supported for ndarray with `needs_grad=True` (a "
                "gradient needs a float type)"
            )
        arr.grad = Ndarray(arr.dtype, arr.shape, element_shape)
    return arr
