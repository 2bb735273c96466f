"""
The CPU runtime and JIT (targets/llvm/jit.py, pool.py, runtime.py) on hand-written LLVM IR
task functions that follow utils/abi.py: no compiler pass involved.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading

import numpy as np
import pytest

from taichi_xdsl.targets.llvm import jit
from taichi_xdsl.targets.llvm.pool import (
    NativeThreadPool,
    PythonThreadPool,
    TaskFunction,
    get_pool,
)
from taichi_xdsl.targets.llvm.runtime import (
    Bound,
    Kernel,
    LaunchPlan,
    NdarrayArg,
    ScalarArg,
    SerialOrParallel,
    TaskSpec,
    adaptive_grain,
)
from taichi_xdsl.utils import abi
from taichi_xdsl.utils.errors import (
    TaichiAssertionError,
    TaichiIndexError,
    TaichiRuntimeTypeError,
    TaichiTypeError,
)

POOL_KINDS = ["native", "python"]

# RuntimeContext accessors shared by the hand-written tasks.
PRELUDE = f"""
define private ptr @ctx_field(ptr %ctx, i64 %offset) alwaysinline {{
  %p = getelementptr i8, ptr %ctx, i64 %offset
  %q = load ptr, ptr %p
  ret ptr %q
}}
define private ptr @root(ptr %ctx) alwaysinline {{
  %p = call ptr @ctx_field(ptr %ctx, i64 {abi.CTX_ROOT})
  ret ptr %p
}}
define private ptr @gtmps(ptr %ctx) alwaysinline {{
  %p = call ptr @ctx_field(ptr %ctx, i64 {abi.CTX_GLOBAL_TMPS})
  ret ptr %p
}}
define private ptr @returns(ptr %ctx) alwaysinline {{
  %p = call ptr @ctx_field(ptr %ctx, i64 {abi.CTX_RETURNS})
  ret ptr %p
}}
define private ptr @args(ptr %ctx) alwaysinline {{
  %p = call ptr @ctx_field(ptr %ctx, i64 {abi.CTX_ARGS})
  ret ptr %p
}}
define private ptr @error(ptr %ctx) alwaysinline {{
  %p = call ptr @ctx_field(ptr %ctx, i64 {abi.CTX_ERROR})
  ret ptr %p
}}
"""


def range_loop(
    name: str, body: str, prologue: str = "", epilogue: str = "", phis: str = ""
) -> str:
    """A range_for task function: prologue, `body` for %i in [begin, end), epilogue."""
    return f"""
define void @{name}(ptr %ctx, i32 %begin, i32 %end) {{
entry:
{prologue}
  %nonempty = icmp slt i32 %begin, %end
  br i1 %nonempty, label %loop, label %done
loop:
  %i = phi i32 [ %begin, %entry ], [ %next, %loop ]
{phis}
  %i64 = sext i32 %i to i64
{body}
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %end
  br i1 %more, label %loop, label %done
done:
{epilogue}
  ret void
}}
"""


def build(
    ir: str, plan: LaunchPlan, pool_kind: str = "native", num_threads: int = 4
) -> Kernel:
    module = jit.compile_ir(PRELUDE + ir)
    return Kernel(
        plan, module.address, keepalive=module, num_threads=num_threads, pool_kind=pool_kind
    )


# -- saxpy: scalar + ndarray arguments, bound read from a global temporary ---------------

SAXPY_IR = """
; task 0 (serial): gtmp[0] = x.shape[0]
define void @saxpy__task0(ptr %ctx, i32 %begin, i32 %end) {
  %args = call ptr @args(ptr %ctx)
  %shape_p = getelementptr i8, ptr %args, i64 16
  %shape = load i64, ptr %shape_p
  %n = trunc i64 %shape to i32
  %g = call ptr @gtmps(ptr %ctx)
  store i32 %n, ptr %g
  ret void
}
""" + range_loop(
    "saxpy__task1",
    prologue="""
  %args = call ptr @args(ptr %ctx)
  %a = load float, ptr %args
  %xp = getelementptr i8, ptr %args, i64 8
  %x = load ptr, ptr %xp
  %yp = getelementptr i8, ptr %args, i64 24
  %y = load ptr, ptr %yp
""",
    body="""
  %px = getelementptr float, ptr %x, i64 %i64
  %py = getelementptr float, ptr %y, i64 %i64
  %vx = load float, ptr %px
  %vy = load float, ptr %py
  %ax = fmul fast float %a, %vx
  %r = fadd fast float %ax, %vy
  store float %r, ptr %py
