"""
Thread pools that run a parallel range-for:
`pool.parallel_for(fn, fn_address, ctx, begin, end, grain)` calls the task function
`void fn(ptr ctx, i32 lo, i32 hi)` (a ctypes TaskFunction at `fn_address`) on chunks of
`grain` indices of [begin, end), from several threads at once, and returns when every
chunk has run.

Two implementations, same interface:

- `NativeThreadPool` (the default): the scheduler is a few functions of LLVM IR,
  JIT-compiled once, modelled on Taichi's `cpu_parallel_range_for` + ThreadPool. Its worker
  threads are Python threads that call into the native worker loop through ctypes (so
  they hold no GIL) and never come back until shutdown. A launch is one ctypes call on
  the calling thread: publish the job, wake sleeping workers, take chunks alongside the
  workers, wait for the last chunk. The chunks are split into one contiguous block a
  thread (the caller is thread 0, worker k is thread k): each thread runs its own block
  first, then takes what is left of the others', each block through an atomic cursor of
  its own. So the same range gives each thread the same indices launch after launch, and
  the data it touched is still in its own caches (OpenMP's static schedule, which
  Numba's parallel loops get: 2048^2 stencil steps run from the cores' caches on a
  16-core host), while a thread that wakes late or runs slow has its chunks taken by the
  others (a single shared counter, Taichi's scheme, hands out chunks in no fixed order).
  Workers spin for a while after a job before they sleep on a condition variable, so
  back-to-back launches find them awake. Needs pthreads.
- `PythonThreadPool`: one shared chunk counter in Python (itertools.count is atomic under
  the GIL) with one wake-up lock per worker; portable, but every worker must take the GIL
  for each chunk: 64 chunks on 16 threads cost ~300 us a launch against ~5 us for the
  native pool (a concurrent.futures pool: ~300 us too; bench/cpu_launch.py). Kept as the
  fallback where the native pool cannot be built, and for comparison.

Job protocol of the native pool (all atomics sequentially consistent):
    `seq` is a sequence lock: odd while the caller writes the job fields, even when a job is
    published. A worker that sees a new even `seq` increments `active`, re-checks `seq`, and
    only then takes chunks; the caller waits for `active == 0` before it rewrites the fields,
    so a worker that wakes late never reads a half-written job. The caller waits for
    `chunks_done == nchunks`, never for sleeping workers to wake up: a job that the caller
    finishes alone costs no wake-up latency. Sleep/wake and the caller's final wait use the
    store-then-load (Dekker) pattern on `sleepers` / `main_waiting` against `seq` /
    `chunks_done`, so no wake-up is lost.
"""

from __future__ import annotations

import atexit
import ctypes
import itertools
import os
import threading
from typing import Any, Protocol

from taichi_xdsl.targets.llvm.native_launch import launch_py_ir

TaskFunction = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32)
"""ctypes prototype of a task function `void(ptr ctx, i32 begin, i32 end)`."""


