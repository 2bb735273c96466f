"""
The Julia set (Taichi's classic demo, the kernel of seed 003): one ti.Vector per
pixel, a while loop with z.norm(). Animated in a ti.GUI window where a display exists
(Escape or closing the window ends it); without one, writes julia.png.

    python examples/julia.py [out.png]
"""

import sys

import taichi_xdsl as ti

ti.init(arch=ti.cpu)

n = 320
pixels = ti.field(dtype=float, shape=(n * 2, n))


@ti.func
def complex_sqr(z):
    return ti.Vector([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2])


@ti.kernel
def paint(t: float):
    for i, j in pixels:  # parallelized over all pixels
        c = ti.Vector([-0.8, ti.cos(t) * 0.2])
        z = ti.Vector([i / n - 1, j / n - 0.5]) * 2
        iterations = 0
        while z.norm() < 20 and iterations < 50:
            z = complex_sqr(z) + c
            iterations += 1
        pixels[i, j] = 1 - iterations * 0.02


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "julia.png"
    gui = ti.GUI("Julia Set", res=(n * 2, n))
    frame = 0
    while gui.window is not None and gui.running and not gui.get_event(ti.GUI.ESCAPE):
        paint(frame * 0.03)
        gui.set_image(pixels)
        gui.show()
        frame += 1
    for frame in range(10):
        paint(frame * 0.03)
    img = pixels.to_numpy()
    print(
        f"julia: {img.shape[0]}x{img.shape[1]}, mean {img.mean():.4f}, "
        f"min {img.min():.2f}, max {img.max():.2f}"
    )
    gui.set_image(pixels)
    gui.show(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
