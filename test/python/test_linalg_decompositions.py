"""
End-to-end: ti.svd, ti.polar_decompose, ti.sym_eig, ti.eig and ti.solve inside kernels,
f32 and f64, against NumPy, on every arch. Batches of random matrices check the
accuracy of every matrix, not one example.
"""

import numpy as np
import pytest
import taichi_xdsl as ti

from conftest import init_arch

FLOATS = [(ti.f32, np.float32, 1e-4), (ti.f64, np.float64, 1e-11)]
BATCH = 512


def _random_matrices(n, dim, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, dim, dim))
    a[1::9, -1] = a[1::9, 0]  # singular ones
    a[2::9] = np.diag(rng.standard_normal(dim))  # already diagonal
    a[3::9] = 0
    a[4::9] = np.eye(dim) * 1e-3 + rng.standard_normal((dim, dim)) * 1e-9  # tiny, close
    return a


def _init(arch, dt):
    init_arch(arch, default_fp=dt, fast_math=False)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("dt,np_dt,tol", FLOATS)
def test_svd_batch(arch, dim, dt, np_dt, tol):
    _init(arch, dt)
    A, U, S, V = (ti.Matrix.field(dim, dim, dt, shape=BATCH) for _ in range(4))

    @ti.kernel
    def run():
        for i in A:
            U[i], S[i], V[i] = ti.svd(A[i], dt)

    a = _random_matrices(BATCH, dim).astype(np_dt)
    A.from_numpy(a)
    run()
    u, s, v = U.to_numpy(), S.to_numpy(), V.to_numpy()
    eye = np.eye(dim)
    scale = np.maximum(1, np.abs(a).max(axis=(1, 2)))[:, None, None]
    np.testing.assert_allclose((u @ s @ v.transpose(0, 2, 1) - a) / scale, 0, atol=tol)
    np.testing.assert_allclose(u.transpose(0, 2, 1) @ u, np.broadcast_to(eye, u.shape), atol=tol)
    np.testing.assert_allclose(v.transpose(0, 2, 1) @ v, np.broadcast_to(eye, v.shape), atol=tol)
    # Taichi's conventions: U and V are rotations, Σ is diagonal, sorted by magnitude,
    # and only its last entry may be negative.
    np.testing.assert_allclose(np.linalg.det(u), 1, atol=tol)
    np.testing.assert_allclose(np.linalg.det(v), 1, atol=tol)
    diag = np.diagonal(s, axis1=1, axis2=2)
    np.testing.assert_array_equal(s - diag[:, :, None] * eye, 0)
    assert (diag[:, :-1] >= 0).all()
    assert (np.abs(diag[:, :-1]) >= np.abs(diag[:, 1:]) - tol).all()
    want = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    np.testing.assert_allclose(np.abs(diag) / scale[:, :, 0], want / scale[:, :, 0], atol=tol)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("dt,np_dt,tol", FLOATS)
def test_polar_decompose_batch(arch, dim, dt, np_dt, tol):
    _init(arch, dt)
    A, R, S = (ti.Matrix.field(dim, dim, dt, shape=BATCH) for _ in range(3))

    @ti.kernel
    def run():
        for i in A:
            R[i], S[i] = ti.polar_decompose(A[i])

    a = _random_matrices(BATCH, dim, seed=1).astype(np_dt)
    A.from_numpy(a)
    run()
    r, s = R.to_numpy(), S.to_numpy()
    scale = np.maximum(1, np.abs(a).max(axis=(1, 2)))[:, None, None]
    np.testing.assert_allclose((r @ s - a) / scale, 0, atol=tol)
    np.testing.assert_allclose(r.transpose(0, 2, 1) @ r, np.broadcast_to(np.eye(dim), r.shape), atol=tol)
    np.testing.assert_allclose(np.linalg.det(r), 1, atol=tol)
    np.testing.assert_allclose((s - s.transpose(0, 2, 1)) / scale, 0, atol=tol)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("dt,np_dt,tol", FLOATS)
