"""
The CPU stencil of bench/cases/stencil.py in one process: ours on fields (one root), ours
on ndarrays, and Numba's prange version, at 1024^2, 2048^2 and 4096^2; each the best of
two medians of 300 calls. Numba's figure moves between processes (bench runs on the H200
host: 181, 126 and 246 us at 2048^2), so this puts all three in one process.

    python bench/cpu_stencil_probe.py [THREADS]    # THREADS: ours' cpu_max_num_threads

Output of one run: bench/results/h200-s6-cpu-stencil-probe.txt.
"""
import statistics
import sys
import time

import numpy as np
from numba import njit, prange

import taichi_xdsl as ti


def med(fn, reps=300):
    for _ in range(30): fn()
    out = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); out.append(time.perf_counter() - t)
    return statistics.median(out) * 1e6

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 0
kw = {"cpu_max_num_threads": threads} if threads else {}
ti.init(arch=ti.cpu, offline_cache=False, **kw)
for n in (1024, 2048, 4096):
    u = ti.field(ti.f32, shape=(n, n)); v = ti.field(ti.f32, shape=(n, n))
    un = ((np.arange(n * n, dtype=np.float32).reshape(n, n) % 13) * 0.5).astype(np.float32)
    u.from_numpy(un)

    @ti.kernel
    def st_field():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])

    @ti.kernel
    def st_nd(a: ti.types.ndarray(dtype=ti.f32, ndim=2), b: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            b[i, j] = a[i, j] + 0.2 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j])

    ua = ti.ndarray(ti.f32, shape=(n, n)); va = ti.ndarray(ti.f32, shape=(n, n)); ua.from_numpy(un)

    @njit(parallel=True, fastmath=True)
    def st_numba(a, b):
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                b[i, j] = a[i, j] + np.float32(0.2) * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - np.float32(4.0) * a[i, j])
    vn = np.zeros_like(un)
    r = {}
    for rnd in range(2):
        r.setdefault("ours field", []).append(med(lambda: (st_field(), ti.sync())))
        r.setdefault("ours ndarray", []).append(med(lambda: (st_nd(ua, va), ti.sync())))
        r.setdefault("numba", []).append(med(lambda: st_numba(un, vn)))
    print(f"n={n} threads={threads or 'all'}: " + ", ".join(f"{k} {min(x):.1f} us" for k, x in r.items()), flush=True)
