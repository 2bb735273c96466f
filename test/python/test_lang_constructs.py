"""
End-to-end: Python constructs in kernels (comprehensions, dict displays, unpacking of
vectors and matrices, the walrus operator, all/any/pow/round/abs builtins, ti.static
over ti.grouped, break/continue in ti.static loops, comparisons with tuples, ti.func
parameters as copies) and the intrinsics ti.asin/acos/atan/round/trunc/raw_div/raw_mod/
zero/one.
"""

import math

import numpy as np

import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def test_comprehensions_dicts_unpacking_walrus():
    x = ti.field(ti.f32, 4)
    for i in range(4):
        x[i] = i

    @ti.kernel
    def k() -> ti.types.vector(7, ti.f32):
        v = ti.Vector([x[i] * 2 for i in range(4)])
        d = {"a": 1, "b": v[1]}
        sq = {i: i * i for i in range(4) if i != 1}
        a, b, c, e = v
        r0, r1 = ti.Matrix([[1, 2], [3, 4]])
        y = 0.0
        if (w := v[3] + 1) > 2:
            y = w
        return ti.Vector([d["b"], sq[3], a + b + c + e, y, r1[0], r0[1], len(sq)])

    assert k().to_list() == [2, 9, 12, 7, 3, 2, 3]


def test_builtins_on_vectors_and_tuples():
    @ti.kernel
    def k(s: ti.f32) -> ti.types.vector(6, ti.i32):
        v = ti.math.vec3(0, 0, 0)
        v.brg += 1
        w = ti.math.vec3(1, 2, 3) * s
        return ti.Vector(
            [
                all(v.xyz == (1, 1, 1)),
                any(w > (5, 5, 5)),
                all(w > 0),
                pow(2, 10),
                round(w[0] + 0.5),
                abs(-w[2]),
            ]
        )

    assert k(1.0).to_list() == [1, 0, 1, 1024, 2, 3]
    assert k(2.0).to_list()[1] == 1


def test_static_grouped_and_static_break_continue():
    x = ti.field(ti.i32, (2, 3))

    @ti.kernel
    def k():
        for I in ti.static(ti.grouped(ti.ndrange(2, 3))):
            x[I] = I[0] * 10 + I[1]
        for i in ti.static(range(6)):
            if ti.static(i == 1):
                continue
            if ti.static(i == 4):
                break
            x[0, 0] += 100

    k()
    assert x.to_numpy().tolist() == [[300, 1, 2], [10, 11, 12]]
    assert [list(I) for I in ti.grouped(ti.ndrange(1, 2))] == [[0, 0], [0, 1]]


def test_break_in_static_loop_under_a_runtime_if_is_an_error():
    @ti.kernel
    def k(n: ti.i32):
        for i in ti.static(range(3)):
            if n > i:
                break

    with pytest.raises(ti.TaichiSyntaxError, match="compile time"):
        k(1)


def test_func_parameters_are_copies():
    x = ti.field(ti.f32, 4)

    @ti.func
    def f(M, k):
        M[0, 1] = 2
        return M[0, 1] + M[1, 1] + k

    @ti.func
    def g(a):
        a[1] = 5.0  # a field argument is the field itself

    @ti.kernel
    def k() -> ti.f32:
        M = ti.Matrix([[1.0, 1.0], [1.0, 1.0]])
        r = f(M, 1)
        g(x)
        return r + M[0, 1]

    assert k() == 5
    assert x[1] == 5