def test_sym_eig_batch(arch, dim, dt, np_dt, tol):
    _init(arch, dt)
    A, W = ti.Matrix.field(dim, dim, dt, shape=BATCH), ti.Matrix.field(dim, dim, dt, shape=BATCH)
    w = ti.Vector.field(dim, dt, shape=BATCH)

    @ti.kernel
    def run():
        for i in A:
            w[i], W[i] = ti.sym_eig(A[i])

    a = _random_matrices(BATCH, dim, seed=2)
    a = (a + a.transpose(0, 2, 1)).astype(np_dt)
    a[5] = np.eye(dim)  # repeated eigenvalues
    A.from_numpy(a)
    run()
    values, vectors = w.to_numpy(), W.to_numpy()
    scale = np.maximum(1, np.abs(a).max(axis=(1, 2)))[:, None]
    np.testing.assert_allclose(
        np.sort(values, axis=1) / scale, np.linalg.eigvalsh(a.astype(np.float64)) / scale, atol=tol
    )
    # A v = λ v for each column, and the columns are orthonormal.
    np.testing.assert_allclose(
        (a @ vectors - vectors * values[:, None, :]) / scale[:, :, None], 0, atol=tol
    )
    np.testing.assert_allclose(
        vectors.transpose(0, 2, 1) @ vectors, np.broadcast_to(np.eye(dim), vectors.shape), atol=tol
    )


@pytest.mark.parametrize("dt,np_dt,tol", FLOATS)
def test_eig_2x2_real_and_complex(arch, dt, np_dt, tol):
    _init(arch, dt)
    n = 64
    A = ti.Matrix.field(2, 2, dt, shape=n)
    values = ti.Matrix.field(2, 2, dt, shape=n)
    vectors = ti.Matrix.field(4, 2, dt, shape=n)

    @ti.kernel
    def run():
        for i in A:
            values[i], vectors[i] = ti.eig(A[i])

    a = np.random.default_rng(3).standard_normal((n, 2, 2))
    a[0] = [[1, 1], [2, 3]]
    a[1] = [[1, -1], [1, 1]]  # complex pair
    a[2] = [[2, 0], [0, 2]]
    a[3] = [[0, 1], [0, 0]]  # defective
    a = a.astype(np_dt)
    A.from_numpy(a)
    run()
    v = values.to_numpy()
    lam = v[:, :, 0] + 1j * v[:, :, 1]
    x = vectors.to_numpy()
    vec = x[:, 0::2, :] + 1j * x[:, 1::2, :]
    want = np.linalg.eigvals(a.astype(np.float64))
    for got, ref in zip(lam, want):
        np.testing.assert_allclose(sorted(got, key=lambda z: (z.real, z.imag)),
                                   sorted(ref, key=lambda z: (z.real, z.imag)), atol=tol * 10)
    # A v = λ v with |v| = 1.
    np.testing.assert_allclose(a @ vec - vec * lam[:, None, :], 0, atol=tol * 10)
    np.testing.assert_allclose(np.linalg.norm(vec, axis=1), 1, atol=tol)


@pytest.mark.parametrize("dim", [2, 3, 4])
@pytest.mark.parametrize("dt,np_dt,tol", FLOATS)
def test_solve(arch, dim, dt, np_dt, tol):
    _init(arch, dt)
    n = 128
    A = ti.Matrix.field(dim, dim, dt, shape=n)
    b, x = ti.Vector.field(dim, dt, shape=n), ti.Vector.field(dim, dt, shape=n)

    @ti.kernel
    def run():
        for i in A:
            x[i] = ti.solve(A[i], b[i])

    rng = np.random.default_rng(4)
    a = (rng.standard_normal((n, dim, dim)) + 2 * np.eye(dim)).astype(np_dt)
    a[0] = np.roll(np.eye(dim), 1, axis=0)  # needs pivoting: a zero leading entry
    rhs = rng.standard_normal((n, dim)).astype(np_dt)
    A.from_numpy(a)
    b.from_numpy(rhs)
    run()
    want = np.linalg.solve(a.astype(np.float64), rhs.astype(np.float64)[:, :, None])[:, :, 0]
    cond = np.linalg.cond(a.astype(np.float64))[:, None]
    np.testing.assert_allclose((x.to_numpy() - want) / cond, 0, atol=tol)


def test_unsupported_sizes_are_compile_errors(program):
    m = ti.Matrix.field(4, 4, ti.f32, shape=())

    @ti.kernel
    def svd4():
        ti.svd(m[None])

    with pytest.raises(ti.TaichiTypeError, match="ti.svd supports 2x2 and 3x3") as info:
        svd4()
    assert "test_linalg_decompositions.py" in str(info.value)
