// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="none" root-segment-bytes=1024}' --split-input-file | filecheck %s
// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="none"}' --split-input-file | filecheck %s --check-prefix=ONE

// Segments of 1024 bytes: @a (offset 64) is in segment 0 (binding 0) at element 16;
// @b (offset 2048 + 128) in segment 2 at element 32. With one ndarray argument and no
// texture, segment k >= 1 is bound after the ndarray: binding 6 + 1 + k - 1 = 8. Every
// task module of the kernel records that it binds three segments. Segment 0 is only
// read (NonWritable): the segments hold disjoint bytes, so @b's stores do not alias it.
// CHECK:       spirv.module Logical GLSL450 {{.*}} attributes {ti.root_segments = 3 : i64, ti.kernel = "two_segments", ti.task = 0 : i64}
// CHECK-DAG:     spirv.GlobalVariable @root2_f32 bind(0, 8) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])
// CHECK-DAG:     spirv.GlobalVariable @root_f32 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0, NonWritable])
// CHECK-LABEL: spirv.func @two_segments__task0() "None" {
// CHECK-NEXT:    %[[S0:.*]] = spirv.Constant 16 : i32
// CHECK-NEXT:    %[[A:.*]] = spirv.mlir.addressof @root_f32
// CHECK-NEXT:    %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[S2:.*]] = spirv.Constant 32 : i32
// CHECK-NEXT:    %[[B:.*]] = spirv.mlir.addressof @root2_f32
// CHECK:         %[[AT0:.*]] = spirv.IAdd %{{.*}}, %[[S0]] : i32
// CHECK-NEXT:    %{{.*}} = spirv.AccessChain %[[A]][%[[Z]], %[[AT0]]]
// CHECK-NEXT:    %[[AT2:.*]] = spirv.IAdd %{{.*}}, %[[S2]] : i32
// CHECK-NEXT:    %{{.*}} = spirv.AccessChain %[[B]][%[[Z]], %[[AT2]]]

// One root buffer (no root-segment-bytes): @b stays in binding 0, at element 544, and
// the module records no segments.
// ONE:         spirv.module Logical GLSL450 {{.*}} attributes {ti.kernel = "two_segments", ti.task = 0 : i64}
// ONE-NOT:       bind(0, 8)
// ONE-LABEL:   spirv.func @two_segments__task0() "None" {
// ONE:           %{{.*}} = spirv.Constant 16 : i32
// ONE:           %{{.*}} = spirv.Constant 544 : i32
taichi.field @a : memref<8xf32> offset 64
taichi.field @b : memref<8xf32> offset 2176
offload.kernel @two_segments : (memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = taichi.get_field @a : memref<8xf32>
    %b = taichi.get_field @b : memref<8xf32>
    %pa = taichi.element_ptr %a[%i] : memref<8xf32> -> memref<f32>
    %pb = taichi.element_ptr %b[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %pa[] : memref<f32>
    memref.store %v, %pb[] : memref<f32>
  }
}
