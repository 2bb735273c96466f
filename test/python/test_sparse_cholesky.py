"""
SparseSolver's Cholesky (LLT) and LDLT against SciPy, on both LLT paths: CHOLMOD
(through cvxopt, where installed) and SciPy's SuperLU (the fallback). Matrices of several
sizes and shapes of sparsity; not positive definite -> info() False; one analysis, many
factorisations; the lower triangle alone is read, as Eigen does in Taichi 1.7.4.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import taichi_xdsl as ti
from taichi_xdsl.frontends.python.lang.linalg import cholmod

pytestmark = pytest.mark.usefixtures("program")


@pytest.fixture(params=["cholmod", "superlu"])
def backend(request, monkeypatch):
    """Which LLT path the solvers made in the test take."""
    if request.param == "cholmod" and not cholmod.available():
        pytest.skip("cvxopt (CHOLMOD) is not installed: pip install 'taichi-xdsl[cholmod]'")
    if request.param == "superlu":
        monkeypatch.setattr(cholmod, "available", lambda: False)
    return request.param


def _laplacian(*shape):
    """The Dirichlet Laplacian of a grid of `shape` (2-D or 3-D), as SciPy CSC."""
    eye = [sp.identity(m) for m in shape]
    total = None
    for axis, m in enumerate(shape):
        lap = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
        term = None
        for k in range(len(shape)):
            factor = lap if k == axis else eye[k]
            term = factor if term is None else sp.kron(term, factor)
        total = term if total is None else total + term
    return total.tocsc()


def _random_spd(n, density, seed):
    rng = np.random.default_rng(seed)
    b = sp.random(n, n, density=density, random_state=rng, format="csc")
    return (b @ b.T + n * density * sp.identity(n) + sp.identity(n)).tocsc()


MATRICES = {
    "1x1": lambda: sp.csc_matrix(np.array([[3.0]])),
    "diagonal": lambda: sp.diags(np.linspace(0.5, 7.0, 17)).tocsc(),
    "dense-ish": lambda: _random_spd(30, 0.6, 1),
    "random-sparse": lambda: _random_spd(300, 0.01, 2),
    "disconnected": lambda: sp.block_diag(
        [_random_spd(20, 0.2, 3), sp.identity(5), _laplacian(4, 5)]
    ).tocsc(),
    "laplacian-2d": lambda: _laplacian(23, 19),
    "laplacian-3d": lambda: _laplacian(7, 6, 8),
}


def _sparse_matrix(a, dtype):
    coo = sp.coo_matrix(a)
    m = ti.linalg.SparseMatrix(a.shape[0], a.shape[1], dtype=dtype)
    m.build_from_ndarray(np.stack([coo.row, coo.col, coo.data], axis=1))
    return m


def _solver(backend, dtype, solver_type="LLT", ordering="AMD"):
    solver = ti.linalg.SparseSolver(dtype=dtype, solver_type=solver_type, ordering=ordering)
    on_cholmod = (solver_type == "LLT" and ordering != "COLAMD" and dtype == ti.f64
                  and backend == "cholmod")
    assert (solver._cholesky is not None) == on_cholmod  # the path under test is taken
    return solver


@pytest.mark.parametrize("name", list(MATRICES))
@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
@pytest.mark.parametrize("ordering", ["AMD", "NATURAL"])
def test_llt_solves_like_scipy(backend, name, dtype, ordering):
    a = MATRICES[name]()
    n = a.shape[0]
    rng = np.random.default_rng(n)
    rhs = rng.standard_normal(n)
    if dtype == ti.f32:  # the matrix and b as f32 (as stored), x from those numbers
        a = a.astype(np.float32).astype(np.float64)
        rhs = rhs.astype(np.float32).astype(np.float64)
    want = spla.spsolve(a.tocsc(), rhs) if n > 1 else rhs / a.toarray()[0, 0]
    solver = _solver(backend, dtype, ordering=ordering)
    A = _sparse_matrix(a, dtype)
    solver.analyze_pattern(A)
    solver.factorize(A)
    assert solver.info()
    # b as NumPy and as an ndarray (on the program's arch); x comes back in the same kind.
    b = ti.ndarray(dtype, shape=n)
    b.from_numpy(rhs.astype(np.float32 if dtype == ti.f32 else np.float64))
    x_nd = solver.solve(b)
    assert isinstance(x_nd, ti.Ndarray) and x_nd.dtype == dtype
    x_np = solver.solve(rhs)
    assert x_np.dtype == (np.float32 if dtype == ti.f32 else np.float64)
    rtol = 1e-4 if dtype == ti.f32 else 1e-10  # f32 computes in f32, as Taichi does
    scale = np.abs(want).max()
    np.testing.assert_allclose(x_nd.to_numpy(), want, rtol=rtol, atol=rtol * scale)
    np.testing.assert_allclose(x_np, want, rtol=rtol, atol=rtol * scale)
    residual = np.linalg.norm(a @ x_np.astype(np.float64) - rhs) / np.linalg.norm(rhs)
    assert residual <= (1e-5 if dtype == ti.f32 else 1e-12)


@pytest.mark.parametrize("ordering", ["NATURAL", "AMD"])
def test_natural_ordering_keeps_the_natural_order(backend, ordering):
    """NATURAL factors A as given (CHOLMOD, left alone, would also try AMD, take the
    better and postorder it); AMD reorders this random pattern."""
    a = _random_spd(60, 0.1, 4)
    solver = _solver(backend, ti.f64, ordering=ordering)
    solver.compute(_sparse_matrix(a, ti.f64))
    assert solver.info()
    if backend == "cholmod":
        from cvxopt import cholmod as cm
        from cvxopt import matrix

        order = matrix(np.arange(60.0))
        cm.solve(solver._cholesky._factor, order, sys=7)  # P @ [0, 1, ..., 59]
        order = np.array(order).reshape(-1)
    else:
        order = solver._lu.perm_c
    assert np.array_equal(order, np.arange(60)) == (ordering == "NATURAL")
    rhs = np.ones(60)
    np.testing.assert_allclose(solver.solve(rhs), spla.spsolve(a, rhs), rtol=1e-10)


@pytest.mark.parametrize(
    "a",
    [
        [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]],  # indefinite
        [[-1.0, 0.0], [0.0, 1.0]],  # a negative diagonal
        [[1.0, 1.0], [1.0, 1.0]],  # singular: a zero pivot after one step
        [[0.0, 1.0], [1.0, 5.0]],  # a zero first pivot
        [[np.nan, 0.0], [0.0, 1.0]],  # NaN
        [[2.0, np.nan], [np.nan, 3.0]],  # NaN off the diagonal
        [[2.0, np.inf], [np.inf, 3.0]],  # inf off the diagonal: a pivot of -inf
    ],
    ids=["indefinite", "negative", "singular", "zero-pivot", "nan", "nan-off", "inf-off"],
)
@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_llt_info_false_when_not_positive_definite(backend, a, dtype):
    solver = _solver(backend, dtype)
    solver.compute(_sparse_matrix(np.array(a), dtype))
    assert solver.info() is False


def test_llt_inf_on_the_diagonal_is_a_positive_pivot(backend):
    """As in Taichi 1.7.4: info() True, and x is 0 where the diagonal is inf."""
    solver = _solver(backend, ti.f64)
    solver.compute(_sparse_matrix(np.array([[2.0, 0.0], [0.0, np.inf]]), ti.f64))
    assert solver.info()
    np.testing.assert_allclose(solver.solve(np.array([1.0, 2.0])), [0.5, 0.0], rtol=1e-15)


@pytest.mark.parametrize("solver_type", ["LLT", "LDLT"])
def test_a_matrix_with_nan_is_not_factored(backend, solver_type):
    solver = _solver(backend, ti.f64, solver_type)
    solver.compute(_sparse_matrix(np.array([[2.0, np.nan], [np.nan, 3.0]]), ti.f64))
    assert solver.info() is False
    with pytest.raises(ti.TaichiError, match="before a successful factorize"):
        solver.solve(np.ones(2))


def test_llt_not_positive_definite_still_solves_by_its_ldlt(backend):
    """info() False, and solve() gives the L D Lᵀ solution, as before CHOLMOD: a matrix
    CHOLMOD refuses goes on to SuperLU."""
    a = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    solver = _solver(backend, ti.f64)
    solver.compute(_sparse_matrix(a, ti.f64))
    assert not solver.info()
    rhs = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(solver.solve(rhs), np.linalg.solve(a, rhs), rtol=1e-12)


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
@pytest.mark.parametrize("res", [8, 40])
def test_llt_of_a_pure_neumann_laplacian(backend, dtype, res):
    """Taichi's stable_fluid example (-S): LLT of a singular positive semidefinite matrix
    (constants are its null space) and an f32 right-hand side of zero mean. An f32 solver
    computing in f64 ended on a pivot of f64 rounding (~1e-13) whose inverse put ~1e7
    times the constant vector into x, which f32 could then not hold: a residual of 2.4
    (Taichi, computing in f32 as we do now: 4e-6)."""
    n = res * res
    builder = ti.linalg.SparseMatrixBuilder(n, n, max_num_triplets=6 * n, dtype=dtype)

    @ti.kernel
    def fill(K: ti.types.sparse_matrix_builder()):
        for i, j in ti.ndrange(res, res):
            row = i * res + j
            center = 0.0
            if j != 0:
                K[row, row - 1] += -1.0
                center += 1.0
            if j != res - 1:
                K[row, row + 1] += -1.0
                center += 1.0
            if i != 0:
                K[row, row - res] += -1.0
                center += 1.0
            if i != res - 1:
                K[row, row + res] += -1.0
                center += 1.0
            K[row, row] += center

    fill(builder)
    A = builder.build()
    solver = _solver(backend, dtype)
    solver.analyze_pattern(A)
    solver.factorize(A)
    rng = np.random.default_rng(res)
    rhs = rng.standard_normal(n)
    rhs -= rhs.mean()
    np_dtype = np.float32 if dtype == ti.f32 else np.float64
    b = ti.ndarray(dtype, shape=n)
    b.from_numpy(rhs.astype(np_dtype))
    x = solver.solve(b).to_numpy().astype(np.float64)
    assert np.isfinite(x).all()
    residual = np.linalg.norm(A.to_scipy() @ x - rhs) / np.linalg.norm(rhs)
    assert residual <= (1e-4 if dtype == ti.f32 else 1e-10)


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_one_analysis_many_factorisations(backend, dtype):
    """analyze_pattern once; factorize matrices of that pattern with new values (one not
    positive definite in between); each solve is of the matrix factored last."""
    base = _laplacian(9, 8)
    n = base.shape[0]
    rhs = np.linspace(-1.0, 2.0, n)
    solver = _solver(backend, dtype)
    solver.analyze_pattern(_sparse_matrix(base, dtype))
    rng = np.random.default_rng(7)
    for k, shift in enumerate([0.0, 3.0, -10.0, 0.5]):
        # Same pattern, new values: the off-diagonal perturbed symmetrically, a shift.
        a = base.copy()
        a.data = a.data * (1 + 0.1 * rng.random(a.nnz))
        a = ((a + a.T) / 2 + shift * sp.identity(n)).tocsc()
        if dtype == ti.f32:
            a = a.astype(np.float32).astype(np.float64)
        solver.factorize(_sparse_matrix(a, dtype))
        if shift < 0:  # the smallest eigenvalue of the Laplacian is < 1: not SPD
            assert not solver.info(), k
            continue
        assert solver.info(), k
        rtol = 1e-4 if dtype == ti.f32 else 1e-10
        np.testing.assert_allclose(solver.solve(rhs), spla.spsolve(a, rhs), rtol=rtol)


def test_a_matrix_of_another_pattern_is_analysed_again(backend):
    solver = _solver(backend, ti.f64)
    solver.analyze_pattern(_sparse_matrix(_laplacian(5, 5), ti.f64))
    other = _random_spd(25, 0.2, 9)
    solver.factorize(_sparse_matrix(other, ti.f64))
    assert solver.info()
    rhs = np.arange(25.0)
    np.testing.assert_allclose(solver.solve(rhs), spla.spsolve(other, rhs), rtol=1e-10)


@pytest.mark.parametrize("solver_type", ["LLT", "LDLT"])
def test_only_the_lower_triangle_is_read(backend, solver_type):
    """Taichi 1.7.4 (Eigen's Simplicial LLT / LDLT, Lower) reads tril(A): a different
    upper triangle changes nothing; a different lower triangle is the matrix solved."""
    spd = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    rhs = np.array([1.0, 2.0, 3.0])
    upper_changed = spd.copy()
    upper_changed[0, 1], upper_changed[1, 2] = 7.0, -5.0
    lower_changed = spd.copy()
    lower_changed[1, 0], lower_changed[2, 1] = 0.5, -0.25  # still SPD from the lower side
    for a in (upper_changed, lower_changed):
        solver = _solver(backend, ti.f64, solver_type)
        solver.compute(_sparse_matrix(a, ti.f64))
        assert solver.info()
        from_lower = np.tril(a) + np.tril(a, -1).T
        np.testing.assert_allclose(solver.solve(rhs), np.linalg.solve(from_lower, rhs),
                                   rtol=1e-12)


def test_builder_filled_in_a_kernel(backend):
    """The bench's path: a 2-D Poisson matrix built by a kernel on the program's arch."""
    m = 24
    n = m * m
    builder = ti.linalg.SparseMatrixBuilder(n, n, max_num_triplets=5 * n, dtype=ti.f64)
    b = ti.ndarray(ti.f64, shape=n)

    @ti.kernel
    def fill(K: ti.types.sparse_matrix_builder(), rhs: ti.types.ndarray()):
        for i, j in ti.ndrange(m, m):
            row = i * m + j
            K[row, row] += 4.0
            if i > 0:
                K[row, row - m] -= 1.0
            if i < m - 1:
                K[row, row + m] -= 1.0
            if j > 0:
                K[row, row - 1] -= 1.0
            if j < m - 1:
                K[row, row + 1] -= 1.0
            rhs[row] = ti.sin(0.1 * i) * ti.cos(0.2 * j)

    fill(builder, b)
    A = builder.build()
    solver = _solver(backend, ti.f64)
    solver.analyze_pattern(A)
    solver.factorize(A)
    assert solver.info()
    x = solver.solve(b)
    want = spla.spsolve(_laplacian(m, m), b.to_numpy())
    np.testing.assert_allclose(x.to_numpy(), want, rtol=1e-10, atol=1e-12)
