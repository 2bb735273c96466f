"""
O(n^2) gravitational n-body on a ti.Vector.field(3, ti.f32, n): each particle sums the
pull of all others in an inner serial loop (the outer loop runs in parallel), then a
leapfrog (kick-drift-kick) step. Prints the relative energy drift; where a display
exists, first shows the bodies as lit spheres in a ti.ui window until it is closed.

    python examples/nbody.py [n] [steps]
"""

import sys

import numpy as np
import taichi_xdsl as ti

ti.init(arch=ti.cpu, random_seed=7)

n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
G = 1.0
eps = 0.05  # softening
dt = 1e-3

pos = ti.Vector.field(3, ti.f32, n)
vel = ti.Vector.field(3, ti.f32, n)
acc = ti.Vector.field(3, ti.f32, n)
mass = ti.field(ti.f32, n)


@ti.kernel
def init():
    for i in range(n):
        # a uniform ball of radius 1, slowly rotating about z
        p = ti.Vector([ti.random() * 2 - 1, ti.random() * 2 - 1, ti.random() * 2 - 1])
        while p.norm_sqr() > 1:
            p = ti.Vector([ti.random() * 2 - 1, ti.random() * 2 - 1, ti.random() * 2 - 1])
        pos[i] = p
        vel[i] = ti.Vector([-p.y, p.x, 0.0]) * 0.3
        mass[i] = 1.0 / n


@ti.func
def pull(pi, pj, mj):
    d = pj - pi
    r2 = d.norm_sqr() + eps * eps
    return G * mj * d / (r2 * ti.sqrt(r2))


@ti.kernel
def compute_acc():
    for i in range(n):
        a = ti.Vector([0.0, 0.0, 0.0])
        p = pos[i]
        for j in range(n):  # inner loop: serial
            if i != j:
                a += pull(p, pos[j], mass[j])
        acc[i] = a


@ti.kernel
def kick(h: ti.f32):
    for i in vel:
        vel[i] += h * acc[i]


@ti.kernel
def drift(h: ti.f32):
    for i in pos:
        pos[i] += h * vel[i]


@ti.kernel
def energy() -> ti.f64:
    e = ti.cast(0.0, ti.f64)
    for i in range(n):
        e += 0.5 * mass[i] * vel[i].norm_sqr()
        for j in range(i + 1, n):
            r = (pos[i] - pos[j]).norm_sqr() + eps * eps
            e -= G * mass[i] * mass[j] / ti.sqrt(r)
    return e


def show_window() -> bool:
    """Animate the bodies in a ti.ui window until it is closed; False (and nothing
    shown) where no display exists."""
    window = ti.ui.Window("n-body", (640, 640))
    if window._window is None:
        return False
    canvas, scene, camera = window.get_canvas(), ti.ui.Scene(), ti.ui.Camera()
    camera.position(0.0, 0.0, 4.0)
    camera.lookat(0.0, 0.0, 0.0)
    while window.running:
        for _ in range(5):
            kick(dt / 2)
            drift(dt)
            compute_acc()
            kick(dt / 2)
        scene.set_camera(camera)
        scene.ambient_light((0.2, 0.2, 0.2))
        scene.point_light(pos=(2.0, 3.0, 4.0), color=(1.0, 1.0, 1.0))
        scene.particles(pos, radius=0.02, color=(0.9, 0.7, 0.3))
        canvas.set_background_color((0.05, 0.05, 0.1))
        canvas.scene(scene)
        window.show()
    return True


def main() -> None:
    init()
    compute_acc()
    if show_window():  # start again for the measurement
        init()
        compute_acc()
    e0 = energy()
    p0 = (pos.to_numpy().astype(np.float64) * mass.to_numpy()[:, None]).sum(0)
    for _ in range(steps):
        kick(dt / 2)
        drift(dt)
        compute_acc()
        kick(dt / 2)
    e1 = energy()
    p = pos.to_numpy().astype(np.float64)
    com = (p * mass.to_numpy()[:, None]).sum(0)
    print(f"nbody: n={n}, {steps} leapfrog steps of dt={dt}")
    print(f"energy {e0:.6f} -> {e1:.6f}, relative drift {abs(e1 - e0) / abs(e0):.3e}")
    print(f"centre of mass moved {np.linalg.norm(com - p0):.3e}")


if __name__ == "__main__":
    main()
