"""
End-to-end: results that must be the same on every arch, where C or a driver would leave
them undefined or narrow them quietly (issue 13).

- Integer division and remainder by zero never kill the process (x86 traps on `idiv`):
  `a / 0` is 0 (signed, truncating) or all ones (unsigned), `a % 0` is `a`,
  `MIN / -1` wraps to MIN, as Taichi gives on Vulkan; so Python's `a // 0` is -1 for a
  negative `a` and 0 otherwise. With debug=True it is a located error instead.
"""

import numpy as np
import pytest
import taichi_xdsl as ti

from conftest import init_arch

I32_MIN = -(2**31)


def test_signed_division_by_zero_is_defined(program):
    out = ti.field(ti.i32, shape=4)

    @ti.kernel
    def divide(a: ti.i32, b: ti.i32):
        out[0] = a // b
        out[1] = a % b
        out[2] = ti.raw_div(a, b)
        out[3] = ti.raw_mod(a, b)

    expected = {
        (7, 0): [0, 7, 0, 7],
        (-7, 0): [-1, -7, 0, -7],
        (I32_MIN, 0): [-1, I32_MIN, 0, I32_MIN],
        (I32_MIN, -1): [I32_MIN, 0, I32_MIN, 0],
        (7, -2): [-4, -1, -3, 1],
        (-7, 2): [-4, 1, -3, -1],
    }
    for (a, b), want in expected.items():
        divide(a, b)
        assert out.to_numpy().tolist() == want, (a, b)


def test_unsigned_division_by_zero_is_defined(program):
    out = ti.field(ti.u32, shape=2)

    @ti.kernel
    def divide(a: ti.u32, b: ti.u32):
        out[0] = a // b
        out[1] = a % b

    divide(7, 0)
    assert out.to_numpy().tolist() == [2**32 - 1, 7]
    divide(7, 2)
    assert out.to_numpy().tolist() == [3, 1]


def test_i64_division_by_zero_in_a_parallel_loop(program):
    a = ti.ndarray(ti.i64, 6)
    b = ti.ndarray(ti.i64, 6)
    q = ti.ndarray(ti.i64, 6)
    r = ti.ndarray(ti.i64, 6)

    @ti.kernel
    def divide(a: ti.types.ndarray(), b: ti.types.ndarray(), q: ti.types.ndarray(),
               r: ti.types.ndarray()):
        for i in a:
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]

    a.from_numpy(np.array([5, -5, 9, 0, -(2**63), 12], np.int64))
    b.from_numpy(np.array([0, 0, 4, 0, -1, -5], np.int64))
    divide(a, b, q, r)
    assert q.to_numpy().tolist() == [0, -1, 2, 0, -(2**63), -3]
    assert r.to_numpy().tolist() == [5, -5, 1, 0, 0, -3]


@pytest.mark.parametrize("op", ["//", "%", "raw_div"])
def test_division_by_zero_in_debug_mode_is_a_located_error(arch, op):
    init_arch(arch, debug=True)
    out = ti.field(ti.i32, shape=1)

    @ti.kernel
    def floor_div(a: ti.i32, b: ti.i32):
        out[0] = a // b

    @ti.kernel
    def modulo(a: ti.i32, b: ti.i32):
        out[0] = a % b

    @ti.kernel
    def raw_div(a: ti.i32, b: ti.i32):
        out[0] = ti.raw_div(a, b)

    kernel = {"//": floor_div, "%": modulo, "raw_div": raw_div}[op]
    kernel(7, 2)  # a non-zero divisor passes the check
    with pytest.raises(ti.TaichiAssertionError) as info:
        kernel(7, 0)
    message = str(info.value)
    assert "Division by zero" in message
    assert "test_defined_results.py" in message and ", line " in message
    assert f"out[0] = {'ti.raw_div(a, b)' if op == 'raw_div' else f'a {op} b'}" in message


# -- one argument rule on every arch -------------------------------------------------------


def test_a_float_passed_to_an_integer_argument_is_rejected(program):
    out = ti.field(ti.i32, shape=1)

    @ti.kernel
    def store(x: ti.i32):
        out[0] = x

    with pytest.raises(
        ti.TaichiRuntimeTypeError,
        match=r"cannot be converted into required type i32: .* argument 0 got 2.7",
    ):
        store(2.7)
    with pytest.raises(ti.TaichiRuntimeTypeError, match="required type i32"):
        store(np.float32(2.0))
    store(np.int64(3))  # any integer is fine
    assert out[0] == 3


def test_a_read_only_numpy_array_is_written_as_taichi_writes_it(program):
    @ti.kernel
    def fill(a: ti.types.ndarray()):
        for i in a:
            a[i] = i * 2 + 1

    a = np.zeros(5, np.int32)
    a.flags.writeable = False
    fill(a)
    assert a.tolist() == [1, 3, 5, 7, 9]


# -- f64 stays f64 -------------------------------------------------------------------------


def test_a_local_from_a_folded_f64_expression_is_f64(program):
    out = ti.field(ti.f64, shape=2)

    @ti.kernel
    def k():
        v = ti.sqrt(ti.f64(2.0))
        out[0] = v
        w = ti.f64(1.0) / 3
        out[1] = w

    k()
    assert out[0] == np.sqrt(2.0)
    assert out[1] == 1.0 / 3


# -- Python float literals are default_fp values (Taichi's rule) ---------------------------

F32_TENTH = float(np.float32(0.1))  # 0.10000000149011612


def test_a_float_literal_is_a_default_fp_value(program):
    out = ti.field(ti.f64, shape=8)

    @ti.kernel
    def k(x: ti.f64):
        out[0] = 0.1  # an f32 0.1, widened
        out[1] = x * 0.1
        out[2] = ti.f64(0.1)  # a typed constant keeps every digit
        out[3] = ti.cast(0.1, ti.f64)  # a cast of the f32 literal
        out[4] = 0.1 + 0.2  # folded in Python, then an f32
        out[5] = 1e300  # beyond f32: inf, as in Taichi
        out[6] = ti.select(x > 0, 0.1, 0.2)

    k(1.0)
    want = [F32_TENTH, F32_TENTH, 0.1, F32_TENTH, float(np.float32(0.1 + 0.2)), np.inf,
            F32_TENTH, 0.0]
    assert out.to_numpy().tolist() == want


def test_fill_takes_a_float_as_a_default_fp_value(program):
    f = ti.field(ti.f64, shape=3)
    a = ti.ndarray(ti.f64, 3)
    f.fill(0.1)
    a.fill(0.1)
    assert f.to_numpy().tolist() == [F32_TENTH] * 3
    assert a.to_numpy().tolist() == [F32_TENTH] * 3


def test_with_default_fp_f64_a_literal_keeps_every_digit(arch):
    init_arch(arch, default_fp=ti.f64)
    out = ti.field(ti.f64, shape=2)

    @ti.kernel
    def k(x: ti.f64):
        out[0] = 0.1
        out[1] = x * 0.1

    k(3.0)
    assert out.to_numpy().tolist() == [0.1, 3.0 * 0.1]
    out.fill(0.1)
    assert out[0] == 0.1


def test_a_typed_literal_of_the_other_kind_is_a_type_error(program):
    @ti.kernel
    def float_of_int():
        a = ti.f32(0)  # noqa: F841

    @ti.kernel
    def int_of_float():
        a = ti.i32(0.0)  # noqa: F841

    with pytest.raises(ti.TaichiTypeError, match="Integer literals must be annotated"):
        float_of_int()
    with pytest.raises(ti.TaichiTypeError, match="Floating-point literals must be annotated"):
        int_of_float()
