"""
End-to-end: sparse SNodes (pointer, bitmasked, dynamic and hierarchies of them), on
every arch: activation on write, struct-for over active cells only, ti.activate /
deactivate / is_active / append / length, Python-scope access, compared with NumPy.
"""

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

pytestmark = pytest.mark.usefixtures("program")


def test_sparse_extension_is_claimed(arch):
    assert ti.is_extension_supported(arch, ti.extension.sparse)


def test_pointer_write_activates_block_and_struct_for_visits_active_blocks():
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 8)
    ptr.dense(ti.i, 4).place(x)
    visits = ti.field(ti.i32, shape=())
    blocks = ti.field(ti.i32, shape=8)

    @ti.kernel
    def write():
        x[5] = 3  # block 1
        x[30] = 7  # block 7

    @ti.kernel
    def count():
        for i in x:
            visits[None] += 1 + x[i]
        for b in ptr:
            blocks[b] += 1

    write()
    count()
    assert visits[None] == 8 + 10  # two blocks of 4, plus the values
    np.testing.assert_array_equal(blocks.to_numpy(), [0, 1, 0, 0, 0, 0, 0, 1])
    expected = np.zeros(32, np.int32)
    expected[[5, 30]] = [3, 7]
    np.testing.assert_array_equal(x.to_numpy(), expected)


def test_pointer_deactivate_zeroes_and_reactivation_starts_from_zero():
    x = ti.field(ti.f32)
    ptr = ti.root.pointer(ti.ij, 4)
    ptr.dense(ti.ij, 2).place(x)
    active = ti.field(ti.i32, shape=4)

    @ti.kernel
    def fill():
        for i, j in ti.ndrange(8, 8):
            x[i, j] = i * 8 + j + 1

    @ti.kernel
    def drop(ci: ti.i32, cj: ti.i32):
        ti.deactivate(ptr, [ci, cj])

    @ti.kernel
    def touch_and_query():
        x[2, 3] += 100.0  # block (1, 1) again: starts from 0
        active[0] = ti.is_active(ptr, [1, 1])
        active[1] = ti.is_active(ptr, [0, 0])
        active[2] = ti.is_active(ptr, [3, 2])

    fill()
    drop(1, 1)
    drop(3, 2)
    ref = (np.arange(64, dtype=np.float32) + 1).reshape(8, 8)
    ref[2:4, 2:4] = 0
    ref[6:8, 4:6] = 0
    np.testing.assert_array_equal(x.to_numpy(), ref)
    assert x[2, 3] == 0.0
    touch_and_query()
    ref[2, 3] = 100.0
    np.testing.assert_array_equal(x.to_numpy(), ref)
    np.testing.assert_array_equal(active.to_numpy(), [1, 1, 0, 0])


