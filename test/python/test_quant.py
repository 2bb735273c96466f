"""
Quantized types (`ti.types.quant`, `ti.BitpackedFields`, `SNode.quant_array`) end to
end on cpu and vulkan. The expected values at the edges (truncation, rounding half away
from zero, wrapping past the range) are what Taichi 1.7.4's CPU backend gives.
"""

# No `from __future__ import annotations`: the kernels annotate with dtypes.

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")

STEP = 0.0078125  # 2 / 256: the step of an unsigned 8-bit fixed of max_value 2

# (stored into qi5, qu5, fixed8 signed, fixed8 unsigned) -> what each reads back
EDGES = [
    ((10.3, 10.7, 0.3, 0.3), (10, 10, 0.296875, 0.296875)),
    ((-10.7, -1.0, -0.3, -0.3), (-10, 31, -0.296875, 1.703125)),
    ((17, 33, 2.5, 5.0), (-15, 1, -1.5, 1.0)),
    ((-17, 40, -2.5, -1), (15, 8, 1.5, 1.0)),
    ((15.5, 31.5, 1.99, 1.99), (15, 31, 1.984375, 1.9921875)),
    ((-16.5, 0.5, STEP * 1.5, STEP * 0.5), (-16, 0, 0.015625, 0.0078125)),
    ((3, 3, STEP * 2.5, STEP * 2.5), (3, 3, 0.015625, 0.0234375)),
    ((3, 3, -STEP * 1.5, -STEP * 2.5), (3, 3, -0.015625, 1.9765625)),
    ((3, 3, -STEP * 1.7, -STEP * 1.2), (3, 3, -0.015625, 1.9921875)),
    ((3, 3, 1.9999, 1.9999), (3, 3, -2.0, 0.0)),
    ((3, 3, -1.9999, 3.99), (3, 3, -2.0, 1.9921875)),
]


def _four_fields(n: int):
    qi5 = ti.types.quant.int(5, True)
    qu5 = ti.types.quant.int(5, False)
    qf8 = ti.types.quant.fixed(bits=8, max_value=2.0)
    qfu8 = ti.types.quant.fixed(bits=8, signed=False, max_value=2.0)
    fields = [ti.field(qi5), ti.field(qu5), ti.field(qf8), ti.field(qfu8)]
    bitpack = ti.BitpackedFields(max_num_bits=32)
    bitpack.place(*fields)
    ti.root.dense(ti.i, n).place(bitpack)
    return fields


def test_store_and_read_at_the_edges():
    a, b, c, d = _four_fields(len(EDGES))
    values = np.array([v for v, _ in EDGES], dtype=np.float32)

    @ti.kernel
    def store(v: ti.types.ndarray()):
        for i in range(len(EDGES)):
            a[i] = v[i, 0]
            b[i] = v[i, 1]
            c[i] = v[i, 2]
            d[i] = v[i, 3]

    @ti.kernel
    def read(out: ti.types.ndarray()):
        for i in range(len(EDGES)):
            out[i, 0] = a[i]
            out[i, 1] = b[i]
            out[i, 2] = c[i]
            out[i, 3] = d[i]

    store(values)
    out = np.zeros_like(values)
    read(out)
    expected = np.array([e for _, e in EDGES], dtype=np.float32)
    np.testing.assert_array_equal(out, expected)
    # Python scope reads the same bits
    for k, f in enumerate((a, b, c, d)):
        np.testing.assert_array_equal(f.to_numpy(), expected[:, k])
        assert [f[i] for i in range(len(EDGES))] == list(expected[:, k])
    assert isinstance(a[0], int) and isinstance(c[0], float)


def test_python_scope_writes_as_kernels_do():
    a, b, c, d = _four_fields(len(EDGES))
    for i, (v, _) in enumerate(EDGES):
        a[i], b[i], c[i], d[i] = int(v[0]), int(v[1]), v[2], v[3]

    @ti.kernel
    def read(out: ti.types.ndarray()):
        for i in range(len(EDGES)):
            out[i, 0] = a[i]
            out[i, 1] = b[i]
            out[i, 2] = c[i]
            out[i, 3] = d[i]

    out = np.zeros((len(EDGES), 4), dtype=np.float32)
    read(out)
    expected = np.array([e for _, e in EDGES], dtype=np.float32)
    np.testing.assert_array_equal(out, expected)  # int() truncates as a kernel does


def test_from_numpy_keeps_the_neighbours():
    a, b, c, d = _four_fields(8)
    b.from_numpy(np.arange(8))
    c.fill(-1.5)
    a.from_numpy(-np.arange(8))
    np.testing.assert_array_equal(a.to_numpy(), -np.arange(8))
    np.testing.assert_array_equal(b.to_numpy(), np.arange(8))
    np.testing.assert_array_equal(c.to_numpy(), np.full(8, -1.5, np.float32))
    np.testing.assert_array_equal(d.to_numpy(), np.zeros(8, np.float32))


