"""
End-to-end: structs and @ti.dataclass, ti.func with vectors, templates and
@ti.data_oriented, ti.static unrolling and static_assert, kernel returns of vectors,
matrices, structs and tuples, ti.random / ti.randn, print of vectors, f64.
"""

import numpy as np
import pytest
import taichi_xdsl as ti


# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_struct_field_and_returns():
    Particle = ti.types.struct(pos=ti.math.vec2, m=ti.f32)
    ps = Particle.field(shape=4)

    @ti.kernel
    def fill():
        for i in ps:
            ps[i].pos = [i, i * 2]
            ps[i].m = 1.5
            ps[i].pos.y += ps[i].m

    @ti.kernel
    def get(i: ti.i32) -> Particle:
        p = ps[i]
        p.m *= 2
        return p

    fill()
    np.testing.assert_array_equal(ps.pos.to_numpy()[:, 1], [1.5, 3.5, 5.5, 7.5])
    r = get(3)
    assert r["m"] == 3.0
    assert r["pos"].to_list() == [3.0, 7.5]


def test_ti_struct_field():
    s = ti.Struct.field({"a": ti.i32, "v": ti.types.vector(3, ti.f32)}, shape=2)

    @ti.kernel
    def k():
        for i in s:
            s[i].a = i + 10
            s[i].v = ti.Vector([1.0, 2.0, 3.0]) * s[i].a

    k()
    assert s.a.to_numpy().tolist() == [10, 11]
    assert s.v.to_numpy()[1].tolist() == [11, 22, 33]


def test_dataclass_with_methods():
    @ti.dataclass
    class Ray:
        o: ti.math.vec3
        d: ti.math.vec3

        @ti.func
        def at(self, t):
            return self.o + t * self.d

        @ti.func
        def advance(self, t):
            self.o = self.at(t)

    @ti.kernel
    def k() -> ti.math.vec3:
        r = Ray(ti.math.vec3(1, 0, 0), d=ti.math.vec3(0, 1, 2))
        r.advance(2.0)
        return r.at(1.0)

    assert k().to_list() == [1.0, 3.0, 6.0]


def test_kernel_returns_tuple_of_values():
    @ti.kernel
    def k(a: ti.f32) -> (ti.f32, ti.math.vec2, ti.types.matrix(2, 2, ti.i32)):
        return a * 2, ti.Vector([a, -a]), ti.Matrix([[1, 2], [3, 4]])

    s, v, m = k(1.5)
    assert s == 3.0
    assert v.to_list() == [1.5, -1.5]
    assert m.to_list() == [[1, 2], [3, 4]]


def test_func_args_by_value_templates_by_reference():
    @ti.func
    def bump(v, t: ti.template()):
        v += 1.0  # a copy
        t += 10.0  # the caller's variable
        return v

    @ti.kernel
    def k() -> ti.types.vector(4, ti.f32):
        a = ti.Vector([1.0, 2.0])
        b = ti.Vector([5.0, 6.0])
        c = bump(a, b)
        return ti.Vector([a.x, c.x, b.x, b.y])

    assert k().to_list() == [1.0, 2.0, 15.0, 16.0]


def test_data_oriented_with_template_kernels():
    @ti.data_oriented
    class Sim:
        def __init__(self, n):
            self.n = n
            self.x = ti.Vector.field(2, ti.f32, n)
            self.total = ti.field(ti.f32, ())

        @ti.kernel
        def step(self, k: ti.template(), dst: ti.template()):
            for i in self.x:
                self.x[i] += ti.Vector([k, self.n])
                dst[None] += self.x[i].sum()

    a, b = Sim(3), Sim(5)
    a.step(2, a.total)
    a.step(2, b.total)
    b.step(1.5, b.total)
    np.testing.assert_array_equal(a.x.to_numpy(), [[4, 6]] * 3)
    np.testing.assert_array_equal(b.x.to_numpy(), [[1.5, 5]] * 5)
    assert a.total[None] == 3 * (2 + 3)
    assert b.total[None] == 3 * (4 + 6) + 5 * 6.5


def test_static_unrolling_and_static_assert():
    two = 2
    @ti.kernel
    def k() -> ti.i32:
        s = 0
        for i in ti.static(range(4)):
            s += i * 10
        for i, j in ti.static(ti.ndrange(2, 3)):
            s += i * j
        if ti.static(len([1, 2]) == 2):
            ti.static_assert(two > 1, "fine")
        return s

    assert k() == 60 + 3

    @ti.kernel
    def bad():
        ti.static_assert(two > 3, "two is not greater")

    with pytest.raises(ti.TaichiCompilationError, match="two is not greater"):
        bad()


