"""
The per-call path of a small kernel (on the CPU: one native call, targets/llvm/
native_launch.py): every scalar argument type and value range, results, a root buffer
that grows between calls, errors, and the cases it must hand back to the general path
give what the general path gives, on every arch.
"""

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def test_scalar_arguments_and_results_round_trip():
    @ti.kernel
    def echo(
        a: ti.i8, b: ti.i16, c: ti.i32, d: ti.i64, e: ti.f32, f: ti.f64
    ) -> ti.types.struct(a=ti.i8, b=ti.i16, c=ti.i32, d=ti.i64, e=ti.f32, f=ti.f64):
        return ti.types.struct(a=ti.i8, b=ti.i16, c=ti.i32, d=ti.i64, e=ti.f32, f=ti.f64)(
            a=a, b=b, c=c, d=d, e=e, f=f
        )

    @ti.kernel
    def add(a: ti.i32, b: ti.f32) -> ti.f32:
        return a + b

    @ti.kernel
    def neg(x: ti.i64) -> ti.i64:
        return -x

    r = echo(-128, 300, 2**31 - 1, -(2**40), 0.1, 1e300)
    assert (r.a, r.b, r.c, r.d, r.e, r.f) == (
        -128, 300, 2**31 - 1, -(2**40), float(np.float32(0.1)), 1e300
    )
    for k in range(-3, 300, 37):
        assert add(k, 0.5) == k + 0.5
        assert neg(k * 2**33) == -k * 2**33
    assert add(2, 3) == 5.0  # an int for a float parameter
    assert add(True, 0.25) == 1.25  # a bool for an integer parameter
    assert add(np.int32(4), np.float32(0.5)) == 4.5  # NumPy scalars
    assert neg(2**63 - 1) == -(2**63 - 1)


def test_integer_results_keep_their_type():
    @ti.kernel
    def three() -> ti.i32:
        return 3

    @ti.kernel
    def half(x: ti.f64) -> ti.f64:
        return x / 2

    assert type(three()) is int and three() == 3
    assert type(half(3)) is float and half(3) == 1.5


def test_a_growing_root_is_followed():
    """Fields added after a kernel ran move or grow the root buffer: the next calls
    write where the fields now are."""
    a = ti.field(ti.i32, shape=())

    @ti.kernel
    def set_a(v: ti.i32):
        a[None] = v

    set_a(5)
    assert a[None] == 5
    fields = [ti.field(ti.f32, shape=4096) for _ in range(3)]
    for f in fields:
        f.fill(1.5)
    for v in range(10):
        set_a(v)
        assert a[None] == v
    assert all(float(f[4095]) == 1.5 for f in fields)


def test_a_bad_argument_still_raises():
    @ti.kernel
    def take(x: ti.i32) -> ti.i32:
        return x

    assert take(7) == 7
    with pytest.raises((ti.TaichiTypeError, ti.TaichiRuntimeTypeError)):
        take(1.5)
    assert take(8) == 8


def test_a_failing_assert_raises_and_the_next_call_runs(arch):
    ti.init(arch=arch, debug=True)

    @ti.kernel
    def check(x: ti.i32) -> ti.i32:
        assert x < 10, "too big"
        return x + 1

    assert check(1) == 2
    with pytest.raises(AssertionError, match="too big"):
        check(11)
    assert check(2) == 3
