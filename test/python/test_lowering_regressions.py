"""
End-to-end checks, on cpu and vulkan, of lowering details that the mutation check
(utils/mutation.py) found untested: each test fails when the detail is broken.
"""

from __future__ import annotations

import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


@pytest.mark.parametrize("a, b", [(0, 0), (3, 0), (0, -2), (5, 6), (2, 2)])
def test_bool_and_int_equality(a: int, b: int):
    out = ti.field(ti.i32, shape=6)

    @ti.kernel
    def compare(a: ti.i32, b: ti.i32):
        p = a > 0
        q = b > 0
        out[0] = p == q
        out[1] = p != q
        out[2] = a == b
        out[3] = a != b
        out[4] = ti.cast(a, ti.u1)  # non-zero is True, as in Taichi 1.7.4
        out[5] = (a == b) == (p == q)

    compare(a, b)
    p, q = a > 0, b > 0
    want = [p == q, p != q, a == b, a != b, a != 0, (a == b) == (p == q)]
    assert list(out.to_numpy()) == [int(w) for w in want]


def test_assert_messages_of_two_tasks(arch):
    """In debug mode each task's asserts are numbered after the previous tasks' (one
    table per kernel): a failure in the second loop names the second loop's assert."""
    from taichi_xdsl.utils.errors import TaichiAssertionError

    ti.init(arch=arch, debug=True)
    x = ti.field(ti.i32, 8)

    @ti.kernel
    def check(n: ti.i32):
        for i in x:
            assert x[i] >= 0, "the first loop's assert"
        for i in x:
            assert i < n, "the second loop's assert"

    check(8)
    with pytest.raises(TaichiAssertionError, match="the second loop's assert"):
        check(4)
    x[2] = -1
    with pytest.raises(TaichiAssertionError, match="the first loop's assert"):
        check(8)


def test_break_in_a_nested_if_skips_the_rest_of_the_outer_if():
    """On Vulkan a `break` sets a flag and the ops after the construct that set it run
    only while the flag is clear, at every nesting depth: the `s += 1` after the inner
    `if` (inside the outer one) must not run in the iteration that breaks."""
    out = ti.field(ti.i32, shape=8)

    @ti.kernel
    def count():
        for i in range(8):
            s = 0
            for j in range(10):
                if j >= 2:
                    if j == i % 5 + 2:
                        break
                    s += 1
                s += 10
            out[i] = s

    count()
    # j < 2: +10 each; 2 <= j < stop: +11 each; j == stop: nothing, the loop ends.
    want = [20 + 11 * (i % 5) for i in range(8)]
    assert list(out.to_numpy()) == want


@pytest.mark.vulkan_only("the print buffer and its overflow count are Vulkan's")
def test_print_records_past_the_buffer_are_counted(arch, capfd):
    """Records that do not fit the print buffer are counted in its last word, and the
    host says how many: every record is either printed or counted."""
    ti.init(arch=arch, offline_cache=False)

    @ti.kernel
    def shout():
        for i in range(40000):
            print(i)

    shout()
    ti.sync()
    out = capfd.readouterr().out.splitlines()
    printed = [line for line in out if not line.startswith("[taichi-xdsl]")]
    notes = [line for line in out if "did not fit the print buffer" in line]
    assert len(notes) == 1, out[-3:]
    dropped = int(notes[0].split()[1])
    assert dropped > 0 and len(printed) + dropped == 40000


def test_prints_of_several_tasks_keep_their_texts(arch, capfd):
    """Every print of a kernel has its own id, numbered across the kernel's tasks: each
    line comes out with its own text and values, in order, on both archs."""
    ti.init(arch=arch, offline_cache=False)

    @ti.kernel
    def talk(a: ti.i32):
        print("first", a)
        for i in range(1):
            print("second", a + 1, i)
            print("third", a * 2.5)
        print("fourth", a - 1)

    talk(4)
    ti.sync()
    out = [line for line in capfd.readouterr().out.splitlines() if not line.startswith("[")]
    assert out == ["first 4", "second 5 0", "third 10.000000", "fourth 3"]


