"""
The Vulkan runtime (targets/vulkan) on real SPIR-V shaders, compared with NumPy.

Runs on whatever device the runtime picks (lavapipe on CI; TI_VULKAN_DEVICE chooses),
once with the device's own memory mode and once forcing the staging path that discrete
GPUs use. Skipped, with the reason, without a Vulkan device or without spirv-tools.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from taichi_xdsl.targets.vulkan import VulkanRuntime, VulkanUnavailable, vulkan_available
from taichi_xdsl.targets.vulkan.memory import size_class
from vulkan_shaders import COPY_ADD_U32, LOCAL_SIZE, SAXPY, assemble, spirv_tools_missing

VULKAN_OK, VULKAN_REASON = vulkan_available()
pytestmark = pytest.mark.skipif(
    not VULKAN_OK, reason=f"Vulkan unavailable: {VULKAN_REASON}"
)


@pytest.fixture(scope="module")
def shaders() -> dict[str, bytes]:
    missing = spirv_tools_missing()
    if missing:
        pytest.skip(missing)
    return {"saxpy": assemble(SAXPY), "copy_add": assemble(COPY_ADD_U32)}


@pytest.fixture(scope="module", params=["device-memory", "staged"])
def rt(request):
    runtime = VulkanRuntime(
        direct_memory=None if request.param == "device-memory" else False
    )
    yield runtime
    runtime.close()


def saxpy_pc(a: float, n: int) -> bytes:
    return struct.pack("<fI", a, n)


def put(rt: VulkanRuntime, array: np.ndarray):
    buf = rt.allocate(array.nbytes)
    rt.upload(buf, array)
    return buf


def get(rt: VulkanRuntime, buf, like: np.ndarray) -> np.ndarray:
    return rt.download(buf, np.empty_like(like))


# -- device -------------------------------------------------------------------------------


def test_device_caps(rt):
    caps = rt.caps
    assert caps.name and caps.device_type in (
        "discrete",
        "integrated",
        "virtual",
        "cpu",
        "other",
    )
    # Vulkan's guaranteed minimums.
    assert all(c >= 65535 for c in caps.max_compute_work_group_count)
    assert caps.max_compute_work_group_size[0] >= 128
    assert caps.max_compute_work_group_invocations >= 128
    assert caps.max_push_constants_size >= 128
    taichi_caps = caps.taichi_caps()
    assert taichi_caps["spirv_version"] >= 0x10000
    assert taichi_caps.get("spirv_has_float64", 0) == int(caps.shader_float64)
    assert taichi_caps.get("spirv_has_atomic_float_add", 0) == int(
        caps.shader_buffer_float32_atomic_add
    )
    assert caps.name in caps.summary()


def test_device_selection_by_environment(monkeypatch):
    _, summary = vulkan_available()
    name = summary.split("] ", 1)[1].split(" (", 1)[0]
    monkeypatch.setenv("TI_VULKAN_DEVICE", name[:4].upper())
    assert vulkan_available()[0]
    monkeypatch.setenv("TI_VULKAN_DEVICE", "no-such-device-anywhere")
    ok, reason = vulkan_available()
    assert not ok and "TI_VULKAN_DEVICE='no-such-device-anywhere'" in reason
    with pytest.raises(VulkanUnavailable, match="no Vulkan device matches"):
        VulkanRuntime()
    monkeypatch.setenv("TI_VULKAN_DEVICE", "99")
    assert not vulkan_available()[0]
    monkeypatch.delenv("TI_VULKAN_DEVICE")
    ok, reason = vulkan_available(device=0)
    assert ok, reason


def run_isolated(code: str, **env: str) -> str:
    """Run `code` in a fresh interpreter; return its stdout (it must exit cleanly)."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


PROBE = """
    import sys
    {setup}
    from taichi_xdsl.targets.vulkan import VulkanRuntime, VulkanUnavailable, vulkan_available
    ok, reason = vulkan_available()
    try:
        VulkanRuntime()
        raised = "no exception"
    except VulkanUnavailable as exc:
        raised = exc.reason
    print(ok, "|", reason == raised, "|", reason)
"""