def test_inverse_trig_rounding_and_c_division():
    @ti.kernel
    def k(x: ti.f32, a: ti.i32, b: ti.i32) -> ti.types.vector(9, ti.f32):
        v = ti.Vector([1, 2])
        return ti.Vector(
            [
                ti.asin(x),
                ti.acos(x),
                ti.atan(x),
                ti.round(-2.5),
                ti.trunc(-2.7),
                ti.raw_div(a, b),
                ti.raw_mod(a, b),
                ti.raw_mod(-7.5, 2.0),
                ti.zero(v)[0] + ti.one(x),
            ]
        )

    r = k(0.5, -7, 2).to_list()
    assert r[:3] == pytest.approx([math.asin(0.5), math.acos(0.5), math.atan(0.5)], rel=1e-5)
    assert r[3:] == [-3, -2, -3, -1, -1.5, 1]
    assert (ti.round(2.5), ti.raw_div(-7, 2), ti.raw_mod(-7, 2)) == (3, -3, -1)


def test_type_predicates_and_primitive_types():
    assert ti.types.is_signed(ti.i8) and not ti.types.is_signed(ti.u8)
    assert ti.types.is_integral(ti.u16) and not ti.types.is_integral(ti.f32)
    assert ti.f64 in ti.types.primitive_types.real_types
    assert ti.i32 in ti.types.primitive_types.integer_types


def test_real_func_is_called_with_typed_arguments():
    @ti.real_func
    def add(a: ti.i32, b: ti.f32) -> ti.f32:
        return a + b

    @ti.kernel
    def k(x: ti.i32) -> ti.f32:
        return add(x, 0.5) + add(2, 0.25)

    assert k(1) == 3.75


def test_real_func_errors():
    with pytest.raises(ti.TaichiSyntaxError, match="must be type annotated"):

        @ti.real_func
        def unannotated(a, b: ti.i32) -> ti.i32:
            return a + b

    @ti.real_func
    def no_return_type(a: ti.i32):
        return a

    @ti.real_func
    def recurse(n: ti.i32) -> ti.i32:
        r = 0
        if n > 0:
            r = n + recurse(n - 1)
        return r

    @ti.kernel
    def k1() -> ti.i32:
        return no_return_type(1)

    @ti.kernel
    def k2() -> ti.i32:
        return recurse(3)

    with pytest.raises(ti.TaichiCompilationError, match="return value must be annotated"):
        k1()
    with pytest.raises(ti.TaichiCompilationError, match="recursion is not supported"):
        k2()


def test_real_func_returns_from_loops_and_runs_its_loops_serially():
    """A return inside for/while loops (nested too) leaves them all; a real function's
    loops are serial even when it is called at the kernel's top, so `break` works."""

    @ti.real_func
    def first_at_least(t: ti.i32) -> ti.i32:
        r = -1
        for i in range(3):
            for j in range(5):
                if i * 5 + j >= t:
                    return i * 5 + j
            r = 100 + i
        return r

    @ti.real_func
    def from_while() -> ti.i32:
        i = 1
        while i:
            return 43

    @ti.real_func
    def count_to_break() -> ti.i32:
        a = 0
        for i in range(10):
            if i == 5:
                break
            a += 1
        return a

    @ti.kernel
    def k() -> ti.types.vector(5, ti.i32):
        return ti.Vector(
            [first_at_least(7), first_at_least(99), first_at_least(0), from_while(),
             count_to_break()]
        )

    assert k().to_list() == [7, 102, 0, 43, 5]
    x = ti.field(ti.i32, 8)

    @ti.kernel
    def par():
        for i in range(8):
            x[i] = first_at_least(i * 2)

    par()
    assert x.to_numpy().tolist() == [0, 2, 4, 6, 8, 10, 12, 14]


def test_return_inside_a_kernel_loop_is_an_error():
    @ti.kernel
    def k() -> ti.i32:
        for i in range(3):
            return i
        return 0

    with pytest.raises(ti.TaichiSyntaxError, match="Return inside non-static"):
        k()


