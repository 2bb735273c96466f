"""
CPU runtime launch overhead and parallel scaling, on hand-written LLVM IR tasks.

    python bench/cpu_launch.py [--threads N] [--repeat R]

Prints microseconds per launch for
- an empty kernel (one serial task, no arguments): the fixed cost of `Kernel.launch`;
- a tiny saxpy (a scalar and two ndarray arguments, 16 elements, one serial + one range_for
  task): the cost a small real kernel pays;
- the same two kernels compiled from the taichi dialect by CpuBackend (when xDSL is there);
- a parallel range_for of 64k trivial iterations (forced onto the pool) with each pool:
  the native pool, the pure-Python pool, and a concurrent.futures pool (for comparison
  only; it is not part of the runtime);
- saxpy over 16M elements on 1 thread and on all threads.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import ctypes
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from taichi_xdsl.targets.llvm import jit
from taichi_xdsl.targets.llvm.pool import (
    NativeThreadPool,
    PythonThreadPool,
    TaskFunction,
    default_num_threads,
)
from taichi_xdsl.targets.llvm.runtime import (
    Bound,
    Kernel,
    LaunchPlan,
    NdarrayArg,
    ScalarArg,
    TaskSpec,
)

IR = """
define void @empty__task0(ptr %ctx, i32 %begin, i32 %end) {
  ret void
}

define void @heavy__task0(ptr %ctx, i32 %begin, i32 %end) {
entry:
  %rootp = getelementptr i8, ptr %ctx, i64 0
  %root = load ptr, ptr %rootp
  %nonempty = icmp slt i32 %begin, %end
  br i1 %nonempty, label %loop, label %done
loop:
  %i = phi i32 [ %begin, %entry ], [ %next, %inner_done ]
  %i64 = sext i32 %i to i64
  %p = getelementptr float, ptr %root, i64 %i64
  %x0 = load float, ptr %p
  br label %inner
inner:
  %k = phi i32 [ 0, %loop ], [ %k1, %inner ]
  %x = phi float [ %x0, %loop ], [ %x1, %inner ]
  %xx = fmul float %x, %x
  %h = fmul float %xx, 0.5
  %x1 = fadd float %h, 0.25
  %k1 = add i32 %k, 1
  %again = icmp slt i32 %k1, 200
  br i1 %again, label %inner, label %inner_done
inner_done:
  store float %x1, ptr %p
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %end
  br i1 %more, label %loop, label %done
done:
  ret void
}

define void @saxpy__task0(ptr %ctx, i32 %begin, i32 %end) {
  %argsp = getelementptr i8, ptr %ctx, i64 24
  %args = load ptr, ptr %argsp
  %shape_p = getelementptr i8, ptr %args, i64 16
  %shape = load i64, ptr %shape_p
  %n = trunc i64 %shape to i32
  %gp = getelementptr i8, ptr %ctx, i64 8
  %g = load ptr, ptr %gp
  store i32 %n, ptr %g
  ret void
}