def test_division_by_a_literal_zero_is_defined(arch):
    """A literal 0 divisor is guarded like a zero argument: a // 0 is 0 or -1 (floor),
    a % 0 is a, an unsigned b // 0 is all ones, on cpu (no SIGFPE) and vulkan alike."""
    out = ti.field(ti.i32, shape=4)

    @ti.kernel
    def divide(a: ti.i32, b: ti.u32):
        out[0] = a // 0
        out[1] = a % 0
        out[2] = ti.cast(b // ti.u32(0), ti.i32)
        out[3] = a // 1

    divide(-7, 5)
    assert list(out.to_numpy()) == [-1, -7, -1, -7]


def test_atomics_of_a_sparse_struct_for(arch):
    """A struct-for over a sparse field: each active element gets its add and the shared
    counter every one (the JIT lowers the struct_for task before ti-demote-atomics, so
    the lit case ti-demote-atomics.mlir @struct_for_task is what guards that pass)."""
    x = ti.field(ti.i32)
    total = ti.field(ti.i32, shape=())
    ti.root.pointer(ti.i, 8).dense(ti.i, 4).place(x)

    @ti.kernel
    def fill():
        for i in range(11):
            x[3 * i] = 1

    @ti.kernel
    def bump():
        for i in x:
            x[i] += i
            total[None] += 1

    fill()
    bump()
    active = {i for i in range(32) if (i // 4) in {j // 4 for j in range(0, 32, 3)}}
    got = x.to_numpy()
    assert total[None] == len(active)
    assert [int(got[i]) for i in range(32)] == [
        (1 if i % 3 == 0 else 0) + (i if i in active else 0) for i in range(32)
    ]


@pytest.mark.parametrize("dtype, bits", [(ti.i8, 8), (ti.i16, 16), (ti.i32, 32), (ti.i64, 64)])
def test_abs_of_the_most_negative_integer_wraps(dtype, bits: int):
    """abs(INT_MIN) is INT_MIN (wrapping negation), so `2**k // (abs(v) | 1)` divides by a
    negative number there. NVIDIA's driver took GLSL SAbs as never negative and gave 0
    for it (H100 differential run): Vulkan's abs is select(v < 0, -v, v) now (still
    taken as never negative by NVIDIA at 64 bits: README, differential testing)."""
    import numpy as np

    lo = -(2 ** (bits - 1))
    values = [lo, lo + 1, -332 if bits > 8 else -33, 0, 5, 2 ** (bits - 1) - 1]
    dividend = 2 ** (bits - 7)
    x = ti.field(dtype, shape=len(values))
    out = ti.field(dtype, shape=(2, len(values)))
    x.from_numpy(np.array(values, dtype=x.to_numpy().dtype))

    @ti.kernel
    def k():
        for i in x:
            out[0, i] = ti.abs(x[i])
            out[1, i] = ti.cast(dividend, dtype) // (ti.abs(x[i]) | 1)

    k()

    def wrap(v: int) -> int:
        v &= (1 << bits) - 1
        return v - (1 << bits) if v >> (bits - 1) else v

    assert [int(v) for v in out.to_numpy()[0]] == [wrap(abs(v)) for v in values]
    assert [int(v) for v in out.to_numpy()[1]] == [dividend // (wrap(abs(v)) | 1) for v in values]


def test_abs_of_negative_values_inside_a_max():
    """`ti.max(ti.abs(a), i | s)` with negative a: abs spelt SMax(a, -a) came out on
    NVIDIA as an unsigned max, abs(-83) = -83 (19 of 10,000 differential programs on the
    H200, e.g. seed 9913); the select spelling is right there."""
    import numpy as np

    values = np.array([89, -(2**30), 100, -100, 3, 5, -83, -1], dtype=np.int32)
    a = ti.ndarray(ti.i32, 8)
    a.from_numpy(values)
    out = ti.ndarray(ti.i32, (8, 2))

    @ti.kernel
    def k(a: ti.types.ndarray(), out: ti.types.ndarray(), s: ti.i32):
        for i in range(8):
            out[i, 0] = ti.max(ti.abs(a[i]), i | s)
            out[i, 1] = ti.abs(a[i]) // 2 - ti.abs(-a[i] + 1)

    k(a, out, -33)
    got = out.to_numpy()
    want0 = [max(abs(int(v)), i | -33) for i, v in enumerate(values)]
    want1 = [abs(int(v)) // 2 - abs(-int(v) + 1) for v in values]
    assert got[:, 0].tolist() == want0
    assert got[:, 1].tolist() == want1



def _wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


SHIFTED = [0, 1, -1, 3, 4, 5, 31, 32, 33, 63, 255, 4096, -42, -32768, 32767, -32767, 65535,
           2**31 - 1, -(2**31), 0x7FFF0001, 0x12345678, 12, 255, -3]  # seeds 9074, 3126


@pytest.mark.parametrize("dtype, bits, amount", [(ti.i8, 8, 5), (ti.i16, 16, 13)])
def test_narrow_left_shift_drops_the_bits_shifted_out(dtype, bits: int, amount: int):
    """An 8/16-bit `x << c` keeps the low bits only, also when compared or widened
    afterwards. NVIDIA's driver compared `(-i16(a) << 13) < ...` as if the bits shifted
    out of 16 were kept (difftest seed 9074 on the H200; bench/nvidia_shift_probe.py)."""
    import numpy as np

    n = len(SHIFTED)
    a = ti.ndarray(ti.i32, n)
    a.from_numpy(np.array(SHIFTED, np.int32))
    out = ti.ndarray(ti.i32, (n, 5))

    @ti.kernel
    def k(a: ti.types.ndarray(), out: ti.types.ndarray()):
        for i in range(n):
            x = ti.cast(a[i], dtype)
            c = ti.cast(amount, dtype)
            three = ti.cast(3, dtype)
            y = ti.cast(a[(i + 1) % n], dtype)
            out[i, 0] = ti.cast(((-x) << c) < ((y & three) - x), ti.i32)
            out[i, 1] = ti.cast(ti.cast(1, dtype) > (x << c), ti.i32)
            out[i, 2] = ti.cast(x << c, ti.i32)
            out[i, 3] = ti.cast((x << c) >> c, ti.i32)
            out[i, 4] = ti.cast((x << c) < 0, ti.i32)

    k(a, out)
    want = []
    for i, v in enumerate(SHIFTED):
        x, y = _wrap(v, bits), _wrap(SHIFTED[(i + 1) % n], bits)
        shifted = _wrap(x << amount, bits)
        want.append([int(_wrap(-x << amount, bits) < _wrap((y & 3) - x, bits)),
                     int(1 > shifted), shifted, shifted >> amount, int(shifted < 0)])
    assert out.to_numpy().tolist() == want


def test_zero_extended_left_shift_into_the_sign_bit():
    """`i64(u32(a)) << c` is negative when bit 63 - c of a is set: NVIDIA's driver took
    the zero-extended value shifted left as never negative, `1 > (i64(u32(a)) << 58)` was
    false there (difftest seed 3126 on the H200; bench/nvidia_shift_probe.py)."""
    import numpy as np

    n = len(SHIFTED)
    a = ti.ndarray(ti.i32, n)
    a.from_numpy(np.array(SHIFTED, np.int32))
    value = ti.ndarray(ti.i64, (n, 64))
    sign = ti.ndarray(ti.i32, (n, 64))

    @ti.kernel
    def k(a: ti.types.ndarray(), value: ti.types.ndarray(), sign: ti.types.ndarray()):
        for i in range(n):
            z = ti.cast(ti.cast(a[i], ti.u32), ti.i64)
            for c in ti.static(range(1, 64)):
                value[i, c] = z << c
                sign[i, c] = ti.cast(ti.i64(1) > (z << c), ti.i32) + 2 * ti.cast(
                    (z << c) < 0, ti.i32)

    k(a, value, sign)
    for i, v in enumerate(SHIFTED):
        shifted = [_wrap((v & 0xFFFFFFFF) << c, 64) for c in range(1, 64)]
        assert value.to_numpy()[i, 1:].tolist() == shifted
        want = [int(1 > s) + 2 * int(s < 0) for s in shifted]
        assert sign.to_numpy()[i, 1:].tolist() == want
