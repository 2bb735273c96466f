"""
The CPU stencil of bench/cases/stencil.py in one process: ours on fields (one root), ours
on ndarrays, and Numba's prange version, at 1024^2, 2048^2 and 4096^2; each the best of
two medians of 300 calls. Numba's figure moves between processes (bench runs on the H200
host: 181, 126 and 246 us at 2048^2), so this puts all three in one process.

Two more pairs of fields of one root sit further apart than one field's size, by a u8
pad field of 4 KiB (the distance NumPy's mmap'd arrays get: 2^k + 4 KiB, still 0 mod 4
KiB) and of 1 KiB + 64 B (0x440 mod 4 KiB). That tells 4K aliasing of u's loads with
v's stores (only the second pad changes it) from an exact power-of-two distance (both
change it); the byte distances v - u are printed.

    python bench/cpu_stencil_probe.py [THREADS [SIZES]]  # ours' cpu_max_num_threads (0: all), n,n,...

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
sizes = [int(n) for n in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1024, 2048, 4096]
for n in sizes:
    un = ((np.arange(n * n, dtype=np.float32).reshape(n, n) % 13) * 0.5).astype(np.float32)
    pairs = {}
    for pad in (0, 4096, 1024 + 64):
        u = ti.field(ti.f32, shape=(n, n))
        if pad:
            ti.field(ti.u8, shape=pad)
        v = ti.field(ti.f32, shape=(n, n))
        u.from_numpy(un)

        @ti.kernel
        def st_field(u: ti.template(), v: ti.template()):
            for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
                v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])

        name = "ours field" + (f" +{pad} B" if pad else "")
        pairs[name] = (st_field, u, v)

    @ti.kernel
    def st_nd(a: ti.types.ndarray(dtype=ti.f32, ndim=2), b: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            b[i, j] = a[i, j] + 0.2 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j])

    ua = ti.ndarray(ti.f32, shape=(n, n)); va = ti.ndarray(ti.f32, shape=(n, n)); ua.from_numpy(un)
    gaps = {name: v.offset - u.offset for name, (_, u, v) in pairs.items()}
    gaps["ours ndarray"] = va.arr.ctypes.data - ua.arr.ctypes.data

    @njit(parallel=True, fastmath=True)
    def st_numba(a, b):
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                b[i, j] = a[i, j] + np.float32(0.2) * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - np.float32(4.0) * a[i, j])
    vn = np.zeros_like(un)
    r = {}
    for rnd in range(2):
        for name, (st_field, u, v) in pairs.items():
            r.setdefault(name, []).append(med(lambda: (st_field(u, v), ti.sync())))
        r.setdefault("ours ndarray", []).append(med(lambda: (st_nd(ua, va), ti.sync())))
        r.setdefault("numba", []).append(med(lambda: st_numba(un, vn)))
    print(f"n={n} threads={threads or 'all'}: " + ", ".join(f"{k} {min(x):.1f} us" for k, x in r.items()), flush=True)
    print("  v - u: " + ", ".join(f"{k} {g:#x}" for k, g in gaps.items()), flush=True)
