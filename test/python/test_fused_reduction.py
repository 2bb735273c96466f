"""
A serial task fused into the reduction after it (ti-fuse-serial-reduction; on Vulkan its
body runs in the last workgroup, lowering/spirv_reduce.py): sums into places the serial
task initialises come out exact, launch after launch (the hidden accumulator and counter
are reset), for every length (one element, fewer than a workgroup, not a multiple of the
group size, none), for several targets and types, integer minima and maxima included;
kernels the pass must not fuse (the serial task reads what the loop writes, stores what
the loop reads, prints; a float min) give the same answers as before, unfused. Through
ti.graph and an AOT module too. Every test runs on the CPU (where nothing is fused) and
on Vulkan.
"""

from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")

SIZES = (0, 1, 5, 255, 256, 257, 1000, 100_003)
_NUMPY = {
    "i32": "int32", "i64": "int64", "u32": "uint32", "u64": "uint64", "f32": "float32",
    "f64": "float64",
}  # fmt: skip


def _fused_tasks(kernel) -> list[bool] | None:
    """On Vulkan, which tasks of the kernel's one instance end with the fused serial
    task (TaskPlan.last_group); None on the CPU."""
    (instance,) = kernel._instances.values()
    plan = getattr(instance.compiled, "plan", None)
    if plan is None or not hasattr(plan.tasks[0], "last_group"):
        return None
    return [task.last_group for task in plan.tasks if not task.skip]


def test_sum_into_initialised_place_every_length_and_launch(program):
    total = ti.field(ti.f32, shape=())
    itotal = ti.field(ti.i32, shape=())

    @ti.kernel
    def fsum(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        total[None] = 0.0
        for i in range(x.shape[0]):
            total[None] += x[i]

    @ti.kernel
    def isum(x: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        itotal[None] = -5
        for i in range(x.shape[0]):
            itotal[None] += x[i]

    for n in SIZES:  # one kernel instance, called with ndarrays of every length
        xf = (np.arange(n) % 7).astype(np.float32)  # small integers: every order is exact
        xi = (np.arange(n) % 11 - 5).astype(np.int32)
        for _ in range(3):
            fsum(xf)
            isum(xi)
            assert total[None] == float(xf.astype(np.float64).sum()), n
            assert itotal[None] == -5 + int(xi.sum()), n
    if program is ti.vulkan:
        assert _fused_tasks(fsum) == [True] and _fused_tasks(isum) == [True]


def test_constant_range_smaller_than_a_workgroup(program):
    total = ti.field(ti.f64, shape=())

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f64, ndim=1)):
        total[None] = 1.5
        for i in range(3):
            total[None] += x[i]

    x = np.array([1.0, 2.0, 4.0])
    for _ in range(4):
        k(x)
        assert total[None] == 8.5
    if program is ti.vulkan:
        assert _fused_tasks(k) == [True]


@pytest.mark.parametrize("dtype", ("i32", "i64", "f32", "f64"))
def test_several_targets_and_types(program, dtype: str):
    """Two sums and a count, each into its own initialised place, plus a store of the
    serial task the loop never touches."""
    t = getattr(ti, dtype)
    a = ti.field(t, shape=())
    b = ti.field(t, shape=(4,))
    count = ti.field(ti.i32, shape=())
    other = ti.field(ti.f32, shape=())

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=t, ndim=1)):
        a[None] = 3
        b[2] = 10
        count[None] = 0
        other[None] = 0.25
        for i in range(x.shape[0]):
            a[None] += x[i]
            b[2] += 2 * x[i]
            count[None] += 1

    for n in (1, 300, 4099):
        x = (np.arange(n) % 9 - 4).astype(_NUMPY[dtype])
        for _ in range(2):
            k(x)
            s = x.astype(np.float64).sum()
            assert a[None] == 3 + s
            assert b[2] == 10 + 2 * s
            assert count[None] == n and other[None] == 0.25
    if program is ti.vulkan:
        assert _fused_tasks(k) == [True]


@pytest.mark.parametrize("dtype", ("i32", "i64", "u32", "u64"))
def test_integer_min_and_max_every_range(program, dtype: str):
    """Integer minima and maxima are fused (keys under an unsigned max, 0 the identity's
    key): the type's extremes, negative values, the initial value winning or losing,
    no element at all."""
    t = getattr(ti, dtype)
    dt = np.dtype(_NUMPY[dtype])
    info = np.iinfo(dt)
    lo = ti.field(t, shape=())
    hi = ti.field(t, shape=())
    start_lo, start_hi = 50, 7

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=t, ndim=1)):
        lo[None] = start_lo
        hi[None] = start_hi
        for i in range(x.shape[0]):
            ti.atomic_min(lo[None], x[i])
            ti.atomic_max(hi[None], x[i])

    rng = np.random.default_rng(7)
    cases = [
        np.zeros(0, dt),
        np.array([info.max], dt),
        np.array([info.min], dt),
        np.array([60, 61, 8], dt),  # neither extreme beats the initial values... but 8 > 7
        rng.integers(info.min, info.max, size=5000, dtype=dt, endpoint=True),
        np.array([info.min, info.max] * 700 + [3], dt),
    ]
    for x in cases:
        for _ in range(2):
            k(x)
            want_lo = min(start_lo, int(x.min())) if x.size else start_lo
            want_hi = max(start_hi, int(x.max())) if x.size else start_hi
            assert (int(lo[None]), int(hi[None])) == (want_lo, want_hi), (dtype, x[:4])
    if program is ti.vulkan:
        assert _fused_tasks(k) == [True]


