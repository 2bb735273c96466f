"""
The bench cases written for Numba (@njit(parallel=True) with prange), the same work as
the Taichi-API cases in bench/cases/. Each `make_<case>()` returns (step, result, reset)
with the data already allocated; `READ_BYTES` / `WRITE_BYTES` / `CALLS` as in the case files.

mpm88: the particle-to-grid scatter races under prange (Numba has no atomic add on
arrays), so that one loop is serial; the other three loops are prange.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


def make_saxpy():
    n = 1 << 24

    @njit(parallel=True, fastmath=True)
    def saxpy(a, x, y):
        for i in prange(x.shape[0]):
            y[i] = a * x[i] + y[i]

    x = (np.arange(n, dtype=np.float32) % 1000).astype(np.float32)
    y = np.ones(n, dtype=np.float32)

    def reset():
        y[:] = 1.0

    return (lambda: saxpy(np.float32(0.5), x, y)), (lambda: y[:: n // 4096].copy()), reset


def make_copy():
    n = 1 << 24

    @njit(parallel=True, fastmath=True)
    def copy(x, y):
        for i in prange(x.shape[0]):
            y[i] = x[i]

    x = (np.arange(n, dtype=np.float32) % 1000).astype(np.float32)
    y = np.zeros(n, dtype=np.float32)
    return (lambda: copy(x, y)), (lambda: y[:: n // 4096].copy()), None


def make_reduce():
    n = 1 << 24

    @njit(parallel=True, fastmath=True)
    def reduce(x, total):
        s = np.float32(0.0)
        for i in prange(x.shape[0]):
            s += x[i]
        total[0] = s

    x = ((np.arange(n) % 7).astype(np.float32) * 0.125).astype(np.float32)
    total = np.zeros(1, dtype=np.float32)
    return (lambda: reduce(x, total)), (lambda: total.astype(np.float64)), None


def make_julia():
    n = 640

    @njit(parallel=True, fastmath=True)
    def paint(pixels, n, t):
        c0 = np.float32(-0.8)
        c1 = np.float32(math.cos(t) * 0.2)
        for i in prange(pixels.shape[0]):
            for j in range(pixels.shape[1]):
                z0 = np.float32((i / n - 1) * 2)
                z1 = np.float32((j / n - 0.5) * 2)
                it = 0
                while math.sqrt(z0 * z0 + z1 * z1) < 20 and it < 50:
                    z0, z1 = z0 * z0 - z1 * z1 + c0, z1 * z0 * 2 + c1
                    it += 1
                pixels[i, j] = 1 - it * 0.02

    pixels = np.zeros((2 * n, n), dtype=np.float32)
    return (
        (lambda: paint(pixels, n, np.float32(0.9))),
        (lambda: pixels[::16, ::16].copy()),
        None,
    )


def make_nbody():
    n = 4096

    @njit(parallel=True, fastmath=True)
    def nbody(pos, vel, dt):
        for i in prange(n):
            px, py, pz = pos[i, 0], pos[i, 1], pos[i, 2]
            ax = ay = az = np.float32(0.0)
            for j in range(n):
                dx = pos[j, 0] - px
                dy = pos[j, 1] - py
                dz = pos[j, 2] - pz
                r2 = dx * dx + dy * dy + dz * dz + np.float32(0.01)
                inv = np.float32(1.0) / (r2 * math.sqrt(r2))
                ax += dx * inv
                ay += dy * inv
                az += dz * inv
            vel[i, 0] += dt * ax
            vel[i, 1] += dt * ay
            vel[i, 2] += dt * az
        for i in prange(n):
            for k in range(3):
                pos[i, k] += dt * vel[i, k]

    rng = np.random.default_rng(1)
    pos0 = rng.random((n, 3), dtype=np.float32)
    pos = pos0.copy()
    vel = np.zeros((n, 3), dtype=np.float32)

    def reset():
        pos[:] = pos0
        vel[:] = 0.0

    return (lambda: nbody(pos, vel, np.float32(1e-5))), (lambda: vel[::64].copy()), reset


def make_stencil():
    n = 2048

    @njit(parallel=True, fastmath=True)
    def stencil(u, v):
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                v[i, j] = u[i, j] + np.float32(0.2) * (
                    u[i - 1, j]
                    + u[i + 1, j]
                    + u[i, j - 1]
                    + u[i, j + 1]
                    - np.float32(4.0) * u[i, j]
                )

    u = ((np.arange(n * n, dtype=np.float32).reshape(n, n) % 13) * 0.5).astype(np.float32)
    v = np.zeros((n, n), dtype=np.float32)
    return (lambda: stencil(u, v)), (lambda: v[1:-1:32, 1:-1:32].copy()), None


def make_mpm88():
    n_particles, n_grid = 8192, 128
    dx = 1 / n_grid
    dt = 2e-4
    p_vol = (dx * 0.5) ** 2
    p_mass = p_vol
    gravity = 9.8
    bound = 3
    E = 400

    @njit(parallel=True, fastmath=True)
    def substep(x, v, C, J, grid_v, grid_m):
        for i in prange(n_grid):
            for j in range(n_grid):
                grid_v[i, j, 0] = 0.0
                grid_v[i, j, 1] = 0.0
                grid_m[i, j] = 0.0
        for p in range(n_particles):  # scatter: serial (no atomics in Numba)
            X0, X1 = x[p, 0] / dx, x[p, 1] / dx
            b0, b1 = int(X0 - 0.5), int(X1 - 0.5)
            f0, f1 = X0 - b0, X1 - b1
            w0 = (0.5 * (1.5 - f0) ** 2, 0.75 - (f0 - 1) ** 2, 0.5 * (f0 - 0.5) ** 2)
            w1 = (0.5 * (1.5 - f1) ** 2, 0.75 - (f1 - 1) ** 2, 0.5 * (f1 - 0.5) ** 2)
            stress = -dt * 4 * E * p_vol * (J[p] - 1) / dx**2
            a00 = stress + p_mass * C[p, 0, 0]
            a01 = p_mass * C[p, 0, 1]
            a10 = p_mass * C[p, 1, 0]
            a11 = stress + p_mass * C[p, 1, 1]
            for i in range(3):
                for j in range(3):
                    d0, d1 = (i - f0) * dx, (j - f1) * dx
                    weight = w0[i] * w1[j]
                    gi, gj = b0 + i, b1 + j
                    grid_v[gi, gj, 0] += weight * (p_mass * v[p, 0] + a00 * d0 + a01 * d1)
                    grid_v[gi, gj, 1] += weight * (p_mass * v[p, 1] + a10 * d0 + a11 * d1)
                    grid_m[gi, gj] += weight * p_mass
        for i in prange(n_grid):
            for j in range(n_grid):
                if grid_m[i, j] > 0:
                    grid_v[i, j, 0] /= grid_m[i, j]
                    grid_v[i, j, 1] /= grid_m[i, j]
                grid_v[i, j, 1] -= dt * gravity
                if i < bound and grid_v[i, j, 0] < 0:
                    grid_v[i, j, 0] = 0
                if i > n_grid - bound and grid_v[i, j, 0] > 0:
                    grid_v[i, j, 0] = 0
                if j < bound and grid_v[i, j, 1] < 0:
                    grid_v[i, j, 1] = 0
                if j > n_grid - bound and grid_v[i, j, 1] > 0:
                    grid_v[i, j, 1] = 0
        for p in prange(n_particles):
            X0, X1 = x[p, 0] / dx, x[p, 1] / dx
            b0, b1 = int(X0 - 0.5), int(X1 - 0.5)
            f0, f1 = X0 - b0, X1 - b1
            w0 = (0.5 * (1.5 - f0) ** 2, 0.75 - (f0 - 1) ** 2, 0.5 * (f0 - 0.5) ** 2)
            w1 = (0.5 * (1.5 - f1) ** 2, 0.75 - (f1 - 1) ** 2, 0.5 * (f1 - 0.5) ** 2)
            nv0 = nv1 = 0.0
            c00 = c01 = c10 = c11 = 0.0
            for i in range(3):
                for j in range(3):
                    d0, d1 = (i - f0) * dx, (j - f1) * dx
                    weight = w0[i] * w1[j]
                    g0, g1 = grid_v[b0 + i, b1 + j, 0], grid_v[b0 + i, b1 + j, 1]
                    nv0 += weight * g0
                    nv1 += weight * g1
                    k = 4 * weight / dx**2
                    c00 += k * g0 * d0
                    c01 += k * g0 * d1
                    c10 += k * g1 * d0
                    c11 += k * g1 * d1
            v[p, 0], v[p, 1] = nv0, nv1
            x[p, 0] += dt * nv0
            x[p, 1] += dt * nv1
            J[p] *= 1 + dt * (c00 + c11)
            C[p, 0, 0], C[p, 0, 1], C[p, 1, 0], C[p, 1, 1] = c00, c01, c10, c11

    rng = np.random.default_rng(2)
    x0 = (rng.random((n_particles, 2), dtype=np.float32) * 0.4 + 0.2).astype(np.float32)
    x = x0.copy()
    v = np.tile(np.array([0.0, -1.0], dtype=np.float32), (n_particles, 1))
    C = np.zeros((n_particles, 2, 2), dtype=np.float32)
    J = np.ones(n_particles, dtype=np.float32)
    grid_v = np.zeros((n_grid, n_grid, 2), dtype=np.float32)
    grid_m = np.zeros((n_grid, n_grid), dtype=np.float32)

    def reset():
        x[:] = x0
        v[:] = (0.0, -1.0)
        C[:] = 0.0
        J[:] = 1.0

    return (
        (lambda: substep(x, v, C, J, grid_v, grid_m)),
        (lambda: x[::64].copy()),
        reset,
    )


def make_launch():
    calls = 1000

    @njit
    def tiny(flag, value):
        flag[0] = value

    flag = np.zeros(1, dtype=np.int32)

    def step():
        for k in range(calls):
            tiny(flag, k)

    return step, (lambda: flag.astype(np.float64)), None


# The linear-algebra cases. Where Numba has no parallel version of its own, the rival is
# the library a NumPy user would call: np.sort for sort, SciPy's SuperLU for poisson.


def make_svd3():
    n = 1 << 20

    @njit(parallel=True)
    def svd_all(a, s):
        for i in prange(a.shape[0]):
            s[i] = np.linalg.svd(a[i], compute_uv=True)[1]

    a = np.random.default_rng(0).standard_normal((n, 3, 3)).astype(np.float32)
    s = np.zeros((n, 3), dtype=np.float32)
    return (
        (lambda: svd_all(a, s)),
        (lambda: np.sort(np.abs(s[:: n // 1024].astype(np.float64)), axis=1).ravel()),
        None,
    )


def make_sort():
    n = 1 << 24
    data = np.random.default_rng(0).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    out = [data]

    def step():
        out[0] = np.sort(data)

    return step, (lambda: out[0][:: n // 4096].astype(np.float64)), None


def make_poisson():
    import scipy.sparse as sp
    from scipy.sparse.linalg import splu

    m = 512
    one = sp.eye(m)
    lap = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    a = (sp.kron(lap, one) + sp.kron(one, lap)).tocsc()
    i, j = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    b = (np.sin(0.01 * i) * np.cos(0.02 * j)).ravel()
    out = [b]

    def step():
        out[0] = splu(a, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                      options={"SymmetricMode": True}).solve(b)

    return step, (lambda: out[0][:: (m * m) // 1024]), None
