# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""n-body: 4096 bodies on ti.Vector.field(3, f32), all-pairs forces then a position step."""

N = 4096

pos = ti.Vector.field(3, ti.f32, shape=N)
vel = ti.Vector.field(3, ti.f32, shape=N)


@ti.kernel
def nbody(dt: ti.f32):
    for i in range(N):
        p = pos[i]
        acc = ti.Vector([0.0, 0.0, 0.0])
        for j in range(N):
            d = pos[j] - p
            r2 = d.dot(d) + 0.01
            acc += d / (r2 * ti.sqrt(r2))
        vel[i] += dt * acc
    for i in range(N):
        pos[i] += dt * vel[i]


_rng = np.random.default_rng(1)
_pos0 = _rng.random((N, 3), dtype=np.float32)


def reset():
    pos.from_numpy(_pos0)
    vel.from_numpy(np.zeros((N, 3), dtype=np.float32))


reset()


def step():
    nbody(1e-5)


def result():
    return vel.to_numpy()[::64]