def test_concurrent_writes_of_neighbours_in_one_word(arch):
    """Four 8-bit fields of one word, each written by a different iteration of a
    parallel loop: a plain store of the word would undo a neighbour's write."""
    n = 1 << 14
    q = ti.types.quant.int(8, False)
    fields = [ti.field(q) for _ in range(4)]
    bitpack = ti.BitpackedFields(max_num_bits=32)
    bitpack.place(*fields)
    ti.root.dense(ti.i, n).place(bitpack)

    @ti.kernel
    def write():
        for k in range(4 * n):
            i, f = k // 4, k % 4
            v = (i * 7 + f * 3) % 251
            if f == 0:
                fields[0][i] = v
            elif f == 1:
                fields[1][i] = v
            elif f == 2:
                fields[2][i] = v
            else:
                fields[3][i] = v

    write()
    i = np.arange(n)
    for f in range(4):
        np.testing.assert_array_equal(fields[f].to_numpy(), (i * 7 + f * 3) % 251)


def test_atomics_wrap_and_keep_the_neighbours():
    qi13 = ti.types.quant.int(13, True)
    qu8 = ti.types.quant.int(8, False)
    qfx = ti.types.quant.fixed(bits=11, signed=True, scale=0.1)
    x, y, z = ti.field(qi13), ti.field(qu8), ti.field(qfx)
    bitpack = ti.BitpackedFields(max_num_bits=32)
    bitpack.place(x, y, z)
    ti.root.place(bitpack)
    x[None], y[None], z[None] = 3, 0, 0.7

    @ti.kernel
    def update() -> ti.i32:
        seen = 0
        for i in range(600):
            x[None] += 8
            old = ti.atomic_add(y[None], 1)
            if old == 255:
                seen += 1
            z[None] -= 0.1
        return seen

    assert update() == 2  # y wraps at 256: 255 is seen at the 256th and 512th add
    assert x[None] == 3 + 8 * 600 - 8192  # 4803 wraps into 13 signed bits
    assert y[None] == 600 % 256
    assert z[None] == pytest.approx((7 - 600) * 0.1, abs=1e-4)  # steps of 0.1


