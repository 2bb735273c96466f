"""End-to-end: ti.algorithms.parallel_sort, PrefixSumExecutor and ti.bit_cast."""

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


@pytest.mark.parametrize("dtype", [ti.i32, ti.u32, ti.f32, ti.i64, ti.u64, ti.f64])
@pytest.mark.parametrize("n", [1, 2, 255, 70001])
def test_parallel_sort_keys_and_values(dtype, n):
    rng = np.random.default_rng(n)
    if dtype in (ti.f32, ti.f64):
        k = (rng.standard_normal(n) * 1e3).astype(dtype.np_dtype)
        k[: min(n, 4)] = np.array([np.inf, -np.inf, -0.0, 1e-40], dtype.np_dtype)[: min(n, 4)]
    elif dtype in (ti.i32, ti.i64):
        bits = dtype.np_dtype.itemsize * 8
        k = rng.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1, n, dtype=dtype.np_dtype)
    else:
        k = rng.integers(0, np.iinfo(dtype.np_dtype).max, n, dtype=dtype.np_dtype)
    k[n // 2 :: 7] = k[0]  # duplicates: the sort must be stable
    keys, values = ti.field(dtype, n), ti.field(ti.i32, n)
    keys.from_numpy(k)
    values.from_numpy(np.arange(n, dtype=np.int32))
    ti.algorithms.parallel_sort(keys, values)
    order = np.argsort(k, kind="stable")
    np.testing.assert_array_equal(keys.to_numpy(), k[order])
    np.testing.assert_array_equal(values.to_numpy(), order)


@pytest.mark.parametrize("dtype", [ti.i32, ti.u32, ti.f32, ti.i64, ti.f64])
def test_parallel_sort_keys_only(dtype):
    # Without values the keys are mapped back from their sortable bits, not gathered.
    n = 5000
    k = (np.random.default_rng(7).standard_normal(n) * 1e6).astype(dtype.np_dtype)
    if dtype == ti.f32:
        k[:4] = [np.inf, -np.inf, -0.0, -1e-40]
    keys = ti.field(dtype, n)
    keys.from_numpy(k)
    ti.algorithms.parallel_sort(keys)
    np.testing.assert_array_equal(keys.to_numpy(), np.sort(k))


def test_parallel_sort_rejects_what_it_cannot_sort():
    with pytest.raises(ti.TaichiError, match="keys of i16 are not supported"):
        ti.algorithms.parallel_sort(ti.field(ti.i16, 4))
    with pytest.raises(ti.TaichiError, match="4 keys but 3 values"):
        ti.algorithms.parallel_sort(ti.field(ti.i32, 4), ti.field(ti.i32, 3))


@pytest.mark.parametrize("dtype", [ti.i32, ti.f32])
@pytest.mark.parametrize("n", [1, 256, 1000, 65537])
def test_prefix_sum(dtype, n):
    a = np.random.default_rng(n).integers(-50, 50, n).astype(dtype.np_dtype)
    arr = ti.field(dtype, n)
    arr.from_numpy(a)
    ti.algorithms.PrefixSumExecutor(n).run(arr)
    np.testing.assert_allclose(arr.to_numpy(), np.cumsum(a), rtol=1e-6)


def test_bit_cast():
    @ti.kernel
    def bits(x: ti.f32) -> ti.u32:
        return ti.bit_cast(x, ti.u32)

    @ti.kernel
    def back(x: ti.i32) -> ti.f32:
        return ti.bit_cast(x, ti.f32)

    assert bits(1.0) == 0x3F800000
    assert bits(-2.5) == int(np.array(-2.5, np.float32).view(np.uint32))
    assert back(0x40490FDB) == np.float32(np.pi)
    assert ti.bit_cast(1.0, ti.i32) == 0x3F800000

    @ti.kernel
    def bad(x: ti.f32) -> ti.i64:
        return ti.bit_cast(x, ti.i64)

    with pytest.raises(ti.TaichiTypeError, match="of one width"):
        bad(1.0)


@pytest.mark.parametrize("dtype", [ti.i32, ti.f32])
def test_prefix_sum_of_an_ndarray(dtype):
    n = 3001
    a = ti.ndarray(dtype, n)
    values = np.random.default_rng(3).integers(-50, 50, n).astype(dtype.np_dtype)
    a.from_numpy(values)
    executor = ti.algorithms.PrefixSumExecutor(n)
    executor.run(a)
    np.testing.assert_allclose(a.to_numpy(), np.cumsum(values), rtol=1e-6)
    executor.run(a)  # the executor's scratch is reused
    np.testing.assert_allclose(a.to_numpy(), np.cumsum(np.cumsum(values)), rtol=1e-5)
