"""
End-to-end: ti.linalg — SparseMatrixBuilder filled in kernels, SparseMatrix arithmetic,
the direct solvers (SciPy's SuperLU behind LLT / LDLT / LU), SparseCG, and the
matrix-free Krylov solvers that run in our kernels. Checked against NumPy.
"""

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def _poisson_1d(n):
    return 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
@pytest.mark.parametrize("storage_format", ["row_major", "col_major"])
def test_builder_in_kernel_sums_duplicates(dtype, storage_format):
    n = 6
    builder = ti.linalg.SparseMatrixBuilder(
        n, n + 1, max_num_triplets=200, dtype=dtype, storage_format=storage_format
    )

    @ti.kernel
    def fill(b: ti.types.sparse_matrix_builder(), s: ti.f32):
        for i, j in ti.ndrange(n, n + 1):
            b[i, j] += i * 10 + j
        for i in range(n):
            b[i, i] += s  # a second entry at (i, i): summed
            b[i, n] -= 1.0

    fill(builder, 0.5)
    A = builder.build()
    want = np.add.outer(np.arange(n) * 10, np.arange(n + 1)).astype(float)
    want[np.arange(n), np.arange(n)] += 0.5
    want[:, n] -= 1
    assert A.shape == (n, n + 1) and (A.n, A.m) == (n, n + 1)
    np.testing.assert_allclose(A.to_numpy(), want)
    assert A[2, 3] == want[2, 3]


def test_builder_overflow_keeps_or_reports():
    builder = ti.linalg.SparseMatrixBuilder(4, 4, max_num_triplets=3)

    @ti.kernel
    def fill(b: ti.types.sparse_matrix_builder(), times: ti.i32):
        for k in range(times):
            b[k % 4, k % 4] += 1.0

    # A few more than max_num_triplets (Taichi writes them past its buffer): all kept.
    fill(builder, 4)
    with pytest.warns(UserWarning, match="max_num_triplets=3; all were kept"):
        A = builder.build()
    np.testing.assert_array_equal(A.to_numpy(), np.eye(4))
    # Far more than that: an error, never a matrix with triplets missing.
    builder.clear()
    fill(builder, builder.capacity + 1)
    with pytest.raises(ti.TaichiError, match="the matrix would be wrong"):
        builder.build()


def test_sparse_matrix_arithmetic():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 5)) * (rng.random((5, 5)) < 0.4)
    b = rng.standard_normal((5, 5)) * (rng.random((5, 5)) < 0.4)
    A = ti.linalg.SparseMatrix(5, 5, dtype=ti.f64)
    B = ti.linalg.SparseMatrix(5, 5, dtype=ti.f64)
    rows, cols = np.nonzero(a)
    A.build_from_ndarray(np.stack([rows, cols, a[rows, cols]], axis=1))
    rows, cols = np.nonzero(b)
    B.build_from_ndarray(np.stack([rows, cols, b[rows, cols]], axis=1))
    np.testing.assert_allclose((A + B).to_numpy(), a + b)
    np.testing.assert_allclose((A - B).to_numpy(), a - b)
    np.testing.assert_allclose((A * B).to_numpy(), a * b)  # element-wise, as in Taichi
    np.testing.assert_allclose((3 * A).to_numpy(), 3 * a)
    np.testing.assert_allclose((A @ B).to_numpy(), a @ b)
    np.testing.assert_allclose(A.transpose().to_numpy(), a.T)
    x = ti.ndarray(ti.f64, 5)
    x.from_numpy(np.arange(5.0))
    y = A @ x
    assert isinstance(y, ti.Ndarray)
    np.testing.assert_allclose(y.to_numpy(), a @ np.arange(5.0))
    A[1, 1] = 42.0
    assert A[1, 1] == 42.0
    with pytest.raises(ti.TaichiError, match="shapes"):
        A @ ti.linalg.SparseMatrix(4, 4)


@pytest.mark.parametrize("solver_type", ["LLT", "LDLT", "LU"])
@pytest.mark.parametrize("ordering", ["AMD", "COLAMD"])
def test_sparse_solver(solver_type, ordering):
    n = 40
    builder = ti.linalg.SparseMatrixBuilder(n, n, max_num_triplets=4 * n, dtype=ti.f64)

    @ti.kernel
    def fill(b: ti.types.sparse_matrix_builder()):
        for i in range(n):
            b[i, i] += 2.0
            if i > 0:
                b[i, i - 1] -= 1.0
            if i < n - 1:
                b[i, i + 1] -= 1.0

    fill(builder)
    A = builder.build()
    rhs = ti.field(ti.f64, shape=n)
    rhs.from_numpy(np.linspace(1, 2, n))
    solver = ti.linalg.SparseSolver(dtype=ti.f64, solver_type=solver_type, ordering=ordering)
    solver.analyze_pattern(A)
    solver.factorize(A)
    assert solver.info()
    x = solver.solve(rhs)
    np.testing.assert_allclose(_poisson_1d(n) @ x, np.linspace(1, 2, n), atol=1e-10)


