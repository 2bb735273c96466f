"""
Time per task of mpm88's substep: each of its four loops (grid clear, P2G scatter, grid
update, G2P gather) as a kernel of its own, launched in order 200 times, each launch
timed alone; the median over launches, then over 7 rounds, and the whole substep kernel.
Ours (bench/cases/mpm88.py) or Numba's (bench/numba_cases.py, P2G serial there):

    python bench/mpm88_task_probe.py [THREADS]                        # ours
    /tmp/tivenv_lead/bin/python bench/mpm88_task_probe.py [THREADS] --numba

THREADS: ours' cpu_max_num_threads, Numba's set_num_threads (default: every CPU). The
loops are cut out of the case sources at their top-level `for`, so the kernels are the
bench's own code. Figures and what they say: docs/cpu-speed/mpm88.md.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
NAMES = ("clear", "p2g", "grid", "g2p")


def split_loops(body: str, indent: str) -> list[list[str]]:
    """The lines of each top-level loop of a function body indented by `indent`."""
    loops: list[list[str]] = []
    for line in body.splitlines():
        if line.startswith(f"{indent}for "):
            loops.append([line])
        elif line.strip() and loops:
            loops[-1].append(line)
    return loops


def ours(threads: int) -> tuple[dict, callable]:
    import taichi_xdsl as ti

    ti.init(arch=ti.cpu, offline_cache=False, **({"cpu_max_num_threads": threads} if threads else {}))
    src = (HERE / "cases" / "mpm88.py").read_text()
    head, rest = src.split("@ti.kernel\ndef substep():\n")
    body, tail = rest.split("\n\n_rng", 1)
    kernels = "".join(
        f"@ti.kernel\ndef {name}():\n" + "\n".join(lines) + "\n\n\n"
        for name, lines in zip(NAMES, split_loops(body, "    "))
    )
    text = "import taichi_xdsl as ti\nimport numpy as np\n" + head + kernels
    text += "@ti.kernel\ndef substep():\n" + body + "\n\n_rng" + tail
    path = Path(tempfile.mkdtemp()) / "mpm88_tasks.py"  # kernels need a source file
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("mpm88_tasks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    calls = {name: getattr(module, name) for name in NAMES + ("substep",)}
    return calls, module.reset


def numba(threads: int) -> tuple[dict, callable]:
    import numba as nb

    if threads:
        nb.set_num_threads(threads)
    src = (HERE / "numba_cases.py").read_text()
    make = src[src.index("def make_mpm88():") :]
    consts, rest = make.split("    @njit(parallel=True, fastmath=True)\n    def substep(x, v, C, J, grid_v, grid_m):\n")
    body = rest[: rest.index("\n\n")]
    scope: dict = {"njit": nb.njit, "prange": nb.prange}
    exec("\n".join(line[4:] for line in consts.splitlines()[1:]), scope)  # noqa: S102
    header = "@njit(parallel=True, fastmath=True)\ndef {}(x, v, C, J, grid_v, grid_m):\n"
    for name, lines in zip(NAMES, split_loops(body, "        ")):
        exec(header.format(name) + "\n".join(l[4:] for l in lines), scope)  # noqa: S102
    exec(header.format("substep") + "\n".join(l[4:] for l in body.splitlines()), scope)  # noqa: S102
    n, g = scope["n_particles"], scope["n_grid"]
    rng = np.random.default_rng(2)
    x0 = (rng.random((n, 2), dtype=np.float32) * 0.4 + 0.2).astype(np.float32)
    x, v = x0.copy(), np.zeros((n, 2), np.float32)
    C, J = np.zeros((n, 2, 2), np.float32), np.ones(n, np.float32)
    grid_v, grid_m = np.zeros((g, g, 2), np.float32), np.zeros((g, g), np.float32)
    args = (x, v, C, J, grid_v, grid_m)

    def reset() -> None:
        x[:], v[:], C[:], J[:] = x0, (0, -1), 0, 1

    calls = {name: (lambda f=scope[name]: f(*args)) for name in NAMES + ("substep",)}
    return calls, reset


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0
    who = "numba" if "--numba" in sys.argv else "ours"
    calls, reset = (numba if who == "numba" else ours)(threads)
    clock = time.perf_counter
    for call in calls.values():
        reset()
        call()
    rounds: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(7):
        reset()
        per: dict[str, list[float]] = {name: [] for name in NAMES}
        for _ in range(200):
            for name in NAMES:
                start = clock()
                calls[name]()
                per[name].append(clock() - start)
        for name in NAMES:
            rounds[name].append(statistics.median(per[name]) * 1e3)
        reset()
        whole = []
        for _ in range(200):
            start = clock()
            calls["substep"]()
            whole.append(clock() - start)
        rounds["substep"].append(statistics.median(whole) * 1e3)
    for name, values in rounds.items():
        print(f"{who} threads={threads or 'all'} {name:8s} {statistics.median(values):.4f} ms")


if __name__ == "__main__":
    main()
