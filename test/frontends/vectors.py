# RUN: %python %s | filecheck %s
# Vector fields: a Vector.field(2) of shape (8,) is a memref<8x2xf32>; whole elements
# are read with vector.load + vector.extract and written with vector.insert +
# vector.store (ti-scalarize splits them); `+=` on an element is one atomic per
# component; arithmetic on vectors is already scalar.

import taichi_xdsl as ti

ti.init(arch=ti.cpu)

x = ti.Vector.field(2, ti.f32, shape=8, name="x")


@ti.kernel
def scale(a: ti.f32):
    for i in range(8):
        x[i] = x[i] * a
        x[i] += [1.0, 2.0]


print(scale.get_ir(2.0))

# CHECK:       taichi.field @x : memref<8x2xf32>
# CHECK-LABEL: taichi.kernel @scale
# CHECK-SAME:    (%[[A:.*]]: f32) {
# CHECK:         taichi.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
# CHECK-NEXT:      %[[II:.*]] = arith.index_cast %[[I]] : i32 to index
# CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
# CHECK-NEXT:      %[[V:.*]] = vector.load %{{.*}}[%[[II]], %[[C0]]] : memref<8x2xf32>, vector<2xf32>
# CHECK-NEXT:      %[[V0:.*]] = vector.extract %[[V]][0] : f32 from vector<2xf32>
# CHECK-NEXT:      %[[V1:.*]] = vector.extract %[[V]][1] : f32 from vector<2xf32>
# CHECK-NEXT:      %[[M0:.*]] = arith.mulf %[[V0]], %[[A]] : f32
# CHECK-NEXT:      %[[M1:.*]] = arith.mulf %[[V1]], %[[A]] : f32
# CHECK-NEXT:      %[[B:.*]] = vector.broadcast %[[M0]] : f32 to vector<2xf32>
# CHECK-NEXT:      %[[W:.*]] = vector.insert %[[M1]], %[[B]] [1] : f32 into vector<2xf32>
# CHECK:           vector.store %[[W]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x2xf32>, vector<2xf32>
# CHECK:           %[[P0:.*]] = taichi.element_ptr %{{.*}}[%[[I]], %{{.*}}] : memref<8x2xf32> -> memref<f32>
# CHECK:           taichi.atomic_add %[[P0]], %{{.*}} : memref<f32>
# CHECK:           %[[P1:.*]] = taichi.element_ptr %{{.*}}[%[[I]], %{{.*}}] : memref<8x2xf32> -> memref<f32>
# CHECK:           taichi.atomic_add %[[P1]], %{{.*}} : memref<f32>
