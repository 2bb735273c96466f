"""
End-to-end: fields (ti.field, ti.root.dense().place(), 0-d fields, Python-scope access,
the root buffer growing after kernels ran) and ndarrays (ti.ndarray, NumPy arrays
passed without a copy), compared with NumPy.
"""

import numpy as np
import pytest
import taichi_xdsl as ti


# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_python_scope_access_and_numpy_roundtrip():
    x = ti.field(ti.f32, shape=(3, 4))
    assert x.shape == (3, 4)
    assert x.dtype == ti.f32
    x[1, 2] = 5.5
    assert x[1, 2] == 5.5
    x.fill(2)
    assert (x.to_numpy() == 2).all()
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x.from_numpy(a)
    np.testing.assert_array_equal(x.to_numpy(), a)
    assert isinstance(x[2, 3], float)


def test_zero_d_field():
    s = ti.field(ti.i32, shape=())
    s[None] = 41

    @ti.kernel
    def inc():
        s[None] += 1

    inc()
    assert s[None] == 42
    assert s.to_numpy().shape == ()


def test_root_dense_place_layouts():
    a = ti.field(ti.f32)
    b = ti.field(ti.i32)
    c = ti.field(ti.f64)
    ti.root.dense(ti.i, 8).place(a, b)
    ti.root.dense(ti.ij, (2, 3)).dense(ti.j, 2).place(c)  # nested: shape (2, 6)
    assert a.shape == (8,) and b.shape == (8,) and c.shape == (2, 6)

    @ti.kernel
    def k():
        for i in a:
            a[i] = i * 0.5
            b[i] = i * i
        for i, j in c:
            c[i, j] = i * 10 + j

    k()
    np.testing.assert_array_equal(a.to_numpy(), np.arange(8) * 0.5)
    np.testing.assert_array_equal(b.to_numpy(), np.arange(8) ** 2)
    np.testing.assert_array_equal(
        c.to_numpy(), np.add.outer(np.arange(2) * 10, np.arange(6))
    )


def test_fields_added_after_kernels_ran_grow_the_root():
    x = ti.field(ti.i32, shape=16)

    @ti.kernel
    def fill_x():
        for i in x:
            x[i] = i

    fill_x()
    y = ti.field(ti.i64, shape=1000)  # grows the root buffer; x keeps its data

    @ti.kernel
    def copy():
        for i in x:
            y[i] = x[i] * 2

    copy()
    fill_x()  # the old kernel still runs on the grown buffer
    np.testing.assert_array_equal(x.to_numpy(), np.arange(16))
    np.testing.assert_array_equal(y.to_numpy()[:16], np.arange(16) * 2)
    assert y[999] == 0


def test_field_offsets_are_64_byte_aligned():
    fields = [
        ti.field(ti.u8, shape=3),
        ti.field(ti.f64, shape=5),
        ti.field(ti.i16, shape=()),
    ]
    prog = fields[0].program
    assert [f.offset % 64 for f in fields] == [0, 0, 0]
    assert prog.root.ctypes.data % 64 == 0


def test_all_field_dtypes_roundtrip():
    for dt in (
        ti.i8,
        ti.i16,
        ti.i32,
        ti.i64,
        ti.u8,
        ti.u16,
        ti.u32,
        ti.u64,
        ti.f32,
        ti.f64,
    ):
        x = ti.field(dt, shape=4)

        @ti.kernel
        def k(f: ti.template()):
            for i in f:
                f[i] = f[i] + 1

        x.from_numpy(np.arange(4).astype(dt.np_dtype))
        k(x)
        np.testing.assert_array_equal(x.to_numpy(), np.arange(1, 5).astype(dt.np_dtype))


def test_field_shape_in_kernel_is_constant():
    x = ti.field(ti.f32, shape=(7, 3))

    @ti.kernel
    def k() -> ti.i32:
        return x.shape[0] * 10 + x.shape[1]

    assert k() == 73


def test_ndarray_python_scope():
    a = ti.ndarray(ti.i32, (2, 3))
    assert a.shape == (2, 3) and a.dtype == ti.i32
    a[1, 1] = 7
    assert a[1, 1] == 7
    a.fill(3)
    assert a.to_numpy().sum() == 18


