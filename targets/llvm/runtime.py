"""
The CPU runtime: launches the tasks of a compiled kernel, following utils/abi.py.

A kernel reaches the runtime as a `LaunchPlan` (plain data: argument kinds, return types,
tasks in order with their bounds, buffer sizes) plus the machine-code address of each task
function. Nothing here imports xDSL or the compiler, so AOT-loaded kernels can use it too.

    plan = LaunchPlan(
        name="saxpy",
        args=(ScalarArg("f32"), NdarrayArg("f32", 1)),
        returns=(),
        tasks=(TaskSpec("saxpy__task0", "range_for", Bound(0), Bound(gtmp_offset=0)),),
        gtmp_bytes=4,
    )
    kernel = Kernel(plan, jit_module.address, keepalive=jit_module)
    kernel.launch(root, (2.0, x))

Launch path (everything it touches is built once per kernel in `Kernel.__init__`):
1. take the kernel's buffers (RuntimeContext, arguments, returns, global temporaries, error
   record); a launch from a second Python thread while they are in use gets its own set;
2. write the root pointer and the arguments (ctypes views on the argument buffer; an
   ndarray's pointer is cached while the same array object comes back);
3. run the tasks in order: a serial task is one call `fn(ctx, 0, 1)`; a range_for reads its
   bounds (constants, or global temporaries that an earlier task wrote) just before it
   runs, skips an empty range, runs a single-chunk range on the calling thread and hands
   a larger one to the thread pool (targets/llvm/pool.py); a range_for with atomics has a
   serial form without them (ti-add-serial-forms), which runs what the calling thread
   runs alone, and a whole range when timing shows it faster (SerialOrParallel);
4. after each task, look at the error record (debug-mode bounds checks and asserts);
5. read the return values.
ctypes drops the GIL for each foreign call, so chunks run in parallel.
"""

from __future__ import annotations

import ctypes
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import numpy as np

from taichi_xdsl.targets.llvm.pool import (
    SERIAL_JOB_HEADER_WORDS,
    TaskFunction,
    ThreadPool,
    default_num_threads,
    get_pool,
    kernel_call_entry,
    launch_py_entry,
    serial_runner,
)
from taichi_xdsl.targets.llvm.native_launch import FAILED, DirectCall, native_launcher
from taichi_xdsl.utils import abi
from taichi_xdsl.utils.errors import (
    TaichiAssertionError,
    TaichiError,
    TaichiRuntimeError,
    TaichiRuntimeTypeError,
    TaichiTypeError,
    SITE_SHIFT,
    out_of_bounds_error,
)
from taichi_xdsl.utils.print_format import render_assert

_CTYPES: dict[str, Any] = {
    "i1": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "f16": ctypes.c_uint16,  # bits; converted through struct "e"
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
    "index": ctypes.c_int64,
}
"""The ctypes view of one scalar slot. Integers are signless: writes wrap, reads are signed."""

_RETURN_CTYPES: dict[str, Any] = {"i1": ctypes.c_uint8}
"""Return slots read differently from argument slots (i1 reads as the int 0 or 1)."""


@dataclass(frozen=True)
class ScalarArg:
    """A scalar kernel argument of IR type `dtype` (8 bytes in the argument buffer)."""

    dtype: str


@dataclass(frozen=True)
class NdarrayArg:
    """An ndarray kernel argument: `ndim`-d, elements of IR type `dtype`."""

    dtype: str
    ndim: int


ArgSpec = ScalarArg | NdarrayArg


@dataclass(frozen=True)
class Bound:
    """A range_for bound: the constant `value`, or the global temporary at `gtmp_offset`."""

    value: int | None = None
    gtmp_offset: int | None = None
    dtype: str = "i32"


@dataclass(frozen=True)
class TaskSpec:
    """One task of a kernel, in launch order."""

    symbol: str
    kind: Literal["serial", "range_for"]
    begin: Bound | None = None
    end: Bound | None = None
    block_dim: int | None = None
    index_cost: int = 1
    """Iterations of serial inner loops that one index of a range_for runs (1: none known;
    rows of a split n-d loop, an n-body's inner loop): chunking counts n * index_cost."""
    serial_symbol: str | None = None
    """A range_for's form without atomics (ti-add-serial-forms), for a launch that runs
    the whole range on the calling thread; None: the task has none."""