def test_starred_arguments_numpy_constants_and_bit_intrinsics():
    """`*v` / `*tuple` / `*numpy_array` expand into arguments (also of ti.ndrange); a
    global NumPy scalar or array is a compile-time value; ti.bit_shr is a logical shift;
    ti.lang.ops.logical_not/bit_not, also per component and in Python scope."""
    val = ti.field(ti.i32, shape=(4, 4, 4))
    n_cube = np.array([4, 4, 4])
    begin = np.array(1, dtype=np.int32)

    @ti.func
    def add3(a, b, c):
        return a + b * 10 + c * 100

    @ti.kernel
    def k(x: ti.i32) -> ti.types.vector(5, ti.i32):
        a = ti.Vector([1, 2, 3])
        b = ti.Vector([4, 5, 6])
        for I in ti.grouped(ti.ndrange(*(((0, 4),) * 3))):
            val[I] = I[0] + I[1] * 2 + I[2] * 3
        s = 0
        for I in ti.grouped(ti.ndrange(*(n_cube - 1))):
            s += 1
        for i in range(begin, 3):
            s += 100
        return ti.Vector([
            ti.min(*a, *b) + ti.max(*a, *b) * 10, add3(*b), s, ti.bit_shr(x, 3),
            ti.lang.ops.logical_not(ti.Vector([x, 0]))[1] + ti.lang.ops.bit_not(x) * 10,
        ])

    assert k(-256).to_list() == [61, 654, 227, (-256 + (1 << 32)) >> 3, 1 + 255 * 10]
    assert val[3, 2, 1] == 10
    assert ti.bit_shr(-256, 3) == (-256 + (1 << 32)) >> 3
    assert list(ti.lang.ops.logical_not(ti.Vector([2, 0]))) == [0, 1]

    @ti.kernel
    def bad():
        a = np.array([1, 2])

    with pytest.raises(ti.TaichiTypeError, match="Only 0-dimensional numpy array"):
        bad()


def test_math_transforms_and_complex_numbers():
    @ti.kernel
    def k() -> ti.types.vector(8, ti.f32):
        v = ti.math.vdir(ti.math.pi / 2)
        r = ti.math.rotation2d(ti.math.radians(30))
        z = ti.math.cmul(ti.math.vec2(1, 2), ti.math.vec2(3, 4))
        q = ti.math.cdiv(ti.math.vec2(1, 2), ti.math.vec2(3, 4))
        t = ti.math.translate(1, 2, 3) @ ti.math.vec4(1, 1, 1, 1)
        return ti.Vector([v[1], r[1, 0], z[0], z[1], q[0], q[1], t[2], ti.math.degrees(ti.math.pi)])

    r = k().to_list()
    assert r == pytest.approx([1, 0.5, -5, 10, 0.44, 0.08, 4, 180], abs=1e-5)

    @ti.kernel
    def rot() -> ti.types.matrix(4, 4, ti.f32):
        a = ti.math.rot_yaw_pitch_roll(1.046, 0.52, -0.785)
        b = ti.math.rotation3d(0.52, -0.785, 1.046)
        return a - b + ti.math.rot_by_axis(ti.math.vec3(0, 0, 2), 0.5)

    m = rot().to_numpy()
    c, s = math.cos(0.5), math.sin(0.5)
    assert np.allclose(m[:2, :2], [[c, s], [-s, c]], atol=1e-5)


def test_python_scope_math_on_vectors_and_swizzle_errors():
    v = ti.math.vec3(1.5, -2.5, 3)
    assert ti.floor(v).to_list() == [1.0, -3.0, 3.0]
    assert ti.abs(v).to_list() == [1.5, 2.5, 3.0]
    a = ti.math.vec2(1, 2)
    with pytest.raises(ti.TaichiSyntaxError, match="only has attributes"):
        a.z = 3
    with pytest.raises(ti.TaichiRuntimeError, match="does not match the swizzle"):
        a.xy = [1, 2, 3]