def test_deactivating_from_every_element_clears_each_block_once():
    a = ti.field(ti.f32)
    ptr = ti.root.pointer(ti.ij, 16)
    ptr.dense(ti.ij, 4).place(a)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def fill():
        for i, j in ti.ndrange(64, 64):
            if (i // 4 + j // 4) % 3 == 0:
                a[i, j] = 2.0

    @ti.kernel
    def clear_some():
        for i, j in a.parent():
            if i < 32:
                ti.deactivate(ptr, ti.rescale_index(a, ptr, [i, j]))

    @ti.kernel
    def sum_active():
        for i, j in a:
            total[None] += a[i, j] + 1.0

    fill()
    clear_some()
    sum_active()
    bi, bj = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    live = ((bi + bj) % 3 == 0) & (bi >= 8)
    assert total[None] == live.sum() * 16 * 3.0
    ref = np.repeat(np.repeat(live, 4, 0), 4, 1) * 2.0
    np.testing.assert_array_equal(a.to_numpy(), ref)


def test_bitmasked_struct_for_skips_inactive_but_reads_keep_data():
    x = ti.field(ti.i32)
    bm = ti.root.bitmasked(ti.ij, (6, 5))
    bm.place(x)
    s = ti.field(ti.i32, shape=())

    @ti.kernel
    def setup():
        x[1, 2] = 10
        x[4, 0] = 20
        x[5, 4] = 30
        ti.deactivate(bm, [4, 0])

    @ti.kernel
    def total():
        for i, j in x:
            s[None] += x[i, j] + 1

    setup()
    total()
    assert s[None] == 10 + 30 + 2
    assert ti.is_active(bm, [1, 2]) == 1 and ti.is_active(bm, [4, 0]) == 0
    ref = np.zeros((6, 5), np.int32)
    ref[1, 2], ref[5, 4] = 10, 30
    np.testing.assert_array_equal(x.to_numpy(), ref)  # inactive -> 0
    assert x[4, 0] == 20  # a bitmasked cell keeps its data, as in Taichi


def test_dynamic_append_length_and_struct_for():
    x = ti.field(ti.i32)
    lists = ti.root.dense(ti.i, 5).dynamic(ti.j, 8, chunk_size=4)
    lists.place(x)
    olds = ti.field(ti.i32, shape=(5, 10))
    lengths = ti.field(ti.i32, shape=5)
    s = ti.field(ti.i32, shape=5)

    @ti.kernel
    def build():
        for i in range(5):
            for k in range(2 * i):  # row 4 asks for 8 slots, row 5 would overflow
                olds[i, k] = ti.append(x.parent(), i, i * 100 + k)
        for i in range(5):
            lengths[i] = ti.length(lists, i)

    @ti.kernel
    def walk():
        for i, j in x:
            s[i] += x[i, j] - i * 100 + 1

    build()
    walk()
    np.testing.assert_array_equal(lengths.to_numpy(), [0, 2, 4, 6, 8])
    for i in range(5):
        np.testing.assert_array_equal(olds.to_numpy()[i, : 2 * i], np.arange(2 * i))
    np.testing.assert_array_equal(s.to_numpy(), [sum(range(1, 2 * i + 1)) for i in range(5)])
    assert ti.length(lists, 3) == 6


def test_dynamic_parallel_append_counts_every_element():
    x = ti.field(ti.i32)
    d = ti.root.dynamic(ti.i, 4096)
    d.place(x)

    @ti.kernel
    def build():
        for k in range(3000):
            x.append(k)

    build()
    assert ti.length(d, []) == 3000
    got = np.sort(x.to_numpy()[:3000])
    np.testing.assert_array_equal(got, np.arange(3000))
    np.testing.assert_array_equal(x.to_numpy()[3000:], 0)


def test_dynamic_list_methods_vectors_and_deactivate():
    v = ti.Vector.field(2, ti.f32)
    d = ti.root.dense(ti.i, 3).dynamic(ti.j, 4)
    d.place(v)
    n = ti.field(ti.i32, shape=3)

    @ti.kernel
    def build():
        for i in range(3):
            for k in range(i + 2):  # row 2 has 4 slots: the 5th append is dropped
                v[i].append(ti.Vector([i, k + 0.5]))
        v[1].deactivate()
        for i in range(3):
            n[i] = v[i].length()

    build()
    np.testing.assert_array_equal(n.to_numpy(), [2, 0, 4])
    got = v.to_numpy()
    np.testing.assert_array_equal(got[1], 0)
    np.testing.assert_array_equal(got[2, :, 1], [0.5, 1.5, 2.5, 3.5])
    np.testing.assert_array_equal(got[0, 2:], 0)


def test_pointer_bitmasked_dense_hierarchy_with_several_fields_and_offset():
    a = ti.field(ti.f32)
    b = ti.Vector.field(3, ti.i32)
    blocks = ti.root.pointer(ti.ij, 4).bitmasked(ti.ij, 2)
    blocks.dense(ti.ij, 2).place(a, b, offset=(-8, 0))
    cnt = ti.field(ti.i32, shape=())
    cells = ti.field(ti.i32, shape=())

    @ti.kernel
    def write():
        a[-8, 0] = 1.5
        b[7, 15] = ti.Vector([1, 2, 3])

    @ti.kernel
    def visit():
        for i, j in a:
            cnt[None] += 1
            b[i, j][0] += i
        for I in ti.grouped(blocks):
            cells[None] += 1

    write()
    visit()
    assert cnt[None] == 8  # two bitmasked cells of 2x2
    assert cells[None] == 2
    got = b.to_numpy()
    assert got.shape == (16, 16, 3)
    assert got[15, 15, 0] == 7 + 1 and got[0, 0, 0] == -8
    assert a[-8, 0] == 1.5 and a[-7, 1] == 0.0
    assert got.sum() == (-8 * 2 - 7 * 2) + (6 * 2 + 7 * 2) + (1 + 2 + 3)


def test_python_scope_writes_fill_from_numpy_and_deactivate_all():
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 4)
    ptr.dense(ti.i, 4).place(x)
    s = ti.field(ti.i32, shape=())

    @ti.kernel
    def count() -> ti.i32:
        s[None] = 0
        for i in x:
            s[None] += 1
        return s[None]

    x[6] = 2  # activates block 1
    assert count() == 4
    x.fill(9)  # fills active cells only, as Taichi's fill
    ref = np.zeros(16, np.int32)
    ref[4:8] = 9
    np.testing.assert_array_equal(x.to_numpy(), ref)
    ptr.deactivate_all()
    assert count() == 0
    np.testing.assert_array_equal(x.to_numpy(), 0)
    x.from_numpy(np.arange(16, dtype=np.int32))
    assert count() == 16
    ti.deactivate_all_snodes()
    assert count() == 0 and x[6] == 0


