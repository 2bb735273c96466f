# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""The julia-set kernel of seed 003 (ti.Vector, a while loop), on a 1280x640 ndarray."""

n = 640


@ti.kernel
def paint(pixels: ti.types.ndarray(dtype=ti.f32, ndim=2), n: ti.u32, t: ti.f32):
    for i, j in pixels:  # Parallelized over all pixels
        c = ti.Vector([-0.8, ti.cos(t) * 0.2])
        z = ti.Vector([i / n - 1, j / n - 0.5]) * 2
        iterations = 0
        while z.norm() < 20 and iterations < 50:
            z = ti.Vector([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2]) + c
            iterations += 1
        pixels[i, j] = 1 - iterations * 0.02


pixels = ti.ndarray(ti.f32, shape=(n * 2, n))


def step():
    paint(pixels, n, 0.9)


def result():
    return pixels.to_numpy()[::16, ::16]
