"""
Adstacks: the locals a serial loop carries from one iteration to the next are pushed by
the adjoint's forward replay and popped by its reverse sweep (lowering/auto_diff.py),
sized by the trip count or ti.init(ad_stack_size=...). An overflow is an error on both
archs, never a wrong gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiAssertionError


def _power(n: int, base: float = 1.001):
    """y = x^n by a dynamic-bound loop that carries the product; (y, dy/dx) after grad."""
    x = ti.field(ti.f32, (), needs_grad=True)
    y = ti.field(ti.f32, (), needs_grad=True)

    @ti.kernel
    def power(m: ti.i32):
        for _ in range(1):
            r = 1.0
            for _j in range(m):
                r = r * x[None]
            y[None] = r

    x[None] = base
    power(n)
    y.grad[None] = 1.0
    power.grad(n)
    return y[None], x.grad[None]


@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_dynamic_loop_carried_product(arch, n) -> None:
    ti.init(arch=arch)
    value, grad = _power(n)
    np.testing.assert_allclose(value, 1.001**n, rtol=1e-4)
    np.testing.assert_allclose(grad, n * 1.001 ** max(n - 1, 0), rtol=1e-4)


def test_ad_stack_size_sizes_dynamic_loops(arch) -> None:
    ti.init(arch=arch, ad_stack_size=4096)
    value, grad = _power(3000, 1.0001)
    np.testing.assert_allclose(value, 1.0001**3000, rtol=1e-3)
    np.testing.assert_allclose(grad, 3000 * 1.0001**2999, rtol=1e-3)


def test_negative_ad_stack_size_is_an_error_naming_it(arch) -> None:
    # ti-auto-diff checks its options when the pass is built (utils/diagnostics.py
    # PassOptionError): the kernel's gradient is refused, with the option named.
    from taichi_xdsl.frontends.python.lang.autodiff import AutodiffError

    ti.init(arch=arch, ad_stack_size=-1)
    with pytest.raises(AutodiffError, match="ad_stack_size must be >= 0, got -1"):
        _power(3)


def test_overflow_raises_instead_of_a_wrong_gradient(arch) -> None:
    ti.init(arch=arch, ad_stack_size=16)
    _, grad = _power(16)  # exactly full: fine
    np.testing.assert_allclose(grad, 16 * 1.001**15, rtol=1e-4)
    with pytest.raises(TaichiAssertionError, match="adstack overflow.*more than 16"):
        _power(17)
    _, grad = _power(5)  # the error record was cleared: later launches are fine
    np.testing.assert_allclose(grad, 5 * 1.001**4, rtol=1e-4)


def test_constant_loop_carries_floats_and_an_int_index(arch) -> None:
    # p, q = q, p + q five times from (a, b); b[q] indexes a field by the carried int.
    ti.init(arch=arch)
    a = ti.field(ti.f32, 4, needs_grad=True)
    f = ti.field(ti.f32, 4, needs_grad=True)
    w = ti.field(ti.f32, 16, needs_grad=True)

    @ti.kernel
    def fib():
        for i in a:
            p = a[i]
            q = 1.0
            k = 1
            for _ in range(5):
                p, q = q, p + q * w[k]
                k = k + 2
            f[i] = q

    a.from_numpy(np.array([0.5, 1.0, -2.0, 3.0], np.float32))
    w.from_numpy(np.linspace(0.5, 1.5, 16).astype(np.float32))
    fib()
    f.grad.fill(1.0)
    fib.grad()

    def forward(a0: float, ws: np.ndarray) -> float:
        p, q, k = a0, 1.0, 1
        for _ in range(5):
            p, q = q, p + q * ws[k]
            k += 2
        return q

    ws = w.to_numpy().astype(np.float64)
    eps = 1e-3
    for i, a0 in enumerate(a.to_numpy().astype(np.float64)):
        numeric = (forward(a0 + eps, ws) - forward(a0 - eps, ws)) / (2 * eps)
        np.testing.assert_allclose(a.grad[i], numeric, rtol=1e-3)
    dw = np.zeros(16)
    for k in range(16):
        e = np.zeros(16)
        e[k] = eps
        dw[k] = sum(
            (forward(a0, ws + e) - forward(a0, ws - e)) / (2 * eps) for a0 in a.to_numpy()
        )
    np.testing.assert_allclose(w.grad.to_numpy(), dw, rtol=1e-3, atol=1e-3)


def test_nested_serial_loops_each_carry_a_local(arch) -> None:
    ti.init(arch=arch)
    x = ti.field(ti.f32, 3, needs_grad=True)
    y = ti.field(ti.f32, 3, needs_grad=True)

    @ti.kernel
    def k(n: ti.i32):
        for i in x:
            t = 0.0
            for j in range(n):
                s = x[i]
                for _ in range(j):
                    s = s * x[i] * 0.5
                t = t * 0.9 + s
            y[i] = t

    def forward(x0: float, n: int) -> float:
        t = 0.0
        for j in range(n):
            s = x0
            for _ in range(j):
                s = s * x0 * 0.5
            t = t * 0.9 + s
        return t

    xs = np.array([0.7, 1.1, -0.4], np.float32)
    x.from_numpy(xs)
    k(6)
    y.grad.fill(1.0)
    k.grad(6)
    eps = 1e-3
    numeric = [
        (forward(v + eps, 6) - forward(v - eps, 6)) / (2 * eps) for v in xs.astype(float)
    ]
    np.testing.assert_allclose(x.grad.to_numpy(), numeric, rtol=1e-3)


def test_serialized_outer_loop_carries_a_local(arch) -> None:
    ti.init(arch=arch)
    x = ti.field(ti.f32, 8, needs_grad=True)
    loss = ti.field(ti.f32, (), needs_grad=True)

    @ti.kernel
    def running(n: ti.i32):
        s = 0.0
        ti.loop_config(serialize=True)
        for i in range(n):
            s = s * 0.5 + x[i] * x[i]
        loss[None] = s

    xs = np.arange(1, 9, dtype=np.float32) / 4
    x.from_numpy(xs)
    running(8)
    loss.grad[None] = 1.0
    running.grad(8)
    expected = [2 * v * 0.5 ** (7 - i) for i, v in enumerate(xs.astype(float))]
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-5)


def test_carried_locals_under_branches_in_and_around_the_loop(arch) -> None:
    # s and t are carried by a dynamic loop inside an if, and updated in its branches.
    ti.init(arch=arch, default_fp=ti.f64 if arch is ti.cpu else ti.f32)
    x = ti.field(float, 3, needs_grad=True)
    y = ti.field(float, 3, needs_grad=True)

    @ti.kernel
    def k(n: ti.i32):
        for i in x:
            s = x[i]
            t = 1.0
            if x[i] > 0:
                for j in range(n):
                    if j % 2 == 0:
                        s = ti.sin(s) + t * x[i]
                    else:
                        t = t * s
            else:
                for _ in range(3):
                    s = s * s + 0.1
            y[i] = s + t

    def forward(x0: float, n: int) -> float:
        s, t = x0, 1.0
        if x0 > 0:
            for j in range(n):
                if j % 2 == 0:
                    s = np.sin(s) + t * x0
                else:
                    t = t * s
        else:
            for _ in range(3):
                s = s * s + 0.1
        return s + t

    xs = np.array([0.3, -0.4, 0.8])
    x.from_numpy(xs)
    k(5)
    y.grad.fill(1.0)
    k.grad(5)
    eps, rtol = (1e-5, 1e-6) if arch is ti.cpu else (1e-2, 2e-2)
    numeric = [(forward(v + eps, 5) - forward(v - eps, 5)) / (2 * eps) for v in xs]
    np.testing.assert_allclose(x.grad.to_numpy(), numeric, rtol=rtol)
