# RUN: %python %s | filecheck %s
# A 5-point stencil over ti.ndrange((1, n-1), (1, n-1)) on 2-d fields: the two loops are
# flattened into one taichi.range_for over (n-2)*(n-2) iterations; i and j are recovered
# with divsi/remsi and shifted by the range begins.

import taichi_xdsl as ti

ti.init(arch=ti.cpu)

n = 64
u = ti.field(ti.f32, shape=(n, n), name="u")
w = ti.field(ti.f32, shape=(n, n), name="w")


@ti.kernel
def stencil():
    for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
        w[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]


print(stencil.get_ir())

# CHECK:       taichi.field @u : memref<64x64xf32> offset 0
# CHECK-NEXT:  taichi.field @w : memref<64x64xf32> offset 16384
# CHECK-LABEL: taichi.kernel @stencil() {
# CHECK-NEXT:    %[[U:.*]] = taichi.get_field @u : memref<64x64xf32>
# CHECK-NEXT:    %[[W:.*]] = taichi.get_field @w : memref<64x64xf32>
# CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
# CHECK-NEXT:    %[[HI:.*]] = arith.constant 3844 : i32
# CHECK-NEXT:    taichi.range_for %[[T:.*]] = %[[LO]] to %[[HI]] : i32 {
# CHECK-NEXT:      %[[EXT:.*]] = arith.constant 62 : i32
# CHECK-NEXT:      %[[REM:.*]] = arith.remsi %[[T]], %[[EXT]] : i32
# CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
# CHECK-NEXT:      %[[J:.*]] = arith.addi %[[REM]], %[[ONE]] : i32
# CHECK-NEXT:      %[[DIV:.*]] = arith.divsi %[[T]], %[[EXT]] : i32
# CHECK-NEXT:      %[[ONE2:.*]] = arith.constant 1 : i32
# CHECK-NEXT:      %[[I:.*]] = arith.addi %[[DIV]], %[[ONE2]] : i32
# CHECK:           %[[IM1:.*]] = arith.subi %[[I]], %{{.*}} : i32
# CHECK-NEXT:      %{{.*}} = taichi.element_ptr %[[U]][%[[IM1]], %[[J]]] : memref<64x64xf32> -> memref<f32>
# CHECK:           %[[C:.*]] = arith.constant 2.500000e-01 : f32
# CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[C]], %{{.*}} : f32
# CHECK-NEXT:      %[[PC:.*]] = taichi.element_ptr %[[U]][%[[I]], %[[J]]] : memref<64x64xf32> -> memref<f32>
# CHECK-NEXT:      %[[VC:.*]] = memref.load %[[PC]][] : memref<f32>
# CHECK-NEXT:      %[[RES:.*]] = arith.subf %[[SCALED]], %[[VC]] : f32
# CHECK-NEXT:      %[[PW:.*]] = taichi.element_ptr %[[W]][%[[I]], %[[J]]] : memref<64x64xf32> -> memref<f32>
# CHECK-NEXT:      memref.store %[[RES]], %[[PW]][] : memref<f32>
# CHECK-NEXT:      taichi.yield
# CHECK-NEXT:    }
# CHECK-NEXT:    taichi.return
# CHECK-NEXT:  }