def default_num_threads() -> int:
    """The CPUs this process may run on (affinity-aware where the OS says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class ThreadPool(Protocol):
    num_threads: int

    def parallel_for(
        self, fn: Any, fn_address: int, ctx: int, begin: int, end: int, grain: int
    ) -> None:
        """Run `fn` (a TaskFunction; `fn_address` its address) over [begin, end)."""
        ...

    def shutdown(self) -> None: ...


class PythonThreadPool:
    """Worker threads driven from Python; see the module docstring."""

    def __init__(self, num_threads: int):
        self.num_threads = max(1, num_threads)
        self._busy = threading.Lock()
        self._done = threading.Lock()
        self._done.acquire()
        self._job: tuple[Any, ...] | None = None
        self._wakes: list[threading.Lock] = []
        self._threads: list[threading.Thread] = []
        for index in range(self.num_threads - 1):
            wake = threading.Lock()
            wake.acquire()
            thread = threading.Thread(
                target=self._worker, args=(wake,), name=f"ti-cpu-py-{index}", daemon=True
            )
            self._wakes.append(wake)
            self._threads.append(thread)
            thread.start()

    def _worker(self, wake: threading.Lock) -> None:
        done = self._done
        while True:
            wake.acquire()
            job = self._job
            if job is None:
                return
            fn, ctx, begin, end, grain, nchunks, chunks, finished, nworkers = job
            for chunk in chunks:
                if chunk >= nchunks:
                    break
                lo = begin + chunk * grain
                fn(ctx, lo, min(lo + grain, end))
            if next(finished) == nworkers - 1:
                done.release()

    def parallel_for(
        self, fn: Any, fn_address: int, ctx: int, begin: int, end: int, grain: int
    ) -> None:
        nchunks = -(-(end - begin) // grain)
        nworkers = min(len(self._wakes), nchunks - 1)
        if nworkers <= 0 or not self._busy.acquire(False):
            fn(ctx, begin, end)
            return
        try:
            chunks = itertools.count()
            self._job = (
                fn,
                ctx,
                begin,
                end,
                grain,
                nchunks,
                chunks,
                itertools.count(),
                nworkers,
            )
            for wake in self._wakes[:nworkers]:
                wake.release()
            for chunk in chunks:
                if chunk >= nchunks:
                    break
                lo = begin + chunk * grain
                fn(ctx, lo, min(lo + grain, end))
            self._done.acquire()
        finally:
            self._busy.release()

    def shutdown(self) -> None:
        with self._busy:
            self._job = None
            for wake in self._wakes:
                wake.release()
            for thread in self._threads:
                thread.join()
            self._threads.clear()
            self._wakes.clear()


# Byte offsets in the native pool's state; the hot counters sit on their own cache lines.
_SEQ, _CHUNKS_DONE, _ACTIVE = 0, 128, 192
_FN, _CTX, _BEGIN, _END, _GRAIN, _NCHUNKS = 256, 264, 272, 276, 280, 284
_SHUTDOWN, _MAIN_WAITING, _SLEEPERS, _SPIN, _NPARTS = 288, 292, 296, 304, 312
_MUTEX, _WORK_COND, _DONE_COND = 512, 640, 768
# pthread_mutex_t / pthread_cond_t get 128 bytes each (glibc: 40/48); then one 64-byte
# line a thread: the cursor (next chunk) of its block.
_CURSORS = 1024


def _pool_bytes(num_threads: int) -> int:
    """The pool state's size: the fixed fields, then one cursor line a thread."""
    return _CURSORS + 64 * num_threads

