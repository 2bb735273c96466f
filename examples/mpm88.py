"""
MLS-MPM in 88 lines (Taichi's classic mpm88), unchanged but for the import: 8192
particles fall in a box, drawn in a ti.GUI window where a display exists (Escape or
closing the window ends it); without one, it runs [steps] frames and writes mpm88.png.

    python examples/mpm88.py [steps] [out.png]
"""

import sys

import numpy as np
import taichi_xdsl as ti

ti.init(arch=ti.cpu)

n_particles = 8192
n_grid = 128
dx = 1 / n_grid
dt = 2e-4

p_rho = 1
p_vol = (dx * 0.5) ** 2
p_mass = p_vol * p_rho
gravity = 9.8
bound = 3
E = 400

x = ti.Vector.field(2, float, n_particles)
v = ti.Vector.field(2, float, n_particles)
C = ti.Matrix.field(2, 2, float, n_particles)
J = ti.field(float, n_particles)

grid_v = ti.Vector.field(2, float, (n_grid, n_grid))
grid_m = ti.field(float, (n_grid, n_grid))


@ti.kernel
def substep():
    for i, j in grid_m:
        grid_v[i, j] = [0, 0]
        grid_m[i, j] = 0
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        stress = -dt * 4 * E * p_vol * (J[p] - 1) / dx**2
        affine = ti.Matrix([[stress, 0], [0, stress]]) + p_mass * C[p]
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
            grid_m[base + offset] += weight * p_mass
    for i, j in grid_m:
        if grid_m[i, j] > 0:
            grid_v[i, j] /= grid_m[i, j]
        grid_v[i, j].y -= dt * gravity
        if i < bound and grid_v[i, j].x < 0:
            grid_v[i, j].x = 0
        if i > n_grid - bound and grid_v[i, j].x > 0:
            grid_v[i, j].x = 0
        if j < bound and grid_v[i, j].y < 0:
            grid_v[i, j].y = 0
        if j > n_grid - bound and grid_v[i, j].y > 0:
            grid_v[i, j].y = 0
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = ti.Vector.zero(float, 2)
        new_C = ti.Matrix.zero(float, 2, 2)
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            g_v = grid_v[base + offset]
            new_v += weight * g_v
            new_C += 4 * weight * g_v.outer_product(dpos) / dx**2
        v[p] = new_v
        x[p] += dt * v[p]
        J[p] *= 1 + dt * new_C.trace()
        C[p] = new_C


@ti.kernel
def init():
    for i in range(n_particles):
        x[i] = [ti.random() * 0.4 + 0.2, ti.random() * 0.4 + 0.2]
        v[i] = [0, -1]
        J[i] = 1


def stats() -> str:
    xs, vs = x.to_numpy(), v.to_numpy()
    ke = 0.5 * p_mass * float((vs.astype(np.float64) ** 2).sum())
    pe = p_mass * gravity * float(xs[:, 1].astype(np.float64).sum())
    com = xs.mean(axis=0)
    return (
        f"centre of mass ({com[0]:.4f}, {com[1]:.4f}), kinetic {ke:.4e}, "
        f"potential {pe:.4e}, J in [{J.to_numpy().min():.3f}, "
        f"{J.to_numpy().max():.3f}], x in [{xs.min():.4f}, {xs.max():.4f}]"
    )


def main() -> None:
    frames = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    out = sys.argv[2] if len(sys.argv) > 2 else "mpm88.png"
    gui = ti.GUI("MPM88", res=512, background_color=0x112F41)
    init()
    print(f"step 0: {stats()}")
    if gui.window is not None:  # a display: animate until closed
        while gui.running and not gui.get_event(ti.GUI.ESCAPE):
            for _ in range(50):
                substep()
            gui.circles(x.to_numpy(), radius=1.5, color=0x068587)
            gui.show()
        return
    for frame in range(frames):
        for _ in range(50):
            substep()
        if (frame + 1) % max(1, frames // 4) == 0:
            print(f"frame {frame + 1} ({(frame + 1) * 50} substeps): {stats()}")
    gui.circles(x.to_numpy(), radius=1.5, color=0x068587)
    gui.show(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
