"""
End-to-end: ti.simt. Subgroup operations give the same answers on every arch: a Vulkan
subgroup (of whatever size the device has) or a CPU invocation, which is a subgroup of
one. The checks hold for any subgroup size: combining each subgroup's result once (from
its elected invocation) gives the combination over the whole range, and scans, shuffles
and broadcasts are checked against the invocation's own id. Loops cover whole
workgroups, so every invocation of a subgroup is active.
"""

import re

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiCompilationError, TaichiError

pytestmark = pytest.mark.usefixtures("program")

subgroup = ti.simt.subgroup
N = 1024


@pytest.mark.parametrize("dtype", [ti.i32, ti.u32, ti.f32, ti.i64, ti.f64])
def test_reductions_combine_over_the_range(dtype):
    rng = np.random.default_rng(1)
    values = rng.integers(1, 100, 2677).astype(dtype.np_dtype)
    x = ti.field(dtype, values.size)
    x.from_numpy(values)
    total, low, high = ti.field(dtype, ()), ti.field(dtype, ()), ti.field(dtype, ())
    low[None], high[None] = 1000, 0

    @ti.kernel
    def combine():
        for i in x:
            s = subgroup.reduce_add(x[i])
            lo = subgroup.reduce_min(x[i])
            hi = subgroup.reduce_max(x[i])
            if subgroup.elect():
                ti.atomic_add(total[None], s)
                ti.atomic_min(low[None], lo)
                ti.atomic_max(high[None], hi)

    combine()
    assert total[None] == values.sum()
    assert (low[None], high[None]) == (values.min(), values.max())


def test_bitwise_reductions_and_products():
    values = np.random.default_rng(2).integers(0, 2**31 - 1, N).astype(np.int32)
    x = ti.field(ti.i32, N)
    x.from_numpy(values)
    acc = ti.field(ti.i32, 3)
    acc[0], acc[1], acc[2] = -1, 0, 0
    prod = ti.field(ti.i64, ())  # the sum of the subgroups' products
    size = ti.field(ti.i32, ())

    @ti.kernel
    def combine():
        for i in x:
            a = subgroup.reduce_and(x[i])
            o = subgroup.reduce_or(x[i])
            e = subgroup.reduce_xor(x[i])
            p = subgroup.reduce_mul(ti.i64(1 + i % 2))  # 2 ** (odd i in the subgroup)
            if subgroup.elect():
                ti.atomic_and(acc[0], a)
                ti.atomic_or(acc[1], o)
                ti.atomic_xor(acc[2], e)
                ti.atomic_add(prod[None], p)
                size[None] = subgroup.group_size()

    combine()
    assert acc[0] == np.bitwise_and.reduce(values)
    assert acc[1] == np.bitwise_or.reduce(values)
    assert acc[2] == np.bitwise_xor.reduce(values)
    s = size[None]
    factors = (1 + np.arange(N) % 2).reshape(-1, s)
    assert prod[None] == factors.prod(axis=1).sum()


def test_scans_and_ids():
    out = ti.field(ti.i32, (N, 6))

    @ti.kernel
    def scan():
        for i in range(N):
            me = subgroup.invocation_id()
            out[i, 0] = subgroup.inclusive_add(1) - me
            out[i, 1] = subgroup.exclusive_add(1) - me
            out[i, 2] = subgroup.exclusive_max(i) - (i - 1 if me > 0 else -2147483648)
            out[i, 3] = subgroup.inclusive_mul(2) - (1 << (me + 1))
            out[i, 4] = subgroup.group_size()
            out[i, 5] = me

    scan()
    a = out.to_numpy()
    assert (a[:, 0] == 1).all() and (a[:, 1] == 0).all() and (a[:, 2] == 0).all()
    size = a[0, 4]
    assert (a[:, 4] == size).all() and size & (size - 1) == 0
    assert (a[:, 5] == np.arange(N) % size).all()
    if size <= 16:  # 2 ** (id + 1) fits an i32
        assert (a[:, 3] == 0).all()
    if ti.lang.impl.current_cfg().arch == ti.cpu:
        assert size == 1