def test_no_activate_leaves_cells_inactive():
    x = ti.field(ti.i32)
    d = ti.root.dynamic(ti.i, 64)
    d.place(x)

    @ti.kernel
    def init():
        for i in range(16):
            x[i] = 1

    @ti.kernel
    def bump():
        ti.no_activate(d)
        for i in range(8):
            x[i * 2 + 1] += 1

    init()
    bump()
    assert ti.length(d, []) == 16
    np.testing.assert_array_equal(x.to_numpy()[:16], [1, 2] * 8)


def test_activate_deactivate_cycle_does_not_grow_memory():
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.ij, 8)
    ptr.dense(ti.ij, 4).place(x)

    @ti.kernel
    def step(k: ti.i32):
        for i, j in ti.ndrange(32, 32):
            if (i + j + k) % 7 == 0:
                x[i, j] += 1
        for i, j in ptr:
            ti.deactivate(ptr, [i, j])

    from taichi_xdsl.frontends.python.lang import program as _program

    step(0)
    size = _program.get_program().root_size
    for k in range(20):
        step(k)
    assert _program.get_program().root_size == size
    np.testing.assert_array_equal(x.to_numpy(), 0)


def test_unsupported_sparse_requests_raise_clear_errors():
    with pytest.raises(TaichiError, match="hash"):
        ti.root.hash(ti.i, 4)
    x = ti.field(ti.i32)
    d = ti.root.dynamic(ti.i, 8)
    d.place(x)

    @ti.kernel
    def ask() -> ti.i32:
        return ti.is_active(d, [0])

    with pytest.raises(Exception, match="is_active only works"):
        ask()
    y = ti.field(ti.f32)
    # its cell words alone are 16 GiB: past what 32-bit offsets address
    with pytest.raises(TaichiError, match=r"shape \(65536, 65536\) takes the fields to 16.00 GiB"):
        ti.root.pointer(ti.ij, 2**16).dense(ti.ij, 2**8).place(y)


def test_sparse_grid_usage_counts_written_cells():
    g = ti.sparse.grid({"pos": ti.math.vec2, "mass": ti.f32}, shape=(4, 5))
    assert ti.sparse.usage(g) == 0.0
    g[0, 0].mass = 1.0
    g[3, 4].pos = ti.math.vec2(1, 2)
    assert ti.sparse.usage(g) == pytest.approx(2 / 20)
    assert g[3, 4].pos[1] == 2.0 and g[0, 0].mass == 1.0


def test_writes_in_sparse_struct_for_activate_other_index_spaces():
    # Writing x at the block loop's own (i, j) lands in another cell of x's pointer:
    # the loop's active cell says nothing about it, so it must be activated.
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.ij, 4)
    ptr.dense(ti.ij, 4).place(x)
    s = ti.field(ti.i32, shape=())

    @ti.kernel
    def spread():
        for i, j in ptr:
            x[i, j] = 5

    @ti.kernel
    def count():
        for i, j in x:
            if x[i, j] == 0:
                continue
            s[None] += x[i, j]

    x[13, 9] = 1  # block (3, 2) active
    spread()  # writes x[3, 2]: block (0, 0)
    count()
    assert s[None] == 6
    assert ti.is_active(ptr, [0, 0]) == 1