def test_vector_matrix_and_struct_kernel_arguments():
    P = ti.types.struct(pos=ti.math.vec2, m=ti.f32)

    @ti.kernel
    def k(v: ti.math.vec3, m: ti.types.matrix(2, 2, ti.i32), p: P) -> ti.f32:
        v.x += 1
        return v.sum() + m[1, 0] + p.pos.y * p.m

    assert k(ti.math.vec3(1, 2, 3), ti.Matrix([[1, 2], [3, 4]]), P(pos=[1, 2], m=3.0)) == 16
    assert k([1, 2, 3], [[1, 2], [3, 4]], {"pos": [0, 1], "m": 2.0}) == 12
    with pytest.raises(ti.TaichiRuntimeTypeError, match="expected to be a Matrix with shape"):
        k([1, 2], [[1, 2], [3, 4]], {"pos": [0, 1], "m": 2.0})


def test_argument_errors_name_the_parameter():
    @ti.kernel
    def foo(a: ti.i32, b: ti.i32) -> ti.i32:
        return a + b

    with pytest.raises(ti.TaichiSyntaxError, match="Parameter `a : i32` missing"):
        foo(b=1)
    with pytest.raises(ti.TaichiSyntaxError, match="Unexpected argument 'c'"):
        foo(1, 2, c=3)
    with pytest.raises(ti.TaichiSyntaxError, match="Too many arguments"):
        foo(1, 2, 3)
    with pytest.raises(ti.TaichiSyntaxError, match="Multiple values for argument 'a'"):
        foo(1, a=2)
    assert foo(1, b=2) == 3

    @ti.func
    def f(a, b):
        return a + b

    @ti.kernel
    def k() -> ti.i32:
        return f(1)

    with pytest.raises(ti.TaichiSyntaxError, match="Parameter `b` missing"):
        k()


def test_return_inside_a_static_loop_and_placed_struct_fields():
    @ti.kernel
    def foo() -> ti.i32:
        a = 0
        for i in ti.static(range(10)):
            a += i * i
            if ti.static(i == 8):
                return a

    assert foo() == 204

    @ti.kernel
    def bad() -> ti.i32:
        for i in range(10):
            return i

    with pytest.raises(ti.TaichiCompilationError, match="Return inside non-static if/for"):
        bad()

    s = ti.Struct.field({"a": ti.i32, "v": ti.math.vec2})
    ti.root.dense(ti.i, 4).place(s)

    @ti.kernel
    def fill():
        for i in s:
            s[i].a = i
            s[i].v = [i, 2 * i]

    fill()
    assert s[3].a == 3 and s[3].v.to_list() == [3, 6]


def test_round_takes_a_dtype_as_floor_and_ceil_do():
    @ti.kernel
    def k(x: ti.f32) -> ti.types.vector(4, ti.f32):
        v = ti.math.vec3(1.1, 2.5, -3.5)
        r = ti.round(v, int)
        return ti.Vector([ti.round(x, ti.f64), ti.round(x, int), r[1], r[2]])

    assert k(1.5).to_list() == [2.0, 2.0, 3.0, -4.0]
    assert ti.round(1.5, int) == 2 and isinstance(ti.round(1.5, int), int)