def test_numpy_array_is_passed_without_copy():
    @ti.kernel
    def k(a: ti.types.ndarray()):
        for i, j in a:
            a[i, j] = i + j

    a = np.zeros((4, 5), dtype=np.int64)
    k(a)
    np.testing.assert_array_equal(a, np.add.outer(np.arange(4), np.arange(5)))


def test_ndarray_shape_in_kernel():
    @ti.kernel
    def k(a: ti.types.ndarray(ndim=3)) -> ti.i32:
        return a.shape[0] * 100 + a.shape[1] * 10 + a.shape[2]

    assert k(np.zeros((2, 3, 4), dtype=np.float32)) == 234


def test_template_field_argument_instantiates_per_field():
    x = ti.field(ti.f32, shape=4)
    y = ti.field(ti.f32, shape=8)

    @ti.kernel
    def fill(f: ti.template(), v: ti.f32):
        for i in f:
            f[i] = v

    fill(x, 1.0)
    fill(y, 2.0)
    fill(x, 3.0)
    assert len(fill._instances) == 2
    assert (x.to_numpy() == 3).all() and (y.to_numpy() == 2).all()


def test_ndarray_args_instantiate_per_dtype_and_ndim():
    @ti.kernel
    def double(a: ti.types.ndarray()):
        for I in ti.grouped(a):
            a[I] = a[I] * 2

    a32 = np.ones(4, dtype=np.float32)
    a64 = np.ones(4, dtype=np.float64)
    i2 = np.ones((2, 2), dtype=np.int32)
    double(a32)
    double(a64)
    double(i2)
    double(np.ones(9, dtype=np.float32))
    assert len(double._instances) == 3
    assert (
        a32.tolist() == [2] * 4 and a64.tolist() == [2] * 4 and i2.tolist() == [[2, 2]] * 2
    )


