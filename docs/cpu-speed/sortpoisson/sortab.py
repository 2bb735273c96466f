# sort 2^24 u32 (the bench case): radix passes (forced) / the host path / np.sort, alternated in one process.
import sys, time
import numpy as np
import taichi_xdsl as ti
from taichi_xdsl.frontends.python.lang.algorithms import sort as S
nt = int(sys.argv[1]); R = int(sys.argv[2]) if len(sys.argv) > 2 else 9
ti.init(arch=ti.cpu, cpu_max_num_threads=nt)
N = 1 << 24
keys = ti.field(ti.u32, shape=N)
DATA = np.random.default_rng(0).integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
EXPECTED = np.sort(DATA)
def ours(radix):
    S._CPU_RADIX_MIN_THREADS = 0 if radix else 4
    keys.from_numpy(DATA)
    c = time.process_time()
    t = time.perf_counter(); ti.algorithms.parallel_sort(keys); ti.sync(); d = time.perf_counter() - t
    cpu[radix].append(time.process_time() - c)
    assert (keys.to_numpy() == EXPECTED).all()
    return d
def npsort():
    c = DATA.copy(); p = time.process_time(); t = time.perf_counter(); c.sort(); d = time.perf_counter() - t
    cpu["np"].append(time.process_time() - p)
    return d
cpu = {True: [], False: [], "np": []}
ours(True); ours(False)
res = {"radix": [], "host": [], "np.sort": []}
for r in range(R):
    res["radix"].append(ours(True)); res["host"].append(ours(False)); res["np.sort"].append(npsort())
for k, v in res.items():
    print(f"threads {nt} {k:8s} median {1e3*sorted(v)[R//2]:7.1f} ms  min {1e3*min(v):7.1f} ms")
h = np.array(res["host"]) / np.array(res["np.sort"]); print(f"  host/np.sort per pair: median {np.median(h):.2f}, min {h.min():.2f}")
med = lambda v: 1e3 * sorted(v)[len(v) // 2]
print(f"  CPU time (all threads) medians: radix {med(cpu[True]):.1f} ms, host {med(cpu[False]):.1f} ms, np.sort {med(cpu['np']):.1f} ms")
