"""
ti.ndarray residency: on Vulkan an Ndarray lives on the device between launches and the
host array is a mirror kept consistent by Python-scope access (frontends/python/lang/ndarray.py,
targets/vulkan/backend.py DeviceNdarray); on the CPU kernels use the host array. Either
way: host writes are seen by the next launch, kernel writes by the next host read, and a
plain NumPy array argument is updated in place by every launch.
"""

from __future__ import annotations

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")

N = 1000


@ti.kernel
def axpy(a: ti.f32, x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)):  # fmt: skip
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@ti.kernel
def total(x: ti.types.ndarray(dtype=ti.f32, ndim=1)) -> ti.f32:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def make() -> tuple[ti.Ndarray, ti.Ndarray]:
    x = ti.ndarray(ti.f32, shape=N)
    y = ti.ndarray(ti.f32, shape=N)
    x.from_numpy(np.arange(N, dtype=np.float32))
    y.fill(1.0)
    return x, y


def test_kernel_writes_seen_by_host_reads(arch) -> None:
    x, y = make()
    axpy(2.0, x, y)
    np.testing.assert_array_equal(y.to_numpy(), 2 * np.arange(N) + 1)
    assert y[7] == 15.0
    axpy(1.0, x, y)  # a second launch after a read: the read did not stale the device
    assert y[7] == 22.0
    np.testing.assert_array_equal(y.to_numpy(), 3 * np.arange(N) + 1)


def test_host_writes_seen_by_next_launch(arch) -> None:
    x, y = make()
    axpy(1.0, x, y)
    y[5] = 100.0  # one element, after a launch: the rest keeps the kernel's values
    x.from_numpy(np.full(N, 2.0, np.float32))
    axpy(1.0, x, y)
    want = np.arange(N, dtype=np.float32) + 3
    want[5] = 102.0
    np.testing.assert_array_equal(y.to_numpy(), want)
    y.fill(0.5)
    axpy(0.0, x, y)
    np.testing.assert_array_equal(y.to_numpy(), np.full(N, 0.5, np.float32))


def test_copy_from_and_reductions(arch) -> None:
    x, y = make()
    axpy(1.0, x, y)  # y = x + 1 on the device
    x.copy_from(y)  # reads y's device values, then x is newer on the host
    assert total(x) == pytest.approx(N * (N - 1) / 2 + N)
    assert total(y) == pytest.approx(N * (N - 1) / 2 + N)


def test_numpy_arrays_updated_in_place(arch) -> None:
    x, _ = make()
    y = np.ones(N, np.float32)
    axpy(2.0, x, y)
    np.testing.assert_array_equal(y, 2 * np.arange(N) + 1)
    y[:] = 0.0  # the next launch sees the host values of a plain array
    axpy(1.0, x.to_numpy(), y)
    np.testing.assert_array_equal(y, np.arange(N))


def test_same_array_as_ndarray_and_numpy(arch) -> None:
    x, y = make()
    axpy(1.0, x, y)
    raw = y.to_numpy()  # a copy: a plain array, copied in and out
    axpy(1.0, x, raw)
    np.testing.assert_array_equal(raw, 2 * np.arange(N) + 1)
    np.testing.assert_array_equal(y.to_numpy(), np.arange(N) + 1)


@pytest.mark.vulkan_only("device residency: a launch uploads only what the host wrote")
def test_vulkan_uploads_only_host_writes(arch) -> None:
    x, y = make()
    axpy(1.0, x, y)
    copy = y.device_copy
    assert copy is not None and copy.device_newer and not copy.host_newer
    axpy(1.0, x, y)  # no host access in between: the same buffer, nothing to upload
    assert y.device_copy is copy and not copy.host_newer
    y.to_numpy()
    assert not copy.device_newer and not copy.host_newer  # a read leaves the device valid
    y[0] = 3.0
    assert copy.host_newer
    axpy(1.0, x, y)
    assert not copy.host_newer and copy.device_newer
    assert y[0] == 3.0


