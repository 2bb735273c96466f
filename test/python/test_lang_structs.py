"""
End-to-end: struct values in kernels and in Python scope: `ti.Struct(...)` built in a
kernel, nested struct types built from a first member, struct copies, dataclass members.
"""

import numpy as np
import pytest
import taichi_xdsl as ti

# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_struct_built_in_a_kernel_takes_its_values_types():
    x = ti.Struct.field({"a": ti.i32, "b": ti.f32, "v": ti.math.vec2}, shape=4)

    @ti.kernel
    def fill():
        for i in x:
            s = ti.Struct(a=2 * i, b=0.5 * i, v=ti.Vector([i, 1.5]))
            t = ti.Struct({"a": s.a + 1, "b": s.b})
            x[i] = ti.Struct(a=t.a, b=t.b, v=s.v)

    @ti.kernel
    def copy_is_a_copy() -> ti.i32:
        a = ti.Struct({"p": 2, "q": 3})
        b = a
        b.p = 5
        return a.p * 10 + b.p

    fill()
    np.testing.assert_array_equal(x.a.to_numpy(), 2 * np.arange(4) + 1)
    np.testing.assert_allclose(x.b.to_numpy(), 0.5 * np.arange(4))
    np.testing.assert_allclose(x.v.to_numpy(), [[i, 1.5] for i in range(4)])
    assert copy_is_a_copy() == 25


def test_nested_struct_type_from_its_first_member():
    # mystruct(1): the first member (a struct) from 1, whose first member (a vector)
    # is 1 everywhere; every other member is 0 -- in a kernel and in Python scope.
    vec3f = ti.types.vector(3, ti.f32)
    line3f = ti.types.struct(linedir=vec3f, length=ti.f32)
    mystruct = ti.types.struct(line=line3f, idx=ti.i32)
    x = mystruct.field(shape=3)

    @ti.kernel
    def init():
        for i in x:
            x[i] = mystruct(1)

    @ti.kernel
    def assign_member() -> ti.f32:
        s = mystruct(0)
        s.line = line3f(2)
        s.idx = 4
        return s.line.linedir.sum() + s.line.length + s.idx

    init()
    np.testing.assert_allclose(x.line.linedir.to_numpy(), np.ones((3, 3)))
    np.testing.assert_array_equal(x.idx.to_numpy(), [0, 0, 0])
    np.testing.assert_allclose(x.line.length.to_numpy(), [0, 0, 0])
    assert assign_member() == pytest.approx(10.0)
    x[1] = mystruct(3)
    assert x[1].line.linedir.to_list() == [3.0, 3.0, 3.0] and x[1].idx == 0


def test_dataclass_member_from_a_dataclass_value():
    @ti.dataclass
    class A:
        i: ti.i32
        j: ti.f32

    @ti.dataclass
    class B:
        a1: A
        a2: A

    b = B(A(1, 2.0))  # the first member; a2 is A(0)
    assert (b.a1.i, b.a1.j, b.a2.i, b.a2.j) == (1, 2.0, 0, 0.0)
    p = A({"i": 7})  # a dict of members still names them
    assert (p.i, p.j) == (7, 0.0)


def test_func_returning_a_tuple_of_a_scalar_and_a_struct():
    s0 = ti.types.struct(a=ti.math.vec3, b=ti.i16)

    @ti.func
    def pair(k: ti.f32) -> (ti.f32, s0):
        return k * 2, s0(a=ti.math.vec3([100, 0.25, k]), b=7)

    @ti.kernel
    def k() -> ti.types.vector(5, ti.f32):
        x, s = pair(3.0)
        return ti.Vector([x, s.a[0], s.a[1], s.a[2], s.b])

    assert k().to_list() == [6.0, 100.0, 0.25, 3.0, 7.0]


def test_dataclass_python_methods_on_values_and_kernel_results(arch):
    @ti.dataclass
    class Foo:
        x: ti.f32
        y: ti.f32

        @ti.func
        def add(self, other: ti.template()):
            return Foo(self.x + other.x, self.y + other.y)

        def add_python(self, other):
            return Foo(self.x + other.x, self.y + other.y)

    @ti.kernel
    def double(f: Foo) -> Foo:
        return f.add(f)

    b = double(Foo(1, 2))  # a kernel's struct result is a value of its type
    assert (b.x, b.y) == (2, 4)
    c = b.add_python(b)
    assert (c.x, c.y) == (4, 8)
    with pytest.raises(AttributeError, match="no member 'z'"):
        c.z


def test_struct_field_copy_from_and_vector_rows_from_numpy():
    @ti.dataclass
    class C:
        i: int
        f: float

    x, y = C.field(shape=4), C.field(shape=4)
    x[1].i = 2
    y[0].f = 1.5
    y[2].i = 3
    x.copy_from(y)
    assert (x[0].f, x[1].i, x[2].i) == (1.5, 0, 3)
    v = ti.Vector.field(3, ti.i32, shape=2)
    v.from_numpy(np.arange(6, dtype=np.int32).reshape(2, 1, 3))  # rows, as Taichi takes
    assert v.to_numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    v.from_numpy(np.arange(6, dtype=np.int32).reshape(2, 3, 1) + 1)  # columns
    assert v.to_numpy().tolist() == [[1, 2, 3], [4, 5, 6]]
