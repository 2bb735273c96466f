"""
A sparse Cholesky A = L Lᵀ for `SparseSolver("LLT")`: CHOLMOD, SuiteSparse's supernodal
Cholesky, as the optional `cvxopt` package ships it (with OpenBLAS):
`pip install 'taichi-xdsl[cholmod]'`. Without cvxopt, LLT runs on SciPy's SuperLU
(solvers.py), with the same results and 2.5x the time on the 512² Poisson matrix.

Like Eigen's SimplicialLLT behind Taichi, it reads the lower triangle of A alone (a
non-symmetric A is taken as tril(A) + tril(A, -1)ᵀ), orders the columns by AMD (or keeps
them in their natural order), splits the work in analyze (ordering, elimination tree,
supernodes) and factorize (the numbers: a new matrix of the same pattern reuses the
analysis), and reports a pivot <= 0 or NaN as a failure rather than returning NaNs (an
inf on the diagonal is a positive pivot, as in Taichi: x is 0 there).
CHOLMOD computes in f64; the caller casts x to the solver's dtype.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np


@functools.cache
def available() -> bool:
    """Whether cvxopt's CHOLMOD can be imported here (asked once a process: every
    SparseSolver asks, and a failed import searches the path each time)."""
    try:
        from cvxopt import cholmod  # noqa: F401
    except ImportError:
        return False
    return True


class LowerTriangle:
    """The lower triangle (diagonal included) of a square sparse matrix, as COO arrays
    (f64 values, int64 rows and columns) sorted by column then row: cvxopt's order."""

    def __init__(self, csc: Any):
        csc = csc.tocsc()
        if not csc.has_canonical_format:  # sorted rows, no duplicates: cvxopt's order
            csc = csc.copy()
            csc.sum_duplicates()
        cols = np.repeat(np.arange(csc.shape[1], dtype=np.int64), np.diff(csc.indptr))
        keep = csc.indices >= cols
        self.n = csc.shape[0]
        self.rows = csc.indices[keep].astype(np.int64)
        self.cols = cols[keep]
        self.values = csc.data[keep].astype(np.float64)

    def same_pattern(self, other: LowerTriangle) -> bool:
        return (
            self.n == other.n
            and np.array_equal(self.rows, other.rows)
            and np.array_equal(self.cols, other.cols)
        )

    def to_cvxopt(self) -> Any:
        """cvxopt's sparse matrix (its values in the order of `values`: column-major,
        rows sorted). Building it sorts the entries: ~70 ms for 785k of them."""
        from cvxopt import matrix, spmatrix

        return spmatrix(
            matrix(self.values), matrix(self.rows), matrix(self.cols), size=(self.n, self.n)
        )


@contextmanager
def _options(natural_order: bool) -> Iterator[Any]:
    """cvxopt's CHOLMOD module with our options (they are one dict for the process,
    read by symbolic and numeric alike), restored afterwards."""
    from cvxopt import cholmod

    saved = dict(cholmod.options)
    cholmod.options["supernodal"] = 2  # always supernodal: L Lᵀ, never L D Lᵀ
    if natural_order:
        # The order given, alone: CHOLMOD would otherwise also try AMD and take the
        # better, then postorder the elimination tree.
        cholmod.options["nmethods"] = 1
        cholmod.options["postorder"] = False
    try:
        yield cholmod
    finally:
        cholmod.options.clear()
        cholmod.options.update(saved)


class CholmodLLT:
    """analyze(A) once, factorize(A) for each matrix of that pattern, solve(b)."""

    def __init__(self, natural_order: bool):
        self.natural_order = natural_order
        self._pattern: LowerTriangle | None = None
        self._matrix: Any = None  # cvxopt's matrix of the pattern, given new values
        self._factor: Any = None
        self._factored = False

    def analyze(self, lower: LowerTriangle) -> None:
        from cvxopt import matrix

        self._matrix = lower.to_cvxopt()
        with _options(self.natural_order) as cholmod:
            if self.natural_order:
                order = matrix(np.arange(lower.n, dtype=np.int64))
                self._factor = cholmod.symbolic(self._matrix, p=order, uplo="L")
            else:  # CHOLMOD's default ordering: AMD (this build has no METIS)
                self._factor = cholmod.symbolic(self._matrix, uplo="L")
        self._pattern = lower
        self._factored = False

    def factorize(self, lower: LowerTriangle) -> bool:
        """Factor A; False (and no factor) when A is not positive definite."""
        from cvxopt import matrix

        if self._pattern is None or not lower.same_pattern(self._pattern):
            self.analyze(lower)
        else:  # the analysed pattern: only the values are new
            self._matrix.V = matrix(lower.values)
        self._factored = False
        if np.isnan(lower.values).any():
            return False  # CHOLMOD would carry the NaN into L rather than stop on it
        with _options(self.natural_order) as cholmod:
            try:
                cholmod.numeric(self._matrix, self._factor)
            except ArithmeticError:  # a pivot <= 0: not positive definite
                return False
        self._factored = True
        return True

    def solve(self, b: np.ndarray) -> np.ndarray:
        from cvxopt import cholmod, matrix

        assert self._factored, "CholmodLLT.solve before a successful factorize()"
        x = matrix(np.ascontiguousarray(b, dtype=np.float64))
        cholmod.solve(self._factor, x)  # in place
        return np.array(x).reshape(-1)
