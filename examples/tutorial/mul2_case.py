# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""The tutorial's bench case: x = y * 2 + x / 2 over 2^20 f32 (bench/passes.py)."""

N = 1 << 20


@ti.kernel
def scale(x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)):
    for i in range(x.shape[0]):
        x[i] = y[i] * 2.0 + x[i] * 0.5


x = ti.ndarray(ti.f32, shape=N)
y = ti.ndarray(ti.f32, shape=N)
x.from_numpy(np.zeros(N, dtype=np.float32))
y.from_numpy(np.arange(N, dtype=np.float32) % 7)


def step():
    scale(x, y)


def result():
    return x.to_numpy()[:: N // 1024]
