"""
End-to-end: fields and sparse pools that together take more than one storage-buffer
binding holds (maxStorageBufferRange: 128 MiB on lavapipe). On Vulkan the root is bound
as segments (utils/spirv_abi.py, targets/vulkan/root.py); every test also runs on the
CPU, whose root is one buffer, with the same expected values.

Some tests shrink the segments (SMALL_SEGMENT bytes, as a device with a small
maxStorageBufferRange would have) so that many segments, ndarray bindings before them
and Python-scope access of single fields are exercised with small fields.
"""

from __future__ import annotations

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

from conftest import init_arch

MIB = 1 << 20
SMALL_SEGMENT = 64 * 1024


@pytest.fixture
def small_segments(arch, monkeypatch):
    """Vulkan: root segments of SMALL_SEGMENT bytes (the CPU root is unchanged)."""
    if arch is ti.vulkan:
        from taichi_xdsl.targets.vulkan.backend import VulkanBackend

        monkeypatch.setattr(VulkanBackend, "root_segment_bytes", SMALL_SEGMENT)
    init_arch(arch, offline_cache=False)
    yield arch
    ti.reset()


def _segments_respected(fields, segment):
    """No field straddles a segment boundary."""
    for f in fields:
        first, last = f.offset // segment, (f.offset + f.nbytes - 1) // segment
        assert first == last, (f.symbol, f.offset, f.nbytes)


def test_fields_larger_than_one_binding_in_total(arch):
    init_arch(arch, offline_cache=False)
    n = 12 * MIB  # 48 MiB a field, 144 MiB together: past lavapipe's 128 MiB binding
    a = ti.field(ti.f32, shape=n)
    b = ti.field(ti.f32, shape=n)
    c = ti.field(ti.i32, shape=n)

    @ti.kernel
    def fill():
        for i in a:
            a[i] = i % 4096 * 0.5
            b[i] = -(i % 1000)
            c[i] = i % 777

    @ti.kernel
    def combine():
        for i in a:
            a[i] += b[i] + c[i]
            c[i] = c[i] * 2 + 1

    fill()
    combine()
    i = np.arange(n)
    expected_a = (i % 4096 * 0.5 - i % 1000 + i % 777).astype(np.float32)
    np.testing.assert_array_equal(a.to_numpy(), expected_a)
    np.testing.assert_array_equal(c.to_numpy(), (i % 777 * 2 + 1).astype(np.int32))
    # Python scope, one element of the field past the first 128 MiB, then a kernel
    c[n - 1] = 12345
    combine()
    assert c[n - 1] == 12345 * 2 + 1
    assert b[n - 1] == -((n - 1) % 1000)
    if arch is ti.vulkan:
        from taichi_xdsl.frontends.python.lang import program

        segment = program.get_program().root_segment_bytes
        _segments_respected([a, b, c], segment)
        assert c.offset + c.nbytes > segment  # the test really spans segments


def test_many_segments_with_ndarrays_and_host_access(small_segments):
    arch = small_segments
    n = 6000  # 24 KB a field: two or three fields a 64 KiB segment
    fields = [ti.field(ti.f32, shape=n) for _ in range(8)]
    last = fields[-1]

    @ti.kernel
    def scale(src: ti.template(), dst: ti.template(), k: ti.f32, arr: ti.types.ndarray()):
        for i in src:
            dst[i] = src[i] * k + arr[i]

    arr = np.arange(n, dtype=np.float32)
    fields[0].from_numpy(np.ones(n, np.float32))
    for src, dst in zip(fields, fields[1:]):
        scale(src, dst, 2.0, arr)
    expected = np.ones(n, np.float32)
    for _ in fields[1:]:
        expected = expected * 2 + arr
    np.testing.assert_array_equal(last.to_numpy(), expected)
    # a Python-scope write of one field between launches keeps the others' device values
    fields[3][7] = -1.0
    scale(fields[3], fields[0], 1.0, arr)
    assert fields[0][7] == -1.0 + 7
    np.testing.assert_array_equal(last.to_numpy(), expected)
    if arch is ti.vulkan:
        _segments_respected(fields, SMALL_SEGMENT)
        assert last.offset >= 2 * SMALL_SEGMENT


