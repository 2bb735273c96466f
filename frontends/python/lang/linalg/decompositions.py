"""
Small-matrix decompositions inside kernels: `ti.svd`, `ti.polar_decompose`, `ti.sym_eig`,
`ti.eig`, `ti.solve`.

Each is a `ti.func` of ours, inlined where a kernel calls it, so it runs on every arch and
every float width. The algorithms are the textbook ones:

- symmetric eigenproblems: cyclic Jacobi rotations (Golub & Van Loan, "Matrix
  Computations", 8.5); the accumulated rotations form a proper rotation;
- SVD of 2x2 and 3x3 (McAdams et al. 2011, "Computing the SVD of 3x3 matrices with minimal
  branching"): Jacobi on AᵀA gives V, the columns are sorted by singular value, and a
  Givens QR of AV gives U and Σ, so U and V are rotations and only the last singular value
  may be negative;
- polar decomposition A = R S: the 2x2 closed form (the rotation nearest A), R = U Vᵀ and
  S = V Σ Vᵀ from the SVD in 3-D;
- `ti.solve`: Gaussian elimination with partial pivoting.
"""

from typing import Any

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiTypeError

# Cyclic Jacobi converges quadratically: these sweeps take random 3x3 matrices to full
# f32 / f64 precision (test_linalg_decompositions checks it on thousands of them).
_SWEEPS = {32: 5, 64: 7}


def _bits(dt: Any) -> int:
    return 64 if dt == ti.f64 else 32


@ti.func
def _rotation(app, aqq, apq, dt: ti.template()):
    """(c, s) of the Jacobi rotation that zeroes the (p, q) entry of a symmetric matrix."""
    c = ti.cast(1, dt)
    s = ti.cast(0, dt)
    if apq != 0:
        theta = (aqq - app) / (2 * apq)
        t = ti.cast(0, dt)
        if ti.abs(theta) > ti.cast(1e15, dt):
            t = 1 / (2 * theta)  # theta^2 would overflow; t ~ 1/(2 theta)
        else:
            t = 1 / (ti.abs(theta) + ti.sqrt(theta * theta + 1))
            if theta < 0:
                t = -t
        c = 1 / ti.sqrt(t * t + 1)
        s = t * c
    return c, s


@ti.func
def _jacobi_sweep(S0, V0, p: ti.template(), q: ti.template(), dt: ti.template()):
    """Rotate rows/columns p, q of S (S <- Jᵀ S J) and V (V <- V J)."""
    c, s = _rotation(S0[p, p], S0[q, q], S0[p, q], dt)
    S = S0
    V = V0
    n = ti.static(S0.n)
    for k in ti.static(range(n)):
        skp = S[k, p]
        skq = S[k, q]
        S[k, p] = c * skp - s * skq
        S[k, q] = s * skp + c * skq
    for k in ti.static(range(n)):
        spk = S[p, k]
        sqk = S[q, k]
        S[p, k] = c * spk - s * sqk
        S[q, k] = s * spk + c * sqk
    for k in ti.static(range(n)):
        vkp = V[k, p]
        vkq = V[k, q]
        V[k, p] = c * vkp - s * vkq
        V[k, q] = s * vkp + c * vkq
    return S, V


@ti.func
def sym_eig_jacobi(A, dt: ti.template()):
    """Eigenvalues (the diagonal of the result) and eigenvectors (columns of a rotation) of
    a symmetric 2x2 or 3x3 matrix."""
    S = ti.cast(A, dt)
    V = ti.Matrix.identity(dt, A.n)
    # A while loop, not range(): a range-for at a kernel's top level would run its
    # iterations in parallel, and the sweeps depend on each other.
    sweep = 0
    while sweep < ti.static(_SWEEPS[ti.static(_bits(dt))]):
        for p, q in ti.static([(0, 1), (0, 2), (1, 2)] if A.n == 3 else [(0, 1)]):
            S, V = _jacobi_sweep(S, V, p, q, dt)
        sweep += 1
    return S, V


@ti.func
def _swap_columns(M0, V0, i: ti.template(), j: ti.template()):
    """Swap the columns i and j of M and V, negating the new column j of both so that det V stays and M = A V still holds."""
    M = M0
    V = V0
    for k in ti.static(range(M.n)):
        m = M[k, i]
        M[k, i] = M[k, j]
        M[k, j] = -m
        v = V[k, i]
        V[k, i] = V[k, j]
        V[k, j] = -v
    return M, V


