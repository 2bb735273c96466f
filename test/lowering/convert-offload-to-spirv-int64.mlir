// RUN: ti-opt %s -p convert-offload-to-spirv | filecheck %s

// An ndarray's shape taken as i64 (default_ip=i64): the i32 shape word of the argument
// buffer, widened by SConvert.
// CHECK:       spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Int64],
// CHECK-LABEL: spirv.func @shape_i64__task0
// CHECK:         %[[WORD:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK-NEXT:    %[[N:.*]] = spirv.SConvert %[[WORD]] : i32 to i64
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[N]] : i64
offload.kernel @shape_i64 : (memref<?xi64>) -> () {
  offload.serial {
    %x = offload.arg 0 : memref<?xi64>
    %c0 = arith.constant 0 : index
    %d = memref.dim %x, %c0 : memref<?xi64>
    %n = arith.index_cast %d : index to i64
    %z = spirv.Constant 0 : i32
    %p = taichi.element_ptr %x[%z] : memref<?xi64> -> memref<i64>
    memref.store %n, %p[] : memref<i64>
  }
}