@dataclass(frozen=True)
class LaunchPlan:
    """Everything the runtime needs to know about a kernel besides its machine code."""

    name: str
    args: tuple[ArgSpec, ...]
    returns: tuple[str, ...]
    tasks: tuple[TaskSpec, ...]
    gtmp_bytes: int = 0
    thread_local_bytes: int = 0


def adaptive_grain(
    n: int,
    num_threads: int,
    block_dim: int | None = None,
    coarse: bool = False,
    index_cost: int = 1,
) -> int:
    """
    Indices per chunk of a parallel range of `n` indices.

    About 8 chunks a thread, at least 512 and at most 65536 indices a chunk; an explicit
    `block_dim` (ti.loop_config) wins. Taichi's cpu_block_dim_adaptive caps chunks at 1024
    indices: on 16 threads a 2^24-element saxpy then hands out 16384 chunks through one
    atomic counter, whose cache line bounces between the cores. `coarse` (for a pool
    whose chunks are expensive to hand out) asks for about 4 chunks a thread. An index
    that runs `index_cost` inner iterations counts as that many: 2046 rows of 2046
    elements are 2046 * 2046 elements to split, not 2046 (four chunks of 512 rows).
    """
    if block_dim:
        return block_dim
    work = n * index_cost
    if coarse:
        grain = max(512, -(-work // (num_threads * 4)))
    else:
        grain = min(65536, max(512, work // (num_threads * 8)))
    return max(1, grain // index_cost)


class SerialOrParallel:
    """
    Which form of a range_for that has a serial form (ti-add-serial-forms) runs faster
    on this machine: the parallel one, whose atomics make each thread slower, or the
    serial one, without atomics, on the calling thread alone. A particle-to-grid scatter
    with 27 float atomics a particle runs 4.4x faster without them on one core: on two
    cores the serial form wins, on sixteen the parallel one. Neither a core count nor an
    instruction count says which (contention between threads depends on the data), so the
    runtime times them: a trial runs PROBES launches of each form, alternating, and keeps
    each form's best time per index; the faster form then runs for the next RUN launches,
    and another trial follows, so a choice made while the machine was busy does not
    stay. A probe of the serial form times it on one thread's share of the range (then
    runs the rest in parallel), so that trying it costs little where it is much slower.
    Both forms compute the same thing (the serial form sums in index order; the atomics
    of the parallel one in any order).
    """

    PROBES = 3
    RUN = 1000

    __slots__ = ("best", "left", "probes", "serial")

    def __init__(self) -> None:
        self.serial = False
        self.left = 0
        """Launches of the chosen form before the next trial."""
        self.probes = 0
        """Launches of the current trial so far."""
        self.best = [float("inf"), float("inf")]
        """The current trial's best nanoseconds per index: [parallel, serial]."""

    def next_probe_is_serial(self) -> bool:
        return self.probes % 2 == 1

    def record(self, serial: bool, ns_per_index: float) -> None:
        """Note a probe's time; at the end of a trial, choose."""
        best = self.best
        best[serial] = min(best[serial], ns_per_index)
        self.probes += 1
        if self.probes >= 2 * self.PROBES:
            self.serial = best[1] < best[0]
            self.left = self.RUN
            self.probes = 0
            self.best = [float("inf"), float("inf")]


class _Buffers:
    """One launch's memory: RuntimeContext and the buffers it points at, plus their views."""

    def __init__(self, plan: LaunchPlan):
        offsets = abi.arg_offsets(
            [arg.ndim if isinstance(arg, NdarrayArg) else None for arg in plan.args]
        )
        arg_bytes = max(8, offsets[-1] + _arg_bytes(plan.args[-1]) if plan.args else 8)
        self.offsets = offsets
        self.ctx = (ctypes.c_uint64 * (abi.CTX_BYTES // 8))()
        self.args = (ctypes.c_uint64 * (arg_bytes // 8))()
        self.returns = (ctypes.c_uint64 * max(1, len(plan.returns)))()
        self.gtmps = (ctypes.c_uint64 * max(1, -(-plan.gtmp_bytes // 8)))()
        self.error = (ctypes.c_int64 * (abi.ERROR_RECORD_BYTES // 8))()
        self.ctx_address = ctypes.addressof(self.ctx)
        ctx_words = self.ctx
        ctx_words[abi.CTX_GLOBAL_TMPS // 8] = ctypes.addressof(self.gtmps)
        ctx_words[abi.CTX_RETURNS // 8] = ctypes.addressof(self.returns)
        ctx_words[abi.CTX_ARGS // 8] = ctypes.addressof(self.args)
        ctx_words[abi.CTX_ERROR // 8] = ctypes.addressof(self.error)
        self.root: object = None
        self.setters = [
            self._setter(index, arg, offset)
            for index, (arg, offset) in enumerate(zip(plan.args, offsets))
        ]
        self.return_views = [
            _RETURN_CTYPES.get(dtype, _CTYPES[dtype]).from_buffer(
                self.returns, abi.RETURN_SLOT_BYTES * index
            )
            for index, dtype in enumerate(plan.returns)
        ]
        self.bound_views = {
            (bound.gtmp_offset, bound.dtype): _CTYPES[bound.dtype].from_buffer(
                self.gtmps, bound.gtmp_offset
            )
            for task in plan.tasks
            for bound in (task.begin, task.end)
            if bound is not None and bound.gtmp_offset is not None
        }

    serial_job: int = 0
    """The address of this launch's `ti_run_serial` job record, or 0 (no native runner)."""

    def add_serial_job(self, task_addresses: Sequence[int]) -> None:
        """Write the job record of pool.py's `ti_run_serial` for these buffers."""
        words = SERIAL_JOB_HEADER_WORDS
        job = (ctypes.c_uint64 * (words + len(task_addresses)))()
        job[0] = len(task_addresses)
        job[1] = self.ctx_address
        job[2] = ctypes.addressof(self.error)
        job[words:] = task_addresses
        self._job = job  # held: the record lives as long as the buffers
        self.serial_job = ctypes.addressof(job)

    def set_root(self, root: object) -> None:
        if root is None:
            address = 0
        elif isinstance(root, np.ndarray) and root.flags.c_contiguous:
            address = root.ctypes.data
        else:
            raise TaichiTypeError("the root buffer must be a C-contiguous numpy array")
        self.ctx[abi.CTX_ROOT // 8] = address
        self.root = root  # held, so `is` keeps meaning the same memory

    def _setter(self, index: int, arg: ArgSpec, offset: int) -> Callable[[object], None]:
        if isinstance(arg, ScalarArg):
            if arg.dtype == "f16":
                return partial(_set_f16, self.args, offset)
            if arg.dtype not in _CTYPES:
                raise TaichiTypeError(f"unsupported scalar argument type {arg.dtype}")
            view = _CTYPES[arg.dtype].from_buffer(self.args, offset)
            return partial(setattr, view, "value")
        return _NdarraySetter(index, arg, self.args, offset)


def _arg_bytes(arg: ArgSpec) -> int:
    if isinstance(arg, NdarrayArg):
        return abi.ndarray_arg_bytes(arg.ndim)
    return abi.SCALAR_ARG_BYTES


_F16 = struct.Struct("<e")


def _set_f16(buffer: Any, offset: int, value: object) -> None:
    _F16.pack_into(buffer, offset, value)


_NOTHING = object()
"""No array yet (None is a value a caller may pass by mistake)."""


class _NdarraySetter:
    """Writes an ndarray argument (pointer + shape); remembers the last array it checked."""

    __slots__ = (
        "dtype",
        "index",
        "itemsize",
        "kinds",
        "last",
        "pointer",
        "shape",
        "shape_of",
        "spec",
    )

    def __init__(self, index: int, spec: NdarrayArg, buffer: Any, offset: int):
        self.index = index
        self.spec = spec
        self.kinds, self.itemsize = abi.NUMPY_KINDS[spec.dtype]
        self.pointer = ctypes.c_uint64.from_buffer(buffer, offset)
        self.shape = (ctypes.c_int64 * spec.ndim).from_buffer(buffer, offset + 8)
        self.last: object = _NOTHING
        self.shape_of: tuple[int, ...] = ()
        self.dtype: object = None

    def __call__(self, array: Any) -> None:
        if (
            array is self.last
            and array.shape == self.shape_of
            and array.dtype is self.dtype
        ):
            return
        self._check(array)
        self.pointer.value = array.ctypes.data
        self.shape[:] = array.shape
        self.last = array
        self.shape_of = array.shape
        self.dtype = array.dtype

    def _check(self, array: Any) -> None:
        spec = self.spec
        where = f"argument {self.index}"
        if not isinstance(array, np.ndarray):
            raise TaichiTypeError(
                f"{where} must be a numpy.ndarray ({spec.ndim}-d {spec.dtype}), "
                f"got {type(array).__name__}"
            )
        dtype = array.dtype
        if dtype.kind not in self.kinds or dtype.itemsize != self.itemsize:
            raise TaichiTypeError(
                f"{where} expects an ndarray of {spec.dtype} elements, got dtype {dtype}"
            )
        if array.ndim != spec.ndim:
            raise TaichiTypeError(
                f"{where} expects a {spec.ndim}-d ndarray, got {array.ndim}-d "
                f"(shape {array.shape})"
            )
        if not array.flags.c_contiguous:
            raise ValueError(
                "Non contiguous numpy arrays are not supported, please call "
                "np.ascontiguousarray(arr) before passing it into taichi kernel."
            )


class Kernel:
    """
    A compiled kernel ready to launch: `kernel.launch(root, args) -> tuple`.

    The IR is signless: a scalar argument is stored modulo 2**bits (so an unsigned value
    keeps its bits), and integer return values read back signed; the caller reinterprets
    unsigned ones.

    Args:
        plan: the kernel's launch plan.
        address_of: maps a task symbol to its machine-code address; a serial form's
            (TaskSpec.serial_symbol) is asked for on the launch that first runs it.
        keepalive: whatever owns the machine code (a JitModule); held as long as the kernel.
        num_threads: threads of the pool that runs parallel loops (None: every CPU).
        pool_kind: "native" or "python" (see targets/llvm/pool.py).
    """

    def __init__(
        self,
        plan: LaunchPlan,
        address_of: Callable[[str], int],
        *,
        keepalive: object = None,
        num_threads: int | None = None,
        pool_kind: str = "native",
    ):
        self.plan = plan
        self.name = plan.name
        self._keepalive = keepalive
        self.num_threads = num_threads or default_num_threads()
        self._pool_kind = pool_kind
        self._nargs = len(plan.args)
        self._has_f16_return = "f16" in plan.returns
        addresses = [address_of(task.symbol) for task in plan.tasks]
        self._tasks = [
            self._make_task(task, address, address_of)
            for task, address in zip(plan.tasks, addresses)
        ]
        # A kernel of serial tasks alone runs them in one native call (pool.py's
        # ti_run_serial) on a job record per set of buffers: a ctypes call costs about
        # as much as the rest of a small launch.
        self._serial_addresses: list[int] | None = None
        self._run_serial: Any = None
        if pool_kind == "native" and all(task.kind == "serial" for task in plan.tasks):
            self._run_serial = serial_runner()
            if self._run_serial is not None:
                self._serial_addresses = addresses
        self._buffers = self._new_buffers()
        # ... and a kernel of serial tasks with scalar arguments alone is one call of a
        # builtin function (native_launch.py), on buffers of its own.
        self._native = None
        if self._serial_addresses is not None:
            self._native = native_launcher(
                plan, self._new_buffers(), self._buffers.offsets, launch_py_entry()
            )
        self.native_call: Callable[[object, tuple], Any] | None = (
            None if self._native is None else self._native.call
        )
        """The native launcher's builtin, or None: `native_call(root, args)` returns the
        tuple of return values like `launch`, or something else (the launch was declined
        or failed) that the caller hands to `after_native` with the same arguments."""
        # The kernel's own buffers while no launch uses them: a launch pops them (a
        # list's pop and append are atomic under the GIL, and cost a sixth of a Lock's
        # acquire(False) + release); one that finds the list empty runs while another
        # Python thread launches this kernel, on a private set.
        self._free = [self._buffers]
        self.launch = self._fast_launch()  # type: ignore[method-assign]

    # -- launching --------------------------------------------------------------------

    def launch(self, root: np.ndarray | None, args: Sequence[object]) -> tuple[Any, ...]:
        """
        Run the kernel once.

        Args:
            root: the root buffer (a 1-D C-contiguous uint8 numpy array), or None.
            args: one value per kernel argument: Python scalars, numpy arrays for ndarrays.

        Returns:
            One Python scalar per kernel return value.

        Raises:
            TaichiTypeError: an argument does not match the kernel's signature.
            TaichiIndexAssertionError, TaichiAssertionError: a debug-mode check failed.
        """
        if len(args) != self._nargs:
            raise TaichiTypeError(
                f"kernel '{self.name}' takes {self._nargs} argument(s), got {len(args)}"
            )
        try:
            buffers = self._free.pop()
        except IndexError:  # another Python thread is launching this kernel
            return self._launch(self._new_buffers(), root, args)
        try:
            return self._launch(buffers, root, args)
        finally:
            self._free.append(buffers)

    __call__ = launch

    def _fast_launch(self) -> Callable[[object, Sequence[object]], tuple[Any, ...]]:
        """
        `launch` written out for this kernel's own buffers, one statement per argument,
        task and return value (a loop over setters and views costs more than the
        stores it makes); anything unusual (another thread launching, a new root, a
        failing argument) goes to the generic path, which says what is wrong:

            def launch(root, args):
                if len(args) != 1 or root is not buffers.root:
                    return generic(root, args)
                try:
                    take()
                except IndexError:
                    return generic(root, args)
                try:
                    try:
                        arg0.value = args[0]
                    except (TypeError, OverflowError, struct.error):
                        return generic(root, args)
                    if run_serial(0x55d0c0ffee00):
                        raise_error(buffers)
                    return ()
                finally:
                    give_back(buffers)
        """
        if self._native is not None:
            return self._native_fast_launch()
        buffers = self._buffers
        scope: dict[str, Any] = {
            "buffers": buffers,
            "generic": self._generic_launch,
            "take": self._free.pop,
            "give_back": self._free.append,
            "raise_error": self._raise_error,
            "struct": struct,
        }
        lines = [
            "def launch(root, args):",
            f"    if len(args) != {self._nargs} or root is not buffers.root:",
            "        return generic(root, args)",
            "    try:",
            "        take()",
            "    except IndexError:",
            "        return generic(root, args)",
            "    try:",
            "        try:",
        ]
        for index, (spec, setter) in enumerate(zip(self.plan.args, buffers.setters)):
            if isinstance(spec, ScalarArg) and spec.dtype != "f16":
                scope[f"arg{index}"] = setter.args[0]  # partial(setattr, view, "value")
                lines.append(f"            arg{index}.value = args[{index}]")
            else:
                scope[f"set{index}"] = setter
                lines.append(f"            set{index}(args[{index}])")
        lines += [
            "            pass",
            "        except (TypeError, OverflowError, struct.error):",
            "            return generic(root, args)",
        ]
        if buffers.serial_job:
            scope["run_serial"] = self._run_serial
            lines += [
                f"        if run_serial({buffers.serial_job:#x}):",
                "            raise_error(buffers)",
            ]
        else:
            scope["error"] = buffers.error
            for index, task in enumerate(self._tasks):
                scope[f"task{index}"] = task
                lines += [
                    f"        task{index}(buffers, {buffers.ctx_address:#x})",
                    "        if error[0]:",
                    "            raise_error(buffers)",
                ]
        if self._has_f16_return:
            scope["read_returns"] = self._read_returns_f16
            lines.append("        return read_returns(buffers)")
        else:
            for index, view in enumerate(buffers.return_views):
                scope[f"ret{index}"] = view
            values = "".join(f"ret{i}.value, " for i in range(len(buffers.return_views)))
            lines.append(f"        return ({values})")
        lines += ["    finally:", "        give_back(buffers)"]
        exec("\n".join(lines), scope)  # noqa: S102 - code of our own, from the plan
        return scope["launch"]

    def _native_fast_launch(self) -> Callable[[object, Sequence[object]], tuple[Any, ...]]:
        """`launch` through the native launcher; what it declines takes the ctypes path."""
        native_call = self._native.call
        missed = self.after_native

        def launch(root: object, args: Sequence[object]) -> tuple[Any, ...]:
            result = native_call(root, args)
            if result.__class__ is tuple:
                return result
            return missed(result, root, args)

        return launch

    def after_native(self, result: object, root: object, args: Sequence[object]) -> tuple:
        """After `native_call(root, args)` returned `result` (not a tuple): raise the error
        a task recorded, or point the launcher at a new root and retry, or take the ctypes
        path. Returns what `launch` would."""
        native = self._native
        if result is FAILED:
            self._raise_error(native.buffers)
        if root is not native.buffers.root and (
            root is None or isinstance(root, np.ndarray) and root.flags.c_contiguous
        ):
            native.set_root(root)
            result = native.call(root, args)
            if result.__class__ is tuple:
                return result
            if result is FAILED:
                self._raise_error(native.buffers)
        return Kernel.launch(self, root, args)

    def direct_call(
        self, epoch_at: int, fallback: Callable[..., Any], general: Callable[..., Any]
    ) -> DirectCall | None:
        """
        A direct entry of this kernel (native_launch.py's DirectCall: a builtin to be the
        kernel object's `__call__`, declining to `fallback` or `general`), or None where
        there is no native launcher or no `ti_kernel_call`. Its calls return what
        `launch` would, unpacked as `Kernel.__call__` returns them.
        """
        entry = kernel_call_entry()
        if self._native is None or entry is None:
            return None
        failed = partial(self._raise_error, self._native.buffers)
        return self._native.direct_call(entry, epoch_at, fallback, general, failed)

    def _generic_launch(self, root: np.ndarray | None, args: Sequence[object]) -> tuple:
        return Kernel.launch(self, root, args)

    def _new_buffers(self) -> _Buffers:
        buffers = _Buffers(self.plan)
        if self._serial_addresses is not None:
            buffers.add_serial_job(self._serial_addresses)
        return buffers

    def _launch(self, buffers: _Buffers, root: object, args: Sequence[object]) -> tuple:
        if root is not buffers.root:
            buffers.set_root(root)
        try:
            for setter, value in zip(buffers.setters, args):
                setter(value)
        except (TypeError, OverflowError, struct.error) as error:
            if isinstance(error, TaichiTypeError):
                raise
            raise self._argument_error(args) from error
        if buffers.serial_job:
            if self._run_serial(buffers.serial_job):
                self._raise_error(buffers)
        else:
            ctx = buffers.ctx_address
            error = buffers.error
            for task in self._tasks:
                task(buffers, ctx)
                if error[0]:
                    self._raise_error(buffers)
        if self._has_f16_return:
            return self._read_returns_f16(buffers)
        return tuple([view.value for view in buffers.return_views])

    def _read_returns_f16(self, buffers: _Buffers) -> tuple[Any, ...]:
        return tuple(
            _F16.unpack(struct.pack("<H", view.value))[0] if dtype == "f16" else view.value
            for dtype, view in zip(self.plan.returns, buffers.return_views)
        )

    def _make_task(
        self, spec: TaskSpec, address: int, address_of: Callable[[str], int]
    ) -> Callable[[_Buffers, int], None]:
        fn = TaskFunction(address)
        if spec.kind == "serial":
            return lambda buffers, ctx: fn(ctx, 0, 1)
        if spec.kind != "range_for" or spec.begin is None or spec.end is None:
            raise TaichiRuntimeError(f"task '{spec.symbol}': unknown kind '{spec.kind}'")
        # A range that runs on this thread alone runs the form without atomics, if any.
        # Its machine code is looked up when first needed: a CpuKernel compiles its
        # serial forms then (targets/llvm/serial_forms.py), so a kernel whose ranges
        # always go to the pool never compiles them.
        serial_symbol = spec.serial_symbol

        def ready_alone() -> Callable[[int, int, int], None]:
            nonlocal alone
            if alone is first_alone:
                assert serial_symbol is not None
                alone = TaskFunction(address_of(serial_symbol))
            return alone

        def first_alone(ctx: int, lo: int, hi: int) -> None:
            ready_alone()(ctx, lo, hi)

        alone: Callable[[int, int, int], None] = fn if serial_symbol is None else first_alone
        begin, end, block_dim = spec.begin, spec.end, spec.block_dim
        cost = 1 if block_dim else spec.index_cost
        threads = self.num_threads
        # Every chunk costs the Python pool a GIL round trip: give it few, large chunks.
        coarse = self._pool_kind == "python"
        # Ranges of at most this many indices are one chunk: run them right here.
        serial_up_to = (1 << 31) if threads == 1 else max(0, (block_dim or 512) // cost)
        lo_key = None if begin.gtmp_offset is None else (begin.gtmp_offset, begin.dtype)
        hi_key = None if end.gtmp_offset is None else (end.gtmp_offset, end.dtype)
        lo_const, hi_const = begin.value, end.value

        def run_range(ctx: int, lo: int, hi: int) -> None:
            n = hi - lo
            if n <= serial_up_to:
                if n > 0:
                    alone(ctx, lo, hi)
                return
            grain = adaptive_grain(n, threads, block_dim, coarse, cost)
            self.pool.parallel_for(fn, address, ctx, lo, hi, grain)

        def run_range_for(buffers: _Buffers, ctx: int) -> None:
            lo = lo_const if lo_key is None else buffers.bound_views[lo_key].value
            hi = hi_const if hi_key is None else buffers.bound_views[hi_key].value
            run_range(ctx, lo, hi)

        if serial_symbol is None or threads == 1:  # no serial form, or no other thread
            return run_range_for
        choice = SerialOrParallel()
        clock = time.perf_counter_ns

        def run_faster_form(buffers: _Buffers, ctx: int) -> None:
            lo = lo_const if lo_key is None else buffers.bound_views[lo_key].value
            hi = hi_const if hi_key is None else buffers.bound_views[hi_key].value
            if choice.left:  # the common case: the form the last trial chose
                choice.left -= 1
                if not choice.serial:
                    run_range(ctx, lo, hi)
                elif hi > lo:
                    alone(ctx, lo, hi)
                return
            if hi - lo <= serial_up_to:
                run_range(ctx, lo, hi)  # one chunk: the serial form anyway
                return
            if choice.next_probe_is_serial():
                # The serial form on a thread's share of the range, then the parallel
                # form on the rest, one after the other (never at once: the serial form
                # has no atomics): a probe costs about one launch even where the serial
                # form is many times slower.
                mid = lo + max(1, (hi - lo) // threads)
                ready_alone()  # a first use compiles it: not part of the probe's time
                start = clock()
                alone(ctx, lo, mid)
                choice.record(True, (clock() - start) / (mid - lo))
                run_range(ctx, mid, hi)
            else:
                start = clock()
                run_range(ctx, lo, hi)
                choice.record(False, (clock() - start) / (hi - lo))

        return run_faster_form

    @property
    def pool(self) -> ThreadPool:
        """The process-wide pool (looked up each time: a forked child gets a new one)."""
        return get_pool(self.num_threads, self._pool_kind)

    # -- errors -----------------------------------------------------------------------

    def _argument_error(self, args: Sequence[object]) -> TaichiError:
        for index, (spec, value) in enumerate(zip(self.plan.args, args)):
            if isinstance(spec, ScalarArg) and not abi.scalar_fits(spec.dtype, value):
                return TaichiRuntimeTypeError(
                    f"Argument ({index},) (type={type(value)}) cannot be converted into "
                    f"required type {spec.dtype}: kernel '{self.name}' argument {index} "
                    f"expects a {spec.dtype} scalar, got {value!r} ({type(value).__name__})"
                )
        return TaichiTypeError(f"kernel '{self.name}': bad arguments {list(args)!r}")

    def _raise_error(self, buffers: _Buffers) -> None:
        code, first, second, third = buffers.error
        buffers.error[:] = (0, 0, 0, 0)
        if code == abi.ERROR_INDEX_OUT_OF_BOUNDS:
            address = first >> SITE_SHIFT  # of the access's `file:line:column` text
            site = ctypes.string_at(address).decode("utf-8", "replace") if address else ""
            raise out_of_bounds_error(self.name, first, second, third, site)
        if code == abi.ERROR_ASSERTION:
            message = ctypes.string_at(first).decode("utf-8", "replace") if first else ""
            message = render_assert(message, [second, third])
            raise TaichiAssertionError(
                message or f"assertion failed in kernel '{self.name}'"
            )
        raise TaichiRuntimeError(f"kernel '{self.name}': runtime error code {code}")


