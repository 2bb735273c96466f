"""Session 9 stencil probe: does issuing an invocation's loads before its stores help?
usage: python3 stvar.py CASE [unroll=N] [local=N]
CASE: base (the bench kernel), manA<K> (K columns an invocation LocalSize apart, each
stored before the next is loaded), manB<K> (same layout, all loads first, clamped)."""
import os, statistics, sys, time
import numpy as np
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import backend as vb

case = sys.argv[1]
opts = dict(a.split("=") for a in sys.argv[2:])
if "unroll" in opts: vb.UNROLL = int(opts["unroll"])
if "lf" in opts: vb.UNROLL_LOADS_FIRST = bool(int(opts["lf"]))
if opts.get("spec") == "0":
    from taichi_xdsl.lowering import unroll_loads_first as ulf
    ulf._speculable = lambda *a: False
bd = int(opts.get("local", 128))
arch = ti.vulkan
ti.init(arch=arch, default_fp=ti.f32, offline_cache=False)
from taichi_xdsl.frontends.python.lang import program
rt = program.get_program().backend.runtime
N = 2048
u = ti.field(ti.f32, shape=(N, N)); v = ti.field(ti.f32, shape=(N, N))
init = (np.arange(N * N, dtype=np.float32).reshape(N, N) % 13) * 0.5
u.from_numpy(init)
K = int(case[4:]) if case.startswith("man") else 0
L = bd

if case == "base":
    @ti.kernel
    def k():
        for i, j in ti.ndrange((1, N - 1), (1, N - 1)):
            v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
elif case.startswith("manA"):
    @ti.kernel
    def k():
        ti.loop_config(block_dim=L)
        for i, jb, lane in ti.ndrange((1, N - 1), N // (L * K), L):
            for d in ti.static(range(K)):
                j = jb * (L * K) + d * L + lane
                if 0 < j < N - 1:
                    v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
elif case.startswith("manB"):
    @ti.kernel
    def k():
        ti.loop_config(block_dim=L)
        for i, jb, lane in ti.ndrange((1, N - 1), N // (L * K), L):
            vals = ti.Vector([0.0] * K)
            for d in ti.static(range(K)):
                j = ti.min(ti.max(jb * (L * K) + d * L + lane, 1), N - 2)
                vals[d] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
            for d in ti.static(range(K)):
                j = jb * (L * K) + d * L + lane
                if 0 < j < N - 1:
                    v[i, j] = vals[d]
k(); ti.sync()
ref = init.copy(); c = init[1:-1, 1:-1]
want = c + np.float32(0.2) * (init[:-2, 1:-1] + init[2:, 1:-1] + init[1:-1, :-2] + init[1:-1, 2:] - np.float32(4.0) * c)
got = v.to_numpy()[1:-1, 1:-1]
ok = np.allclose(got, want, rtol=1e-5, atol=1e-5)
if os.environ.get("CHECK_ONLY"):
    print(case, "ok" if ok else "WRONG"); sys.exit(0)
for _ in range(20):
    k()
ti.sync()
rt.enable_timestamps(capacity=16384)
walls = []
calls = int(os.environ.get("CALLS", 200))
for rep in range(5):
    start = time.perf_counter()
    for _ in range(calls):
        k()
    ti.sync()
    walls.append((time.perf_counter() - start) / calls)
per = {}
for name, s in rt.take_timestamps():
    per.setdefault(name, []).append(s)
tasks = "; ".join(f"{n} {statistics.median(v)*1e6:.2f}" for n, v in per.items())
print(f"{case:8s} {' '.join(sys.argv[2:]):18s} {'ok' if ok else 'WRONG'} wall {statistics.median(walls)*1e6:7.2f} us  [{tasks}]", flush=True)