""",
)

SAXPY_PLAN = LaunchPlan(
    name="saxpy",
    args=(ScalarArg("f32"), NdarrayArg("f32", 1), NdarrayArg("f32", 1)),
    returns=(),
    tasks=(
        TaskSpec("saxpy__task0", "serial"),
        TaskSpec("saxpy__task1", "range_for", Bound(0), Bound(gtmp_offset=0)),
    ),
    gtmp_bytes=4,
)


@pytest.mark.parametrize("pool_kind", POOL_KINDS)
@pytest.mark.parametrize("n", [0, 1, 7, 1000, 100_003, 1 << 20])
def test_saxpy(pool_kind: str, n: int):
    kernel = build(SAXPY_IR, SAXPY_PLAN, pool_kind)
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    assert kernel.launch(None, (2.0, x, y)) == ()
    np.testing.assert_allclose(y, 2.0 * x + 1.0)
    # A second launch with the same (cached) arrays and a new scalar.
    kernel.launch(None, (1, x, y))
    np.testing.assert_allclose(y, 3.0 * x + 1.0)


def test_saxpy_vectorised():
    """O3 with loop vectorisation: the optimised IR of the loop works on vectors."""
    module = jit.compile_ir(PRELUDE + SAXPY_IR, keep_ir=True)
    assert module.optimized_ir is not None
    assert " x float>" in module.optimized_ir
    assert '"unsafe-fp-math"="true"' in module.optimized_ir


def test_arguments_are_checked():
    kernel = build(SAXPY_IR, SAXPY_PLAN)
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(TaichiTypeError, match="float64"):
        kernel.launch(None, (1.0, x, np.zeros(4)))
    with pytest.raises(TaichiTypeError, match="1-d"):
        kernel.launch(None, (1.0, x, np.zeros((2, 2), dtype=np.float32)))
    with pytest.raises(TaichiTypeError, match="numpy.ndarray"):
        kernel.launch(None, (1.0, x, [1.0, 2.0]))
    with pytest.raises(TaichiTypeError, match="3 argument"):
        kernel.launch(None, (1.0, x))
    with pytest.raises(ValueError, match="contiguous"):
        kernel.launch(None, (1.0, x, np.zeros(8, dtype=np.float32)[::2]))
    # A good launch after the failures still works.
    y = np.ones(4, dtype=np.float32)
    kernel.launch(None, (1.0, np.arange(4, dtype=np.float32), y))
    np.testing.assert_allclose(y, [1, 2, 3, 4])


def test_new_arrays_and_views_are_seen():
    """The pointer cache keys on the array object: a new view of the same memory, a new
    shape or a new array must each be packed afresh."""
    kernel = build(SAXPY_IR, SAXPY_PLAN)
    x = np.ones(8, dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)
    kernel.launch(None, (1.0, x, y))
    y.fill(0)
    kernel.launch(None, (1.0, x[:4], y[:4]))
    np.testing.assert_allclose(y, [1, 1, 1, 1, 0, 0, 0, 0])
    y.fill(0)
    kernel.launch(None, (1.0, x[4:], y[4:]))
    np.testing.assert_allclose(y, [0, 0, 0, 0, 1, 1, 1, 1])
    y2 = np.zeros(8, dtype=np.float32)
    kernel.launch(None, (2.0, x, y2))
    np.testing.assert_allclose(y2, 2)


# -- scalar arguments and return values ----------------------------------------------------

RETURNS_IR = """
; returns (a + 1 : i32, b * 2 : f64, c : i64, d : i8)
define void @ret__task0(ptr %ctx, i32 %begin, i32 %end) {
  %args = call ptr @args(ptr %ctx)
  %a = load i32, ptr %args
  %bp = getelementptr i8, ptr %args, i64 8
  %b = load double, ptr %bp
  %cp = getelementptr i8, ptr %args, i64 16
  %c = load i64, ptr %cp
  %dp = getelementptr i8, ptr %args, i64 24
  %d = load i8, ptr %dp
  %ret = call ptr @returns(ptr %ctx)
  %a1 = add i32 %a, 1
  store i32 %a1, ptr %ret
  %b2 = fmul double %b, 2.0
  %r1 = getelementptr i8, ptr %ret, i64 8
  store double %b2, ptr %r1
  %r2 = getelementptr i8, ptr %ret, i64 16
  store i64 %c, ptr %r2
  %r3 = getelementptr i8, ptr %ret, i64 24
  store i8 %d, ptr %r3
  ret void
}
"""

RETURNS_PLAN = LaunchPlan(
    name="ret",
    args=(ScalarArg("i32"), ScalarArg("f64"), ScalarArg("i64"), ScalarArg("i8")),
    returns=("i32", "f64", "i64", "i8"),
    tasks=(TaskSpec("ret__task0", "serial"),),
)


def test_serial_task_returns_values():
    kernel = build(RETURNS_IR, RETURNS_PLAN)
    result = kernel.launch(None, (41, 1.25, -(2**40), -3))
    assert result == (42, 2.5, -(2**40), -3)
    assert [type(value) for value in result] == [int, float, int, int]
    # Integers are converted to the declared float type; bools are ints.
    assert kernel.launch(None, (True, 3, 0, 0)) == (2, 6.0, 0, 0)
    # Unsigned values wrap to the signless slot.
    assert kernel.launch(None, (2**32 - 1, 0.0, 0, 255)) == (0, 0.0, 0, -1)
    with pytest.raises(TaichiRuntimeTypeError, match=r"Argument \(0,\) .* required type i32"):
        kernel.launch(None, (1.5, 0.0, 0, 0))
    assert kernel.launch(None, (np.int32(1), np.float32(0.5), np.int64(2), 1)) == (
        2,
        1.0,
        2,
        1,
    )


ECHO_TYPES = ("i1", "i8", "i16", "i32", "i64", "f32", "f64")

ECHO_IR = "define void @echo__task0(ptr %ctx, i32 %begin, i32 %end) {\n" + "".join(
    f"""
  %a{k} = call ptr @args(ptr %ctx)
  %ap{k} = getelementptr i8, ptr %a{k}, i64 {8 * k}
  %v{k} = load i64, ptr %ap{k}
  %r{k} = call ptr @returns(ptr %ctx)
  %rp{k} = getelementptr i8, ptr %r{k}, i64 {8 * k}
  store i64 %v{k}, ptr %rp{k}
