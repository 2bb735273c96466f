"""
ti-fold-sqrt-compare end to end: `sqrt(x) < C` compiled as `x < T` answers as IEEE's
correctly rounded square root does, on every arch, right at the boundary (where `x < C*C`
would be wrong: fl(sqrt(399.99997)) is 20).
"""

from __future__ import annotations

import numpy as np
import pytest

import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")

F32_1D = ti.types.ndarray(dtype=ti.f32, ndim=1)

ULP_AT_400 = np.float32(2.0**-15)  # the spacing of f32 in [256, 512)
F32_AROUND_400 = np.float32(
    [400 - 3 * ULP_AT_400, 400 - 2 * ULP_AT_400, 400 - ULP_AT_400, 400, 400 + ULP_AT_400]
    + [400 + 2 * ULP_AT_400, 0.0, -0.0, 1.0, 1e30, -(400 - ULP_AT_400)]
)


def test_root_below_and_above_a_bound_at_the_boundary():
    @ti.kernel
    def classify(x: F32_1D, out: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i in x:
            r = ti.sqrt(ti.abs(x[i]))
            out[i, 0] = ti.cast(r < 20.0, ti.i32)
            out[i, 1] = ti.cast(r <= 20.0, ti.i32)
            out[i, 2] = ti.cast(r > 20.0, ti.i32)
            out[i, 3] = ti.cast(r >= 20.0, ti.i32)

    out = np.zeros((len(F32_AROUND_400), 4), dtype=np.int32)
    classify(F32_AROUND_400, out)
    root = np.sqrt(np.abs(F32_AROUND_400))
    expected = np.stack([root < 20, root <= 20, root > 20, root >= 20], axis=1)
    np.testing.assert_array_equal(out, expected.astype(np.int32))


def test_norm_of_a_vector_against_a_radius():
    """`v.norm() < r` on vectors whose squared norm straddles r*r."""

    @ti.kernel
    def inside(x: F32_1D, out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in x:
            v = ti.Vector([x[i], 0.0])
            out[i] = ti.cast(v.norm() < 20.0, ti.i32)

    x = np.sqrt(np.abs(F32_AROUND_400)).astype(np.float32)
    x = np.concatenate([x, np.float32([19.999998, 20.0, 20.000002])])
    out = np.zeros(len(x), dtype=np.int32)
    inside(x, out)
    squared = x * x  # f32, as the kernel's norm squares
    np.testing.assert_array_equal(out, (np.sqrt(squared) < 20).astype(np.int32))


def test_a_quotient_keeps_its_root(arch):
    """x / sqrt(-0.0) is -inf, whose root is NaN: `< 20` must stay false (the fold took
    a quotient of non-negatives for non-negative at first, and answered true). IEEE
    semantics: fast math would let LLVM assume no inf and no NaN."""
    ti.init(arch=arch, fast_math=False)

    @ti.kernel
    def below(x: F32_1D, y: F32_1D, out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in x:
            q = ti.abs(x[i]) / ti.sqrt(y[i])
            out[i] = ti.cast(ti.sqrt(q) < 20.0, ti.i32)

    x = np.float32([1.0, 1.0, 4.0])
    y = np.float32([-0.0, 4.0, 0.0])
    out = np.full(3, -1, dtype=np.int32)
    below(x, y, out)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.sqrt(np.abs(x) / np.sqrt(y)) < 20
    np.testing.assert_array_equal(out, expected.astype(np.int32))
