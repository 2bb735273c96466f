"""
End-to-end: a struct-for over a sparse SNode generates the cell list of each
pointer/bitmasked level from the root (codegen/sparse.py, the taichi.list_* ops), then
runs a parallel loop over the deepest list. Each hierarchy shape, a struct-for over the
field and over every sparse level, on every arch, against NumPy; the lists are made
again at each launch (never stale after a deactivation); the paths without lists (a
serialized or nested struct-for, a level too large for a list) visit the same cells.
"""

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")

N = 16
WRITTEN = [(0, 0), (1, 5), (6, 6), (7, 15), (9, 2), (12, 12), (15, 0), (15, 15)]


def _pointer_bitmasked():
    a = ti.root.pointer(ti.ij, 4)
    b = a.bitmasked(ti.ij, 2)
    return b.dense(ti.ij, 2), [a, b]


def _pointer_of_pointer():
    a = ti.root.pointer(ti.ij, 2)
    b = a.pointer(ti.ij, 2)
    return b.dense(ti.ij, 4), [a, b]


def _new_axis_below_a_dense():  # the bitmasked level has an axis its parent lacks
    a = ti.root.pointer(ti.i, 4)
    b = a.dense(ti.j, 4).bitmasked(ti.ij, 4)
    return b, [a, b]


def _dense_above():
    a = ti.root.dense(ti.ij, 2).pointer(ti.ij, 2)
    b = a.bitmasked(ti.ij, 4)
    return b, [a, b]


HIERARCHIES = [_pointer_bitmasked, _pointer_of_pointer, _new_axis_below_a_dense, _dense_above]


def _active(cells: tuple[int, ...], written: list[tuple[int, int]]) -> np.ndarray:
    """Which cells of a level of `cells` cells (along i, or i and j) hold a written
    element."""
    out = np.zeros(cells, bool)
    for w in written:
        out[tuple(w[k] * n // N for k, n in enumerate(cells))] = True
    return out


def _build(hierarchy):
    x = ti.field(ti.i32)
    leaf, levels = hierarchy()
    leaf.place(x)
    visits = ti.field(ti.i32, shape=(N, N))

    @ti.kernel
    def write(i: ti.i32, j: ti.i32):
        x[i, j] = i * N + j + 1

    @ti.kernel
    def visit():
        for i, j in x:
            visits[i, j] += 1

    return x, levels, visits, write, visit


@pytest.mark.parametrize("hierarchy", HIERARCHIES, ids=lambda h: h.__name__.strip("_"))
def test_struct_for_visits_each_active_element_once(hierarchy):
    x, levels, visits, write, visit = _build(hierarchy)
    for i, j in WRITTEN:
        write(i, j)
    visit()
    deepest = levels[-1].shape
    expected = np.kron(_active(deepest, WRITTEN), np.ones((N // deepest[0], N // deepest[1])))
    np.testing.assert_array_equal(visits.to_numpy(), expected.astype(np.int32))
    values = np.zeros((N, N), np.int32)
    for i, j in WRITTEN:
        values[i, j] = i * N + j + 1
    np.testing.assert_array_equal(x.to_numpy(), values)


@pytest.mark.parametrize("hierarchy", HIERARCHIES, ids=lambda h: h.__name__.strip("_"))
def test_struct_for_over_each_level_visits_its_active_cells(hierarchy):
    x, levels, _, write, _ = _build(hierarchy)
    for i, j in WRITTEN:
        write(i, j)
    for level in levels:
        seen = ti.field(ti.i32, shape=level.shape)

        @ti.kernel
        def visit_cells(s: ti.template()):
            for c in ti.grouped(level):
                s[c] += 1

        visit_cells(seen)
        np.testing.assert_array_equal(
            seen.to_numpy(), _active(level.shape, WRITTEN).astype(np.int32)
        )


def test_lists_are_made_again_after_a_deactivation():
    x, levels, visits, write, visit = _build(_pointer_bitmasked)
    for i, j in WRITTEN:
        write(i, j)
    visit()
    top = levels[0]

    @ti.kernel
    def drop(a: ti.i32, b: ti.i32):
        ti.deactivate(top, [a, b])

    drop(0, 0)  # elements (0..3, 0..3): (0, 0) and (1, 5) stays in block (0, 1)
    visits.fill(0)
    visit()
    left = [w for w in WRITTEN if (w[0] // 4, w[1] // 4) != (0, 0)]
    expected = np.kron(_active((8, 8), left), np.ones((2, 2)))
    np.testing.assert_array_equal(visits.to_numpy(), expected.astype(np.int32))


def test_two_struct_fors_of_one_tree_in_one_kernel():
    x, levels, visits, write, _ = _build(_pointer_bitmasked)
    for i, j in WRITTEN:
        write(i, j)
    blocks = ti.field(ti.i32, shape=levels[0].shape)
    top = levels[0]

    @ti.kernel
    def both():
        for i, j in x:
            visits[i, j] += 1
        for a, b in top:
            blocks[a, b] += 1
        for i, j in x:
            visits[i, j] += 10

    both()
    expected = np.kron(_active((8, 8), WRITTEN), np.ones((2, 2))) * 11
    np.testing.assert_array_equal(visits.to_numpy(), expected.astype(np.int32))
    np.testing.assert_array_equal(blocks.to_numpy(), _active((4, 4), WRITTEN).astype(np.int32))


def test_serialized_and_nested_struct_fors_visit_the_same_cells():
    x, levels, visits, write, _ = _build(_pointer_of_pointer)
    for i, j in WRITTEN:
        write(i, j)
    order = ti.field(ti.i32, shape=())

    @ti.kernel
    def serial_and_nested():
        ti.loop_config(serialize=True)
        for i, j in x:
            visits[i, j] += 1
        for _ in range(1):
            for i, j in x:
                visits[i, j] += 10
        ti.loop_config(serialize=True)
        for i, j in x:  # serial: the elements come in order
            if i * N + j < order[None]:
                order[None] = -1 << 20
            order[None] = i * N + j

    serial_and_nested()
    expected = np.kron(_active((4, 4), WRITTEN), np.ones((4, 4))) * 11
    np.testing.assert_array_equal(visits.to_numpy(), expected.astype(np.int32))
    assert order[None] >= 0


def test_a_level_past_the_list_limit_tests_every_cell(monkeypatch):
    from taichi_xdsl.frontends.python.lang import snode

    monkeypatch.setattr(snode, "CELL_LIST_LIMIT", 16)  # the pointer gets a list, not the bitmasked
    x, levels, visits, write, visit = _build(_pointer_bitmasked)
    assert levels[0].cell_list is not None and levels[1].cell_list is None
    for i, j in WRITTEN:
        write(i, j)
    visit()
    expected = np.kron(_active((8, 8), WRITTEN), np.ones((2, 2)))
    np.testing.assert_array_equal(visits.to_numpy(), expected.astype(np.int32))