@pytest.mark.vulkan_only("the CPU root is one buffer, with no per-binding limit")
def test_a_field_larger_than_a_binding_is_refused_by_name(arch, monkeypatch):
    from taichi_xdsl.targets.vulkan.backend import VulkanBackend

    monkeypatch.setattr(VulkanBackend, "root_segment_bytes", SMALL_SEGMENT)
    init_arch(arch, offline_cache=False)
    big = ti.field(ti.f32, shape=SMALL_SEGMENT // 4 + 1, name="big")

    @ti.kernel
    def touch():
        big[0] = 1.0

    with pytest.raises(TaichiError, match=rf"field 'big' .* takes {SMALL_SEGMENT + 4} bytes.* at most {SMALL_SEGMENT} bytes \(maxStorageBufferRange\)"):
        touch()
    ti.reset()


def _particle_lists(n_cells: int, chunk: int):
    """Per-cell lists of particle ids: a pointer grid of cells, a dynamic list each."""
    pid = ti.field(ti.i32)
    cells = ti.root.pointer(ti.ij, n_cells)
    lists = cells.dynamic(ti.axes(2), 1 << 20, chunk_size=chunk)
    lists.place(pid)
    count = ti.field(ti.i32, shape=(n_cells, n_cells))
    total = ti.field(ti.i64, shape=(n_cells, n_cells))
    return pid, cells, lists, count, total


def _build_lists(side: int, used: int, n: int, chunk: int = 4096):
    """`n` particles in random cells of a `used` x `used` corner of a side x side grid,
    appended to their cell's list; returns the pieces and the expected counts and id
    sums per cell."""
    pid, cells, lists, count, total = _particle_lists(side, chunk)
    rng = np.random.default_rng(5)
    cell = rng.integers(0, used, size=(n, 2)).astype(np.int32)
    where = ti.Vector.field(2, ti.i32, shape=n)
    where.from_numpy(cell)

    @ti.kernel
    def build():
        for p in where:
            ti.append(lists, where[p], p)

    @ti.kernel
    def summarize():
        for i, j in count:
            s = ti.i64(0)
            m = ti.length(lists, [i, j])
            for k in range(m):
                s += pid[i, j, k]
            count[i, j] = m
            total[i, j] = s

    flat = cell[:, 0] * side + cell[:, 1]
    want_count = np.bincount(flat, minlength=side * side).reshape(side, side)
    want_total = np.bincount(flat, weights=np.arange(n), minlength=side * side)
    return cells, lists, count, total, build, summarize, want_count, want_total.reshape(side, side)


def test_sparse_lists_whose_pools_exceed_one_binding(arch):
    """Per-cell particle lists (as Taichi's mpm_particle_list): 7056 lists of one 16 KiB
    chunk each, 110 MiB of chunks, past the 96 MiB the pools shared when the whole root
    was one binding; deactivate_all gives every chunk back."""
    init_arch(arch, offline_cache=False, device_memory_GB=1.0)
    cells, lists, count, total, build, summarize, want_count, want_total = _build_lists(
        128, 84, 20000
    )
    build()
    summarize()
    np.testing.assert_array_equal(count.to_numpy(), want_count)
    np.testing.assert_array_equal(total.to_numpy(), want_total)
    active = int((want_count > 0).sum())
    assert lists._num_dynamically_allocated == active
    pool = lists._pool
    assert pool.capacity * pool.row_bytes() > 96 * MIB
    cells.deactivate_all()
    summarize()
    assert not count.to_numpy().any() and not total.to_numpy().any()
    state = pool.state.to_numpy()
    assert state[1] == active  # every chunk is back on the free stack, none leaked


def test_sparse_lists_rebuilt_after_deactivate_all(arch):
    """The lists rebuilt from recycled blocks and chunks, several times."""
    init_arch(arch, offline_cache=False, device_memory_GB=1.0)
    cells, lists, count, total, build, summarize, want_count, want_total = _build_lists(
        128, 60, 20000
    )
    for _ in range(6):
        cells.deactivate_all()
        build()
        summarize()
        np.testing.assert_array_equal(count.to_numpy(), want_count)
        np.testing.assert_array_equal(total.to_numpy(), want_total)
    assert lists._num_dynamically_allocated == int((want_count > 0).sum())


def test_host_write_between_root_growth_and_launch(arch):
    """A field placed in the root's spare room, written from Python after a later field
    grew the root and before any launch: the launch that takes the grown root must keep
    the host's write (it once overwrote it with the device's older bytes: a difftest
    program after several others, on vulkan)."""
    init_arch(arch, offline_cache=False)
    a = ti.field(ti.i32, shape=64)

    @ti.kernel
    def fill_a():
        for i in a:
            a[i] = i

    fill_a()
    b0 = ti.field(ti.i32, shape=16)  # the root grows with spare room

    @ti.kernel
    def touch():
        b0[0] = 7

    touch()  # the device holds the root with its spare room, newer than the host
    b = ti.field(ti.i32, shape=16)  # in the spare room
    c = ti.field(ti.i32, shape=4096)  # a larger root: a new host array
    b.from_numpy(np.arange(16, dtype=np.int32) + 100)

    @ti.kernel
    def add():
        for i in b:
            b[i] += c[i] + 1

    add()
    assert b.to_numpy().tolist() == list(range(101, 117))
    assert a.to_numpy().tolist() == list(range(64))
    assert b0[0] == 7
    ti.reset()


@pytest.mark.parametrize("cells_first", [False, True], ids=["append-activates", "cells-first"])
def test_appends_racing_for_first_chunks_all_land(arch, cells_first):
    """Regression (lavapipe): 20000 appends race to give 3600 lists (and their pointer
    cells) a first block; the invocations that find a block claimed wait for its
    publisher. Mesa's lavapipe ends every loop of an invocation after 65535 iterations
    in all, which cut that wait short when the publisher's thread was descheduled:
    about one round in 30 lost an element (written to block -1) or an increment of a
    length. Every append must land in its own slot, round after round (fresh blocks,
    then recycled ones); `cells_first` activates the pointer cells in a kernel of
    their own, so only the chunks race."""
    init_arch(arch, offline_cache=False, device_memory_GB=1.0)
    side, used, n = 128, 60, 20000
    pid, cells, lists, count, total = _particle_lists(side, 4096)
    cell = np.random.default_rng(11).integers(0, used, size=(n, 2)).astype(np.int32)
    where = ti.Vector.field(2, ti.i32, shape=n)
    where.from_numpy(cell)
    slot = ti.field(ti.i32, shape=n)

    @ti.kernel
    def activate():
        for p in where:
            ti.activate(cells, where[p])

    @ti.kernel
    def build():
        for p in where:
            slot[p] = ti.append(lists, where[p], p)

    @ti.kernel
    def gather(out: ti.types.ndarray()):
        for p in where:
            out[p] = pid[where[p], slot[p]]
        for i, j in count:
            count[i, j] = ti.length(lists, [i, j])

    flat = cell[:, 0] * side + cell[:, 1]
    want_count = np.bincount(flat, minlength=side * side).reshape(side, side)
    got = np.empty(n, np.int32)
    rounds = 60 if arch is ti.vulkan else 4
    for r in range(rounds):
        if r:
            cells.deactivate_all()
        if cells_first:
            activate()
        build()
        gather(got)
        slots = slot.to_numpy()
        assert len(np.unique(flat.astype(np.int64) * n + slots)) == n, f"round {r}: a slot twice"
        np.testing.assert_array_equal(got, np.arange(n), err_msg=f"round {r}")
        np.testing.assert_array_equal(count.to_numpy(), want_count, err_msg=f"round {r}")
    assert lists._num_dynamically_allocated == int((want_count > 0).sum())


def test_activation_wait_cut_short_raises(arch):
    """A kernel that found its wait for a claimed block ended by the driver (the state
    word's WAIT_CUT, codegen/sparse.py's _activate_pointer) raises at the next sync,
    naming the driver's loop limit, never reads on as if nothing happened."""
    from taichi_xdsl.utils.sparse_abi import EXHAUSTED, WAIT_CUT

    init_arch(arch, offline_cache=False)
    x = ti.field(ti.i32)
    cells = ti.root.pointer(ti.i, 8)
    cells.place(x)
    x[3] = 1
    state = cells._pool.state
    words = state.to_numpy()
    words[EXHAUSTED] = WAIT_CUT
    state.from_numpy(words)

    @ti.kernel
    def bump():
        for i in range(8):
            x[i] += 1

    with pytest.raises(TaichiError, match="ended by the Vulkan driver.*65535"):
        bump()
        ti.sync()
        x.to_numpy()


def test_sparse_pool_arrays_span_several_segments(small_segments):
    """A pool's arrays larger than one binding (oit_renderer's chunks on lavapipe): on
    Vulkan with variable pointers each element is found in its own segment; elements
    written by kernels and by Python read back exactly, through kernels and to_numpy."""
    arch = small_segments
    colors = ti.Vector.field(4, ti.f32)  # 512 bytes a chunk: 512 chunks, 4 segments
    lists = ti.root.dense(ti.i, 64).dynamic(ti.j, 256, chunk_size=32)
    lists.place(colors)
    y = ti.field(ti.i32)  # 256 bytes a block: 258 blocks, 2 segments
    blocks = ti.root.pointer(ti.i, 256)
    blocks.dense(ti.i, 64).place(y)
    sums = ti.Vector.field(4, ti.f32, shape=64)
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def fill():
        for i in range(64):
            for k in range(256):
                colors[i].append(ti.Vector([i, k, i * k % 97, 1.0]))
        for p in range(256 * 64):
            y[p] = p * 3

    @ti.kernel
    def reduce():
        for i in range(64):
            s = ti.Vector([0.0, 0.0, 0.0, 0.0])
            for k in range(colors[i].length()):
                s += colors[i, k]
            sums[i] = s
        for p in y:
            ti.atomic_add(total[None], y[p] % 7)

    fill()
    colors[63, 255] = ti.Vector([1.0, 2.0, 3.0, 4.0])  # Python scope, the last segment
    reduce()
    i, k = np.meshgrid(np.arange(64), np.arange(256), indexing="ij")
    want = np.stack([i, k, i * k % 97, np.ones_like(i)], -1).astype(np.float32)
    want[63, 255] = [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(colors.to_numpy(), want)
    np.testing.assert_array_equal(sums.to_numpy(), want.sum(axis=1))
    np.testing.assert_array_equal(y.to_numpy(), np.arange(256 * 64) * 3)
    assert total[None] == int((np.arange(256 * 64) * 3 % 7).sum())


    @ti.kernel
    def scale():  # compare-and-swap loops (no atomic multiply in SPIR-V)
        for p in y:
            ti.atomic_mul(y[p], 2)
        for i in range(64):
            for k in range(256):
                ti.atomic_mul(colors[i, k][2], 0.5)

    scale()
    np.testing.assert_array_equal(y.to_numpy(), np.arange(256 * 64) * 6)
    want[..., 2] *= 0.5
    np.testing.assert_array_equal(colors.to_numpy(), want)
    if arch is ti.vulkan:
        from taichi_xdsl.frontends.python.lang import program

        pool = lists._pool
        assert pool.capacity == 64 * 8
        spans = [f for f in pool.arrays if f.nbytes > SMALL_SEGMENT]
        assert spans and all(f.spans_segments for f in spans)
        assert program.get_program().root_segment_bytes == SMALL_SEGMENT
