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


def test_unsigned_math_vectors_follow_default_ip(arch):
    # ti.math.uvec* hold the unsigned type of default_ip, as Taichi's default_up: with
    # default_ip=i64 a u64 stored into a uvec2 keeps all its bits (a u32 element made
    # 2**63 - 1 read back as 2**32 - 1).
    ti.init(arch=arch, default_ip=ti.i64, default_fp=ti.f64)
    assert ti.math.uvec2.field(shape=1).dtype is ti.u64

    @ti.dataclass
    class Ray:
        pos: ti.math.vec3
        id: ti.math.uvec2

    @ti.kernel
    def k(n: ti.u64) -> ti.types.vector(2, ti.u64):
        ray = Ray(ti.math.vec3(0.5), id=ti.math.uvec2(n))
        return ti.Vector([ray.id.x, ray.id.y + 1])

    assert k(2**63 - 1).to_numpy().tolist() == [2**63 - 1, 2**63]

    ti.init(arch=arch)
    assert ti.math.uvec2.field(shape=1).dtype is ti.u32


def test_sizeless_vector_and_matrix_ndarray_annotations():
    # ti.types.vector() / ti.types.matrix(): any size and dtype, one instance for each;
    # an element of the other rank is Taichi's ValueError.
    runtime = ti.lang.impl.get_runtime()

    @ti.kernel
    def bump(x: ti.types.ndarray(dtype=ti.types.vector())):
        for I in ti.grouped(x):
            x[I] = x[I] + x[I].x + 1

    @ti.kernel
    def fill(x: ti.types.ndarray(dtype=ti.types.matrix(), ndim=1)):
        for I in ti.grouped(x):
            x[I] = 2

    v3 = ti.ndarray(ti.math.vec3, 2)
    v3.from_numpy(np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    iv2 = ti.ndarray(ti.types.vector(2, ti.i32), 2)
    m2 = ti.ndarray(ti.math.mat2, 2)
    compiled = runtime.get_num_compiled_functions()
    bump(v3)
    bump(iv2)
    fill(m2)
    assert runtime.get_num_compiled_functions() == compiled + 3
    assert v3.to_numpy().tolist() == [[3, 4, 5], [9, 10, 11]]
    assert iv2.to_numpy().tolist() == [[1, 1], [1, 1]]
    assert (m2.to_numpy() == 2).all()
    a = np.ones((2, 4), np.float32)
    bump(a)  # a NumPy array: the last axis is the vector
    assert (a == 3).all()
    with pytest.raises(ValueError, match="Invalid value for argument x"):
        bump(m2)
    with pytest.raises(ValueError, match="Invalid value for argument x"):
        fill(v3)


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


def test_vector_returned_from_real_func_branches():
    vec2 = ti.types.vector(2, ti.f32)

    @ti.real_func
    def pick(c: ti.i32, a: vec2, b: vec2) -> vec2:
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


def test_chained_vector_comparison():
    # `lo <= v <= hi` on a vector is the component-wise `and` of both comparisons
    # (it used to stop the compiler with an internal AssertionError).
    x = ti.Vector.field(3, ti.f32, shape=4)
    inside = ti.Vector.field(3, ti.i32, shape=4)
    every = ti.field(ti.i32, shape=4)

    @ti.kernel
    def k():
        for i in x:
            x[i] = [0.5, 2.0 - i, -0.25 * i]
            inside[i] = -0.3 <= x[i] <= 1.1
            every[i] = all(-0.3 <= x[i] <= 1.1)

    k()
    xs = x.to_numpy()
    want = ((-0.3 <= xs) & (xs <= 1.1)).astype(np.int32)
    np.testing.assert_array_equal(inside.to_numpy(), want)
    np.testing.assert_array_equal(every.to_numpy(), want.all(axis=1).astype(np.int32))


def test_row_vector_times_matrix_and_operator_functions():
    import operator

    g1, g2 = ti.Vector([1, 2]), ti.Vector([5, 7])
    M = ti.Matrix([[1, 2], [3, 4]])

    @ti.kernel
    def k(t: ti.i32) -> ti.types.matrix(3, 2, ti.i32):
        w = ti.Vector([1, t])
        m = ti.Matrix([[2, 3], [4, 5]])
        a = w @ m  # w as a row vector
        b = operator.sub(g2, g1) + operator.add(g1, w)
        c = operator.matmul(M, g1)
        return ti.Matrix.rows([a, b, c])

    w, m = np.array([1, 2]), np.array([[2, 3], [4, 5]])
    want = [w @ m, (np.array([5, 7]) - [1, 2]) + ([1, 2] + w), np.array([[1, 2], [3, 4]]) @ [1, 2]]
    np.testing.assert_array_equal(k(2).to_numpy(), want)
    assert (ti.Vector([1, 2]) @ ti.Matrix([[2, 3], [4, 5]])).to_list() == [10, 13]
    assert ti.types.vector(3, ti.f32)([0, 1, 2]).entries.dtype == np.float32
    assert ti.types.matrix(2, 2, ti.i32)([[0, 1], [2, 3]]).entries.dtype == np.int32


def test_ndarray_argument_checks():
    @ti.kernel
    def mat(a: ti.types.ndarray(dtype=ti.math.mat2, ndim=1)):
        for i in range(a.shape[0]):
            for j, l in ti.ndrange(2, 2):
                a[i][j, l] = i + j * 2 + l

    m = np.zeros((3, 2, 2), dtype=np.int32)  # a matrix parameter takes the array's type
    mat(m)
    np.testing.assert_array_equal(m, np.arange(3)[:, None, None] + [[0, 1], [2, 3]])
    with pytest.raises(ValueError, match=r"required element_shape=\(2, 2\), array with element shape of \(2, 3\)"):
        mat(np.zeros((3, 2, 3), np.float32))
    with pytest.raises(ValueError, match=r"required array has ndim=1 element_dim=2, array with 4 dimensions"):
        mat(np.zeros((3, 3, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r"required element type: MatrixType\[2,2, f32\], but \[Tensor \(2\) f32\]"):
        mat(ti.Vector.ndarray(2, ti.f32, shape=3))
    with pytest.raises(ValueError, match=r"required ndim=1, but 2d ndarray with shape \(3, 4\)"):
        mat(ti.Matrix.ndarray(2, 2, ti.f32, shape=(3, 4)))

    @ti.kernel
    def scalar(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        a[0] = 1

    with pytest.raises(ValueError, match=r"required array has dtype=i32, array with dtype=i64"):
        scalar(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match=r"required array has ndim=1, array with 2 dimensions"):
        scalar(np.zeros((4, 4), np.int32))
    with pytest.raises(TypeError, match=r"Expect element type i32 for argument a, but get \[Tensor \(3\) i32\]"):
        scalar(ti.Vector.ndarray(3, ti.i32, shape=4))


def test_transposed_numpy_argument_is_read_and_written_in_its_own_order():
    @ti.kernel
    def bump(arr: ti.types.ndarray(dtype=ti.i32, ndim=2), out: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i, j in arr:
            out[i, j] = arr[i, j]
            arr[i, j] = arr[i, j] * 10 + 1

    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = a.T  # F-ordered: b[i, j] is a[j, i]
    out = np.zeros((4, 3), np.int32)
    bump(b, out)
    np.testing.assert_array_equal(out, np.arange(12).reshape(3, 4).T)
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4) * 10 + 1)
    bump(out.copy(), out)  # a C-ordered call keeps its own instance
    np.testing.assert_array_equal(out, np.arange(12).reshape(3, 4).T)
    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported"):
        bump(np.zeros((4, 6), np.int32)[:, ::2], out)


def test_matrix_indexed_by_a_static_grouped_index():
    x = ti.Matrix.field(2, 3, dtype=ti.f32, shape=(4, 2))

    @ti.kernel
    def k():
        for i, j in ti.ndrange(4, 2):
            for I in ti.static(ti.grouped(ti.ndrange(2, 3))):
                x[i, j][I] = I[0] + I[1] * 10 + i + j * 4

    @ti.kernel
    def read(i: ti.i32) -> ti.f32:
        m = x[i, 1]
        s = 0.0
        for I in ti.static(ti.grouped(ti.ndrange(2, 3))):
            s += m[I]
        return s

    k()
    kk, ll = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
    want = kk + ll * 10 + np.arange(4)[:, None, None, None] + np.arange(2)[None, :, None, None] * 4
    np.testing.assert_allclose(x.to_numpy(), want)
    assert read(3) == pytest.approx(want[3, 1].sum())


def test_matrix_row_and_column_slices_at_run_time_indices():
    @ti.kernel
    def assign(i: ti.i32, j: ti.i32) -> ti.types.matrix(3, 3, ti.i32):
        A = ti.Matrix.zero(ti.i32, 3, 3)
        A[i, :] = ti.Vector([1, 2, 3])
        A[:, j] += ti.Vector([10, 20, 30])
        r = A[i, :]
        c = A[:, j]
        A[0, 0] += r.sum() * 1000 + c.sum() * 100000
        return A

    @ti.kernel
    def shared(j: ti.i32) -> ti.types.matrix(3, 3, ti.i32):
        A = ti.Matrix.zero(ti.i32, 3, 3)
        for t in range(100):  # the iterations of a parallel loop update A atomically
            A[:, j] += ti.Vector([1, 2, 3])
            A[t % 3, :] += ti.Vector([1, 0, 0])
        return A

    A = np.zeros((3, 3), int)
    A[1, :] = [1, 2, 3]
    A[:, 2] += [10, 20, 30]
    A[0, 0] += A[1, :].sum() * 1000 + A[:, 2].sum() * 100000
    np.testing.assert_array_equal(assign(1, 2).to_numpy(), A)
    np.testing.assert_array_equal(shared(2).to_numpy(), [[34, 0, 100], [33, 0, 200], [33, 0, 300]])


def test_debug_mode_checks_run_time_component_indices(arch):
    ti.init(arch=arch, debug=True)
    a = ti.ndarray(dtype=ti.math.mat2, shape=(2,))

    @ti.kernel
    def store(i: ti.i32) -> ti.i32:
        x = ti.Vector([0, 0])
        x[i] = 42
        return x[0] + x[1]

    @ti.kernel
    def load(arr: ti.types.ndarray(), x: ti.i32, y: ti.i32) -> ti.f32:
        return arr[1][x, y]

    assert store(1) == 42
    assert load(a, 1, 1) == 0.0
    for bad in (2, -1):
        with pytest.raises(AssertionError, match=r"(?s)Out of bound access to a vector/matrix of shape \(2,\).*x\[i\] = 42"):
            store(bad)
    with pytest.raises(AssertionError, match=r"Out of bound access to a vector/matrix of shape \(2, 2\)"):
        load(a, 2, 1)


def test_conditional_expression_with_vector_branches_and_vector_conditions():
    g = ti.Vector.field(3, ti.f32, shape=4)
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def pick():
        for i in g:
            g[i] = [i, -i, 2 * i]
            # a scalar condition, a scalar and a vector branch (a field read: not eager)
            g[i] = 0 if g[i][0] < 2 else g[i] * 10

    @ti.kernel
    def summed() -> ti.i32:
        a = [x[0] for j in range(10) if j > 2 if j < 5]
        return sum(a) + sum([x[1], x[2]], 100)

    pick()
    want = np.array([[0, 0, 0], [0, 0, 0], [20, -20, 40], [30, -30, 60]])
    np.testing.assert_allclose(g.to_numpy(), want)
    x.from_numpy(np.array([3, 4, 5, 0], np.int32))
    assert summed() == 3 * 2 + 100 + 9

    @ti.kernel
    def vector_ifexp():
        for i in g:
            g[i] = 0 if g[i] > 0 else g[i]

    with pytest.raises(ti.TaichiSyntaxError, match='Please use "ti.select" instead'):
        vector_ifexp()

    @ti.kernel
    def vector_if(a: ti.i32) -> ti.i32:
        r = 0
        if ti.Vector([a, 0]):  # was always taken
            r = 1
        return r

    with pytest.raises(ti.TaichiTypeError, match="`if` conditions must be an integer"):
        vector_if(0)


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


def test_unit_vectors_are_integer_offsets():
    # Taichi's Vector.unit defaults to int, so `x[I + unit]` indexes a field (mgpcg_advanced).
    x = ti.field(ti.f32, shape=(4, 4))

    @ti.kernel
    def shift():
        for I in ti.grouped(ti.ndrange(3, 4)):
            x[I + ti.Vector.unit(2, 0)] = I[0] * 10 + I[1]

    shift()
    expected = np.zeros((4, 4), np.float32)
    expected[1:] = np.arange(3)[:, None] * 10 + np.arange(4)
    np.testing.assert_array_equal(x.to_numpy(), expected)
    assert ti.Vector.unit(3, 1).to_numpy().dtype.kind == "i"