_NATIVE_POOL_IR = """
declare i32 @pthread_mutex_init(ptr, ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_init(ptr, ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare i32 @pthread_cond_signal(ptr)
declare i32 @sched_yield()
{pause_decl}

define private void @pause() {{
  {pause_call}
  ret void
}}

define private ptr @field(ptr %p, i64 %offset) alwaysinline {{
  %q = getelementptr i8, ptr %p, i64 %offset
  ret ptr %q
}}

define void @ti_pool_init(ptr %p, i64 %spin, i64 %nparts) {{
  %mutex = call ptr @field(ptr %p, i64 {mutex})
  %work = call ptr @field(ptr %p, i64 {work_cond})
  %done = call ptr @field(ptr %p, i64 {done_cond})
  call i32 @pthread_mutex_init(ptr %mutex, ptr null)
  call i32 @pthread_cond_init(ptr %work, ptr null)
  call i32 @pthread_cond_init(ptr %done, ptr null)
  %spinp = call ptr @field(ptr %p, i64 {spin})
  store i64 %spin, ptr %spinp
  %npartsp = call ptr @field(ptr %p, i64 {nparts})
  store i64 %nparts, ptr %npartsp
  ret void
}}

; The first chunk of thread `k`'s block: chunks split into `nparts` contiguous blocks.
define private i64 @block_start(i64 %k, i64 %nchunks, i64 %nparts) alwaysinline {{
  %x = mul i64 %k, %nchunks
  %start = udiv i64 %x, %nparts
  ret i64 %start
}}

define private ptr @cursor(ptr %p, i64 %k) alwaysinline {{
  %line = mul i64 %k, 64
  %offset = add i64 %line, {cursors}
  %q = getelementptr i8, ptr %p, i64 %offset
  ret ptr %q
}}

; Run chunks until none is left, own block first: thread `me` (the caller is 0) takes
; the chunks of its block in order, then those left in the other blocks (me+1, me+2,
; ...), each block through its own cursor. The same range on the same pool gives each
; thread the same indices launch after launch, so the data a thread touched stays in
; its own caches (OpenMP's static schedule); a late or slow thread's chunks are taken
; by the others. Signal the caller after the last chunk if it sleeps.
define private void @run_chunks(ptr %p, i64 %me) {{
entry:
  %fnp = call ptr @field(ptr %p, i64 {fn})
  %fn = load ptr, ptr %fnp
  %ctxp = call ptr @field(ptr %p, i64 {ctx})
  %ctx = load ptr, ptr %ctxp
  %beginp = call ptr @field(ptr %p, i64 {begin})
  %begin32 = load i32, ptr %beginp
  %begin = sext i32 %begin32 to i64
  %endp = call ptr @field(ptr %p, i64 {end})
  %end32 = load i32, ptr %endp
  %end = sext i32 %end32 to i64
  %grainp = call ptr @field(ptr %p, i64 {grain})
  %grain32 = load i32, ptr %grainp
  %grain = sext i32 %grain32 to i64
  %nchunksp = call ptr @field(ptr %p, i64 {nchunks})
  %nchunks32 = load i32, ptr %nchunksp
  %nchunks = sext i32 %nchunks32 to i64
  %npartsp = call ptr @field(ptr %p, i64 {nparts})
  %nparts = load i64, ptr %npartsp
  %donep = call ptr @field(ptr %p, i64 {chunks_done})
  br label %block
block:
  %v = phi i64 [ 0, %entry ], [ %v1, %next_block ]
  %more_blocks = icmp ult i64 %v, %nparts
  br i1 %more_blocks, label %open, label %exit
open:
  %k0 = add i64 %me, %v
  %wrap = icmp uge i64 %k0, %nparts
  %k1 = sub i64 %k0, %nparts
  %k = select i1 %wrap, i64 %k1, i64 %k0
  %k_next = add i64 %k, 1
  %stop = call i64 @block_start(i64 %k_next, i64 %nchunks, i64 %nparts)
  %cur = call ptr @cursor(ptr %p, i64 %k)
  ; a block already emptied is passed over with a load, not an atomic add on its line
  %peek = load atomic i64, ptr %cur monotonic, align 8
  %open_block = icmp slt i64 %peek, %stop
  br i1 %open_block, label %take, label %next_block
take:
  %chunk = atomicrmw add ptr %cur, i64 1 seq_cst
  %more = icmp slt i64 %chunk, %stop
  br i1 %more, label %run, label %next_block
next_block:
  %v1 = add i64 %v, 1
  br label %block
run:
  %offset = mul i64 %chunk, %grain
  %lo = add i64 %begin, %offset
  %lo_grain = add i64 %lo, %grain
  %short = icmp slt i64 %end, %lo_grain
  %hi = select i1 %short, i64 %end, i64 %lo_grain
  %lo32 = trunc i64 %lo to i32
  %hi32 = trunc i64 %hi to i32
  call void %fn(ptr %ctx, i32 %lo32, i32 %hi32)
  %before = atomicrmw add ptr %donep, i64 1 seq_cst
  %after = add i64 %before, 1
  %last = icmp eq i64 %after, %nchunks
  br i1 %last, label %check_main, label %take
check_main:
  %waitingp = call ptr @field(ptr %p, i64 {main_waiting})
  %waiting = load atomic i32, ptr %waitingp seq_cst, align 4
  %sleeps = icmp ne i32 %waiting, 0
  br i1 %sleeps, label %signal, label %take
signal:
  %mutex = call ptr @field(ptr %p, i64 {mutex})
  %cond = call ptr @field(ptr %p, i64 {done_cond})
  call i32 @pthread_mutex_lock(ptr %mutex)
  call i32 @pthread_cond_signal(ptr %cond)
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %take
exit:
  ret void
}}

; 1 when `seq` holds a published job other than `seen`.
define private i1 @new_job(i64 %seq, i64 %seen) alwaysinline {{
  %other = icmp ne i64 %seq, %seen
  %odd = and i64 %seq, 1
  %even = icmp eq i64 %odd, 0
  %new = and i1 %other, %even
  ret i1 %new
}}

define void @ti_pool_worker(ptr %p, i64 %me) {{
entry:
  %seqp = call ptr @field(ptr %p, i64 {seq})
  %activep = call ptr @field(ptr %p, i64 {active})
  %shutdownp = call ptr @field(ptr %p, i64 {shutdown})
  %sleepersp = call ptr @field(ptr %p, i64 {sleepers})
  %mutex = call ptr @field(ptr %p, i64 {mutex})
  %cond = call ptr @field(ptr %p, i64 {work_cond})
  %spinp = call ptr @field(ptr %p, i64 {spin})
  %spin = load i64, ptr %spinp
  br label %wait
wait:
  %seen = phi i64 [ 0, %entry ], [ %g, %job ], [ %g, %stale ], [ %seen, %woken ]
  br label %spin_loop
spin_loop:
  %spins = phi i64 [ 0, %wait ], [ %spins1, %spin_again ]
  %s = load atomic i64, ptr %seqp seq_cst, align 8
  %is_new = call i1 @new_job(i64 %s, i64 %seen)
  br i1 %is_new, label %got, label %spin_check
spin_check:
  %stop = load atomic i32, ptr %shutdownp seq_cst, align 4
  %stopping = icmp ne i32 %stop, 0
  br i1 %stopping, label %exit, label %spin_more
spin_more:
  %spins1 = add i64 %spins, 1
  %keep = icmp slt i64 %spins1, %spin
  br i1 %keep, label %spin_again, label %sleep
spin_again:
  call void @pause()
  br label %spin_loop
sleep:
  call i32 @pthread_mutex_lock(ptr %mutex)
  atomicrmw add ptr %sleepersp, i64 1 seq_cst
  br label %sleep_check
sleep_check:
  %s2 = load atomic i64, ptr %seqp seq_cst, align 8
  %is_new2 = call i1 @new_job(i64 %s2, i64 %seen)
  %stop2 = load atomic i32, ptr %shutdownp seq_cst, align 4
  %stopping2 = icmp ne i32 %stop2, 0
  %wake = or i1 %is_new2, %stopping2
  br i1 %wake, label %woken, label %sleep_wait
sleep_wait:
  call i32 @pthread_cond_wait(ptr %cond, ptr %mutex)
  br label %sleep_check
woken:
  atomicrmw sub ptr %sleepersp, i64 1 seq_cst
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %wait
got:
  %g = phi i64 [ %s, %spin_loop ]
  atomicrmw add ptr %activep, i64 1 seq_cst
  %s3 = load atomic i64, ptr %seqp seq_cst, align 8
  %current = icmp eq i64 %s3, %g
  br i1 %current, label %job, label %stale
job:
  call void @run_chunks(ptr %p, i64 %me)
  atomicrmw sub ptr %activep, i64 1 seq_cst
  br label %wait
stale:
  atomicrmw sub ptr %activep, i64 1 seq_cst
  br label %wait
exit:
  ret void
}}

define void @ti_pool_run(ptr %p, ptr %fn, ptr %ctx, i32 %begin, i32 %end, i32 %grain) {{
entry:
  %seqp = call ptr @field(ptr %p, i64 {seq})
  %activep = call ptr @field(ptr %p, i64 {active})
  %mutex = call ptr @field(ptr %p, i64 {mutex})
  %s = load atomic i64, ptr %seqp seq_cst, align 8
  %writing = add i64 %s, 1
  store atomic i64 %writing, ptr %seqp seq_cst, align 8
  br label %drain
drain:
  %drains = phi i64 [ 0, %entry ], [ %drains1, %drain_next ]
  %active = load atomic i64, ptr %activep seq_cst, align 8
  %busy = icmp ne i64 %active, 0
  br i1 %busy, label %drain_wait, label %publish
drain_wait:
  %drains1 = add i64 %drains, 1
  %patient = icmp slt i64 %drains, 1024
  br i1 %patient, label %drain_pause, label %drain_yield
drain_pause:
  call void @pause()
  br label %drain_next
drain_yield:
  ; a worker leaving the last job was preempted (more threads than cores): let it run
  call i32 @sched_yield()
  br label %drain_next
drain_next:
  br label %drain
publish:
  %fnp = call ptr @field(ptr %p, i64 {fn})
  store ptr %fn, ptr %fnp
  %ctxp = call ptr @field(ptr %p, i64 {ctx})
  store ptr %ctx, ptr %ctxp
  %beginp = call ptr @field(ptr %p, i64 {begin})
  store i32 %begin, ptr %beginp
  %endp = call ptr @field(ptr %p, i64 {end})
  store i32 %end, ptr %endp
  %grainp = call ptr @field(ptr %p, i64 {grain})
  store i32 %grain, ptr %grainp
  %begin64 = sext i32 %begin to i64
  %end64 = sext i32 %end to i64
  %grain64 = sext i32 %grain to i64
  %n = sub i64 %end64, %begin64
  %n1 = add i64 %n, %grain64
  %n2 = sub i64 %n1, 1
  %nchunks = sdiv i64 %n2, %grain64
  %nchunks32 = trunc i64 %nchunks to i32
  %nchunksp = call ptr @field(ptr %p, i64 {nchunks})
  store i32 %nchunks32, ptr %nchunksp
  %npartsp = call ptr @field(ptr %p, i64 {nparts})
  %nparts = load i64, ptr %npartsp
  br label %cursors
cursors:
  %k = phi i64 [ 0, %publish ], [ %k1, %cursors ]
  %cur = call ptr @cursor(ptr %p, i64 %k)
  %start = call i64 @block_start(i64 %k, i64 %nchunks, i64 %nparts)
  store atomic i64 %start, ptr %cur seq_cst, align 8
  %k1 = add i64 %k, 1
  %more_cursors = icmp ult i64 %k1, %nparts
  br i1 %more_cursors, label %cursors, label %reset_done
reset_done:
  %donep = call ptr @field(ptr %p, i64 {chunks_done})
  store atomic i64 0, ptr %donep seq_cst, align 8
  %published = add i64 %s, 2
  store atomic i64 %published, ptr %seqp seq_cst, align 8
  %sleepersp = call ptr @field(ptr %p, i64 {sleepers})
  %sleepers = load atomic i64, ptr %sleepersp seq_cst, align 8
  %any_sleeps = icmp ne i64 %sleepers, 0
  br i1 %any_sleeps, label %wake, label %work
wake:
  %cond = call ptr @field(ptr %p, i64 {work_cond})
  call i32 @pthread_mutex_lock(ptr %mutex)
  call i32 @pthread_cond_broadcast(ptr %cond)
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %work
work:
  call void @run_chunks(ptr %p, i64 0)
  %spinp = call ptr @field(ptr %p, i64 {spin})
  %spin = load i64, ptr %spinp
  br label %finish
finish:
  %spins = phi i64 [ 0, %work ], [ %spins1, %finish_spin ]
  %done = load atomic i64, ptr %donep seq_cst, align 8
  %all = icmp eq i64 %done, %nchunks
  br i1 %all, label %exit, label %finish_more
finish_more:
  %spins1 = add i64 %spins, 1
  %keep = icmp slt i64 %spins1, %spin
  br i1 %keep, label %finish_spin, label %finish_sleep
finish_spin:
  call void @pause()
  br label %finish
finish_sleep:
  %waitingp = call ptr @field(ptr %p, i64 {main_waiting})
  %done_cond = call ptr @field(ptr %p, i64 {done_cond})
  call i32 @pthread_mutex_lock(ptr %mutex)
  store atomic i32 1, ptr %waitingp seq_cst, align 4
  br label %finish_check
finish_check:
  %done2 = load atomic i64, ptr %donep seq_cst, align 8
  %all2 = icmp eq i64 %done2, %nchunks
  br i1 %all2, label %finish_woken, label %finish_wait
finish_wait:
  call i32 @pthread_cond_wait(ptr %done_cond, ptr %mutex)
  br label %finish_check
finish_woken:
  store atomic i32 0, ptr %waitingp seq_cst, align 4
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %exit
exit:
  ret void
}}

define void @ti_pool_shutdown(ptr %p) {{
  %shutdownp = call ptr @field(ptr %p, i64 {shutdown})
  %mutex = call ptr @field(ptr %p, i64 {mutex})
  %cond = call ptr @field(ptr %p, i64 {work_cond})
  call i32 @pthread_mutex_lock(ptr %mutex)
  store atomic i32 1, ptr %shutdownp seq_cst, align 4
  call i32 @pthread_cond_broadcast(ptr %cond)
  call i32 @pthread_mutex_unlock(ptr %mutex)
  ret void
}}

; Run the tasks of a kernel whose tasks are all serial, in order, on this thread: one
; native call a launch instead of one ctypes call a task. The job record is
; {{i64 ntasks, ptr ctx, ptr error_code, ptr task[ntasks]}} (SERIAL_JOB_* below); the
; result is 0, or the error record's code word as soon as a task has set it.
define i64 @ti_run_serial(ptr %job) {{
entry:
  %n = load i64, ptr %job
  %ctxp = getelementptr i8, ptr %job, i64 8
  %ctx = load ptr, ptr %ctxp
  %codepp = getelementptr i8, ptr %job, i64 16
  %codep = load ptr, ptr %codepp
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %next, %ok ]
  %more = icmp slt i64 %k, %n
  br i1 %more, label %call, label %done
call:
  %slot = add i64 %k, 3
  %fnp = getelementptr i64, ptr %job, i64 %slot
  %fn = load ptr, ptr %fnp
  call void %fn(ptr %ctx, i32 0, i32 1)
  %code = load volatile i64, ptr %codep
  %next = add i64 %k, 1
  %failed = icmp ne i64 %code, 0
  br i1 %failed, label %fail, label %ok
ok:
  br label %loop
fail:
  ret i64 %code
done:
  ret i64 0
}}
"""

