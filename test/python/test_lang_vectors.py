"""
End-to-end: ti.Vector / ti.Matrix values, Vector/Matrix fields and ndarrays, ti.math,
compared with NumPy.
"""

import numpy as np
import pytest
import taichi_xdsl as ti


# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_elementwise_and_reductions():
    @ti.kernel
    def k(a: ti.f32) -> ti.types.vector(8, ti.f32):
        v = ti.Vector([1.0, a, 3.0])
        w = ti.Vector([4.0, 5.0, 6.0])
        u = (v + w) * 2 - w / 2 + v**2
        return ti.Vector([u[0], u[1], u[2], v.sum(), w.max(), w.min(), v.dot(w), v.norm()])

    v, w = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    u = (v + w) * 2 - w / 2 + v**2
    want = [*u, v.sum(), w.max(), w.min(), v @ w, np.linalg.norm(v)]
    np.testing.assert_allclose(k(2.0).to_numpy(), want, rtol=1e-6)


def test_matrix_ops():
    @ti.kernel
    def k(s: ti.f32) -> ti.types.matrix(3, 3, ti.f32):
        m = ti.Matrix([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, s]])
        v = ti.Vector([1.0, 2.0, 3.0])
        return m.inverse() + m.transpose() @ m + v.outer_product(v) * m.determinant()

    m = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
    v = np.array([1.0, 2.0, 3.0])
    want = np.linalg.inv(m) + m.T @ m + np.outer(v, v) * np.linalg.det(m)
    np.testing.assert_allclose(k(4.0).to_numpy(), want, rtol=1e-5)


def test_2x2_inverse_trace_cross_and_matvec():
    @ti.kernel
    def k() -> ti.types.vector(7, ti.f32):
        m = ti.Matrix([[4.0, 7.0], [2.0, 6.0]])
        inv = m.inverse()
        mv = m @ ti.Vector([1.0, -1.0])
        c = ti.Vector([1.0, 0.0, 0.0]).cross(ti.Vector([0.0, 1.0, 0.0]))
        return ti.Vector([inv[0, 0], inv[1, 1], m.trace(), mv[0], mv[1], c.z, c.x])

    inv = np.linalg.inv([[4.0, 7.0], [2.0, 6.0]])
    np.testing.assert_allclose(
        k().to_numpy(), [inv[0, 0], inv[1, 1], 10, -3, -4, 1, 0], rtol=1e-6
    )


def test_swizzles_and_component_assignment():
    @ti.kernel
    def k() -> ti.types.vector(4, ti.f32):
        v = ti.math.vec4(1.0, 2.0, 3.0, 4.0)
        v.x = 10.0
        v.zw = ti.Vector([30.0, 40.0])
        v[1] += 5.0
        return ti.math.vec4(v.wz, v.rg)

    np.testing.assert_array_equal(k().to_numpy(), [40, 30, 10, 7])


def test_dynamic_index():
    @ti.kernel
    def k(i: ti.i32) -> ti.f32:
        v = ti.Vector([10.0, 20.0, 30.0])
        v[i] = v[i] + 1.0
        return v[i] * 100 + v.sum()

    for i in range(3):
        v = np.array([10.0, 20.0, 30.0])
        v[i] += 1
        assert k(i) == pytest.approx(v[i] * 100 + v.sum())


def test_constructors():
    @ti.kernel
    def k() -> ti.types.matrix(2, 3, ti.f32):
        z = ti.Vector.zero(ti.f32, 3)
        o = ti.Vector.one(ti.f32, 3)
        u = ti.Vector.unit(3, 1)
        e = ti.Matrix.identity(ti.f32, 3)
        return ti.Matrix([[z.sum() + o.sum(), u.y, e[1, 1]], [e[0, 1], o.x, 2.0]])

    np.testing.assert_array_equal(k().to_numpy(), [[3, 1, 1], [0, 1, 2]])


def test_vector_field_and_list_assignment():
    x = ti.Vector.field(2, ti.f32, shape=(4, 5))
    m = ti.Matrix.field(2, 2, ti.f32, shape=3)

    @ti.kernel
    def k():
        for i, j in x:
            x[i, j] = [i, j]
            x[i, j].y += 0.5
        for p in m:
            m[p] = ti.Matrix([[p, 1], [2, 3]])
            m[p][1, 0] = 7

    k()
    a = x.to_numpy()
    assert a.shape == (4, 5, 2)
    i, j = np.meshgrid(np.arange(4), np.arange(5), indexing="ij")
    np.testing.assert_array_equal(a[..., 0], i)
    np.testing.assert_array_equal(a[..., 1], j + 0.5)
    np.testing.assert_array_equal(m.to_numpy()[:, 1, 0], 7)
    np.testing.assert_array_equal(m.to_numpy()[:, 0, 0], [0, 1, 2])
    assert list(x[2, 3].to_numpy()) == [2, 3.5]
    x[0, 0] = [9, 8]
    assert x.to_numpy()[0, 0].tolist() == [9, 8]