define void @saxpy__task1(ptr %ctx, i32 %begin, i32 %end) {
entry:
  %argsp = getelementptr i8, ptr %ctx, i64 24
  %args = load ptr, ptr %argsp
  %a = load float, ptr %args
  %xp = getelementptr i8, ptr %args, i64 8
  %x = load ptr, ptr %xp
  %yp = getelementptr i8, ptr %args, i64 24
  %y = load ptr, ptr %yp
  %nonempty = icmp slt i32 %begin, %end
  br i1 %nonempty, label %loop, label %done
loop:
  %i = phi i32 [ %begin, %entry ], [ %next, %loop ]
  %i64 = sext i32 %i to i64
  %px = getelementptr float, ptr %x, i64 %i64
  %py = getelementptr float, ptr %y, i64 %i64
  %vx = load float, ptr %px
  %vy = load float, ptr %py
  %ax = fmul fast float %a, %vx
  %r = fadd fast float %ax, %vy
  store float %r, ptr %py
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %end
  br i1 %more, label %loop, label %done
done:
  ret void
}
"""

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


class FuturesPool:
    """A concurrent.futures pool with the same chunk counter (comparison only)."""

    def __init__(self, num_threads: int):
        self.num_threads = num_threads
        self._executor = concurrent.futures.ThreadPoolExecutor(max(1, num_threads - 1))

    def parallel_for(self, fn, fn_address, ctx, begin, end, grain) -> None:
        import itertools

        nchunks = -(-(end - begin) // grain)
        chunks = itertools.count()

        def work() -> None:
            for chunk in chunks:
                if chunk >= nchunks:
                    return
                lo = begin + chunk * grain
                fn(ctx, lo, min(lo + grain, end))

        futures = [
            self._executor.submit(work)
            for _ in range(min(self.num_threads - 1, nchunks - 1))
        ]
        work()
        for future in futures:
            future.result()

    def shutdown(self) -> None:
        self._executor.shutdown()


def per_call_us(fn: Callable[[], object], repeat: int) -> float:
    for _ in range(min(repeat, 1000)):
        fn()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat * 1e6)
    return best


COMPILED_SAXPY = (
    Path(__file__).resolve().parents[1] / "test" / "Inputs" / "saxpy.mlir"
).read_text() + """
taichi.kernel @empty() {
  taichi.return
}
"""


def compiled_launches(threads: int, repeat: int) -> None:
    """The same two kernels compiled from the taichi dialect by CpuBackend."""
    try:
        from taichi_xdsl.targets.llvm.backend import CpuBackend
        from taichi_xdsl.utils import registry
        from xdsl.parser import Parser
    except ImportError as error:
        print(f"(compiled kernels skipped: {error})")
        return
    backend = CpuBackend(num_threads=threads)
    start = time.perf_counter()
    module = Parser(registry.make_context(), COMPILED_SAXPY).parse_module()
    saxpy = backend.compile(module, "saxpy")
    compile_ms = (time.perf_counter() - start) * 1e3
    empty = backend.compile(module, "empty")
    us = per_call_us(lambda: empty.launch(None, ()), repeat)
    print(f"compiled empty kernel launch: {us:8.2f} us")
    x = np.ones(16, dtype=np.float32)
    y = np.ones(16, dtype=np.float32)
    us = per_call_us(lambda: saxpy.launch(None, (2.0, x, y)), repeat)
    print(f"compiled saxpy n=16 launch:   {us:8.2f} us  (compiled in {compile_ms:.0f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=default_num_threads())
    parser.add_argument("--repeat", type=int, default=20000)
    options = parser.parse_args()
    threads, repeat = options.threads, options.repeat
    module = jit.compile_ir(IR)
    print(f"threads: {threads}")

    empty = Kernel(
        LaunchPlan("empty", (), (), (TaskSpec("empty__task0", "serial"),)),
        module.address,
        keepalive=module,
        num_threads=threads,
    )
    us = per_call_us(lambda: empty.launch(None, ()), repeat)
    print(f"empty kernel launch:          {us:8.2f} us")

    saxpy = Kernel(SAXPY_PLAN, module.address, keepalive=module, num_threads=threads)
    x = np.ones(16, dtype=np.float32)
    y = np.ones(16, dtype=np.float32)
    args = (2.0, x, y)
    us = per_call_us(lambda: saxpy.launch(None, args), repeat)
    print(f"saxpy n=16 launch:            {us:8.2f} us")

    compiled_launches(threads, repeat)

    address = module.address("empty__task0")
    fn = TaskFunction(address)
    ctx = (ctypes.c_uint64 * 5)()
    ctx_address = ctypes.addressof(ctx)
    n, grain = 1 << 16, 1024
    for name, factory in (
        ("native pool", NativeThreadPool),
        ("python pool", PythonThreadPool),
        ("concurrent.futures", FuturesPool),
    ):
        pool = factory(threads)
        us = per_call_us(
            lambda pool=pool: pool.parallel_for(fn, address, ctx_address, 0, n, grain),
            repeat // 10,
        )
        print(f"parallel_for 64 chunks, {name:19s} {us:8.2f} us")
        pool.shutdown()

    m = 1 << 20
    root = np.zeros(4 * m, dtype=np.uint8)
    heavy_plan = LaunchPlan(
        "heavy", (), (), (TaskSpec("heavy__task0", "range_for", Bound(0), Bound(m)),)
    )
    base = None
    for count in sorted({1, 2, 4, 8, threads}):
        if count > threads:
            continue
        kernel = Kernel(heavy_plan, module.address, keepalive=module, num_threads=count)
        us = per_call_us(lambda kernel=kernel: kernel.launch(root, ()), 5)
        base = base or us
        print(
            f"compute-bound 1M x 200, {count:3d} thread(s): {us:9.1f} us  (x{base / us:.2f})"
        )

    big = 1 << 24
    xb = np.ones(big, dtype=np.float32)
    yb = np.zeros(big, dtype=np.float32)
    for count in (1, threads):
        kernel = Kernel(SAXPY_PLAN, module.address, keepalive=module, num_threads=count)
        us = per_call_us(lambda kernel=kernel: kernel.launch(None, (2.0, xb, yb)), 20)
        gbs = 3 * 4 * big / us / 1e3
        print(f"saxpy n=16M, {count:3d} thread(s):    {us:8.1f} us  ({gbs:.1f} GB/s)")


if __name__ == "__main__":
    main()
