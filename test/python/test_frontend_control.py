"""
End-to-end: statements and control flow in kernels (if/elif/else, while, break,
continue, loop_config, ti.static, ndrange, struct-for, short-circuit and/or, ti.func,
atomics, print, assert), compared with plain Python/NumPy.
"""

import re

import numpy as np
import pytest
import taichi_xdsl as ti


# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_if_elif_else():
    @ti.kernel
    def classify(
        x: ti.types.ndarray(dtype=ti.f32, ndim=1),
        out: ti.types.ndarray(dtype=ti.i32, ndim=1),
    ):
        for i in x:
            if x[i] < 0:
                out[i] = -1
            elif x[i] == 0:
                out[i] = 0
            elif x[i] < 10:
                out[i] = 1
            else:
                out[i] = 2

    x = np.array([-3, 0, 5, 12], dtype=np.float32)
    out = np.zeros(4, dtype=np.int32)
    classify(x, out)
    np.testing.assert_array_equal(out, [-1, 0, 1, 2])


def test_while_collatz():
    @ti.kernel
    def steps(
        n: ti.types.ndarray(dtype=ti.i32, ndim=1),
        out: ti.types.ndarray(dtype=ti.i32, ndim=1),
    ):
        for i in n:
            v = n[i]
            count = 0
            while v != 1:
                if v % 2 == 0:
                    v = v // 2
                else:
                    v = 3 * v + 1
                count += 1
            out[i] = count

    def collatz(v):
        c = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            c += 1
        return c

    n = np.arange(1, 50, dtype=np.int32)
    out = np.zeros_like(n)
    steps(n, out)
    np.testing.assert_array_equal(out, [collatz(int(v)) for v in n])


def test_break_and_continue_in_inner_loops():
    @ti.kernel
    def k(out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in range(out.shape[0]):
            s = 0
            for j in range(100):
                if j % 3 == 0:
                    continue
                if j > i:
                    break
                s += j
            out[i] = s

    out = np.zeros(20, dtype=np.int32)
    k(out)
    np.testing.assert_array_equal(
        out, [sum(j for j in range(i + 1) if j % 3 != 0) for i in range(20)]
    )


def test_while_with_break_and_continue():
    @ti.kernel
    def k(n: ti.i32) -> ti.i32:
        total = 0
        i = 0
        while True:
            i += 1
            if i > n:
                break
            if i % 2 == 0:
                continue
            total += i
        return total

    assert k(10) == 1 + 3 + 5 + 7 + 9


def test_serialized_outer_loop_with_break():
    @ti.kernel
    def first_negative(x: ti.types.ndarray(dtype=ti.f32, ndim=1)) -> ti.i32:
        found = -1
        ti.loop_config(serialize=True)
        for i in range(x.shape[0]):
            if x[i] < 0:
                found = i
                break
        return found

    assert first_negative(np.array([1, 2, -3, -4], dtype=np.float32)) == 2
    assert first_negative(np.array([1, 2], dtype=np.float32)) == -1


def test_serialized_prefix_sum():
    @ti.kernel
    def prefix(x: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        ti.loop_config(serialize=True)
        for i in range(1, x.shape[0]):
            x[i] += x[i - 1]

    x = np.arange(10, dtype=np.int32)
    prefix(x)
    np.testing.assert_array_equal(x, np.cumsum(np.arange(10)))


def test_short_circuit_and_or():
    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.i32, ndim=1), n: ti.i32) -> ti.i32:
        count = 0
        for i in range(n + 5):
            # x[i] is read only when i < n (no out-of-bounds read)
            if i < n and x[i] > 0:
                count += 1
            if i >= n or x[i] < 0:
                count += 100
        return count

    x = np.array([1, -1, 2, 0], dtype=np.int32)
    assert k(x, 4) == 2 + 100 * (1 + 5)


def test_bool_ops_on_values():
    @ti.kernel
    def k(a: ti.i32, b: ti.i32) -> ti.i32:
        r = 0
        if a and b:
            r += 1
        if a or b:
            r += 10
        if not a:
            r += 100
        if a > 0 and b > 0 and a + b > 3:
            r += 1000
        return r

    assert k(0, 0) == 100
    assert k(1, 0) == 10
    assert k(2, 3) == 1011


