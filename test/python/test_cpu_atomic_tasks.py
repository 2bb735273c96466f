"""
Atomics in parallel loops, on cpu and vulkan, where the compiler drops them:
- places it proves private to one iteration (lowering/demote_atomics.py: an element
  whose first index is the loop index): the rows of a split 2-d loop own their cells, a
  vector field's element owns its components; a field also read at another iteration's
  element keeps its atomics;
- on the CPU, the serial form of a loop with atomics (lowering/add_serial_forms.py), run
  when one thread runs the whole range (one thread, a short range, or the runtime found
  it faster than the parallel form): every launch must give what the atomics give.
"""

# No `from __future__ import annotations`: the kernels annotate with local dtypes.

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def test_rows_and_components_owned_by_their_iteration():
    n = 64
    grid_v = ti.Vector.field(2, ti.f32, (n, n))
    grid_m = ti.field(ti.f32, (n, n))
    x = ti.Vector.field(2, ti.f32, n * n)
    v = ti.Vector.field(2, ti.f32, n * n)

    @ti.kernel
    def update():
        for i, j in grid_m:
            if grid_m[i, j] > 0:
                grid_v[i, j] /= grid_m[i, j]
            grid_v[i, j].y -= 0.5
            grid_v[i, j] += [i * 0.25, j * 0.125]
            if i < 3 and grid_v[i, j].x < 0:
                grid_v[i, j].x = 0
        for p in x:
            x[p] += 0.5 * v[p]
            x[p].y -= 1

    rng = np.random.default_rng(7)
    gv = rng.standard_normal((n, n, 2)).astype(np.float32)
    gm = (rng.random((n, n)) - 0.3).astype(np.float32)
    x0 = rng.standard_normal((n * n, 2)).astype(np.float32)
    v0 = rng.standard_normal((n * n, 2)).astype(np.float32)
    grid_v.from_numpy(gv)
    grid_m.from_numpy(gm)
    x.from_numpy(x0)
    v.from_numpy(v0)
    update()

    want = gv.copy()
    heavy = gm > 0
    want[heavy] /= gm[heavy][:, None]
    want[..., 1] -= np.float32(0.5)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    want[..., 0] += (i * 0.25).astype(np.float32)
    want[..., 1] += (j * 0.125).astype(np.float32)
    want[:3, :, 0] = np.maximum(want[:3, :, 0], 0)
    np.testing.assert_allclose(grid_v.to_numpy(), want, rtol=1e-6, atol=1e-6)
    want_x = x0 + np.float32(0.5) * v0
    want_x[:, 1] -= 1
    np.testing.assert_allclose(x.to_numpy(), want_x, rtol=1e-6, atol=1e-6)


def test_shared_counters_keep_their_atomics():
    """Every row adds to every column counter hits[j]: those atomics must stay (a lost
    update shows as a count below n), while a[i, j] of its own row is demoted."""
    n = 48
    a = ti.field(ti.i32, (n, n))
    hits = ti.field(ti.i32, n)

    @ti.kernel
    def bump():
        for i, j in a:
            a[i, j] += 1
            hits[j] += 1

    a.from_numpy(np.arange(n * n, dtype=np.int32).reshape(n, n))
    bump()
    np.testing.assert_array_equal(a.to_numpy(), np.arange(n * n).reshape(n, n) + 1)
    np.testing.assert_array_equal(hits.to_numpy(), np.full(n, n))


def _scatter_kernels(n: int, cells: int):
    pos = ti.field(ti.i32, n)
    weight = ti.field(ti.f32, n)
    grid = ti.field(ti.f32, cells)
    hist = ti.field(ti.i32, cells)
    count = ti.field(ti.i32, ())
    order = ti.field(ti.i32, n)

    @ti.kernel
    def scatter():
        for c in grid:
            grid[c] = 0
            hist[c] = 0
        count[None] = 0
        for p in pos:
            grid[pos[p]] += weight[p]
            hist[pos[p]] += 1
            order[ti.atomic_add(count[None], 1)] = p  # the old value: a slot of one's own

    return pos, weight, grid, hist, count, order, scatter


@pytest.mark.parametrize("threads", [None, 1])
def test_scatter_with_atomics_in_either_form(arch, threads):
    """A particle-to-grid style scatter, launched more times than the CPU runtime's
    trial of its two forms (and on one thread: the serial form alone): sums, counts and
    the slots that `ti.atomic_add`'s return value hands out are right every time."""
    if threads is not None:
        if arch != ti.cpu:
            pytest.skip("cpu_max_num_threads is a CPU option")
        ti.init(arch=ti.cpu, cpu_max_num_threads=threads)
    n, cells = 50_000, 97
    pos, weight, grid, hist, count, order, scatter = _scatter_kernels(n, cells)
    rng = np.random.default_rng(3)
    p = rng.integers(0, cells, n).astype(np.int32)
    w = rng.integers(-8, 9, n).astype(np.float32) * np.float32(0.25)  # exact sums
    pos.from_numpy(p)
    weight.from_numpy(w)
    want_grid = np.bincount(p, weights=w, minlength=cells).astype(np.float32)
    want_hist = np.bincount(p, minlength=cells)
    for _ in range(12):
        scatter()
        np.testing.assert_array_equal(grid.to_numpy(), want_grid)
        np.testing.assert_array_equal(hist.to_numpy(), want_hist)
        assert count[None] == n
        np.testing.assert_array_equal(np.sort(order.to_numpy()), np.arange(n))
