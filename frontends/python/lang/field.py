"""
Fields: `ti.field(dtype, shape)` and `ti.root.dense(ti.ij, shape).place(x)`.

A field is a dense row-major array in the program's root buffer, at a fixed byte
offset. Inside a kernel it is a `taichi.field` symbol; in Python scope it is a NumPy
view of the root buffer.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError

from . import program as _program
from .dtypes import DataType, cook_dtype


def storage_dtype(dtype: Any, cfg: _program.Config) -> DataType:
    """The element type of a field or ndarray (u1 is a value type only)."""
    dt = cook_dtype(dtype, cfg.default_ip, cfg.default_fp)
    if dt.bits == 1:
        raise TaichiError(
            "ti.u1 (bool) cannot be a field or ndarray element type; use ti.u8"
        )
    return dt


def _normalize_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int | np.integer):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise TaichiError(f"a field or ndarray shape must not be negative, got {shape}")
    return shape


def _python_index(key: Any, ndim: int) -> tuple[int, ...]:
    """`x[i, j]`, `x[None]`, `x[()]` in Python scope as a NumPy index."""
    if key is None or key == ():
        key = ()
    elif not isinstance(key, tuple):
        key = (key,)
    if len(key) != ndim:
        raise TaichiError(f"a {ndim}-d field or ndarray needs {ndim} indices, got {key!r}")
    return tuple(int(k) for k in key)


class _ArrayLike:
    """Python-scope access shared by fields and ndarrays, on top of `_array()`."""

    dtype: DataType
    shape: tuple[int, ...]

    def _array(self) -> np.ndarray:
        raise NotImplementedError

    def __getitem__(self, key: Any) -> Any:
        r = self._array()[_python_index(key, len(self.shape))]
        if np.ndim(r):  # an element of a Vector/Matrix field
            from .matrix import Matrix

            return Matrix(r.copy())
        return r.item()

    def __setitem__(self, key: Any, value: Any) -> None:
        if hasattr(value, "to_numpy"):
            value = value.to_numpy()
        self._array()[_python_index(key, len(self.shape))] = value

    def fill(self, value: Any) -> None:
        """Set every element to `value`."""
        self._array()[...] = value

    def to_numpy(self, dtype: Any = None) -> np.ndarray:
        """A NumPy copy of the elements."""
        arr = self._array()
        return arr.astype(dtype) if dtype is not None else arr.copy()

    def from_numpy(self, arr: Any) -> None:
        """Copy the elements of a NumPy array of the same shape in."""
        arr = np.asarray(arr)
        full = self.shape + tuple(getattr(self, "element_shape", ()))
        if arr.shape != full:
            raise TaichiError(
                f"from_numpy: expected an array of shape {full}, got {arr.shape}"
            )
        self._array()[...] = arr

    def copy_from(self, other: _ArrayLike) -> None:
        """Copy the elements of another field or ndarray of the same shape."""
        self.from_numpy(other._array())

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d field")
        return self.shape[0]


class Field(_ArrayLike):
    """
    A dense field of one primitive type, placed in the root buffer. A field of
    vectors or matrices (`ti.Vector.field`) has `element_shape` (3,) or (n, m): its
    components are trailing dimensions of the storage.
    """

    element_shape: tuple[int, ...] = ()

    def __init__(self, dtype: DataType, name: str | None):
        self.dtype = dtype
        self.name = name
        self.shape: tuple[int, ...] = ()
        self.placed = False
        self.offset = 0
        self.symbol = ""
        self.program = _program.get_program()
        self.created_at: tuple[str, int] | None = None  # (file, line) of ti.field(...)
        self._view: np.ndarray | None = None
        self._view_root: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        count = np.prod(self.shape + self.element_shape, dtype=np.int64)
        return int(count) * self.dtype.np_dtype.itemsize

    grad: Field | None = None
    """The gradient field (`needs_grad=True`, ti.ad), placed right after this one."""
    primal: Field | None = None
    """On a gradient field: the field it is the gradient of."""

    def _place(self, shape: tuple[int, ...]) -> None:
        if self.placed:
            raise TaichiError(f"field {self.symbol or self.name or ''} is already placed")
        self.shape = shape
        self.placed = True
        self.program.place_field(self, self.name)
        grad = self.grad
        if grad is not None and not grad.placed:
            grad.name = grad.name or f"{self.symbol}_grad"
            grad._place(shape)

    def _check_live(self) -> _program.Program:
        prog = self.program
        if prog is not _program._current:
            raise TaichiError(
                "this field belongs to a program that ti.init()/ti.reset() has ended"
            )
        if not self.placed:
            raise TaichiError(
                "this field has no shape yet: give ti.field a shape or place it with "
                "ti.root.dense(...).place(x)"
            )
        return prog

    def _array(self) -> np.ndarray:
        prog = self._check_live()
        root = prog.root
        prog.host_access()  # a device backend syncs the root for Python-scope access
        if self._view_root is not root or self._view is None:
            assert root is not None
            raw = root[self.offset : self.offset + self.nbytes]
            full = self.shape + self.element_shape
            self._view = raw.view(self.dtype.np_dtype).reshape(full)
            self._view_root = root
        return self._view

    def __repr__(self) -> str:
        return f"<ti.field {self.symbol or '(unplaced)'} {self.dtype} {self.shape}>"


def field(
    dtype: Any,
    shape: Any = None,
    order: str | None = None,
    name: str = "",
    offset: Any = None,
    needs_grad: bool = False,
    needs_dual: bool = False,
) -> Field:
    """
    A field of `dtype` (Taichi's `ti.field`). With `shape` (an int, a tuple, or `()` for
    a 0-d field read as `x[None]`) it is placed at once; without, place it with
    `ti.root.dense(...).place(x)`.

    Raises:
        TaichiError: options taichi-xdsl does not have (order, offset, needs_dual).
    """
    if order is not None or offset is not None or needs_dual:
        raise TaichiError(
            "ti.field: order=, offset=, needs_dual= are not supported by taichi-xdsl yet"
        )
    prog = _program.get_program()
    element_shape: tuple[int, ...] = ()
    if hasattr(dtype, "shape") and hasattr(dtype, "cooked"):  # ti.types.vector/matrix
        element_shape, dtype = dtype.shape, dtype.dtype
    f = Field(storage_dtype(dtype, prog.config), name or None)
    f.element_shape = element_shape
    if needs_grad:  # the gradient field of ti.ad, placed with f
        if not f.dtype.is_float:
            raise TaichiError(f"ti.field: needs_grad=True needs a float type, got {f.dtype}")
        f.grad = Field(f.dtype, f"{name}_grad" if name else None)
        f.grad.element_shape = element_shape
        f.grad.primal = f
    caller = sys._getframe(1)
    f.created_at = (caller.f_code.co_filename, caller.f_lineno)
    if shape is not None:
        f._place(_normalize_shape(shape))
    return f


class Axis:
    """Field axes for SNodes: `ti.i`, `ti.ij`, `ti.axes(0, 1)`."""

    def __init__(self, *indices: int):
        self.indices = indices

    def __repr__(self) -> str:
        return f"ti.axes{self.indices}"


i, j, k, l = Axis(0), Axis(1), Axis(2), Axis(3)
ij, ik, jk = Axis(0, 1), Axis(0, 2), Axis(1, 2)
ijk, ijkl = Axis(0, 1, 2), Axis(0, 1, 2, 3)


def axes(*indices: int) -> Axis:
    """The axes `indices` (`ti.axes(0, 1)` is `ti.ij`)."""
    return Axis(*indices)


class SNode:
    """
    A node of the field layout tree. Only dense nodes exist: a chain of `dense` calls
    multiplies the extents of each axis, and `place` gives the fields that shape
    (laid out row-major, each field on its own).
    """

    def __init__(self, extents: dict[int, int]):
        self.extents = extents

    def dense(self, axis: Axis, dimensions: int | Sequence[int]) -> SNode:
        """A dense child over `axis` with extents `dimensions`."""
        dims = (
            (dimensions,) * len(axis.indices)
            if isinstance(dimensions, int)
            else tuple(dimensions)
        )
        if len(dims) != len(axis.indices):
            raise TaichiError(f"dense({axis}, {dimensions}): one extent per axis needed")
        extents = dict(self.extents)
        for index, extent in zip(axis.indices, dims):
            extents[index] = extents.get(index, 1) * int(extent)
        return SNode(extents)

    def place(self, *fields: Field, offset: Any = None) -> SNode:
        """Place `fields` here: each gets the shape of this node. An `offset` of the
        index domain other than zero is not supported yet and raises."""
        if offset is not None:
            offsets = (offset,) if isinstance(offset, int) else tuple(offset)
            if any(offsets):
                raise TaichiError(
                    f"place(offset={offset!r}): field index offsets are not supported "
                    "yet; index from 0"
                )
        if self.extents and sorted(self.extents) != list(range(len(self.extents))):
            raise TaichiError(
                f"axes {sorted(self.extents)} leave a gap: use ti.i, ti.ij, .."
            )
        shape = tuple(self.extents[a] for a in sorted(self.extents))
        for f in fields:
            if not isinstance(f, Field):
                raise TaichiError(f"place() takes fields, got {f!r}")
            if f.primal is not None and f.placed and f.shape == shape:
                continue  # `place(x, x.grad)`: the gradient was placed with x
            f._place(shape)
        return self

    def lazy_grad(self) -> None:
        """Taichi's `ti.root.lazy_grad()`: gradients are always placed with their fields."""

    def _unsupported(self, kind: str) -> Any:
        raise TaichiError(
            f"ti.root.{kind}(...): only dense SNodes are supported by taichi-xdsl yet"
        )

    def pointer(self, *args: Any, **kwargs: Any) -> SNode:
        return self._unsupported("pointer")

    def bitmasked(self, *args: Any, **kwargs: Any) -> SNode:
        return self._unsupported("bitmasked")

    def dynamic(self, *args: Any, **kwargs: Any) -> SNode:
        return self._unsupported("dynamic")

    def hash(self, *args: Any, **kwargs: Any) -> SNode:
        return self._unsupported("hash")

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.extents[a] for a in sorted(self.extents))


class _Root(SNode):
    """`ti.root`: the root of the layout tree of the current program."""

    def __init__(self) -> None:
        super().__init__({})

    def __repr__(self) -> str:
        return "ti.root"


root = _Root()