def test_ternary_with_loads():
    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1), i: ti.i32) -> ti.f32:
        return x[i] if i < x.shape[0] else -1.0

    x = np.array([5, 6], dtype=np.float32)
    assert k(x, 1) == 6.0
    assert k(x, 7) == -1.0


def test_static_if_and_static_for():
    flag = True

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in ti.static(range(3)):
            x[i] = i * 10
        if ti.static(flag):
            x[3] = 1.0
        else:
            x[3] = 2.0
        for a, b in ti.static(((4, 7.0), (5, 8.0))):
            x[a] = b

    x = np.zeros(6, dtype=np.float32)
    k(x)
    np.testing.assert_array_equal(x, [0, 10, 20, 1, 7, 8])


def test_ndrange_with_runtime_extents_and_grouped():
    @ti.kernel
    def fill(a: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i, j in ti.ndrange(a.shape[0], a.shape[1]):
            a[i, j] = i * 100 + j

    @ti.kernel
    def inc(a: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for I in ti.grouped(a):
            a[I] += 1

    a = np.zeros((5, 7), dtype=np.int32)
    fill(a)
    inc(a)
    np.testing.assert_array_equal(a, np.add.outer(np.arange(5) * 100, np.arange(7)) + 1)


def test_ndrange_three_dims_with_begin():
    x = ti.field(ti.i32, shape=(4, 5, 6))

    @ti.kernel
    def k():
        for i, j, l in ti.ndrange((1, 4), 5, (2, 6)):
            x[i, j, l] = i * 100 + j * 10 + l

    k()
    expected = np.zeros((4, 5, 6), dtype=np.int32)
    for i in range(1, 4):
        for j in range(5):
            for l in range(2, 6):
                expected[i, j, l] = i * 100 + j * 10 + l
    np.testing.assert_array_equal(x.to_numpy(), expected)


def test_range_with_begin_and_nested_serial_loops():
    @ti.kernel
    def k(out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in range(2, out.shape[0]):
            s = 0
            for j in range(i):
                for m in range(j, i):
                    s += 1
            out[i] = s

    out = np.zeros(8, dtype=np.int32)
    k(out)
    np.testing.assert_array_equal(out, [0, 0] + [i * (i + 1) // 2 for i in range(2, 8)])


def test_struct_for_over_2d_field():
    x = ti.field(ti.f32)
    ti.root.dense(ti.ij, (3, 4)).place(x)

    @ti.kernel
    def k():
        for i, j in x:
            x[i, j] = i - j

    k()
    np.testing.assert_array_equal(
        x.to_numpy(), np.subtract.outer(np.arange(3), np.arange(4))
    )


def test_atomics_return_old_value():
    counter = ti.field(ti.i32, shape=())
    slots = ti.field(ti.i32, shape=64)
    lo = ti.field(ti.f32, shape=())
    hi = ti.field(ti.i32, shape=())
    bits = ti.field(ti.i32, shape=3)

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in range(64):
            old = ti.atomic_add(counter[None], 1)
            slots[old] = 1  # every old value is distinct
        for i in x:
            ti.atomic_min(lo[None], x[i])
            ti.atomic_max(hi[None], ti.cast(x[i], ti.i32))
        for i in range(8):
            ti.atomic_or(bits[0], 1 << i)
            ti.atomic_and(bits[1], ~(1 << i))
            ti.atomic_xor(bits[2], 1 << (i % 2))
            ti.atomic_sub(counter[None], 1)

    lo[None] = 1e9
    hi[None] = -(10**9)
    bits[1] = -1
    x = np.array([3.5, -2.0, 7.25, 0.0], dtype=np.float32)
    k(x)
    assert counter[None] == 64 - 8
    assert slots.to_numpy().sum() == 64
    assert lo[None] == -2.0
    assert hi[None] == 7
    assert bits.to_numpy().tolist() == [255, ~255, 0]


def test_augmented_assignment_on_globals():
    x = ti.field(ti.i32, shape=6)

    @ti.kernel
    def k():
        for i in range(1):
            x[0] += 5
            x[1] -= 5
            x[2] *= 3
            x[3] //= 2
            x[4] |= 6
            x[5] ^= 3

    x.from_numpy(np.array([1, 1, 2, -7, 1, 5], dtype=np.int32))
    k()
    assert x.to_numpy().tolist() == [6, -4, 6, -4, 7, 6]


def test_local_augmented_assignment_all_ops():
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        v = a
        v += 3
        v *= 4
        v -= 1
        v //= 3
        v %= 7
        v <<= 2
        v >>= 1
        v &= 0xFF
        v |= 0x100
        v ^= 1
        v **= 1
        return v

    def ref(v):
        v += 3
        v *= 4
        v -= 1
        v //= 3
        v %= 7
        v <<= 2
        v >>= 1
        v &= 0xFF
        v |= 0x100
        v ^= 1
        return v

    for a in (-10, 0, 5, 17):
        assert k(a) == ref(a)


def test_real_func_with_early_return():
    """A ti.real_func may return from branches (a plain ti.func may not: Taichi's
    rule, test_lang_checks.py)."""

    @ti.real_func
    def sign(x: ti.f32) -> ti.i32:
        if x > 0:
            return 1
        elif x < 0:
            return -1
        return 0

    @ti.func
    def sq(x: ti.f32) -> ti.f32:
        return x * x

    @ti.kernel
    def k(
        x: ti.types.ndarray(dtype=ti.f32, ndim=1),
        out: ti.types.ndarray(dtype=ti.f32, ndim=1),
    ):
        for i in x:
            out[i] = sign(x[i]) * sq(x[i])

    x = np.array([-2, 0, 3], dtype=np.float32)
    out = np.zeros_like(x)
    k(x, out)
    np.testing.assert_array_equal(out, np.sign(x) * x * x)


def test_ti_func_template_argument_is_a_reference():
    @ti.func
    def bump(v: ti.template(), by):
        v += by

    @ti.func
    def total(f: ti.template()) -> ti.i32:
        s = 0
        for i in range(f.shape[0]):
            s += f[i]
        return s

    x = ti.field(ti.i32, shape=5)

    @ti.kernel
    def k() -> ti.i32:
        a = 1
        bump(a, 41)
        return a + total(x)

    x.from_numpy(np.arange(5, dtype=np.int32))
    assert k() == 42 + 10


def test_kernel_return_inside_if():
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        if a > 10:
            return 1
        b = a * 2
        if b > 10:
            return 2
        return 3

    assert [k(11), k(6), k(0)] == [1, 2, 3]


def test_kernel_returns_tuple():
    @ti.kernel
    def k(a: ti.i32) -> (ti.i32, ti.f32):
        return a + 1, a / 2

    assert k(3) == (4, 1.5)


def test_assert_checked_in_debug_mode(arch):
    ti.init(arch=arch, debug=True)

    @ti.kernel
    def k(x: ti.i32):
        assert x > 0, "x must be positive"

    k(1)
    with pytest.raises(ti.TaichiAssertionError, match="x must be positive"):
        k(-1)


def test_print_in_kernel(capfd):
    @ti.kernel
    def k(i: ti.i32, x: ti.f32):
        print("i =", i, "x =", x)
        print(f"sum {i + 1}!")

    k(3, 0.5)
    ti.sync()
    out = capfd.readouterr().out
    assert "i = 3 x = 0.5" in out
    assert "sum 4!" in out


def test_print_formats_are_the_same_on_every_arch(capfd):
    # Taichi's printf conversions: f32 (and f16) "%f", f64 "%.12f", integers signed.
    @ti.kernel
    def k(a: ti.i64, b: ti.f64, c: ti.i8, d: ti.f32, e: ti.f16):
        print("vals", a, b, c, d, e, a > 0)

    k(-(1 << 40), 0.1, -5, 1.25, 0.5)
    ti.sync()
    out = capfd.readouterr().out
    assert "vals -1099511627776 0.100000000000 -5 1.250000 0.500000 0" in out


def test_locals_defined_in_branches_are_scoped():
    @ti.kernel
    def k(c: ti.i32) -> ti.i32:
        r = 0
        if c > 0:
            t = c * 2
            r = t
        else:
            t = -c
            r = t + 100
        return r

    assert k(5) == 10
    assert k(-5) == 105


def test_loop_variable_reassigned_in_body():
    @ti.kernel
    def k() -> ti.i32:
        s = 0
        for i in range(5):
            i = i * 2
            s += i
        return s

    assert k() == 20


def test_scalar_argument_reassigned():
    """A kernel argument is immutable in the kernel, as in Taichi (a copy is not)."""

    @ti.kernel
    def k(n: ti.i32) -> ti.i32:
        s = 0
        while n > 0:
            s += n
            n -= 1
        return s

    with pytest.raises(ti.TaichiSyntaxError, match='Kernel argument "n" is immutable'):
        k(4)

    @ti.kernel
    def copy(n: ti.i32) -> ti.i32:
        m = n
        s = 0
        while m > 0:
            s += m
            m -= 1
        return s

    assert copy(4) == 10


def test_print_unsigned_values(capfd):
    # The IR is signless; an unsigned value must not print as a negative number.
    @ti.kernel
    def k(a: ti.u32, b: ti.u8):
        print("u", a, b, a + 1)

    k(4294967295, 255)
    ti.sync()
    assert "u 4294967295 255 0" in capfd.readouterr().out


def _loop_budget_kernels():
    """Kernels whose loops together run past 65535 iterations in one invocation (or in
    one SIMD group of invocations), though no loop does alone: name -> (kernel, args,
    the full answer in `out`)."""
    out = ti.field(ti.i32, shape=(16, 2))

    @ti.kernel
    def range_then_while(n1: ti.i32, n2: ti.i32):
        for k in range(1):
            c = 0
            for i in range(n1):
                c += 1
            out[k, 0] = c
            j = 0
            while True:
                j += 1
                if j >= n2:
                    break
            out[k, 1] = j

    @ti.kernel
    def nested(a: ti.i32, b: ti.i32):
        for k in range(1):
            c = 0
            last = -1
            for i in range(a):
                for j in range(b):
                    c += 1
                last = i
            out[k, 0] = c
            out[k, 1] = last

    @ti.kernel
    def two_whiles(n1: ti.i32, n2: ti.i32):
        for k in range(1):
            i = 0
            while True:
                i += 1
                if i >= n1:
                    break
            out[k, 0] = i
            j = 0
            while True:
                j += 1
                if j >= n2:
                    break
            out[k, 1] = j

    @ti.func
    def count_to(n):
        c = 0
        while True:
            c += 1
            if c >= n:
                break
        return c

    @ti.kernel
    def func_twice(n1: ti.i32, n2: ti.i32):
        for k in range(1):
            out[k, 0] = count_to(n1)
            out[k, 1] = count_to(n2)

    @ti.kernel
    def neighbours(n0: ti.i32, m: ti.i32):
        # invocation 0 loops n0 times, its neighbours once; then each loops m times
        for k in range(16):
            lim = 1
            if k == 0:
                lim = n0
            i = 0
            while True:
                i += 1
                if i >= lim:
                    break
            out[k, 0] = i
            j = 0
            while True:
                j += 1
                if j >= m:
                    break
            out[k, 1] = j

    def first(a, b):
        want = np.full((16, 2), -1, np.int32)
        want[0] = a, b
        return want

    def per_thread(n0, m):
        want = np.ones((16, 2), np.int32)
        want[0, 0] = n0
        want[:, 1] = m
        return want

    return out, {
        "range_then_while": (range_then_while, first, lambda a, b: (a, b)),
        "nested": (nested, first, lambda a, b: (a * b, a - 1)),
        "two_whiles": (two_whiles, first, lambda a, b: (a, b)),
        "func_twice": (func_twice, first, lambda a, b: (a, b)),
        "neighbours": (neighbours, per_thread, lambda a, b: (a, b)),
    }


_BUDGET_SHAPES = {
    # name: (arguments whose loops run past 65535 in all, arguments well within it)
    "range_then_while": ((40_000, 30_000), (30_000, 30_000)),
    "nested": ((300, 300), (200, 200)),
    "two_whiles": ((40_000, 30_000), (30_000, 30_000)),
    "func_twice": ((40_000, 30_000), (30_000, 30_000)),
    "neighbours": ((60_000, 10_000), (30_000, 30_000)),
}


@pytest.mark.parametrize("shape", sorted(_BUDGET_SHAPES))
def test_loops_sharing_the_drivers_loop_budget(arch, shape):
    """lavapipe's 65535 loop iterations are a budget of the whole invocation, shared by
    all its loops (nested ones counted per iteration, a ti.func's each call) and by the
    8 invocations of its SIMD group: a while loop after a range_for of 40,000 stopped
    at 25,534 with no error. Every loop the driver cuts now raises (it ends without its
    break, or before its bound); elsewhere, and within the budget, the answer is whole."""
    from taichi_xdsl.lowering.convert_taichi_to_spirv import LOOP_CUT_SHORT
    from taichi_xdsl.targets.vulkan.device import list_devices

    out, kernels = _loop_budget_kernels()
    kernel, layout, answer = kernels[shape]
    past, within = _BUDGET_SHAPES[shape]
    out.fill(-1)
    kernel(*within)
    np.testing.assert_array_equal(out.to_numpy(), layout(*answer(*within)))
    out.fill(-1)
    cut_here = arch == ti.vulkan and all(d.device_type == "cpu" for d in list_devices())
    if cut_here:
        with pytest.raises(ti.TaichiAssertionError, match=re.escape(LOOP_CUT_SHORT)):
            kernel(*past)
    else:
        kernel(*past)
        np.testing.assert_array_equal(out.to_numpy(), layout(*answer(*past)))


def test_parallel_loop_elements_after_the_drivers_loop_budget(arch):
    """An invocation of a parallel loop takes several elements (here 256 invocations,
    block_dim=1, for 512): on lavapipe, element 0's inner loop of 65533 iterations spent
    the budget exactly at the grid-stride loop's back edge, and element 256 was never
    run, with no error. That loop is checked too now; elsewhere the answer is whole."""
    from taichi_xdsl.lowering.convert_taichi_to_spirv import LOOP_CUT_SHORT
    from taichi_xdsl.targets.vulkan.device import list_devices

    out = ti.field(ti.i32, shape=512)

    @ti.kernel
    def fill(n: ti.i32, m: ti.i32):
        ti.loop_config(block_dim=1)
        for i in range(n):
            c = 0
            reps = 0
            if i == 0:
                reps = m
            for j in range(reps):
                c += 1
            out[i] = c + 1

    want = np.ones(512, np.int32)
    fill(512, 1000)
    want[0] = 1001
    np.testing.assert_array_equal(out.to_numpy(), want)
    out.fill(0)
    if arch == ti.vulkan and all(d.device_type == "cpu" for d in list_devices()):
        with pytest.raises(ti.TaichiAssertionError, match=re.escape(LOOP_CUT_SHORT)):
            fill(512, 65533)
    else:
        fill(512, 65533)
        want[0] = 65534
        np.testing.assert_array_equal(out.to_numpy(), want)


@pytest.mark.vulkan_only("Mesa's lavapipe caps the loop iterations of a shader")
def test_while_loop_past_the_drivers_loop_limit(arch):
    """lavapipe ends the loops of an invocation after 65535 iterations, silently: a while
    loop asked for 70,000 once stopped at 65,535 with no error. On such a device a loop
    left without its break raises; elsewhere it runs whole."""
    from taichi_xdsl.lowering.convert_taichi_to_spirv import LOOP_CUT_SHORT
    from taichi_xdsl.targets.vulkan.device import list_devices

    out = ti.field(ti.i32, shape=4)

    @ti.kernel
    def spin(n: ti.i32):
        for k in range(4):
            i = 0
            while True:
                i += 1
                if i >= n:
                    break
            out[k] = i

    spin(1000)
    assert out.to_numpy().tolist() == [1000] * 4
    if all(d.device_type == "cpu" for d in list_devices()):
        with pytest.raises(ti.TaichiAssertionError, match=re.escape(LOOP_CUT_SHORT)):
            spin(70_000)
    else:
        spin(70_000)
        assert out.to_numpy().tolist() == [70_000] * 4