SERIAL_JOB_HEADER_WORDS = 3
"""Words of a `ti_run_serial` job record before its task addresses (ntasks, ctx, error)."""


def _pause_instruction(triple: str | None = None) -> tuple[str, str]:
    """The spin-wait hint of `triple` (x86 `pause`, AArch64 `yield`; None: the host)."""
    if triple is None:
        from taichi_xdsl.targets.llvm.jit import host_target

        triple = host_target().triple
    arch = triple.split("-", 1)[0]
    if arch in ("x86_64", "i386", "i686"):
        return "declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"
    if arch in ("aarch64", "arm64"):
        return "declare void @llvm.aarch64.hint(i32)", "call void @llvm.aarch64.hint(i32 1)"
    return "", ""


_native_functions: dict[str, Any] | None = None
_native_lock = threading.Lock()
_object_cache: Any = None
"""An OfflineCache (utils/cache.py) that keeps the pool's compiled code across
processes (`use_offline_cache`), or None: compile it in each process."""


def use_offline_cache(cache: Any) -> None:
    """
    Keep the native pool's object code in an offline cache, so that a later process
    loads it instead of compiling it (some 50 ms at -O2): the backend with an offline
    cache calls this. The pool is runtime code, not a kernel: it goes to a directory of
    its own (`runtime_cache_dir`, beside the default kernel cache) with `cache`'s
    size policy, not among a program's kernels. The first call wins.
    """
    global _object_cache
    if _object_cache is None:
        from taichi_xdsl.utils.cache import OfflineCache

        _object_cache = OfflineCache(
            runtime_cache_dir(),
            max_bytes=cache.max_bytes,
            cleaning_policy=cache.cleaning_policy,
            cleaning_factor=cache.cleaning_factor,
        )