def test_unavailable_without_driver():
    out = run_isolated(
        PROBE.format(setup=""),
        VK_DRIVER_FILES="/nonexistent/icd.json",
        VK_ICD_FILENAMES="/nonexistent/icd.json",
    )
    ok, same, reason = out.split(" | ")
    assert ok == "False" and same == "True", out
    assert "driver" in reason or "device" in reason, reason


def test_unavailable_without_binding():
    out = run_isolated(PROBE.format(setup="sys.modules['vulkan'] = None"))
    assert out.startswith("False | True | the `vulkan` Python package is missing"), out


def test_unavailable_without_loader():
    # What `import vulkan` raises when libvulkan.so.1 cannot be dlopened.
    setup = """
    class NoLoader:
        def find_spec(self, name, path=None, target=None):
            if name == "vulkan":
                raise OSError("Cannot find Vulkan SDK version")
    sys.meta_path.insert(0, NoLoader())
    """
    out = run_isolated(PROBE.format(setup=textwrap.indent(textwrap.dedent(setup), "    ")))
    assert out.startswith("False | True | the Vulkan loader (libvulkan.so.1)"), out


def test_import_loads_no_compiler():
    out = run_isolated("""
        import sys
        import taichi_xdsl.targets.vulkan as v
        v.VulkanRuntime, v.vulkan_available()
        print(",".join(m for m in ("xdsl", "llvmlite") if m in sys.modules))
    """)
    assert out == ""


# -- kernels ------------------------------------------------------------------------------


def test_saxpy(rt, shaders):
    n = 100_003
    rng = np.random.default_rng(0)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    kernel = rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    bx, by = put(rt, x), put(rt, y)
    rt.launch(kernel, [bx, by], rt.group_count(kernel, n), push_constants=saxpy_pc(2.5, n))
    np.testing.assert_allclose(get(rt, by, y), np.float32(2.5) * x + y, rtol=1e-6)
    rt.release(bx)
    rt.release(by)


def test_dependent_dispatches_without_host_sync(rt, shaders):
    n = 10_000
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    z = np.full(n, 2.0, dtype=np.float32)
    kernel = rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    bx, by, bz = put(rt, x), put(rt, y), put(rt, z)
    waits = rt.stats.waits
    groups = rt.group_count(kernel, n)
    rt.launch(kernel, [bx, by], groups, push_constants=saxpy_pc(2.0, n))  # y = 2x + y
    rt.launch(kernel, [by, bz], groups, push_constants=saxpy_pc(3.0, n))  # z = 3y + z
    assert rt.stats.waits == waits, "launches must not wait for the GPU"
    np.testing.assert_allclose(get(rt, bz, z), 3 * (2 * x + y) + z, rtol=1e-6)
    assert rt.stats.waits == waits + 1


def test_long_chain_across_batches(shaders):
    # max_batch=3: the chain spans many submissions, each ordered after the last.
    with VulkanRuntime(max_batch=3, max_in_flight=2) as rt:
        n = 4096
        x = np.arange(n, dtype=np.float32)
        kernel = rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
        bx, by = put(rt, x), put(rt, np.zeros(n, np.float32))
        for _ in range(40):
            rt.launch(kernel, [bx, by], 4, push_constants=saxpy_pc(1.0, n))
        assert rt.stats.submits >= 13
        np.testing.assert_array_equal(get(rt, by, x), 40 * x)


def test_upload_ordered_after_pending_launches(rt, shaders):
    n = 2048
    x1, x2 = np.arange(n, dtype=np.float32), np.full(n, 1000.0, np.float32)
    kernel = rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    bx, by = put(rt, x1), put(rt, np.zeros(n, np.float32))
    rt.sync()
    rt.launch(kernel, [bx, by], 2, push_constants=saxpy_pc(1.0, n))  # y += x1
    rt.upload(bx, x2)  # the launch above is pending: must not see x2
    rt.launch(kernel, [bx, by], 2, push_constants=saxpy_pc(1.0, n))  # y += x2
    np.testing.assert_array_equal(get(rt, by, x1), x1 + x2)


