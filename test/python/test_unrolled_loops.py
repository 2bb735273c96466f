"""
Parallel loops that the Vulkan backend runs UNROLL iterations at a time
(convert-offload-to-spirv's unroll: straight-line bodies interleaved op by op,
reductions through a thread-local slot one copy after another, Triton's block layout
with the plain loop finishing an invocation's last block): same answers as NumPy on cpu
and vulkan. `few_groups` (conftest) caps a Vulkan launch at two workgroups, so that the
unrolled loop runs at these sizes (each invocation loops over many iterations).
"""

from __future__ import annotations

import numpy as np
import pytest

import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program", "few_groups")


@pytest.mark.parametrize("n", [1, 7, 255, 256, 257, 1000, 4099])
def test_saxpy_lengths(n: int):
    x = ti.field(ti.f32, shape=n)
    y = ti.field(ti.f32, shape=n)
    xs = np.arange(n, dtype=np.float32) * np.float32(0.5)
    ys = np.arange(n, dtype=np.float32)[::-1].copy()
    x.from_numpy(xs)
    y.from_numpy(ys)

    @ti.kernel
    def saxpy(a: ti.f32):
        for i in range(n):
            y[i] = a * x[i] + y[i]

    saxpy(2.0)
    np.testing.assert_array_equal(y.to_numpy(), np.float32(2.0) * xs + ys)


@pytest.mark.parametrize("lo, hi", [(0, 3001), (5, 2048), (-300, 700)])
def test_every_index_once_with_offsets(lo: int, hi: int):
    n = hi - lo
    hits = ti.field(ti.i32, shape=n)

    @ti.kernel
    def count():
        for i in range(lo, hi):
            hits[i - lo] += 1

    count()
    count()
    np.testing.assert_array_equal(hits.to_numpy(), np.full(n, 2, np.int32))


@pytest.mark.parametrize("dtype, np_type", [(ti.i32, np.int32), (ti.f32, np.float32)])
def test_reduction_through_a_thread_local_slot(dtype, np_type):
    n = 5003
    x = ti.field(dtype, shape=n)
    total = ti.field(dtype, shape=())
    values = (np.arange(n) % 9).astype(np_type)  # small integers: exact in f32
    x.from_numpy(values)

    @ti.kernel
    def reduce():
        for i in range(n):
            total[None] += x[i]

    reduce()
    assert total[None] == values.sum()


def test_ndarray_length_read_on_the_device():
    n = 3333
    x = ti.ndarray(ti.f32, shape=n)
    y = ti.ndarray(ti.f32, shape=n)
    xs = np.linspace(0, 1, n).astype(np.float32)
    x.from_numpy(xs)

    @ti.kernel
    def double(x: ti.types.ndarray(ndim=1), y: ti.types.ndarray(ndim=1)):
        for i in range(x.shape[0]):
            y[i] = x[i] * 2.0

    double(x, y)
    np.testing.assert_array_equal(y.to_numpy(), xs * np.float32(2))
