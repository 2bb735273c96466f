"""
Vulkan reduce on a GPU: GPU time per dispatch (vkCmdWriteTimestamp pairs) and host wall
time a call of bench/cases/reduce.py's kernel and variants, and a check that repeated
launches of fused reductions (ti-fuse-serial-reduction) give exact results on the device.

    python3 bench/reduce_probe.py time reduce            # the bench case's kernel
    python3 bench/reduce_probe.py time reduce local=128  # COMBINE_BLOCK_DIM for this run
    python3 bench/reduce_probe.py time reduce_const      # a constant bound
    python3 bench/reduce_probe.py check                  # exact sums over many launches

Prints one line a run: `case options wall W us [entry GPU-us; ...]`. Used for
docs/gpu-speed/reduce.md (main and a branch in one device call, alternating).
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import backend as vulkan_backend


def time_case(case: str, options: dict[str, str]) -> None:
    if "local" in options:
        vulkan_backend.COMBINE_BLOCK_DIM = int(options["local"])
    if "combine" in options:
        vulkan_backend.COMBINE_GROUPS = int(options["combine"])
    ti.init(arch=ti.vulkan, default_fp=ti.f32, offline_cache=False)
    from taichi_xdsl.frontends.python.lang import program

    rt = program.get_program().backend.runtime
    n = int(options.get("n", 1 << 24))
    total = ti.field(ti.f32, shape=())
    x = ti.ndarray(ti.f32, shape=n)
    x.from_numpy((np.arange(n) % 7).astype(np.float32) * 0.125)
    if case == "reduce":

        @ti.kernel
        def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            total[None] = 0.0
            for i in range(x.shape[0]):
                total[None] += x[i]

    elif case == "reduce_const":

        @ti.kernel
        def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            total[None] = 0.0
            for i in range(n):
                total[None] += x[i]

    else:
        raise SystemExit(f"unknown case {case}")
    for _ in range(5):
        k(x)
    ti.sync()
    expected = float(x.to_numpy().astype(np.float64).sum())
    rt.enable_timestamps(capacity=16384)
    walls = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(int(options.get("calls", 200))):
            k(x)
        ti.sync()
        walls.append((time.perf_counter() - start) / int(options.get("calls", 200)))
    per: dict[str, list[float]] = {}
    for name, seconds in rt.take_timestamps():
        per.setdefault(name, []).append(seconds)
    tasks = "; ".join(f"{e} {statistics.median(v) * 1e6:.2f}" for e, v in per.items())
    error = abs(total[None] - expected) / expected
    label = " ".join(f"{a}={b}" for a, b in options.items())
    print(
        f"{case:14s} {label:12s} wall {statistics.median(walls) * 1e6:7.2f} us  "
        f"[{tasks}]  rel.err {error:.1e}",
        flush=True,
    )


def check(largest: int = 1 << 24) -> None:
    """Exact integer sums (and float sums of small integers) of many sizes, each launched
    many times back to back: a counter or accumulator left dirty by one launch, or a
    last workgroup that misses a group's partial, shows as a wrong sum."""
    ti.init(arch=ti.vulkan, offline_cache=False)
    itotal = ti.field(ti.i32, shape=())
    ftotal = ti.field(ti.f32, shape=())
    btotal = ti.field(ti.i64, shape=())

    @ti.kernel
    def isum(x: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        itotal[None] = 7
        for i in range(x.shape[0]):
            itotal[None] += x[i]

    @ti.kernel
    def two(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        ftotal[None] = 0.0
        btotal[None] = 1
        for i in range(x.shape[0]):
            ftotal[None] += x[i]
            btotal[None] += 2

    bad = 0
    runs = 0
    sizes = (1, 31, 255, 256, 257, 1000, 65536 + 3, 1 << 20, 1 << 24)
    for n in [s for s in sizes if s <= largest]:
        xi = (np.arange(n) % 13 - 6).astype(np.int32)
        xf = (np.arange(n) % 5).astype(np.float32)  # exact in f32 up to 2^24
        want_i = 7 + int(xi.sum())
        want_f = float(xf.astype(np.float64).sum())
        for _ in range(50 if n < 1 << 20 else 5):
            isum(xi)
            two(xf)
            got = (itotal[None], ftotal[None], btotal[None])
            runs += 1
            if got != (want_i, want_f if want_f < 2**24 else got[1], 1 + 2 * n):
                bad += 1
                if bad <= 5:
                    print(f"WRONG n={n}: {got} want {(want_i, want_f, 1 + 2 * n)}")
    print(f"check: {runs - bad}/{runs} launches exact", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "check":
        check(*map(int, sys.argv[2:3]))
    else:
        time_case(sys.argv[2], dict(a.split("=") for a in sys.argv[3:]))