def test_random_reproducible_and_uniform(arch):
    def draw(seed):
        ti.init(arch=arch, random_seed=seed)
        out = np.zeros(200_000, np.float32)

        @ti.kernel
        def k(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            for i in a:
                a[i] = ti.random()

        k(out)
        second = np.zeros_like(out)
        k(second)
        return out, second

    a1, a2 = draw(1)
    b1, _ = draw(1)
    c1, _ = draw(2)
    np.testing.assert_array_equal(a1, b1)  # same seed, same numbers
    assert (a1 != c1).mean() > 0.99  # another seed
    assert (a1 != a2).mean() > 0.99  # another launch
    assert 0.0 <= a1.min() and a1.max() < 1.0
    assert abs(a1.mean() - 0.5) < 0.01 and abs(a1.var() - 1 / 12) < 0.005
    hist = np.histogram(a1, bins=10, range=(0, 1))[0] / len(a1)
    assert np.all(np.abs(hist - 0.1) < 0.005)


def test_random_types_and_randn():
    @ti.kernel
    def k(
        f: ti.types.ndarray(dtype=ti.f64, ndim=1),
        n: ti.types.ndarray(dtype=ti.f32, ndim=1),
        r: ti.types.ndarray(dtype=ti.i32, ndim=1),
    ):
        for i in f:
            f[i] = ti.random(ti.f64)
            n[i] = ti.randn()
            r[i] = ti.random(ti.i32) % 7

    f = np.zeros(100_000)
    n = np.zeros(100_000, np.float32)
    r = np.zeros(100_000, np.int32)
    k(f, n, r)
    assert 0 <= f.min() and f.max() < 1 and abs(f.mean() - 0.5) < 0.01
    assert abs(n.mean()) < 0.02 and abs(n.std() - 1) < 0.02
    assert set(np.unique(r).tolist()) <= set(range(-6, 7))
    assert len(np.unique(r)) >= 7


def test_print_vectors(capfd):
    @ti.kernel
    def k(x: ti.f32):
        v = ti.Vector([x, 2 * x])
        print("v =", v, f"m={ti.Matrix([[1, 2], [3, 4]])}")

    k(1.5)
    ti.sync()
    out = capfd.readouterr().out
    assert "v = [1.5" in out and "3" in out
    assert "m=[[1, 2], [3, 4]]" in out


def test_print_formats_as_taichi(capfd):
    """printf-style specs in f-strings and str.format (a spec without a conversion takes
    the value's, `.10d` pads with zeros), positions and keywords, self-documenting
    f-strings, sep= and end=, tuples/lists printed as [..], unsigned values."""

    @ti.func
    def plus1(x):
        return x + 1

    @ti.kernel
    def k(f: ti.f32, u: ti.u32):
        m = ti.Matrix([[-1.0, 0.5], [2e1, 7e6]])
        print(f"{m:.2f} {m = :g}")
        print(f"{plus1(1):d} {(plus1(2) * 2 - 1):.10d} {f:.1f} {4} {True} {1.23}")
        print("{:.2} {name:i} {value:d}".format(f, name=999, value=123))
        print("{2} {} {1} {k:.3e}".format(3, 2, 1, k=f))
        print("a", 1, end="")
        print("b", (1,), [2, f], sep="|")
        print(f"{u:x} {u:u} {u}")

    k(4.56, 4294967295)
    ti.sync()
    out = capfd.readouterr().out
    assert out == (
        "[[-1.00, 0.50], [20.00, 7000000.00]] m = [[-1, 0.5], [20, 7e+06]]\n"
        "2 0000000005 4.6 4 True 1.23\n"
        "4.56 999 123\n"
        "1 3 2 4.560e+00\n"
        "a 1b|[1]|[2, 4.560000]\n"
        "ffffffff 4294967295 4294967295\n"
    )


def test_print_spec_that_does_not_fit_the_type_is_a_type_error():
    @ti.kernel
    def k(f: ti.f32):
        print(f"{f:.2d}")

    @ti.kernel
    def g():
        print("{0} {1} {2}".format(1, 2))

    with pytest.raises(ti.TaichiTypeError, match="'.2d' doesn't match 'f32'"):
        k(1.0)
    with pytest.raises(ti.TaichiSyntaxError, match=r"Expected 3 positional argument\(s\)"):
        g()


def test_fill_and_element_shape_inside_kernels():
    val = ti.field(ti.i32, shape=(4, 7))
    mv = ti.Matrix.field(2, 3, ti.i32, shape=(4, 7))
    vv = ti.Vector.field(3, ti.f32, shape=2)

    @ti.kernel
    def fill_all(v: ti.i32) -> ti.i32:
        val.fill(v)
        mv.fill(ti.Matrix([[0, 1, 2], [2, 3, v]]))
        vv[0].fill(v)
        m = ti.Matrix([[0.0] * 3] * 2)
        m.fill(1.5)
        return mv.n * 10 + mv.m + vv.n * 100 + vv.m * 1000 + ti.cast(m.sum(), ti.i32)

    assert fill_all(5) == 23 + 300 + 1000 + 9
    assert (val.to_numpy() == 5).all()
    assert (mv.to_numpy() == [[0, 1, 2], [2, 3, 5]]).all()
    assert vv.to_numpy().tolist() == [[5, 5, 5], [0, 0, 0]]


def test_assert_in_debug_mode(arch):
    ti.init(arch=arch, debug=True)

    @ti.kernel
    def k(v: ti.f32):
        a = ti.Vector([v, 1.0])
        assert a.norm() < 10, "too long"

    k(1.0)
    with pytest.raises(ti.TaichiAssertionError, match="too long"):
        k(20.0)


def test_default_fp_f64_vectors(arch):
    ti.init(arch=arch, default_fp=ti.f64)
    x = ti.Vector.field(2, float, 2)

    @ti.kernel
    def k() -> float:
        for i in x:
            x[i] = [1.0 / 3.0, i]
        return x[0].x + 1e-12

    assert k() == pytest.approx(1 / 3 + 1e-12, abs=1e-15)
    assert x.to_numpy().dtype == np.float64


def test_f16_vectors():
    x = ti.Vector.field(2, ti.f16, 2)

    @ti.kernel
    def k():
        for i in x:
            x[i] = ti.Vector([0.5, 1.25]) * (i + 1)

    k()
    assert x.to_numpy().dtype == np.float16
    assert x.to_numpy().tolist() == [[0.5, 1.25], [1.0, 2.5]]