def runtime_cache_dir() -> Any:
    """Where the pool's code is cached: `runtime` beside the default kernel cache."""
    from taichi_xdsl.utils.cache import default_cache_dir

    return default_cache_dir().parent / "runtime"


def _native_pool_functions() -> dict[str, Any]:
    """JIT the native pool's IR once; ctypes callables by name."""
    global _native_functions
    with _native_lock:
        if _native_functions is None:
            _native_functions = _bind_native_functions(_compiled_pool())
        return _native_functions


def _compiled_pool() -> Any:
    """The pool's JitModule: from the offline cache when one is set and holds it."""
    from taichi_xdsl.targets.llvm import jit

    cache = _object_cache
    if cache is None:
        return jit.compile_ir(native_pool_ir(), opt_level=2, fast_math=False)
    from llvmlite import binding
    from taichi_xdsl.utils.cache import cache_key

    host = jit.host_target()
    ir = native_pool_ir()
    key = cache_key(
        kind="native-pool",
        ir=ir,
        arch=f"cpu:{host.triple}",
        caps=f"{host.cpu};{host.features}",
        llvm=binding.llvm_version_info,
        config="opt_level=2;fast_math=False",
    )
    entry = cache.load(key)
    if entry is not None:
        try:
            return jit.load_object(entry.payload)
        except RuntimeError:
            cache.discard(key)
    code = jit.compile_object(ir, opt_level=2, fast_math=False)
    cache.store(key, {"kind": "native-pool"}, code)
    cache.flush()  # now: a program's end is not the pool's
    return jit.load_object(code)


