"""Session 8 probe 2: stencil load paths (NonWritable ndarray, coarsening) and reduce init.
usage: python3 vkvar2.py CASE [local=N] [unroll=N]"""
import os, statistics, sys, time
import numpy as np
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import backend as vb
from taichi_xdsl.lowering import spirv_common as sc
from taichi_xdsl.dialects import spirv
from taichi_xdsl.utils import spirv_abi

case = sys.argv[1]
opts = dict(a.split("=") for a in sys.argv[2:])
if "unroll" in opts: vb.UNROLL = int(opts["unroll"])
bd = int(opts.get("local", 0)) or None
RO = {int(b) for b in os.environ.get("RO_BINDINGS", "").split(",") if b}

def view(self, binding, element):  # the probe's copy of TaskState.view: NonWritable on RO
    key = (binding, element)
    if key not in self.views:
        buffer = self.binding_names.get(binding) or spirv_abi.buffer_name(binding)
        array = spirv.RuntimeArrayType(element, sc.byte_size(element))
        block = spirv.StructType([array], offsets=[0], decorations=["Block"],
                                 member_decorations=[["NonWritable"]] if binding in RO else None)
        var = spirv.GlobalVariableOp(f"{buffer}_{element}", spirv.PointerType(block, "StorageBuffer"),
                                     descriptor_set=0, binding=binding)
        self.module.body.block.insert_op_before(var, self.module.body.block.first_op)
        address = spirv.AddressOfOp(var)
        self.at_entry([address])
        self.views[key] = address.results[0]
    return self.views[key]
sc.TaskState.view = view

ti.init(arch=ti.vulkan, default_fp=ti.f32, offline_cache=False)
from taichi_xdsl.frontends.python.lang import program
rt = program.get_program().backend.runtime
N = 2048
init = (np.arange(N * N, dtype=np.float32).reshape(N, N) % 13) * 0.5
args = ()
if case.startswith("nd"):
    u = ti.ndarray(ti.f32, (N, N)); v = ti.ndarray(ti.f32, (N, N)); u.from_numpy(init)
    @ti.kernel
    def k(u: ti.types.ndarray(dtype=ti.f32, ndim=2), v: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        ti.loop_config(block_dim=bd)
        for i, j in ti.ndrange((1, N - 1), (1, N - 1)):
            v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
    args = (u, v)
elif case.startswith("c"):  # fields, C consecutive columns an invocation, loads first
    C = int(case[1:])
    u = ti.field(ti.f32, shape=(N, N)); v = ti.field(ti.f32, shape=(N, N)); u.from_numpy(init)
    @ti.kernel
    def k():
        ti.loop_config(block_dim=bd)
        for i, jb in ti.ndrange((1, N - 1), N // C):
            j0 = jb * C
            mid = ti.Vector([u[i, ti.max(0, ti.min(N - 1, j0 + d - 1))] for d in ti.static(range(C + 2))])
            up = ti.Vector([u[i - 1, j0 + d] for d in ti.static(range(C))])
            dn = ti.Vector([u[i + 1, j0 + d] for d in ti.static(range(C))])
            for d in ti.static(range(C)):
                j = j0 + d
                if 0 < j < N - 1:
                    v[i, j] = mid[d + 1] + 0.2 * (up[d] + dn[d] + mid[d] + mid[d + 2] - 4.0 * mid[d + 1])
elif case == "fillinit":  # reduce's init as the host would record it: a fill, then the loop
    M = 1 << 24
    total = ti.field(ti.f32, shape=())
    x = ti.ndarray(ti.f32, shape=M); x.from_numpy((np.arange(M) % 7).astype(np.float32) * 0.125)
    @ti.kernel
    def body(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        ti.loop_config(block_dim=bd)
        for i in range(x.shape[0]):
            total[None] += x[i]
    body(x); ti.sync()
    backend = program.get_program().backend
    def k(x):  # total sits at byte 0 of the root: the only field
        rt.fill(backend._device_root.buffers[0], 0, offset=0, nbytes=4)
        body(x)
    args = (x,)
for _ in range(5):
    k(*args)
ti.sync()
rt.enable_timestamps(capacity=16384)
walls = []
for rep in range(5):
    start = time.perf_counter()
    for _ in range(int(os.environ.get("CALLS", 200))):
        k(*args)
    ti.sync()
    walls.append((time.perf_counter() - start) / int(os.environ.get("CALLS", 200)))
per = {}
for name, s in rt.take_timestamps():
    per.setdefault(name, []).append(s)
tasks = "; ".join(f"{n} {statistics.median(v)*1e6:.2f}" for n, v in per.items())
print(f"{case:10s} RO={sorted(RO)} {' '.join(sys.argv[2:]):12s} wall {statistics.median(walls)*1e6:7.2f} us  [{tasks}]", flush=True)
