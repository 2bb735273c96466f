# RUN: %python %s | filecheck %s
# Every op carries a FileLineColLoc of the Python source it came from (columns are
# 1-based, as in MLIR); an inlined ti.func's ops point into the func. The script prints
# the line numbers of the lines marked `# L:<name>` first, so the checks need none.

import re

import taichi_xdsl as ti
from xdsl.printer import Printer

ti.init(arch=ti.cpu)
x = ti.field(ti.f32, shape=8, name="x")  # L:field


@ti.func
def twice(v):
    return v * 2.0  # L:twice


@ti.kernel
def k(a: ti.f32):  # L:def
    for i in x:  # L:for
        x[i] = twice(a)  # L:store


with open(__file__) as source:
    for number, line in enumerate(source, 1):
        marker = re.search(r"# L:(\w+)$", line.rstrip())
        if marker:
            print(f"{marker.group(1)}={number}")
Printer(print_debuginfo=True).print_op(k.get_ir(1.0))

# CHECK:      field=[[FIELD:[0-9]+]]
# CHECK-NEXT: twice=[[TWICE:[0-9]+]]
# CHECK-NEXT: def=[[DEF:[0-9]+]]
# CHECK-NEXT: for=[[FOR:[0-9]+]]
# CHECK-NEXT: store=[[STORE:[0-9]+]]
# CHECK:      taichi.field @x : memref<8xf32> offset 0 loc("{{.*}}locations.py":[[FIELD]]:1)
# CHECK:      %[[X:.*]] = taichi.get_field @x : memref<8xf32> loc("{{.*}}locations.py":[[DEF]]:1)
# CHECK-NEXT: taichi.struct_for (%{{.*}}) in %[[X]] : memref<8xf32> {
# CHECK-NEXT:   %{{.*}} = arith.constant 2.000000e+00 : f32 loc("{{.*}}locations.py":[[TWICE]]:12)
# CHECK-NEXT:   %{{.*}} = arith.mulf %{{.*}}, %{{.*}} : f32 loc("{{.*}}locations.py":[[TWICE]]:12)
# CHECK-NEXT:   %{{.*}} = taichi.element_ptr %[[X]][%{{.*}}] : memref<8xf32> -> memref<f32> loc("{{.*}}locations.py":[[STORE]]:9)
# CHECK-NEXT:   memref.store %{{.*}}, %{{.*}}[] : memref<f32> loc("{{.*}}locations.py":[[STORE]]:9)
# CHECK-NEXT:   taichi.yield loc("{{.*}}locations.py":[[FOR]]:5)
# CHECK-NEXT: } loc("{{.*}}locations.py":[[FOR]]:5)
# CHECK-NEXT: taichi.return loc("{{.*}}locations.py":[[DEF]]:1)
