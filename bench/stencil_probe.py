"""GPU time a task (Vulkan timestamps) of the stencil and of saxpy/copy, with the knobs of
docs/gpu-speed/stencil.md. Runs on main's package too (knobs it lacks do nothing).

usage: python3 bench/stencil_probe.py CASE [unroll=N] [layout=stride|block] [align=0]
           [usel=0|1] [ro_root=1] [calls=N]
CASE: stencil (fields, ndrange((1, N-1), (1, N-1))), ndstencil (the same on ndarrays),
      saxpy, copy (2^24-element ndarrays, as bench/cases), reduce (a sum of 2^24)."""

import os
import statistics
import sys
import time

import numpy as np

import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import backend as vb

case = sys.argv[1]
opts = dict(a.split("=") for a in sys.argv[2:])
if "unroll" in opts:
    vb.UNROLL = int(opts["unroll"])
if "layout" in opts:
    vb.UNROLL_LAYOUT = opts["layout"]
if "usel" in opts:
    vb.UNROLL_SELECTIONS = opts["usel"] == "1"
passes = {"drop": ["ti-align-rows"]} if opts.get("align") == "0" else None

if opts.get("ro_root") == "1":
    # Prototype: the stencil's root loads through a second, NonWritable binding of the
    # root (legal here: the task reads u and writes v only). The probe binds the root
    # buffer again as "segment 1" (binding 6: the kernel has no ndarray).
    from taichi_xdsl.dialects import spirv
    from taichi_xdsl.lowering import convert_offload_to_spirv as cos
    from xdsl.dialects.builtin import IntegerAttr, i64

    plain = cos.mark_read_only_buffers

    def with_read_view(module):
        plain(module)
        block = module.body.block
        root = [
            g for g in block.ops
            if isinstance(g, spirv.GlobalVariableOp) and g.sym_name.data == "root_f32"
        ]
        if not root:
            return
        var = root[0]
        block_type = var.type.pointee_type
        if "NonWritable" in block_type.decorations_of(0):
            return
        marked = spirv.StructType(
            block_type.member_types.data, offsets=[0],
            member_decorations=[["NonWritable"]], decorations=block_type.decoration_names,
        )
        pointer = spirv.PointerType(marked, "StorageBuffer")
        ro = spirv.GlobalVariableOp("root_ro_f32", pointer, descriptor_set=0, binding=6)
        block.insert_op_before(ro, block.first_op)
        for op in list(module.walk()):
            if isinstance(op, spirv.AddressOfOp) and op.variable.root_reference.data == "root_f32":
                for use in list(op.results[0].uses):
                    chain = use.operation
                    if isinstance(chain, spirv.AccessChainOp) and all(
                        isinstance(u.operation, spirv.LoadOp) for u in chain.results[0].uses
                    ):
                        address = spirv.AddressOfOp("root_ro_f32", pointer)
                        chain.parent_block().insert_op_before(address, chain)
                        chain.operands = [address.results[0], *chain.operands[1:]]

    cos.mark_read_only_buffers = with_read_view
    plain_apply = cos.ConvertOffloadToSpirvPass.apply

    def apply(self, ctx, op):  # after the pass's own ti.root_segments
        plain_apply(self, ctx, op)
        for module in op.walk():
            if isinstance(module, spirv.ModuleOp) and any(
                isinstance(g, spirv.GlobalVariableOp) and g.sym_name.data == "root_ro_f32"
                for g in module.body.block.ops
            ):
                module.attributes["ti.root_segments"] = IntegerAttr(2, i64)

    cos.ConvertOffloadToSpirvPass.apply = apply
    plain_root = vb.VulkanBackend._root_for_launch

    def root_twice(self, root, segments=1):
        buffers = plain_root(self, root, 1)
        return buffers * segments

    vb.VulkanBackend._root_for_launch = root_twice

ti.init(arch=ti.vulkan, default_fp=ti.f32, offline_cache=False, passes=passes)
from taichi_xdsl.frontends.python.lang import program  # noqa: E402

rt = program.get_program().backend.runtime
N = 2048
init = (np.arange(N * N, dtype=np.float32).reshape(N, N) % 13) * 0.5
want = None
if case == "stencil":
    u = ti.field(ti.f32, shape=(N, N))
    v = ti.field(ti.f32, shape=(N, N))
    u.from_numpy(init)

    @ti.kernel
    def k():
        for i, j in ti.ndrange((1, N - 1), (1, N - 1)):
            v[i, j] = u[i, j] + 0.25 * (
                u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
            )

    args = ()
    out = v
elif case == "ndstencil":
    u = ti.ndarray(ti.f32, (N, N))
    v = ti.ndarray(ti.f32, (N, N))
    u.from_numpy(init)

    @ti.kernel
    def k(u: ti.types.ndarray(dtype=ti.f32, ndim=2), v: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        for i, j in ti.ndrange((1, N - 1), (1, N - 1)):
            v[i, j] = u[i, j] + 0.25 * (
                u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
            )

    args = (u, v)
    out = v
elif case == "reduce":  # a thread-local sum: the unrolled copies follow one another
    M = 1 << 24
    x = ti.ndarray(ti.f32, shape=M)
    x.from_numpy((np.arange(M) % 7).astype(np.float32) * 0.125)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in range(x.shape[0]):
            total[None] += x[i]

    args = (x,)
    out = None
else:
    M = 1 << 24
    x = ti.ndarray(ti.f32, shape=M)
    y = ti.ndarray(ti.f32, shape=M)
    x.from_numpy(np.arange(M, dtype=np.float32) % 1000)
    y.from_numpy(np.ones(M, dtype=np.float32))
    if case == "saxpy":

        @ti.kernel
        def k(a: ti.f32, x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            for i in range(x.shape[0]):
                y[i] = a * x[i] + y[i]

        args = (0.5, x, y)
    else:

        @ti.kernel
        def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            for i in range(x.shape[0]):
                y[i] = x[i]

        args = (x, y)
    out = None

k(*args)
ti.sync()
ok = ""
if out is not None:  # one launch against NumPy (exact: halves and a quarter)
    c = init[1:-1, 1:-1]
    ref = c + np.float32(0.25) * (
        init[:-2, 1:-1] + init[2:, 1:-1] + init[1:-1, :-2] + init[1:-1, 2:] - np.float32(4.0) * c
    )
    ok = "ok" if np.array_equal(out.to_numpy()[1:-1, 1:-1], ref) else "WRONG"
elif case == "copy":
    ok = "ok" if np.array_equal(y.to_numpy(), x.to_numpy()) else "WRONG"
elif case == "reduce":  # a float sum in any order: to a rounding
    want_sum = float(((np.arange(M) % 7) * 0.125).sum())
    ok = "ok" if abs(total[None] - want_sum) <= 1e-4 * want_sum else "WRONG"
for _ in range(5):
    k(*args)
ti.sync()
calls = int(opts.get("calls", 200))
rt.enable_timestamps(capacity=16384)
walls = []
for rep in range(5):
    start = time.perf_counter()
    for _ in range(calls):
        k(*args)
    ti.sync()
    walls.append((time.perf_counter() - start) / calls)
per: dict[str, list[float]] = {}
for name, s in rt.take_timestamps():
    per.setdefault(name, []).append(s)
tasks = "; ".join(f"{n} {statistics.median(t) * 1e6:.2f}" for n, t in per.items())
print(
    f"{os.environ.get('V', '?'):6s} {case:9s} {' '.join(sys.argv[2:]):24s} "
    f"wall {statistics.median(walls) * 1e6:7.2f} us  [{tasks}] {ok}",
    flush=True,
)
