# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""saxpy: y = a * x + y on 2^24-element f32 ndarrays (memory-bound: reads x and y, writes y)."""

N = 1 << 24
READ_BYTES = 2 * 4 * N  # x, y
WRITE_BYTES = 4 * N  # y


@ti.kernel
def saxpy(
    a: ti.f32,
    x: ti.types.ndarray(dtype=ti.f32, ndim=1),
    y: ti.types.ndarray(dtype=ti.f32, ndim=1),
):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


x = ti.ndarray(ti.f32, shape=N)
y = ti.ndarray(ti.f32, shape=N)
x.from_numpy(np.arange(N, dtype=np.float32) % 1000)
y.from_numpy(np.ones(N, dtype=np.float32))


def step():
    saxpy(0.5, x, y)


def reset():
    y.from_numpy(np.ones(N, dtype=np.float32))


def result():
    return y.to_numpy()[:: N // 4096]