def test_quant_array_1bit_parallel():
    """32 one-bit elements a word: every write of a parallel loop shares its word with
    31 others."""
    n = 32 * 64
    qu1 = ti.types.quant.int(1, False)
    x = ti.field(qu1)
    ti.root.dense(ti.i, n // 32).quant_array(ti.i, 32, max_num_bits=32).place(x)

    @ti.kernel
    def write():
        for i in range(n):
            x[i] = (i * 5 // 3) % 2

    @ti.kernel
    def count() -> ti.i32:
        s = 0
        for i in x:
            s += x[i]
        return s

    write()
    expected = (np.arange(n) * 5 // 3) % 2
    np.testing.assert_array_equal(x.to_numpy(), expected)
    assert count() == expected.sum()
    assert x.shape == (n,)


def test_quant_array_2d_signed_and_fixed():
    qi7 = ti.types.quant.int(7)
    x = ti.field(qi7)
    ti.root.dense(ti.ij, (3, 2)).quant_array(ti.j, 4, max_num_bits=32).place(x)
    qfx = ti.types.quant.fixed(bits=8, max_value=2)
    y = ti.field(qfx)
    ti.root.quant_array(ti.ij, (2, 2), max_num_bits=32).place(y)

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = -(i * 8 + j)
        for i, j in ti.ndrange(2, 2):
            y[i, j] = (i * 2 + j) * 0.5 - 1

    fill()
    ii, jj = np.indices((3, 8))
    np.testing.assert_array_equal(x.to_numpy(), -(ii * 8 + jj))
    np.testing.assert_array_equal(y.to_numpy(), [[-1.0, -0.5], [0.0, 0.5]])
    x[2, 5] = 63
    assert x[2, 5] == 63 and x[2, 4] == -20 and x[2, 6] == -22


def test_bitpacked_under_a_pointer():
    x = ti.field(ti.types.quant.fixed(bits=32, max_value=1024))
    bitpack = ti.BitpackedFields(max_num_bits=32)
    bitpack.place(x)
    ti.root.pointer(ti.i, 4).dense(ti.i, 16).place(bitpack)
    x[3] = 0
    x[40] = 0

    @ti.kernel
    def assign():
        for i in x:
            x[i] = ti.cast(i, ti.f32) + 0.25

    assign()
    got = x.to_numpy()
    expected = np.zeros(64, np.float32)
    expected[0:16] = np.arange(16) + 0.25
    expected[32:48] = np.arange(32, 48) + 0.25
    np.testing.assert_allclose(got, expected, atol=1e-6)


def _store_three(arch, bits, compute, values):
    """Three quantized ints of `bits` bits in a new program, stored by a kernel."""
    ti.reset()
    ti.init(arch=arch)
    a = ti.field(ti.types.quant.int(bits[0], True, compute))
    b = ti.field(ti.types.quant.int(bits[1], False, compute))
    c = ti.field(ti.types.quant.int(bits[2], True, compute))
    bitpack = ti.BitpackedFields(max_num_bits=32)
    bitpack.place(a, b, c)
    ti.root.place(bitpack)

    @ti.kernel
    def store(v: ti.types.ndarray()):
        a[None] = v[0]
        b[None] = v[1]
        c[None] = v[2]

    store(np.array(values))
    return [a[None], b[None], c[None]]


def test_a_new_layout_is_not_served_an_old_kernel(arch):
    """The same kernel source over a bitpack of another layout (after ti.reset) must
    compile again: the quantized field's symbol names its type and bits."""
    for bits, compute, values in (
        ([3, 3, 2], ti.i8, [3, 7, -2]),
        ([4, 7, 5], ti.i16, [7, 127, -16]),
        ([17, 11, 4], ti.i32, [65535, 1023, -8]),
    ):
        assert _store_three(arch, bits, compute, values) == values


def test_the_extensions_claimed(arch):
    """quant_basic (ints, fixed point) and quant (floats, shared exponents) are claimed."""
    assert ti.is_extension_supported(arch, ti.extension.quant_basic)
    assert ti.is_extension_supported(arch, ti.extension.quant)


# (a, b) stored together into quant.float(5, 10) and (5, 13) sharing an exponent -> read
# back: Taichi 1.7.4's results (the smaller loses the digits below the larger's range).
SHARED = [
    ((0.0, 0.0), (0.0, 0.0)),
    ((1.0, 0.0), (1.0, 0.0)),
    ((0.0, 1.0), (0.0, 1.0)),
    ((3.2, 0.25), (3.203125, 0.25)),
    ((-3.2, 0.25), (-3.203125, 0.25)),
    ((100.0, 0.001), (100.0, 0.0)),
    ((0.5, -7.0), (0.5, -7.0)),
    ((1e-3, 1e-4), (0.00099945068359375, 0.00010013580322265625)),
    ((65000.0, 1.0), (65024.0, 0.0)),
]


def test_shared_exponents():
    a = ti.field(ti.types.quant.float(exp=5, frac=10))
    b = ti.field(ti.types.quant.float(exp=5, frac=13))
    u = ti.field(ti.types.quant.int(4, False))
    bitpack = ti.BitpackedFields(max_num_bits=32)
    bitpack.place(a, b, shared_exponent=True)
    bitpack.place(u)  # 5 + 10 + 13 + 4 bits
    n = len(SHARED)
    ti.root.dense(ti.i, n).place(bitpack)

    @ti.kernel
    def store(v: ti.types.ndarray()):
        for i in range(n):
            u[i] = i
            b[i] = v[i, 1]
            a[i] = v[i, 0]

    @ti.kernel
    def read(out: ti.types.ndarray()):
        for i in range(n):
            out[i, 0] = a[i]
            out[i, 1] = b[i]
            out[i, 2] = u[i]

    store(np.array([v for v, _ in SHARED], np.float32))
    out = np.zeros((n, 3), np.float32)
    read(out)
    expected = np.array([e for _, e in SHARED], np.float32)
    np.testing.assert_array_equal(out[:, :2], expected)
    np.testing.assert_array_equal(out[:, 2], np.arange(n))
    np.testing.assert_array_equal(a.to_numpy(), expected[:, 0])
    assert b[3] == 0.25
    # a larger value written alone re-encodes its neighbour under the new exponent
    a[1] = 1000.0  # b[1] = 0.0 stays 0
    b[2] = 1000.0  # a[2] = 0.0 stays 0
    a[3] = 4096.0  # 0.25 is below half of b's last digit under 4096 (2.0): b[3] -> 0
    a[4] = 1024.0  # 0.25 is half of b's last digit under 1024 (0.5): rounds up
    assert (a[1], b[1], a[2], b[2]) == (1000.0, 0.0, 0.0, 1000.0)
    assert (a[3], b[3], a[4], b[4]) == (4096.0, 0.0, 1024.0, 0.5)

    @ti.kernel
    def grow():
        for i in range(n):
            b[i] += 1.0

    grow()
    assert b[1] == 1.0 and b[6] == -6.0 and a[6] == 0.5
    assert list(u.to_numpy()) == list(range(n))


def test_what_is_not_done_says_so():
    f15 = ti.types.quant.float(exp=5, frac=10)
    p, q = ti.field(f15), ti.field(f15)
    with pytest.raises(ti.TaichiCompilationError, match="At least 2 fields"):
        ti.BitpackedFields(max_num_bits=32).place(p, shared_exponent=True)
    with pytest.raises(ti.TaichiError, match="every field must be a quant.float"):
        ti.BitpackedFields(max_num_bits=32).place(
            q, ti.field(ti.types.quant.int(4)), shared_exponent=True
        )
    with pytest.raises(ti.TaichiError, match="under a sparse SNode"):
        ti.root.pointer(ti.i, 2).quant_array(ti.i, 4, max_num_bits=32).place(p)
    wide = [ti.field(ti.types.quant.int(20)) for _ in range(2)]
    with pytest.raises(ti.TaichiError, match="max_num_bits=32"):
        ti.BitpackedFields(max_num_bits=32).place(*wide)
    with pytest.raises(ti.TaichiError, match="no shape of its own"):
        ti.field(ti.types.quant.int(8), shape=4)
    with pytest.raises(ti.TaichiError, match="exceed max_num_bits=32"):
        ti.root.quant_array(ti.i, 5, max_num_bits=32).place(ti.field(ti.types.quant.int(7)))
    with pytest.raises(ti.TaichiError, match="takes fields of quantized types"):
        ti.BitpackedFields(max_num_bits=32).place(ti.Vector.field(2, ti.i32, shape=()))


def test_64_bit_words():
    """Fields of more than 32 bits in all share a u64 word (compare-and-swap of i64)."""
    a = ti.field(ti.types.quant.int(32, True, ti.i64))
    b = ti.field(ti.types.quant.int(23, False, ti.i64))
    c = ti.field(ti.types.quant.int(9, True, ti.i64))
    bitpack = ti.BitpackedFields(max_num_bits=64)
    bitpack.place(a, b, c)
    ti.root.dense(ti.i, 3).place(bitpack)

    @ti.kernel
    def store(v: ti.types.ndarray()):
        for i in range(3):
            a[i] = v[i, 0]
            b[i] = v[i, 1]
            c[i] = v[i, 2]

    values = np.array(
        [[2**31 - 1, 2**23 - 1, -(2**8)], [-(2**31), 0, 255], [2**32 + 5, 2**23 + 7, 256]]
    )
    store(values)
    assert [a[i] for i in range(3)] == [2**31 - 1, -(2**31), 5]  # wraps in 32 bits
    assert [b[i] for i in range(3)] == [2**23 - 1, 0, 7]
    assert [c[i] for i in range(3)] == [-256, 255, -256]

    x = ti.field(ti.types.quant.int(13, True))
    ti.root.quant_array(ti.i, 4, max_num_bits=64).place(x)  # 52 bits of one u64
    x[0], x[1], x[2] = 100, 200, 300

    @ti.kernel
    def add():
        for i in range(3000):
            x[i % 4] += i % 5

    add()
    expected = [100, 200, 300, 0]
    for i in range(3000):
        expected[i % 4] += i % 5
    assert [x[i] for i in range(4)] == [(v + 4096) % 8192 - 4096 for v in expected]


def test_vector_and_matrix_fields_of_a_quantized_type():
    """Each component is a quantized field of its own (get_scalar_field), placed in a
    bitpack; a kernel reads and writes the element as a matrix."""
    q = ti.types.quant.fixed(bits=16, max_value=1.2)
    m = ti.Matrix.field(2, 2, dtype=q)
    for row in range(2):
        bitpack = ti.BitpackedFields(max_num_bits=32)
        bitpack.place(m.get_scalar_field(row, 0), m.get_scalar_field(row, 1))
        ti.root.place(bitpack)
    v = ti.Vector.field(3, dtype=ti.types.quant.int(10))
    bitpack = ti.BitpackedFields(max_num_bits=32)
    bitpack.place(v)
    ti.root.dense(ti.i, 4).place(bitpack)
    m[None] = [[1.0, 0.0], [0.0, 1.0]]

    @ti.kernel
    def rotate():
        c, s = ti.cos(0.5), ti.sin(0.5)
        m[None] = m[None] @ ti.Matrix([[c, s], [-s, c]])
        for i in v:
            v[i] = ti.Vector([i, -i, 2 * i]) * 100
            v[i][1] += 1

    for _ in range(3):
        rotate()
    c, s = np.cos(1.5), np.sin(1.5)
    np.testing.assert_allclose(m.to_numpy(), [[c, s], [-s, c]], atol=1e-3)
    assert m[None][0, 1] == pytest.approx(s, abs=1e-3)
    expected = np.array([[i, -i, 2 * i] for i in range(4)]) * 100 + [0, 1, 0]
    expected = (expected + 512) % 1024 - 512  # 10 signed bits wrap
    np.testing.assert_array_equal(v.to_numpy(), expected)
    v.from_numpy(np.ones((4, 3), np.int32))
    assert list(v[2]) == [1, 1, 1]
