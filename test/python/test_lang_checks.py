"""
Checks Taichi makes, and its messages, for code Taichi rejects: each error here has
Taichi's exception type and the words its users search for; a kernel's error names the
file, line and source line.
"""

import re

import pytest
import taichi_xdsl as ti

THIS_FILE = __file__


@pytest.fixture(autouse=True)
def program():
    ti.init(arch=ti.cpu)
    yield
    ti.reset()


def _k_matrix_row_index():
    m = ti.Matrix([[1, 2, 3], [4, 5, 6]])
    print(m[0])


def _k_vector_two_indices():
    v = ti.Vector([1, 2, 3, 4])
    print(v[0, 0])


def _k_matrix_row_store():
    m = ti.Matrix([[1, 2], [3, 4]])
    m[0] = ti.Vector([5, 6])


def _k_trace_of_non_square():
    m = ti.Matrix([[0.1, 3.0], [5.0, 7.0], [1.0, 2.0]])
    print(m.trace())


def _k_vector_transpose():
    x = ti.Vector([1, 2])
    print(x @ x.transpose())


def _k_swizzle_beyond_vec2():
    b = ti.math.vec2(1, 2)
    b.z = 3


def _k_swizzle_read_beyond_vec2():
    b = ti.math.vec2(1, 2)
    print(b.xyz)


def _k_not_of_float():
    x = 1.5
    print(not x)


def _k_invert_of_float():
    x = 1.5
    print(~x)


@pytest.mark.parametrize(
    "body, error, message",
    [
        (_k_matrix_row_index, ti.TaichiCompilationError, "Expected 2 indices, got 1."),
        (_k_vector_two_indices, ti.TaichiCompilationError, "Expected 1 indices, got 2."),
        (_k_matrix_row_store, ti.TaichiCompilationError, "Expected 2 indices, got 1."),
        (_k_trace_of_non_square, ti.TaichiCompilationError, "expected a square matrix, got shape (3, 2)"),
        (_k_vector_transpose, ti.TaichiCompilationError, "`transpose()` cannot apply to a vector. If you want something like `a @ b.transpose()`, write `a.outer_product(b)` instead."),
        (_k_swizzle_beyond_vec2, ti.TaichiSyntaxError, "vec2 only has attributes=('x', 'y'), got=('z',)"),
        (_k_swizzle_read_beyond_vec2, ti.TaichiSyntaxError, "vec2 only has attributes=('x', 'y'), got=('x', 'y', 'z')"),
        (_k_not_of_float, ti.TaichiTypeError, "'logic_not' takes integral inputs only, however 'f32' is provided"),
        (_k_invert_of_float, ti.TaichiTypeError, "'bit_not' takes integral inputs only, however 'f32' is provided"),
    ],
    ids=lambda v: getattr(v, "__name__", "")[3:] if callable(v) else "",
)  # fmt: skip
def test_taichi_rejects_these_kernels(body, error, message):
    k = ti.kernel(body)
    with pytest.raises(error, match=re.escape(message)) as info:
        k()
    assert str(info.value).startswith(f'\nFile "{THIS_FILE}", line ')


def test_python_scope_matrix_checks():
    with pytest.raises(ti.TaichiCompilationError, match=re.escape("got shape (3, 2)")):
        ti.Matrix([[0.1, 3.0], [5.0, 7.0], [1.0, 2.0]]).trace()
    with pytest.raises(ti.TaichiCompilationError, match=re.escape("got shape (2, 3)")):
        ti.Matrix([[1, 2, 3], [4, 5, 6]]).inverse()
    with pytest.raises(ti.TaichiCompilationError, match="cannot apply to a vector"):
        ti.Vector([1, 2]).transpose()
    assert ti.Matrix([[1, 2], [3, 4]]).trace() == 5
    assert ti.Matrix([[1, 2], [3, 4]]).transpose().to_numpy().tolist() == [[1, 3], [2, 4]]


def test_matrix_element_indexing_still_works():
    @ti.kernel
    def k(i: ti.i32) -> ti.types.vector(4, ti.i32):
        m = ti.Matrix([[1, 2], [3, 4]])
        m[1, 0] = 7
        v = ti.Vector([5, 6, 7])
        return ti.Vector([m[1, 0], m[i, 1], v[i], m.transpose()[0, 1]])

    assert k(1).to_list() == [7, 4, 6, 7]


def test_out_of_bound_access_is_taichis_assertion(arch):
    """Debug mode: an index out of range is Taichi's failed assertion ("Out of bound
    access"), still an IndexError, on each arch; the access itself is skipped."""
    ti.init(arch=arch, debug=True)
    f = ti.field(ti.f32, 4)

    @ti.kernel
    def read(a: ti.types.ndarray(), i: ti.i32) -> ti.f32:
        return a[i] + f[0]

    a = ti.ndarray(ti.f32, 4)
    a[1] = 2.0
    assert read(a, 1) == 2.0
    for bad in (4, -1):
        with pytest.raises(AssertionError, match="Out of bound access") as info:
            read(a, bad)
        assert isinstance(info.value, IndexError)
    assert read(a, 1) == 2.0  # the program still works


def test_dataclass_member_default_is_refused():
    with pytest.raises(ti.TaichiSyntaxError, match=re.escape("Default value in @dataclass is not supported.")):

        @ti.dataclass
        class Foo:
            a: int
            b: float = 3.14

    @ti.dataclass
    class Ok:
        a: int

        @ti.func
        def twice(self):
            return self.a * 2

    assert Ok(a=3).a == 3


@ti.func
def _safe_sqrt(a):
    if a > 0:
        return ti.sqrt(a)
    return 0.0


@ti.func
def _declared_but_no_return() -> ti.i32:
    pass