def test_vector_index_and_atomic_scatter():
    grid = ti.field(ti.f32, shape=(6, 6))
    gv = ti.Vector.field(2, ti.f32, shape=(6, 6))

    @ti.kernel
    def k():
        for p in range(4):
            base = ti.Vector([1, 1])
            for i, j in ti.static(ti.ndrange(3, 3)):
                offset = ti.Vector([i, j])
                grid[base + offset] += 1.0
                gv[base + offset] += ti.Vector([1.0, 2.0])

    k()
    want = np.zeros((6, 6))
    want[1:4, 1:4] = 4
    np.testing.assert_array_equal(grid.to_numpy(), want)
    np.testing.assert_array_equal(gv.to_numpy()[..., 1], 2 * want)


def test_grouped_loop():
    x = ti.Vector.field(3, ti.i32, shape=(2, 3))

    @ti.kernel
    def k():
        for I in ti.grouped(x):
            x[I] = ti.Vector([I[0], I[1], I.sum()])

    k()
    a = x.to_numpy()
    assert a[1, 2].tolist() == [1, 2, 3]


def test_vector_ndarray():
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)):
        for i in a:
            a[i] = a[i].normalized() * (i + 1)

    arr = ti.Vector.ndarray(3, ti.f32, 4)
    arr.arr[:] = [3.0, 0.0, 4.0]
    k(arr)
    want = np.array([0.6, 0.0, 0.8]) * np.arange(1, 5)[:, None]
    np.testing.assert_allclose(arr.to_numpy(), want, rtol=1e-6)


def test_ti_math():
    @ti.kernel
    def k(t: ti.f32) -> ti.types.vector(9, ti.f32):
        v = ti.math.vec2(-1.5, 2.25)
        c = ti.math.clamp(v, -1.0, 1.0)
        return ti.Vector(
            [
                c.x,
                ti.math.mix(0.0, 10.0, t),
                ti.math.step(0.5, t),
                ti.math.smoothstep(0.0, 1.0, t),
                ti.math.fract(v).y,
                ti.math.sign(v).x,
                ti.math.length(ti.math.vec2(3.0, 4.0)),
                ti.math.distance(ti.math.vec2(1.0, 1.0), ti.math.vec2(4.0, 5.0)),
                ti.math.log2(8.0 * t / t),
            ]
        )

    np.testing.assert_allclose(
        k(0.25).to_numpy(),
        [-1.0, 2.5, 0.0, 0.15625, 0.25, -1.0, 5.0, 5.0, 3.0],
        rtol=1e-6,
    )


def test_isnan_isinf_reflect_normalize(arch):
    ti.init(arch=arch, fast_math=False)  # fast math assumes no NaN/inf (as Taichi)

    @ti.kernel
    def k(z: ti.f32) -> ti.types.vector(6, ti.i32):
        nan = z / z
        inf = 1.0 / z
        r = ti.math.reflect(ti.math.vec2(1.0, -1.0), ti.math.vec2(0.0, 1.0))
        n = ti.math.normalize(ti.math.vec2(0.0, 5.0))
        return ti.Vector(
            [
                ti.math.isnan(nan),
                ti.math.isinf(inf),
                ti.math.isnan(1.0 + z),
                ti.math.isinf(z),
                ti.cast(r.y, ti.i32),
                ti.cast(n.y, ti.i32),
            ]
        )

    assert k(0.0).to_numpy().tolist() == [1, 1, 0, 0, 1, 1]


def test_vector_returned_from_func_branches():
    @ti.func
    def pick(c, a, b):
        if c > 0:
            return a
        else:
            return b

    @ti.kernel
    def k(c: ti.i32) -> ti.types.vector(2, ti.f32):
        return pick(c, ti.Vector([1.0, 2.0]), ti.Vector([3.0, 4.0]))

    assert k(1).to_numpy().tolist() == [1, 2]
    assert k(0).to_numpy().tolist() == [3, 4]


def test_python_scope_vectors():
    v = ti.Vector([3.0, 4.0])
    assert v.norm() == 5.0
    assert (v + 1).to_list() == [4.0, 5.0]
    assert v.x == 3.0
    m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
    assert (m @ v).to_list() == [11.0, 25.0]
    assert ti.math.vec3(1).to_list() == [1.0, 1.0, 1.0]
    assert ti.math.clamp(2.0, 0.0, 1.0) == 1.0


