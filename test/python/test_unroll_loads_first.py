"""
Guarded loop bodies whose unrolled copies the Vulkan backend runs loads first
(convert-offload-to-spirv's unroll-loads-first): each copy's guarded loads move ahead
of the other copies' bodies, never ahead of the copy's own guard or its own writes.
Same answers as NumPy on cpu and vulkan, for loads after a write of the same copy, loads
through an index the guard protects, and each element type a Function variable holds.

`few_groups` (conftest) caps a Vulkan launch at two workgroups, so that the unrolled
loop runs at these sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program", "few_groups")

N = 1000  # not a multiple of the unroll: the plain loop runs the rest


def test_a_load_after_the_copys_own_store_sees_it():
    x = ti.field(ti.f32, shape=N)
    y = ti.field(ti.f32, shape=N)
    z = ti.field(ti.f32, shape=N)
    same = ti.field(ti.i32, shape=N)  # i -> i, which the compiler cannot see
    values = (np.arange(N, dtype=np.float32) % 7) - 3
    x.from_numpy(values)
    y.from_numpy(np.full(N, -100, dtype=np.float32))
    same.from_numpy(np.arange(N, dtype=np.int32))

    @ti.kernel
    def k():
        for i in range(N):
            if x[i] > 0:
                y[same[i]] = x[i] * 2.0
                z[i] = y[i] + 1.0  # the y just written, not the -100 before

    k()
    positive = values > 0
    np.testing.assert_array_equal(y.to_numpy(), np.where(positive, values * 2, -100))
    np.testing.assert_array_equal(z.to_numpy(), np.where(positive, values * 2 + 1, 0))


def test_loads_through_an_index_the_guard_checks():
    data = ti.field(ti.i32, shape=N)
    index = ti.field(ti.i32, shape=N)
    out = ti.field(ti.i32, shape=N)
    data.from_numpy(np.arange(N, dtype=np.int32) * 3)
    rng = np.random.default_rng(7)
    picks = rng.integers(-N, N, size=N).astype(np.int32)  # half out of range
    index.from_numpy(picks)

    @ti.kernel
    def gather():
        for i in range(N):
            j = index[i]
            if 0 <= j < N:
                out[i] = data[j] + data[N - 1 - j]

    gather()
    inside = (picks >= 0) & (picks < N)
    safe = np.where(inside, picks, 0)
    want = np.where(inside, safe * 3 + (N - 1 - safe) * 3, 0)
    np.testing.assert_array_equal(out.to_numpy(), want)


def test_guarded_ndarray_bodies():
    x = ti.ndarray(ti.f32, shape=N)
    y = ti.ndarray(ti.f32, shape=N)
    values = np.linspace(-2, 2, N).astype(np.float32)
    x.from_numpy(values)
    y.from_numpy(np.ones(N, dtype=np.float32))

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(ndim=1)):
        for i in range(x.shape[0]):
            if i % 3 != 0:
                y[i] = x[i] * y[i] + x[(i + 1) % N]

    k(x, y)
    rolled = np.roll(values, -1)
    keep = np.arange(N) % 3 == 0
    want = np.where(keep, np.float32(1), values * np.float32(1) + rolled)
    np.testing.assert_array_equal(y.to_numpy(), want)


@pytest.mark.parametrize(
    "dtype, np_type",
    [(ti.i32, np.int32), (ti.u8, np.uint8), (ti.i64, np.int64), (ti.f64, np.float64)],
    ids=["i32", "u8", "i64", "f64"],
)
def test_each_element_type_loaded_ahead(dtype, np_type):
    a = ti.field(dtype, shape=N)
    b = ti.field(dtype, shape=N)
    values = (np.arange(N) % 11).astype(np_type)
    a.from_numpy(values)

    @ti.kernel
    def k():
        for i in range(N):
            if i % 4 != 1:
                b[i] = a[i] + a[(i + 5) % N]

    k()
    want = np.where(np.arange(N) % 4 != 1, values + np.roll(values, -5), 0)
    np.testing.assert_array_equal(b.to_numpy(), want.astype(values.dtype))
