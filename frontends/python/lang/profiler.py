"""
`ti.profiler`: the kernel profiler (`ti.init(kernel_profiler=True)`) and the compile-time
(scoped) profiler.

With the kernel profiler on, every launch of a kernel is timed: the wall time from the
launch until its results are in memory (a Vulkan launch is waited for, so the time is the
device's work plus the submit, not the time to queue it). Records carry the kernel's name
(Taichi's name its offloaded tasks `<kernel>_c<n>_<i>_kernel_<j>_<kind>`; a query by the
kernel's name, as Taichi's docs show, matches either):

    ti.init(arch=ti.cpu, kernel_profiler=True)
    fill()
    ti.profiler.print_kernel_profiler_info()          # count mode: one line a kernel
    ti.profiler.print_kernel_profiler_info("trace")   # one line a launch
    r = ti.profiler.query_kernel_profiler_info(fill.__name__)   # r.counter, r.min/avg/max (ms)

The scoped profiler reports where compile time went: per kernel instance, the time of
each stage and pass of the pipeline (the same records as `ti.init(print_pass_times=True)`).
"""

from __future__ import annotations

import re
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = [
    "KernelProfilerQueryResult",
    "clear_kernel_profiler_info",
    "clear_scoped_profiler_info",
    "collect_kernel_profiler_metrics",
    "get_kernel_profiler_total_time",
    "print_kernel_profiler_info",
    "print_memory_profiler_info",
    "print_scoped_profiler_info",
    "query_kernel_profiler_info",
    "set_kernel_profiler_metrics",
    "set_kernel_profiler_toolkit",
]


@dataclass
class KernelProfilerQueryResult:
    """Launches of the kernels a query matched: their number and times in milliseconds."""

    counter: int = 0
    min: float = 0.0
    max: float = 0.0
    avg: float = 0.0


@dataclass
class _Launch:
    name: str
    start: float  # seconds, perf_counter
    seconds: float


@dataclass
class _Records:
    launches: list[_Launch] = field(default_factory=list)
    compiles: list[tuple[str, list[tuple[str, float]]]] = field(default_factory=list)


_records = _Records()


def _profiler_on() -> bool:
    from . import program as _program

    prog = _program._current
    return prog is not None and bool(prog.config.kernel_profiler)


def _warn_off() -> bool:
    """Taichi's warning when the profiler is used but not turned on; True if it is off."""
    if _profiler_on():
        return False
    warnings.warn(
        "use 'ti.init(kernel_profiler = True)' to turn on KernelProfiler.", stacklevel=3
    )
    return True


# -- hooks the kernel launcher calls ------------------------------------------------------


def timed_launcher(prog: Any, name: str, run: Callable[[tuple[Any, ...]], Any]) -> Any:
    """`run` recording each launch's wall time; Vulkan launches are waited for."""
    backend = prog.backend
    wait = getattr(backend, "sync", None)
    launches = _records.launches
    clock = time.perf_counter

    def profiled(args: tuple[Any, ...]) -> Any:
        start = clock()
        result = run(args)
        if wait is not None:
            wait()
        launches.append(_Launch(name, start, clock() - start))
        return result

    return profiled


def record_compile(name: str, stages: list[tuple[str, float]]) -> None:
    """A kernel instance's compile: (stage or pass, seconds) in pipeline order."""
    _records.compiles.append((name, list(stages)))


def reset() -> None:
    """A new ti.init: records of the old program go (Taichi's profiler is per program)."""
    _records.launches.clear()
    _records.compiles.clear()


# -- the kernel profiler ------------------------------------------------------------------


def _statistics() -> list[tuple[str, int, float, float, float]]:
    """(name, count, total, min, max) per kernel name, seconds, in first-launch order."""
    stats: dict[str, list[float]] = {}
    for launch in _records.launches:
        entry = stats.setdefault(launch.name, [0, 0.0, float("inf"), 0.0])
        entry[0] += 1
        entry[1] += launch.seconds
        entry[2] = min(entry[2], launch.seconds)
        entry[3] = max(entry[3], launch.seconds)
    return [(n, int(c), t, lo, hi) for n, (c, t, lo, hi) in stats.items()]


def _arch_name() -> str:
    from . import program as _program

    prog = _program._current
    return str(prog.config.arch).upper() if prog is not None else "?"


