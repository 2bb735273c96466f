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
