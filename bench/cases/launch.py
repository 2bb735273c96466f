# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""Launch overhead: a tiny kernel (one scalar argument, one 0-d field store), 1000 calls."""

CALLS = 1000

flag = ti.field(ti.i32, shape=())


@ti.kernel
def tiny(value: ti.i32):
    flag[None] = value


def step():
    for k in range(CALLS):
        tiny(k)


def result():
    return np.array([flag[None]], dtype=np.float64)
