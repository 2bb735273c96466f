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


def _in_bit_order(k):
    """k sorted as parallel_sort promises: integers by value; floats by their bits made
    sortable, so -0.0 precedes 0.0 and a NaN sorts by its sign (after +inf or before
    -inf)."""
    u = k.view(np.uint32 if k.dtype.itemsize == 4 else np.uint64)
    sign = u.dtype.type(1) << u.dtype.type(8 * k.dtype.itemsize - 1)
    if k.dtype.kind == "f":
        bits = np.where(u & sign, ~u, u | sign)
    else:
        bits = u ^ sign if k.dtype.kind == "i" else u
    return k[np.argsort(bits, kind="stable")]


def _keys(dtype, n, pattern, seed):
    rng = np.random.default_rng(seed)
    np_dtype = dtype.np_dtype
    if np_dtype.kind == "f":
        k = (rng.standard_normal(n) * 1e3).astype(np_dtype)
        specials = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-40]
        k[rng.integers(0, n, len(specials) * 3)] = np.repeat(specials, 3)[: 3 * len(specials)]
    else:
        info = np.iinfo(np_dtype)
        k = rng.integers(info.min, info.max, n, dtype=np_dtype, endpoint=True)
        k[: min(n, 2)] = [info.min, info.max][: min(n, 2)]
    if pattern == "sorted":
        k = _in_bit_order(k)
    elif pattern == "reversed":
        k = _in_bit_order(k)[::-1].copy()
    elif pattern == "two values":
        k = k[rng.integers(0, 2, n)]
    elif pattern == "all equal":
        k[:] = k[0]
    return k


_ALL_KEYS = [ti.i32, ti.u32, ti.f32, ti.i64, ti.u64, ti.f64]


@pytest.mark.cpu_only("cpu_max_num_threads chooses the CPU's sort: NumPy on the host "
                      "(one thread: in the field; two or three: halves then our merge) "
                      "or the radix passes (four and more)")
@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("dtype", _ALL_KEYS)
def test_parallel_sort_keys_only_on_each_cpu_path(arch, dtype, threads):
    ti.init(arch=arch, cpu_max_num_threads=threads)
    cases = [(n, "random") for n in (2, 3, 70001, (1 << 17) + 2)]
    cases += [((1 << 16) + 1, p) for p in ("sorted", "reversed", "two values", "all equal")]
    for n, pattern in cases:
        k = _keys(dtype, n, pattern, seed=n)
        keys = ti.field(dtype, n, offset=-3)  # the sort covers indices -3 .. n-4
        keys.from_numpy(k)
        ti.algorithms.parallel_sort(keys)
        got = keys.to_numpy()
        expected = _in_bit_order(k)
        assert got.tobytes() == expected.tobytes(), (n, pattern)


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64, ti.i64])
def test_parallel_sort_keys_only_orders_by_bits(dtype):
    # The same order on every arch and path: NaNs by their sign, -0.0 before 0.0.
    n = 70001
    k = _keys(dtype, n, "random", seed=5)
    keys = ti.field(dtype, n)
    keys.from_numpy(k)
    ti.algorithms.parallel_sort(keys)
    assert keys.to_numpy().tobytes() == _in_bit_order(k).tobytes()


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
