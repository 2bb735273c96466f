# RUN: %python %s | filecheck %s
# A list built in a kernel: an element assigned (in a branch too) becomes a variable whose
# slot is made, holding the element's value, where the list was built; reads load it.
# A ti.u1 field is stored as bytes: a store widens the i1 to i8, a load compares with 0.

import numpy as np
import taichi_xdsl as ti

ti.init(arch=ti.cpu)
flags = ti.field(ti.u1, shape=4)


@ti.kernel
def swap(x: ti.types.ndarray(dtype=ti.i32, ndim=1), c: ti.i32) -> ti.i32:
    pair = [x[0], x[1]]
    if c > 0:
        pair[0] = x[2]
    return pair[0] + pair[1]


@ti.kernel
def set_flag(i: ti.i32, v: ti.i32) -> ti.i32:
    flags[i] = v
    return 1 if flags[i] else 0


@ti.kernel
def count(n: ti.i32) -> ti.i32:
    c = [n]
    while c[0] > 0:
        c[0] = c[0] - 1
    return c[0]


print(swap.get_ir(np.zeros(4, np.int32), 1))
print(count.get_ir(3))
print(set_flag.get_ir(1, 2))

# The slot of pair[0] is made right after the list (x[1] loaded), before the branch.
# CHECK-LABEL: taichi.kernel @swap
# CHECK:         %[[A:.*]] = memref.load %{{.*}}[] : memref<i32>
# CHECK:         %[[B:.*]] = memref.load %{{.*}}[] : memref<i32>
# CHECK-NEXT:    %[[SLOT:.*]] = memref.alloca() : memref<i32>
# CHECK-NEXT:    memref.store %[[A]], %[[SLOT]][] : memref<i32>
# CHECK:         taichi.if %{{.*}} {
# CHECK:           %[[C:.*]] = memref.load %{{.*}}[] : memref<i32>
# CHECK-NEXT:      memref.store %[[C]], %[[SLOT]][] : memref<i32>
# CHECK-NEXT:      taichi.yield
# CHECK-NEXT:    }
# CHECK-NEXT:    %[[FIRST:.*]] = memref.load %[[SLOT]][] : memref<i32>
# CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[FIRST]], %[[B]] : i32

# A run-time loop assigning an element: the slot is made before the loop, and the read in
# the loop's condition and body loads it (not the value the list was built with).
# CHECK-LABEL: taichi.kernel @count
# CHECK-NEXT:    %[[SLOT:.*]] = memref.alloca() : memref<i32>
# CHECK-NEXT:    memref.store %n, %[[SLOT]][] : memref<i32>
# CHECK-NEXT:    taichi.while {
# CHECK-NEXT:      %[[C:.*]] = memref.load %[[SLOT]][] : memref<i32>
# CHECK:           %[[C2:.*]] = memref.load %[[SLOT]][] : memref<i32>
# CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
# CHECK-NEXT:      %[[D:.*]] = arith.subi %[[C2]], %[[ONE]] : i32
# CHECK-NEXT:      memref.store %[[D]], %[[SLOT]][] : memref<i32>

# CHECK-LABEL: taichi.kernel @set_flag
# CHECK:         %[[F:.*]] = taichi.get_field @{{.*}} : memref<4xi8>
# CHECK:         %[[P:.*]] = taichi.element_ptr %[[F]][%{{.*}}] : memref<4xi8> -> memref<i8>
# CHECK:         %[[BIT:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i32
# CHECK-NEXT:    %[[BYTE:.*]] = arith.extui %[[BIT]] : i1 to i8
# CHECK-NEXT:    memref.store %[[BYTE]], %[[P]][] : memref<i8>
# CHECK:         %[[LOADED:.*]] = memref.load %{{.*}}[] : memref<i8>
# CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i8
# CHECK-NEXT:    %{{.*}} = arith.cmpi ne, %[[LOADED]], %[[ZERO]] : i8
