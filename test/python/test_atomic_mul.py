"""
`ti.atomic_mul` end to end, on cpu and vulkan: no target has an atomic multiply, so both
lower it to a compare-and-swap loop. Under contention (thousands of threads multiplying
one cell) the product must be exact and every thread must get back a distinct value the
cell held: with factors of 2 among factors of 1, the old values the doubling threads see
are exactly start * 2**k for k = 0 .. m-1, once each. A lost update or a wrong old value
shows in one or the other.
"""

# No `from __future__ import annotations`: the kernels annotate with local dtypes.

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")

N = 4096
N_CPU = 1 << 20
"""On the CPU the loop is split into chunks, one a thread: only a long loop makes the
threads meet on the cell often enough for a lost update to show."""


def _doubling(n: int, n_doubling: int, np_dtype: type) -> np.ndarray:
    """n factors: 2 at `n_doubling` spread-out threads, 1 elsewhere."""
    factors = np.ones(n, dtype=np_dtype)
    factors[np.linspace(0, n - 1, n_doubling).astype(int)] = 2
    return factors


@pytest.mark.parametrize(
    ("dtype", "np_dtype", "n_doubling", "start"),
    [
        (ti.i32, np.int32, 28, 3),
        (ti.i64, np.int64, 60, -5),
        (ti.u32, np.uint32, 30, 3),
        (ti.f32, np.float32, 100, 1.5),
        (ti.f64, np.float64, 500, -0.75),
    ],
)
def test_contended_field_cell_exact_product_and_old_values(
    arch, dtype, np_dtype, n_doubling, start
):
    n = N_CPU if arch is ti.cpu else N
    cell = ti.field(dtype, shape=())
    olds = ti.ndarray(dtype, shape=n)
    factors = ti.ndarray(dtype, shape=n)

    @ti.kernel
    def multiply(f: ti.types.ndarray(), o: ti.types.ndarray()):
        for i in range(f.shape[0]):
            o[i] = ti.atomic_mul(cell[None], f[i])

    fs = _doubling(n, n_doubling, np_dtype)
    factors.from_numpy(fs)
    cell[None] = start
    multiply(factors, olds)

    expected = np_dtype(start) * np_dtype(2) ** n_doubling
    assert cell[None] == expected
    seen = olds.to_numpy()[fs == 2]
    powers = np_dtype(start) * np_dtype(2) ** np.arange(n_doubling, dtype=np_dtype)
    np.testing.assert_array_equal(np.sort(seen), np.sort(powers))


def test_contended_signs_and_halves_float():
    """Factors 2, 0.5 and -1 in one loop: every partial product is exact in f32."""
    cell = ti.field(ti.f32, shape=())

    @ti.kernel
    def multiply():
        for i in range(N):
            f = 1.0
            if i % 64 == 0:
                f = 2.0
            elif i % 64 == 1:
                f = 0.5
            elif i % 1000 == 999:
                f = -1.0
            ti.atomic_mul(cell[None], f)

    cell[None] = 3.0
    multiply()
    doubles = len(range(0, N, 64))
    halves = len(range(1, N, 64))
    negatives = len(range(999, N, 1000))
    assert cell[None] == 3.0 * 2.0 ** (doubles - halves) * (-1.0) ** negatives


def test_ndarray_elements_and_local_variable():
    """An ndarray element per thread group, and a local: the old value and the update."""
    a = ti.ndarray(ti.i32, shape=4)

    @ti.kernel
    def multiply(x: ti.types.ndarray()) -> ti.i32:
        for i in range(64):
            ti.atomic_mul(x[i % 4], -1 if i % 16 == 0 else 1)
        v = 7
        old = ti.atomic_mul(v, 6)
        return old * 1000 + v

    a.from_numpy(np.array([1, 2, 3, 4], dtype=np.int32))
    assert multiply(a) == 7 * 1000 + 42
    # i % 16 == 0 only where i % 4 == 0: four flips of element 0, none elsewhere.
    np.testing.assert_array_equal(a.to_numpy(), [1, 2, 3, 4])

    @ti.kernel
    def flip_odd(x: ti.types.ndarray()):
        for i in range(48):
            ti.atomic_mul(x[1], -1 if i % 16 == 0 else 1)

    flip_odd(a)
    np.testing.assert_array_equal(a.to_numpy(), [1, -2, 3, 4])


def test_vector_field_componentwise():
    v = ti.Vector.field(3, ti.f32, shape=())

    @ti.kernel
    def multiply() -> ti.types.vector(3, ti.f32):
        return ti.atomic_mul(v[None], ti.Vector([2.0, -1.0, 0.5]))

    v[None] = [1.0, 2.0, 4.0]
    old = multiply()
    np.testing.assert_array_equal(np.asarray(old), [1.0, 2.0, 4.0])
    np.testing.assert_array_equal(v[None].to_numpy(), [2.0, -2.0, 2.0])


def test_rvalue_first_operand_is_rejected():
    @ti.kernel
    def bad():
        ti.atomic_mul(3, 2)

    with pytest.raises(ti.TaichiSyntaxError, match="non-writable target .* 'atomic_mul'"):
        bad()


@pytest.mark.cpu_only("LLVM's cmpxchg takes 8- and 16-bit words; SPIR-V atomics do not")
@pytest.mark.parametrize("dtype", [ti.i8, ti.i16, ti.f16])
def test_narrow_types_on_cpu(dtype):
    cell = ti.field(dtype, shape=())

    @ti.kernel
    def multiply():
        for i in range(N_CPU):
            ti.atomic_mul(cell[None], ti.cast(-1 if i % 250000 == 7 else 1, dtype))

    cell[None] = 3
    multiply()
    assert cell[None] == -3  # five sign flips: i = 7, 250007, ..., 1000007


@pytest.mark.vulkan_only("the error for narrow atomics is the SPIR-V lowering's")
def test_narrow_types_on_vulkan_name_the_limit():
    cell = ti.field(ti.i16, shape=())

    @ti.kernel
    def multiply():
        for i in range(4):
            ti.atomic_mul(cell[None], ti.i16(2))

    with pytest.raises(
        ti.TaichiCompilationError, match="'taichi.atomic_mul' on i16 has no SPIR-V"
    ):
        multiply()
