"""Reverse-mode autodiff (ti.ad): gradients against NumPy and finite differences."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import taichi_xdsl as ti


@pytest.fixture
def arch(arch: object) -> object:
    """conftest.py's `arch` (cpu, vulkan where a device is usable), initialised in f64."""
    ti.init(arch=arch, default_fp=ti.f64, offline_cache=False)
    return arch


# Vulkan's math functions (GLSL.std.450) compute in f32 even for f64 values: finite
# differences there take a larger step and compare more loosely.
def _tolerance(arch: object) -> tuple[float, float]:
    """(finite-difference step, relative tolerance) for `arch`."""
    if arch is ti.vulkan:
        return 1e-3, 2e-3
    return 1e-6, 1e-5


def _finite_difference(f, x0: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[i] = eps
        grad[i] = (f(x0 + e) - f(x0 - e)) / (2 * eps)
    return grad


def test_tape_sum_of_squares_seed_example() -> None:
    # Seed 000's example, in f32: x.grad == 2x.
    ti.init(arch=ti.cpu, offline_cache=False)
    loss = ti.field(float, (), needs_grad=True)
    x = ti.field(float, 233, needs_grad=True)

    @ti.kernel
    def compute_loss():
        for i in x:
            loss[None] += x[i] ** 2

    x.from_numpy(np.linspace(-2, 2, 233).astype(np.float32))
    with ti.ad.Tape(loss=loss):
        compute_loss()
    xs = x.to_numpy()
    assert loss[None] == pytest.approx(float((xs.astype(np.float64) ** 2).sum()), rel=1e-5)
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * xs, rtol=1e-6)
    assert loss.grad[None] == 1


def _scalar_case(arch, body_kernel, x0: np.ndarray, *extra):
    n = x0.size
    x = ti.field(float, n, needs_grad=True)
    y = ti.field(float, n, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)
    kernel = body_kernel(x, y)

    @ti.kernel
    def reduce():
        for i in y:
            loss[None] += y[i] * y[i]

    def f(xv: np.ndarray) -> float:
        x.from_numpy(xv)
        kernel(*extra)
        return float((y.to_numpy() ** 2).sum())

    x.from_numpy(x0)
    loss[None] = 0
    with ti.ad.Tape(loss=loss):
        kernel(*extra)
        reduce()
    eps, rtol = _tolerance(arch)
    np.testing.assert_allclose(
        x.grad.to_numpy(), _finite_difference(f, x0, eps), rtol=rtol, atol=1e-7
    )


def test_math_functions(arch) -> None:
    def make(x, y):
        @ti.kernel
        def k():
            for i in x:
                v = x[i]
                a = ti.sin(v) * ti.cos(2 * v) + ti.exp(v / 3) - ti.tanh(v)
                b = ti.sqrt(v * v + 1) + ti.log(v * v + 2) + ti.atan2(v, 2.0)
                c = ti.max(v, 0.1) * ti.min(v, 0.5) + abs(v) + ti.pow(v * v + 1, 1.5)
                y[i] = a * b / (c + 3) + ti.tan(v / 4) + ti.rsqrt(v * v + 1)

        return k

    _scalar_case(arch, make, np.array([0.3, -0.7, 1.3, -1.9, 0.05, 2.2]))


def test_branches(arch) -> None:
    def make(x, y):
        @ti.kernel
        def k():
            for i in x:
                s = 0.0
                if x[i] > 0:
                    s = ti.sin(x[i]) * 2
                    if x[i] > 1:
                        s = s * x[i]
                else:
                    s = ti.exp(x[i])
                y[i] = s + x[i]

        return k

    _scalar_case(arch, make, np.array([0.3, -0.5, 1.2, -1.1, 0.7, 1.9]))


def test_inner_loop_static_and_dynamic_trip_counts(arch) -> None:
    def make(x, y):
        @ti.kernel
        def k(n: ti.i32):
            for i in x:
                s = x[i]
                for j in range(3):  # static trip count, loop-carried local
                    s = s * x[i] + ti.cos(s)
                t = 0.0
                for j in range(n):  # dynamic trip count
                    t += ti.sin(s * j + x[i])
                y[i] = s + t

        return k

    _scalar_case(arch, make, np.array([0.3, -0.5, 1.2, -1.1, 0.7, 0.1]), 4)


