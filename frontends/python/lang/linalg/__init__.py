"""
`ti.linalg` and the small-matrix decompositions of `ti.*`.

- decompositions.py: `ti.svd`, `ti.polar_decompose`, `ti.sym_eig`, `ti.eig`, `ti.solve`,
  ti.funcs inlined into the kernels that call them (every arch, f32 and f64);
- sparse_matrix.py: `SparseMatrix`, `SparseMatrixBuilder` (filled inside kernels);
- solvers.py: `SparseSolver` (LLT, LDLT, LU through SciPy's SuperLU), `SparseCG`;
- cholmod.py: f64 LLT on CHOLMOD's supernodal Cholesky, where cvxopt is installed;
- matrixfree.py: `LinearOperator`, `MatrixFreeCG`, `MatrixFreeBICGSTAB` in our kernels.
"""

from .matrixfree import LinearOperator, MatrixFreeBICGSTAB, MatrixFreeCG
from .solvers import SparseCG, SparseSolver
from .sparse_matrix import SparseMatrix, SparseMatrixBuilder

__all__ = [
    "LinearOperator",
    "MatrixFreeBICGSTAB",
    "MatrixFreeCG",
    "SparseCG",
    "SparseMatrix",
    "SparseMatrixBuilder",
    "SparseSolver",
]
