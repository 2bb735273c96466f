# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""svd3: ti.svd of 2^20 3x3 f32 matrices, one per thread (mpm99's hot call, batched)."""

N = 1 << 20

A = ti.Matrix.field(3, 3, ti.f32, shape=N)
S = ti.Vector.field(3, ti.f32, shape=N)


@ti.kernel
def svd_all():
    for i in A:
        U, sigma, V = ti.svd(A[i])
        S[i] = ti.Vector([sigma[0, 0], sigma[1, 1], sigma[2, 2]])


A.from_numpy(np.random.default_rng(0).standard_normal((N, 3, 3)).astype(np.float32))


def step():
    svd_all()


def result():
    return np.sort(np.abs(S.to_numpy()[:: N // 1024].astype(np.float64)), axis=1).ravel()
