"""
Kernels that overwrite a field they read, differentiated under ti.ad.Tape: the tape keeps
what they overwrite (frontends/python/lang/tape_snapshots.py) so that their adjoints see
the values they read. Gradients against analytic answers and finite differences; Taichi
1.7 rereads the overwritten values instead (wrong gradients, e.g. 2x too large for a
square in place).
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
import taichi_xdsl as ti


@pytest.fixture
def arch(arch: object) -> object:
    """conftest.py's `arch`, initialised in f64."""
    ti.init(arch=arch, default_fp=ti.f64, offline_cache=False)
    return arch


def test_clamp_in_place(arch) -> None:
    # loss = sum(max(x, 0)^3): 3x^2 where x > 0, 0 where the clamp overwrote x.
    x = ti.field(float, 6, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def clamp():
        for i in x:
            if x[i] < 0.0:
                x[i] = 0.0

    @ti.kernel
    def cubes():
        for i in x:
            loss[None] += x[i] ** 3

    x0 = np.array([-1.5, 2.0, -0.5, 0.7, 3.0, -2.0])
    x.from_numpy(x0)
    with ti.ad.Tape(loss=loss):
        clamp()
        cubes()
    np.testing.assert_allclose(x.grad.to_numpy(), np.where(x0 > 0, 3 * x0**2, 0.0))
    # The fields end as the forward pass left them.
    np.testing.assert_allclose(x.to_numpy(), np.maximum(x0, 0))
    assert loss[None] == pytest.approx(np.sum(np.maximum(x0, 0) ** 3))


def test_square_in_place(arch) -> None:
    # x <- x^2 in place, then loss = sum(x^3) = sum(x0^6): 6 x0^5.
    x = ti.field(float, 4, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def square():
        for i in x:
            x[i] = x[i] * x[i]

    @ti.kernel
    def cubes():
        for i in x:
            loss[None] += x[i] ** 3

    x0 = np.array([0.5, -1.25, 1.5, 2.0])
    x.from_numpy(x0)
    # grad_check replays the kernels from the state before the tape and compares.
    with ti.ad.Tape(loss=loss, grad_check=[x]):
        square()
        cubes()
    np.testing.assert_allclose(x.grad.to_numpy(), 6 * x0**5, rtol=1e-12)
    np.testing.assert_allclose(x.to_numpy(), x0**2)


def test_atomic_add_of_its_own_square(arch) -> None:
    # x += x^2 (an atomic add after the read), then loss = sum(x^2): 2 y (1 + 2 x0) with
    # y = x0 + x0^2; rereading the new x would give 2 y (1 + 2 y).
    x = ti.field(float, 4, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def grow():
        for i in x:
            x[i] += x[i] ** 2

    @ti.kernel
    def squares():
        for i in x:
            loss[None] += x[i] ** 2

    x0 = np.array([0.5, -1.25, 1.5, 2.0])
    x.from_numpy(x0)
    with ti.ad.Tape(loss=loss):
        grow()
        squares()
    y = x0 + x0**2
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * y * (1 + 2 * x0), rtol=1e-12)


def test_square_twice_in_one_kernel(arch) -> None:
    # x <- (x^2)^2 through memory in one kernel, then loss = sum(x) : 4 x0^3.
    x = ti.field(float, 4, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def fourth():
        for i in x:
            x[i] = x[i] * x[i]
            x[i] = x[i] * x[i]

    @ti.kernel
    def total():
        for i in x:
            loss[None] += x[i]

    x0 = np.array([0.5, -1.25, 1.5, 2.0])
    x.from_numpy(x0)
    with ti.ad.Tape(loss=loss):
        fourth()
        total()
    np.testing.assert_allclose(x.grad.to_numpy(), 4 * x0**3, rtol=1e-12)


def test_overwrites_read_by_earlier_and_later_kernels(arch) -> None:
    # a: loss += x^2 (reads x0); x <- x^2; b: loss += 2 x (reads x0^2); x <- x^3;
    # c: loss += x (reads x0^6). d loss / d x0 = 2 x0 + 4 x0 + 6 x0^5: each kernel's
    # adjoint sees x as that kernel saw it, the backward pass rewinding the overwrites.
    x = ti.field(float, 3, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def add_power(p: ti.template(), c: float):
        for i in x:
            loss[None] += c * x[i] ** p

    @ti.kernel
    def power_in_place(p: ti.template()):
        for i in x:
            x[i] = x[i] ** p

    x0 = np.array([0.5, -1.25, 1.1])
    x.from_numpy(x0)
    with ti.ad.Tape(loss=loss):
        add_power(2, 1.0)
        power_in_place(2)
        add_power(1, 2.0)
        power_in_place(3)
        add_power(1, 1.0)
    np.testing.assert_allclose(x.grad.to_numpy(), 6 * x0 + 6 * x0**5, rtol=1e-12)
    np.testing.assert_allclose(x.to_numpy(), x0**6, rtol=1e-12)


def _boundary_program():
    """A time-stepped particle system whose boundary kernel clamps the positions of step
    t in place against both bounds and reflects the velocity (Taichi's diff_sph)."""
    pos = ti.Vector.field(3, float)
    vel = ti.Vector.field(3, float)
    ti.root.dense(ti.ijk, (2, 4, 5)).place(pos, vel)
    ti.root.lazy_grad()
    box = ti.Vector.field(3, float, shape=2)
    loss = ti.field(float, shape=(), needs_grad=True)

    @ti.kernel
    def advance(t: ti.i32):
        for b, i in ti.ndrange(2, 5):
            pos[b, t, i] = pos[b, t - 1, i] + vel[b, t - 1, i] * 0.3
            vel[b, t, i] = vel[b, t - 1, i] * 0.9

    @ti.kernel
    def boundary(t: ti.i32):
        for b, i in ti.ndrange(2, 5):
            normal = ti.Vector([0.0, 0.0, 0.0])
            for j in ti.static(range(3)):
                if pos[b, t, i][j] < box[0][j]:
                    pos[b, t, i][j] = box[0][j]
                    normal[j] += -1.0
            for j in ti.static(range(3)):
                if pos[b, t, i][j] > box[1][j]:
                    pos[b, t, i][j] = box[1][j]
                    normal[j] += 1.0
            length = normal.norm()
            if length > 1e-6:
                normal /= length
                vel[b, t, i] -= 1.5 * normal.dot(vel[b, t, i]) * normal

    @ti.kernel
    def measure(t: ti.i32):
        for b, i in ti.ndrange(2, 5):
            loss[None] += (pos[b, t, i] ** 2).sum() * (i + 1) + (vel[b, t, i] ** 3).sum()

    box.from_numpy(np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]))

    def run():
        for t in range(1, 4):
            advance(t)
            boundary(t)
        measure(3)

    return pos, vel, loss, run


def test_boundary_clamp_against_finite_differences(arch) -> None:
    pos, vel, loss, run = _boundary_program()
    rng = np.random.default_rng(1)
    p0 = rng.uniform(-0.5, 1.5, (2, 4, 5, 3))  # many particles start outside the box
    v0 = rng.uniform(-1.0, 1.0, (2, 4, 5, 3))
    pos.from_numpy(p0)
    vel.from_numpy(v0)
    with ti.ad.Tape(loss=loss):
        run()
    after = pos.to_numpy(), vel.to_numpy()
    grads = pos.grad.to_numpy()[:, 0], vel.grad.to_numpy()[:, 0]

    def loss_at(p: np.ndarray, v: np.ndarray) -> float:
        pos.from_numpy(p)
        vel.from_numpy(v)
        loss[None] = 0.0
        run()
        return loss[None]

    eps = 1e-6
    for start, grad, is_pos in ((p0, grads[0], True), (v0, grads[1], False)):
        numerical = np.zeros_like(grad)
        for idx in np.ndindex(grad.shape):
            full = (idx[0], 0, *idx[1:])
            hi, lo = start.copy(), start.copy()
            hi[full] += eps
            lo[full] -= eps
            if is_pos:
                numerical[idx] = (loss_at(hi, v0) - loss_at(lo, v0)) / (2 * eps)
            else:
                numerical[idx] = (loss_at(p0, hi) - loss_at(p0, lo)) / (2 * eps)
        np.testing.assert_allclose(grad, numerical, atol=1e-6 * np.abs(numerical).max())
    # The adjoints ran with the clamped rows swapped out and back: the fields are as the
    # forward pass left them.
    pos.from_numpy(p0)
    vel.from_numpy(v0)
    loss[None] = 0.0
    run()
    np.testing.assert_array_equal(pos.to_numpy(), after[0])
    np.testing.assert_array_equal(vel.to_numpy(), after[1])


def test_snapshots_are_freed(arch) -> None:
    # Each tape's saved values go when its adjoints have run, however many tapes run.
    x = ti.field(float, 8, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def square():
        for i in x:
            x[i] = x[i] * x[i]

    @ti.kernel
    def total():
        for i in x:
            loss[None] += x[i]

    saved: list[weakref.ref] = []
    for _ in range(30):
        x.from_numpy(np.full(8, 1.5))
        with ti.ad.Tape(loss=loss) as tape:
            square()
            total()
            (held,) = [s for snapshots in tape.snapshots.values() for s in snapshots]
            saved.append(weakref.ref(held.saved))
            del held
        assert not tape.snapshots
        np.testing.assert_allclose(x.grad.to_numpy(), np.full(8, 3.0))
    gc.collect()
    assert all(ref() is None for ref in saved)


def test_adjoint_by_hand_refuses_an_overwriting_kernel(arch) -> None:
    # Outside a tape nothing kept the overwritten values: kernel.grad() names the
    # kernel, the field and the rule rather than give a wrong gradient.
    x = ti.field(float, 4, needs_grad=True)

    @ti.kernel
    def clamp():
        for i in x:
            if x[i] < 0.0:
                x[i] = 0.0

    clamp()
    with pytest.raises(ti.TaichiRuntimeError, match=r"'clamp'.*global data access rule"):
        clamp.grad()


def test_load_after_a_carried_write_is_refused(arch) -> None:
    # x[i] squared n times by a serial loop: each iteration reads what the previous one
    # wrote, which neither the values before the launch nor after it give.
    x = ti.field(float, 4, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def repeated(n: ti.i32):
        for i in x:
            for _ in range(n):
                x[i] = x[i] * x[i]

    @ti.kernel
    def total():
        for i in x:
            loss[None] += x[i]

    with (
        pytest.raises(RuntimeError, match=r"'repeated'.*global data access rule"),
        ti.ad.Tape(loss=loss),
    ):
        repeated(2)
        total()
