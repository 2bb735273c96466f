"""
nd parallel loops whose rows the GPU pipeline pads to a power of two (ti-align-rows) and
whose read-only buffers it marks NonWritable: every (i, j) runs exactly once and computes
what NumPy does, bit for bit, on cpu and vulkan, for bounds that are padded (62, 63, 61
columns), already a power of two, too far from one to pad, negative and odd offsets,
and reductions and atomics inside the loop. The stencils also run with `few_groups`, where
the unrolled loop (its guarded copies loading first on Vulkan) does most of the work.
"""

from __future__ import annotations

import numpy as np
import pytest

import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def _field_from(values: np.ndarray) -> ti.Field:
    f = ti.field(ti.f32, shape=values.shape)
    f.from_numpy(values)
    return f


@pytest.mark.parametrize("capped", [False, True], ids=["groups", "few_groups"])
@pytest.mark.parametrize("n", [64, 65, 66, 67, 128, 130])
def test_stencil_over_inner_ndrange(n: int, capped: bool, request: pytest.FixtureRequest):
    if capped:  # the unrolled loop runs: its guarded copies load first on Vulkan
        request.getfixturevalue("few_groups")
    # halves and a quarter: every step exact, so a fused multiply-add rounds the same
    init = ((np.arange(n * n, dtype=np.float32).reshape(n, n) * 7) % 13) * np.float32(0.5)
    u = _field_from(init)
    v = ti.field(ti.f32, shape=(n, n))

    @ti.kernel
    def stencil():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            v[i, j] = u[i, j] + 0.25 * (
                u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
            )

    stencil()
    c = init[1:-1, 1:-1]
    around = init[:-2, 1:-1] + init[2:, 1:-1]
    around = around + init[1:-1, :-2]
    around = around + init[1:-1, 2:]
    want = np.zeros_like(init)
    want[1:-1, 1:-1] = c + np.float32(0.25) * (around - np.float32(4.0) * c)
    np.testing.assert_array_equal(v.to_numpy(), want)


@pytest.mark.parametrize(
    "bounds",
    [
        ((0, 5), (0, 62)),
        ((3, 9), (-7, 56)),  # 63 columns from -7
        ((2, 5), (-3, 4), (5, 66)),  # 61 innermost
        ((0, 4), (0, 48)),  # 48 columns: not padded
        ((1, 3), (0, 32)),  # a power of two already
    ],
)
def test_each_index_runs_once(bounds):
    shape = tuple(hi - lo for lo, hi in bounds)
    seen = ti.field(ti.i32, shape=shape)
    total = ti.field(ti.i32, shape=())
    if len(bounds) == 2:

        @ti.kernel
        def visit():
            for i, j in ti.ndrange(*bounds):
                seen[i - bounds[0][0], j - bounds[1][0]] += 1 + i * 1000 + j
                total[None] += 1

    else:

        @ti.kernel
        def visit():
            for i, j, k in ti.ndrange(*bounds):
                seen[i - bounds[0][0], j - bounds[1][0], k - bounds[2][0]] += (
                    1 + i * 10000 + j * 100 + k
                )
                total[None] += 1

    visit()
    grids = np.meshgrid(*[np.arange(lo, hi) for lo, hi in bounds], indexing="ij")
    weights = [1000, 1] if len(bounds) == 2 else [10000, 100, 1]
    want = 1 + sum(w * g for w, g in zip(weights, grids))
    np.testing.assert_array_equal(seen.to_numpy(), want.astype(np.int32))
    assert total[None] == int(np.prod(shape))


def test_reduction_over_padded_rows():
    n = 63
    init = (np.arange(40 * n, dtype=np.int32).reshape(40, n) % 17) - 8
    x = ti.field(ti.i32, shape=(40, n))
    x.from_numpy(init)
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def reduce() -> ti.i32:
        s = 0
        for i, j in ti.ndrange(40, n):
            s += x[i, j] * (j + 1)
            total[None] += x[i, j]
        return s

    assert reduce() == int((init * (np.arange(n) + 1)).sum())
    assert total[None] == int(init.sum())


def test_struct_for_over_padded_rows():
    shape = (9, 62)
    x = ti.field(ti.f32, shape=shape)
    y = ti.field(ti.f32, shape=shape)
    init = np.arange(9 * 62, dtype=np.float32).reshape(shape) * np.float32(0.25)
    x.from_numpy(init)

    @ti.kernel
    def double():
        for i, j in y:
            y[i, j] = x[i, j] * 2.0 + i - j

    double()
    i, j = np.meshgrid(np.arange(9), np.arange(62), indexing="ij")
    want = init * np.float32(2.0) + i.astype(np.float32) - j.astype(np.float32)
    np.testing.assert_array_equal(y.to_numpy(), want)


def test_ndarray_read_only_and_written():
    n = 62
    a = ti.ndarray(ti.f32, shape=(6, n))
    b = ti.ndarray(ti.f32, shape=(6, n))
    init = np.arange(6 * n, dtype=np.float32).reshape(6, n) * np.float32(1.5)
    a.from_numpy(init)

    @ti.kernel
    def shift(
        a: ti.types.ndarray(dtype=ti.f32, ndim=2), b: ti.types.ndarray(dtype=ti.f32, ndim=2)
    ):
        for i, j in ti.ndrange(6, n):
            b[i, j] = a[i, (j + 1) % n] - a[i, j]

    shift(a, b)
    np.testing.assert_array_equal(b.to_numpy(), np.roll(init, -1, axis=1) - init)

    @ti.kernel
    def in_place(a: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        for i, j in ti.ndrange(6, n):
            a[i, j] = a[i, j] * 2.0

    in_place(a)
    np.testing.assert_array_equal(a.to_numpy(), init * np.float32(2.0))


def test_initialised_sum_over_padded_rows():
    # the serial init runs in the reduction's last workgroup (ti-fuse-serial-reduction)
    # while the rows are padded (ti-align-rows): the padded columns add nothing
    n = 62
    init = (np.arange(30 * n, dtype=np.int32).reshape(30, n) % 11) - 5
    x = ti.field(ti.i32, shape=(30, n))
    x.from_numpy(init)
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def sum_rows():
        total[None] = 7
        for i, j in ti.ndrange((0, 30), (1, n)):
            total[None] += x[i, j]

    for _ in range(3):
        sum_rows()
        assert total[None] == 7 + int(init[:, 1:].sum())
