# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""A sum of 2^24 f32 into a 0-d field (memory-bound: 4 bytes an element)."""

N = 1 << 24
READ_BYTES = 4 * N
WRITE_BYTES = 0

total = ti.field(ti.f32, shape=())


@ti.kernel
def reduce(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
    total[None] = 0.0
    for i in range(x.shape[0]):
        total[None] += x[i]


x = ti.ndarray(ti.f32, shape=N)
x.from_numpy((np.arange(N) % 7).astype(np.float32) * 0.125)


def step():
    reduce(x)


def result():
    return np.array([total[None]], dtype=np.float64)


def expected():
    return np.array([x.to_numpy().astype(np.float64).sum()])
