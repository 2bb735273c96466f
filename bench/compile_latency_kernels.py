# ruff: noqa: F821 - `ti` is bound by bench/compile_latency.py when it runs this file
"""The kernels of bench/compile_latency.py: small data, so that a first call is its compile
(kernels of the kinds of bench/cases, on small fields)."""

N = 4096
x = ti.field(ti.f32, shape=N)
y = ti.field(ti.f32, shape=N)
total = ti.field(ti.f32, shape=())
img = ti.field(ti.f32, shape=(64, 32))
grid = ti.field(ti.f32, shape=(64, 64))
out = ti.field(ti.f32, shape=(64, 64))
pos = ti.Vector.field(3, ti.f32, shape=256)
vel = ti.Vector.field(3, ti.f32, shape=256)
xs = ti.ndarray(ti.f32, shape=N)
ys = ti.ndarray(ti.f32, shape=N)


@ti.kernel
def saxpy(a: ti.f32, u: ti.types.ndarray(dtype=ti.f32, ndim=1),
          v: ti.types.ndarray(dtype=ti.f32, ndim=1)):
    for i in range(u.shape[0]):
        v[i] = a * u[i] + v[i]


@ti.kernel
def reduce() -> ti.f32:
    s = 0.0
    for i in x:
        s += x[i] * y[i]
    return s


@ti.kernel
def julia(t: ti.f32):
    for i, j in img:
        c = ti.Vector([-0.8, ti.cos(t) * 0.2])
        z = ti.Vector([i / 32 - 1, j / 32 - 0.5]) * 2
        k = 0
        while z.norm() < 20 and k < 50:
            z = ti.Vector([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2]) + c
            k += 1
        img[i, j] = 1 - k * 0.02


@ti.kernel
def nbody(dt: ti.f32):
    for i in pos:
        acc = ti.Vector([0.0, 0.0, 0.0])
        for j in range(256):
            d = pos[j] - pos[i]
            r2 = d.dot(d) + 1e-2
            acc += d / (r2 * ti.sqrt(r2))
        vel[i] += acc * dt


@ti.kernel
def stencil():
    for i, j in ti.ndrange((1, 63), (1, 63)):
        up, down = grid[i - 1, j], grid[i + 1, j]
        out[i, j] = 0.25 * (up + down + grid[i, j - 1] + grid[i, j + 1])


@ti.kernel
def fill(v: ti.f32):
    for i in x:
        x[i] = v * i
        y[i] = v
    for i in pos:
        pos[i] = ti.Vector([ti.sin(i * 1.0), ti.cos(i * 1.0), i * 0.01])


CALLS = [
    ("fill", lambda: fill(0.5)),
    ("saxpy", lambda: saxpy(2.0, xs, ys)),
    ("reduce", lambda: reduce()),
    ("julia", lambda: julia(0.3)),
    ("nbody", lambda: nbody(0.01)),
    ("stencil", lambda: stencil()),
]
