"""
One measurement in a fresh process: `python bench/worker.py SPEC_JSON` prints one JSON
line. bench/run.py starts it once per (case, framework, arch, round), under the Python
that has the framework (taichi_xdsl in ours, Taichi and Numba in the rivals'
environment), so that the two `ti` modules never meet in one process.

SPEC: {"framework": "xdsl" | "taichi" | "taichi-cuda" | "numba" | "triton" | "copyref",
       "arch": "cpu" | "vulkan" ("taichi-cuda" runs Taichi on arch cuda instead of vulkan),
       "case": name, "samples": int, "min_sample_s": float, "cache": "off" | DIR,
       "threads": int | null, "preload": bool (ours: load the compiler before timing),
       ours only: "passes": ti.init(passes=...), "pass_plugins": [file.py, ...],
       "case_file": a case file outside bench/cases (bench/passes.py)}

The case's source (bench/cases/<case>.py) is compiled with its real file name (so that
`inspect.getsource` finds the kernels) and run with `ti` bound to `taichi` or
`taichi_xdsl` and `np` to numpy.

Result: {"import_s", "init_s", "setup_s", "first_s" (first step, compile + run, synced),
"steady_s" (seconds a call, one entry a sample), "calls" (calls a step), "bytes" (bytes
a call or null), "check" (a sample of the result after the first step), "error"}.
Only this process's own work is timed; nothing here imports the other framework.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
COPY_BYTES = 4 << 24  # the copy reference copies 64 MiB (saxpy's array size)


def bus_bytes(read: int | None, written: int | None, arch: str) -> int | None:
    """
    Bytes the memory bus carries for a call that reads `read` bytes and writes `written`:
    on CPU a store first reads its cache line (write-allocate), so a written byte counts
    twice; an NVIDIA GPU writes whole sectors without reading them (H200, torch: fill 236
    us, sum 257, copy 508, saxpy 747 on 1 GiB arrays; bench/results/h200-s6-bytes-probe.txt).
    """
    if read is None or written is None:
        return None
    return read + written * (2 if arch == "cpu" else 1)


def _import_ti(framework: str) -> Any:
    if framework in ("taichi", "taichi-cuda"):
        import taichi as ti
    else:
        import taichi_xdsl as ti
    return ti


def _init(
    ti: Any,
    framework: str,
    arch: str,
    cache: str,
    threads: int | None,
    passes: dict[str, Any] | None = None,
    pass_plugins: list[str] | None = None,
) -> None:
    if framework == "taichi-cuda":
        arch = "cuda"
    kwargs: dict[str, Any] = {"arch": getattr(ti, arch), "default_fp": ti.f32}
    for plugin in pass_plugins or ():
        ti.compiler.load_pass_plugin(plugin)
    if passes:
        kwargs["passes"] = passes
    if threads:
        kwargs["cpu_max_num_threads"] = threads
    if cache == "off":
        kwargs["offline_cache"] = False
    else:
        kwargs["offline_cache"] = True
        kwargs["offline_cache_file_path"] = cache
    if framework != "xdsl":
        kwargs["log_level"] = ti.WARN
    ti.init(**kwargs)
    if framework != "xdsl" and arch != "cpu":
        actual = str(ti.lang.impl.current_cfg().arch)
        if arch not in actual:
            raise RuntimeError(f"Taichi fell back to {actual} (no {arch})")


WARMUP_S = 0.5
"""Seconds of calls before the samples: an idle GPU runs at a low clock (an H200 at 345 of
1980 MHz) and ramps up over a fraction of a second of work, so samples taken at once
measure short launches at the low clock (stencil on Vulkan: 36 us a call with 50 ms
samples, 20 us with 1 s ones; bench/results/h200-session5-probes.txt). Every framework
gets the same warm-up."""
WARMUP_RUN = 64
"""The most calls back to back between two syncs of the warm-up (1, 2, 4, ... up to
this). A sync after every call leaves a GPU idle for the round trip between short
launches, too little load to raise its clock: an H100's stencil samples then fell from
23.8 to 19.7 us a call across the five samples that followed (its task takes 14.3 us of
GPU time; bench/results/h100-s9-host-and-knobs.txt)."""


def _sampler(
    step: Any, sync: Any, calls: int, samples: int, min_sample_s: float, reset: Any = None
):
    """Seconds a call: calls for WARMUP_S (at least one), then `samples` samples of >=
    min_sample_s each. `reset` (a case whose step changes its own input, as a sort does:
    RESET_EACH_CALL) runs before every call, outside the timed span: each call sees the
    same input."""
    if reset is not None:
        reset()
        sync()
    start = time.perf_counter()
    step()
    sync()
    once = max(time.perf_counter() - start, 1e-7)
    warm_until = start + WARMUP_S
    run = 1  # calls back to back between syncs, doubling: the device is kept busy
    while time.perf_counter() < warm_until:
        if reset is not None:  # each call its own input: one call a sync
            reset()
            run = 1
        start = time.perf_counter()
        for _ in range(run):
            step()
        sync()
        once = min(once, max((time.perf_counter() - start) / run, 1e-7))
        run = min(2 * run, WARMUP_RUN)
    reps = max(1, int(min_sample_s / once))
    out = []
    for _ in range(samples):
        if reset is None:
            start = time.perf_counter()
            for _ in range(reps):
                step()
            sync()
            out.append((time.perf_counter() - start) / (reps * calls))
            continue
        spent = 0.0
        for _ in range(reps):
            reset()
            sync()
            start = time.perf_counter()
            step()
            sync()
            spent += time.perf_counter() - start
        out.append(spent / (reps * calls))
    return out


def _check(value: Any) -> list[float]:
    import numpy as np

    return [float(v) for v in np.asarray(value, dtype=np.float64).ravel()[:4096]]


def run_ti(spec: dict[str, Any]) -> dict[str, Any]:
    framework, arch = spec["framework"], spec["arch"]
    result: dict[str, Any] = {}
    start = time.perf_counter()
    ti = _import_ti(framework)
    result["import_s"] = time.perf_counter() - start
    import numpy as np

    start = time.perf_counter()
    _init(
        ti,
        framework,
        arch,
        spec["cache"],
        spec.get("threads"),
        spec.get("passes"),
        spec.get("pass_plugins"),
    )
    result["init_s"] = time.perf_counter() - start
    if spec.get("preload") and framework == "xdsl":
        # Load what every process pays once (xDSL, the frontend's dialects, the backend:
        # the Vulkan device, or llvmlite and the thread pool), so that the first call
        # shows this kernel's cost.
        start = time.perf_counter()
        import taichi_xdsl.frontends.python.codegen.visitor  # noqa: F401
        from taichi_xdsl.frontends.python.lang import program

        program.get_program().backend  # noqa: B018 - created for its imports
        if arch == "cpu":
            from taichi_xdsl.targets.llvm import jit
            from taichi_xdsl.targets.llvm.pool import default_num_threads, get_pool

            jit.host_target()
            get_pool(spec.get("threads") or default_num_threads(), "native")
        result["preload_s"] = time.perf_counter() - start
    path = Path(spec.get("case_file") or HERE / "cases" / f"{spec['case']}.py")
    namespace: dict[str, Any] = {
        "ti": ti,
        "np": np,
        "__name__": f"bench_case_{spec['case']}",
    }
    start = time.perf_counter()
    code = compile(path.read_text(), str(path), "exec", dont_inherit=True)
    exec(code, namespace)  # noqa: S102
    ti.sync()
    result["setup_s"] = time.perf_counter() - start
    step, sync = namespace["step"], ti.sync
    start = time.perf_counter()
    step()
    sync()
    result["first_s"] = time.perf_counter() - start
    result["check"] = _check(namespace["result"]())
    if "expected" in namespace:
        result["expected"] = _check(namespace["expected"]())
    calls = int(namespace.get("CALLS", 1))
    result["calls"] = calls
    result["bytes"] = bus_bytes(namespace.get("READ_BYTES"), namespace.get("WRITE_BYTES"), spec["arch"])
    result["steady_s"] = _sampler(
        step, sync, calls, spec["samples"], spec["min_sample_s"],
        namespace.get("reset") if namespace.get("RESET_EACH_CALL") else None,
    )
    return result


def run_numba(spec: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    start = time.perf_counter()
    import numba

    sys.path.insert(0, str(HERE))
    import numba_cases

    result["import_s"] = time.perf_counter() - start
    if spec.get("threads"):
        numba.set_num_threads(spec["threads"])
    result["init_s"] = 0.0
    start = time.perf_counter()
    step, read, _reset = getattr(numba_cases, f"make_{spec['case']}")()
    result["setup_s"] = time.perf_counter() - start
    start = time.perf_counter()
    step()
    result["first_s"] = time.perf_counter() - start
    result["check"] = _check(read())
    namespace = _case_constants(spec["case"])
    calls = int(namespace.get("CALLS", 1))
    result["calls"] = calls
    result["bytes"] = bus_bytes(namespace.get("READ_BYTES"), namespace.get("WRITE_BYTES"), spec["arch"])
    result["steady_s"] = _sampler(
        step, lambda: None, calls, spec["samples"], spec["min_sample_s"]
    )
    return result


def run_triton(spec: dict[str, Any]) -> dict[str, Any]:
    """The Triton version of a case (bench/triton_cases.py) on the CUDA device."""
    result: dict[str, Any] = {}
    start = time.perf_counter()
    sys.path.insert(0, str(HERE))
    import triton_cases

    result["import_s"] = time.perf_counter() - start
    result["init_s"] = 0.0
    maker = getattr(triton_cases, f"make_{spec['case']}", None)
    if maker is None:
        raise NotImplementedError(f"no Triton version of '{spec['case']}'")
    start = time.perf_counter()
    step, read, sync = maker()
    sync()
    result["setup_s"] = time.perf_counter() - start
    start = time.perf_counter()
    step()
    sync()
    result["first_s"] = time.perf_counter() - start
    result["check"] = _check(read())
    namespace = _case_constants(spec["case"])
    calls = int(namespace.get("CALLS", 1))
    result["calls"] = calls
    result["bytes"] = bus_bytes(namespace.get("READ_BYTES"), namespace.get("WRITE_BYTES"), spec["arch"])
    result["steady_s"] = _sampler(step, sync, calls, spec["samples"], spec["min_sample_s"])
    return result


def _case_constants(case: str) -> dict[str, Any]:
    """READ_BYTES, WRITE_BYTES and CALLS of a case file, read without running its kernels."""
    import ast

    tree = ast.parse((HERE / "cases" / f"{case}.py").read_text())
    names: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.isupper():
                try:
                    names[target.id] = eval(
                        compile(ast.Expression(node.value), "<case>", "eval"),
                        {},
                        dict(names),
                    )
                except Exception:  # noqa: BLE001, S112 - not a plain constant: skipped
                    continue
    return names


def _torch_cuda() -> bool:
    """Whether torch with a CUDA device is here (then it gives the GPU copy reference:
    vkCmdCopyBuffer runs far below the copy bandwidth a kernel reaches on NVIDIA GPUs)."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def run_copyref(spec: dict[str, Any]) -> dict[str, Any]:
    """The copy bandwidth the memory-bound cases are held against (same run, same size)."""
    import numpy as np

    result: dict[str, Any] = {"import_s": 0.0, "init_s": 0.0, "setup_s": 0.0, "calls": 1}
    result["bytes"] = bus_bytes(COPY_BYTES, COPY_BYTES, spec["arch"])
    if spec["arch"] == "cpu":
        from concurrent.futures import ThreadPoolExecutor

        threads = spec.get("threads") or len(os.sched_getaffinity(0))
        src = np.ones(COPY_BYTES // 4, dtype=np.float32)
        dst = np.zeros_like(src)
        bounds = np.linspace(0, src.size, threads + 1).astype(int)
        pool = ThreadPoolExecutor(threads)

        def part(k: int) -> None:
            np.copyto(dst[bounds[k] : bounds[k + 1]], src[bounds[k] : bounds[k + 1]])

        def step() -> None:
            list(pool.map(part, range(threads)))

        sync = lambda: None
        result["what"] = f"numpy copyto on {threads} threads"
    elif _torch_cuda():
        import torch

        src = torch.ones(COPY_BYTES // 4, dtype=torch.float32, device="cuda")
        dst = torch.zeros_like(src)

        def step() -> None:
            dst.copy_(src)

        sync = torch.cuda.synchronize
        result["what"] = f"torch copy_ on {torch.cuda.get_device_name()}"
    else:
        from taichi_xdsl.targets.vulkan import VulkanRuntime

        rt = VulkanRuntime()
        a, b = rt.allocate(COPY_BYTES, zero=True), rt.allocate(COPY_BYTES, zero=True)

        def step() -> None:
            rt.copy(a, b)

        sync = rt.sync
        result["what"] = f"vkCmdCopyBuffer, {rt!r}"
    start = time.perf_counter()
    step()
    sync()
    result["first_s"] = time.perf_counter() - start
    result["check"] = []
    result["steady_s"] = _sampler(step, sync, 1, spec["samples"], spec["min_sample_s"])
    return result


def main() -> None:
    spec = json.loads(sys.argv[1])
    try:
        if spec["framework"] == "numba":
            result = run_numba(spec)
        elif spec["framework"] == "triton":
            result = run_triton(spec)
        elif spec["framework"] == "copyref":
            result = run_copyref(spec)
        else:
            result = run_ti(spec)
    except BaseException as error:  # noqa: BLE001 - reported as "n/a (reason)"
        lines = traceback.format_exception_only(type(error), error)
        result = {"error": " ".join(line.strip() for line in lines)[:400]}
        if os.environ.get("BENCH_TRACEBACK"):
            traceback.print_exc()
    if spec.get("framework") == "xdsl":  # its offline cache is written at a program's end
        from taichi_xdsl.utils.cache import flush_all

        flush_all()
    sys.stdout.flush()
    print("BENCH-RESULT " + json.dumps(result), flush=True)
    # Skip interpreter teardown: some runtimes spend seconds (or hang) freeing devices.
    os._exit(0)


if __name__ == "__main__":
    main()
