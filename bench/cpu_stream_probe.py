"""
The memory-bound CPU cases (saxpy, copy, reduce on 2^24 f32) of ours and Numba in one
process, measured in alternating blocks, so that both see the same machine: the 2-core
VM's memory bandwidth moves by 2x from one minute to the next with its other users, and
separate processes (bench/run.py) meet different minutes.

    python bench/cpu_stream_probe.py [--threads T] [--rounds R] [--calls C] [--cases ...]
        [--site DIR]

Needs numba and taichi_xdsl in one Python: run it with the rivals' Python and pass our
venv's site-packages as --site (both need the same llvmlite), e.g.
    /tmp/tivenv_lead/bin/python bench/cpu_stream_probe.py --site .venv/lib/python3.11/site-packages

Variants of each case: ours on ti.ndarrays allocated as bench/cases/<case>.py does,
Numba on NumPy arrays allocated as bench/numba_cases.py does, and ours on Numba's arrays
(NumPy arrays passed straight to the ndarray parameters): same arrays, so a difference
between the last two is the code and the threads, not where the arrays lie.
A block is a pause of 30 ms (libgomp's workers spin up to ~9 ms after a parallel region
of Numba; ours 0.5 ms), one untimed call, then C timed calls; the figures are the median
and the minimum of all timed calls, and the median over rounds of a block's median
against Numba's block of the same round (the ratio the load moves least), with the load
average next to them.
"""

import argparse
import os
import site
import statistics
import time
from collections.abc import Callable
from typing import Any

N = 1 << 24


def ours_cases(ti: Any, np: Any) -> dict[str, tuple[Callable[..., Any], tuple[Any, ...]]]:
    """Our kernels and their arguments, as bench/cases/*.py allocate them."""

    @ti.kernel
    def saxpy(
        a: ti.f32,
        x: ti.types.ndarray(dtype=ti.f32, ndim=1),
        y: ti.types.ndarray(dtype=ti.f32, ndim=1),
    ):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    @ti.kernel
    def copy(
        x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)
    ):
        for i in range(x.shape[0]):
            y[i] = x[i]

    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def reduce(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        total[None] = 0.0
        for i in range(x.shape[0]):
            total[None] += x[i]

    out = {}
    x = ti.ndarray(ti.f32, shape=N)
    y = ti.ndarray(ti.f32, shape=N)
    x.from_numpy(np.arange(N, dtype=np.float32) % 1000)
    y.from_numpy(np.ones(N, dtype=np.float32))
    out["saxpy"] = (saxpy, (0.5, x, y))
    x = ti.ndarray(ti.f32, shape=N)
    y = ti.ndarray(ti.f32, shape=N)
    x.from_numpy(np.arange(N, dtype=np.float32) % 1000)
    out["copy"] = (copy, (x, y))
    x = ti.ndarray(ti.f32, shape=N)
    x.from_numpy((np.arange(N) % 7).astype(np.float32) * 0.125)
    out["reduce"] = (reduce, (x,))
    return out


def numba_cases(np: Any) -> dict[str, tuple[Callable[..., Any], tuple[Any, ...]]]:
    """Numba's kernels and their arguments, as bench/numba_cases.py allocates them."""
    from numba import njit, prange

    @njit(parallel=True, fastmath=True)
    def saxpy(a, x, y):
        for i in prange(x.shape[0]):
            y[i] = a * x[i] + y[i]

    @njit(parallel=True, fastmath=True)
    def copy(x, y):
        for i in prange(x.shape[0]):
            y[i] = x[i]

    @njit(parallel=True, fastmath=True)
    def reduce(x, total):
        s = np.float32(0.0)
        for i in prange(x.shape[0]):
            s += x[i]
        total[0] = s

    out = {}
    x = (np.arange(N, dtype=np.float32) % 1000).astype(np.float32)
    y = np.ones(N, dtype=np.float32)
    out["saxpy"] = (saxpy, (np.float32(0.5), x, y))
    x = (np.arange(N, dtype=np.float32) % 1000).astype(np.float32)
    y = np.zeros(N, dtype=np.float32)
    out["copy"] = (copy, (x, y))
    x = ((np.arange(N) % 7).astype(np.float32) * 0.125).astype(np.float32)
    out["reduce"] = (reduce, (x, np.zeros(1, dtype=np.float32)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=0, help="0: every CPU")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--calls", type=int, default=5, help="timed calls a block")
    parser.add_argument("--cases", default="saxpy,copy,reduce")
    parser.add_argument("--site", help="a site-packages directory holding taichi_xdsl")
    options = parser.parse_args()
    if options.site:
        site.addsitedir(options.site)
    import numba
    import numpy as np

    import taichi_xdsl as ti

    init: dict[str, Any] = {"arch": ti.cpu, "offline_cache": False}
    if options.threads:
        init["cpu_max_num_threads"] = options.threads
        numba.set_num_threads(options.threads)
    ti.init(**init)
    ours, theirs = ours_cases(ti, np), numba_cases(np)
    variants: dict[str, Callable[[], Any]] = {}
    for case in options.cases.split(","):
        (ours_fn, ours_args), (numba_fn, numba_args) = ours[case], theirs[case]
        numpy_args = tuple(a for a in numba_args if not isinstance(a, np.ndarray) or a.size > 1)
        variants[f"{case} ours"] = lambda f=ours_fn, a=ours_args: f(*a)
        variants[f"{case} numba"] = lambda f=numba_fn, a=numba_args: f(*a)
        variants[f"{case} ours, numba's arrays"] = lambda f=ours_fn, a=numpy_args: f(*a)
    for run in variants.values():
        run()
    ti.sync()
    times: dict[str, list[float]] = {name: [] for name in variants}
    blocks: dict[str, list[float]] = {name: [] for name in variants}
    loads = [os.getloadavg()[0]]
    for _ in range(options.rounds):
        for name, run in variants.items():
            time.sleep(0.03)
            run()
            ti.sync()
            block = []
            for _ in range(options.calls):
                start = time.perf_counter()
                run()
                ti.sync()
                block.append((time.perf_counter() - start) * 1e3)
            times[name].extend(block)
            blocks[name].append(statistics.median(block))
        loads.append(os.getloadavg()[0])
    print(
        f"threads {options.threads or 'all'} ({numba.threading_layer()} for Numba), "
        f"{options.rounds} rounds x {options.calls} calls, load average "
        f"{min(loads):.2f}-{max(loads):.2f}"
    )
    for name, values in times.items():
        case = name.split()[0]
        # each block against Numba's block of the same round, the next one run
        ratios = [a / b for a, b in zip(blocks[name], blocks[f"{case} numba"])]
        print(
            f"  {name:28s} median {statistics.median(values):8.3f} ms  min {min(values):8.3f}"
            f"  / Numba's, round by round: median {statistics.median(ratios):.3f}"
        )


if __name__ == "__main__":
    main()