def test_llt_rejects_an_indefinite_matrix():
    A = ti.linalg.SparseMatrix(2, 2, dtype=ti.f64)
    A.build_from_ndarray(np.array([[0, 0, 1.0], [1, 1, -1.0]]))
    llt = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
    llt.compute(A)
    assert not llt.info()
    ldlt = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LDLT")
    ldlt.compute(A)
    assert ldlt.info()
    np.testing.assert_allclose(ldlt.solve(np.array([1.0, 1.0])), [1.0, -1.0])


def test_sparse_cg():
    n = 20
    A = ti.linalg.SparseMatrix(n, n, dtype=ti.f64)
    rows, cols = np.nonzero(_poisson_1d(n))
    A.build_from_ndarray(np.stack([rows, cols, _poisson_1d(n)[rows, cols]], axis=1))
    b = ti.ndarray(ti.f64, n)
    b.from_numpy(np.ones(n))
    x, ok = ti.linalg.SparseCG(A, b, max_iter=100, atol=1e-10).solve()
    assert ok
    np.testing.assert_allclose(x.to_numpy(), np.linalg.solve(_poisson_1d(n), np.ones(n)), atol=1e-8)


@pytest.mark.parametrize("solver", ["MatrixFreeCG", "MatrixFreeBICGSTAB"])
@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_matrix_free(solver, dtype):
    grid = 16
    x, b, Ax = (ti.field(dtype, shape=(grid, grid)) for _ in range(3))

    @ti.kernel
    def matvec(v: ti.template(), out: ti.template()):
        for i, j in v:
            left = v[i - 1, j] if i > 0 else 0.0
            right = v[i + 1, j] if i < grid - 1 else 0.0
            down = v[i, j - 1] if j > 0 else 0.0
            up = v[i, j + 1] if j < grid - 1 else 0.0
            # Non-symmetric for BiCGSTAB: the left neighbour weighs more.
            skew = 0.5 if ti.static(solver == "MatrixFreeBICGSTAB") else 0.0
            out[i, j] = 6 * v[i, j] - (1 + skew) * left - right - down - up

    rng = np.random.default_rng(1)
    b.from_numpy(rng.standard_normal((grid, grid)).astype(np.float32))
    A = ti.linalg.LinearOperator(matvec)
    converged = getattr(ti.linalg, solver)(A, b, x, tol=1e-5, maxiter=500)
    assert converged
    matvec(x, Ax)
    np.testing.assert_allclose(Ax.to_numpy(), b.to_numpy(), atol=1e-4)


@pytest.mark.parametrize("solver", ["MatrixFreeCG", "MatrixFreeBICGSTAB"])
def test_matrix_free_reuses_its_work_vectors_without_stale_values(solver):
    """The solver's work vectors are the same fields at every call (its kernels compile
    once), yet each call starts as on fresh fields: an operator that leaves the boundary
    of its output unwritten must not see what another operator wrote there before."""
    grid = 12
    x, b, Ax = (ti.field(ti.f32, shape=(grid, grid)) for _ in range(3))

    @ti.kernel
    def everywhere(v: ti.template(), out: ti.template()):
        for i, j in v:
            out[i, j] = 1000.0 + v[i, j]  # writes the boundary too

    @ti.kernel
    def interior(v: ti.template(), out: ti.template()):
        # The identity inside; the boundary of `out` is left as it is (zero when fresh).
        for i, j in ti.ndrange((1, grid - 1), (1, grid - 1)):
            out[i, j] = 4.0 * v[i, j]

    rng = np.random.default_rng(3)
    want = np.zeros((grid, grid), np.float32)
    want[1:-1, 1:-1] = rng.standard_normal((grid - 2, grid - 2))
    b.from_numpy(4.0 * want)
    run = getattr(ti.linalg, solver)
    run(ti.linalg.LinearOperator(everywhere), b, x, tol=1e-5, maxiter=3)
    x.fill(0)
    assert run(ti.linalg.LinearOperator(interior), b, x, tol=1e-5, maxiter=50)
    np.testing.assert_allclose(x.to_numpy(), want, atol=1e-5)
    from taichi_xdsl.frontends.python.lang.linalg import matrixfree

    compiled = len(matrixfree._dot._instances)
    x.fill(0)
    assert run(ti.linalg.LinearOperator(interior), b, x, tol=1e-5, maxiter=50)
    assert len(matrixfree._dot._instances) == compiled  # nothing compiled again
    np.testing.assert_allclose(x.to_numpy(), want, atol=1e-5)