def test_from_numpy_after_launches(arch) -> None:
    # After a launch a Vulkan ndarray has a device copy: from_numpy of an array of its
    # dtype goes straight there (no host copy); other arrays through the host array.
    x, y = make()
    axpy(1.0, x, y)
    assert x[3] == 3.0  # host and device agree now
    src = np.full(N, 2.0, np.float32)
    x.from_numpy(src)
    src[:] = 7.0  # the caller's array, changed after the call: not seen
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 2.0))  # read back, no launch
    axpy(1.0, x, y)  # y = x0 + 1 + 2
    np.testing.assert_array_equal(y.to_numpy(), np.arange(N) + 3)
    x.from_numpy(np.arange(N, dtype=np.float64)[::-1])  # converted, via the host
    y.from_numpy(np.zeros(N, np.float32))
    axpy(2.0, x, y)
    np.testing.assert_array_equal(y.to_numpy(), 2 * np.arange(N, dtype=np.float32)[::-1])
    x.from_numpy(np.ones(N, np.float32))
    x[0] = 5.0  # one element after a device-only write: the rest stays
    axpy(1.0, x, y)
    want = 2 * np.arange(N, dtype=np.float32)[::-1] + 1
    want[0] += 4.0
    np.testing.assert_array_equal(y.to_numpy(), want)


@pytest.mark.parametrize("dtype", [ti.f32, ti.i32, ti.u32, ti.u8, ti.f64])
def test_fill_after_launches(arch, dtype) -> None:
    # After a launch, fill of a 32-bit ndarray is a fill of its device copy (Vulkan):
    # read back with and without a launch between, also for vector ndarrays.
    @ti.kernel
    def bump(a: ti.types.ndarray(), v: ti.types.ndarray()):
        for i in range(a.shape[0]):  # no atomics: u8 has none in SPIR-V
            a[i] = a[i] + 1
            v[i] = v[i] + 1

    a = ti.ndarray(dtype, shape=N)
    v = ti.Vector.ndarray(3, dtype, shape=N)
    bump(a, v)
    assert a[0] == 1 and v[0][0] == 1  # host and device agree now
    a.fill(5)
    v.fill(2)
    np.testing.assert_array_equal(a.to_numpy(), np.full(N, 5))  # no launch between
    np.testing.assert_array_equal(v.to_numpy(), np.full((N, 3), 2))
    bump(a, v)
    np.testing.assert_array_equal(a.to_numpy(), np.full(N, 6))
    np.testing.assert_array_equal(v.to_numpy(), np.full((N, 3), 3))
    a.fill(-1 if dtype in (ti.f32, ti.i32, ti.f64) else 7)
    a[3] = 9  # one element after a device fill: the rest stays filled
    bump(a, v)
    want = np.full(N, 0 if dtype in (ti.f32, ti.i32, ti.f64) else 8)
    want[3] = 10
    np.testing.assert_array_equal(a.to_numpy(), want)