def test_min_and_max_are_not_fused(program):
    """A float min (and so the integer max beside it) stays a separate dispatch."""
    lo = ti.field(ti.f32, shape=())
    hi = ti.field(ti.i32, shape=())

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        lo[None] = 100.0
        hi[None] = -100
        for i in range(x.shape[0]):
            ti.atomic_min(lo[None], x[i])
            ti.atomic_max(hi[None], ti.cast(x[i], ti.i32))

    for n in (1, 1000):
        x = (np.arange(n) % 13 + 2).astype(np.float32)
        for _ in range(2):
            k(x)
            assert lo[None] == x.min() and hi[None] == int(x.max())
    if program is ti.vulkan:
        assert _fused_tasks(k) == [False, False]


def test_serial_task_reading_what_the_loop_writes_is_not_fused(program):
    total = ti.field(ti.f32, shape=())
    y = ti.field(ti.f32, shape=(64,))

    @ti.kernel
    def k():
        total[None] = y[0]  # before the loop overwrites y[0]
        for i in range(64):
            y[i] = 2.0
            total[None] += 1.0

    y[0] = 7.0
    k()
    assert total[None] == 71.0
    k()
    assert total[None] == 66.0
    if program is ti.vulkan:
        assert _fused_tasks(k) == [False, False]


def test_serial_task_storing_what_the_loop_reads_is_not_fused(program):
    total = ti.field(ti.f32, shape=())
    scale = ti.field(ti.f32, shape=())

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1), s: ti.f32):
        total[None] = 0.0
        scale[None] = s
        for i in range(x.shape[0]):
            total[None] += x[i] * scale[None]

    x = np.arange(100, dtype=np.float32)
    k(x, 2.0)
    assert total[None] == 2 * 4950
    k(x, 3.0)
    assert total[None] == 3 * 4950
    if program is ti.vulkan:
        assert _fused_tasks(k) == [False, False]


def test_serial_task_that_prints_is_not_fused(program, capfd):
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        print("start")
        total[None] = 0
        for i in range(x.shape[0]):
            total[None] += x[i]

    k(np.ones(500, np.int32))
    ti.sync()
    assert total[None] == 500
    assert "start" in capfd.readouterr().out
    if program is ti.vulkan:
        assert _fused_tasks(k) == [False, False]


def test_fused_kernel_in_a_graph(program):
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def fill(a: ti.types.ndarray(dtype=ti.f32, ndim=1), s: ti.f32):
        for i in a:
            a[i] = s

    @ti.kernel
    def add_up(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        total[None] = 0.0
        for i in range(a.shape[0]):
            total[None] += a[i]

    arg_a = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", dtype=ti.f32, ndim=1)
    arg_s = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.f32)
    builder = ti.graph.GraphBuilder()
    builder.dispatch(fill, arg_a, arg_s)
    builder.dispatch(add_up, arg_a)
    builder.dispatch(add_up, arg_a)  # twice in one submission: the counter is reset
    graph = builder.compile()
    for n, s in ((10, 1.0), (3000, 0.5), (1, 4.0)):
        a = np.zeros(n, np.float32)
        graph.run({"a": a, "s": s})
        assert total[None] == n * s


def test_fused_kernel_in_an_aot_module(program, tmp_path: Path):
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def add_up(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        total[None] = 1
        for i in range(a.shape[0]):
            total[None] += a[i]

    module = ti.aot.Module(program)
    module.add_field("total", total)
    module.add_kernel(add_up)
    module.archive(tmp_path / "m.tcm")
    loaded = ti.aot.load(tmp_path / "m.tcm")
    kernel = loaded.get_kernel("add_up")
    for n in (0, 1, 777, 70_000, 3):
        a = (np.arange(n) % 5).astype(np.int32)
        kernel(a)
        kernel(a)
        assert int(loaded.get_field("total")) == 1 + int(a.sum()), n


def test_loop_with_inner_loop_and_locals(program):
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        total[None] = 0.5
        for i in range(x.shape[0]):
            s = 0.0
            j = 0
            while j < 3:
                s += x[i] * j
                j += 1
            total[None] += s

    for n in (1, 513):
        x = (np.arange(n) % 4).astype(np.float32)
        for _ in range(2):
            k(x)
            assert total[None] == 0.5 + 3 * float(x.sum())
    if program is ti.vulkan:
        assert _fused_tasks(k) == [True]


def test_struct_for_over_a_field(program):
    """mgpcg's dot product with its initialisation in the kernel: a loop over a 2-d
    field's cells."""
    p = ti.field(ti.f32, shape=(37, 21))
    q = ti.field(ti.f32, shape=(37, 21))
    dot = ti.field(ti.f32, shape=())

    @ti.kernel
    def reduce():
        dot[None] = 0.0
        for I in ti.grouped(p):
            dot[None] += p[I] * q[I]

    a = (np.arange(37 * 21).reshape(37, 21) % 5).astype(np.float32)
    p.from_numpy(a)
    q.from_numpy(a + 1)
    for _ in range(3):
        reduce()
        assert dot[None] == float((a.astype(np.float64) * (a + 1)).sum())
    if program is ti.vulkan:
        assert _fused_tasks(reduce) == [True]
