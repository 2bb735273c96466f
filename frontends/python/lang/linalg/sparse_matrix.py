"""
`ti.linalg.SparseMatrix` and `ti.linalg.SparseMatrixBuilder`.

A SparseMatrix is a SciPy sparse matrix (CSR for `row_major`, CSC for `col_major`) with
Taichi's API. A builder collects (row, col, value) triplets in fields that kernels fill
with `builder[i, j] += v` (an atomic append); `build()` sums duplicate entries, as
Taichi's builder does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

_FORMATS = ("row_major", "col_major")


def _np_dtype(dtype: Any) -> np.dtype:
    return np.dtype(np.float64 if dtype == ti.f64 else np.float32)


def _scipy_sparse():
    import scipy.sparse  # imported on first use: it costs ~0.2 s

    return scipy.sparse


def as_numpy_vector(x: Any) -> np.ndarray:
    """A field, an ndarray or anything NumPy takes, as a 1-D NumPy array."""
    if hasattr(x, "to_numpy"):
        x = x.to_numpy()
    return np.asarray(x).reshape(-1)


def like_input(result: np.ndarray, x: Any, dtype: Any) -> Any:
    """The result in the kind of container the caller gave: an ndarray for an ndarray,
    NumPy otherwise (Taichi returns NumPy for fields)."""
    if isinstance(x, ti.Ndarray):
        out = ti.ndarray(dtype, shape=result.shape)
        out.from_numpy(result.astype(_np_dtype(dtype)))
        return out
    return result


class SparseMatrix:
    """An n x m sparse matrix of f32 or f64."""

    def __init__(
        self,
        n: int | None = None,
        m: int | None = None,
        sm: Any = None,
        dtype: Any = None,
        storage_format: str = "col_major",
    ):
        if storage_format not in _FORMATS:
            raise TaichiError(
                f"SparseMatrix: storage_format must be one of {_FORMATS}, got {storage_format!r}"
            )
        self.dtype = ti.f32 if dtype is None else dtype
        self.storage_format = storage_format
        sp = _scipy_sparse()
        if sm is None:
            if n is None:
                raise TaichiError("SparseMatrix needs its shape: SparseMatrix(n, m)")
            sm = sp.csr_matrix((n, n if m is None else m), dtype=_np_dtype(self.dtype))
        self._m = self._in_format(sp.csr_matrix(sm).astype(_np_dtype(self.dtype)))

    def _in_format(self, sm: Any) -> Any:
        return sm.tocsc() if self.storage_format == "col_major" else sm.tocsr()

    def _new(self, sm: Any) -> SparseMatrix:
        return SparseMatrix(sm=sm, dtype=self.dtype, storage_format=self.storage_format)

    @property
    def n(self) -> int:
        return self._m.shape[0]

    @property
    def m(self) -> int:
        return self._m.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return self._m.shape

    def to_scipy(self) -> Any:
        """The SciPy sparse matrix behind this one (not a copy)."""
        return self._m

    def __add__(self, other: SparseMatrix) -> SparseMatrix:
        self._check_same_shape(other, "+")
        return self._new(self._m + other._m)

    def __sub__(self, other: SparseMatrix) -> SparseMatrix:
        self._check_same_shape(other, "-")
        return self._new(self._m - other._m)

    def __neg__(self) -> SparseMatrix:
        return self._new(-self._m)

    def __mul__(self, other: Any) -> SparseMatrix:
        if isinstance(other, SparseMatrix):  # element-wise, as in Taichi
            self._check_same_shape(other, "*")
            return self._new(self._m.multiply(other._m))
        if isinstance(other, (int, float, np.number)):
            return self._new(self._m * other)
        return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> SparseMatrix:
        return self._new(self._m / other)

    def transpose(self) -> SparseMatrix:
        return self._new(self._m.transpose())

    @property
    def T(self) -> SparseMatrix:  # noqa: N802  (NumPy's name)
        return self.transpose()

    def __matmul__(self, other: Any) -> Any:
        if isinstance(other, SparseMatrix):
            if self.m != other.n:
                raise TaichiError(
                    f"SparseMatrix @: shapes {self.shape} and {other.shape} do not match"
                )
            return self._new(self._m @ other._m)
        x = as_numpy_vector(other)
        if x.shape[0] != self.m:
            raise TaichiError(
                f"SparseMatrix @: a vector of {x.shape[0]} for a matrix of shape {self.shape}"
            )
        return like_input(self._m @ x, other, self.dtype)

    def __getitem__(self, index: tuple[int, int]) -> float:
        i, j = self._check_index(index)
        return self._m[i, j]

    def __setitem__(self, index: tuple[int, int], value: float) -> None:
        i, j = self._check_index(index)
        lil = self._m.tolil()
        lil[i, j] = value
        self._m = self._in_format(lil)

    def _check_index(self, index: Any) -> tuple[int, int]:
        if not (isinstance(index, tuple) and len(index) == 2):
            raise TaichiError("SparseMatrix indices are A[i, j]")
        i, j = (int(k) for k in index)
        if not (0 <= i < self.n and 0 <= j < self.m):
            raise TaichiError(f"SparseMatrix index ({i}, {j}) out of shape {self.shape}")
        return i, j

    def _check_same_shape(self, other: Any, op: str) -> None:
        if not isinstance(other, SparseMatrix):
            raise TaichiError(f"SparseMatrix {op}: expects a SparseMatrix, got {type(other).__name__}")
        if self.shape != other.shape:
            raise TaichiError(f"SparseMatrix {op}: shapes {self.shape} and {other.shape} differ")

    def to_numpy(self) -> np.ndarray:
        return self._m.toarray()

    def __str__(self) -> str:
        rows = ("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in self.to_numpy())
        return "\n".join(rows) + "\n"

    __repr__ = __str__

    def build_from_ndarray(self, ndarray: Any) -> None:
        """Fill from an (nnz, 3) array or Vector ndarray of (row, col, value) triplets;
        duplicates are summed."""
        t = np.asarray(ndarray.to_numpy() if hasattr(ndarray, "to_numpy") else ndarray)
        t = t.reshape(-1, 3)
        sp = _scipy_sparse()
        coo = sp.coo_matrix(
            (t[:, 2], (t[:, 0].astype(np.int64), t[:, 1].astype(np.int64))), shape=self.shape
        )
        self._m = self._in_format(coo.astype(_np_dtype(self.dtype)))

    def mmwrite(self, filename: str) -> None:
        """Write the matrix in Matrix Market format."""
        from scipy.io import mmwrite

        mmwrite(filename, self._m)


class SparseMatrixBuilder:
    """Collects triplets for a sparse matrix; a kernel parameter annotated
    `ti.types.sparse_matrix_builder()` takes one, and `builder[i, j] += v` in the
    kernel appends (i, j, v)."""

    def __init__(
        self,
        num_rows: int,
        num_cols: int,
        max_num_triplets: int = 0,
        dtype: Any = None,
        storage_format: str = "col_major",
    ):
        if num_rows <= 0 or num_cols <= 0:
            raise TaichiError(f"SparseMatrixBuilder: bad shape ({num_rows}, {num_cols})")
        if max_num_triplets <= 0:
            raise TaichiError("SparseMatrixBuilder needs max_num_triplets > 0")
        if storage_format not in _FORMATS:
            raise TaichiError(
                f"SparseMatrixBuilder: storage_format must be one of {_FORMATS}, "
                f"got {storage_format!r}"
            )
        self.num_rows = num_rows
        self.num_cols = num_cols
        self.max_num_triplets = max_num_triplets
        self.dtype = ti.f32 if dtype is None else dtype
        self.storage_format = storage_format
        self.rows = ti.field(ti.i32, shape=max_num_triplets)
        self.cols = ti.field(ti.i32, shape=max_num_triplets)
        self.values = ti.field(self.dtype, shape=max_num_triplets)
        self.count = ti.field(ti.i32, shape=())

    def _triplets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = int(self.count[None])
        if n > self.max_num_triplets:
            raise TaichiError(
                f"SparseMatrixBuilder: {n} triplets were added, more than "
                f"max_num_triplets={self.max_num_triplets}; the extra ones were dropped"
            )
        return (
            self.rows.to_numpy()[:n],
            self.cols.to_numpy()[:n],
            self.values.to_numpy()[:n],
        )

    def print_triplets(self) -> None:
        rows, cols, values = self._triplets()
        print(f"n={len(rows)}")
        for i, j, v in zip(rows, cols, values):
            print(f"({i}, {j}) val={v}")

    def build(self, dtype: Any = None, _format: str = "CSR") -> SparseMatrix:
        """The matrix of the triplets added so far (duplicates summed)."""
        rows, cols, values = self._triplets()
        dtype = self.dtype if dtype is None else dtype
        coo = _scipy_sparse().coo_matrix(
            (values, (rows, cols)), shape=(self.num_rows, self.num_cols)
        )
        return SparseMatrix(sm=coo, dtype=dtype, storage_format=self.storage_format)

    def clear(self) -> None:
        self.count[None] = 0

    @ti.func
    def ti_subscript_add(self, i, j, value):
        """`builder[i, j] += value` in a kernel: take a slot atomically, write the
        triplet. A slot past max_num_triplets is counted, not written; build() says so."""
        slot = ti.atomic_add(self.count[None], 1)
        if slot < ti.static(self.max_num_triplets):
            self.rows[slot] = ti.cast(i, ti.i32)
            self.cols[slot] = ti.cast(j, ti.i32)
            self.values[slot] = ti.cast(value, ti.static(self.dtype))