def test_shuffles_broadcasts_and_votes():
    out = ti.field(ti.i32, (N, 9))
    x = ti.field(ti.f32, N)
    x.from_numpy(np.arange(N, dtype=np.float32) * 0.5)

    @ti.kernel
    def shuffle():
        for i in range(N):
            me = subgroup.invocation_id()
            size = subgroup.group_size()
            first = i - me
            out[i, 0] = subgroup.shuffle(i, me) - i
            out[i, 1] = subgroup.shuffle_xor(i, 0) - i
            out[i, 2] = subgroup.broadcast_first(i) - first
            out[i, 3] = subgroup.broadcast(i, 0) - first
            out[i, 4] = ti.i32(subgroup.shuffle(x[i], size - 1 - me) * 2) - (first + size - 1 - me)
            down = subgroup.shuffle_down(i, 1)
            up = subgroup.shuffle_up(i, 1)
            out[i, 5] = (down - i - 1 if me < size - 1 else 0) + (up - i + 1 if me > 0 else 0)
            out[i, 6] = subgroup.all_true(i >= first) + 2 * subgroup.any_true(me == 0)
            out[i, 7] = subgroup.all_true(me == 0) + 2 * subgroup.all_equal(7)
            out[i, 8] = subgroup.all_equal(me)

    shuffle()
    a = out.to_numpy()
    assert (a[:, :6] == 0).all()
    assert (a[:, 6] == 3).all()
    single = ti.lang.impl.current_cfg().arch == ti.cpu
    assert (a[:, 7] == (3 if single else 2)).all()
    assert (a[:, 8] == (1 if single else 0)).all()


def test_vector_components_are_combined_each():
    out = ti.Vector.field(3, ti.f32, ())

    @ti.kernel
    def combine():
        for i in range(N):
            v = subgroup.reduce_add(ti.Vector([1.0, 2.0, i]))
            if subgroup.elect():
                out[None] += v

    combine()
    assert out[None].to_numpy().tolist() == [N, 2.0 * N, N * (N - 1) / 2]


def test_subgroup_barrier_is_accepted():
    out = ti.field(ti.i32, N)

    @ti.kernel
    def k():
        for i in range(N):
            out[i] = i
            subgroup.barrier()
            subgroup.memory_barrier()
            out[i] += 1

    k()
    assert (out.to_numpy() == np.arange(N) + 1).all()


def test_block_and_grid_on_each_arch(arch):
    out = ti.field(ti.i32, (256, 2))

    @ti.kernel
    def k():
        ti.loop_config(block_dim=64)
        for i in range(256):
            out[i, 0] = ti.simt.block.thread_idx()
            ti.simt.block.sync()
            ti.simt.block.mem_sync()
            ti.simt.grid.memfence()
            out[i, 1] = ti.simt.block.global_thread_idx()

    if arch == ti.cpu:  # CPU threads have no workgroups, as under Taichi
        with pytest.raises(TaichiCompilationError, match=r"test_simt.py:\d+.*needs a GPU arch"):
            k()
        return
    k()
    a = out.to_numpy()
    assert (a[:, 0] == np.arange(256) % 64).all()
    assert (a[:, 1] == np.arange(256)).all()


def test_unsupported_simt_calls_are_named():
    @ti.kernel
    def warp():
        for i in range(4):
            ti.simt.warp.shfl_down_i32(ti.u32(0xFFFFFFFF), i, 1)

    with pytest.raises(TaichiCompilationError, match="needs CUDA"):
        warp()

    @ti.kernel
    def bitwise_float():
        for i in range(4):
            subgroup.reduce_xor(1.5)

    with pytest.raises(TaichiCompilationError, match="combines integers"):
        bitwise_float()
    with pytest.raises(TaichiError, match="inside a kernel"):
        subgroup.elect()


