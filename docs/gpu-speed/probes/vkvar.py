"""Session 8 probe: stencil and reduce variants on the GPU (GPU timestamps per task).
usage: python3 vkvar.py CASE [unroll=N] [fill=N] [combine=N] [local=N]"""
import statistics, sys, time
import numpy as np
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import backend as vb

case = sys.argv[1]
opts = dict(a.split("=") for a in sys.argv[2:])
if "unroll" in opts: vb.UNROLL = int(opts["unroll"])
if "fill" in opts: vb.GPU_FILL_GROUPS = int(opts["fill"])
if "combine" in opts: vb.COMBINE_GROUPS = int(opts["combine"])
bd = int(opts.get("local", 0)) or None
ti.init(arch=ti.vulkan, default_fp=ti.f32, offline_cache=False)
from taichi_xdsl.frontends.python.lang import program
rt = program.get_program().backend.runtime
N = 2048
if case.startswith("stencil"):
    u = ti.field(ti.f32, shape=(N, N)); v = ti.field(ti.f32, shape=(N, N))
    u.from_numpy((np.arange(N * N, dtype=np.float32).reshape(N, N) % 13) * 0.5)
    if case == "stencil":
        @ti.kernel
        def k():
            ti.loop_config(block_dim=bd)
            for i, j in ti.ndrange((1, N - 1), (1, N - 1)):
                v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
    elif case == "stencil_aligned":  # rows of N: the divisor a power of two, warps on 128 B
        @ti.kernel
        def k():
            ti.loop_config(block_dim=bd)
            for i, j in ti.ndrange((1, N - 1), N):
                if 0 < j < N - 1:
                    v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
    elif case == "stencil_flat":  # one flat index, i, j by shift/mask
        @ti.kernel
        def k():
            ti.loop_config(block_dim=bd)
            for t in range(N * N):
                i = t >> 11
                j = t & (N - 1)
                if 0 < i < N - 1 and 0 < j < N - 1:
                    v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
    elif case == "stencil_copy":  # the bandwidth floor: read u, write v
        @ti.kernel
        def k():
            ti.loop_config(block_dim=bd)
            for i, j in ti.ndrange(N, N):
                v[i, j] = u[i, j]
    args = ()
else:
    M = 1 << 24
    total = ti.field(ti.f32, shape=())
    x = ti.ndarray(ti.f32, shape=M)
    x.from_numpy((np.arange(M) % 7).astype(np.float32) * 0.125)
    if case == "reduce":
        @ti.kernel
        def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            total[None] = 0.0
            ti.loop_config(block_dim=bd)
            for i in range(x.shape[0]):
                total[None] += x[i]
    elif case == "reduce_noinit":
        @ti.kernel
        def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            ti.loop_config(block_dim=bd)
            for i in range(x.shape[0]):
                total[None] += x[i]
    elif case == "reduce_const":  # a constant bound: groups from the host, no dynamic bound
        @ti.kernel
        def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            total[None] = 0.0
            ti.loop_config(block_dim=bd)
            for i in range(M):
                total[None] += x[i]
    args = (x,)
for _ in range(5):
    k(*args)
ti.sync()
rt.enable_timestamps(capacity=16384)
walls = []
for rep in range(5):
    start = time.perf_counter()
    for _ in range(200):
        k(*args)
    ti.sync()
    walls.append((time.perf_counter() - start) / 200)
per = {}
for name, s in rt.take_timestamps():
    per.setdefault(name, []).append(s)
tasks = "; ".join(f"{n} {statistics.median(v)*1e6:.2f}" for n, v in per.items())
print(f"{case:16s} {' '.join(sys.argv[2:]):22s} wall {statistics.median(walls)*1e6:7.2f} us  [{tasks}]", flush=True)
