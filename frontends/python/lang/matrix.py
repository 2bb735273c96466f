"""
`ti.Vector`, `ti.Matrix` and the vector/matrix types (`ti.math.vec3`,
`ti.types.vector(3, ti.f32)`, `ti.types.matrix(2, 2, ti.f32)`).

In Python scope a vector or matrix is a `Matrix`: a small NumPy array with Taichi's
methods (`norm`, `dot`, `@`, swizzles ...). Inside kernels the code generator gives
the same names a meaning of its own (vectors.py): a kernel-side vector is a list of
scalar IR values, and fields of vectors are fields with extra trailing dimensions.

    x = ti.Vector.field(2, ti.f32, shape=(8, 8))   # memref<8x8x2xf32> in the IR
    C = ti.Matrix.field(2, 2, float, n)            # memref<nx2x2xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import (
    TaichiCompilationError,
    TaichiError,
    TaichiRuntimeError,
    TaichiSyntaxError,
)

from . import program as _program
from .dtypes import DataType, cook_dtype

_SWIZZLE_SETS = ("xyzw", "rgba", "stpq")


class Aggregate:
    """A kernel-side vector, matrix or struct (value or place): not a Python constant."""


def swizzle_indices(name: str) -> list[int] | None:
    """`xy` -> [0, 1], `b` -> [2]; None when `name` is not a swizzle."""
    if not name or len(name) > 4:
        return None
    for letters in _SWIZZLE_SETS:
        if all(c in letters for c in name):
            return [letters.index(c) for c in name]
    return None


VECTOR_TRANSPOSE = (
    "`transpose()` cannot apply to a vector. If you want something like `a @ b.transpose()`, "
    "write `a.outer_product(b)` instead."
)


def swizzle_mismatch(n: int, name: str) -> str:
    """Taichi's message for a swizzle `name` that a vector of `n` components lacks
    (`vec2 only has attributes=('x', 'y'), got=('z',)`)."""
    letters = next((ls for ls in _SWIZZLE_SETS if all(c in ls for c in name)), "xyzw")
    return f"vec{n} only has attributes={tuple(letters[:n])}, got={tuple(name)}"


class Matrix:
    """A vector (1-d) or matrix (2-d) value in Python scope, backed by NumPy."""

    __array_priority__ = 100

    def __init__(self, data: Any, dt: Any = None):
        if isinstance(data, Matrix):
            data = data.data
        arr = np.array(
            [x.to_numpy() if isinstance(x, Matrix) else x for x in data]
            if isinstance(data, list | tuple)
            else data
        )
        if arr.ndim not in (1, 2):
            raise TaichiError(f"ti.Matrix takes a list or a list of lists, got {data!r}")
        if dt is not None:
            cfg = _program.get_program().config
            arr = arr.astype(cook_dtype(dt, cfg.default_ip, cfg.default_fp).np_dtype)
        self.data = arr

    @classmethod
    def _view(cls, arr: np.ndarray) -> Matrix:
        """A Matrix over `arr` itself (a field element): writes reach the field."""
        m = cls.__new__(cls)
        object.__setattr__(m, "data", arr)
        return m

    # -- shape and elements ----------------------------------------------------------

    @property
    def n(self) -> int:
        return self.data.shape[0]

    @property
    def m(self) -> int:
        return self.data.shape[1] if self.data.ndim == 2 else 1

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    def to_numpy(self) -> np.ndarray:
        return self.data.copy()

    def to_list(self) -> list[Any]:
        return self.data.tolist()

    def __len__(self) -> int:
        return self.data.shape[0]

    def __iter__(self) -> Any:
        for row in self.data:
            yield Matrix(row) if np.ndim(row) else row.item()

    def __getitem__(self, key: Any) -> Any:
        r = self.data[key]
        return Matrix(r) if np.ndim(r) else r.item()

    def __setitem__(self, key: Any, value: Any) -> None:
        self.data[key] = value.data if isinstance(value, Matrix) else value

    def __getattr__(self, name: str) -> Any:
        idx = swizzle_indices(name) if name != "data" else None
        if idx is None or self.data.ndim != 1 or max(idx) >= self.n:
            raise AttributeError(f"'Matrix' object has no attribute '{name}'")
        return self.data[idx[0]].item() if len(idx) == 1 else Matrix(self.data[idx])

    def __setattr__(self, name: str, value: Any) -> None:
        idx = swizzle_indices(name) if name != "data" else None
        if idx is None:
            object.__setattr__(self, name, value)
            return
        if self.data.ndim != 1:
            raise TaichiSyntaxError(f"a matrix has no swizzle '{name}' (vectors do)")
        if max(idx) >= self.n:
            raise TaichiSyntaxError(swizzle_mismatch(self.n, name))
        if len(set(idx)) != len(idx):
            raise TaichiSyntaxError(f"cannot assign to the repeating swizzle '{name}'")
        value = _np(value)
        if len(idx) > 1 and np.size(value) not in (1, len(idx)):
            raise TaichiRuntimeError(
                f"value len does not match the swizzle pattern={name}"
            )
        self.data[idx if len(idx) > 1 else idx[0]] = value

    def __repr__(self) -> str:
        return repr(self.data.tolist())

    def __eq__(self, other: object) -> Any:  # element-wise, as in Taichi
        return Matrix(self.data == _np(other))

    def __hash__(self) -> int:
        return id(self)

    # -- arithmetic ------------------------------------------------------------------

    def _bin(self, other: Any, fn: Any) -> Matrix:
        return Matrix(fn(self.data, _np(other)))

    def __add__(self, o: Any) -> Matrix:
        return self._bin(o, np.add)

    def __radd__(self, o: Any) -> Matrix:
        return Matrix(_np(o) + self.data)

    def __sub__(self, o: Any) -> Matrix:
        return self._bin(o, np.subtract)

    def __rsub__(self, o: Any) -> Matrix:
        return Matrix(_np(o) - self.data)

    def __mul__(self, o: Any) -> Matrix:
        return self._bin(o, np.multiply)

    def __rmul__(self, o: Any) -> Matrix:
        return Matrix(_np(o) * self.data)

    def __truediv__(self, o: Any) -> Matrix:
        return self._bin(o, np.true_divide)

    def __rtruediv__(self, o: Any) -> Matrix:
        return Matrix(_np(o) / self.data)

    def __pow__(self, o: Any) -> Matrix:
        return self._bin(o, np.power)

    def __neg__(self) -> Matrix:
        return Matrix(-self.data)

    def __pos__(self) -> Matrix:
        return Matrix(self.data.copy())

    def __abs__(self) -> Matrix:
        return Matrix(np.abs(self.data))

    def __invert__(self) -> Matrix:
        return Matrix(~self.data)

    def __rpow__(self, o: Any) -> Matrix:
        return Matrix(_np(o) ** self.data)

    def __floordiv__(self, o: Any) -> Matrix:
        return self._bin(o, np.floor_divide)

    def __rfloordiv__(self, o: Any) -> Matrix:
        return Matrix(_np(o) // self.data)

    def __mod__(self, o: Any) -> Matrix:
        return self._bin(o, np.mod)

    def __rmod__(self, o: Any) -> Matrix:
        return Matrix(_np(o) % self.data)

    def __and__(self, o: Any) -> Matrix:
        return self._bin(o, np.bitwise_and)

    __rand__ = __and__

    def __or__(self, o: Any) -> Matrix:
        return self._bin(o, np.bitwise_or)

    __ror__ = __or__

    def __xor__(self, o: Any) -> Matrix:
        return self._bin(o, np.bitwise_xor)

    __rxor__ = __xor__

    def __lshift__(self, o: Any) -> Matrix:
        return self._bin(o, np.left_shift)

    def __rshift__(self, o: Any) -> Matrix:
        return self._bin(o, np.right_shift)

    # element-wise comparisons (as ==): a Matrix of truth values
    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        return Matrix(self.data != _np(other))

    def __lt__(self, other: Any) -> Matrix:
        return Matrix(self.data < _np(other))

    def __le__(self, other: Any) -> Matrix:
        return Matrix(self.data <= _np(other))

    def __gt__(self, other: Any) -> Matrix:
        return Matrix(self.data > _np(other))

    def __ge__(self, other: Any) -> Matrix:
        return Matrix(self.data >= _np(other))

    @property
    def entries(self) -> np.ndarray:
        """The components as a NumPy array of the value's shape and scalar type."""
        return self.data

    def __matmul__(self, o: Any) -> Any:
        r = self.data @ _np(o)
        return Matrix(r) if np.ndim(r) else r.item()

    # -- Taichi's methods ------------------------------------------------------------

    def dot(self, o: Any) -> Any:
        return float(np.dot(self.data, _np(o)))

    def cross(self, o: Any) -> Any:
        r = np.cross(self.data, _np(o))
        return Matrix(r) if np.ndim(r) else r.item()

    def norm(self, eps: float = 0) -> float:
        return float(np.sqrt(np.sum(self.data**2) + eps))

    def norm_sqr(self) -> float:
        return float(np.sum(self.data**2))

    def normalized(self, eps: float = 0) -> Matrix:
        return Matrix(self.data / (self.norm() + eps))

    def outer_product(self, o: Any) -> Matrix:
        return Matrix(np.outer(self.data, _np(o)))

    def transpose(self) -> Matrix:
        if self.data.ndim == 1:
            raise TaichiCompilationError(VECTOR_TRANSPOSE)
        return Matrix(self.data.T)

    @property
    def T(self) -> Matrix:
        return self.transpose()

    def _check_square(self) -> None:
        if self.data.ndim != 2 or self.data.shape[0] != self.data.shape[1]:
            raise TaichiCompilationError(
                f"expected a square matrix, got shape {tuple(self.data.shape)}"
            )

    def trace(self) -> Any:
        self._check_square()
        return np.trace(self.data).item()

    def determinant(self) -> float:
        return float(np.linalg.det(self.data))

    def inverse(self) -> Matrix:
        self._check_square()
        return Matrix(np.linalg.inv(self.data))

    def sum(self) -> Any:
        return self.data.sum().item()

    def max(self) -> Any:
        return self.data.max().item()

    def min(self) -> Any:
        return self.data.min().item()

    def any(self) -> bool:
        return bool(self.data.any())

    def all(self) -> bool:
        return bool(self.data.all())

    def cast(self, dt: Any) -> Matrix:
        return Matrix(self.data, dt)

    # -- constructors (ti.Matrix.zero(...) etc.) ---------------------------------------

    @staticmethod
    def zero(dt: Any, n: int, m: int | None = None) -> Matrix:
        return Matrix(np.zeros((n,) if m is None else (n, m)), dt)

    @staticmethod
    def one(dt: Any, n: int, m: int | None = None) -> Matrix:
        return Matrix(np.ones((n,) if m is None else (n, m)), dt)

    @staticmethod
    def diag(dim: int, val: Any) -> Matrix:
        """A dim x dim matrix with `val` on the diagonal."""
        return Matrix(np.eye(dim, dtype=np.asarray(val).dtype) * val)

    @staticmethod
    def identity(dt: Any, n: int) -> Matrix:
        return Matrix(np.eye(n), dt)

    @staticmethod
    def unit(n: int, i: int, dt: Any = None) -> Matrix:
        arr = np.zeros(n)
        arr[i] = 1
        return Matrix(arr, dt if dt is not None else int)  # Taichi's default: int

    @staticmethod
    def rows(rows: Sequence[Any]) -> Matrix:
        return Matrix([_np(r) for r in rows])

    @staticmethod
    def cols(cols: Sequence[Any]) -> Matrix:
        return Matrix(np.array([_np(c) for c in cols]).T)

    @staticmethod
    def field(
        n: int, m: int, dtype: Any, shape: Any = None, name: str = "", **kwargs: Any
    ) -> Any:
        """A field of n x m matrices: `ti.Matrix.field(2, 2, ti.f32, shape=n)`; `layout`
        (ti.Layout) is checked, and stored as AOS (enums.Layout)."""
        from .field import field

        _check_layout(kwargs.pop("layout", None))
        return field(MatrixType(n, m, dtype), shape=shape, name=name, **kwargs)

    @staticmethod
    def ndarray(n: int, m: int, dtype: Any, shape: Any, **kwargs: Any) -> Any:
        """An ndarray of n x m matrices."""
        from .ndarray import ndarray

        return ndarray(MatrixType(n, m, dtype), shape, **kwargs)


