"""
End-to-end: Taichi's type promotion and casting rules, integer and float arithmetic,
bitwise ops, shifts and comparisons, compared with NumPy.
"""

import numpy as np
import pytest
import taichi_xdsl as ti


# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


INT_PAIRS = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (13, 13), (-1, 7), (100, -7)]


@pytest.mark.parametrize("dtype", [ti.i8, ti.i16, ti.i32, ti.i64])
def test_signed_floordiv_mod_like_python(dtype):
    @ti.kernel
    def k(
        a: ti.types.ndarray(),
        b: ti.types.ndarray(),
        q: ti.types.ndarray(),
        r: ti.types.ndarray(),
    ):
        for i in a:
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]

    np_t = dtype.np_dtype
    a = np.array([p[0] for p in INT_PAIRS], dtype=np_t)
    b = np.array([p[1] for p in INT_PAIRS], dtype=np_t)
    q, r = np.zeros_like(a), np.zeros_like(a)
    k(a, b, q, r)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)


def test_floordiv_mod_by_constants():
    @ti.kernel
    def k(
        a: ti.types.ndarray(dtype=ti.i32, ndim=1),
        out: ti.types.ndarray(dtype=ti.i32, ndim=2),
    ):
        for i in a:
            out[i, 0] = a[i] // 4
            out[i, 1] = a[i] % 4
            out[i, 2] = a[i] // -3
            out[i, 3] = a[i] % -3

    a = np.arange(-10, 11, dtype=np.int32)
    out = np.zeros((a.size, 4), dtype=np.int32)
    k(a, out)
    np.testing.assert_array_equal(out, np.stack([a // 4, a % 4, a // -3, a % -3], axis=1))


def test_unsigned_division_and_comparison():
    @ti.kernel
    def k(a: ti.u32, b: ti.u32) -> ti.i32:
        r = 0
        if a > b:  # unsigned compare: 0xFFFFFFFF > 1
            r += 1
        r += 10 * ti.cast(a // b, ti.i32) if b > 1000 else 0
        return r

    assert k(0xFFFFFFFF, 1) == 1
    assert k(0xFFFFFFFF, 0x10000000) == 1 + 10 * (0xFFFFFFFF // 0x10000000)


def test_true_division_makes_default_fp():
    @ti.kernel
    def k(a: ti.i32, b: ti.i32) -> ti.f32:
        return a / b

    assert k(7, 2) == 3.5
    assert k(-7, 2) == -3.5


def test_true_division_default_fp_f64(arch):
    ti.init(arch=arch, default_fp=ti.f64)

    @ti.kernel
    def k(a: ti.i32, b: ti.i32) -> ti.f64:
        return a / b

    assert k(1, 3) == 1 / 3


def test_float_floordiv_and_mod():
    @ti.kernel
    def k(
        a: ti.types.ndarray(dtype=ti.f64, ndim=1),
        b: ti.types.ndarray(dtype=ti.f64, ndim=1),
        q: ti.types.ndarray(dtype=ti.f64, ndim=1),
        r: ti.types.ndarray(dtype=ti.f64, ndim=1),
    ):
        for i in a:
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]

    a = np.array([7.5, -7.5, 7.5, -7.5, 1.0], dtype=np.float64)
    b = np.array([2.0, 2.0, -2.0, -2.0, 0.3], dtype=np.float64)
    q, r = np.zeros_like(a), np.zeros_like(a)
    k(a, b, q, r)
    np.testing.assert_allclose(q, a // b)
    np.testing.assert_allclose(r, a % b, atol=1e-12)


def test_int_float_promotion_and_literals():
    @ti.kernel
    def k(i: ti.i32, x: ti.f64) -> ti.f64:
        # i32 * f32 literal -> f32; f64 * literal -> f64, but the literal is a default_fp
        # (f32) value first, as in Taichi: 0.1 is 0.10000000149011612
        return i * 0.1 + x * 0.1

    assert k(0, 3.0) == 3.0 * float(np.float32(0.1))  # Taichi: 0.30000000447034836
    assert k(10, 0.0) == pytest.approx(1.0, abs=1e-6)


def test_cast_and_type_constructors():
    @ti.kernel
    def k(x: ti.f32, out: ti.types.ndarray(dtype=ti.i64, ndim=1)):
        out[0] = ti.cast(x, ti.i32)
        out[1] = ti.cast(-x, ti.i32)  # truncates towards zero
        out[2] = ti.cast(ti.cast(300, ti.u8), ti.i32)  # wraps
        out[3] = ti.i32(x * 2)
        out[4] = int(x)
        out[5] = ti.cast(ti.cast(-1, ti.i8), ti.u8)
        out[6] = ti.cast(ti.cast(200, ti.u8), ti.i8)  # -56

    out = np.zeros(7, dtype=np.int64)
    k(2.75, out)
    np.testing.assert_array_equal(out, [2, -2, 44, 5, 2, 255, -56])


def test_assignment_keeps_the_variable_type():
    @ti.kernel
    def k() -> ti.i32:
        a = 1  # an i32 variable
        a = 2.9  # stored as i32 (truncated), as in Taichi
        b = 0.0
        b += a  # f32 variable
        return a * 10 + ti.cast(b, ti.i32)

    assert k() == 22


def test_bitwise_and_shifts():
    @ti.kernel
    def k(a: ti.i32, b: ti.i32, u: ti.u32, out: ti.types.ndarray(dtype=ti.i64, ndim=1)):
        out[0] = a & b
        out[1] = a | b
        out[2] = a ^ b
        out[3] = ~a
        out[4] = a << 3
        out[5] = a >> 2  # arithmetic for signed
        out[6] = ti.cast(u >> 28, ti.i64)  # logical for unsigned
        out[7] = -a >> 1

    out = np.zeros(8, dtype=np.int64)
    k(-44, 0x0F0F, 0xF0000000, out)
    a, b = np.int32(-44), np.int32(0x0F0F)
    np.testing.assert_array_equal(
        out, [a & b, a | b, a ^ b, ~a, a << 3, a >> 2, 0xF, 44 >> 1]
    )


def test_comparisons_and_chained():
    @ti.kernel
    def k(x: ti.f32, i: ti.i32, out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        out[0] = x < 1.5
        out[1] = 0 <= i < 10
        out[2] = 0 <= i < 3
        out[3] = x == 1.0
        out[4] = x != 1.0
        out[5] = i >= -1
        out[6] = (x > 0) + (i > 0)  # u1 + u1 -> i32

    out = np.zeros(7, dtype=np.int32)
    k(1.0, 5, out)
    np.testing.assert_array_equal(out, [1, 1, 0, 1, 0, 1, 2])


def test_unary_ops():
    @ti.kernel
    def k(x: ti.f32, i: ti.i32, out: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        out[0] = -x
        out[1] = -i
        out[2] = not i
        out[3] = not (i - 3)
        out[4] = +x

    out = np.zeros(5, dtype=np.float32)
    k(1.5, 3, out)
    np.testing.assert_array_equal(out, [-1.5, -3, 0, 1, 1.5])


def test_pow_int_and_float():
    @ti.kernel
    def k(i: ti.i32, n: ti.i32, x: ti.f32, out: ti.types.ndarray(dtype=ti.f64, ndim=1)):
        out[0] = i**3
        out[1] = i**n
        out[2] = x**2
        out[3] = x**0.5
        out[4] = x**n
        out[5] = x**-2
        out[6] = ti.pow(x, 3.0)
        out[7] = x ** (-n)

    out = np.zeros(8, dtype=np.float64)
    k(3, 5, 2.0, out)
    np.testing.assert_allclose(out, [27, 243, 4, 2**0.5, 32, 0.25, 8, 1 / 32], rtol=1e-6)


def test_math_functions_match_numpy(arch):
    @ti.kernel
    def k(
        x: ti.types.ndarray(dtype=ti.f64, ndim=1),
        out: ti.types.ndarray(dtype=ti.f64, ndim=2),
    ):
        for i in x:
            v = x[i]
            out[i, 0] = ti.sqrt(v)
            out[i, 1] = ti.sin(v)
            out[i, 2] = ti.cos(v)
            out[i, 3] = ti.tan(v)
            out[i, 4] = ti.exp(v)
            out[i, 5] = ti.log(v)
            out[i, 6] = ti.floor(v)
            out[i, 7] = ti.ceil(v)
            out[i, 8] = ti.abs(-v)
            out[i, 9] = ti.tanh(v)
            out[i, 10] = ti.atan2(v, 2.0)
            out[i, 11] = ti.rsqrt(v)
            out[i, 12] = ti.min(v, 1.0)
            out[i, 13] = ti.max(v, 1.0)
            out[i, 14] = ti.math.sqrt(v) + ti.math.cos(v)
            out[i, 15] = ti.math.clamp(v, 0.5, 2.0)

    x = np.array([0.25, 0.7, 1.5, 3.3], dtype=np.float64)
    out = np.zeros((4, 16), dtype=np.float64)
    k(x, out)
    expected = np.stack(
        [
            np.sqrt(x),
            np.sin(x),
            np.cos(x),
            np.tan(x),
            np.exp(x),
            np.log(x),
            np.floor(x),
            np.ceil(x),
            np.abs(x),
            np.tanh(x),
            np.arctan2(x, 2.0),
            1 / np.sqrt(x),
            np.minimum(x, 1.0),
            np.maximum(x, 1.0),
            np.sqrt(x) + np.cos(x),
            np.clip(x, 0.5, 2.0),
        ],
        axis=1,
    )
    # Vulkan: GLSL.std.450's transcendental functions take f32, so f64 ones compute in
    # f32 (convert-arith-to-spirv, as Taichi's SPIR-V codegen), and Vulkan allows them
    # thousands of ULPs (lavapipe's atan2 is off by ~1e-5).
    np.testing.assert_allclose(out, expected, rtol=1e-4 if arch is ti.vulkan else 1e-6)


def test_integer_min_max_abs():
    @ti.kernel
    def k(a: ti.i32, b: ti.i32, u: ti.u32, out: ti.types.ndarray(dtype=ti.i64, ndim=1)):
        out[0] = ti.min(a, b)
        out[1] = ti.max(a, b)
        out[2] = abs(a)
        out[3] = min(a, b, 0)
        out[4] = ti.cast(ti.max(u, ti.u32(1)), ti.i64)  # unsigned max

    out = np.zeros(5, dtype=np.int64)
    k(-5, 3, 0xFFFFFFF0, out)
    np.testing.assert_array_equal(out, [-5, 3, 5, -5, 0xFFFFFFF0])


def test_select_and_ternary():
    @ti.kernel
    def k(
        x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)
    ):
        for i in x:
            y[i] = ti.select(x[i] > 0, x[i], 0.0) + (1.0 if x[i] > 1 else -1.0)

    x = np.array([-2, -0.5, 0.5, 2], dtype=np.float32)
    y = np.zeros_like(x)
    k(x, y)
    np.testing.assert_allclose(y, np.where(x > 0, x, 0) + np.where(x > 1, 1, -1))


def test_integer_overflow_wraps():
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return a * 2

    assert k(2**30 + 1) == ((2**30 + 1) * 2 + 2**31) % 2**32 - 2**31


def test_unsigned_scalar_arguments():
    @ti.kernel
    def k(a: ti.u32, b: ti.u8) -> ti.u32:
        return a + b

    assert k(0xFFFFFFF0, 0xF) == 0xFFFFFFFF


def test_python_constants_fold_at_compile_time():
    scale = 3
    offset = 0.5

    @ti.kernel
    def k(x: ti.f32) -> ti.f32:
        return x * (scale * 2) + offset / 2 + 7 // -2

    assert k(1.0) == pytest.approx(6 + 0.25 - 4)
