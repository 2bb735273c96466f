# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""A 5-point stencil on 2048^2 f32 fields over ti.ndrange (memory-bound: reads u, writes v)."""

N = 2048
READ_BYTES = 4 * N * N  # u (each point once: its neighbours come from cache)
WRITE_BYTES = 4 * N * N  # v

u = ti.field(ti.f32, shape=(N, N))
v = ti.field(ti.f32, shape=(N, N))


@ti.kernel
def stencil():
    for i, j in ti.ndrange((1, N - 1), (1, N - 1)):
        v[i, j] = u[i, j] + 0.2 * (
            u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        )


u.from_numpy((np.arange(N * N, dtype=np.float32).reshape(N, N) % 13) * 0.5)


def step():
    stencil()


def result():
    return v.to_numpy()[1:-1:32, 1:-1:32]