@ti.func
def _givens_qr(B0, dt: ti.template()):
    """B = U R with U a rotation (a product of Givens rotations) and R upper triangular."""
    B = B0
    U = ti.Matrix.identity(dt, B0.n)
    for p, q in ti.static([(0, 1), (0, 2), (1, 2)] if B0.n == 3 else [(0, 1)]):
        a = B[p, p]
        b = B[q, p]
        r = ti.sqrt(a * a + b * b)
        c = ti.cast(1, dt)
        s = ti.cast(0, dt)
        if r > 0:
            c = a / r
            s = b / r
        for k in ti.static(range(B0.n)):
            bpk = B[p, k]
            bqk = B[q, k]
            B[p, k] = c * bpk + s * bqk
            B[q, k] = c * bqk - s * bpk
            ukp = U[k, p]
            ukq = U[k, q]
            U[k, p] = c * ukp + s * ukq
            U[k, q] = c * ukq - s * ukp
    return U, B


@ti.func
def svd(A, dt: ti.template()):
    """A = U Σ Vᵀ for a 2x2 or 3x3 A; U and V are rotations, Σ is diagonal with its
    entries in decreasing order of magnitude (only the last may be negative)."""
    Af = ti.cast(A, dt)
    S, V = sym_eig_jacobi(Af.transpose() @ Af, dt)
    B = Af @ V
    # Sort the columns by singular value (the norms of AV's columns), largest first.
    for i, j in ti.static([(0, 1), (0, 2), (1, 2)] if A.n == 3 else [(0, 1)]):
        if S[i, i] < S[j, j]:
            t = S[i, i]
            S[i, i] = S[j, j]
            S[j, j] = t
            B, V = _swap_columns(B, V, i, j)
    U, R = _givens_qr(B, dt)
    sigma = ti.Matrix.zero(dt, A.n, A.n)
    for i in ti.static(range(A.n)):
        sigma[i, i] = R[i, i]
    return U, sigma, V


@ti.func
def polar_decompose2d(A, dt: ti.template()):
    """A = R S with R the rotation nearest A and S = Rᵀ A symmetric."""
    Af = ti.cast(A, dt)
    x = Af[0, 0] + Af[1, 1]
    y = Af[1, 0] - Af[0, 1]
    norm = ti.sqrt(x * x + y * y)
    c = ti.cast(1, dt)
    s = ti.cast(0, dt)
    if norm > 0:
        c = x / norm
        s = y / norm
    R = ti.Matrix([[c, -s], [s, c]], dt=dt)
    return R, R.transpose() @ Af


@ti.func
def polar_decompose3d(A, dt: ti.template()):
    """A = R S from the SVD: R = U Vᵀ is a rotation, S = V Σ Vᵀ is symmetric."""
    U, sigma, V = svd(A, dt)
    return U @ V.transpose(), V @ sigma @ V.transpose()


@ti.func
def sym_eig(A, dt: ti.template()):
    """Eigenvalues (a vector) and unit eigenvectors (the matrix's columns) of a
    symmetric 2x2 or 3x3 matrix."""
    S, V = sym_eig_jacobi(A, dt)
    w = ti.Vector.zero(dt, A.n)
    for i in ti.static(range(A.n)):
        w[i] = S[i, i]
    return w, V


@ti.func
def eig2x2(A, dt: ti.template()):
    """Eigenvalues and eigenvectors of a real 2x2 matrix, complex in general.

    Returns a 2x2 matrix whose row i is (re, im) of eigenvalue i, and a 4x2 matrix whose
    column i is eigenvector i with rows (re x, im x, re y, im y).
    """
    Af = ti.cast(A, dt)
    a = Af[0, 0]
    b = Af[0, 1]
    c = Af[1, 0]
    d = Af[1, 1]
    half_trace = (a + d) / 2
    disc = (a - d) * (a - d) / 4 + b * c  # (tr/2)^2 - det, without cancellation in a+d
    values = ti.Matrix.zero(dt, 2, 2)
    vectors = ti.Matrix.zero(dt, 4, 2)
    if disc >= 0:
        root = ti.sqrt(disc)
        # The eigenvalue of larger magnitude first, the other from the determinant.
        l0 = half_trace + root if half_trace >= 0 else half_trace - root
        l1 = ti.cast(0, dt)
        if l0 != 0:
            l1 = (a * d - b * c) / l0
        values[0, 0] = l0
        values[1, 0] = l1
        for i in ti.static(range(2)):
            lam = values[i, 0]
            x = ti.cast(1, dt) if i == 0 else ti.cast(0, dt)
            y = ti.cast(0, dt) if i == 0 else ti.cast(1, dt)
            # (A - λI) v = 0: take the row of larger norm, v orthogonal to it.
            r0x = a - lam
            r1y = d - lam
            if ti.abs(r0x) + ti.abs(b) >= ti.abs(c) + ti.abs(r1y):
                if ti.abs(r0x) + ti.abs(b) > 0:
                    x = b
                    y = -r0x
            elif ti.abs(c) + ti.abs(r1y) > 0:
                x = r1y
                y = -c
            inv = 1 / ti.sqrt(x * x + y * y)
            vectors[0, i] = x * inv
            vectors[2, i] = y * inv
    else:
        root = ti.sqrt(-disc)
        values[0, 0] = half_trace
        values[0, 1] = root
        values[1, 0] = half_trace
        values[1, 1] = -root
        # b != 0 here (disc < 0 needs b c < 0): v = (b, λ - a), λ = tr/2 ± i root.
        for i in ti.static(range(2)):
            im = root if i == 0 else -root
            re_y = half_trace - a
            inv = 1 / ti.sqrt(b * b + re_y * re_y + im * im)
            vectors[0, i] = b * inv
            vectors[2, i] = re_y * inv
            vectors[3, i] = im * inv
    return values, vectors