def print_kernel_profiler_info(mode: str = "count") -> None:
    """Print the launches' times: `count` (a line a kernel, by total time) or `trace`."""
    if _warn_off():
        return
    if mode not in ("count", "trace"):
        raise ValueError(f"print_kernel_profiler_info: mode must be 'count' or 'trace', got {mode!r}")
    if mode == "count":
        stats = sorted(_statistics(), key=lambda s: -s[2])
        total = sum(s[2] for s in stats)
        rule = "=" * 73
        print(rule)
        print(f"Kernel Profiler(count, default) @ {_arch_name()} ")
        print(rule)
        print("[      %     total   count |      min       avg       max   ] Kernel name")
        print("-" * 73)
        for name, count, seconds, lo, hi in stats:
            share = 100.0 * seconds / total if total else 0.0
            print(
                f"[{share:6.2f}% {seconds:7.3f} s {count:6d}x |{lo * 1e3:9.3f} "
                f"{seconds / count * 1e3:9.3f} {hi * 1e3:9.3f} ms] {name}"
            )
        print("-" * 73)
        print(f"[100.00%] Total execution time: {total:7.3f} s   number of results: {len(stats)}")
        print(rule)
        return
    launches = _records.launches
    origin = launches[0].start if launches else 0.0
    rule = "=" * 41
    print(rule)
    print(f"Kernel Profiler(trace, default) @ {_arch_name()} ")
    print(rule)
    print("[  start.time | kernel.time ] Kernel name")
    print("-" * 41)
    for launch in launches:
        print(
            f"[{(launch.start - origin) * 1e3:9.3f} ms |{launch.seconds * 1e3:9.3f} ms ] "
            f"{launch.name}"
        )
    print("-" * 41)
    print(f"Number of records: {len(launches):3d}")
    print(rule)


def query_kernel_profiler_info(name: str) -> KernelProfilerQueryResult | None:
    """Launch count and min / avg / max milliseconds of the kernels named `name...`."""
    if _warn_off():
        return None
    pattern = re.compile(re.escape(name) + "(.*)")
    result = KernelProfilerQueryResult()
    for kernel, count, seconds, lo, hi in _statistics():
        if not pattern.fullmatch(kernel):
            continue
        if result.counter == 0:
            result = KernelProfilerQueryResult(count, lo * 1e3, hi * 1e3, seconds / count * 1e3)
        elif result.counter == count:  # Taichi sums the tasks of one kernel
            result.min += lo * 1e3
            result.max += hi * 1e3
            result.avg += seconds / count * 1e3
        else:
            warnings.warn(f"{name}.counter({result.counter}) != {kernel}.counter({count}).")
    return result


def clear_kernel_profiler_info() -> None:
    """Forget the launches recorded so far."""
    if _warn_off():
        return
    _records.launches.clear()


def get_kernel_profiler_total_time() -> float | None:
    """The recorded launches' total time, in seconds."""
    if _warn_off():
        return None
    return sum(launch.seconds for launch in _records.launches)


def set_kernel_profiler_toolkit(toolkit_name: str = "default") -> bool:
    """Only the `default` toolkit (wall time per launch) exists here; CUPTI is CUDA's."""
    if _warn_off():
        return False
    if toolkit_name == "default":
        return True
    warnings.warn(
        f"kernel profiler toolkit {toolkit_name!r} is not available (CUPTI needs CUDA); "
        "keeping 'default'",
        stacklevel=2,
    )
    return False


def set_kernel_profiler_metrics(metric_list: Any = None) -> None:
    """Hardware counters (CUPTI metrics) need CUDA: a warning, nothing is collected."""
    if _warn_off():
        return
    warnings.warn(
        "kernel profiler metrics are CUPTI counters of CUDA: not collected on this arch",
        stacklevel=2,
    )


class collect_kernel_profiler_metrics:  # noqa: N801 (Taichi's name, used as a context)
    """`with ti.profiler.collect_kernel_profiler_metrics(...)`: see set_kernel_profiler_metrics."""

    def __init__(self, metric_list: Any = None):
        set_kernel_profiler_metrics(metric_list)

    def __enter__(self) -> collect_kernel_profiler_metrics:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


# -- the scoped (compile-time) profiler and memory ----------------------------------------


def print_scoped_profiler_info() -> None:
    """Compile time per kernel instance, by pipeline stage and pass."""
    grand = 0.0
    print(">" * 80)
    for name, stages in _records.compiles:
        total = sum(seconds for _, seconds in stages)
        grand += total
        print(f"{total * 1e3:10.3f} ms compile {name}")
        for stage, seconds in stages:
            share = 100.0 * seconds / total if total else 0.0
            print(f"    {seconds * 1e3:10.3f} ms {share:6.2f}%  {stage}")
    print(f"{grand * 1e3:10.3f} ms in {len(_records.compiles)} compile(s)")
    print(">" * 80)


def clear_scoped_profiler_info() -> None:
    """Forget the compile records."""
    _records.compiles.clear()


def print_memory_profiler_info() -> None:
    """The memory the program's fields hold: the root buffer of each field tree."""
    from . import program as _program

    prog = _program._current
    print("\n[Memory Profiler]")
    if prog is None:
        print("no program (call ti.init)")
        return
    root = getattr(prog, "_root", None)
    size = 0 if root is None else int(root.nbytes)
    print(f"fields (root buffer): {size} bytes")