def _k_func_returns_inside_if():
    x = 2.0
    for _ in range(1):
        x += 1.0
    print(_safe_sqrt(x))


def _k_func_without_return() -> ti.i32:
    return _declared_but_no_return()


def _k_kernel_without_return() -> ti.i32:
    pass


def _k_vector_times_field():
    a = ti.Vector([1, 1, 1])
    print(a * _scalar_field)


_scalar_field = None


@pytest.mark.parametrize(
    "body, error, message",
    [
        (_k_func_returns_inside_if, ti.TaichiSyntaxError, "Return inside non-static if/for is not supported"),
        (_k_func_without_return, ti.TaichiSyntaxError, "Function has a return type but does not have a return statement"),
        (_k_kernel_without_return, ti.TaichiSyntaxError, "Kernel has a return type but does not have a return statement"),
        (_k_vector_times_field, ti.TaichiTypeError, "unsupported operand type(s) for '*': a i32 value and a field"),
    ],
    ids=lambda v: getattr(v, "__name__", "")[3:] if callable(v) else "",
)  # fmt: skip
def test_taichi_rejects_these_functions(body, error, message):
    global _scalar_field
    _scalar_field = ti.field(ti.i32, ())
    k = ti.kernel(body)
    with pytest.raises(error, match=re.escape(message)):
        k()


def test_returns_allowed_where_taichi_allows_them():
    """A ti.func returns once at the end or from a ti.static branch/loop; a
    ti.real_func may return from a branch."""

    @ti.func
    def pick(x: ti.template()):
        if ti.static(x > 0):
            return 1.0
        for i in ti.static(range(3)):
            if ti.static(i == 1):
                return 2.0
        return 3.0

    @ti.real_func
    def branchy(a: ti.f32) -> ti.f32:
        if a > 0:
            return ti.sqrt(a)
        return 0.0

    @ti.kernel
    def k(a: ti.f32) -> ti.types.vector(3, ti.f32):
        return ti.Vector([pick(1), pick(0), branchy(a)])

    assert k(4.0).to_list() == [1.0, 2.0, 2.0]
    assert k(-1.0).to_list() == [1.0, 2.0, 0.0]


def test_struct_return_must_have_the_declared_member_types(arch):
    ti.init(arch=arch)
    sphere = ti.types.struct(center=ti.math.vec3, radius=float)
    circle = ti.types.struct(center=ti.math.vec2, radius=float)
    sphere_int = ti.types.struct(center=ti.math.vec3, radius=int)
    sphere_again = ti.types.struct(center=ti.math.vec3, radius=float)

    @ti.kernel
    def bad_shape() -> sphere:
        return circle(center=ti.math.vec2([1, 2]), radius=2)

    @ti.kernel
    def bad_member_type() -> sphere:
        return sphere_int(center=ti.math.vec3([1, 2, 3]), radius=2)

    @ti.kernel
    def same_members() -> sphere:
        return sphere_again(center=ti.math.ivec3([1, 2, 3]), radius=2)

    for k in (bad_shape, bad_member_type):
        with pytest.raises(ti.TaichiCompilationError, match="cannot be converted into required type"):
            k()
    r = same_members()
    assert r.center.to_list() == [1.0, 2.0, 3.0] and r.radius == 2.0


def test_ndarray_parameter_of_a_func_checks_its_element_type():
    @ti.func
    def store2(a: ti.types.ndarray(dtype=ti.math.vec2, ndim=1)):
        a[0] = [100, 100]

    @ti.func
    def store_any(a: ti.types.ndarray(ndim=1)):
        a[0] = [7, 8, 9]

    @ti.kernel
    def wrong(x: ti.types.ndarray(ndim=1)):
        store2(x)

    @ti.kernel
    def right(x: ti.types.ndarray(ndim=1)):
        store_any(x)

    arr = ti.ndarray(ti.math.vec3, shape=4)
    with pytest.raises(ti.TaichiCompilationError, match="Invalid value for argument a - required element type"):
        wrong(arr)
    right(arr)
    assert arr[0].to_list() == [7, 8, 9]


def test_datatype_to_string():
    for t in (ti.u8, ti.i16, ti.i32, ti.u64, ti.f16, ti.f32, ti.f64):
        assert t.to_string() == str(t)


def test_assert_message_formatted_with_run_time_values(arch):
    """`assert c, "..." % (...)`, an f-string or str.format: the message shows the
    values at the failing iteration, as Taichi's does, on each arch."""
    ti.init(arch=arch, debug=True)
    x = ti.field(ti.i32, 16)
    x[10] = 42

    @ti.kernel
    def percent():
        for i in x:
            assert x[i] == 0, "x[%d] expect=%d got=%d" % (i, 0, x[i])

    @ti.kernel
    def fstring():
        for i in x:
            assert x[i] == 0, f"x[{i}] expect={0} got={x[i]}"

    @ti.kernel
    def floats(y: ti.f64):
        assert y < 0, "y = {:.3f}, half {}".format(y, y / 2)

    @ti.kernel
    def plain():
        assert x[10] == 0, "x[10] is set"

    for k in (percent, fstring):
        with pytest.raises(AssertionError, match=re.escape("x[10] expect=0 got=42")):
            k()
    with pytest.raises(AssertionError, match=re.escape("y = 0.250, half 0.125000")):
        floats(0.25)
    with pytest.raises(AssertionError, match="^x\\[10\\] is set$"):
        plain()
    x[10] = 0
    percent()
    fstring()


def _k_assert_three_values():
    i = 1
    assert i == 0, f"{i} {i + 1} {i + 2}"


def test_assert_message_with_more_values_than_the_record_holds():
    k = ti.kernel(_k_assert_three_values)
    with pytest.raises(ti.TaichiSyntaxError, match="formats at most 2 run-time values, got 3"):
        k()
