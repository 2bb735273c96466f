import sys, time
import numpy as np
import taichi_xdsl as ti
from taichi_xdsl.frontends.python.lang.algorithms import sort as S
S._CPU_RADIX_MIN_THREADS = 0  # the radix passes, whatever the threads
nt = int(sys.argv[1]) if len(sys.argv) > 1 else 0
ti.init(arch=ti.cpu, cpu_max_num_threads=nt or None)
N = 1 << 24
keys = ti.field(ti.u32, shape=N)
DATA = np.random.default_rng(0).integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
keys.from_numpy(DATA)
ti.algorithms.parallel_sort(keys)
# wrap kernels to time them
acc = {}
def wrap(name):
    k = getattr(S, name)
    def w(*a, **kw):
        t = time.perf_counter(); r = k(*a, **kw); ti.sync(); acc[name] = acc.get(name, 0) + time.perf_counter() - t; return r
    setattr(S, name, w)
for nm in ["_to_sortable_and_count", "_count_digits", "_to_digit_major", "_block_offsets", "_scatter", "_scatter_to_keys"]:
    wrap(nm)
oscan = S.inclusive_scan
def wscan(*a):
    t = time.perf_counter(); oscan(*a); acc["scan"] = acc.get("scan", 0) + time.perf_counter() - t
S.inclusive_scan = wscan
R = 5
tot = []
for r in range(R):
    keys.from_numpy(DATA)
    t = time.perf_counter(); ti.algorithms.parallel_sort(keys); ti.sync(); tot.append(time.perf_counter() - t)
print("threads", nt, "total median ms", 1000 * sorted(tot)[R // 2])
for k, v in acc.items():
    print(f"  {k:24s} {1000 * v / R:8.2f} ms")
out = keys.to_numpy(); assert (out == np.sort(DATA)).all()
ts = []
for r in range(R):
    t = time.perf_counter(); np.sort(DATA); ts.append(time.perf_counter() - t)
print("np.sort median ms", 1000 * sorted(ts)[R // 2])