@pytest.mark.vulkan_only("group counts are a Vulkan dispatch choice")
def test_dynamic_groups(arch) -> None:
    from taichi_xdsl.frontends.python.lang import program as _program
    from taichi_xdsl.targets.vulkan.backend import GPU_FILL_GROUPS
    from taichi_xdsl.utils import spirv_abi

    x, y = make()
    axpy(1.0, x, y)
    backend = _program.get_program().backend
    groups = backend.dynamic_groups(128, 1 << 24)
    limit = backend.runtime.caps.max_compute_work_group_count[0]
    if backend.runtime.caps.device_type == "cpu":
        assert groups == min(spirv_abi.DYNAMIC_GROUPS, limit)
    else:
        assert groups == min(GPU_FILL_GROUPS, (1 << 24) // 128, limit)
        assert backend.dynamic_groups(128, 10) == 1
        assert backend.dynamic_groups(128, 0) == min(GPU_FILL_GROUPS, limit)


@pytest.mark.vulkan_only("group counts are a Vulkan dispatch choice")
def test_reduction_groups_capped(arch) -> None:
    from taichi_xdsl.targets.vulkan.backend import COMBINE_GROUPS, REDUCTION_GROUPS

    x, y = make()
    assert total(x) == pytest.approx(N * (N - 1) / 2)
    axpy(1.0, x, y)
    (reduce_plan,) = [i.compiled for i in total._instances.values()]
    (axpy_plan,) = [i.compiled for i in axpy._instances.values()]
    loops = [t for t in reduce_plan.plan.tasks if t.kind == "range_for"]
    assert [t.combines for t in loops] == [True]
    assert not any(t.combines for t in axpy_plan.plan.tasks)
    pipeline = reduce_plan.pipelines[reduce_plan.plan.tasks.index(loops[0])]
    reduce_plan._largest = 1 << 24  # as after a launch over 2^24 elements
    per_workgroup = reduce_plan.backend.combines_per_workgroup
    cap = COMBINE_GROUPS if per_workgroup else REDUCTION_GROUPS
    assert 1 <= reduce_plan._groups(loops[0], pipeline) <= cap


@pytest.mark.parametrize("n, local", [(4096, 32), (12288, 64), (1 << 16, 128)])
def test_short_launches_spread_over_smaller_groups(arch, n: int, local: int) -> None:
    """A parallel loop of constant length gets workgroups small enough for SPREAD_GROUPS
    groups (convert-offload-to-spirv{spread-groups}), down to 32: n-body's 4096 bodies
    are 128 groups of 32, not 32 groups of 128. Every index is visited once either way."""
    field = ti.field(ti.i32, shape=n)

    @ti.kernel
    def visit():
        for i in range(n):
            field[i] += i + 1

    visit()
    assert (field.to_numpy() == np.arange(1, n + 1)).all()
    if arch is ti.vulkan:
        from taichi_xdsl.targets.vulkan.backend import SPREAD_GROUPS

        (compiled,) = [i.compiled for i in visit._instances.values()]
        (task,) = [t for t in compiled.plan.tasks if t.kind == "range_for"]
        pipeline = compiled.pipelines[compiled.plan.tasks.index(task)]
        assert pipeline.local_size[0] == local
        groups = compiled._groups(task, pipeline)
        assert groups == n // local and (groups >= SPREAD_GROUPS or local == 128)


@ti.kernel
def sums(x: ti.types.ndarray(dtype=ti.i32, ndim=1), n: ti.i32) -> ti.i32:
    s = 0
    for i in range(n):  # only the first n elements: partly filled subgroups
        s += x[i]
    return s


@ti.kernel
def fsum_into(x: ti.types.ndarray(dtype=ti.f32, ndim=1), out: ti.template()):
    for i in range(x.shape[0]):
        out[None] += x[i]


@pytest.mark.parametrize("n", [1, 7, 33, 1000, 100_003])
def test_reductions_exact_at_any_size(arch, n: int) -> None:
    # On Vulkan with subgroup arithmetic each workgroup adds its sum once (subgroup sums
    # through Workgroup memory): every element must count once, also where a subgroup or
    # a workgroup is partly idle.
    rng = np.random.default_rng(n)
    values = rng.integers(-1000, 1000, size=100_003, dtype=np.int32)
    x = ti.ndarray(ti.i32, shape=values.size)
    x.from_numpy(values)
    assert sums(x, n) == int(values[:n].sum())
    halves = (rng.integers(0, 64, size=n) * 0.5).astype(np.float32)  # exact in f32
    y = ti.ndarray(ti.f32, shape=n)
    y.from_numpy(halves)
    out = ti.field(ti.f32, shape=())
    out[None] = 1.5
    fsum_into(y, out)
    assert out[None] == float(halves.astype(np.float64).sum()) + 1.5


@ti.kernel
def shifted(x: ti.types.ndarray(dtype=ti.i32, ndim=1), k: ti.i32):
    for i in range(x.shape[0] - k):  # a bound computed from the arguments alone
        x[i + k] = i


def test_bounds_from_arguments(arch) -> None:
    # On Vulkan the range_for recomputes these bounds and the serial task that computed
    # them is not dispatched (convert-offload-to-spirv{fold-bounds=true}).
    x = ti.ndarray(ti.i32, shape=50)
    x.fill(-1)
    shifted(x, 3)
    assert list(x.to_numpy()) == [-1] * 3 + list(range(47))
    shifted(x, 40)
    assert list(x.to_numpy()[40:]) == list(range(10))
    if arch == ti.vulkan:
        (compiled,) = [i.compiled for i in shifted._instances.values()]
        assert [t.skip for t in compiled.plan.tasks] == [True, False]