@ti.func
def solve(A, b, dt: ti.template()):
    """x with A x = b, by Gaussian elimination with partial pivoting."""
    n = ti.static(A.n)
    M = ti.cast(A, dt)
    x = ti.cast(b, dt)
    for k in ti.static(range(n)):
        for r in ti.static(range(k + 1, n)):
            if ti.abs(M[r, k]) > ti.abs(M[k, k]):
                for j in ti.static(range(n)):
                    t = M[k, j]
                    M[k, j] = M[r, j]
                    M[r, j] = t
                t = x[k]
                x[k] = x[r]
                x[r] = t
        for r in ti.static(range(k + 1, n)):
            f = M[r, k] / M[k, k]
            for j in ti.static(range(k, n)):
                M[r, j] -= f * M[k, j]
            x[r] -= f * x[k]
    for k in ti.static(range(n - 1, -1, -1)):
        for j in ti.static(range(k + 1, n)):
            x[k] -= M[k, j] * x[j]
        x[k] /= M[k, k]
    return x


# The public functions: `dt` defaults to the program's default_fp, as in Taichi.


def _float_type(dt: Any) -> Any:
    if dt is None:
        from taichi_xdsl.frontends.python.lang import program

        return program.get_program().config.default_fp
    return dt


def _square(
    n: int, m: int, sizes: tuple[int, ...], what: str, title: str | None = None
) -> None:
    """Raise (at compile time) unless n x m is one of the square sizes supported;
    `title` starts the message as Taichi words it ("Polar decomposition")."""
    if n != m or n not in sizes:
        shown = " and ".join(f"{k}D" for k in sizes)
        lead = f"{title} only supports {shown} matrices. " if title else ""
        raise TaichiTypeError(f"{lead}{what} supports {' and '.join(f'{k}x{k}' for k in sizes)} "
                          f"matrices, got {n}x{m}")


@ti.func
def ti_svd(A, dt: ti.template() = None):
    """U, Σ, V with A = U Σ Vᵀ (2x2, 3x3)."""
    ti.static(_square(A.n, A.m, (2, 3), "ti.svd", "Singular value decomposition"))
    return svd(A, ti.static(_float_type(dt)))


@ti.func
def ti_polar_decompose(A, dt: ti.template() = None):
    """R, S with A = R S, R a rotation and S symmetric (2x2, 3x3)."""
    ti.static(_square(A.n, A.m, (2, 3), "ti.polar_decompose", "Polar decomposition"))
    if ti.static(A.n == 2):
        return polar_decompose2d(A, ti.static(_float_type(dt)))
    else:
        return polar_decompose3d(A, ti.static(_float_type(dt)))


@ti.func
def ti_sym_eig(A, dt: ti.template() = None):
    """Eigenvalues (a vector) and eigenvectors (columns) of a symmetric 2x2 or 3x3."""
    ti.static(_square(A.n, A.m, (2, 3), "ti.sym_eig"))
    return sym_eig(A, ti.static(_float_type(dt)))


@ti.func
def ti_eig(A, dt: ti.template() = None):
    """Eigenvalues (2x2: rows of (re, im)) and eigenvectors (4x2) of a real 2x2."""
    ti.static(_square(A.n, A.m, (2,), "ti.eig"))
    return eig2x2(A, ti.static(_float_type(dt)))


@ti.func
def ti_solve(A, b, dt: ti.template() = None):
    """x with A x = b, by Gaussian elimination with partial pivoting."""
    ti.static(_square(A.n, A.m, (2, 3, 4), "ti.solve"))
    return solve(A, b, ti.static(_float_type(dt)))
