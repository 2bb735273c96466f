"""
A gradient check of our own: for each differentiable ti.math function, the derivative
from reverse mode (ti.ad.Tape), from forward mode (ti.ad.FwdMode) and from central
finite differences of the primal kernel must agree, on every arch.
"""

from __future__ import annotations

import numpy as np
import pytest
import taichi_xdsl as ti

# (name, f(x) in a kernel, points inside the function's domain)
FUNCTIONS = [
    ("sin", lambda x: ti.sin(x), [-1.3, 0.2, 2.1]),
    ("cos", lambda x: ti.cos(x), [-1.3, 0.2, 2.1]),
    ("tan", lambda x: ti.tan(x), [-0.9, 0.2, 1.1]),
    ("tanh", lambda x: ti.tanh(x), [-1.3, 0.2, 2.1]),
    ("exp", lambda x: ti.exp(x), [-1.3, 0.2, 2.1]),
    ("log", lambda x: ti.log(x), [0.3, 1.2, 4.0]),
    ("sqrt", lambda x: ti.sqrt(x), [0.3, 1.2, 4.0]),
    ("rsqrt", lambda x: ti.rsqrt(x), [0.3, 1.2, 4.0]),
    ("pow_const", lambda x: ti.pow(x, 2.5), [0.3, 1.2, 4.0]),
    ("pow_base", lambda x: ti.pow(1.7, x), [-1.3, 0.2, 2.1]),
    ("pow_both", lambda x: x**x, [0.3, 1.2, 2.0]),
    ("atan2_y", lambda x: ti.atan2(x, 0.7), [-1.3, 0.2, 2.1]),
    ("atan2_x", lambda x: ti.atan2(0.7, x), [-1.3, 0.2, 2.1]),
    ("abs", lambda x: abs(x), [-1.3, 0.2, 2.1]),
    ("max", lambda x: ti.max(x, 0.5), [-1.3, 0.2, 2.1]),
    ("min", lambda x: ti.min(x, 0.5), [-1.3, 0.2, 2.1]),
    ("div", lambda x: 1.5 / (x * x + 1.0), [-1.3, 0.2, 2.1]),
    ("floor", lambda x: ti.floor(x) + x, [-1.3, 0.2, 2.1]),
    ("select", lambda x: ti.select(x > 0.0, x * x, -x), [-1.3, 0.2, 2.1]),
    ("math_clamp", lambda x: ti.math.clamp(x * 2.0, -1.0, 1.0), [-1.3, 0.2, 2.1]),
    ("math_length", lambda x: ti.math.length(ti.Vector([x, 2 * x, 0.5])), [-1.3, 0.2, 2]),
    ("asin", lambda x: ti.asin(x), [-0.7, 0.2, 0.9]),
    ("acos", lambda x: ti.acos(x), [-0.7, 0.2, 0.9]),
    ("math_atan", lambda x: ti.math.atan2(x, 1.0), [-1.3, 0.2, 2.1]),
    ("math_sign_mul", lambda x: ti.math.sign(x) * x, [-1.3, 0.2, 2.1]),
    ("math_fract", lambda x: ti.math.fract(x), [-1.3, 0.2, 2.1]),
    ("math_smoothstep", lambda x: ti.math.smoothstep(-1.0, 2.0, x), [-0.7, 0.2, 1.1]),
    ("math_mix", lambda x: ti.math.mix(x, x * x, 0.3), [-1.3, 0.2, 2.1]),
    ("math_log2", lambda x: ti.math.log2(x), [0.3, 1.2, 4.0]),
]


@pytest.fixture
def arch(arch: object) -> object:
    ti.init(arch=arch, default_fp=ti.f64, offline_cache=False)
    return arch


@pytest.mark.parametrize("name,fn,points", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_reverse_forward_and_finite_differences_agree(arch, name, fn, points) -> None:
    n = len(points)
    x = ti.field(float, n, needs_grad=True, needs_dual=True)
    y = ti.field(float, n, needs_grad=True, needs_dual=True)
    loss = ti.field(float, (), needs_grad=True, needs_dual=True)

    @ti.kernel
    def apply():
        for i in x:
            y[i] = fn(x[i])

    @ti.kernel
    def total():
        for i in y:
            loss[None] += y[i]

    x0 = np.array(points)

    def primal(xv: np.ndarray) -> np.ndarray:
        x.from_numpy(xv)
        apply()
        return y.to_numpy()

    # Vulkan's GLSL.std.450 math computes in f32 even for f64 values.
    eps, rtol = (1e-3, 2e-3) if arch is ti.vulkan else (1e-6, 1e-6)
    finite = (primal(x0 + eps) - primal(x0 - eps)) / (2 * eps)

    x.from_numpy(x0)
    loss[None] = 0.0
    with ti.ad.Tape(loss=loss):
        apply()
        total()
    reverse = x.grad.to_numpy()

    forward = np.zeros(n)
    for i in range(n):
        seed = [0.0] * n
        seed[i] = 1.0
        with ti.ad.FwdMode(loss=y, param=x, seed=seed):
            apply()
        forward[i] = y.dual[i]

    np.testing.assert_allclose(reverse, finite, rtol=rtol, atol=1e-6, err_msg="reverse")
    np.testing.assert_allclose(forward, finite, rtol=rtol, atol=1e-6, err_msg="forward")
    np.testing.assert_allclose(forward, reverse, rtol=1e-6 if arch is ti.cpu else 1e-4)
