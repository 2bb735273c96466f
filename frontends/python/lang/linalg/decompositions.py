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
# It stops earlier once the off-diagonal is below the unit roundoff times the diagonal
# (squared: 2^-48, 2^-106): one more sweep would change nothing but rounding. Random
# f32 matrices usually get there in four sweeps.
_OFF_DIAGONAL_TOLERANCE2 = {32: 2.0**-48, 64: 2.0**-106}


def _bits(dt: Any) -> int:
    return 64 if dt == ti.f64 else 32


def _tiny(dt: Any) -> float:
    """The smallest positive normal number of `dt`."""
    return 2.2250738585072014e-308 if dt == ti.f64 else 1.1754943508222875e-38


@ti.func
def _jacobi_rotation(S0, V0, p: ti.template(), q: ti.template(), dt: ti.template()):
    """
    One Jacobi rotation J of a symmetric S (S <- Jᵀ S J, which zeroes S[p, q]) and of V
    (V <- V J), in the symmetric form of Golub & Van Loan 8.5.2: the new S[p, p] and
    S[q, q] are S[p, p] -/+ t S[p, q], and only the other row/column r of a 3x3 mixes.

    t = tan(angle) = sign(d) 2 S[p,q] / (|d| + sqrt(d² + 4 S[p,q]²)), d = S[q,q] - S[p,p]:
    the root of smaller magnitude of t² + 2θt - 1 = 0, θ = d / (2 S[p,q]), computed
    without a branch and without dividing by S[p, q] (t is 0 when S[p, q] is). Entries
    must stay below ~1e18 (f32) so that d² does not overflow: sym_eig_jacobi scales S
    to |entries| <= 1 first.
    """
    S = S0
    V = V0
    apq = S0[p, q]
    d = S0[q, q] - S0[p, p]
    two_apq = apq + apq
    num = ti.select(d >= 0, two_apq, -two_apq)
    den = ti.abs(d) + ti.sqrt(d * d + two_apq * two_apq)
    t = num / ti.max(den, ti.static(_tiny(dt)))  # den == 0 only when num == 0
    c = 1 / ti.sqrt(t * t + 1)
    s = t * c
    S[p, p] = S0[p, p] - t * apq
    S[q, q] = S0[q, q] + t * apq
    S[p, q] = ti.cast(0, dt)
    S[q, p] = ti.cast(0, dt)
    for r in ti.static(range(S0.n)):
        if ti.static(r != p and r != q):
            arp = S0[r, p]
            arq = S0[r, q]
            S[r, p] = c * arp - s * arq
            S[p, r] = S[r, p]
            S[r, q] = s * arp + c * arq
            S[q, r] = S[r, q]
    for k in ti.static(range(S0.n)):
        vkp = V0[k, p]
        vkq = V0[k, q]
        V[k, p] = c * vkp - s * vkq
        V[k, q] = s * vkp + c * vkq
    return S, V


@ti.func
def sym_eig_jacobi(A, dt: ti.template()):
    """Eigenvalues (the diagonal of the result) and eigenvectors (columns of a rotation) of
    a symmetric 2x2 or 3x3 matrix."""
    Af = ti.cast(A, dt)
    S = (Af + Af.transpose()) * ti.cast(0.5, dt)  # the rotations read either triangle
    V = ti.Matrix.identity(dt, A.n)
    # Scale to |entries| <= 1 (the rotations square differences of entries), back after.
    m = ti.cast(0, dt)
    for i in ti.static(range(A.n)):
        for j in ti.static(range(i, A.n)):
            m = ti.max(m, ti.abs(S[i, j]))
    m = ti.max(m, ti.static(_tiny(dt)))
    S = S * (1 / m)
    # A while loop, not range(): a range-for at a kernel's top level would run its
    # iterations in parallel, and the sweeps depend on each other.
    sweep = 0
    off2 = ti.cast(1, dt)
    diag2 = ti.cast(0, dt)
    tolerance2 = ti.cast(ti.static(_OFF_DIAGONAL_TOLERANCE2[_bits(dt)]), dt)
    while sweep < ti.static(_SWEEPS[ti.static(_bits(dt))]) and off2 > tolerance2 * diag2:
        for p, q in ti.static([(0, 1), (0, 2), (1, 2)] if A.n == 3 else [(0, 1)]):
            S, V = _jacobi_rotation(S, V, p, q, dt)
        sweep += 1
        off2 = ti.cast(0, dt)
        diag2 = ti.cast(0, dt)
        for i in ti.static(range(A.n)):
            diag2 += S[i, i] * S[i, i]
            for j in ti.static(range(i + 1, A.n)):
                off2 += S[i, j] * S[i, j]
    return S * m, V


@ti.func
def _order_columns(S0, M0, V0, i: ti.template(), j: ti.template()):
    """When S[j, j] > S[i, i]: swap those, and the columns i and j of M and V, negating the
    new column j of both so that det V stays and M = A V still holds. Selects, not a
    branch: which way it goes is a coin toss for random matrices (a mispredicted branch
    a time)."""
    S = S0
    M = M0
    V = V0
    swap = S0[i, i] < S0[j, j]
    S[i, i] = ti.select(swap, S0[j, j], S0[i, i])
    S[j, j] = ti.select(swap, S0[i, i], S0[j, j])
    for k in ti.static(range(M0.n)):
        M[k, i] = ti.select(swap, M0[k, j], M0[k, i])
        M[k, j] = ti.select(swap, -M0[k, i], M0[k, j])
        V[k, i] = ti.select(swap, V0[k, j], V0[k, i])
        V[k, j] = ti.select(swap, -V0[k, i], V0[k, j])
    return S, M, V


@ti.func
def _givens_qr(B0, dt: ti.template()):
    """B = U R with U a rotation (a product of Givens rotations) and R upper triangular."""
    B = B0
    U = ti.Matrix.identity(dt, B0.n)
    for p, q in ti.static([(0, 1), (0, 2), (1, 2)] if B0.n == 3 else [(0, 1)]):
        a = B[p, p]
        b = B[q, p]
        r2 = a * a + b * b
        inv = 1 / ti.sqrt(ti.max(r2, ti.static(_tiny(dt))))
        c = ti.select(r2 > 0, a * inv, ti.cast(1, dt))
        s = ti.select(r2 > 0, b * inv, ti.cast(0, dt))
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
        S, B, V = _order_columns(S, B, V, i, j)
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
