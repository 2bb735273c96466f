// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_int64+spirv_has_atomic_int64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic"}' | filecheck %s

// The workgroup combine (lowering/spirv_reduce.py) for each kind it takes: an unsigned
// min reduces with UMin in the subgroup, in the fold of the partials and in the final
// atomic; an i64 add with IAdd; each combined atomic gets its own Workgroup array of one
// slot an invocation (block_dim 64 here) and its own barrier. An atomic whose result is
// used is not a reduction's combine and stays one an invocation.

// CHECK:         spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic, Int64, Int64Atomics]
// CHECK-DAG:     spirv.GlobalVariable @combine_0 : !spirv.ptr<!spirv.array<64 x i32>, Workgroup>
// CHECK-DAG:     spirv.GlobalVariable @combine_1 : !spirv.ptr<!spirv.array<64 x i64>, Workgroup>
// CHECK-LABEL:   spirv.func @kinds__task0() "None" {
// CHECK:           %[[M:.*]] = spirv.GroupNonUniformUMin <Subgroup> <Reduce> %{{.*}} : i32 -> i32
// CHECK:           spirv.Store "Workgroup" %{{.*}}, %[[M]] : i32
// CHECK:           spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK:             %{{.*}} = spirv.GL.UMin %{{.*}}, %{{.*}} : i32
// CHECK:           %[[MT:.*]] = spirv.GroupNonUniformUMin <Subgroup> <Reduce> %{{.*}} : i32 -> i32
// CHECK:           %{{.*}} = spirv.AtomicUMin <Device> <None> %{{.*}}, %[[MT]] : !spirv.ptr<i32, StorageBuffer>
// CHECK:           %[[S:.*]] = spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %{{.*}} : i64 -> i64
// CHECK:           spirv.Store "Workgroup" %{{.*}}, %[[S]] : i64
// CHECK:           spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK:             %{{.*}} = spirv.IAdd %{{.*}}, %{{.*}} : i64
// CHECK:           %[[ST:.*]] = spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %{{.*}} : i64 -> i64
// CHECK:           %{{.*}} = spirv.AtomicIAdd <Device> <None> %{{.*}}, %[[ST]] : !spirv.ptr<i64, StorageBuffer>
// CHECK-NOT:       spirv.ControlBarrier
// CHECK:           %[[KEPT:.*]] = spirv.AtomicIAdd <Device> <None> %{{.*}}, %{{.*}} : !spirv.ptr<i32, StorageBuffer>
// CHECK-NOT:       spirv.ControlBarrier
// CHECK:           spirv.Return
// CHECK:         spirv.ExecutionMode @kinds__task0 "LocalSize", 64, 1, 1
offload.kernel @kinds : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 100000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %m = offload.thread_local 0 : memref<i32>
    %old = memref.load %m[] : memref<i32>
    %new = spirv.IAdd %old, %i : i32
    memref.store %new, %m[] : memref<i32>
  } prologue {
    %m = offload.thread_local 0 : memref<i32>
    %c = spirv.Constant -1 : i32
    memref.store %c, %m[] : memref<i32>
  } epilogue {
    %m = offload.thread_local 0 : memref<i32>
    %v = memref.load %m[] : memref<i32>
    %f = taichi.get_field @least : memref<i32>
    %p = taichi.element_ptr %f[] : memref<i32> -> memref<i32>
    %o = taichi.atomic_min unsigned %p, %v : memref<i32>
    %w = spirv.SConvert %v : i32 to i64
    %g = taichi.get_field @total : memref<i64>
    %q = taichi.element_ptr %g[] : memref<i64> -> memref<i64>
    %o2 = taichi.atomic_add %q, %w : memref<i64>
    %h = taichi.get_field @count : memref<i32>
    %r = taichi.element_ptr %h[] : memref<i32> -> memref<i32>
    %one = spirv.Constant 1 : i32
    %before = taichi.atomic_add %r, %one : memref<i32>
    %z = taichi.get_field @seen : memref<i32>
    %zp = taichi.element_ptr %z[] : memref<i32> -> memref<i32>
    memref.store %before, %zp[] : memref<i32>
  } {block_dim = 64 : i64}
}
taichi.field @least : memref<i32> offset 0
taichi.field @total : memref<i64> offset 8
taichi.field @count : memref<i32> offset 16
taichi.field @seen : memref<i32> offset 20
