"""
End-to-end: the priority programs of issue 3 run under `import taichi_xdsl as ti` on
the CPU and match NumPy.
"""

import numpy as np
import pytest
import taichi_xdsl as ti


# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_saxpy_ndarrays():
    @ti.kernel
    def saxpy(
        x: ti.types.ndarray(dtype=ti.f32, ndim=1),
        y: ti.types.ndarray(dtype=ti.f32, ndim=1),
        a: ti.f32,
    ):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    rng = np.random.default_rng(0)
    x = rng.random(10_000, dtype=np.float32)
    y = rng.random(10_000, dtype=np.float32)
    expected = np.float32(2.5) * x + y
    saxpy(x, y, 2.5)  # numpy arrays are passed without a copy: y is updated in place
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_saxpy_ti_ndarray():
    @ti.kernel
    def saxpy(x: ti.types.ndarray(), y: ti.types.ndarray(), a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    x = ti.ndarray(ti.f32, 1000)
    y = ti.ndarray(ti.f32, 1000)
    x.from_numpy(np.arange(1000, dtype=np.float32))
    y.fill(1.0)
    saxpy(x, y, 3.0)
    np.testing.assert_allclose(y.to_numpy(), 3.0 * np.arange(1000) + 1.0)


def test_sum_reduction_into_0d_field():
    n = 100_000
    x = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def reduce():
        for i in x:
            total[None] += x[i]

    values = np.ones(n, dtype=np.float32) * 0.5
    x.from_numpy(values)
    reduce()
    assert total[None] == pytest.approx(values.sum(), rel=1e-5)


def test_integer_sum_reduction_range_for():
    n = 1000
    total = ti.field(ti.i64, shape=())

    @ti.kernel
    def reduce(m: ti.i32):
        for i in range(m):
            total[None] += i * i

    reduce(n)
    assert total[None] == sum(i * i for i in range(n))


def test_stencil_ndrange_2d_fields():
    n = 64
    u = ti.field(ti.f32, shape=(n, n))
    w = ti.field(ti.f32, shape=(n, n))

    @ti.kernel
    def stencil():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            w[i, j] = (
                0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]
            )

    a = np.random.default_rng(1).random((n, n), dtype=np.float32)
    u.from_numpy(a)
    stencil()
    expected = np.zeros((n, n), dtype=np.float32)
    expected[1:-1, 1:-1] = (
        0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) - a[1:-1, 1:-1]
    )
    np.testing.assert_allclose(w.to_numpy(), expected, rtol=1e-5, atol=1e-6)


def test_tiny_kernel_called_1000_times():
    counter = ti.field(ti.i32, shape=())

    @ti.kernel
    def bump(k: ti.i32):
        counter[None] += k

    for _ in range(1000):
        bump(2)
    assert counter[None] == 2000
    assert len(bump._instances) == 1  # compiled once, then the cached fast path


def test_integer_promotion_floordiv_mod_negative():
    @ti.kernel
    def div_mod(
        a: ti.types.ndarray(dtype=ti.i32, ndim=1),
        b: ti.types.ndarray(dtype=ti.i32, ndim=1),
        q: ti.types.ndarray(dtype=ti.i32, ndim=1),
        r: ti.types.ndarray(dtype=ti.i32, ndim=1),
        t: ti.types.ndarray(dtype=ti.f32, ndim=1),
    ):
        for i in a:
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]
            t[i] = a[i] / b[i]

    a = np.array([7, -7, 7, -7, 6, -6, 0, 1, -1, 2147483647], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 3, 3, 5, -3, 3, 10], dtype=np.int32)
    q, r = np.zeros_like(a), np.zeros_like(a)
    t = np.zeros(a.shape, dtype=np.float32)
    div_mod(a, b, q, r, t)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)
    np.testing.assert_allclose(t, (a / b).astype(np.float32), rtol=1e-6)