def _check_layout(layout: Any) -> None:
    """`layout=` of a Vector/Matrix field: None or a ti.Layout."""
    from .enums import Layout

    if layout is not None and not isinstance(layout, Layout):
        raise TaichiError(f"layout= takes ti.Layout.AOS or ti.Layout.SOA, got {layout!r}")


def _np(x: Any) -> Any:
    return x.data if isinstance(x, Matrix) else np.asarray(x)


class Vector(Matrix):
    """`ti.Vector([...])`: a 1-d Matrix; `ti.Vector.field(n, dtype, shape)`."""

    def __init__(self, data: Any, dt: Any = None):
        super().__init__(data, dt)
        if self.data.ndim != 1:
            raise TaichiError(f"ti.Vector takes a flat list, got {data!r}")

    @staticmethod
    def zero(dt: Any, n: int) -> Matrix:  # type: ignore[override]
        return Matrix(np.zeros(n), dt)

    @staticmethod
    def one(dt: Any, n: int) -> Matrix:  # type: ignore[override]
        return Matrix(np.ones(n), dt)

    @staticmethod
    def field(  # type: ignore[override]
        n: int, dtype: Any, shape: Any = None, name: str = "", **kwargs: Any
    ) -> Any:
        """A field of n-vectors: `ti.Vector.field(3, ti.f32, shape=(16, 16))`; `layout`
        as for Matrix.field."""
        from .field import field

        _check_layout(kwargs.pop("layout", None))
        return field(VectorType(n, dtype), shape=shape, name=name, **kwargs)

    @staticmethod
    def ndarray(n: int, dtype: Any, shape: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """An ndarray of n-vectors."""
        from .ndarray import ndarray

        return ndarray(VectorType(n, dtype), shape, **kwargs)


class MatrixType:
    """
    The type of n x m matrices (or, with `m` None, of n-vectors) of `dtype`: field
    element types, annotations, and constructors (`ti.math.vec3(1, 2, 3)`).
    """

    def __init__(self, n: int, m: int | None, dtype: Any):
        self.n = n
        self.m = m
        self.dtype = dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.n,) if self.m is None else (self.n, self.m)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def cooked(self, cfg: _program.Config) -> DataType:
        return cook_dtype(self.dtype, cfg.default_ip, cfg.default_fp)

    def __call__(self, *args: Any) -> Matrix:
        flat: list[Any] = []
        for a in args:
            if isinstance(a, Matrix):
                flat.extend(a.data.ravel().tolist())
            elif isinstance(a, list | tuple | np.ndarray):
                flat.extend(np.asarray(a).ravel().tolist())
            else:
                flat.append(a)
        size = int(np.prod(self.shape))
        if len(flat) == 1:
            flat = flat * size
        if len(flat) != size:
            raise TaichiError(f"{self!r} takes {size} values, got {len(flat)}")
        return Matrix(np.array(flat).reshape(self.shape), self.dtype)

    def field(self, shape: Any = None, name: str = "", **kwargs: Any) -> Any:
        from .field import field

        return field(self, shape=shape, name=name, **kwargs)

    def ndarray(self, shape: Any, **kwargs: Any) -> Any:
        from .ndarray import ndarray

        return ndarray(self, shape, **kwargs)

    def __repr__(self) -> str:
        if self.m is None:
            return f"ti.types.vector({self.n}, {self.dtype!r})"
        return f"ti.types.matrix({self.n}, {self.m}, {self.dtype!r})"


