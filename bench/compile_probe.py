"""
A cold later kernel's compile, measured in one process: the frontend's module and the
backend's compile of one kernel of bench/compile_latency_kernels.py (or bench/cases/
mpm88.py's `substep`), REPS times after a warm-up kernel (imports and device done), the
cycle collector off as in a real compile. Prints the thread CPU ms of the fastest and the
median compile, and of the serial forms a CPU kernel compiles on first use
(targets/llvm/serial_forms.py), then with `--pass-times` the stages of the fastest.

    python bench/compile_probe.py cpu substep 3 [--pass-times [--thread-time]]
    PYTHONPATH=/tmp/base python bench/compile_probe.py vulkan nbody 4   # another tree

`--thread-time` makes the stage times thread CPU time too: the backends time stages
with `time.perf_counter`, which the probe then points at `time.thread_time` (before the
package is imported; a probe's own process only).

Thread CPU time, not wall time: on a loaded VM the wall clock mostly measures the other
processes. Processes still differ by up to +-30% (CPU frequency, caches): compare a
base and a new tree in alternating processes, several pairs.
"""

from __future__ import annotations

import gc
import importlib.util
import inspect
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
ARGS = {"saxpy": "(2.0, m.xs, m.ys)", "julia": "(0.3,)", "nbody": "(0.01,)"}


def load(path: Path, name: str, folder: Path):
    """A bench source file as a module (kernels must be read from a file)."""
    target = folder / f"{name}.py"
    target.write_text("import taichi_xdsl as ti\nimport numpy as np\n" + path.read_text())
    spec = importlib.util.spec_from_file_location(name, target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    arch, name, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if "--thread-time" in sys.argv:
        time.perf_counter = time.thread_time
    import taichi_xdsl as ti
    from taichi_xdsl.frontends.python.lang.program import get_program

    ti.init(arch=getattr(ti, arch), offline_cache=False)
    with tempfile.TemporaryDirectory() as folder:
        m = load(HERE / "compile_latency_kernels.py", "latency_kernels", Path(folder))
        mpm = load(HERE / "cases" / "mpm88.py", "mpm88_case", Path(folder))
    m.fill(0.5)  # imports, the device
    ti.sync()
    prog = get_program()
    backend = prog.backend
    kernel = mpm.substep if name == "substep" else getattr(m, name)
    args = eval(ARGS.get(name, "()"))  # noqa: S307 - the table above
    kernel._resolve_params(prog)
    options = {}
    if "in_place" in inspect.signature(backend.compile).parameters:
        options["in_place"] = True  # as the frontend compiles (older trees copy)
    results = []
    for rep in range(reps + 1):
        gc.collect()
        gc.disable()
        start = time.thread_time()
        module = kernel.build_module(prog, args, f"probe_{name}_{rep}")
        built = time.thread_time()
        compiled = backend.compile(module, f"probe_{name}_{rep}", **options)
        done = time.thread_time()
        forms = getattr(compiled, "serial_forms", None)
        if forms is not None:
            forms.address(forms.symbols[0])
        serial = time.thread_time() - done if forms is not None else 0.0
        gc.enable()
        if rep:  # the first is a warm-up of this kernel's own imports
            ms = [(t - start) * 1e3 for t in (done, built)]
            results.append((ms[0], ms[1], serial * 1e3, list(backend.pass_times)))
    best = min(results, key=lambda r: r[0])
    median = statistics.median(r[0] for r in results)
    serial = statistics.median(r[2] for r in results)
    print(
        f"{arch} {name}: compile min {best[0]:.1f} ms CPU (frontend {best[1]:.1f}), "
        f"median {median:.1f}; serial forms on first use: median {serial:.1f}"
    )
    if "--pass-times" in sys.argv:
        for stage, seconds in best[3]:
            print(f"  {seconds * 1e3:8.2f}  {stage}")


if __name__ == "__main__":
    main()