"""
    for k in range(len(ECHO_TYPES))
) + "  ret void\n}\n"

ECHO_PLAN = LaunchPlan(
    "echo",
    tuple(ScalarArg(t) for t in ECHO_TYPES),
    ECHO_TYPES,
    (TaskSpec("echo__task0", "serial"),),
)

ECHO_ARGS = [
    (1, 5, 7, 41, -(2**40), 1.5, 0.1),
    (0, 300, 70000, 2**32 - 1, 2**63 - 1, 1e-46, -0.0),  # wraps; an f32 underflows to 0
    (5, -129, -32769, -(2**31) - 1, -(2**63), 3.4e39, 1e308),  # i1 is `!= 0`; f32 inf
    (True, False, True, 2, 3, 4, 5),  # bools and ints for floats
    (1, 2**70 + 3, 2**64 + 1, -(2**65) - 2, 2**64 - 1, 2**1023, 7),  # past 64 bits
    (np.int32(1), np.int8(-2), np.int64(3), np.uint32(2**32 - 1), 4, np.float32(0.1), 6.0),
    (1, 2, 3, 4, 5, float("nan"), float("inf")),
]


@pytest.mark.parametrize("args", ECHO_ARGS)
def test_native_launch_converts_as_ctypes(args: tuple):
    """A serial kernel with scalar arguments is one native call (native_launch.py); what
    it converts itself and what it leaves to the ctypes path read back the same as on a
    kernel that has only the ctypes path (the python pool's)."""
    native = build(ECHO_IR, ECHO_PLAN)
    assert native._native is not None
    plain = build(ECHO_IR, ECHO_PLAN, pool_kind="python")
    assert plain._native is None
    got, want = native.launch(None, args), plain.launch(None, args)
    # floats compared by their bits (NaN, -0.0)
    def exact(values: tuple) -> list:
        return [(type(v), v.hex() if isinstance(v, float) else v) for v in values]

    assert exact(got) == exact(want)
    # exact ints of 64 bits, and exact floats or ints for float slots, never leave C
    native_kinds = all(
        type(v) is int and -(2**63) <= v < 2**63 or t.startswith("f") and type(v) is float
        for v, t in zip(args, ECHO_TYPES)
    )
    assert (native._native.call(None, args) is not NotImplemented) == native_kinds


def test_native_launch_declines_what_it_cannot_convert():
    """Wrong arity, a float for an integer slot, an int past f64's range, a list instead
    of a tuple: the native launcher leaves them to the ctypes path, which reports them."""
    kernel = build(ECHO_IR, ECHO_PLAN)
    with pytest.raises(TaichiTypeError, match="takes 7 argument"):
        kernel.launch(None, (1, 2))
    with pytest.raises(TaichiRuntimeTypeError, match=r"Argument \(3,\)"):
        kernel.launch(None, (1, 2, 3, 4.5, 5, 6.0, 7.0))
    with pytest.raises(TaichiTypeError, match="bad arguments"):
        kernel.launch(None, (1, 2, 3, 4, 5, 10**400, 7.0))
    assert kernel.launch(None, [1, 2, 3, 4, 5, 6.0, 7.0]) == (1, 2, 3, 4, 5, 6.0, 7.0)


def test_native_launch_follows_the_root():
    """A new root buffer is taken up (the native record names the root object)."""
    kernel = build(SERIAL_STEPS_IR, STEPS_PLAN)
    assert kernel._native is not None
    for _ in range(2):
        roots = [np.zeros(3, dtype=np.int64) for _ in range(3)]
        for k, root in enumerate(roots):
            kernel.launch(root, (k + 1,))
        assert [root.tolist() for root in roots] == [[k + 1, 1000, 1] for k in range(3)]
    with pytest.raises(TaichiTypeError, match="C-contiguous"):
        kernel.launch(np.zeros((3, 2), dtype=np.int64)[:, 0], (1,))


F16_IR = """
define void @half__task0(ptr %ctx, i32 %begin, i32 %end) {
  %args = call ptr @args(ptr %ctx)
  %a = load half, ptr %args
  %b = fmul half %a, 0xH4000
  %ret = call ptr @returns(ptr %ctx)
  store half %b, ptr %ret
  ret void
}
"""


def test_f16_argument_and_return():
    plan = LaunchPlan(
        "half", (ScalarArg("f16"),), ("f16",), (TaskSpec("half__task0", "serial"),)
    )
    kernel = build(F16_IR, plan)
    assert kernel.launch(None, (1.5,)) == (3.0,)


# -- reductions: thread-local accumulation + atomicrmw into the root buffer --------------

SUM_IR = range_loop(
    "sum__task0",
    prologue="""
  %root = call ptr @root(ptr %ctx)
  %x = getelementptr i8, ptr %root, i64 64
""",
    phis="""
  %acc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %iacc = phi i64 [ 0, %entry ], [ %iacc1, %loop ]
""",
    body="""
  %p = getelementptr float, ptr %x, i64 %i64
  %v = load float, ptr %p
  %acc1 = fadd fast float %acc, %v
  %iacc1 = add i64 %iacc, %i64
""",
    epilogue="""
  %facc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %isum = phi i64 [ 0, %entry ], [ %iacc1, %loop ]
  atomicrmw fadd ptr %root, float %facc seq_cst
  %count_p = getelementptr i8, ptr %root, i64 8
  atomicrmw add ptr %count_p, i64 %isum seq_cst
  %calls_p = getelementptr i8, ptr %root, i64 16
  atomicrmw add ptr %calls_p, i64 1 seq_cst
""",
)


@pytest.mark.parametrize("pool_kind", POOL_KINDS)
@pytest.mark.parametrize("num_threads", [1, 2, 4, 8])
@pytest.mark.parametrize("n", [1, 513, 4096, 250_001])
def test_reduction_into_root(pool_kind: str, num_threads: int, n: int):
    """
    Root layout: f32 sum at 0, i64 index sum at 8, i64 chunk count at 16, x: f32[n] at 64.
    Every index is visited exactly once (sum of indices), whichever thread runs it.
    """
    plan = LaunchPlan(
        "sum", (), (), (TaskSpec("sum__task0", "range_for", Bound(0), Bound(n)),)
    )
    kernel = build(SUM_IR, plan, pool_kind, num_threads)
    root = np.zeros(64 + 4 * n, dtype=np.uint8)
    root[64:].view(np.float32)[:] = 1.0
    for launch in range(1, 4):
        kernel.launch(root, ())
        assert root[0:4].view(np.float32)[0] == pytest.approx(launch * n, rel=1e-5)
        assert root[8:16].view(np.int64)[0] == launch * n * (n - 1) // 2
    calls = root[16:24].view(np.int64)[0] // 3
    grain = adaptive_grain(n, num_threads, coarse=pool_kind == "python")
    assert calls == (1 if num_threads == 1 or n <= grain else -(-n // grain))


COUNT_IR = range_loop(
    "count__task0",
    prologue="""
  %args = call ptr @args(ptr %ctx)
  %xp = getelementptr i8, ptr %args, i64 8
  %x = load ptr, ptr %xp
  %lo_p = getelementptr i8, ptr %args, i64 0
  %lo = load i32, ptr %lo_p
""",
    body="""
  %k = sub i32 %i, %lo
  %k64 = sext i32 %k to i64
  %p = getelementptr i32, ptr %x, i64 %k64
  atomicrmw add ptr %p, i32 1 monotonic
""",
)


@pytest.mark.parametrize("pool_kind", POOL_KINDS)
@pytest.mark.parametrize(("lo", "hi"), [(-1000, 1000), (5, 5), (10, 3), (-3, 1_000_000)])
def test_range_covered_exactly_once(pool_kind: str, lo: int, hi: int):
    """Bounds come from global temporaries that a serial task writes from arguments."""
    ir = (
        COUNT_IR
        + """
define void @count__task1(ptr %ctx, i32 %begin, i32 %end) {
  %args = call ptr @args(ptr %ctx)
  %lo = load i32, ptr %args
  %hi_p = getelementptr i8, ptr %args, i64 24
  %hi = load i64, ptr %hi_p
  %g = call ptr @gtmps(ptr %ctx)
  store i32 %lo, ptr %g
  %g8 = getelementptr i8, ptr %g, i64 8
  store i64 %hi, ptr %g8
  ret void
}
"""
    )
    plan = LaunchPlan(
        "count",
        (ScalarArg("i32"), NdarrayArg("i32", 1), ScalarArg("i64")),
        (),
        (
            TaskSpec("count__task1", "serial"),
            TaskSpec(
                "count__task0",
                "range_for",
                Bound(gtmp_offset=0),
                Bound(gtmp_offset=8, dtype="i64"),
            ),
        ),
        gtmp_bytes=16,
    )
    kernel = build(ir, plan, pool_kind, num_threads=8)
    counts = np.zeros(max(0, hi - lo), dtype=np.int32)
    kernel.launch(None, (lo, counts, hi))
    assert (counts == 1).all()


def test_block_dim_sets_the_chunk_size():
    n = 10_000
    plan = LaunchPlan(
        "sum",
        (),
        (),
        (TaskSpec("sum__task0", "range_for", Bound(0), Bound(n), block_dim=100),),
    )
    kernel = build(SUM_IR, plan, num_threads=4)
    root = np.zeros(64 + 4 * n, dtype=np.uint8)
    kernel.launch(root, ())
    assert root[16:24].view(np.int64)[0] == n // 100
    assert root[8:16].view(np.int64)[0] == n * (n - 1) // 2


@pytest.mark.parametrize("pool_kind", POOL_KINDS)
def test_index_cost_splits_few_heavy_indices(pool_kind: str):
    """2046 rows of 2046 elements on 16 threads: chunks of a few rows, not of 512 rows
    (four chunks, four busy threads); every index still runs once."""
    assert adaptive_grain(2046, 16) == 512
    rows = adaptive_grain(2046, 16, index_cost=2046)
    assert rows * 2046 <= 65536 and -(-2046 // rows) >= 8 * 16
    assert adaptive_grain(10, 16, index_cost=1 << 24) == 1
    assert adaptive_grain(2046, 16, block_dim=7, index_cost=2046) == 7  # block_dim wins
    n = 300
    plan = LaunchPlan(
        "sum",
        (),
        (),
        (TaskSpec("sum__task0", "range_for", Bound(0), Bound(n), index_cost=5000),),
    )
    kernel = build(SUM_IR, plan, pool_kind, num_threads=4)
    root = np.zeros(64 + 4 * n, dtype=np.uint8)
    root[64:].view(np.float32)[:] = 1.0
    kernel.launch(root, ())
    assert root[8:16].view(np.int64)[0] == n * (n - 1) // 2
    grain = adaptive_grain(n, 4, coarse=pool_kind == "python", index_cost=5000)
    assert root[16:24].view(np.int64)[0] == -(-n // grain) > 1  # chunks, not one


def test_concurrent_launches_from_python_threads():
    """One kernel launched from several Python threads at once, each on its own arrays."""
    kernel = build(SAXPY_IR, SAXPY_PLAN, num_threads=4)
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            for step in range(50):
                n = 1000 + 997 * ((seed + step) % 7)
                x = np.full(n, seed, dtype=np.float32)
                y = np.full(n, step, dtype=np.float32)
                kernel.launch(None, (2.0, x, y))
                np.testing.assert_allclose(y, 2.0 * seed + step)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


# -- debug-mode error records ------------------------------------------------------------

ERROR_IR = (
    """
@message = private constant [22 x i8] c"x[i] must be positive\\00"

; writes (1, dim 0, index %i, extent 100) for %i >= 100 (first writer wins) and skips
"""
    + range_loop(
        "err__task0",
        prologue="""
  %rec = call ptr @error(ptr %ctx)
  %root = call ptr @root(ptr %ctx)
""",
        body="""
  %oob = icmp sge i32 %i, 100
  br i1 %oob, label %bad, label %good
bad:
  %old = cmpxchg ptr %rec, i64 0, i64 1 seq_cst seq_cst
  %first = extractvalue { i64, i1 } %old, 1
  br i1 %first, label %record, label %latch
record:
  %r1 = getelementptr i8, ptr %rec, i64 8
  store i64 0, ptr %r1
  %r2 = getelementptr i8, ptr %rec, i64 16
  store i64 %i64, ptr %r2
  %r3 = getelementptr i8, ptr %rec, i64 24
  store i64 100, ptr %r3
  br label %latch
good:
  %p = getelementptr i8, ptr %root, i64 %i64
  store i8 1, ptr %p
  br label %latch
latch:
""",
    ).replace("[ %next, %loop ]", "[ %next, %latch ]")
    + """
define void @err__task1(ptr %ctx, i32 %begin, i32 %end) {
  %rec = call ptr @error(ptr %ctx)
  store i64 2, ptr %rec
  %r1 = getelementptr i8, ptr %rec, i64 8
  store ptr @message, ptr %r1
  ret void
}
"""
)


def test_out_of_bounds_record_raises_index_error():
    plan = LaunchPlan(
        "err",
        (),
        (),
        (
            TaskSpec("err__task0", "range_for", Bound(0), Bound(120)),
            TaskSpec("err__task1", "serial"),
        ),
    )
    kernel = build(ERROR_IR, plan)
    root = np.zeros(100, dtype=np.uint8)
    with pytest.raises(TaichiIndexError, match=r"index 1\d\d .*dimension 0 .*extent 100"):
        kernel.launch(root, ())
    assert (root == 1).all()  # the in-bounds accesses ran
    # The record was cleared: a launch that stays in bounds succeeds.
    in_bounds = LaunchPlan(
        "err", (), (), (TaskSpec("err__task0", "range_for", Bound(0), Bound(100)),)
    )
    build(ERROR_IR, in_bounds).launch(root, ())


def test_assertion_record_raises_assertion_error():
    plan = LaunchPlan("err", (), (), (TaskSpec("err__task1", "serial"),))
    kernel = build(ERROR_IR, plan)
    with pytest.raises(TaichiAssertionError, match="x\\[i\\] must be positive"):
        kernel.launch(None, ())
    with pytest.raises(TaichiAssertionError):
        kernel.launch(None, ())


SERIAL_STEPS_IR = """
; task0 adds args[0] to root[0]; task1 sets the assertion code when root[0] > 100, else
; adds 1000 to root[1]; task2 adds 1 to root[2]
define void @steps__task0(ptr %ctx, i32 %begin, i32 %end) {
  %args = call ptr @args(ptr %ctx)
  %a = load i64, ptr %args
  %root = call ptr @root(ptr %ctx)
  %v = load i64, ptr %root
  %w = add i64 %v, %a
  store i64 %w, ptr %root
  ret void
}
define void @steps__task1(ptr %ctx, i32 %begin, i32 %end) {
entry:
  %root = call ptr @root(ptr %ctx)
  %v = load i64, ptr %root
  %big = icmp sgt i64 %v, 100
  br i1 %big, label %bad, label %good
bad:
  %rec = call ptr @error(ptr %ctx)
  store i64 2, ptr %rec
  %r1 = getelementptr i8, ptr %rec, i64 8
  store ptr @steps_message, ptr %r1
  ret void
good:
  %p = getelementptr i64, ptr %root, i64 1
  %x = load i64, ptr %p
  %y = add i64 %x, 1000
  store i64 %y, ptr %p
  ret void
}
define void @steps__task2(ptr %ctx, i32 %begin, i32 %end) {
  %root = call ptr @root(ptr %ctx)
  %p = getelementptr i64, ptr %root, i64 2
  %x = load i64, ptr %p
  %y = add i64 %x, 1
  store i64 %y, ptr %p
  ret void
}
@steps_message = private constant [9 x i8] c"too big!\\00"
"""

STEPS_PLAN = LaunchPlan(
    "steps",
    (ScalarArg("i64"),),
    (),
    tuple(TaskSpec(f"steps__task{k}", "serial") for k in range(3)),
)


@pytest.mark.parametrize("pool_kind", POOL_KINDS)
def test_serial_tasks_run_in_order_and_stop_at_an_error(pool_kind: str):
    """A kernel of serial tasks alone (one native call with the native pool): every
    task in order, and none after the one that writes the error record."""
    kernel = build(SERIAL_STEPS_IR, STEPS_PLAN, pool_kind=pool_kind)
    assert bool(kernel._buffers.serial_job) == (pool_kind == "native")
    root = np.zeros(3, dtype=np.int64)
    kernel.launch(root, (60,))
    assert root.tolist() == [60, 1000, 1]
    with pytest.raises(TaichiAssertionError, match="too big!"):
        kernel.launch(root, (50,))
    assert root.tolist() == [110, 1000, 1]  # task1 failed: task2 did not run
    root[0] = 0
    kernel.launch(root, (7,))  # the record was cleared
    assert root.tolist() == [7, 2000, 2]
    with pytest.raises(TaichiRuntimeTypeError, match="argument 0 expects a i64"):
        kernel.launch(root, (0.5,))
    with pytest.raises(TaichiTypeError, match="takes 1 argument"):
        kernel.launch(root, ())


def test_serial_kernel_from_python_threads():
    """Launches that find the kernel busy run on buffers (and a job record) of their own."""
    kernel = build(SERIAL_STEPS_IR, STEPS_PLAN)
    roots = [np.zeros(3, dtype=np.int64) for _ in range(4)]
    errors: list[BaseException] = []

    def worker(root: np.ndarray) -> None:
        try:
            for _ in range(2000):
                kernel.launch(root, (0,))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(root,)) for root in roots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert all(root.tolist() == [0, 2_000_000, 2000] for root in roots)


# -- JIT details --------------------------------------------------------------------------


def test_printf_resolves_in_process(capfd: pytest.CaptureFixture[str]):
    ir = """
@fmt = private constant [10 x i8] c"value %d\\0A\\00"
declare i32 @printf(ptr, ...)
declare i32 @fflush(ptr)
define void @p__task0(ptr %ctx, i32 %begin, i32 %end) {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 42)
  call i32 @fflush(ptr null)
  ret void
}
"""
    plan = LaunchPlan("p", (), (), (TaskSpec("p__task0", "serial"),))
    build(ir, plan).launch(None, ())
    assert "value 42" in capfd.readouterr().out


def test_invalid_ir_is_reported():
    with pytest.raises(RuntimeError, match="invalid LLVM IR"):
        jit.compile_ir("define void @f() { ret i32 0 }")


def test_unknown_symbol():
    module = jit.compile_ir("define void @f() { ret void }")
    with pytest.raises(KeyError, match="g"):
        module.address("g")


@pytest.mark.parametrize("threads", [2, 3, 7, 13])
@pytest.mark.parametrize(("n", "grain"), [(5000, 100), (250, 100), (700, 100), (13, 1)])
def test_native_pool_blocks_cover_every_chunk_once(threads: int, n: int, grain: int):
    """The native pool splits the chunks into one block a thread (fewer chunks than
    threads leaves some blocks empty; an uneven count gives blocks of two sizes) and
    steals across blocks: every index runs exactly once, launch after launch."""
    module = jit.compile_ir(PRELUDE + SUM_IR)
    address = module.address("sum__task0")
    fn = TaskFunction(address)
    root = np.zeros(64 + 4 * n, dtype=np.uint8)
    root[64:].view(np.float32)[:] = 1.0
    ctx = (ctypes.c_uint64 * 5)(root.ctypes.data)
    pool = NativeThreadPool(threads)
    try:
        for launch in range(1, 31):
            pool.parallel_for(fn, address, ctypes.addressof(ctx), 0, n, grain)
            assert root[8:16].view(np.int64)[0] == launch * n * (n - 1) // 2
            assert root[16:24].view(np.int64)[0] == launch * -(-n // grain)
    finally:
        pool.shutdown()


@pytest.mark.parametrize("pool_type", [NativeThreadPool, PythonThreadPool])
def test_pool_shutdown(pool_type: type):
    module = jit.compile_ir(PRELUDE + SUM_IR)
    address = module.address("sum__task0")
    fn = TaskFunction(address)
    root = np.zeros(64 + 4 * 5000, dtype=np.uint8)
    ctx = (ctypes.c_uint64 * 5)(root.ctypes.data)
    pool = pool_type(3)
    pool.parallel_for(fn, address, ctypes.addressof(ctx), 0, 5000, 100)
    assert root[16:24].view(np.int64)[0] == 50
    pool.shutdown()
    pool.shutdown()


def test_pools_are_shared():
    assert get_pool(3) is get_pool(3)
    assert get_pool(3) is not get_pool(3, "python")


@pytest.mark.parametrize("cpu", [None, "x86-64"])
def test_object_file_round_trip(cpu: str | None):
    """compile_object -> bytes -> load_object runs like compile_ir (AOT modules)."""
    if cpu is not None and not jit.host_target().triple.startswith("x86_64"):
        pytest.skip("x86-64 CPU name on a non-x86 host")
    data = jit.compile_object(PRELUDE + SAXPY_IR, cpu=cpu)
    # The host's object format: ELF on Linux, Mach-O (64-bit) on macOS.
    magic = {"linux": b"\x7fELF", "darwin": b"\xcf\xfa\xed\xfe"}.get(sys.platform)
    if magic is not None:
        assert data[:4] == magic
    assert jit.compile_object(PRELUDE + SAXPY_IR, cpu=cpu) == data  # deterministic
    module = jit.load_object(data)
    kernel = Kernel(SAXPY_PLAN, module.address, keepalive=module, num_threads=2)
    x = np.arange(5000, dtype=np.float32)
    y = np.ones(5000, dtype=np.float32)
    kernel.launch(None, (3.0, x, y))
    np.testing.assert_allclose(y, 3 * x + 1)


def test_none_for_an_ndarray_is_a_type_error():
    kernel = build(SAXPY_IR, SAXPY_PLAN)
    with pytest.raises(TaichiTypeError, match="argument 1 must be a numpy.ndarray"):
        kernel.launch(None, (1.0, None, np.zeros(2, dtype=np.float32)))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_parallel_launch_in_a_forked_child():
    """A child process has none of the parent's pool threads: it must get its own pool."""
    kernel = build(SAXPY_IR, SAXPY_PLAN, num_threads=4)
    x = np.ones(100_000, dtype=np.float32)
    y = np.zeros(100_000, dtype=np.float32)
    kernel.launch(None, (1.0, x, y))  # the parent's pool exists
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the launch worked
        try:
            kernel.launch(None, (1.0, x, y))
            os._exit(0 if (y == 2).all() else 1)
        except BaseException:  # noqa: BLE001 - any failure is the child's exit status
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0


# -- serial forms: a range_for with atomics and its form without them ---------------------

# Both forms add 1 to x[i] for each index; the parallel form also counts its calls
# (chunks) in root word 0, the serial form in root word 1. `spin` extra volatile loads
# an index make one form far slower than the other.
def _forms_ir(parallel_spin: int, serial_spin: int) -> str:
    def form(name: str, word: int, spin: int) -> str:
        return range_loop(
            name,
            prologue=f"""
  %root = call ptr @root(ptr %ctx)
  %calls = getelementptr i64, ptr %root, i64 {word}
  atomicrmw add ptr %calls, i64 1 monotonic
  %x = getelementptr i8, ptr %root, i64 64
""",
            body=f"""
  %p = getelementptr i32, ptr %x, i64 %i64
  atomicrmw add ptr %p, i32 1 monotonic
  br label %spin
spin:
  %k = phi i32 [ 0, %loop ], [ %k1, %spin ]
  %ignored = load volatile i32, ptr %p
  %k1 = add i32 %k, 1
  %again = icmp slt i32 %k1, {spin}
  br i1 %again, label %spin, label %spun
spun:
""",
        ).replace("[ %next, %loop ]", "[ %next, %spun ]")

    return form("forms__task0", 0, parallel_spin) + form("forms__task0_serial", 1, serial_spin)


def _forms_plan(n: int) -> LaunchPlan:
    task = TaskSpec(
        "forms__task0", "range_for", Bound(0), Bound(n), serial_symbol="forms__task0_serial"
    )
    return LaunchPlan("forms", (), (), (task,))


@pytest.mark.parametrize("pool_kind", POOL_KINDS)
def test_one_thread_runs_the_serial_form(pool_kind: str):
    """A range run by the calling thread alone (one thread, or a range of one chunk)
    runs the serial form: no atomics needed."""
    n = 100_000
    for threads, size in ((1, n), (4, 100)):
        kernel = build(_forms_ir(1, 1), _forms_plan(size), pool_kind, num_threads=threads)
        root = np.zeros(64 + 4 * n, dtype=np.uint8)
        for _ in range(3):
            kernel.launch(root, ())
        assert root[:16].view(np.int64).tolist() == [0, 3]
        assert (root[64 : 64 + 4 * size].view(np.int32) == 3).all()


@pytest.mark.parametrize(("parallel_spin", "serial_spin"), [(1, 3000), (3000, 1)])
def test_the_faster_form_is_chosen(parallel_spin: int, serial_spin: int):
    """A trial runs each form PROBES times (the serial one on a thread's share of the
    range, the parallel one on the rest); then the faster one runs (a form 3000x slower
    loses even where a worker thread waits a time slice for a core), and every launch
    covers each index once."""
    n = 20_000
    trial = 2 * SerialOrParallel.PROBES
    ir = _forms_ir(parallel_spin, serial_spin)
    kernel = build(ir, _forms_plan(n), num_threads=2)
    root = np.zeros(64 + 4 * n, dtype=np.uint8)
    for _ in range(trial):
        kernel.launch(root, ())
    parallel_calls, serial_calls = root[:16].view(np.int64).tolist()
    assert serial_calls == SerialOrParallel.PROBES
    assert parallel_calls >= 2 * SerialOrParallel.PROBES  # several chunks a launch
    for _ in range(5):
        kernel.launch(root, ())
    after = root[:16].view(np.int64).tolist()
    if serial_spin > parallel_spin:
        assert after[1] == serial_calls and after[0] > parallel_calls
    else:
        assert after == [parallel_calls, serial_calls + 5]
    assert (root[64:].view(np.int32) == trial + 5).all()


def test_trials_choose_by_the_best_time_per_index():
    choice = SerialOrParallel()
    times = [5.0, 1.0, 0.5, 2.0, 9.0, 3.0]  # parallel 5, .5, 9 (best .5); serial 1, 2, 3
    for t in times:
        choice.record(choice.next_probe_is_serial(), t)
    assert not choice.serial and choice.left == SerialOrParallel.RUN
    choice.left = 0  # the next trial starts afresh: serial wins it
    for t in [4.0, 1.0, 4.0, 1.0, 4.0, 1.0]:
        choice.record(choice.next_probe_is_serial(), t)
    assert choice.serial
