// RUN: ti-opt %s -p ti-to-spirv | filecheck %s

// The named pipeline: ti-to-offload, then the three conversions. A kernel whose parallel
// loop needs a bound computed by a serial task gives two modules, one per task.
// CHECK:       builtin.module {
// CHECK-NEXT:    taichi.field @x : memref<256xf32> offset 0
// CHECK-NEXT:    spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "scale", ti.task = 0 : i64} {
// CHECK:           spirv.func @scale__task0() "None" {
// CHECK:           spirv.ExecutionMode @scale__task0 "LocalSize", 1, 1, 1
// CHECK:         spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "scale", ti.task = 1 : i64} {
// CHECK:           spirv.func @scale__task1() "None" {
// CHECK:             spirv.FMul
// CHECK:           spirv.EntryPoint "GLCompute" @scale__task1, @gid, @nwg
// CHECK-NEXT:      spirv.ExecutionMode @scale__task1 "LocalSize", 128, 1, 1
// CHECK-NOT:     taichi.kernel
// CHECK-NOT:     offload.kernel
taichi.field @x : memref<256xf32> offset 0

taichi.kernel @scale(%a: f32, %n: i32) {
  %x = taichi.get_field @x : memref<256xf32>
  %lo = arith.constant 0 : i32
  %two = arith.constant 2 : i32
  %hi = arith.muli %n, %two : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %x[%i] : memref<256xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %w = arith.mulf %v, %a : f32
    memref.store %w, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
