"""
End-to-end: the memory pools of pointer and dynamic SNodes (lang/pools.py), on every
arch: a block per active cell, blocks reused after deactivation (the footprint does not
grow), racing activations that take one block per cell, chunks of dynamic lists, and
the error of an exhausted pool (never a silent drop).
"""

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

from conftest import init_arch

pytestmark = pytest.mark.usefixtures("program")


def test_racing_writes_take_one_block_per_cell():
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 64)
    ptr.dense(ti.i, 16).place(x)

    @ti.kernel
    def scatter(n: ti.i32):
        for k in range(n):
            x[(k * 7) % 1024] += 1  # every block written by many invocations at once

    n = 100_000
    scatter(n)
    expected = np.bincount((np.arange(n) * 7) % 1024, minlength=1024)
    np.testing.assert_array_equal(x.to_numpy(), expected)
    assert ptr._num_dynamically_allocated == 64


def test_deactivated_blocks_are_reused_and_read_zero():
    x = ti.field(ti.f32)
    ptr = ti.root.pointer(ti.i, 16)
    ptr.dense(ti.i, 4).place(x)

    @ti.kernel
    def fill(round: ti.i32):
        for i in range(64):
            if (i // 4 + round) % 3 != 0:
                x[i] = i + round * 0.5

    @ti.kernel
    def drop(round: ti.i32):
        for b in ptr:
            if (b + round) % 2 == 0:
                ti.deactivate(ptr, b)

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for i in x:
            s += x[i]
        return s

    ref = np.zeros(64, np.float32)
    active = np.zeros(16, bool)
    for r in range(6):
        fill(r)
        for i in range(64):
            if (i // 4 + r) % 3 != 0:
                ref[i] = i + r * 0.5
                active[i // 4] = True
        drop(r)
        for b in range(16):
            if active[b] and (b + r) % 2 == 0:
                active[b] = False
                ref[b * 4 : b * 4 + 4] = 0
        np.testing.assert_array_equal(x.to_numpy(), ref)
        assert total() == pytest.approx(ref.sum())
        assert [ti.is_active(ptr, b) for b in range(16)] == [int(a) for a in active]
    assert ptr._num_dynamically_allocated <= 16


def test_deactivating_an_outer_cell_frees_the_blocks_below():
    x = ti.field(ti.i32)
    outer = ti.root.pointer(ti.ij, 4)
    inner = outer.pointer(ti.ij, 4)
    inner.dense(ti.ij, 2).place(x)

    @ti.kernel
    def write():
        for i, j in ti.ndrange(32, 32):
            if (i + j) % 5 == 0:
                x[i, j] = i * 32 + j

    @ti.kernel
    def drop_all():
        for I in ti.grouped(outer):
            ti.deactivate(outer, I)

    for _ in range(5):
        write()
        drop_all()
        np.testing.assert_array_equal(x.to_numpy(), 0)
    assert outer._num_dynamically_allocated == 16
    assert inner._num_dynamically_allocated <= 256
    write()
    i, j = np.indices((32, 32))
    np.testing.assert_array_equal(x.to_numpy(), np.where((i + j) % 5 == 0, i * 32 + j, 0))


def test_dynamic_lists_take_chunks_and_give_them_back():
    x = ti.field(ti.i32)
    lists = ti.root.dense(ti.i, 4).dynamic(ti.j, 64, chunk_size=8)
    lists.place(x)

    @ti.kernel
    def fill():
        for i in range(4):
            for k in range(i * 10):
                ti.append(lists, i, k * (i + 1))

    @ti.kernel
    def clear_odd():
        for i in range(4):
            if i % 2 == 1:
                x[i].deactivate()

    @ti.kernel
    def total() -> ti.i32:
        s = 0
        for i, j in x:
            s += x[i, j]
        return s

    fill()
    assert total() == 90 + 570 + 1740
    assert lists._num_dynamically_allocated == 2 + 3 + 4
    clear_odd()
    assert total() == 570
    assert [ti.length(lists, i) for i in range(4)] == [0, 0, 20, 0]
    fill()  # lists 1 and 3 take the freed chunks again; list 2 grows by two chunks
    assert total() == 90 + 2 * 570 + 1740
    assert lists._num_dynamically_allocated == 11
    expected = np.zeros((4, 64), np.int32)
    expected[1, :10] = np.arange(10) * 2
    expected[2, :40] = np.tile(np.arange(20) * 3, 2)
    expected[3, :30] = np.arange(30) * 4
    np.testing.assert_array_equal(x.to_numpy(), expected)


def test_struct_for_over_a_root_list_visits_its_length():
    x = ti.field(ti.f32)
    ti.root.dynamic(ti.i, 2**22, chunk_size=2**12).place(x)
    for i in range(100):
        x[i] = i

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for i in x:
            s += x[i]
        return s

    assert total() == 4950.0


def test_an_exhausted_pool_raises(arch):
    init_arch(arch, device_memory_GB=0.0001)  # a quarter: 26 KB, below 65536 blocks
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 2**17)  # more cells than a full pool: 65536 blocks
    ptr.place(x)

    @ti.kernel
    def write_all():
        for i in range(2**17):
            x[i] = 1

    with pytest.raises(TaichiError, match=r"sparse pool of SNode .* exhausted \(65536 blocks\)"):
        write_all()
        x.to_numpy()


def _lists_of_i32(arch, n_lists: int):
    """`n_lists` dynamic lists of up to 1024 i32 in chunks of 8 (40 bytes a chunk with
    its free and release entries), under device_memory_GB=0.001 (1,073,741 bytes: a
    quarter, the old per-pool rule, is 6710 chunks), and a kernel filling each list."""
    init_arch(arch, offline_cache=False, device_memory_GB=0.001)
    x = ti.field(ti.i32)
    lists = ti.root.dense(ti.i, n_lists).dynamic(ti.j, 1024, chunk_size=8)
    lists.place(x)

    @ti.kernel
    def fill(n: ti.i32):
        for i in range(n_lists):
            for k in range(n):
                ti.append(lists, i, i * 10000 + k)

    return x, lists, fill


def test_a_pool_may_take_all_of_device_memory_that_the_fields_leave(arch):
    """The pools share device_memory_GB less the other fields (as Taichi's preallocated
    CUDA memory), not a quarter each: 64 full lists take 8192 chunks (328 KB), more than
    the 6710 of a quarter of the 1 MB, and read back exactly."""
    x, lists, fill = _lists_of_i32(arch, 64)
    fill(1024)
    expected = np.arange(64)[:, None] * 10000 + np.arange(1024)[None, :]
    np.testing.assert_array_equal(x.to_numpy(), expected)
    assert lists._num_dynamically_allocated == 64 * 128
    assert lists._pool.capacity == 64 * 128  # every chunk fits the shared budget


def test_a_pool_past_the_shared_device_memory_is_exhausted(arch):
    """512 full lists want 65536 chunks (2.6 MB): past the 1 MB they all share, so
    filling them raises the pool-exhausted error (never a dropped element)."""
    x, lists, fill = _lists_of_i32(arch, 512)
    pool = lists._pool
    with pytest.raises(TaichiError, match=r"sparse pool of SNode .*dynamic.* exhausted"):
        fill(1024)
        x.to_numpy()
    # words (512 x 128 x 4 bytes) and lengths take their part of the 1 MB; the chunks
    # the rest, and that is more than a quarter of it
    assert 6710 < pool.capacity < (1_073_741 - 512 * 128 * 4) // 40


OIT_PEAK_CHUNKS = 529_406
"""Chunks Taichi's oit_renderer holds after its render (256 spheres, 1000x1000 lists),
counted on cpu: 682 MB of 1288-byte chunks."""


def test_oit_renderers_lists_fit_the_default_device_memory(arch):
    """oit_renderer's layout under device_memory_GB=1 (Taichi's default): its chunk
    pool takes what the other fields leave of the 1 GiB, more than the chunks its render
    holds (a quarter each held 208,412 and stopped it); on Vulkan its arrays span
    several bindings. A device without variable pointers binds each array whole: if one
    binding holds fewer chunks, that is the capacity, and the exhausted error says that
    a larger device_memory_GB does not help."""
    from taichi_xdsl.frontends.python.lang import program as _program

    init_arch(arch, offline_cache=False, device_memory_GB=1.0)
    Sphere = ti.types.struct(center=ti.math.vec3, radius=float, color=ti.math.vec4)
    spheres = Sphere.field()
    ti.root.dynamic(ti.j, 1024, chunk_size=64).place(spheres)
    Color = ti.types.struct(color=ti.math.vec4, depth=float)
    colors = Color.field()
    lists = ti.root.dense(ti.ij, (1000, 1000)).dynamic(ti.k, 2048, chunk_size=64)
    lists.place(colors)
    ti.Vector.field(3, dtype=ti.f32, shape=(1000, 1000))
    prog = _program.get_program()
    prog.settle_layout()  # sizes the pools; allocates nothing
    pool = lists._pool
    segment = prog.root_segment_bytes
    whole = segment and not prog.backend.fields_may_span_segments  # one binding each
    fits = segment // 1024 - 2 if whole else None  # 64 vec4 colours a chunk
    if fits is not None and fits < OIT_PEAK_CHUNKS:
        assert pool.capacity == fits
        assert "maxStorageBufferRange" in pool.bound
        assert "does not help" in pool.bound
    else:
        assert pool.capacity >= OIT_PEAK_CHUNKS
        assert "device_memory_GB" in pool.bound
        assert pool.capacity * pool.row_bytes() < 2**30


def test_gradients_at_inactive_cells_do_not_leak_into_the_zero_block():
    x = ti.field(ti.f32, needs_grad=True)
    ptr = ti.root.pointer(ti.i, 4)
    ptr.dense(ti.i, 4).place(x, x.grad)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def compute():
        for i in range(16):  # reads every element, active or not
            loss[None] += x[i] * 2

    @ti.kernel
    def grad_sum() -> ti.f32:
        s = 0.0
        for i in range(16):
            s += x.grad[i]
        return s

    x[1] = 3.0
    with ti.ad.Tape(loss=loss):
        compute()
    expected = np.array([2.0] * 4 + [0.0] * 12, np.float32)
    np.testing.assert_array_equal(x.grad.to_numpy(), expected)
    assert grad_sum() == 8.0  # the inactive cells read 0, not the dropped updates


def test_reused_chunks_below_a_pointer_read_zero_past_the_length():
    x = ti.field(ti.i32)
    grid = ti.root.pointer(ti.i, 4)
    lists = grid.dynamic(ti.j, 64, chunk_size=16)
    lists.place(x)

    @ti.kernel
    def fill(n: ti.i32, v: ti.i32):
        for i in range(4):
            for k in range(n):
                ti.append(lists, i, v + k)

    for n, v in ((40, 100), (5, 200), (20, 300)):
        fill(n, v)
        expected = np.zeros((4, 64), np.int32)
        expected[:, :n] = v + np.arange(n)
        np.testing.assert_array_equal(x.to_numpy(), expected)
        grid.deactivate_all()  # the chunks go back with the pointer's blocks
        np.testing.assert_array_equal(x.to_numpy(), 0)
    assert lists._num_dynamically_allocated == 4 * 3


def test_share_budget_fills_small_wants_and_splits_the_rest():
    from taichi_xdsl.frontends.python.lang.pools import share_budget

    assert share_budget([10, 100, 100], 120) == [10, 55, 55]
    assert share_budget([100, 10, 100], 120) == [55, 10, 55]
    assert share_budget([10, 20], 1000) == [10, 20]
    assert share_budget([50, 50], 0) == [0, 0]


def test_pools_whose_full_size_exceeds_the_device_buffer_fit_it():
    # Full pools: 512^2 blocks of 8x8 f32 (64 MiB, 4 MiB of words) plus a 4096-element
    # chunk for every list (16 KiB x 256 chunks x 512^2 lists): far beyond one Vulkan
    # storage buffer (lavapipe: 128 MiB). The pools are sized when the root is made,
    # from every array in their blocks (the chunk words come after the first field),
    # within what the device binds; the few cells used work.
    from taichi_xdsl.frontends.python.lang import program as _program

    grid = ti.field(ti.f32)
    ids = ti.field(ti.i32)
    block = ti.root.pointer(ti.ij, 512)
    block.dense(ti.ij, 8).place(grid)
    block.dynamic(ti.k, 1024 * 1024, chunk_size=4096).place(ids)

    @ti.kernel
    def scatter(n: ti.i32):
        for p in range(n):
            i, j = (p * 37) % 200, (p * 11) % 160
            grid[i, j] += 1.0
            ti.append(ids.parent(), [i // 8, j // 8], p)

    @ti.kernel
    def count() -> ti.i32:
        s = 0
        for i, j in block:
            s += ti.length(ids.parent(), [i, j])
        return s

    n = 5000
    scatter(n)
    p = np.arange(n)
    expected = np.zeros((4096, 4096), np.float32)
    np.add.at(expected, ((p * 37) % 200, (p * 11) % 160), 1.0)
    np.testing.assert_array_equal(grid.to_numpy(), expected)
    assert count() == n
    prog = _program.get_program()
    limit = prog.__dict__.get("root_limit")
    if limit is not None:
        assert prog.root_size <= limit


def _rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def test_a_large_cpu_pool_takes_memory_only_where_it_is_written(arch):
    """oit_renderer's layout (a dynamic list of 2048 per pixel of a 1000x1000 image):
    without device_memory_GB a CPU pool reserves up to a GiB of address space, more
    than the old 256 MB budget held, and only the chunks written take memory."""
    if arch is not ti.cpu:
        pytest.skip("a Vulkan root is one storage buffer: pools share its limit")
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("reads the resident size from /proc")
    colors = ti.field(ti.f32)
    ti.root.dense(ti.ij, (1000, 1000)).dynamic(ti.k, 2048, chunk_size=64).place(colors)

    @ti.kernel
    def append_to(n: ti.i32):
        for k in range(n):
            for m in range(3):
                colors[k, 7].append(k + m * 0.5)

    before = _rss_bytes()
    append_to(1000)
    grown = _rss_bytes() - before
    pool = colors.snode.parent()._pool
    assert pool.capacity * 64 * 4 > 256 * 2**20  # more chunks than the old budget held
    assert grown < 128 * 2**20, grown  # reserved, not committed
    @ti.kernel
    def length_of(k: ti.i32) -> ti.i32:
        return colors[k, 7].length()

    assert [length_of(0), length_of(999), length_of(1000)] == [3, 3, 0]
    assert [colors[999, 7, m] for m in range(3)] == [999.0, 999.5, 1000.0]


def test_fields_beyond_32_bit_offsets_are_refused_before_anything_runs(arch):
    small = ti.field(ti.f32, shape=8)
    with pytest.raises(TaichiError, match=r"32-bit byte offsets.*at most 2 GiB"):
        ti.field(ti.f32, shape=2**29 + 16)  # 2 GiB and more: kernels would address it wrongly
    small[3] = 1.5
    assert small[3] == 1.5
