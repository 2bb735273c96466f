"""
`ti.linalg.SparseSolver` (direct: LLT, LDLT, LU) and `ti.linalg.SparseCG`.

f64 LLT with the AMD or NATURAL ordering is a supernodal Cholesky, CHOLMOD's
(cholmod.py), where the optional cvxopt package is installed; a matrix that CHOLMOD finds
not positive definite goes on to SuperLU. Every other case, and LLT without cvxopt, is
SciPy's SuperLU, the field's standard sparse LU, in the solver's dtype (f32 computes in
f32, as Eigen<float> does in Taichi; CHOLMOD has no f32): `LU` pivots for stability;
`LLT` and `LDLT` factor with diagonal pivots only (A = L D Lᵀ in the symmetric
ordering), so a factorisation whose pivots are not all positive (LLT) or not all nonzero
(LDLT) is reported by `info()` as a failure, as Eigen's Cholesky reports it in Taichi.
LLT and LDLT read the lower triangle of A alone, as Eigen does: a non-symmetric A is
taken as tril(A) + tril(A, -1)ᵀ.
Direct solves run on the host: on Vulkan, b is read back and x written to the device.
SparseCG runs in our kernels on the program's arch, the matrix on the device in CSR form.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

from . import cholmod
from .sparse_matrix import SparseMatrix, as_numpy_vector, like_input

# Taichi's ordering names -> SuperLU's column permutations.
_ORDERINGS = {"AMD": "MMD_AT_PLUS_A", "COLAMD": "COLAMD", "NATURAL": "NATURAL"}
_SOLVERS = ("LLT", "LDLT", "LU")


def _symmetric_from_lower(csc: Any) -> Any:
    """tril(A) + tril(A, -1)ᵀ: the symmetric matrix that Eigen's LLT / LDLT factor."""
    import scipy.sparse as sp

    lower = sp.tril(csc, format="csc")
    return (lower + sp.tril(lower, -1, format="csc").T).tocsc()


class SparseSolver:
    """A direct sparse solver: analyze_pattern(A), factorize(A), solve(b), info()."""

    def __init__(self, dtype: Any = None, solver_type: str = "LLT", ordering: str = "AMD"):
        if solver_type not in _SOLVERS:
            raise TaichiError(
                f"SparseSolver: solver_type must be one of {_SOLVERS}, got {solver_type!r}"
            )
        if ordering not in _ORDERINGS:
            raise TaichiError(
                f"SparseSolver: ordering must be one of {tuple(_ORDERINGS)}, got {ordering!r}"
            )
        self.dtype = ti.f32 if dtype is None else dtype
        # The factorisation's precision, as in Taichi (Eigen<float> for f32): a singular
        # positive semidefinite A (a pure-Neumann Laplacian) then ends on a pivot of f32
        # rounding, not of f64 rounding, whose inverse would swamp an f32 x.
        self._np_dtype = np.dtype(np.float64 if self.dtype == ti.f64 else np.float32)
        self.solver_type = solver_type
        self.ordering = ordering
        self._shape: tuple[int, int] | None = None
        # LLT on CHOLMOD (a CholmodLLT), or None: SuperLU (self._lu).
        self._cholesky: cholmod.CholmodLLT | None = None
        if (solver_type == "LLT" and ordering != "COLAMD" and self.dtype == ti.f64
                and cholmod.available()):
            self._cholesky = cholmod.CholmodLLT(natural_order=ordering == "NATURAL")
        self._on_cholesky = False  # whether the last factorisation is CHOLMOD's
        self._lu: Any = None
        self._ok: bool | None = False

    def _check(self, A: Any) -> SparseMatrix:
        if not isinstance(A, SparseMatrix):
            raise TaichiError(
                f"SparseSolver expects a ti.linalg.SparseMatrix, got {type(A).__name__}"
            )
        if A.n != A.m:
            raise TaichiError(f"SparseSolver needs a square matrix, got shape {A.shape}")
        return A

    def analyze_pattern(self, A: SparseMatrix) -> None:
        self._shape = self._check(A).shape
        if self._cholesky is not None:
            self._cholesky.analyze(cholmod.LowerTriangle(A.to_scipy()))

    def compute(self, A: SparseMatrix) -> None:
        self.analyze_pattern(A)
        self.factorize(A)

    def factorize(self, A: SparseMatrix) -> None:
        self._check(A)
        if self._shape is None:
            self.analyze_pattern(A)
        self._shape = A.shape
        self._on_cholesky, self._lu = False, None
        symmetric = self.solver_type != "LU"
        csc = A.to_scipy().tocsc()
        if symmetric and np.isnan(csc.data).any():
            self._ok = False  # no factorisation of a matrix with a NaN: info() False
            return
        if self._cholesky is not None:
            # A matrix of another pattern than the analysed one is analysed again.
            self._ok = self._on_cholesky = self._cholesky.factorize(
                cholmod.LowerTriangle(csc)
            )
            if self._ok:
                return
            # Not positive definite by CHOLMOD's pivots: SuperLU's L D Lᵀ instead, as
            # without CHOLMOD. A positive semidefinite A (a pure-Neumann Laplacian, as in
            # Taichi's stable_fluid example) ends on a pivot of +-rounding: Eigen goes on
            # where it is > 0, CHOLMOD may stop where it is < 0; SuperLU solves anyway.
        from scipy.sparse.linalg import splu

        options = {"SymmetricMode": True} if symmetric else {}
        if symmetric:
            csc = _symmetric_from_lower(csc)
        try:
            self._lu = splu(  # SuperLU copies the matrix into its own arrays anyway
                csc.astype(self._np_dtype, copy=False),
                permc_spec=_ORDERINGS[self.ordering],
                diag_pivot_thresh=0.0 if symmetric else 1.0,
                options=options,
            )
        except RuntimeError:  # an exactly singular matrix
            self._lu, self._ok = None, False
            return
        self._ok = None  # info() reads the pivots when asked

    def info(self) -> bool:
        """Whether the last factorisation succeeded. SuperLU's pivots are read here, not
        in factorize: SuperLU builds its U factor as a new matrix on each access (0.8 s
        of a 13 s factorisation of 512^2 unknowns)."""
        if self._ok is None:
            pivots = self._lu.U.diagonal()
            symmetric = self.solver_type != "LU"
            if symmetric and not np.array_equal(self._lu.perm_r, self._lu.perm_c):
                # SuperLU left the diagonal (it does so for an inf off it): the L D Lᵀ
                # asked for does not exist in this ordering.
                self._ok = False
            elif self.solver_type == "LLT":
                self._ok = bool(np.all(pivots > 0))
            else:
                self._ok = bool(np.all(pivots != 0) and np.all(np.isfinite(pivots)))
        return self._ok

    def solve(self, b: Any) -> Any:
        if self._on_cholesky:
            x = self._cholesky.solve(as_numpy_vector(b))
        else:
            if self._lu is None:
                raise TaichiError("SparseSolver.solve before a successful factorize()")
            rhs = as_numpy_vector(b).astype(self._np_dtype, copy=False)  # solve() copies it
            x = self._lu.solve(rhs)
        x = x.astype(self._np_dtype, copy=False)
        return like_input(x, b, self.dtype)


