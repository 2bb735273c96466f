"""Session 9: a bench case on Vulkan with backend knobs: GPU time a call (timestamps),
wall a call over 2000 calls.  usage: python3 knobcase.py CASE [unroll=N] [local=N] [groups=N]"""
import runpy, statistics, sys, time
import numpy as np
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import backend as vb
case = sys.argv[1]
opts = dict(a.split("=") for a in sys.argv[2:])
if "unroll" in opts: vb.UNROLL = int(opts["unroll"])
if "local" in opts: vb.COMBINE_BLOCK_DIM = int(opts["local"])
if "groups" in opts: vb.COMBINE_GROUPS = int(opts["groups"])
ti.init(arch=ti.vulkan, offline_cache=False)
ns = runpy.run_path(f"bench/cases/{case}.py", init_globals={"ti": ti, "np": np})
step = ns["step"]
for _ in range(50): step()
ti.sync()
if "expected" in ns:
    ok = np.allclose(ns["result"](), ns["expected"](), rtol=1e-4)
else:
    ok = True
from taichi_xdsl.frontends.python.lang import program
rt = program.get_program().backend.runtime
walls = []
for r in range(5):
    t0 = time.perf_counter()
    for _ in range(2000): step()
    ti.sync(); walls.append((time.perf_counter() - t0) / 2000)
rt.enable_timestamps(capacity=16384)
for _ in range(300): step()
ti.sync()
per = {}
for name, s in rt.take_timestamps():
    per.setdefault(name, []).append(s)
tasks = "; ".join(f"{n} {statistics.median(v)*1e6:.2f}" for n, v in per.items())
print(f"{case:8s} {' '.join(sys.argv[2:]):24s} {'ok' if ok else 'WRONG'} wall {statistics.median(walls)*1e6:7.2f} us [{tasks}]", flush=True)
