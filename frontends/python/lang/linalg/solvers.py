"""
`ti.linalg.SparseSolver` (direct: LLT, LDLT, LU) and `ti.linalg.SparseCG`.

The factorisations are SciPy's SuperLU, the field's standard sparse LU: `LU` pivots for
stability; `LLT` and `LDLT` factor with diagonal pivots only (A = L D Lᵀ in the symmetric
ordering), so a factorisation whose pivots are not all positive (LLT) or not all nonzero
(LDLT) is reported by `info()` as a failure, as Eigen's Cholesky reports it in Taichi.
The vectors live on the host; on Vulkan, fields and ndarrays are read back first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

from .sparse_matrix import SparseMatrix, as_numpy_vector, like_input

# Taichi's ordering names -> SuperLU's column permutations.
_ORDERINGS = {"AMD": "MMD_AT_PLUS_A", "COLAMD": "COLAMD", "NATURAL": "NATURAL"}
_SOLVERS = ("LLT", "LDLT", "LU")


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
        self.solver_type = solver_type
        self.ordering = ordering
        self._shape: tuple[int, int] | None = None
        self._lu: Any = None
        self._ok = False

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

    def compute(self, A: SparseMatrix) -> None:
        self.analyze_pattern(A)
        self.factorize(A)

    def factorize(self, A: SparseMatrix) -> None:
        from scipy.sparse.linalg import splu

        self._check(A)
        if self._shape is None:
            self.analyze_pattern(A)
        symmetric = self.solver_type != "LU"
        options = {"SymmetricMode": True} if symmetric else {}
        try:
            self._lu = splu(
                A.to_scipy().tocsc().astype(np.float64),
                permc_spec=_ORDERINGS[self.ordering],
                diag_pivot_thresh=0.0 if symmetric else 1.0,
                options=options,
            )
        except RuntimeError:  # an exactly singular matrix
            self._lu, self._ok = None, False
            return
        pivots = self._lu.U.diagonal()
        if self.solver_type == "LLT":
            self._ok = bool(np.all(pivots > 0))
        else:
            self._ok = bool(np.all(pivots != 0) and np.all(np.isfinite(pivots)))

    def info(self) -> bool:
        """Whether the last factorisation succeeded."""
        return self._ok

    def solve(self, b: Any) -> Any:
        if self._lu is None:
            raise TaichiError("SparseSolver.solve before a successful factorize()")
        rhs = as_numpy_vector(b).astype(np.float64)
        x = self._lu.solve(rhs).astype(np.float64 if self.dtype == ti.f64 else np.float32)
        return like_input(x, b, self.dtype)


class SparseCG:
    """Conjugate gradients on a symmetric positive definite SparseMatrix.

    solve() returns (x, converged): x an ndarray when b is one, NumPy otherwise.
    """

    def __init__(self, A: SparseMatrix, b: Any, x0: Any = None, max_iter: int = 50,
                 atol: float = 1e-6):
        if not isinstance(A, SparseMatrix):
            raise TaichiError(f"SparseCG expects a ti.linalg.SparseMatrix, got {type(A).__name__}")
        self.A, self.b, self.x0 = A, b, x0
        self.max_iter, self.atol = max_iter, atol

    def solve(self) -> tuple[Any, bool]:
        A = self.A.to_scipy()
        b = as_numpy_vector(self.b).astype(np.float64)
        x = (np.zeros_like(b) if self.x0 is None
             else as_numpy_vector(self.x0).astype(np.float64).copy())
        r = b - A @ x
        p = r.copy()
        rr = float(r @ r)
        converged = np.sqrt(rr) < self.atol
        for _ in range(self.max_iter):
            if converged:
                break
            Ap = A @ p
            pAp = float(p @ Ap)
            if pAp <= 0:
                break
            alpha = rr / pAp
            x += alpha * p
            r -= alpha * Ap
            rr_new = float(r @ r)
            converged = np.sqrt(rr_new) < self.atol
            p = r + (rr_new / rr) * p
            rr = rr_new
        out = x.astype(np.float64 if self.A.dtype == ti.f64 else np.float32)
        return like_input(out, self.b, self.A.dtype), bool(converged)
