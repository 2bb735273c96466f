"""
n-body's force task on Vulkan at one ti-unroll-loops setting: GPU time of the task
(median of 50 timestamped launches after 200 warm ones), the first call's wall time
and a checksum (the same for every setting). One setting a process:

    python bench/nbody_unroll_probe.py FACTOR MAX_UNROLLED_OPS [nohoist]
    NB_N=16384 python bench/nbody_unroll_probe.py 48 1536

The sweeps behind SERIAL_UNROLL (targets/vulkan/backend.py) on an H200:
bench/results/h200-s6-nbody-unroll.txt and h200-s6-nbody-unroll2.txt.
"""

import os
import statistics
import sys
import time

import numpy as np

import taichi_xdsl as ti

factor, budget = int(sys.argv[1]), int(sys.argv[2])
hoist = not (len(sys.argv) > 3 and sys.argv[3] == "nohoist")
edits = {"replace": {"ti-unroll-loops": f"ti-unroll-loops{{factor={factor} max_unrolled_ops={budget}}}"}}
if not hoist:
    edits["drop"] = ["ti-spirv-hoist"]
ti.init(arch=ti.vulkan, offline_cache=False, passes=edits)

from taichi_xdsl.frontends.python.lang import program  # noqa: E402

runtime = program.get_program().backend.runtime
runtime.enable_timestamps(capacity=16384)
N = int(os.environ.get("NB_N", 4096))
pos = ti.Vector.field(3, ti.f32, shape=N)
vel = ti.Vector.field(3, ti.f32, shape=N)
pos.from_numpy(np.random.default_rng(1).random((N, 3), dtype=np.float32))


@ti.kernel
def forces(dt: ti.f32):
    for i in range(N):
        p = pos[i]
        acc = ti.Vector([0.0, 0.0, 0.0])
        for j in range(N):
            d = pos[j] - p
            r2 = d.dot(d) + 0.01
            acc += d / (r2 * ti.sqrt(r2))
        vel[i] += dt * acc


start = time.perf_counter()
forces(1e-5)
ti.sync()
first = time.perf_counter() - start
for _ in range(200):
    forces(1e-5)
ti.sync()
runtime.take_timestamps()
for _ in range(50):
    forces(1e-5)
ti.sync()
task = statistics.median(s for name, s in runtime.take_timestamps() if name.endswith("task0"))
vel.fill(0)
forces(1e-5)
total = float(np.abs(vel.to_numpy()).sum())
label = "" if hoist else " nohoist"
print(f"factor={factor} budget={budget}{label}: {task * 1e6:.1f} us  first call {first * 1e3:.0f} ms  sum {total:.6g}")