def native_pool_ir(triple: str | None = None) -> str:
    """The native pool's LLVM IR for `triple` (None: the host)."""
    pause_decl, pause_call = _pause_instruction(triple)
    return _NATIVE_POOL_IR.format(
        pause_decl=pause_decl,
        pause_call=pause_call,
        seq=_SEQ, chunks_done=_CHUNKS_DONE, active=_ACTIVE, nparts=_NPARTS,
        cursors=_CURSORS,
        fn=_FN, ctx=_CTX, begin=_BEGIN, end=_END, grain=_GRAIN, nchunks=_NCHUNKS,
        shutdown=_SHUTDOWN, main_waiting=_MAIN_WAITING, sleepers=_SLEEPERS,
        spin=_SPIN, mutex=_MUTEX, work_cond=_WORK_COND, done_cond=_DONE_COND,
    ) + launch_py_ir()  # fmt: skip


def _bind_native_functions(module: Any) -> dict[str, Any]:
    vp, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
    prototypes = {
        "ti_pool_init": ctypes.CFUNCTYPE(None, vp, i64, i64),
        "ti_pool_worker": ctypes.CFUNCTYPE(None, vp, i64),
        "ti_pool_run": ctypes.CFUNCTYPE(None, vp, vp, vp, i32, i32, i32),
        "ti_pool_shutdown": ctypes.CFUNCTYPE(None, vp),
    }
    functions: dict[str, Any] = {
        name: proto(module.address(name)) for name, proto in prototypes.items()
    }
    try:  # absent from the pool object of an AOT module written before it existed
        functions["ti_run_serial"] = ctypes.CFUNCTYPE(i64, vp)(module.address("ti_run_serial"))
    except KeyError:
        functions["ti_run_serial"] = None
    try:  # likewise: the native Python entry of serial kernels (native_launch.py)
        functions["ti_launch_py"] = module.address("ti_launch_py")
    except KeyError:
        functions["ti_launch_py"] = None
    try:  # likewise: the direct entry of such kernels (native_launch.py's DirectCall)
        functions["ti_kernel_call"] = module.address("ti_kernel_call")
    except KeyError:
        functions["ti_kernel_call"] = None
    functions["module"] = module
    return functions


