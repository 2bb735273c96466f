# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t cpu | filecheck %s --check-prefix=META
# RUN: %python -m taichi_xdsl.utils.ti_aot info %t/m.tcm | filecheck %s --check-prefix=INFO
# RUN: %python %s %t vulkan | filecheck %s --check-prefix=VK
# RUN: not %python -m taichi_xdsl.utils.ti_aot info %t/meta.json 2>&1 | filecheck %s --check-prefix=BAD
"""
An AOT module's files: __content__, metadata.json (fields, kernels with argument kinds,
return types and tasks with their launch-plan bounds, required caps) and graphs.json.
"""

import json
import sys
from pathlib import Path

import taichi_xdsl as ti

out, arch = Path(sys.argv[1]), sys.argv[2]
ti.init(arch=ti.cpu, offline_cache=False)
x = ti.field(ti.f32, shape=(4, 2))


@ti.kernel
def scale(a: ti.types.ndarray(dtype=ti.f32, ndim=1), s: ti.f32) -> ti.i32:
    for i in a:
        a[i] *= s
    return 1


@ti.kernel
def copy(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
    for i, j in x:
        x[i, j] = a[i]


m = ti.aot.Module(getattr(ti, arch))
m.add_field("x", x)
m.add_kernel(scale)
arg = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", ti.f32, ndim=1)
s = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.f32)
g = ti.graph.GraphBuilder()
g.dispatch(scale, arg, s)
g.dispatch(copy, arg)
m.add_graph("run", g.compile())
m.archive(out / "m.tcm")
files = m.files()
print(files["__content__"].decode())
meta = json.loads(files["metadata.json"])
(out / "meta.json").write_bytes(files["metadata.json"])
print(json.dumps(meta["required_caps"], sort_keys=True))
for f in meta["fields"]:
    print("field", f["name"], f["dtype"], f["shape"], f["offset"])
for k in meta["kernels"]:
    ctx = k["ctx_attribs"]
    args = [
        (a["name"], a["kind"], a["dtype"], a.get("ndim")) for a in ctx["arg_attribs_vec_"]
    ]
    print("kernel", k["name"], args, [r["dtype"] for r in ctx["ret_attribs_vec_"]])
    for t in k["tasks_attribs"]:
        print(
            "  task",
            t["name"],
            t["task_type"],
            json.dumps(t.get("range_for_attribs")),
            t.get("spirv"),
        )
print(files["graphs.json"].decode())

# META:      cgraph:run
# META-NEXT: field:x
# META-NEXT: kernel:copy
# META-NEXT: kernel:scale
# META:      {"cpu.features": "", "cpu.name": "x86-64-v2", "cpu.triple": "x86_64-unknown-linux-gnu"}
# META-NEXT: field x f32 [4, 2] 0
# META-NEXT: kernel copy [('a', 'NDARRAY', 'f32', 1)] []
# META-NEXT:   task copy__task0 range_for {"begin": {"dtype": "i32", "value": 0}, "end": {"dtype": "i32", "value": 8}} None
# META-NEXT: kernel scale [('a', 'NDARRAY', 'f32', 1), ('s', 'SCALAR', 'f32', None)] ['i32']
# META-NEXT:   task scale__task0 serial null None
# META-NEXT:   task scale__task1 range_for {"begin": {"dtype": "i32", "value": 0}, "end": {"dtype": "i32", "gtmp_offset": [[OFF:[0-9]+]]}} None
# META:      "dispatches": [
# META:      "kernel_name": "scale",
# META-NEXT: "symbolic_args": [
# META-NEXT:  "a",
# META-NEXT:  "s"
# META:      "kernel_name": "copy",

# INFO:      module {{.*}}m.tcm: arch x64, root buffer 64 bytes
# INFO-NEXT: required caps: cpu.features='', cpu.name='x86-64-v2', cpu.triple='x86_64-unknown-linux-gnu'
# INFO-NEXT: field x: f32[4, 2] at offset 0
# INFO-NEXT: kernel copy(a: ndarray(f32, ndim=1)): 1 task(s)
# INFO-NEXT: kernel scale(a: ndarray(f32, ndim=1), s: f32) -> i32: {{[0-9]+}} task(s)
# INFO-NEXT: graph run: scale(a, s); copy(a)

# The Vulkan module: the same metadata with one .spv per task, and the caps the code uses.
# VK:      {"spirv_version": 66304}
# VK:      kernel scale
# VK-NEXT:   task scale__task0 serial null scale__task0.spv
# VK-NEXT:   task scale__task1 range_for {{.*}} scale__task1.spv

# A file that is not a module is refused with a reason.
# BAD: ti-aot: error: AOT module '{{.*}}meta.json': not a .tcm archive
