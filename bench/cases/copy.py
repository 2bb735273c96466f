# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""A copy kernel, y = x on 2^24-element f32 ndarrays for reference (8 bytes an element: read x, write y)."""

N = 1 << 24
READ_BYTES = 4 * N  # x
WRITE_BYTES = 4 * N  # y


@ti.kernel
def copy(
    x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)
):
    for i in range(x.shape[0]):
        y[i] = x[i]


x = ti.ndarray(ti.f32, shape=N)
y = ti.ndarray(ti.f32, shape=N)
x.from_numpy(np.arange(N, dtype=np.float32) % 1000)


def step():
    copy(x, y)


def result():
    return y.to_numpy()[:: N // 4096]