def VectorType(n: int, dtype: Any = None) -> MatrixType:
    return MatrixType(n, None, dtype if dtype is not None else float)


class AnyMatrixType:
    """
    `ti.types.vector()` / `ti.types.matrix()` with no size: an ndarray parameter's
    element annotation taking vectors (ndim 1) or matrices (ndim 2) of any size and
    dtype; each one given instantiates the kernel anew. No value has this type.
    """

    def __init__(self, ndim: int):
        self.ndim = ndim

    def taichi_name(self) -> str:
        """As Taichi's argument errors name it: `VectorType[None, ]`."""
        return "VectorType[None, ]" if self.ndim == 1 else "MatrixType[None,None, ]"

    def __call__(self, *args: Any) -> Any:
        raise TaichiError(f"{self!r} has no size: it only annotates ndarray elements")

    def __repr__(self) -> str:
        return "ti.types.vector()" if self.ndim == 1 else "ti.types.matrix()"


def vector(n: int | None = None, dtype: Any = None) -> MatrixType | AnyMatrixType:
    """`ti.types.vector(n, dtype)`; `ti.types.vector()` annotates ndarray elements
    that are vectors of any size and dtype."""
    if n is None:
        if dtype is not None:
            raise TaichiError("ti.types.vector(dtype=...) needs a size n")
        return AnyMatrixType(1)
    return VectorType(n, dtype)


def matrix(
    n: int | None = None, m: int | None = None, dtype: Any = None
) -> MatrixType | AnyMatrixType:
    """`ti.types.matrix(n, m, dtype)`; `ti.types.matrix()` annotates ndarray elements
    that are matrices of any size and dtype."""
    if n is None and m is None:
        if dtype is not None:
            raise TaichiError("ti.types.matrix(dtype=...) needs a size n, m")
        return AnyMatrixType(2)
    if n is None or m is None:
        raise TaichiError(f"ti.types.matrix({n}, {m}): give both sizes, or neither")
    return MatrixType(n, m, dtype if dtype is not None else float)


__all__ = [
    "VECTOR_TRANSPOSE", "AnyMatrixType", "Matrix", "MatrixType", "Vector", "matrix",
    "swizzle_indices", "swizzle_mismatch", "vector",
]  # fmt: skip
