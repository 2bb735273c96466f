"""
Fields: `ti.field(dtype, shape)` and `ti.root.dense(ti.ij, shape).place(x)`.

A field is a dense row-major array in the program's root buffer, at a fixed byte
offset. Inside a kernel it is a `taichi.field` symbol; in Python scope it is a NumPy
view of the root buffer.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import (
    TaichiAssertionError,
    TaichiCompilationError,
    TaichiError,
    TaichiIndexAssertionError,
    TaichiIndexError,
    TaichiRuntimeError,
)

from . import program as _program
from .dtypes import DataType, cook_dtype, float_literal


def storage_dtype(dtype: Any, cfg: _program.Config) -> DataType:
    """The element type of a field or ndarray (a u1 is stored as a byte, 0 or 1)."""
    return cook_dtype(dtype, cfg.default_ip, cfg.default_fp)


def _normalize_shape(shape: Any, what: str = "field or ndarray") -> tuple[int, ...]:
    """A shape as a tuple of ints; each extent a non-negative int32 (positive for an
    ndarray), as Taichi checks it."""
    original = shape
    if isinstance(shape, int | np.integer):
        shape = (shape,)
    if not isinstance(shape, tuple | list) or not all(
        isinstance(s, int | np.integer) and not isinstance(s, bool) for s in shape
    ):
        raise TaichiRuntimeError(f"{original!r} is not a valid shape for {what}")
    shape = tuple(int(s) for s in shape)
    if what != "ndarray":
        check_field_extents(shape)
    if any(not 1 <= s < 2**31 for s in shape):
        raise TaichiRuntimeError(f"{original!r} is not a valid shape for {what}")
    return shape


def _python_index(
    key: Any, ndim: int, index_offset: tuple[int, ...] = (), what: str = "field"
) -> tuple[int, ...]:
    """
    `x[i, j]`, `x[None]`, `x[()]` in Python scope as a NumPy index into the storage,
    which starts at `index_offset` (a field's `offset=`). An index out of the field's
    range raises IndexError (NumPy would wrap negative ones around).
    """
    if hasattr(key, "to_numpy"):  # x[ti.Vector([i, j])]
        key = tuple(key.to_numpy().tolist())
    if key is None or (isinstance(key, tuple) and not key):
        key = ()
    elif not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if not isinstance(k, int | np.integer) or isinstance(k, bool):
            raise TypeError(
                f"Detected illegal element of type: {type(k)}. Please be aware that "
                "slicing a ti.field is not supported so far."
            )
    if len(key) != ndim:  # Taichi's errors: an assertion for a field, an IndexError
        message = f"{ndim}d {what} indexed with {len(key)}d indices: {key!r}"
        if what == "field":
            raise TaichiIndexAssertionError(f"Slicing is not supported on ti.field: {message}")
        raise TaichiIndexError(message)
    index = tuple(int(k) for k in key)
    if index_offset:
        index = tuple(k - o for k, o in zip(index, index_offset))
    return index


def _normalize_offset(offset: Any, ndim: int) -> tuple[int, ...]:
    """`offset=` of ti.field: an int (1-d) or one int per axis; zeros when None."""
    if offset is None:
        return (0,) * ndim
    if isinstance(offset, int | np.integer):
        offset = (int(offset),)
    offset = tuple(int(o) for o in offset)
    if len(offset) != ndim:
        raise TaichiCompilationError(
            f"The dimensionality of shape and offset must be the same ({ndim} != "
            f"{len(offset)})"
        )
    return offset


def _check_order(order: str | None, ndim: int) -> None:
    """`order=` of ti.field: a permutation of the first `ndim` axes letters ('ji')."""
    if order is None:
        return
    if len(order) != ndim:
        raise TaichiCompilationError(
            f"The dimensionality of shape and order must be the same ({ndim} != "
            f"{len(order)})"
        )
    if len(set(order)) != len(order):
        raise TaichiCompilationError(f"The axes in order must be different: {order!r}")
    for axis in order:
        if axis not in "ijkl"[:ndim]:
            raise TaichiCompilationError(f"Invalid axis {axis!r} in order={order!r}")


def _import_torch(what: str) -> Any:
    try:
        import torch
    except ImportError:
        raise TaichiError(
            f"{what}() needs PyTorch, which is not installed here (pip install torch); "
            "to_numpy()/from_numpy() work without it"
        ) from None
    return torch



def _wrapped_int(value: int, dtype: np.dtype) -> int:
    """A Python int as an integer of `dtype` keeps it: its low bits (-128 in a u8 is 128)."""
    bits = dtype.itemsize * 8
    v = value & ((1 << bits) - 1)
    if dtype.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v

def python_scalar(element: np.generic) -> Any:
    """An element read in Python scope: a Python number; a u1 (bool) reads as 0 or 1,
    as in Taichi."""
    value = element.item()
    return int(value) if isinstance(value, bool) else value


class _ArrayLike:
    """Python-scope access shared by fields and ndarrays, on top of `_array()`."""

    dtype: DataType
    shape: tuple[int, ...]

    def _array(self) -> np.ndarray:
        raise NotImplementedError

    index_offset: tuple[int, ...] = ()
    """The index of the first element along each axis (ti.field's `offset=`)."""

    def _key(self, key: Any) -> tuple[int, ...]:
        what = "field" if isinstance(self, Field) else "ndarray"
        index = _python_index(key, len(self.shape), self.index_offset, what)
        for k, n in zip(index, self.shape):
            if not 0 <= k < n:
                # ti.init(debug=True) checks bounds as Taichi does, with an assertion
                prog = _program._current
                debug = prog is not None and prog.config.debug
                raise (TaichiAssertionError if debug else IndexError)(
                    f"index {key!r} is out of the bounds of a field/ndarray of shape "
                    f"{self.shape}"
                    + (f" and offset {self.index_offset}" if any(self.index_offset) else "")
                )
        return index

    def __getitem__(self, key: Any) -> Any:
        index = self._key(key)
        if self.element_shape:  # a Vector/Matrix element: a view that writes through
            from .matrix import Matrix

            return Matrix._view(self._array()[index])
        return python_scalar(self._array()[index])

    def __setitem__(self, key: Any, value: Any) -> None:
        if hasattr(value, "to_numpy"):
            value = value.to_numpy()
        arr = self._array()
        if type(value) is int and arr.dtype.kind in "iu":
            value = _wrapped_int(value, arr.dtype)  # as a store in a kernel: modulo 2^bits
        arr[self._key(key)] = value

    def fill(self, value: Any) -> None:
        """Set every element to `value`."""
        value = float_literal(value, _program.get_program().config.default_fp)
        if hasattr(value, "to_numpy"):
            value = value.to_numpy()
        self._array()[...] = value

    def to_numpy(self, dtype: Any = None, keep_dims: bool = False) -> np.ndarray:
        """
        A NumPy copy of the elements; the components of a Vector/Matrix element are
        trailing axes (a vector's one axis of n, or with `keep_dims=True` two: n x 1).
        """
        arr = self._array()
        arr = arr.astype(dtype) if dtype is not None else arr.copy()
        if keep_dims and len(self.element_shape) == 1:
            arr = arr.reshape(arr.shape + (1,))
        return arr

    def to_torch(self, device: Any = None) -> Any:
        """
        A PyTorch tensor copy of the elements (on `device`; the CPU by default).

        Raises:
            TaichiError: PyTorch is not installed.
        """
        torch = _import_torch("to_torch")
        tensor = torch.from_numpy(self.to_numpy())
        return tensor.to(device) if device is not None else tensor

    def from_torch(self, tensor: Any) -> None:
        """Copy the elements of a PyTorch tensor of the same shape in."""
        _import_torch("from_torch")
        self.from_numpy(tensor.detach().cpu().numpy())

    @property
    def n(self) -> int:
        """The rows of a Vector/Matrix field or ndarray element."""
        if not self.element_shape:
            raise AttributeError("a scalar field or ndarray has no attribute 'n'")
        return self.element_shape[0]

    @property
    def m(self) -> int:
        """The columns of a Matrix field or ndarray element (1 for vectors)."""
        if not self.element_shape:
            raise AttributeError("a scalar field or ndarray has no attribute 'm'")
        return self.element_shape[1] if len(self.element_shape) == 2 else 1

    def from_numpy(self, arr: Any) -> None:
        """Copy the elements of a NumPy array of the same shape in."""
        self._array()[...] = self._conform(arr)

    def _conform(self, arr: Any) -> np.ndarray:
        """`arr` as an array of this field's or ndarray's shape; a vector's elements may
        also come as columns (n, 1) (`to_numpy(keep_dims=True)`) or rows (1, n), as
        Taichi takes them."""
        arr = np.asarray(arr)
        full = self.shape + self.element_shape
        if arr.shape != full and len(self.element_shape) == 1:
            n = self.element_shape[0]
            if arr.shape in (self.shape + (n, 1), self.shape + (1, n)):
                arr = arr.reshape(full)
        if arr.shape != full:
            raise ValueError(
                f"from_numpy: expected an array of shape {full}, got {arr.shape}"
            )
        return arr

    def copy_from(self, other: _ArrayLike) -> None:
        """Copy the elements of another field or ndarray of the same shape."""
        if not isinstance(other, _ArrayLike):
            raise TypeError(f"copy_from takes a field or an ndarray, got {type(other).__name__}")
        self.from_numpy(other.to_numpy())

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

    def __iter__(self) -> Any:
        # Taichi's error: `for i in x` visits a field only inside a kernel.
        raise NotImplementedError("Struct for is only available in Taichi scope.")

    def __init__(self, dtype: DataType, name: str | None):
        self.dtype = dtype
        self.name = name
        self.shape: tuple[int, ...] = ()
        self.placed = False
        self.offset = 0
        self.symbol = ""
        self.program = _program.get_program()
        self.created_at: tuple[str, int] | None = None  # (file, line) of ti.field(...)
        self.index_offset: tuple[int, ...] = ()  # set with the shape
        self._view: np.ndarray | None = None
        self._view_root: np.ndarray | None = None

    space: dict[int, int] | None = None
    """The axes and extents of the index space (set when placed in an SNode tree)."""
    pool_owner: Any = None
    """The pointer SNode whose pool stores this field (lang/pools.py), or None."""
    words_of: Any = None
    """On the block words of a pointer SNode: that SNode."""

    @property
    def storage_shape(self) -> tuple[int, ...]:
        """The shape of the stored array: `shape`, or (blocks, *local) in a pool."""
        owner = self.pool_owner
        if owner is None:
            return self.shape
        from .pools import local_extents

        assert self.space is not None
        return (owner.pool.rows, *local_extents(self.space, owner))

    @property
    def nbytes(self) -> int:
        # math.prod of Python ints: np.prod cost ~10x more, on every Python-scope access
        count = math.prod(self.storage_shape + self.element_shape)
        return count * self.dtype.np_dtype.itemsize

    _snode: Any = None
    """The place SNode of a field placed with `SNode.place` (lang/snode.py)."""
    hidden = False
    """A mask or length field of a sparse SNode, which users do not see."""
    spans_segments = False
    """An array of a sparse pool that may span several Vulkan root segments
    (lang/pools.py); any other field must fit one."""

    @property
    def snode(self) -> Any:
        """The place SNode of this field (`x.snode.parent()` is its container)."""
        if self._snode is None:
            from .snode import SNode

            node = SNode("dense", SNode("root", None, {}), dict(enumerate(self.shape)))
            self._snode = SNode("place", node, {})
            self._snode.fields.append(self)
        return self._snode

    @property
    def _name(self) -> str:
        """The name given at creation (`ti.field(..., name="x")`), as Taichi's `_name`."""
        return self.name

    def get_scalar_field(self, *indices: int) -> MatrixMember:
        """Taichi's member (i) / (i, j) of a Vector/Matrix field, to place: SNode.place
        places the field when one call places all of its members."""
        if len(indices) != len(self.element_shape) or not all(
            0 <= i < n for i, n in zip(indices, self.element_shape)
        ):
            raise TaichiError(
                f"get_scalar_field{indices}: {self.name or 'the field'} has elements "
                f"of shape {self.element_shape}"
            )
        return MatrixMember(self, tuple(indices))

    def parent(self, n: int = 1) -> Any:
        """The SNode `n` levels above this field (`x.parent()`: its container)."""
        return self.snode.parent(n)

    def _sparse(self) -> bool:
        from .snode import is_sparse_field

        return self._snode is not None and is_sparse_field(self)

    def _storage_index(self, index: tuple[int, ...], activate: bool = False) -> tuple[Any, ...]:
        if self.pool_owner is None:
            return index
        from .pools import storage_index

        assert self.space is not None
        return storage_index(self.space, self.pool_owner, list(index), activate)

    def __iter__(self) -> Any:
        """`for i in x` is a struct-for: kernels only (Python scope: use x.to_numpy())."""
        raise NotImplementedError("Struct for is only available in Taichi scope.")

    def __getitem__(self, key: Any) -> Any:
        if self.pool_owner is None:
            return super().__getitem__(key)
        at = self._storage_index(self._key(key))
        if self.element_shape:  # a copy: a view could write into the zero block
            from .matrix import Matrix

            return Matrix._view(self._array()[at].copy())
        return python_scalar(self._array()[at])

    def __setitem__(self, key: Any, value: Any) -> None:
        index = self._key(key)
        if self._sparse():  # a write activates the cells above the element
            from .snode import activate_python_write

            activate_python_write(self, index)
        self._raw_set(index, value)

    def _raw_set(self, index: tuple[int, ...], value: Any) -> None:
        if hasattr(value, "to_numpy"):
            value = value.to_numpy()
        arr = self._array()
        if type(value) is int and arr.dtype.kind in "iu":
            value = _wrapped_int(value, arr.dtype)  # as a store in a kernel: modulo 2^bits
        arr[self._storage_index(index, activate=True)] = value

    def _logical(self) -> np.ndarray:
        """A copy of the elements in the field's index space (a pooled field gathers)."""
        if self.pool_owner is None:
            return self._array().copy()
        from .pools import gather

        return gather(self)

    def _active(self) -> np.ndarray | None:
        """Which elements are active (None: all, a dense field)."""
        if not self._sparse():
            return None
        from .snode import active_elements

        return active_elements(self)

    def to_numpy(self, dtype: Any = None, keep_dims: bool = False) -> np.ndarray:
        if self.pool_owner is None:
            arr = super().to_numpy(dtype, keep_dims)
        else:
            arr = self._logical()
            arr = arr.astype(dtype) if dtype is not None else arr
            if keep_dims and len(self.element_shape) == 1:
                arr = arr.reshape(arr.shape + (1,))
        active = self._active()
        if active is not None:  # inactive cells read as 0, as in Taichi
            arr[~active] = 0
        return arr

    def fill(self, value: Any) -> None:
        active = self._active()
        if active is None:
            return super().fill(value)
        if hasattr(value, "to_numpy"):
            value = value.to_numpy()
        if self.pool_owner is not None:
            from .pools import scatter

            scatter(self, value, active)
            return
        self._array()[active] = value  # Taichi's fill visits only active cells

    def from_numpy(self, arr: Any) -> None:
        if self.pool_owner is None:
            super().from_numpy(arr)
        if self._sparse():  # every element was written: every cell is active
            from .snode import activate_all

            activate_all(self)
        if self.pool_owner is not None:
            from .pools import scatter

            scatter(self, self._conform(arr))

    grad: Field | None = None
    """The gradient field of a float field (ti.ad); placed with it when it has a shape
    and `needs_grad=True`, else by `place(x.grad)` or `ti.root.lazy_grad()`."""
    dual: Field | None = None
    """The dual (forward-mode tangent) field of a float field; placed as `grad` is
    (`needs_dual=True`, `place(x.dual)`, `ti.root.lazy_dual()`)."""
    primal: Field | None = None
    """On a gradient or dual field: the field it belongs to."""
    adjoint_checked = False
    """Whether a ti.ad.Tape(validation=True) in debug mode covered this field with its
    global data access check (Taichi's `snode.ptr.has_adjoint_checkbit()`)."""
    needs_grad = False
    needs_dual = False

    def _place(self, shape: tuple[int, ...], index_offset: Any = None) -> None:
        if self.placed:
            raise TaichiError(f"field {self.symbol or self.name or ''} is already placed")
        self.shape = shape
        self.index_offset = _normalize_offset(index_offset, len(shape))
        self.placed = True
        primal = self.primal
        if primal is not None and not self.name and primal.placed:
            self.name = f"{primal.symbol}_{'grad' if self is primal.grad else 'dual'}"
        self.program.place_field(self, self.name)

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
        prog.root  # noqa: B018 (allocated on first use)
        # a device backend syncs this field's bytes for Python-scope access
        prog.host_access(self.offset, self.offset + self.nbytes)
        return self._host_view()

    def _host_view(self) -> np.ndarray:
        """The field's storage in the host root, as it is there (no device sync)."""
        root = self._check_live().root
        if self._view_root is not root or self._view is None:
            assert root is not None
            raw = root[self.offset : self.offset + self.nbytes]
            full = self.storage_shape + self.element_shape
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

    `offset` (an int, or one per axis) is the index of the first element along each
    axis: `ti.field(int, 16, offset=-8)` holds x[-8] .. x[7] (`Field.index_offset`).
    `order` ('ji', ...) names the axes from the outermost in memory; taichi-xdsl stores
    every field row-major, so it is checked but does not change the layout (the values
    a program sees are the same).

    A float field has a gradient field `x.grad` and a dual field `x.dual` (ti.ad);
    `needs_grad=True` / `needs_dual=True` place them with a field given a shape, and
    require them placed (`place(x.grad)`, `ti.root.lazy_grad()`) before a kernel runs.

    Raises:
        TaichiError: needs_grad/needs_dual on a non-float type, an offset without a
            shape or with the wrong number of axes, an order that is no permutation.
    """
    if offset is not None and shape is None:
        raise TaichiCompilationError("shape cannot be None when offset is set")
    if order is not None and shape is None:
        raise TaichiCompilationError("shape cannot be None when order is set")
    prog = _program.get_program()
    from .quant import QuantType

    element_type = getattr(dtype, "dtype", None) if hasattr(dtype, "cooked") else None
    if isinstance(dtype, QuantType) or isinstance(element_type, QuantType):
        # placed by ti.BitpackedFields / quant_array (lang/bitpacked.py)
        if shape is not None:
            raise TaichiError(
                "a field of a quantized type has no shape of its own: place it with "
                "ti.BitpackedFields or SNode.quant_array"
            )
        from .bitpacked import quant_field

        return quant_field(dtype, name or None)
    element_shape: tuple[int, ...] = ()
    if hasattr(dtype, "shape") and hasattr(dtype, "cooked"):  # ti.types.vector/matrix
        element_shape, dtype = dtype.shape, dtype.dtype
    f = Field(storage_dtype(dtype, prog.config), name or None)
    f.element_shape = element_shape
    if (needs_grad or needs_dual) and not f.dtype.is_float:
        raise TaichiRuntimeError(
            f"{f.dtype} is not supported for field with `needs_grad=True` or "
            "`needs_dual=True` (a gradient needs a float type)"
        )
    if f.dtype.is_float:  # ti.ad's companions: x.grad (reverse mode), x.dual (forward)
        f.grad, f.dual = _companion(f, name, "grad"), _companion(f, name, "dual")
        f.needs_grad, f.needs_dual = needs_grad, needs_dual
    caller = sys._getframe(1)
    f.created_at = (caller.f_code.co_filename, caller.f_lineno)
    if shape is not None:
        shape = _normalize_shape(shape)
        _check_order(order, len(shape))
        f._place(shape, offset)
        for companion, needed in ((f.grad, needs_grad), (f.dual, needs_dual)):
            if needed and companion is not None:
                companion._place(shape, offset)
    else:
        prog.unplaced_fields.append(f)
    return f


def _companion(f: Field, name: str, kind: str) -> Field:
    """The unplaced gradient or dual field of `f` (same type and element shape)."""
    companion = Field(f.dtype, f"{name}_{kind}" if name else None)
    companion.element_shape = f.element_shape
    companion.primal = f
    return companion


def check_companions_placed(prog: _program.Program) -> None:
    """
    Taichi's materialize check: every field created must be placed, and a placed
    field created with needs_grad / needs_dual must have its gradient / dual field
    placed, before a kernel runs.

    Raises:
        TaichiRuntimeError: naming the fields not placed, or whose companions are not.
    """
    unplaced = [f for f in prog.unplaced_fields if not f.placed]
    prog.unplaced_fields = unplaced
    for f in unplaced:  # members placed by separate place() calls
        shapes = getattr(f, "placed_members", {})
        if len(set(shapes.values())) > 1:
            raise TaichiRuntimeError(
                f"Members of the following field have different shapes: "
                f"{f.name or 'field'} ({', '.join(f'{i}: {s}' for i, s in shapes.items())})"
            )
        if len(shapes) == int(np.prod(f.element_shape)):
            raise TaichiRuntimeError(
                f"{f.name or 'field'}: taichi-xdsl places the members of a Vector/Matrix "
                "field together: members placed apart under sparse SNodes are not "
                "supported; place them in one place() call, or place the field"
            )
    if unplaced:
        names = ", ".join(
            f"{f.name or 'field'} created at {f.created_at[0]}:{f.created_at[1]}"
            if f.created_at
            else f.name or "field"
            for f in unplaced
        )
        raise TaichiRuntimeError(
            f"These field(s) are not placed: {names} (give ti.field a shape or place "
            "it with ti.root.dense(...).place(x))"
        )
    for kind in ("grad", "dual"):
        missing = [
            f
            for f in prog.fields
            if getattr(f, f"needs_{kind}") and not getattr(f, kind).placed
        ]
        if missing:
            raise TaichiRuntimeError(
                f"These field(s) requrie `needs_{kind}=True`, however their {kind} "
                f"field(s) are not placed: {', '.join(f.symbol for f in missing)} "
                f"(place them with ti.root...place(x.{kind}) or ti.root.lazy_{kind}())"
            )


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


class MatrixMember:
    """`x.get_scalar_field(i, j)`: one member of a Vector/Matrix field, to place.
    `placed_members` of the field records the shape each member was placed with."""

    def __init__(self, field: Field, indices: tuple[int, ...]):
        self.field = field
        self.indices = indices


from .snode import SNode, check_field_extents  # noqa: E402  (the layout tree)


def _place_companions(kind: str) -> None:
    for f in list(_program.get_program().fields):
        companion = getattr(f, kind)
        if f.primal is None and companion is not None and not companion.placed:
            if f.pool_owner is not None:  # beside its field, in the same pool
                from .snode import _place_in_pool

                _place_in_pool(companion, dict(f.space), f.pool_owner, f.index_offset)
                companion._snode = f._snode
            else:
                companion._place(f.shape, f.index_offset)


class _Root(SNode):
    """`ti.root`: the root of the layout tree of the current program."""

    def __init__(self) -> None:
        super().__init__("root", None, {})

    def _child(self, *args: Any, **kwargs: Any) -> SNode:
        self.children = [c for c in self.children if c.program is _program._current]
        return super()._child(*args, **kwargs)

    def __repr__(self) -> str:
        return "ti.root"


root = _Root()
