"""Session 9: host side of a Vulkan launch in the bench cases: enqueue time a call (no
sync), wall a call (200 calls + sync), GPU time a call; cProfile of the enqueue.
usage: python3 host.py CASE [--profile]"""
import cProfile, pstats, runpy, statistics, sys, time
import numpy as np
import taichi_xdsl as ti
case = sys.argv[1]
ti.init(arch=ti.vulkan, offline_cache=False)
ns = runpy.run_path(f"bench/cases/{case}.py", init_globals={"ti": ti, "np": np})
step = ns["step"]
calls = int(ns.get("CALLS", 1))
reps = max(1, 200 // calls)
for _ in range(max(1, 30 // calls)): step()
ti.sync()
from taichi_xdsl.frontends.python.lang import program
rt = program.get_program().backend.runtime
enq, walls = [], []
for r in range(7):
    t0 = time.perf_counter()
    for _ in range(reps): step()
    t1 = time.perf_counter(); ti.sync(); t2 = time.perf_counter()
    enq.append((t1 - t0) / (reps * calls)); walls.append((t2 - t0) / (reps * calls))
rt.enable_timestamps(capacity=16384)
for _ in range(reps): step()
ti.sync()
per = {}
for name, s in rt.take_timestamps():
    per.setdefault(name, []).append(s)
gpu = sum(statistics.median(v) for v in per.values())
print(f"{case:8s} enqueue {statistics.median(enq)*1e6:6.2f} us/call  wall {statistics.median(walls)*1e6:6.2f} us/call  gpu {gpu*1e6:6.2f} us/call", flush=True)
if "--profile" in sys.argv:
    pr = cProfile.Profile(); pr.enable()
    for _ in range(max(1, 500 // calls)): step()
    pr.disable(); ti.sync()
    pstats.Stats(pr).sort_stats("tottime").print_stats(12)