def test_launch_beyond_group_count_limit(rt, shaders):
    max_groups = rt.caps.max_compute_work_group_count[0]
    n = 65535 * LOCAL_SIZE + 4097  # Taichi 1.7 fails on lavapipe past 65535 x 128
    kernel = rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    groups = rt.group_count(kernel, n)
    assert groups == min(-(-n // LOCAL_SIZE), max_groups)
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 1.0, np.float32)
    bx, by = put(rt, x), put(rt, y)
    rt.launch(kernel, [bx, by], groups, push_constants=saxpy_pc(1.0, n))
    np.testing.assert_array_equal(get(rt, by, y), x + 1.0)
    with pytest.raises(ValueError, match="grid-stride"):
        rt.launch(kernel, [bx, by], max_groups + 1, push_constants=saxpy_pc(1.0, n))
    rt.release(bx)
    rt.release(by)


def test_copy_2_pow_24_elements(rt, shaders):
    n = 1 << 24
    src = np.arange(n, dtype=np.uint32) * np.uint32(2654435761)
    kernel = rt.load_kernel(shaders["copy_add"], push_constant_bytes=8)
    bs, bd = put(rt, src), rt.allocate(src.nbytes)
    groups = rt.group_count(kernel, n)
    rt.launch(kernel, [bs, bd], groups, push_constants=struct.pack("<II", 0, n))
    np.testing.assert_array_equal(get(rt, bd, src), src)
    rt.launch(kernel, [bs, bd], groups, push_constants=struct.pack("<II", 7, n))
    np.testing.assert_array_equal(get(rt, bd, src), src + np.uint32(7))
    rt.release(bs)
    rt.release(bd)


def test_push_constants_change_between_identical_launches(rt, shaders):
    n = 256
    kernel = rt.load_kernel(shaders["copy_add"], push_constant_bytes=8)
    bs, bd = put(rt, np.zeros(n, np.uint32)), rt.allocate(4 * n)
    for a in (1, 2, 3):
        rt.launch(kernel, [bs, bd], 2, push_constants=struct.pack("<II", a, n))
        rt.copy(bd, bs)  # src = dst: the next launch adds to it
    np.testing.assert_array_equal(get(rt, bs, np.zeros(n, np.uint32)), 6)


# -- buffers ------------------------------------------------------------------------------


def test_transfers(rt):
    data = np.arange(1000, dtype=np.int64)
    buf = put(rt, data)
    assert buf.nbytes == data.nbytes
    np.testing.assert_array_equal(get(rt, buf, data), data)
    part = rt.download(buf, offset=8 * 10, nbytes=8 * 5).view(np.int64)
    np.testing.assert_array_equal(part, data[10:15])
    rt.upload(buf, np.array([-1, -2], np.int64), offset=8 * 998)
    np.testing.assert_array_equal(get(rt, buf, data)[-3:], [997, -1, -2])
    rt.upload(buf, bytes(16))  # bytes-like input
    assert get(rt, buf, data)[:3].tolist() == [0, 0, 2]
    other = rt.allocate(data.nbytes, zero=True)
    np.testing.assert_array_equal(get(rt, other, data), 0)
    rt.copy(buf, other, 8 * 4, src_offset=8 * 3, dst_offset=8)
    assert get(rt, other, data)[:6].tolist() == [0, 3, 4, 5, 6, 0]
    rt.fill(other, 0xFFFFFFFF)
    np.testing.assert_array_equal(get(rt, other, data), -1)
    with pytest.raises(ValueError, match="overflows"):
        rt.upload(buf, np.zeros(1001, np.int64))
    with pytest.raises(ValueError, match="C-contiguous"):
        rt.download(buf, np.empty((1000, 2), np.int64)[:, 0])
    rt.release(buf)
    rt.release(other)
    with pytest.raises(ValueError, match="released"):
        rt.download(buf)


def test_pool_reuses_allocations(rt):
    rt.sync()
    first = rt.allocate(100_000)
    alloc = first.alloc
    rt.release(first)
    before = rt.pool.allocated_bytes
    second = rt.allocate(size_class(100_000) - 7)  # same size class
    assert second.alloc is alloc and rt.pool.allocated_bytes == before
    third = rt.allocate(100_000)  # the first is taken: a new allocation
    assert third.alloc is not alloc
    rt.release(second)
    rt.release(third)
    assert [size_class(n) for n in (0, 1, 300, 65536, 65537, 1 << 24)] == [
        256,
        256,
        512,
        65536,
        73728,
        1 << 24,
    ]


def test_dropped_buffer_returns_to_pool(rt):
    import gc

    rt.sync()
    buf = rt.allocate(12345)
    alloc = buf.alloc
    del buf
    gc.collect()
    again = rt.allocate(12345)
    assert again.alloc is alloc
    rt.release(again)


def test_release_waits_for_pending_work(rt, shaders):
    n = 1 << 16
    kernel = rt.load_kernel(shaders["copy_add"], push_constant_bytes=8)
    bs, bd = put(rt, np.ones(n, np.uint32)), rt.allocate(4 * n)
    rt.sync()
    rt.launch(kernel, [bs, bd], 16, push_constants=struct.pack("<II", 1, n))
    alloc = bs.alloc
    rt.release(bs)  # still read by the recorded launch
    reused = rt.allocate(4 * n)
    assert reused.alloc is not alloc, "an allocation in use was handed out again"
    np.testing.assert_array_equal(get(rt, bd, np.zeros(n, np.uint32)), 2)
    again = rt.allocate(4 * n)
    assert again.alloc is alloc  # back in the pool once the GPU finished
    for buf in (bd, reused, again):
        rt.release(buf)


def test_descriptor_sets_and_pipelines_are_cached(rt, shaders):
    kernel = rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    assert rt.load_kernel(bytearray(shaders["saxpy"]), push_constant_bytes=8) is kernel
    words = np.frombuffer(shaders["saxpy"], dtype=np.uint32)
    assert rt.load_kernel(words, push_constant_bytes=8) is kernel
    inferred = rt.load_kernel(list(words))
    assert inferred.num_bindings == 2 and inferred.push_constant_bytes >= 8
    assert kernel.local_size == (LOCAL_SIZE, 1, 1)
    bx, by = rt.allocate(64), rt.allocate(64)
    created = rt.pipelines.descriptor_sets_created
    for _ in range(5):
        rt.launch(kernel, [bx, by], 1, push_constants=saxpy_pc(0.0, 0))
    assert rt.pipelines.descriptor_sets_created == created + 1
    rt.sync()
    rt.release(bx)
    rt.release(by)


class _PoolLimitedLib:
    """The real Vulkan functions, except that vkAllocateDescriptorSets fails as a driver
    that enforces maxSets does (NVIDIA's; lavapipe never does): a call on a pool that
    existed before returns VK_ERROR_OUT_OF_POOL_MEMORY (-1000069000)."""

    def __init__(self, lib, full_pools):
        self._lib, self._full, self.refused = lib, list(full_pools), []

    def __getattr__(self, name):
        return getattr(self._lib, name)

    def vkAllocateDescriptorSets(self, dev, info, out):
        pool = info.descriptorPool
        if any(pool == full for full in self._full):
            self.refused.append(pool)
            return -1000069000
        return self._lib.vkAllocateDescriptorSets(dev, info, out)


def test_a_full_descriptor_pool_gets_a_successor(rt, shaders):
    # Regression (10,000-program differential run on an H100): the `vulkan` binding
    # gives VK_ERROR_OUT_OF_POOL_MEMORY as +1000069000, so the driver's -1000069000 was
    # not recognised as "pool full" and every launch past a pool's 512 sets failed.
    from taichi_xdsl.targets.vulkan.device import result_name

    assert result_name(-1000069000) == "VK_ERROR_OUT_OF_POOL_MEMORY"
    kernel = rt.load_kernel(shaders["copy_add"], push_constant_bytes=8)
    n = 64
    src, dst = put(rt, np.arange(n, dtype=np.uint32)), rt.allocate(4 * n)
    pipelines = rt.pipelines
    groups = (n + LOCAL_SIZE - 1) // LOCAL_SIZE
    # Whatever ran before in this module: one launch makes sure a pool exists, then no
    # set stays cached (the launch below must allocate one, from a pool that is full).
    rt.launch(kernel, [src, dst], groups, push_constants=struct.pack("<II", 0, n))
    rt.sync()
    pipelines.reset_sets()
    real, pools = pipelines.lib, len(pipelines._descriptor_pools)
    pipelines.lib = fake = _PoolLimitedLib(real, pipelines._descriptor_pools)
    try:
        rt.launch(kernel, [src, dst], groups, push_constants=struct.pack("<II", 5, n))
        rt.sync()
    finally:
        pipelines.lib = real
    assert fake.refused and len(pipelines._descriptor_pools) > pools
    np.testing.assert_array_equal(get(rt, dst, np.zeros(n, np.uint32)), np.arange(n) + 5)
    rt.release(src)
    rt.release(dst)


def test_descriptor_sets_follow_destroyed_and_evicted_buffers(shaders):
    # No pooling (released buffers are destroyed, with the sets that bind them) and room
    # for two cached sets (the cache is dropped and rebuilt when full).
    with VulkanRuntime(max_pooled_bytes=0, max_descriptor_sets=2) as rt:
        n = 512
        kernel = rt.load_kernel(shaders["copy_add"], push_constant_bytes=8)
        src = put(rt, np.arange(n, dtype=np.uint32))
        for a in range(6):
            dst = rt.allocate(4 * n)
            rt.launch(kernel, [src, dst], 4, push_constants=struct.pack("<II", a, n))
            np.testing.assert_array_equal(
                get(rt, dst, np.zeros(n, np.uint32)), np.arange(n) + a
            )
            rt.release(dst)
            assert len(rt.pipelines.sets) <= 2
        assert rt.pool.pooled_bytes == 0


def test_invalid_kernels_and_launches(rt, shaders):
    with pytest.raises(ValueError, match="entry point 'nope'"):
        rt.load_kernel(shaders["saxpy"], entry="nope")
    with pytest.raises(ValueError, match="magic"):
        rt.load_kernel(b"\0" * 40)
    with pytest.raises(ValueError, match="module binds 2 buffers"):
        rt.load_kernel(shaders["saxpy"], num_bindings=1)
    kernel = rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    buf = rt.allocate(64)
    with pytest.raises(ValueError, match="binds 2 buffers"):
        rt.launch(kernel, [buf], 1)
    with pytest.raises(ValueError, match="push constants exceed"):
        rt.launch(kernel, [buf, buf], 1, push_constants=bytes(12))
    rt.release(buf)


def test_pipeline_cache_file_and_close(tmp_path, shaders):
    path = tmp_path / "pipelines.bin"
    with VulkanRuntime(pipeline_cache_path=path) as rt:
        rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    assert path.stat().st_size > 0
    rt2 = VulkanRuntime(pipeline_cache_path=path)
    kernel = rt2.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    buf = rt2.allocate(64)
    rt2.launch(kernel, [buf, buf], 1, push_constants=saxpy_pc(1.0, 0))
    rt2.close()
    rt2.close()  # idempotent
    assert rt2.closed
    with pytest.raises(RuntimeError, match="closed"):
        rt2.allocate(16)
    with pytest.raises(RuntimeError, match="closed"):
        rt2.launch(kernel, [buf, buf], 1)


# -- recorded sequences ---------------------------------------------------------------------


def test_recording_replays_with_updated_buffers(rt, shaders):
    n = 3000
    kernel = rt.load_kernel(shaders["saxpy"], push_constant_bytes=8)
    groups = rt.group_count(kernel, n)
    x, y = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    bx, by, bz = put(rt, x), put(rt, y), rt.allocate(4 * n)
    launches = rt.stats.launches
    rec = rt.begin_recording()
    rt.launch(kernel, [bx, by], groups, push_constants=saxpy_pc(2.0, n))  # y = 2x + y
    rt.copy(by, bz)  # not captured: runs now, ahead of any replay
    rt.launch(kernel, [by, bx], groups, push_constants=saxpy_pc(1.0, n))  # x = y + x
    rt.end_recording(rec)
    assert rec.valid and rec.commands == 2 and rt.stats.launches == launches + 2
    np.testing.assert_array_equal(get(rt, bz, y), y)  # recording ran nothing
    np.testing.assert_array_equal(get(rt, bx, x), x)
    submits, replays = rt.stats.submits, rt.stats.replays
    for step in range(3):  # new contents each run, the same command buffer
        xs, ys = x + step, np.full(n, float(step), np.float32)
        rt.upload(bx, xs)
        rt.upload(by, ys)
        rt.replay(rec)
        want_y = 2 * xs + ys
        np.testing.assert_array_equal(get(rt, by, y), want_y)
        np.testing.assert_array_equal(get(rt, bx, x), want_y + xs)
    assert rt.stats.replays == replays + 3 and rt.stats.launches == launches + 2
    assert rt.stats.submits - submits >= 3
    rt.replay(rec)  # twice in one batch: both run, in order
    rt.replay(rec)
    cur_x, cur_y = want_y + xs, want_y  # the buffers after the last run
    for _ in range(2):
        cur_y = 2 * cur_x + cur_y
        cur_x = cur_y + cur_x
    np.testing.assert_array_equal(get(rt, by, y), cur_y)
    np.testing.assert_array_equal(get(rt, bx, x), cur_x)
    rt.free_recording(rec)
    assert not rec.valid
    with pytest.raises(ValueError, match="stale"):
        rt.replay(rec)
    for b in (bx, by, bz):
        rt.release(b)


def test_recording_goes_stale_when_a_buffer_is_released(rt, shaders):
    kernel = rt.load_kernel(shaders["copy_add"], push_constant_bytes=8)
    src, dst = put(rt, np.arange(64, dtype=np.uint32)), rt.allocate(256)
    rec = rt.begin_recording()
    rt.launch(kernel, [src, dst], 1, push_constants=struct.pack("<II", 5, 64))
    with pytest.raises(RuntimeError, match="in progress"):
        rt.begin_recording()
    with pytest.raises(RuntimeError, match="while recording"):
        rt.replay(rec)
    rt.end_recording(rec)
    rt.replay(rec)
    np.testing.assert_array_equal(get(rt, dst, np.zeros(64, np.uint32)), np.arange(64) + 5)
    rt.release(dst)
    assert not rec.valid
    with pytest.raises(ValueError, match="record it again"):
        rt.replay(rec)
    rt.free_recording(rec)
    rt.release(src)


def test_dropped_recording_is_freed_at_the_next_sync(rt, shaders):
    import gc

    kernel = rt.load_kernel(shaders["copy_add"], push_constant_bytes=8)
    src, dst = put(rt, np.arange(64, dtype=np.uint32)), rt.allocate(256)
    rec = rt.begin_recording()
    rt.launch(kernel, [src, dst], 1, push_constants=struct.pack("<II", 1, 64))
    rt.end_recording(rec)
    rt.replay(rec)  # pending in the current batch when dropped
    del rec
    gc.collect()
    assert len(rt._dead_recordings) == 1
    np.testing.assert_array_equal(get(rt, dst, np.zeros(64, np.uint32)), np.arange(64) + 1)
    assert not rt._dead_recordings  # the download synced: freed
    rt.release(src)
    rt.release(dst)
