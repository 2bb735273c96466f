# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""
A sparse grid: 4096^2 f32 cells as a pointer SNode of 512^2 blocks of 8x8, ~5% of the
blocks active. A step is one struct-for 5-point stencil over the active cells (x -> y)
and an activate/deactivate round: every other active block is deactivated (its storage
released) and activated again (it comes back zeroed). From the second step on the
fields no longer change, so every framework's result is the same whatever the number
of steps it timed.
"""

N = 4096
B = 8
NB = N // B

x = ti.field(ti.f32)
y = ti.field(ti.f32)
ptr = ti.root.pointer(ti.ij, NB)
ptr.dense(ti.ij, B).place(x, y)


@ti.func
def chosen(bi, bj):
    inside = 0 < bi < NB - 1 and 0 < bj < NB - 1  # the stencil stays in bounds
    return inside and (bi * 7919 + bj * 104729) % 20 == 0  # ~5% of the blocks


@ti.kernel
def init():
    for i, j in ti.ndrange(N, N):
        if chosen(i // B, j // B):
            x[i, j] = (i * 3 + j) % 17 * 0.25


@ti.kernel
def stencil():
    for i, j in x:
        y[i, j] = x[i, j] + 0.2 * (
            x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1] - 4.0 * x[i, j]
        )


@ti.kernel
def release():
    for bi, bj in ptr:
        if (bi + bj) % 2 == 0:
            ti.deactivate(ptr, [bi, bj])


@ti.kernel
def reactivate():
    for bi, bj in ti.ndrange(NB, NB):
        if chosen(bi, bj) and (bi + bj) % 2 == 0:
            ti.activate(ptr, [bi, bj])


init()


def step():
    stencil()
    release()
    reactivate()


def result():
    return y.to_numpy()[::61, ::61]
