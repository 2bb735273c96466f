# RUN: %python %s | filecheck %s
# Structured control flow: if/else and while become taichi.if / taichi.while (the while
# condition is tested at the top of the body), break/continue are terminators,
# ti.loop_config(serialize=True) marks the next loop, and `and` whose right side reads
# memory is short-circuited through a slot.

import numpy as np
import taichi_xdsl as ti

ti.init(arch=ti.cpu)


@ti.kernel
def branches(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
    for i in x:
        if x[i] > 0:
            x[i] = 1.0
        else:
            x[i] = -1.0


@ti.kernel
def loops(n: ti.i32) -> ti.i32:
    s = 0
    ti.loop_config(serialize=True)
    for i in range(n):
        if i == 5:
            break
        if i % 2 == 0:
            continue
        s += i
    while s < 100:
        s *= 2
    return s


@ti.kernel
def guarded(x: ti.types.ndarray(dtype=ti.i32, ndim=1), i: ti.i32) -> ti.i32:
    return 1 if i < x.shape[0] and x[i] > 0 else 0


x = np.zeros(4, np.float32)
print(branches.get_ir(x))
print(loops.get_ir(1))
print(guarded.get_ir(np.zeros(4, np.int32), 1))

# CHECK-LABEL: taichi.kernel @branches
# CHECK:         taichi.struct_for (%[[I:.*]]) in %[[X:.*]] : memref<?xf32> {
# CHECK:           %[[C:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
# CHECK-NEXT:      taichi.if %[[C]] {
# CHECK-NEXT:        %[[P:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<?xf32> -> memref<f32>
# CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
# CHECK-NEXT:        memref.store %[[ONE]], %[[P]][] : memref<f32>
# CHECK-NEXT:        taichi.yield
# CHECK-NEXT:      } else {
# CHECK-NEXT:        %[[P2:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<?xf32> -> memref<f32>
# CHECK-NEXT:        %[[M1:.*]] = arith.constant -1.000000e+00 : f32
# CHECK-NEXT:        memref.store %[[M1]], %[[P2]][] : memref<f32>
# CHECK-NEXT:        taichi.yield
# CHECK-NEXT:      }
# CHECK-NEXT:      taichi.yield
# CHECK-NEXT:    }

# CHECK-LABEL: taichi.kernel @loops
# CHECK:         taichi.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
# CHECK:           taichi.if %{{.*}} {
# CHECK-NEXT:        taichi.break
# CHECK-NEXT:      }
# CHECK:           taichi.if %{{.*}} {
# CHECK-NEXT:        taichi.continue
# CHECK-NEXT:      }
# CHECK:           taichi.yield
# CHECK-NEXT:    } {serialize}
# CHECK-NEXT:    taichi.while {
# CHECK-NEXT:      %[[S:.*]] = memref.load %{{.*}}[] : memref<i32>
# CHECK-NEXT:      %[[HUNDRED:.*]] = arith.constant 100 : i32
# CHECK-NEXT:      %[[GO:.*]] = arith.cmpi slt, %[[S]], %[[HUNDRED]] : i32
# CHECK-NEXT:      %[[T:.*]] = arith.constant true
# CHECK-NEXT:      %[[STOP:.*]] = arith.xori %[[GO]], %[[T]] : i1
# CHECK-NEXT:      taichi.if %[[STOP]] {
# CHECK-NEXT:        taichi.break
# CHECK-NEXT:      }
# CHECK:           taichi.yield
# CHECK-NEXT:    }

# The right side of `and` reads x[i]: it runs only when i < x.shape[0].
# CHECK-LABEL: taichi.kernel @guarded
# CHECK:         %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
# CHECK-NEXT:    %[[SLOT:.*]] = memref.alloca() : memref<i1>
# CHECK-NEXT:    memref.store %[[LT]], %[[SLOT]][] : memref<i1>
# CHECK-NEXT:    taichi.if %[[LT]] {
# CHECK-NEXT:      %{{.*}} = taichi.element_ptr
# CHECK:           memref.store %{{.*}}, %[[SLOT]][] : memref<i1>
# CHECK-NEXT:      taichi.yield
# CHECK-NEXT:    }
# CHECK-NEXT:    %[[BOTH:.*]] = memref.load %[[SLOT]][] : memref<i1>
# CHECK:         %{{.*}} = arith.select %[[BOTH]], %{{.*}}, %{{.*}} : i32
