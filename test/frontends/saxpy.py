# RUN: %python %s | filecheck %s
# saxpy over two 1-d ndarrays: ndarrays are dynamic-shape memref arguments, x.shape[0]
# is memref.dim + index_cast, the outermost range(...) is one taichi.range_for.

import numpy as np
import taichi_xdsl as ti

ti.init(arch=ti.cpu)


@ti.kernel
def saxpy(
    x: ti.types.ndarray(dtype=ti.f32, ndim=1),
    y: ti.types.ndarray(dtype=ti.f32, ndim=1),
    a: ti.f32,
):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


print(saxpy.get_ir(np.zeros(8, np.float32), np.zeros(8, np.float32), 2.0))

# CHECK-LABEL: taichi.kernel @saxpy
# CHECK-SAME:    (%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>, %[[A:.*]]: f32) {
# CHECK-NEXT:    %[[AXIS:.*]] = arith.constant 0 : index
# CHECK-NEXT:    %[[DIM:.*]] = memref.dim %[[X]], %[[AXIS]] : memref<?xf32>
# CHECK-NEXT:    %[[N:.*]] = arith.index_cast %[[DIM]] : index to i32
# CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
# CHECK-NEXT:    taichi.range_for %[[I:.*]] = %[[ZERO]] to %[[N]] : i32 {
# CHECK-NEXT:      %[[PX:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<?xf32> -> memref<f32>
# CHECK-NEXT:      %[[VX:.*]] = memref.load %[[PX]][] : memref<f32>
# CHECK-NEXT:      %[[AX:.*]] = arith.mulf %[[A]], %[[VX]] : f32
# CHECK-NEXT:      %[[PY:.*]] = taichi.element_ptr %[[Y]][%[[I]]] : memref<?xf32> -> memref<f32>
# CHECK-NEXT:      %[[VY:.*]] = memref.load %[[PY]][] : memref<f32>
# CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[AX]], %[[VY]] : f32
# CHECK-NEXT:      %[[PY2:.*]] = taichi.element_ptr %[[Y]][%[[I]]] : memref<?xf32> -> memref<f32>
# CHECK-NEXT:      memref.store %[[SUM]], %[[PY2]][] : memref<f32>
# CHECK-NEXT:      taichi.yield
# CHECK-NEXT:    }
# CHECK-NEXT:    taichi.return
# CHECK-NEXT:  }