def test_fill_starred_arguments_and_numpy_shapes_in_kernels():
    """What Taichi's example programs use in kernels: `x.fill(v)` (a loop over x, then
    the next loop sees it), `f(*xs)` / `f(**kw)` with compile-time xs and kw (also in
    ti.ndrange), a global NumPy array as a constant (shape, elements, arithmetic), and a
    ti.func whose scalar return annotation meets a vector."""
    a = ti.field(ti.f32, (4, 3))
    v = ti.Vector.field(2, ti.f32, 5)
    out = ti.field(ti.i32, ())
    table = np.zeros((5, 3))
    extent = (2, 3)
    opts = {"y": 4}

    @ti.func
    def weigh(x, y=1):
        return x * y

    @ti.kernel
    def k(x: ti.f32):
        a.fill(x)
        v.fill(ti.Vector([1.0, 2.0]))
        out[None] = table.shape[0] * 10 + table.shape[1] + table.ndim * 100
        for i, j in ti.ndrange(*extent):
            a[i, j] += ti.max(*extent) + weigh(1.0, **opts)

    @ti.func
    def first(i: int) -> ti.f32:  # a scalar annotation on a vector: cast per element
        return ti.Vector([i + 0.5, i + 1.5])

    cube = np.array([3, 2])
    w = ti.Vector.field(2, ti.f32, 2)

    @ti.kernel
    def numpy_constants():
        for I in ti.grouped(ti.ndrange(*(cube - 1))):  # NumPy arithmetic at compile time
            w[I.x] = first(I.x + cube[1])

    numpy_constants()
    assert np.array_equal(w.to_numpy(), [[2.5, 3.5], [3.5, 4.5]])

    k(7.0)
    expect = np.full((4, 3), 7.0, np.float32)
    expect[:2] += 3 + 4
    assert np.array_equal(a.to_numpy(), expect)
    assert np.array_equal(v.to_numpy(), np.tile([1.0, 2.0], (5, 1)))
    assert out[None] == 253

    @ti.kernel
    def bad(x: ti.f32):
        a[0, 0] = ti.max(*x)

    with pytest.raises(ti.TaichiSyntaxError, match=r"cannot expand a f32 value into arguments"):
        bad(1.0)

    @ti.kernel
    def runtime_index(i: ti.i32):
        a[0, 0] = cube[i]

    with pytest.raises(ti.TaichiSyntaxError, match="global NumPy array is a constant"):
        runtime_index(1)


def test_nested_struct_fields_and_struct_returns():
    """A struct member of struct type in a field (cornell_box's objects[i].transform.matrix)
    and a ti.func annotated to return a struct type."""
    vec3 = ti.math.vec3
    Transform = ti.types.struct(position=vec3, scale=ti.f32)
    Body = ti.types.struct(mass=ti.f32, transform=Transform)
    bodies = Body.field(shape=3)
    bodies[1] = Body(mass=2.0, transform=Transform(vec3(1, 2, 3), 0.5))
    assert bodies.shape == (3,) and bodies.transform.scale[1] == 0.5

    @ti.func
    def moved(t: Transform, d: ti.f32) -> Transform:
        t.position += d
        return t

    out = ti.Vector.field(3, ti.f32, 3)

    @ti.kernel
    def k():
        for i in bodies:
            t = moved(bodies[i].transform, bodies[i].mass)
            bodies[i].transform.scale = t.scale * 4
            out[i] = t.position

    k()
    assert np.allclose(out.to_numpy()[1], [3, 4, 5]) and np.allclose(out.to_numpy()[0], 0)
    assert bodies.transform.scale.to_numpy().tolist() == [0.0, 2.0, 0.0]
    assert np.allclose(bodies.transform.position.to_numpy()[1], [1, 2, 3])  # a copy moved


def test_vector_slices_and_matrix_cols_of_a_comprehension():
    """`force[:2]` (eulerfluid2d) and `ti.Matrix.cols([... for i in range(3)])`
    (implicit_fem) in kernels."""
    x = ti.Vector.field(3, ti.f32, 4)
    out2 = ti.Vector.field(2, ti.f32, ())
    m = ti.Matrix.field(3, 3, ti.f32, ())
    rows = ti.Matrix.field(2, 3, ti.f32, ())

    @ti.kernel
    def k():
        v = ti.Vector([1.0, 2.0, 3.0])
        out2[None] = v[:2] + v[1:] + v[::2]
        a = ti.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        rows[None] = a[1:]
        m[None] = ti.Matrix.cols([x[i] - x[3] for i in range(3)])

    x.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3))
    k()
    assert out2[None].to_list() == [1 + 2 + 1, 2 + 3 + 3]
    assert np.array_equal(rows[None].to_numpy(), [[4, 5, 6], [7, 8, 9]])
    cols = np.arange(12, dtype=np.float32).reshape(4, 3)
    assert np.array_equal(m[None].to_numpy(), (cols[:3] - cols[3]).T)


