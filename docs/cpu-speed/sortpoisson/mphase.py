import sys, time
import numpy as np
import taichi_xdsl as ti
from taichi_xdsl.frontends.python.lang.algorithms import sort as S
nt = int(sys.argv[1])
ti.init(arch=ti.cpu, cpu_max_num_threads=nt)
N = 1 << 24
keys = ti.field(ti.u32, shape=N)
DATA = np.random.default_rng(0).integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
sk = ti.ndarray(ti.u32, N)
h = N // 2
R = 5
acc = {}
def tm(name, f):
    t = time.perf_counter(); c = time.process_time(); f(); ti.sync()
    acc.setdefault(name, []).append((time.perf_counter() - t, time.process_time() - c))
for r in range(R + 1):
    keys.from_numpy(DATA)
    tm("to_sortable", lambda: S._to_sortable(keys, 0, sk, "unsigned", 32))
    a = sk._array()
    tm("sort halves serial", lambda: (a[:h].sort(), a[h:].sort()))
    sk.from_numpy(DATA)
    def par():
        o = S._sort_thread().submit(a[h:].sort); a[:h].sort(); o.result()
    tm("sort halves threaded", par)
    tm("merge", lambda: S._merge_halves_into_keys(sk, h, 4 * nt, keys, 0, "unsigned", 32))
    c = DATA.copy()
    tm("np.sort whole", lambda: c.sort())
assert (keys.to_numpy() == np.sort(DATA)).all()
for k, v in acc.items():
    v = v[1:]
    print(f"threads {nt} {k:22s} wall {1e3*sorted(x[0] for x in v)[R//2]:7.1f} ms  cpu {1e3*sorted(x[1] for x in v)[R//2]:7.1f} ms")
