"""mpm88 on Vulkan with the session-8 knobs: python3 mpmknob.py [layout=stride] [sel=0] [lf=0] [drop=pass,pass]"""
import statistics, sys, time, runpy
import numpy as np
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import backend as vb
opts = dict(a.split("=") for a in sys.argv[1:])
if "layout" in opts and hasattr(vb, "UNROLL_LAYOUT"): vb.UNROLL_LAYOUT = opts["layout"]
if "sel" in opts and hasattr(vb, "UNROLL_SELECTIONS"): vb.UNROLL_SELECTIONS = bool(int(opts["sel"]))
if "lf" in opts: vb.UNROLL_LOADS_FIRST = bool(int(opts["lf"]))
if opts.get("spec") == "0":
    from taichi_xdsl.lowering import unroll_loads_first as ulf
    ulf._speculable = lambda *a: False
drop = [p for p in opts.get("drop", "").split(",") if p]
ti.init(arch=ti.vulkan, default_fp=ti.f32, offline_cache=False, passes={"drop": drop} if drop else None)
ns = runpy.run_path("bench/cases/mpm88.py", init_globals={"ti": ti, "np": np})
step = ns["step"]
for _ in range(20): step()
ti.sync()
from taichi_xdsl.frontends.python.lang import program
rt = program.get_program().backend.runtime
rt.enable_timestamps(capacity=65536)
walls = []
for _ in range(7):
    t = time.perf_counter()
    for _ in range(100): step()
    ti.sync()
    walls.append((time.perf_counter() - t) / 100)
per = {}
for name, s in rt.take_timestamps():
    per.setdefault(name, []).append(s)
tasks = "; ".join(f"{n.split('__')[0][-8:]}.{n.split('task')[-1]} {statistics.median(v)*1e6:.2f}" for n, v in per.items())
print(f"{' '.join(sys.argv[1:]) or 'default':20s} {statistics.median(walls)*1e6:8.2f} us/step (min {min(walls)*1e6:.2f}) [{tasks}]", flush=True)