def test_wrong_shapes_are_errors():
    @ti.kernel
    def k() -> ti.f32:
        a = ti.Vector([1.0, 2.0])
        b = ti.Vector([1.0, 2.0, 3.0])
        return (a + b).sum()

    with pytest.raises(ti.TaichiCompilationError, match="shapes"):
        k()


def test_local_vector_accumulator_in_parallel_loop(arch):
    # A local vector declared outside a parallel loop is shared by its iterations:
    # `v[k] += 1` (run-time k) and `v += 1` must not lose updates.
    @ti.kernel
    def histogram() -> ti.i32:
        v = ti.Vector([0, 0, 0, 0, 0, 0, 0, 0])
        for i in range(100000):
            v[i % 8] += 1
        return v.sum() * 100 + v[3] // 12500

    @ti.kernel
    def both() -> ti.i32:
        v = ti.Vector([0, 0])
        for i in range(100000):
            v[0] += 1
            v += 1
        return v[0] + v[1]

    assert histogram() == 100000 * 100 + 1
    assert both() == 300000


def test_matrix_slices_read_and_write():
    """`v[:b:2]`, `m[1:, :]`, `m[:, j]` (j known at run time) read parts; `m[:, 0] = v`,
    `m[1, 1:3] = v`, `m[:2, :] += rows` write them; a bound known only at run time is
    a compile error."""

    @ti.kernel
    def reads(j: ti.i32) -> ti.types.vector(9, ti.i32):
        c = ti.Vector([0, 1, 2, 3, 4, 5, 6])
        a = ti.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        s = c[:6:2]
        m = a[1:, :]
        col = a[:, j]
        return ti.Vector([s[0], s[1], s[2], m[0, 0], m[1, 2], col[0], col[1], col[2], m.n])

    @ti.kernel
    def writes() -> ti.types.matrix(3, 4, ti.i32):
        mat = ti.Matrix([[1, 1, 1, 1] for _ in range(3)])
        mat[:, 0] = ti.Vector([7, 8, 9])
        mat[1, 1:3] = ti.Vector([5, 6])
        mat[:2, :] += ti.Matrix([[1, 2, 3, 4] for _ in range(2)])
        return mat

    @ti.kernel
    def variable_bound(i: ti.i32):
        a = ti.Vector([0, 1, 2, 3])
        b = a[i::2]

    assert reads(2).to_list() == [0, 2, 4, 4, 9, 3, 6, 9, 2]
    assert writes().to_list() == [[8, 3, 4, 5], [9, 7, 9, 5], [9, 1, 1, 1]]
    with pytest.raises(ti.TaichiCompilationError, match="does not support variables in slice"):
        variable_bound(1)


def test_local_vector_written_at_run_time_indices_in_a_parallel_loop():
    """A kernel-scope local vector written at a run-time index by the iterations of a
    parallel loop keeps every iteration's write (Taichi's test_local_matrix_non_constant_index).
    Each iteration wrote back every component, so on Vulkan only the last write survived
    ([1, 2, 19])."""

    @ti.kernel
    def k() -> ti.types.vector(3, ti.i32):
        tmp = ti.Vector([1, 2, 3])
        for i in range(3):
            vec = ti.Vector([4, 5, 6])
            for j in range(3):
                vec[tmp[i] % 3] += vec[j]
            tmp[i] = vec[tmp[i] % 3]
        return tmp

    assert k().to_list() == [24, 30, 19]


def test_chained_comparison_of_a_vector_is_element_wise():
    # comet.py: `if not all(-0.1 <= x[i] <= 1.1)`; Taichi compares component by component
    x = ti.Vector.field(2, ti.f32, 5)
    out = ti.Vector.field(2, ti.i32, 5)
    inside = ti.field(ti.i32, 5)

    @ti.kernel
    def k():
        for i in x:
            out[i] = -0.1 <= x[i] <= 1.1
            inside[i] = 0
            if all(0.0 < x[i] < 1.0 < 2.0):
                inside[i] = 1

    pts = np.array(
        [[0.5, 0.5], [2.0, 0.5], [0.5, -1.0], [-0.05, 1.05], [0.0, 0.9]], np.float32
    )
    x.from_numpy(pts)
    k()
    expect = ((pts >= -0.1) & (pts <= 1.1)).astype(np.int32)
    assert np.array_equal(out.to_numpy(), expect)
    assert inside.to_numpy().tolist() == [1, 0, 0, 0, 0]