def test_ndarray_dtype_mismatch_is_an_error():
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        pass

    # Taichi's exception classes and messages
    with pytest.raises(ValueError, match="required array has dtype=f32, array with dtype=f64"):
        k(np.zeros(3, dtype=np.float64))
    with pytest.raises(ValueError, match="required array has ndim=1, array with 2 dimensions"):
        k(np.zeros((3, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported"):
        k(np.zeros(6, dtype=np.float32)[::2])


def test_ti_reset_drops_fields(arch):
    x = ti.field(ti.f32, shape=3)
    ti.reset()
    ti.init(arch=arch)
    with pytest.raises(ti.TaichiError, match="program"):
        x.to_numpy()


def test_field_and_place_snode_names(arch):
    ti.init(arch=arch)
    a = ti.field(dtype=ti.f32, shape=(2, 3), name="a")
    b = ti.field(ti.math.vec3, shape=(2, 3), name="b")
    c = ti.field(ti.i32, name="c")
    ti.root.dense(ti.i, 4).place(c)
    assert (a._name, b._name, c._name) == ("a", "b", "c")
    assert (b.snode._name, c.snode._name, c.snode.parent()._name) == ("b", "c", "")


def test_components_placed_one_by_one_with_get_scalar_field():
    # Each component placed on its own (Taichi's get_scalar_field): the field takes
    # their common shape and indexing by a run-time component reads what was written.
    temp = ti.field(ti.f32)
    v = ti.Vector.field(2, ti.i32)
    ti.root.dense(ti.i, 8).place(v.get_scalar_field(0), temp)
    ti.root.dense(ti.i, 2).dense(ti.i, 4).place(v.get_scalar_field(1))

    @ti.kernel
    def write():
        for i in range(8):
            for j in range(2):
                v[i][j] = i * 10 + j

    write()
    assert v.shape == (8,)
    assert v.to_numpy().tolist() == [[i * 10, i * 10 + 1] for i in range(8)]
    with pytest.raises(ti.TaichiError, match="has elements of shape"):
        ti.Vector.field(2, ti.i32).get_scalar_field(2)


def test_components_of_different_shapes_are_an_error_before_a_kernel():
    m = ti.Matrix.field(2, 2, ti.i32)
    for (i, j), n in (((0, 0), 10), ((0, 1), 11), ((1, 0), 10), ((1, 1), 11)):
        ti.root.dense(ti.i, n).place(m.get_scalar_field(i, j))

    @ti.kernel
    def nothing():
        pass

    with pytest.raises(RuntimeError, match="Members of the following field have different shapes"):
        nothing()


def test_bool_fields_ndarrays_and_struct_members_hold_0_or_1():
    # ti.u1 elements (stored as bytes): a kernel store of any non-zero value keeps 1,
    # reads are bool values in kernels and 0/1 in Python scope (as in Taichi).
    x = ti.field(ti.u1, shape=4)
    v = ti.Vector.field(2, ti.u1, shape=3)
    a = ti.ndarray(ti.u1, shape=3)

    @ti.dataclass
    class S:
        a: ti.i16
        b: bool
        c: ti.i16

    sf = S.field(shape=2)
    x[1] = 5
    sf[1].b = True
    sf[1].a = sf[1].c = -1
    a[1] = True

    @ti.kernel
    def k(n: ti.i32, arr: ti.types.ndarray()) -> ti.i32:
        x[2] = n
        for i in range(3):
            v[i] = ti.Vector([i, i % 2])
            v[i][0] = not v[i][0]
        arr[2] = arr[1] and n
        s = 0
        if x[2]:
            s = 100
        return s + x[1] * 10 + x[2] + sf[1].b

    assert k(7, a) == 112
    assert x.dtype == ti.u1 and x.to_numpy().dtype == np.bool_
    assert x.to_numpy().tolist() == [False, True, True, False]
    assert x[1] == 1 and type(x[1]) is int
    assert v.to_numpy().tolist() == [[True, False], [False, True], [False, False]]
    assert a.to_numpy().tolist() == [False, True, True]
    assert (sf[1].a, sf[1].b, sf[1].c, sf[0].b) == (-1, 1, -1, 0)

    @ti.kernel
    def bump():
        x[0] += 1

    with pytest.raises(ti.TaichiCompilationError, match="atomic update .* u1"):
        bump()


def test_python_scope_int_store_keeps_the_low_bits():
    # as Taichi: -128 into a u8 is 128, 200 into an i8 is -56, -1 into a u32 is 2**32 - 1
    a = ti.field(ti.i8, shape=2)
    b = ti.field(ti.u8, shape=2)
    c = ti.field(ti.u32, shape=1)
    a[0], a[1], b[0], b[1], c[0] = -128, 200, -128, 255, -1
    assert a.to_numpy().tolist() == [-128, -56]
    assert b.to_numpy().tolist() == [128, 255]
    assert c.to_numpy().tolist() == [2**32 - 1]
    y = ti.field(ti.u32, shape=2)

    @ti.kernel
    def widen():
        y[0] = ti.cast(a[0], ti.u32)
        y[1] = ti.cast(b[0], ti.u32)

    widen()
    assert y.to_numpy().tolist() == [0xFFFFFF80, 128]


def test_ndarray_reaches_a_kernel_only_as_an_ndarray_argument():
    a = ti.ndarray(ti.f32, shape=(2, 3))

    @ti.kernel
    def as_template(x: ti.template()):
        x[0, 0] = 1.0

    with pytest.raises(ti.TaichiRuntimeTypeError, match=r"Ndarray shouldn't be passed in via `ti.template\(\)`"):
        as_template(a)

    @ti.func
    def first(w: ti.types.ndarray(ti.f32, ndim=2)) -> ti.f32:
        return w[0, 0]

    @ti.kernel
    def global_ndarray() -> ti.f32:
        return first(a)

    with pytest.raises(ti.TaichiTypeError, match=r"Expected ndarray in the kernel argument for argument a"):
        global_ndarray()


def test_vector_and_matrix_ndarray_kinds_and_sizes():
    b = ti.ndarray(ti.types.vector(3, ti.i32), shape=(4, 4))
    c = ti.Matrix.ndarray(3, 4, ti.f32, shape=(2,))
    a = ti.ndarray(ti.i32, 8)
    assert isinstance(b, ti.VectorNdarray) and not isinstance(b, ti.MatrixNdarray)
    assert isinstance(c, ti.MatrixNdarray) and not isinstance(a, ti.VectorNdarray)
    assert b.element_type.element_type() == ti.i32 and b.element_type.shape() == [3]
    assert c.element_type.shape() == [3, 4] and a.element_type == ti.i32
    assert (a._get_element_size(), a._get_nelement()) == (4, 8)
    d = ti.Vector.ndarray(10, ti.f64, 5)
    assert (d._get_element_size(), d._get_nelement()) == (80, 5)
    v = ti.VectorNdarray(2, ti.f32, (3,))
    assert v.shape == (3,) and v.element_shape == (2,)
