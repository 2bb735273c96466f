"""
Atomics in parallel loops whose places the compiler proves private to one iteration
(lowering/demote_atomics.py: an element whose first index is the loop index), on cpu and
vulkan: the demoted update must give what the atomic gave. The rows of a split 2-d loop
own their cells, a vector field's element owns its components; a field also read at
another iteration's element keeps its atomics.
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