def serial_runner() -> Any:
    """
    The native `ti_run_serial(job) -> error code` (a ctypes function; see the pool's IR),
    or None where the native pool cannot be built: the runtime then calls each task
    through its own ctypes function.
    """
    try:
        return _native_pool_functions()["ti_run_serial"]
    except Exception:  # noqa: BLE001 - no JIT, no pthreads: the Python path still works
        return None


def launch_py_entry() -> int | None:
    """The address of the pool's `ti_launch_py` (native_launch.py), or None."""
    try:
        return _native_pool_functions()["ti_launch_py"]
    except Exception:  # noqa: BLE001 - no JIT, no pthreads: the Python path still works
        return None


def kernel_call_entry() -> int | None:
    """The address of the pool's `ti_kernel_call` (native_launch.py), or None."""
    try:
        return _native_pool_functions()["ti_kernel_call"]
    except Exception:  # noqa: BLE001 - no JIT, no pthreads: the Python path still works
        return None


def install_native_pool(module: Any) -> bool:
    """
    Use the already-compiled pool code in `module` (a JitModule defining the ti_pool_*
    functions, e.g. loaded from an AOT module's object) instead of JIT-compiling the pool's
    IR: what lets an AOT-loaded kernel run without the compiler. False if a pool was
    already set up (its code stays).
    """
    global _native_functions
    with _native_lock:
        if _native_functions is not None:
            return False
        _native_functions = _bind_native_functions(module)
        return True