def test_ref_parameters_write_through_to_the_caller():
    x = ti.field(ti.f32, shape=3)

    @ti.real_func
    def seven(a: ti.ref(ti.f32)):
        a = 7

    @ti.func
    def grow(a: ti.ref(ti.f32), k: ti.f32):
        a += a * k

    @ti.kernel
    def k() -> ti.f32:
        a = 5.0
        seven(a)
        b = 1.0
        grow(b, 2.0)
        x[1] = 3.0
        grow(x[1], 1.0)
        return a * 100 + b

    assert k() == 703.0
    assert x.to_numpy().tolist() == [0.0, 6.0, 0.0]

    @ti.kernel
    def not_a_variable():
        seven(1.0 + 2.0)

    with pytest.raises(ti.TaichiSyntaxError, match="is a ti.ref"):
        not_a_variable()

    @ti.kernel
    def wrong_type():
        i = 1
        seven(i)

    with pytest.raises(ti.TaichiTypeError, match=r"ti.ref\(f32\), the argument is a i32"):
        wrong_type()


def test_negative_integer_exponent(arch):
    ti.init(arch=arch, debug=True)

    @ti.kernel
    def const_exp(x: ti.i32, y: ti.template()) -> ti.i32:
        return x**y

    @ti.kernel
    def run_time_exp(x: ti.i32, y: ti.i32) -> ti.i32:
        return x**y

    # a constant negative exponent: an error when the kernel compiles, as Taichi's
    with pytest.raises(RuntimeError, match=r"Negative exponent in pow\(int, int\)"):
        const_exp(10, -2)
    assert const_exp(3, 3) == 27
    # debug mode checks a run-time exponent, naming the line
    with pytest.raises(RuntimeError, match=r"(?s)Negative exponent in pow\(int, int\).*return x\*\*y"):
        run_time_exp(10, -2)
    assert run_time_exp(-2, 5) == -32


def test_clz_and_floor_ceil_with_a_positional_dtype():
    @ti.kernel
    def clz32(x: ti.i32) -> ti.i32:
        return ti.math.clz(x)

    @ti.kernel
    def clz64(x: ti.i64) -> ti.i64:
        return ti.math.clz(x)

    @ti.kernel
    def rounded(x: ti.f32) -> ti.types.vector(2, ti.i32):
        return ti.Vector([ti.math.ceil(x, int), ti.floor(x, ti.i32)])

    for v in (0, 1, 2, 3, 1023, 1024, -1, 2**31 - 1):
        assert clz32(v) == 32 - (v & 0xFFFFFFFF).bit_length()
    assert [clz64(v) for v in (0, 1, 2**40)] == [64, 63, 23]
    assert ti.math.clz(1024) == 21
    assert rounded(2.5).to_list() == [3, 2]
    assert rounded(-2.5).to_list() == [-2, -3]


def test_frexp_matches_c(arch):
    ti.init(arch=arch)

    @ti.kernel
    def fr32(x: ti.f32) -> ti.types.vector(2, ti.f32):
        m, e = ti.frexp(x)
        return ti.Vector([m, e])

    @ti.kernel
    def fr64(x: ti.f64) -> ti.types.vector(2, ti.f64):
        m, e = ti.frexp(x)
        return ti.Vector([m, e])

    for v in (1.4, 0.0, -3.0, 1024.0, 0.1, 1e-30):
        m, e = math.frexp(v)
        got = fr32(v).to_list()
        assert got[0] == pytest.approx(m, rel=1e-6) and got[1] == e
    for v in (1.4, -3.0, 0.1, 1e-310, -5e-320, math.inf, -math.inf):  # subnormals too
        assert fr64(v).to_list() == list(math.frexp(v))
    assert ti.frexp(1.4) == math.frexp(1.4)