@ti.kernel
def _spmv(indptr: ti.types.ndarray(), indices: ti.types.ndarray(),
          data: ti.types.ndarray(), x: ti.types.ndarray(), y: ti.types.ndarray()):
    """y = A x for A in CSR form."""
    for i in range(y.shape[0]):
        s = ti.cast(0, y.dtype)
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        y[i] = s


@ti.kernel
def _dot(a: ti.types.ndarray(), b: ti.types.ndarray()) -> ti.f64:
    s = ti.cast(0, ti.f64)
    for i in range(a.shape[0]):
        s += ti.cast(a[i], ti.f64) * ti.cast(b[i], ti.f64)
    return s


@ti.kernel
def _axpy(y: ti.types.ndarray(), a: ti.f64, x: ti.types.ndarray()):
    """y += a x"""
    for i in range(y.shape[0]):
        y[i] += ti.cast(a, y.dtype) * x[i]


@ti.kernel
def _xpay(y: ti.types.ndarray(), x: ti.types.ndarray(), a: ti.f64):
    """y = x + a y"""
    for i in range(y.shape[0]):
        y[i] = x[i] + ti.cast(a, y.dtype) * y[i]


@ti.kernel
def _sub(out: ti.types.ndarray(), a: ti.types.ndarray(), b: ti.types.ndarray()):
    """out = a - b"""
    for i in range(out.shape[0]):
        out[i] = a[i] - b[i]


class SparseCG:
    """Conjugate gradients on a symmetric positive definite SparseMatrix, in our kernels
    on the program's arch: the matrix goes to the device once, in CSR form, and only
    the scalars of each step come back.

    solve() returns (x, converged): x an ndarray when b is one, NumPy otherwise.
    """

    def __init__(self, A: SparseMatrix, b: Any, x0: Any = None, max_iter: int = 50,
                 atol: float = 1e-6):
        if not isinstance(A, SparseMatrix):
            raise TaichiError(f"SparseCG expects a ti.linalg.SparseMatrix, got {type(A).__name__}")
        if A.n != A.m:
            raise TaichiError(f"SparseCG needs a square matrix, got shape {A.shape}")
        self.A, self.b, self.x0 = A, b, x0
        self.max_iter, self.atol = max_iter, atol

    def _device(self, values: np.ndarray, dtype: Any) -> Any:
        arr = ti.ndarray(dtype, shape=values.shape[0])
        arr.from_numpy(values.astype(dtype.np_dtype))
        return arr

    def solve(self) -> tuple[Any, bool]:
        dtype = self.A.dtype
        csr = self.A.to_scipy().tocsr()
        n = csr.shape[0]
        indptr = self._device(csr.indptr, ti.i32)
        indices = self._device(csr.indices, ti.i32)
        data = self._device(csr.data, dtype)
        b = self._device(as_numpy_vector(self.b), dtype)
        x = self._device(
            np.zeros(n) if self.x0 is None else as_numpy_vector(self.x0), dtype
        )
        r, p, Ap = (ti.ndarray(dtype, shape=n) for _ in range(3))
        _spmv(indptr, indices, data, x, Ap)
        _sub(r, b, Ap)  # r = b - A x
        p.copy_from(r)
        rr = _dot(r, r)
        converged = np.sqrt(rr) < self.atol
        for _ in range(self.max_iter):
            if converged:
                break
            _spmv(indptr, indices, data, p, Ap)
            pAp = _dot(p, Ap)
            if not pAp > 0:
                break
            alpha = rr / pAp
            _axpy(x, alpha, p)
            _axpy(r, -alpha, Ap)
            rr_new = _dot(r, r)
            converged = np.sqrt(rr_new) < self.atol
            _xpay(p, r, rr_new / rr)
            rr = rr_new
        if isinstance(self.b, ti.Ndarray):
            return x, bool(converged)
        return x.to_numpy(), bool(converged)
