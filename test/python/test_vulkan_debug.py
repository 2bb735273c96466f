"""
Debug checks on Vulkan (`ti.init(arch=ti.vulkan, debug=True)`): field and ndarray
indices are bounds-checked and `assert` is checked in the generated SPIR-V; the first
error is written to the error record (binding 5), the bad access is skipped, and the
host raises TaichiIndexError / TaichiAssertionError after the launch, with the CPU
backend's messages. Without debug, asserts cost nothing and are not checked.
"""

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import vulkan_available

_OK, _REASON = vulkan_available()
pytestmark = pytest.mark.skipif(not _OK, reason=f"no Vulkan device: {_REASON}")


@pytest.fixture(params=["cpu", "vulkan"])
def debug_arch(request):
    ti.init(arch=getattr(ti, request.param), debug=True, offline_cache=False)
    yield request.param
    ti.reset()


def test_field_index_out_of_bounds(debug_arch):
    x = ti.field(ti.f32, shape=(4, 8))

    @ti.kernel
    def write(i: ti.i32, j: ti.i32, v: ti.f32):
        x[i, j] = v

    write(3, 7, 2.5)
    with pytest.raises(
        ti.TaichiIndexError, match=r"index 9 out of bounds for dimension 1 of extent 8"
    ):
        write(1, 9, 1.0)
    # the first bad index is reported, and the write was skipped
    with pytest.raises(
        ti.TaichiIndexError, match=r"index 5 out of bounds for dimension 0 of extent 4"
    ):
        write(5, 9, 1.0)
    with pytest.raises(
        ti.TaichiIndexError, match=r"index -1 out of bounds for dimension 0"
    ):
        write(-1, 0, 1.0)
    expected = np.zeros((4, 8), np.float32)
    expected[3, 7] = 2.5
    np.testing.assert_array_equal(x.to_numpy(), expected)
    write(0, 0, 1.0)  # the record was cleared: later launches run normally
    assert x[0, 0] == 1.0


def test_ndarray_read_out_of_bounds_in_parallel_loop(debug_arch):
    @ti.kernel
    def shift(a: ti.types.ndarray(ndim=1), out: ti.types.ndarray(ndim=1)):
        for i in range(out.shape[0]):
            out[i] = a[i + 1]

    a = np.arange(6, dtype=np.float32)
    out = np.zeros(5, np.float32)
    shift(a, out)
    np.testing.assert_array_equal(out, a[1:])
    with pytest.raises(
        ti.TaichiIndexError, match=r"index 6 out of bounds for dimension 0 of extent 6"
    ):
        shift(a, np.zeros(6, np.float32))


def test_atomic_out_of_bounds(debug_arch):
    @ti.kernel
    def hist(keys: ti.types.ndarray(ndim=1), bins: ti.types.ndarray(ndim=1)):
        for i in keys:
            bins[keys[i]] += 1

    bins = np.zeros(4, np.int32)
    hist(np.array([0, 1, 1, 3], np.int32), bins)
    np.testing.assert_array_equal(bins, [1, 2, 0, 1])
    with pytest.raises(ti.TaichiIndexError, match=r"index 4 out of bounds .* extent 4"):
        hist(np.array([4, 0], np.int32), bins)


def test_assert_message(debug_arch):
    @ti.kernel
    def check(a: ti.types.ndarray(ndim=1), limit: ti.i32):
        for i in a:
            assert a[i] < limit, "values must stay below the limit"
            assert a[i] >= 0, "values must be non-negative"

    check(np.array([1, 2, 3], np.int32), 10)
    with pytest.raises(ti.TaichiAssertionError, match="values must stay below the limit"):
        check(np.array([1, 20, 3], np.int32), 10)
    with pytest.raises(ti.TaichiAssertionError, match="values must be non-negative"):
        check(np.array([1, -2, 3], np.int32), 10)


def test_no_checks_without_debug():
    ti.init(arch=ti.vulkan, offline_cache=False)

    @ti.kernel
    def check(a: ti.types.ndarray(ndim=1)) -> ti.i32:
        s = 0
        for i in a:
            assert a[i] < 0, "not checked without debug"
            s += a[i]
        return s

    assert check(np.array([1, 2, 3], np.int32)) == 6
    ti.reset()