def test_serial_loop_over_elements_and_local_reduction(arch) -> None:
    x = ti.field(float, 5, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def k():
        s = 0.0
        p = 1.0
        ti.loop_config(serialize=True)  # p carries from one iteration to the next
        for i in range(5):
            s += x[i] * x[i]
            p = p * (1 + x[i])
        loss[None] = s * p

    x0 = np.array([0.1, 0.2, -0.3, 0.4, 0.5])

    def f(xv):
        x.from_numpy(xv)
        k()
        return loss[None]

    x.from_numpy(x0)
    with ti.ad.Tape(loss=loss):
        k()
    np.testing.assert_allclose(x.grad.to_numpy(), _finite_difference(f, x0), rtol=1e-6)


def test_kernel_grad_by_hand_and_clear_all_gradients(arch) -> None:
    x = ti.field(float, 4, needs_grad=True)
    y = ti.field(float, 4, needs_grad=True)

    @ti.kernel
    def k(a: ti.f64):
        for i in x:
            y[i] = a * x[i] * x[i]

    x.from_numpy(np.arange(4.0))
    k(3.0)
    y.grad.fill(1.0)
    k.grad(3.0)
    np.testing.assert_allclose(x.grad.to_numpy(), 6 * np.arange(4.0))
    # The store's adjoint consumed y.grad (as Taichi's): a second run adds nothing.
    assert not y.grad.to_numpy().any()
    y.grad.fill(1.0)
    k.grad(3.0)  # adjoints accumulate into x.grad
    np.testing.assert_allclose(x.grad.to_numpy(), 12 * np.arange(4.0))
    ti.ad.clear_all_gradients()
    assert not x.grad.to_numpy().any() and not y.grad.to_numpy().any()


def test_vector_field_gradients(arch) -> None:
    vector = getattr(ti, "Vector", None)
    if vector is None:  # not re-exported yet: the frontend's own
        from taichi_xdsl.frontends.python.lang.matrix import Vector as vector
    v = vector.field(3, float, 4, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def k():
        for i in v:
            loss[None] += v[i].dot(v[i]) * ti.sin(v[i][0])

    v0 = np.linspace(-1, 1, 12).reshape(4, 3)

    def f(vv):
        v.from_numpy(vv)
        loss[None] = 0
        k()
        return loss[None]

    v.from_numpy(v0)
    loss[None] = 0
    with ti.ad.Tape(loss=loss):
        k()
    eps, rtol = _tolerance(arch)
    np.testing.assert_allclose(v.grad.to_numpy(), _finite_difference(f, v0, eps), rtol=rtol)


def test_fields_placed_with_snodes_and_template_kernels(arch) -> None:
    a = ti.field(float, needs_grad=True)
    b = ti.field(float, needs_grad=True)
    ti.root.dense(ti.i, 3).place(a, a.grad)
    ti.root.dense(ti.i, 3).place(b)
    ti.root.lazy_grad()
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def k(src: ti.template()):
        for i in src:
            loss[None] += 0.5 * src[i] ** 3

    a.from_numpy(np.array([1.0, 2.0, 3.0]))
    b.from_numpy(np.array([-1.0, 0.5, 2.0]))
    with ti.ad.Tape(loss=loss):
        k(a)
        k(b)
    np.testing.assert_allclose(a.grad.to_numpy(), 1.5 * a.to_numpy() ** 2)
    np.testing.assert_allclose(b.grad.to_numpy(), 1.5 * b.to_numpy() ** 2)


def test_grad_replaced_and_grad_for(arch) -> None:
    x = ti.field(float, 3, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def forward(m: ti.f64):
        for i in x:
            loss[None] += m * x[i]

    calls: list[str] = []

    @ti.ad.grad_replaced
    def step(m):
        forward(m)

    @ti.ad.grad_for(step)
    def step_grad(m):
        calls.append("grad")
        for i in range(3):
            x.grad[i] = 100.0 * m

    with ti.ad.Tape(loss=loss):
        step(2.0)
    assert calls == ["grad"]
    np.testing.assert_allclose(x.grad.to_numpy(), [200.0] * 3)


def test_validation_detects_overwrite_after_read(arch) -> None:
    # As in Taichi, Tape(validation=True) checks only under debug.
    ti.init(arch=arch, default_fp=ti.f64, offline_cache=False, debug=True)
    x = ti.field(float, 4, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def bad():
        for i in x:
            x[i] = x[i] * 2  # overwrites what it read: gradients would be wrong

    @ti.kernel
    def good():
        for i in x:
            loss[None] += x[i] * 2

    with (
        pytest.raises(ti.TaichiAssertionError, match="global data access rule"),
        ti.ad.Tape(loss=loss, validation=True),
    ):
        bad()
        good()
    with ti.ad.Tape(loss=loss, validation=True):
        good()
    np.testing.assert_allclose(x.grad.to_numpy(), [2.0] * 4)


def test_validation_without_debug_warns_and_tape_records_modes(arch) -> None:
    # Imported by name, as Taichi programs write `from taichi.lang.enums import ...`.
    from taichi_xdsl.lang.enums import AutodiffMode, SNodeGradType

    assert ti.lang.enums.AutodiffMode is AutodiffMode
    x = ti.field(float, 4, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def bad():
        for i in x:
            x[i] = x[i] * 2
            loss[None] += x[i]

    with pytest.warns(UserWarning, match="Debug mode is disabled"):
        with ti.ad.Tape(loss=loss, validation=True) as tape:
            bad()
    assert [f for f, _ in tape.calls] == [bad] and tape.modes == [AutodiffMode.NONE]
    assert not x.snode.ptr.has_adjoint_checkbit()
    assert x.snode.ptr.get_snode_grad_type() is SNodeGradType.PRIMAL
    assert x.grad.snode.ptr.get_snode_grad_type() is SNodeGradType.ADJOINT
    assert x.dual.snode.ptr.get_snode_grad_type() is SNodeGradType.DUAL

    ti.init(arch=arch, default_fp=ti.f64, offline_cache=False, debug=True)
    y = ti.field(float, 4, needs_grad=True)
    total = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def good():
        for i in y:
            total[None] += y[i]

    with ti.ad.Tape(loss=total, validation=True):
        good()
        assert good.autodiff_mode is AutodiffMode.VALIDATION
    assert good.autodiff_mode is AutodiffMode.NONE
    assert y.snode.ptr.has_adjoint_checkbit()
    np.testing.assert_allclose(y.grad.to_numpy(), [1.0] * 4)


def test_field_written_by_one_loop_and_read_by_the_next(arch) -> None:
    # Taichi's fem99: F is written by the first loop (task) and read by the second; the
    # adjoint reads F after the primal, which holds what the second loop read. Was
    # rejected as a global data access rule break.
    x = ti.field(float, 4, needs_grad=True)
    F = ti.field(float, 4, needs_grad=True)
    U = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def energy():
        for i in x:
            F[i] = x[i] * x[i]
        for i in x:
            U[None] += F[i] * F[i]

    xs = np.array([0.5, -1.0, 1.5, 2.0])
    x.from_numpy(xs)
    with ti.ad.Tape(loss=U):
        energy()
    np.testing.assert_allclose(U[None], np.sum(xs**4))
    np.testing.assert_allclose(x.grad.to_numpy(), 4 * xs**3)


def test_unsupported_constructs_raise_clear_errors(arch) -> None:
    x = ti.field(float, 4, needs_grad=True)
    y = ti.field(float, 4, needs_grad=True)

    @ti.kernel
    def with_while():
        for i in x:
            s = x[i]
            while s < 10:
                s = s * 2 + 1
            y[i] = s

    with pytest.raises(ti.TaichiCompilationError, match="while loop"):
        with_while.grad()

    @ti.kernel
    def with_break():
        for i in x:
            s = x[i]
            for j in range(4):
                s = s * x[i]
                if s > 5:
                    break
            y[i] = s

    with pytest.raises(ti.TaichiCompilationError, match="'taichi.break'"):
        with_break.grad()

    @ti.kernel
    def with_max_of_a_local():  # into a field it is differentiated; into a local not
        for i in x:
            m = 0.0
            ti.atomic_max(m, x[i])
            y[i] = m

    with pytest.raises(ti.TaichiCompilationError, match="atomic_max"):
        with_max_of_a_local.grad()

    if hasattr(ti, "random"):

        @ti.kernel
        def with_random():
            for i in x:
                y[i] = x[i] * ti.random()

        # the adjoint would replay other random numbers than the primal drew; Taichi
        # raises a RuntimeError naming its RandStmt
        with pytest.raises(ti.TaichiCompilationError, match="RandStmt not supported"):
            with_random.grad()
        with pytest.raises(RuntimeError, match="RandStmt not supported"):
            with_random.grad()


def test_needs_grad_needs_float_and_tape_needs_grad_loss() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    with pytest.raises(RuntimeError, match="i32 is not supported for field"):
        ti.field(ti.i32, 4, needs_grad=True)
    with pytest.raises(RuntimeError, match="i32 is not supported for ndarray"):
        ti.ndarray(ti.i32, 4, needs_grad=True)
    plain = ti.field(float, ())
    with pytest.raises(ti.TaichiError, match="needs_grad"):
        ti.ad.Tape(loss=plain)
    assert not plain.grad.placed


def test_integer_index_locals_and_casts(arch) -> None:
    x = ti.field(float, 6, needs_grad=True)
    y = ti.field(float, 3, needs_grad=True)

    @ti.kernel
    def k():
        for i in y:
            k_ = i * 2
            acc = 0.0
            for j in range(2):
                acc += ti.cast(ti.cast(x[k_ + j], ti.f32), ti.f64) * (j + 1.5)
                k_ = k_ + 0
            y[i] = acc * acc

    x0 = np.linspace(0.1, 1.1, 6)
    x.from_numpy(x0)
    k()
    y.grad.fill(1.0)
    k.grad()
    xs = x0.astype(np.float32).astype(np.float64)
    expect = np.zeros(6)
    for i in range(3):
        acc = xs[2 * i] * 1.5 + xs[2 * i + 1] * 2.5
        expect[2 * i] = 2 * acc * 1.5
        expect[2 * i + 1] = 2 * acc * 2.5
    np.testing.assert_allclose(x.grad.to_numpy(), expect, rtol=1e-6)
    assert math.isfinite(y[0])


def test_ndarray_gradients(arch) -> None:
    x = ti.ndarray(float, 5, needs_grad=True)
    y = ti.ndarray(float, 5, needs_grad=True)
    plain = ti.ndarray(float, 5)
    assert plain.grad is None

    @ti.kernel
    def k(a: ti.types.ndarray(), b: ti.types.ndarray(), c: ti.types.ndarray()):
        for i in range(a.shape[0]):
            b[i] = ti.exp(a[i]) * c[i]

    x.from_numpy(np.linspace(-1, 1, 5))
    plain.from_numpy(np.arange(5.0))
    k(x, y, plain)
    y.grad.fill(1.0)
    k.grad(x, y, plain)
    np.testing.assert_allclose(x.grad.to_numpy(), np.exp(x.to_numpy()) * np.arange(5.0))


def test_stop_grad(arch) -> None:
    x = ti.field(float, 3, needs_grad=True)
    w = ti.field(float, 3, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def k():
        ti.stop_grad(w)
        for i in x:
            loss[None] += w[i] * x[i]

    x.from_numpy(np.array([1.0, 2.0, 3.0]))
    w.from_numpy(np.array([4.0, 5.0, 6.0]))
    with ti.ad.Tape(loss=loss):
        k()
    np.testing.assert_allclose(x.grad.to_numpy(), [4.0, 5.0, 6.0])
    assert not w.grad.to_numpy().any()


def test_kernel_level_values_and_local_reductions(arch) -> None:
    # `a` is computed once per kernel and used by every iteration (its adjoint is a
    # global temporary updated atomically); `s` is a local reduced by a parallel loop.
    x = ti.field(float, 64, needs_grad=True)
    w = ti.field(float, (), needs_grad=True)
    y = ti.field(float, 64, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def scale():
        a = w[None] * 2
        for i in x:
            y[i] = a * x[i]

    @ti.kernel
    def norm():
        s = 0.0
        for i in y:
            s += y[i] ** 2
        loss[None] = ti.sqrt(s)

    xs = np.linspace(0, 1, 64)
    x.from_numpy(xs)
    w[None] = 0.7
    with ti.ad.Tape(loss=loss):
        scale()
        norm()
    ys = 1.4 * xs
    total = np.sqrt((ys**2).sum())
    assert loss[None] == pytest.approx(total)
    np.testing.assert_allclose(x.grad.to_numpy(), ys / total * 1.4, atol=1e-12)
    assert w.grad[None] == pytest.approx((ys / total * 2 * xs).sum())


def test_overwritten_loss_takes_the_last_stores_gradient(arch) -> None:
    # Regression: each kernel's `loss[None] = c * x[None]` overwrites the loss, so only
    # the last store reaches it; the adjoints of the earlier stores must see a zero
    # loss.grad (we gave 1 + 2 + 4 = 7 instead of 4, Taichi's test_ad_set_loss_grad).
    x = ti.field(float, (), needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def store_scaled(c: ti.f64, src: ti.template(), dst: ti.template()):
        dst[None] = c * src[None]

    x[None] = 1.0
    with ti.ad.Tape(loss=loss):
        store_scaled(1.0, x, loss)
        store_scaled(2.0, x, loss)
        store_scaled(4.0, x, loss)
    assert loss[None] == 4.0
    assert x.grad[None] == 4.0
    assert loss.grad[None] == 0.0  # consumed by the first-recorded store's adjoint


def test_ndarray_annotated_needs_grad_false_gets_no_gradient(arch) -> None:
    # Regression: `ndarray(needs_grad=False)` makes the argument a constant to the
    # adjoint even when the ndarray passed has a gradient (we accumulated 1/3 per
    # element into it; Taichi's test_ndarray_needs_grad_false).
    n = 3

    @ti.kernel
    def k(x: ti.types.ndarray(needs_grad=False), y: ti.types.ndarray()):
        for i in range(n):
            a = 2.0
            for j in range(n):
                a += x[i] / x.shape[0]
            y[0] += a

    @ti.kernel
    def k_default(x: ti.types.ndarray(), y: ti.types.ndarray()):
        for i in range(n):
            y[0] += x[i] * 3.0

    x = ti.ndarray(float, n, needs_grad=True)
    y = ti.ndarray(float, 1, needs_grad=True)
    x.from_numpy(np.array([1.0, 2.0, 3.0]))
    k(x, y)
    y.grad.fill(1.0)
    k.grad(x, y)
    assert not x.grad.to_numpy().any()
    k_default.grad(x, y)  # the same ndarray, differentiated where not annotated
    np.testing.assert_allclose(x.grad.to_numpy(), [3.0] * n)


def test_ndarray_grad_and_dual_in_kernels(arch) -> None:
    # `x.grad[i]` of an ndarray parameter, read and written in the kernel that takes x
    # (it reaches the kernel as an argument of its own, after x's).
    n = 6

    @ti.kernel
    def k(x: ti.types.ndarray(), s: ti.types.ndarray(), scale: float):
        for i in x:
            s[None] += x.grad[i] * x[i]
            x.grad[i] = scale * i + x.grad[i]

    x = ti.ndarray(float, n, needs_grad=True)
    s = ti.ndarray(float, ())
    x.from_numpy(np.arange(n, dtype=np.float64))
    x.grad.fill(2.0)
    k(x, s, 0.5)
    assert s[None] == 2.0 * sum(range(n))
    np.testing.assert_array_equal(x.grad.to_numpy(), 0.5 * np.arange(n) + 2.0)

    plain = ti.ndarray(float, n)  # no gradient to read: an error, never a wrong value
    with pytest.raises(RuntimeError, match=r"reads x\.grad.*needs_grad=True"):
        k(plain, s, 0.5)
    with pytest.raises(RuntimeError, match="differentiate through a grad tensor"):
        k.grad(x, s, 0.5)


def test_grad_and_dual_fields_in_kernels_and_python(arch) -> None:
    # Every float field has x.grad and x.dual; place(x, x.grad) or lazy_grad() places
    # them, and kernels read and write them like any field.
    x = ti.field(float)
    y = ti.field(float)
    ti.root.dense(ti.i, 4).place(x, x.grad, y)
    ti.root.lazy_grad()
    ti.root.lazy_dual()
    assert y.grad.placed and x.dual.placed and y.dual.placed

    @ti.kernel
    def scale_grads(c: ti.f64):
        for i in x:
            x.grad[i] = c * y.grad[i] + x.dual[i]

    for i in range(4):
        y.grad[i] = i + 1.0
        x.dual[i] = 0.5
    scale_grads(2.0)
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * np.arange(1.0, 5.0) + 0.5)
    ti.ad.clear_all_gradients()
    assert not x.grad.to_numpy().any() and not y.grad.to_numpy().any()

    v = ti.Vector.field(3, float, shape=2, needs_grad=True, needs_dual=True)
    m = ti.Matrix.field(2, 2, float, shape=2, needs_dual=True)
    assert v.grad.placed and v.dual.placed and m.dual.placed and not m.grad.placed
    assert v.grad.to_numpy().shape == (2, 3) and m.dual.to_numpy().shape == (2, 2, 2)


def test_needs_grad_companions_must_be_placed(arch) -> None:
    a = ti.field(float, needs_grad=True)
    ti.root.dense(ti.i, 2).place(a)

    @ti.kernel
    def touch():
        a[0] = 1.0

    not_placed = r"needs_grad=True.*grad field\(s\) are not placed"
    with pytest.raises(RuntimeError, match=not_placed):
        touch()
    ti.root.lazy_grad()
    touch()
    assert a[0] == 1.0 and a.grad.placed
    b = ti.field(float)  # never placed: no kernel may run (Taichi's materialize check)
    with pytest.raises(RuntimeError, match=r"These field\(s\) are not placed"):
        touch.grad()
    ti.root.dense(ti.i, 3).place(b)
    touch.grad()


def test_lambda_called_in_a_kernel_is_differentiated(arch) -> None:
    # Taichi traces a Python lambda called with Taichi values; we inline it as a ti.func.
    x = ti.field(float, 3, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)
    fns = [
        lambda t: ti.sin(t) * t,
        lambda t: t * t * t,
    ]
    ambiguous = [lambda t: t, lambda t: -t]  # one line: which one runs cannot be told

    @ti.kernel
    def k(f: ti.template()):
        for i in x:
            loss[None] += f(x[i])

    x.from_numpy(np.array([0.2, -0.4, 1.1]))
    xs = x.to_numpy()
    for f, df in zip(fns, [lambda t: np.cos(t) * t + np.sin(t), lambda t: 3 * t * t]):
        with ti.ad.Tape(loss=loss):
            k(f)
        np.testing.assert_allclose(x.grad.to_numpy(), df(xs), rtol=1e-5)
    with pytest.raises(ti.TaichiSyntaxError, match="cannot find this lambda"):
        k(ambiguous[1])


def test_forward_mode_through_while_loops_branches_and_locals(arch) -> None:
    x = ti.field(float, 3, needs_dual=True)
    y = ti.field(float, 3, needs_dual=True)
    total = ti.field(float, (), needs_dual=True)

    @ti.kernel
    def k():
        for i in x:
            s = x[i]
            j = 0
            while j < 3:  # reverse mode rejects while loops; forward mode needs nothing
                s = s * x[i] + ti.sin(s)
                j += 1
            if x[i] > 0.5:
                s = s * 2
            y[i] = s
            total[None] += s

    def f(xs: np.ndarray) -> np.ndarray:
        out = []
        for xv in xs:
            s = xv
            for _ in range(3):
                s = s * xv + np.sin(s)
            out.append(2 * s if xv > 0.5 else s)
        return np.array(out)

    x0 = np.array([0.3, 0.6, 0.9])
    x.from_numpy(x0)
    with ti.ad.FwdMode(loss=[y, total], param=x, seed=[1.0, 1.0, 1.0]):
        k()
    np.testing.assert_allclose(y.to_numpy(), f(x0), rtol=1e-6)  # the primal ran too
    expect = (f(x0 + 1e-6) - f(x0 - 1e-6)) / 2e-6
    eps, rtol = _tolerance(arch)
    np.testing.assert_allclose(y.dual.to_numpy(), expect, rtol=rtol)
    assert total.dual[None] == pytest.approx(expect.sum(), rel=rtol)
    assert not x.dual.to_numpy().any()  # the seed is cleared on exit
    k()  # outside FwdMode: the primal alone, the duals untouched
    np.testing.assert_allclose(y.dual.to_numpy(), expect, rtol=rtol)

    with pytest.raises(RuntimeError, match="seed"):
        with ti.ad.FwdMode(loss=y, param=x):
            k()


def test_tape_starts_the_loss_from_zero(arch) -> None:
    # Regression: a second Tape over `p[None] += ...` accumulated onto the first run's
    # loss (300 instead of 150; Taichi's Tape zeroes the loss on entry,
    # test_ad_multiple_tapes), for field and ndarray losses alike.
    a = ti.ndarray(ti.math.vec2, shape=10, needs_grad=True)
    p = ti.ndarray(float, shape=(), needs_grad=True)
    q = ti.field(float, shape=(), needs_grad=True)

    @ti.kernel
    def compute_sum(a: ti.types.ndarray(), p: ti.types.ndarray()):
        for i in a:
            p[None] += a[i][0] * 2 + a[i][1] * 3
            q[None] += a[i][0]

    a.from_numpy(np.full((10, 2), 3.0))
    for _ in range(2):
        a.grad.fill(0)
        with ti.ad.Tape(loss=p):
            compute_sum(a, p)
        assert p[None] == 150.0
        np.testing.assert_allclose(a.grad.to_numpy(), np.tile([2.0, 3.0], (10, 1)))
    for _ in range(2):
        with ti.ad.Tape(loss=q):
            compute_sum(a, p)
        assert q[None] == 30.0


def test_kernel_may_write_what_it_read_when_the_adjoint_needs_none_of_it(arch) -> None:
    # x[k, i + 1] = x[k, i] * 2 and a dynamic matrix index (a select over the loaded
    # components) read values the adjoint never needs: no global-data-access error,
    # and the gradients of Taichi's test_loop_grad / test_matrix_non_constant_index.
    n, m = 4, 5
    x = ti.field(float, (n, m), needs_grad=True)

    @ti.kernel
    def doubling():
        for k in range(n):
            for i in range(m - 1):
                x[k, i + 1] = x[k, i] * 2

    for k in range(n):
        x[k, 0] = k
    doubling()
    for k in range(n):
        x.grad[k, m - 1] = 1
    doubling.grad()
    expect = np.zeros((n, m))
    expect[:, 0] = 2 ** (m - 1)  # each store's adjoint zeroed what it consumed
    np.testing.assert_allclose(x.grad.to_numpy(), expect)

    a = ti.Matrix.field(2, 2, float, 3, needs_grad=True)
    b = ti.Matrix.field(2, 2, float, 3, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def dynamic_index():
        for i in range(3):
            for j, k in ti.ndrange(2, 2):
                a[i][j, k] = (j + 1) * (k + 1) * b[i][j, k]
                loss[None] += a[i][j, k]

    loss.grad[None] = 1.0
    dynamic_index.grad()
    expect_b = np.tile([[1.0, 2.0], [2.0, 4.0]], (3, 1, 1))
    np.testing.assert_allclose(b.grad.to_numpy(), expect_b)


def test_stop_grad_holds_in_its_scope_only(arch) -> None:
    # Regression: ti.stop_grad(x) in one loop stopped x's gradient in the whole kernel
    # (x.grad was 0, not 2x; Taichi's test_stop_grad2): it holds in its block only.
    x = ti.field(float, 8, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def k():
        for i in range(8):
            ti.stop_grad(x)
            loss[None] += x[i] ** 2
        for i in range(8):
            loss[None] += x[i] ** 2

    @ti.kernel
    def k_everywhere():
        ti.stop_grad(x)
        for i in range(8):
            loss[None] += x[i] ** 2

    x.from_numpy(np.arange(8.0))
    with ti.ad.Tape(loss=loss):
        k()
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * np.arange(8.0))
    with ti.ad.Tape(loss=loss):
        k_everywhere()
    assert not x.grad.to_numpy().any()


def test_validation_sees_vector_field_accesses(arch) -> None:
    # As in Taichi, Tape(validation=True) checks only under debug.
    ti.init(arch=arch, default_fp=ti.f64, offline_cache=False, debug=True)
    # Regression: Tape(validation=True) looked at scalar accesses only, so a kernel
    # overwriting a Vector field it read went unchecked (Taichi's test_gdar_mpm).
    x = ti.Vector.field(2, float, shape=(3, 4), needs_grad=True)
    v = ti.Vector.field(2, float, shape=(3, 4), needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def step(f: ti.i32):
        for p in range(4):
            v[f, p] = x[f, p] * 2
            x[f + 1, p] = x[f, p] + 0.1 * v[f, p]

    with (
        pytest.raises(ti.TaichiAssertionError, match="global data access rule"),
        ti.ad.Tape(loss=loss, validation=True),
    ):
        step(0)


def test_old_call_form_of_vector_components_and_diag_in_kernels(arch) -> None:
    # `v(0)` is Taichi's old spelling of `v[0]`; ti.Matrix.diag takes a kernel value.
    out = ti.field(float, 3)

    @ti.kernel
    def k(a: ti.f64):
        d = ti.Vector([a, 2 * a]) ** 2
        m = ti.Matrix.diag(dim=2, val=a) + ti.Matrix.diag(2, 1.0)
        out[0] = d(0) + d(1)
        out[1] = m(0, 0) + m(1, 1)
        out[2] = m[0, 1]

    k(1.5)
    np.testing.assert_allclose(out.to_numpy(), [1.5**2 * 5, 5.0, 0.0])


@pytest.mark.vulkan_only("Mesa's lavapipe caps the loop iterations of a shader")
def test_serial_loops_past_65535_iterations(arch) -> None:
    # Taichi's test_large_for_loops_* gave 1300300 instead of 1e7 on Vulkan: Mesa's
    # llvmpipe (lavapipe) ends a loop of a shader invocation after 65535 iterations,
    # silently. On such a device each serial loop is checked, after it, to have reached
    # its bound (convert-taichi-to-spirv{check_loop_exits=true}): an error, never a
    # wrong result. Other devices run the loop whole.
    from taichi_xdsl.lowering.convert_taichi_to_spirv import LOOP_CUT_SHORT
    from taichi_xdsl.targets.vulkan.device import list_devices

    total = ti.field(ti.i32, ())

    @ti.kernel
    def count(n: ti.i32):
        ti.loop_config(serialize=True)
        for _ in range(n):
            total[None] += 1

    @ti.kernel
    def nested(n: ti.i32):  # one invocation: its loops share the driver's one budget
        ti.loop_config(serialize=True)
        for i in range(n):
            for j in range(n):
                total[None] += 1

    count(60_000)  # under the limit: no error
    assert total[None] == 60_000
    total[None] = 0
    nested(250)  # 62,750 back edges in all
    assert total[None] == 250 * 250
    total[None] = 0
    if all(d.device_type == "cpu" for d in list_devices()):
        with pytest.raises(ti.TaichiAssertionError, match=re.escape(LOOP_CUT_SHORT)):
            count(100_000)
        with pytest.raises(ti.TaichiAssertionError, match=re.escape(LOOP_CUT_SHORT)):
            nested(260)  # each loop under 65535, together past it
    else:
        count(100_000)
        nested(260)
        assert total[None] == 100_000 + 260 * 260


def test_ndarray_grad_inside_a_func_is_a_clear_error(arch) -> None:
    # Only the kernel's own body may name an ndarray parameter's gradient (kernel.py
    # finds those names before compiling); a ti.func's parameter is refused clearly.
    a = ti.ndarray(ti.f32, shape=4, needs_grad=True)
    b = ti.ndarray(ti.f32, shape=(), needs_grad=True)

    @ti.func
    def grad_of(x: ti.template(), i: int) -> float:
        return x.grad[i]

    @ti.kernel
    def k(x: ti.types.ndarray(), y: ti.types.ndarray()):
        for i in x:
            y[None] += grad_of(x, i)

    with pytest.raises(ti.TaichiSyntaxError, match="'.grad' of an ndarray is supported only"):
        k(a, b)


def test_block_local_is_a_checked_hint(arch) -> None:
    # ti.block_local(a, b): Taichi's shared-memory hint (applied on CUDA only), here the
    # same values as without it, in the primal and in forward mode.
    n, m = 8, 3
    a = ti.field(float, n, needs_dual=True)
    b = ti.field(float, 2 * n, needs_dual=True)
    f = ti.field(float, (n - m, n), needs_dual=True)

    @ti.kernel
    def k():
        ti.block_local(a, b)
        for i in range(n - m):
            for col in range(n):
                w = 1.0
                for j in range(m):
                    w *= a[i + j]
                s = 0.0
                for j in range(2 * m):
                    s += w + b[2 * i + j]
                f[i, col] = s

    a.fill(2.0)
    b.from_numpy(np.arange(2 * n, dtype=np.float64))
    with ti.ad.FwdMode(loss=f, param=a, seed=[1.0] * n):
        k()
    rows = np.arange(n - m)[:, None]
    np.testing.assert_allclose(f.to_numpy(), 6 * 8.0 + (4 * rows + 5) * 3 + 0 * np.arange(n))
    np.testing.assert_allclose(f.dual.to_numpy(), np.full((n - m, n), 6 * 3 * 4.0))

    @ti.kernel
    def not_a_field(x: float):
        ti.block_local(x)

    with pytest.raises(ti.TaichiSyntaxError, match=r"block_local\(\*fields\) takes fields"):
        not_a_field(1.0)
    with pytest.raises(ti.TaichiError, match="only be used inside a kernel"):
        ti.block_local(a)


def test_matrix_field_members_placed_with_get_scalar_field(arch) -> None:
    # Members placed together are the field; placed apart with different shapes they
    # are Taichi's materialize error; apart with one shape (dense), the field too.
    a = ti.Matrix.field(2, 2, float)
    ti.root.dense(ti.i, 3).place(*(a.get_scalar_field(i, j) for i in range(2) for j in range(2)))

    @ti.kernel
    def k():
        for n in a:
            a[n] = ti.Matrix([[n, 1.0], [2.0, n * n]])

    k()
    assert a.shape == (3,)
    np.testing.assert_array_equal(a.to_numpy()[2], [[2.0, 1.0], [2.0, 4.0]])
    with pytest.raises(ti.TaichiError, match=r"get_scalar_field\(2, 0\)"):
        a.get_scalar_field(2, 0)

    ti.init(arch=arch, default_fp=ti.f64, offline_cache=False)
    b = ti.Vector.field(2, float)
    ti.root.dense(ti.i, 4).place(b.get_scalar_field(0))
    ti.root.dense(ti.i, 5).place(b.get_scalar_field(1))

    @ti.kernel
    def nothing():
        pass

    with pytest.raises(RuntimeError, match="Members of the following field have different shapes"):
        nothing()

    ti.init(arch=arch, default_fp=ti.f64, offline_cache=False)
    c = ti.Vector.field(2, float)
    ti.root.dense(ti.i, 4).place(c.get_scalar_field(0))
    ti.root.dense(ti.i, 4).place(c.get_scalar_field(1))

    @ti.kernel
    def fill_c():
        for n in c:
            c[n] = ti.Vector([n, -n])

    fill_c()
    assert c.shape == (4,) and c.to_numpy()[3].tolist() == [3.0, -3.0]


def test_continue_in_a_replayed_integer_loop(arch) -> None:
    # k counts the odd j of range(4): 2. y = k * x, so dy/dx = 2, not 4. The adjoint
    # replayed the loop without the `if` that only holds a `continue` (a wrong gradient).
    x = ti.field(ti.f64, shape=4, needs_grad=True)
    y = ti.field(ti.f64, shape=4, needs_grad=True)

    @ti.kernel
    def count_odd():
        for i in x:
            k = 0
            for j in range(4):
                if j % 2 == 0:
                    continue
                k += 1
            y[i] = k * x[i]

    x.from_numpy(np.ones(4))
    count_odd()
    np.testing.assert_allclose(y.to_numpy(), 2.0)
    y.grad.from_numpy(np.ones(4))
    count_odd.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), 2.0)


def test_break_in_a_replayed_integer_loop(arch) -> None:
    # k counts j of range(8) until j == 3 breaks: 3. y = k * x, so dy/dx = 3, not 8.
    x = ti.field(ti.f64, shape=4, needs_grad=True)
    y = ti.field(ti.f64, shape=4, needs_grad=True)

    @ti.kernel
    def count_until_three():
        for i in x:
            k = 0
            for j in range(8):
                if j == 3:
                    break
                k += 1
            y[i] = k * x[i]

    x.from_numpy(np.ones(4))
    count_until_three()
    np.testing.assert_allclose(y.to_numpy(), 3.0)
    y.grad.from_numpy(np.ones(4))
    count_until_three.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), 3.0)


def test_field_stored_then_read_in_one_iteration_divided_by_a_constant(arch) -> None:
    # Taichi's diff_sph compute_loss: d[b] is stored, then read in the same iteration and
    # divided by a constant. The quotient's adjoint needs only its divisor, so the load
    # of d is not replayed: was rejected as a global data access rule break.
    x = ti.field(float, 4, needs_grad=True)
    d = ti.field(float, 4, needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def compute_loss():
        for b in range(4):
            d[b] = ti.sqrt(x[b] * x[b] + 1.0)
            loss[None] += (x[b] + 0.2 * d[b]) / 4

    xs = np.array([0.5, -1.0, 1.5, 2.0])
    x.from_numpy(xs)
    with ti.ad.Tape(loss=loss):
        compute_loss()
    np.testing.assert_allclose(loss[None], np.sum(xs + 0.2 * np.sqrt(xs**2 + 1)) / 4, rtol=1e-5)
    np.testing.assert_allclose(
        x.grad.to_numpy(), (1 + 0.2 * xs / np.sqrt(xs**2 + 1)) / 4, rtol=1e-5
    )


@pytest.mark.parametrize("op", ["max", "min"])
def test_atomic_extremum_gradient_reaches_the_winner(arch, op: str) -> None:
    # Taichi's diff_sph takes the min distance and the max height of its particles with
    # ti.atomic_min / ti.atomic_max: only the winning value receives the gradient.
    x = ti.field(float, 6, needs_grad=True)
    y = ti.field(float, (), needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def init():
        y[None] = -1e9 if ti.static(op == "max") else 1e9

    @ti.kernel
    def extremum():
        for i in x:
            if ti.static(op == "max"):
                ti.atomic_max(y[None], x[i] * 2.0)
            else:
                ti.atomic_min(y[None], x[i] * 2.0)

    @ti.kernel
    def compute_loss():
        loss[None] = 3.0 * y[None]

    xs = np.array([0.5, -1.0, 2.5, 2.0, -3.0, 1.0])
    x.from_numpy(xs)
    with ti.ad.Tape(loss=loss):
        init()
        extremum()
        compute_loss()
    winner = int(np.argmax(xs) if op == "max" else np.argmin(xs))
    assert loss[None] == pytest.approx(6.0 * xs[winner])
    want = np.zeros(6)
    want[winner] = 6.0
    np.testing.assert_allclose(x.grad.to_numpy(), want)


@pytest.mark.parametrize("op", ["max", "min"])
def test_atomic_extremum_ties_share_one_gradient(arch, op: str) -> None:
    # Regression: values tied for the extremum each received the whole gradient, so
    # d loss / d a was k times too large for k ties (16x in Taichi's diff_sph, whose
    # particles of one layer move alike). Here x = a * c with c tied at its extremum in
    # two elements and over two launches: d max(a * c) / d a = max(c), once.
    c = ti.field(float, 4)
    a = ti.field(float, (), needs_grad=True)
    y = ti.field(float, (), needs_grad=True)
    loss = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def init():
        y[None] = -1e9 if ti.static(op == "max") else 1e9

    @ti.kernel
    def extremum():
        for i in c:
            if ti.static(op == "max"):
                ti.atomic_max(y[None], a[None] * c[i])
            else:
                ti.atomic_min(y[None], a[None] * c[i])

    @ti.kernel
    def compute_loss():
        loss[None] = 3.0 * y[None]

    cs = np.array([1.0, 2.0, 2.0, 1.5]) * (1.0 if op == "max" else -1.0)
    c.from_numpy(cs)
    a[None] = 1.5
    with ti.ad.Tape(loss=loss):
        init()
        extremum()
        extremum()
        compute_loss()
    assert a.grad[None] == pytest.approx(3.0 * (cs.max() if op == "max" else cs.min()))