def test_grouped_ndrange_of_no_dimensions_runs_once():
    val = ti.field(ti.i32, shape=())

    @ti.kernel
    def once():
        for I in ti.grouped(ti.ndrange()):
            val[I] += 42

    @ti.kernel
    def static_once():
        for I in ti.static(ti.grouped(ti.ndrange())):
            val[I] += 1

    once()
    static_once()
    assert val[None] == 43

    @ti.kernel
    def plain():
        for _ in ti.ndrange():
            val[None] += 1

    with pytest.raises(ti.TaichiSyntaxError, match="only under ti.grouped"):
        plain()


def test_floor_and_ceil_of_a_constant_with_a_dtype():
    # `tm.ceil(grid_size * W / H, int)` of compile-time constants (marching_squares):
    # the rounded value in that type, usable as a loop bound.
    W, H = 7, 3

    @ti.kernel
    def k() -> ti.i32:
        n = ti.ceil(2 * W / H, int)
        s = 0
        for i in range(n):
            s += i
        return s * 10 + ti.math.floor(W / H, dtype=ti.i32)

    assert k() == 102


def test_dict_keyed_by_kernel_values():
    """A scalar kernel value is a dict key of its own (each evaluation one key), as a
    Taichi expression is; several `if`s of a comprehension all filter."""
    x = ti.field(ti.i32, 8)
    for i in range(8):
        x[i] = i * 2

    @ti.kernel
    def k() -> ti.i32:
        a = {x[j]: x[j] + j for j in range(8) if j > 2 if j < 5}
        b = {x[1]: 1, x[1]: 2}  # two evaluations, two keys
        return sum(a.values()) * 10 + len(b)

    assert k() == ((3 * 2 + 3) + (4 * 2 + 4)) * 10 + 2


def test_break_in_loop_under_folded_if():
    """A loop under a non-static `if` is not one of the kernel's outermost loops (it
    runs serially and may break), even when the condition folds; under
    `if ti.static(...)` it stays outermost."""

    @ti.kernel
    def k(n: ti.i32) -> ti.i32:
        a = 0
        if True:
            for i in range(1000):
                if i == n:
                    break
                a += 1
        return a

    assert k(100) == 100
    assert k(5) == 5

    @ti.kernel
    def static_branch() -> ti.i32:
        a = 0
        if ti.static(True):
            for i in range(10):
                if i == 3:
                    break
                a += 1
        return a

    with pytest.raises(ti.TaichiSyntaxError, match="Cannot break in the outermost loop"):
        static_branch()


def test_lang_ops_binary_names_and_impl_casts():
    """`ti.lang.ops.add(a, b)` is `a + b` (vectors included); `ti.lang.impl.ti_float(x)`
    is `float(x)`, in a kernel and in Python scope."""
    offsets = [ti.Vector([1, 2]), ti.Vector([2, 3])]
    out = ti.Vector.field(2, ti.i32, 3)
    f = ti.field(ti.f32, 2)

    @ti.kernel
    def k(x: ti.i32, y: ti.i32):
        vec = ti.Vector([4, 5])
        out[0] = ti.lang.ops.add(vec, ti.static(offsets)[1])
        out[1] = ti.lang.ops.bit_shl(vec, 1) - ti.lang.ops.mod(vec, 3)
        out[2][0] = ti.lang.ops.floordiv(x, y)
        out[2][1] = ti.lang.ops.bit_xor(x, y)
        f[0] = ti.lang.impl.ti_float(x) / y
        f[1] = ti.lang.ops.truediv(x, y)

    k(37, 3)
    assert out.to_numpy().tolist() == [[6, 8], [7, 8], [12, 37 ^ 3]]
    assert f.to_numpy() == pytest.approx([37 / 3, 37 / 3])
    assert ti.lang.ops.add(1, 2) == 3 and ti.lang.impl.ti_float(3) == 3.0