DEFAULT_SPIN = 1 << 14
"""Spin-wait iterations (x86 `pause`) before a worker sleeps: roughly 0.1-1 ms."""


class NativeThreadPool:
    """Worker threads running the JIT-compiled scheduler; see the module docstring."""

    def __init__(self, num_threads: int, spin: int = DEFAULT_SPIN):
        self.num_threads = max(1, num_threads)
        functions = _native_pool_functions()
        self._module = functions["module"]  # keeps the machine code alive
        self._run = functions["ti_pool_run"]
        self._shutdown_fn = functions["ti_pool_shutdown"]
        self._state = (ctypes.c_uint64 * (_pool_bytes(self.num_threads) // 8))()
        self._address = ctypes.addressof(self._state)
        functions["ti_pool_init"](self._address, spin, self.num_threads)
        self._busy = threading.Lock()
        worker = functions["ti_pool_worker"]
        self._threads = [
            threading.Thread(
                target=worker,
                args=(self._address, index + 1),
                name=f"ti-cpu-{index}",
                daemon=True,
            )
            for index in range(self.num_threads - 1)
        ]
        for thread in self._threads:
            thread.start()

    def parallel_for(
        self, fn: Any, fn_address: int, ctx: int, begin: int, end: int, grain: int
    ) -> None:
        if not self._threads or not self._busy.acquire(False):
            # No workers, or another Python thread is using the pool: run here.
            fn(ctx, begin, end)
            return
        try:
            self._run(self._address, fn_address, ctx, begin, end, grain)
        finally:
            self._busy.release()

    def shutdown(self) -> None:
        with self._busy:
            if not self._threads:
                return
            self._shutdown_fn(self._address)
            for thread in self._threads:
                thread.join()
            self._threads = []


_pools: dict[tuple[str, int], ThreadPool] = {}
_pools_lock = threading.Lock()


def get_pool(num_threads: int | None = None, kind: str = "native") -> ThreadPool:
    """
    The process-wide pool of `num_threads` threads (the calling thread counts as one).

    Args:
        num_threads: threads that run a parallel loop; None: `default_num_threads()`.
        kind: "native" (falls back to "python" where pthreads are missing) or "python".
    """
    threads = num_threads or default_num_threads()
    key = (kind, threads)
    pool = _pools.get(key)
    if pool is None:
        with _pools_lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _make_pool(kind, threads)
                _pools[key] = pool
    return pool


def _make_pool(kind: str, threads: int) -> ThreadPool:
    if kind == "native":
        try:
            return NativeThreadPool(threads)
        except (RuntimeError, KeyError, OSError):
            kind = "python"  # no pthreads in this process: the portable pool
    if kind == "python":
        return PythonThreadPool(threads)
    raise ValueError(f"unknown thread pool kind '{kind}'")


def shutdown_pools() -> None:
    """Stop every pool's threads (at exit, and in tests)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown()


def _forget_pools_after_fork() -> None:
    # A forked child has the pools' memory but none of their threads.
    _pools.clear()


atexit.register(shutdown_pools)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools_after_fork)
