# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""cg: MatrixFreeCG on a 512^2 grid (a shifted 5-point Laplacian) to a residual of 1e-6."""

M = 512

x = ti.field(ti.f32, shape=(M, M))
b = ti.field(ti.f32, shape=(M, M))


@ti.kernel
def laplace(v: ti.template(), out: ti.template()):
    for i, j in v:
        s = 4.5 * v[i, j]
        if i > 0:
            s -= v[i - 1, j]
        if i < M - 1:
            s -= v[i + 1, j]
        if j > 0:
            s -= v[i, j - 1]
        if j < M - 1:
            s -= v[i, j + 1]
        out[i, j] = s


@ti.kernel
def init():
    for i, j in b:
        b[i, j] = ti.sin(0.05 * i) * ti.cos(0.03 * j)
        x[i, j] = 0.0


init()
A = ti.linalg.LinearOperator(laplace)


def step():
    ti.linalg.MatrixFreeCG(A, b, x, tol=1e-6, maxiter=1000)


def reset():
    init()


def result():
    return x.to_numpy()[:: 16, :: 16].astype(np.float64).ravel()