def test_fields_builder_tree_with_a_pointer():
    fb = ti.FieldsBuilder()
    a = ti.field(ti.i32)
    b = ti.field(ti.f32)
    fb.dense(ti.i, 4).place(a)
    fb.pointer(ti.j, 4).place(b)
    tree = fb.finalize()

    @ti.kernel
    def fill():
        for i in range(4):
            a[i] = i + 1
        b[2] = 1.5

    @ti.kernel
    def count() -> ti.i32:
        n = 0
        for j in b:
            n += 1
        return n

    fill()
    np.testing.assert_array_equal(a.to_numpy(), [1, 2, 3, 4])
    assert b.shape == (4,) and ti.is_active(b.parent(), [2]) == 1 and count() == 1
    tree.destroy()


def test_aot_module_with_sparse_fields_saves_and_loads(arch, tmp_path):
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 4)
    ptr.dense(ti.i, 4).place(x)
    s = ti.field(ti.i32, shape=())

    @ti.kernel
    def write(i: ti.i32):
        x[i] = i + 1

    @ti.kernel
    def count():
        for i in x:
            s[None] += 1 + x[i]

    m = ti.aot.Module(arch)
    m.add_field("x", x)
    m.add_field("s", s)
    m.add_kernel(write)
    m.add_kernel(count)
    m.save(str(tmp_path / "mod"))
    mod = ti.aot.load(str(tmp_path / "mod"))
    mod.get_kernel("write")(5)
    mod.get_kernel("count")()
    assert int(mod.get_field("s")) == 4 + 6  # one active block of 4, plus x[5] = 6


def test_autodiff_through_a_sparse_struct_for():
    x = ti.field(ti.f32, needs_grad=True)
    ptr = ti.root.pointer(ti.i, 4)
    ptr.dense(ti.i, 4).place(x, x.grad)  # as in Taichi, the gradient is placed too
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def f():
        for i in x:
            loss[None] += x[i] * x[i]

    x[5] = 3.0
    x[13] = 2.0
    with ti.ad.Tape(loss=loss):
        f()
    assert loss[None] == 13.0
    expected = np.zeros(16, np.float32)
    expected[[5, 13]] = [6.0, 4.0]
    np.testing.assert_array_equal(x.grad.to_numpy(), expected)


def test_struct_list_methods_and_one_extent_for_several_axes():
    edge = ti.types.struct(a=ti.i32, b=ti.f32)
    edges = edge.field()
    ti.root.dynamic(ti.i, 16, chunk_size=4).place(edges)
    g = ti.field(ti.i32)
    blocks = ti.root.pointer(ti.ij, [3])  # one extent, every axis
    blocks.dense(ti.ij, 2).place(g)
    n = ti.field(ti.i32, shape=2)

    @ti.kernel
    def build():
        edges.deactivate()
        for k in range(5):
            edges.append(edge(k, k * 0.5))
        n[0] = edges.length()
        g[5, 5] = 1

    edges[0].a = 99  # Python scope, then the kernel clears the list first
    build()
    build()
    assert n[0] == 5 and ti.length(edges.a.parent(), []) == 5
    a = edges.a.to_numpy()
    np.testing.assert_array_equal(np.sort(a[:5]), [0, 1, 2, 3, 4])  # appended in parallel
    np.testing.assert_array_equal(edges.b.to_numpy()[:5], a[:5] * 0.5)
    assert a[5] == 0
    assert g.shape == (6, 6) and ti.is_active(blocks, [2, 2]) == 1


def test_rescale_index_both_ways():
    a = ti.field(ti.f32)
    b = ti.field(ti.f32)
    ti.root.dense(ti.ij, 4).dense(ti.ij, 4).place(a)
    ti.root.dense(ti.ij, 4).place(b)

    @ti.kernel
    def fine_to_coarse():
        for I in ti.grouped(a):
            b[ti.rescale_index(a, b, I)] += 1.0

    @ti.kernel
    def coarse_to_fine():
        for I in ti.grouped(b):
            a[ti.rescale_index(b, a, I)] = 1.0

    coarse_to_fine()
    fine_to_coarse()
    np.testing.assert_array_equal(b.to_numpy(), 16.0)
    ref = np.zeros((16, 16), np.float32)
    ref[::4, ::4] = 1.0
    np.testing.assert_array_equal(a.to_numpy(), ref)
    assert list(ti.rescale_index(b, a, [1, 2]).to_numpy()) == [4, 8]