def test_shared_arrays_are_per_workgroup(arch):
    """Each workgroup of 64 stages a tile of `d` in two shared arrays, waits, and reads the
    whole tile: a[i] = v[i] * sum(d). An integer atomic on a shared element sums the
    workgroup's ids."""
    block, tiles = 64, 8
    n = block * tiles
    rng = np.random.default_rng(5)
    v, d = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a = np.zeros(n, np.float32)
    total = ti.ndarray(ti.i32, n)

    @ti.kernel
    def tiled(v: ti.types.ndarray(), d: ti.types.ndarray(), a: ti.types.ndarray()):
        ti.loop_config(block_dim=block)
        for i in range(n):
            tid = i % block
            lo = ti.simt.block.SharedArray((block,), ti.f32)
            hi = ti.simt.block.SharedArray(block // 2, ti.f32)
            acc = 0.0
            for t in range(tiles):
                if tid < block // 2:
                    hi[tid] = d[t * block + block // 2 + tid]
                else:
                    lo[tid - block // 2] = d[t * block + tid - block // 2]
                ti.simt.block.sync()
                for j in range(block // 2):
                    acc += v[i] * (lo[j] + hi[j])
                ti.simt.block.sync()
            a[i] = acc

    @ti.kernel
    def sums(out: ti.types.ndarray()):
        ti.loop_config(block_dim=block)
        for i in range(n):
            s = ti.simt.block.SharedArray((2, 1), ti.i32)
            if i % block == 0:
                s[0, 0] = 0
            ti.simt.block.sync()
            ti.atomic_add(s[0, 0], i % block)
            ti.simt.block.sync()
            out[i] = s[0, 0]

    if arch == ti.cpu:
        with pytest.raises(TaichiCompilationError, match="SharedArray needs a GPU arch"):
            tiled(v, d, a)
        return
    tiled(v, d, a)
    np.testing.assert_allclose(a, v * d.sum(), rtol=1e-4, atol=1e-4)
    sums(total)
    assert (total.to_numpy() == block * (block - 1) // 2).all()


def test_f16_layer_from_workgroup_weights(arch):
    """Taichi's taichi_ngp evaluates its network so: the threads of a block load the
    weights into a shared f16 array together, wait, then each thread (a padded launch,
    the extra threads only help load) takes a dot product per output from 2-D shared
    arrays indexed [row, thread], statically unrolled, then a ReLU through ti.max(0.0, .)."""
    block, n_in, n_out, n = 32, 8, 16, 80
    padded = -(-n // block) * block
    per_thread = n_in * n_out // block
    rng = np.random.default_rng(7)
    w = (rng.standard_normal((n_out, n_in)) * 0.5).astype(np.float16)
    x = rng.standard_normal((n, n_in)).astype(np.float16)
    weights = ti.field(ti.f16, n_in * n_out)
    feats = ti.field(ti.f16, (n, n_in))
    out = ti.field(ti.f16, (n, n_out))
    weights.from_numpy(w.ravel())
    feats.from_numpy(x)

    @ti.kernel
    def layer():
        ti.loop_config(block_dim=block)
        for sn in ti.ndrange(padded):
            tid = sn % block
            wsh = ti.simt.block.SharedArray((n_in * n_out,), ti.f16)
            xsh = ti.simt.block.SharedArray((n_in, block), ti.f16)
            for i in ti.static(range(per_thread)):
                wsh[tid * per_thread + i] = weights[tid * per_thread + i]
            ti.simt.block.sync()
            if sn < n:
                for k in ti.static(range(n_in)):
                    xsh[k, tid] = feats[sn, k]
                for j in range(n_out):
                    acc = ti.f16(0.0)
                    for k in ti.static(range(n_in)):
                        acc += xsh[k, tid] * wsh[j * n_in + k]
                    out[sn, j] = ti.f16(ti.max(0.0, acc))
            ti.simt.block.sync()

    if arch == ti.cpu:  # as under Taichi: no workgroups on CPU threads
        with pytest.raises(TaichiCompilationError, match="SharedArray needs a GPU arch"):
            layer()
        return
    layer()
    want = np.maximum(x.astype(np.float32) @ w.astype(np.float32).T, 0.0)
    np.testing.assert_allclose(out.to_numpy().astype(np.float32), want, rtol=2e-2, atol=2e-2)


def test_exclusive_scans_start_from_each_identity():
    """The first invocation of a subgroup (every invocation on cpu, a subgroup of one)
    gets the identity of the scan's kind, type and sign."""
    out = ti.field(ti.i64, (N, 10))
    fout = ti.field(ti.f32, (N, 2))

    @ti.kernel
    def scan():
        for i in range(N):
            if subgroup.invocation_id() == 0:
                out[i, 0] = ti.cast(subgroup.exclusive_min(ti.u32(i + 5)), ti.i64)
                out[i, 1] = subgroup.exclusive_max(ti.i32(i))
                out[i, 2] = subgroup.exclusive_add(ti.i32(i + 1))
                out[i, 3] = subgroup.exclusive_mul(ti.i32(i + 3))
                out[i, 4] = subgroup.exclusive_and(ti.i32(i))
                out[i, 5] = subgroup.exclusive_or(ti.i32(i + 1))
                out[i, 6] = subgroup.exclusive_xor(ti.i32(i + 1))
                out[i, 7] = subgroup.exclusive_min(ti.i32(i))
                out[i, 8] = ti.cast(subgroup.exclusive_max(ti.u32(i + 5)), ti.i64)
                out[i, 9] = subgroup.exclusive_max(ti.i64(i))
                fout[i, 0] = subgroup.exclusive_min(ti.f32(i))
                fout[i, 1] = subgroup.exclusive_max(ti.f32(i))
            else:
                out[i, 0] = -7

    scan()
    a, f = out.to_numpy(), fout.to_numpy()
    first = a[:, 0] != -7
    want = [2**32 - 1, -(2**31), 0, 1, -1, 0, 0, 2**31 - 1, 0, -(2**63)]
    assert first.any() and (a[first] == want).all(), a[first][:2]
    assert (f[first, 0] == np.inf).all() and (f[first, 1] == -np.inf).all()


def test_shared_arrays_past_the_devices_shared_memory_are_refused(arch):
    """Block-shared arrays must fit the device's maxComputeSharedMemorySize (lavapipe:
    32768 bytes; taichi_ngp's rgb_layer declares 45,568). More was compiled and ran on
    lavapipe, past what the device promises; now the compile fails at the array, naming
    the kernel, the bytes and the limit. 256 KiB is past every device's limit. The CPU
    has no block-shared memory: its error says so."""

    @ti.kernel
    def rgb_layer(out: ti.types.ndarray()):
        ti.loop_config(block_dim=128)
        for i in range(128):
            s = ti.simt.block.SharedArray((128, 512), ti.f32)
            s[i, 0] = 1.0
            ti.simt.block.sync()
            out[i] = s[(i + 1) % 128, 0]

    out = np.zeros(128, np.float32)
    if arch == ti.cpu:
        with pytest.raises(TaichiCompilationError, match="SharedArray needs a GPU arch"):
            rgb_layer(out)
        return
    with pytest.raises(TaichiCompilationError) as error:
        rgb_layer(out)
    message = str(error.value)
    assert re.search(
        r"test_simt.py:\d+:\d+: error: kernel 'rgb_layer' needs 262144 bytes of "
        r"block-shared memory a block \(ti.simt.block.SharedArray\), more than this "
        r"device's \d+ \(maxComputeSharedMemorySize\)",
        message,
    ), message
    assert "s = ti.simt.block.SharedArray((128, 512), ti.f32)" in message