def test_list_elements_assigned_in_a_branch_are_variables():
    # As in Taichi, each element of a list built in a kernel is a variable: a swap in a
    # run-time branch swaps only where the branch runs, and the field read is a copy.
    F = ti.Vector.field(4, ti.i32, shape=3)
    out = ti.field(ti.i32, shape=9)

    @ti.kernel
    def swap_middle(flip: ti.i32):
        for c in F:
            F[c] = ti.Vector([c, c + 1, c + 2, c + 3])
        for c in F:
            verts = [F[c][j] for j in range(3)]
            pair = [c * 0, c * 0 + 1.5]
            if c == flip:
                tmp = verts[1]
                verts[1] = verts[2]
                verts[2] = tmp
                pair[1] += 1
            for j in ti.static(range(3)):
                out[c * 3 + j] = verts[j] + ti.cast(pair[1] * 2, ti.i32) * 100

    swap_middle(1)
    assert out.to_numpy().tolist() == [300, 301, 302, 501, 503, 502, 302, 303, 304]
    assert F.to_numpy()[1].tolist() == [1, 2, 3, 4]


def test_static_print_prints_at_compile_time(capsys):
    x = ti.field(ti.f32, shape=2)

    @ti.kernel
    def k():
        for i in range(2):
            x[i] = abs(-i)
            ti.static_print(x[i], 3, "a")

    k()
    k()  # compiled once: printed once
    assert capsys.readouterr().out == "<ti.Expr> 3 a\n"
    assert x.to_numpy().tolist() == [0, 1]


def test_list_element_assignment_errors_name_the_index():
    @ti.kernel
    def past_the_end(n: ti.i32) -> ti.i32:
        a = [n, n]
        a[2] = 1
        return a[0]

    with pytest.raises(ti.TaichiSyntaxError, match="list index 2 out of range"):
        past_the_end(1)

    @ti.kernel
    def runtime_index(n: ti.i32) -> ti.i32:
        a = [n, n]
        a[n] = 1
        return a[0]

    with pytest.raises(ti.TaichiSyntaxError, match="assigned with a compile-time index"):
        runtime_index(1)


def test_list_elements_assigned_in_run_time_loops_carry_their_values():
    # A read in a run-time loop must see what the previous iteration stored into the
    # element (the loop body is generated once), in `while` and `for`, scalars and vectors.
    @ti.kernel
    def k(n: ti.i32) -> ti.types.vector(5, ti.i32):
        fib = [0, 1]
        i = 0
        while i < n:
            nxt = fib[0] + fib[1]
            fib[0] = fib[1]
            fib[1] = nxt
            i += 1
        m = [ti.Vector([1, 0]), ti.Vector([3, 4])]
        ti.loop_config(serialize=True)
        for j in range(n):
            m[0] = m[0] + m[1]
            m[1][1] += j
        return ti.Vector([fib[0], fib[1], m[0][0], m[0][1], m[1][1]])

    n = 10
    m0, m1 = [1, 0], [3, 4]  # the same loop in Python
    for j in range(n):
        m0 = [m0[0] + m1[0], m0[1] + m1[1]]
        m1[1] += j
    assert k(n).to_numpy().tolist() == [55, 89, m0[0], m0[1], m1[1]]

    @ti.kernel
    def nested(n: ti.i32) -> ti.i32:
        g = [[n * 0, 1], [2, 3]]
        ti.loop_config(serialize=True)
        for _ in range(n):
            g[0][0] = g[0][0] + g[1][1]
        return g[0][0]

    assert nested(4) == 12


def test_lists_passed_to_funcs_in_a_run_time_loop():
    # A ti.template() parameter is the caller's list (its stores are seen by the next
    # iteration); a plain parameter is a copy, as in Taichi.
    @ti.func
    def bump_template(lst: ti.template()):
        lst[0] = lst[0] + 1

    @ti.func
    def bump_copy(lst):
        lst[0] = lst[0] + 1

    @ti.kernel
    def k(n: ti.i32) -> ti.types.vector(2, ti.i32):
        a = [n * 0]
        b = [n * 0]
        ti.loop_config(serialize=True)
        for _ in range(n):
            bump_template(a)
            bump_copy(b)
        return ti.Vector([a[0], b[0]])

    assert k(5).to_numpy().tolist() == [5, 0]
