"""
Where the time of a Vulkan launch goes: per-dispatch GPU timestamps of each bench case,
and the memory-bound loop tasks re-dispatched over other group counts.

    python bench/vulkan_profile.py                  # every case
    python bench/vulkan_profile.py --cases saxpy,reduce --calls 200 --spirv-dir /tmp/spv
    python bench/vulkan_profile.py --cases nbody --no-variants --serial-unroll 4

For each case (bench/cases/<case>.py, run under taichi_xdsl on Vulkan): the host wall time
a call (calls back to back, one sync at the end), and per task (entry point) the median GPU
time of its dispatch (vkCmdWriteTimestamp pairs: each spans one command, barrier drain
included). `--spirv-dir` also writes each task's SPIR-V binary (<case>.<entry>.spv). Then
the loop tasks of copy, saxpy, reduce and stencil dispatched over other group counts, and
a vkCmdCopyBuffer of 64 MiB.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
CASES = ("saxpy", "reduce", "julia", "nbody", "stencil", "mpm88", "launch", "copy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--spirv-dir", default=None)
    parser.add_argument(
        "--unroll", type=int, default=None, help="convert-offload-to-spirv's unroll"
    )
    parser.add_argument(
        "--serial-unroll",
        type=int,
        default=None,
        help="copies of serial inner loop bodies (ti-unroll-loops' factor; SERIAL_UNROLL)",
    )
    parser.add_argument(
        "--drop",
        default="",
        help="passes to leave out of the pipeline, comma-separated (ti.init(passes={'drop': ...}))",
    )
    parser.add_argument(
        "--no-variants", action="store_true", help="skip the group-count variants"
    )
    options = parser.parse_args()
    sys.path.insert(0, str(HERE.parent.parent))
    import taichi_xdsl as ti
    from taichi_xdsl.targets.vulkan import backend as vulkan_backend

    compiled: list[Any] = []
    original = vulkan_backend.VulkanBackend.compile

    def compile_and_keep(self: Any, module: Any, name: str, **kw: Any) -> Any:
        kernel = original(self, module, name, **kw)
        compiled.append(kernel)
        return kernel

    vulkan_backend.VulkanBackend.compile = compile_and_keep  # type: ignore[method-assign]
    if options.unroll is not None:
        vulkan_backend.UNROLL = options.unroll
        print(f"unroll={options.unroll}")
    if options.serial_unroll is not None:
        vulkan_backend.SERIAL_UNROLL = options.serial_unroll
        print(f"serial unroll={options.serial_unroll}")
    drop = [name for name in options.drop.split(",") if name]
    if drop:
        print(f"without {', '.join(drop)}")
    ti.init(
        arch=ti.vulkan,
        default_fp=ti.f32,
        offline_cache=False,
        passes={"drop": drop} if drop else None,
    )
    from taichi_xdsl.frontends.python.lang import program

    rt = program.get_program().backend.runtime
    print(f"device: {rt.caps.name}, subgroup {rt.caps.subgroup_size}")
    launched: dict[str, tuple[Any, list[Any], int]] = {}
    real_launch = rt.launch

    def launch_and_note(kernel: Any, buffers: Any = (), group_count: Any = 1, **kw: Any):
        launched[kernel.entry] = (kernel, list(buffers), group_count)
        return real_launch(kernel, buffers, group_count, **kw)

    rt.launch = launch_and_note  # type: ignore[method-assign]
    rt.enable_timestamps(capacity=16384)
    spirv_dir = Path(options.spirv_dir) if options.spirv_dir else None
    if spirv_dir:
        spirv_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    keep = []  # each case's namespace: its arrays stay bound for the variants below
    for case in [c for c in options.cases.split(",") if c]:
        path = HERE / "cases" / f"{case}.py"
        namespace: dict[str, Any] = {"ti": ti, "np": np, "__name__": f"bench_case_{case}"}
        first = len(compiled)
        keep.append(namespace)
        exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
        step = namespace["step"]
        calls = int(namespace.get("CALLS", 1))
        for _ in range(3):
            step()
        rt.take_timestamps()
        steps = options.calls if calls == 1 else max(1, options.calls // 50)
        start = time.perf_counter()
        for _ in range(steps):
            step()
        ti.sync()
        wall = (time.perf_counter() - start) / (steps * calls)
        per_task: dict[str, list[float]] = defaultdict(list)
        for name, seconds in rt.take_timestamps():
            per_task[name].append(seconds)
        gpu_total = sum(sum(v) for v in per_task.values()) / (steps * calls)
        line = f"{case:8s} wall {wall * 1e6:9.2f} us/call  gpu {gpu_total * 1e6:9.2f} us/call"
        tasks = "; ".join(
            f"{name} x{len(v) // steps} {statistics.median(v) * 1e6:.2f} us"
            for name, v in per_task.items()
        )
        print(f"{line}  [{tasks}]", flush=True)
        rows.append((case, wall, gpu_total, tasks))
        if spirv_dir:
            for kernel in compiled[first:]:
                for task, binary in zip(kernel.plan.tasks, kernel.binaries):
                    (spirv_dir / f"{case}.{task.symbol}.spv").write_bytes(binary)
    if not options.no_variants:
        variants(rt, launched, options.calls)


def variants(rt: Any, launched: dict[str, tuple[Any, list[Any], int]], calls: int) -> None:
    """The loop tasks of copy, saxpy, reduce and stencil at other group counts."""
    sms = 132
    for entry in ("copy__task1", "saxpy__task1", "reduce__task1", "stencil__task0"):
        if entry not in launched:
            continue
        kernel, buffers, groups = launched[entry]
        print(f"{entry}: default {groups} groups x {kernel.local_size}")
        # The grid-stride step is NumWorkgroups.x * LocalSize, the LocalSize baked in: only
        # the group count varies here.
        if entry.startswith("reduce"):
            counts = [256, 1024, sms * 8, 4096, sms * 64, 16384]
        else:
            counts = [sms * 8, sms * 16, 4096, sms * 64, 32768, 131072]
        limit = rt.caps.max_compute_work_group_count[0]
        out = []
        try:
            rt.launch(kernel, buffers, groups)
        except ValueError as error:  # a buffer of its last launch went back to the pool
            print(f"  skipped: {error}", flush=True)
            rt.take_timestamps()
            continue
        for count in [c for c in counts if c <= limit]:
            for _ in range(calls // 4 + 1):
                rt.launch(kernel, buffers, count)
            times = [s for _, s in rt.take_timestamps()]
            out.append(f"{count}: {statistics.median(times) * 1e6:.2f}")
        print("  " + ", ".join(out) + " (groups: us)", flush=True)
    # vkCmdCopyBuffer of 64 MiB, for reference
    a, b = rt.allocate(4 << 24), rt.allocate(4 << 24)
    for _ in range(calls):
        rt.copy(a, b)
    times = [s for _, s in rt.take_timestamps()]
    med = statistics.median(times)
    print(f"vkCmdCopyBuffer 64 MiB: {med * 1e6:.2f} us, {2 * (4 << 24) / med / 1e9:.0f} GB/s r+w")


if __name__ == "__main__":
    main()