def test_integer_kernel_scalar_return():
    @ti.kernel
    def f(a: ti.i32, b: ti.i32) -> ti.i32:
        return a // b * 1000 + a % b

    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, -3), (0, 4)]:
        assert f(a, b) == (a // b) * 1000 + a % b


def test_mixed_int_width_promotion():
    @ti.kernel
    def widen(a: ti.i8, b: ti.i64, c: ti.u8) -> ti.i64:
        return a * b + c  # i8 * i64 -> i64; + u8 -> i64

    assert widen(-3, 1 << 40, 200) == -3 * (1 << 40) + 200


def test_saxpy_2_to_the_24():
    @ti.kernel
    def saxpy(a: ti.f32, x: ti.types.ndarray(dtype=ti.f32, ndim=1),
              y: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    n = 1 << 24
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 3.0, dtype=np.float32)
    saxpy(0.5, x, y)
    np.testing.assert_array_equal(y, np.float32(0.5) * np.arange(n, dtype=np.float32) + 3)


def test_local_accumulator_in_parallel_loop():
    # `s` is declared outside the parallel loop: every iteration adds to the same local,
    # which must behave as one shared accumulator (Taichi makes `+=` atomic).
    n = 200_000
    x = ti.field(ti.f32, shape=n)
    k = ti.field(ti.i32, shape=n)

    @ti.kernel
    def sums() -> ti.f32:
        s = 0.0
        for i in x:
            s += x[i]
        return s

    @ti.kernel
    def count_odd() -> ti.i32:
        c = 0
        for i in range(n):
            if k[i] % 2 == 1:
                c += 1
        return c

    x.from_numpy(np.full(n, 0.5, dtype=np.float32))
    k.from_numpy(np.arange(n, dtype=np.int32))
    assert sums() == pytest.approx(n * 0.5, rel=1e-5)
    assert count_odd() == n // 2


@pytest.mark.parametrize("inner", [3, 4, 10, 50, 97, 4096])
def test_inner_loop_every_iteration_once(inner):
    # The serial inner loop (unrolled on Vulkan by ti-unroll-loops, up to 48 copies, with the
    # leftover iterations in a second loop) must run each iteration once, in order.
    x = ti.field(ti.f32, shape=inner)
    out = ti.field(ti.f32, shape=8)
    order = ti.field(ti.i32, shape=8)

    @ti.kernel
    def run():
        for i in range(8):
            acc = 0.0
            last = -1
            ok = 1
            for j in range(inner):
                acc += x[j] * (i + 1)
                if j != last + 1:
                    ok = 0
                last = j
            out[i] = acc
            order[i] = ok * (last + 1)

    values = (np.arange(inner) % 5).astype(np.float32)
    x.from_numpy(values)
    run()
    want = values.astype(np.float64).sum() * (np.arange(8) + 1)
    np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-6)
    assert list(order.to_numpy()) == [inner] * 8


def test_divisions_by_one_divisor_and_by_a_square_root():
    # Vulkan runs ti-fast-reciprocal (divisions by a shared divisor or by a square root
    # become multiplications by a reciprocal): the results stay within fast-math
    # rounding of the quotients, and n-body's force term keeps its value and sign.
    n = 1000
    d = ti.Vector.field(3, ti.f32, shape=n)
    r = ti.field(ti.f32, shape=n)
    out = ti.Vector.field(3, ti.f32, shape=n)
    inv = ti.field(ti.f32, shape=n)

    @ti.kernel
    def force():
        for i in range(n):
            r2 = d[i].dot(d[i]) + r[i]
            out[i] = d[i] / (r2 * ti.sqrt(r2))
            inv[i] = d[i][0] / ti.sqrt(r[i])

    rng = np.random.default_rng(5)
    d_np = (rng.random((n, 3), dtype=np.float32) - 0.5) * 8
    r_np = rng.random(n, dtype=np.float32) * 3 + 0.01
    d.from_numpy(d_np)
    r.from_numpy(r_np)
    force()
    d64, r64 = d_np.astype(np.float64), r_np.astype(np.float64)
    r2 = (d64 * d64).sum(axis=1) + r64
    np.testing.assert_allclose(out.to_numpy(), d64 / (r2 * np.sqrt(r2))[:, None], rtol=2e-6)
    np.testing.assert_allclose(inv.to_numpy(), d64[:, 0] / np.sqrt(r64), rtol=2e-6)
