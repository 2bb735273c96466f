// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic+spirv_has_atomic_float_add" combine-block-dim=256}' | filecheck %s

// The last workgroup's part of an epilogue (offload.last_group, ti-fuse-serial-reduction;
// lowering/spirv_reduce.py): after the workgroup combine into the accumulator, a
// device-scope release barrier and the workgroup barrier; invocation 0 counts the group
// finished (atomic add on the counter), an acquire barrier, and the group that counts
// NumWorkgroups - 1 runs the body and resets the counter. A range_for that combines in
// the workgroup gets combine-block-dim invocations a group.

// CHECK-LABEL:   spirv.func @sum__task0() "None" {
// CHECK:           %{{.*}} = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %{{.*}} : f32 -> f32
// CHECK:           %{{.*}} = spirv.EXT.AtomicFAdd <Device> <None> %{{.*}}, %{{.*}} : !spirv.ptr<f32, StorageBuffer>
// CHECK:           spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
// CHECK-NEXT:      spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK-NEXT:      %[[LA:.*]] = spirv.mlir.addressof @local_index : !spirv.ptr<i32, Input>
// CHECK-NEXT:      %[[L:.*]] = spirv.Load "Input" %[[LA]] : i32
// CHECK-NEXT:      %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:      %[[FIRST:.*]] = spirv.IEqual %[[L]], %[[Z]] : i32
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[FIRST]]
// CHECK:             %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK:             %[[DONE:.*]] = spirv.AtomicIAdd <Device> <None> %{{.*}}, %[[ONE]] : !spirv.ptr<i32, StorageBuffer>
// CHECK-NEXT:        spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
// CHECK:             %[[N:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : vector<3xi32>
// CHECK-NEXT:        %[[BEFORE:.*]] = spirv.ISub %[[N]], %[[ONE]] : i32
// CHECK-NEXT:        %[[LAST:.*]] = spirv.IEqual %[[DONE]], %[[BEFORE]] : i32
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[LAST]]
// CHECK:               spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} : f32
// CHECK:               %[[SUM:.*]] = spirv.EXT.AtomicFAdd <Device> <None> %{{.*}}, %{{.*}} : !spirv.ptr<f32, StorageBuffer>
// CHECK:               spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} : f32
// CHECK:               %{{.*}} = spirv.EXT.AtomicFAdd <Device> <None> %{{.*}}, %[[SUM]] : !spirv.ptr<f32, StorageBuffer>
// CHECK:               spirv.Store "StorageBuffer" %{{.*}}, %[[Z]] : i32
// CHECK:         spirv.EntryPoint "GLCompute" @sum__task0, @gid, @nwg, {{.*}}@local_index
// CHECK:         spirv.ExecutionMode @sum__task0 "LocalSize", 256, 1, 1
offload.kernel @sum : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1000000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %acc = offload.global_tmp 0 : memref<f32>
    %r0 = taichi.atomic_add %acc, %av : memref<f32>
    %count = offload.global_tmp 8 : memref<i32>
    offload.last_group %count : memref<i32> {
      %z = spirv.Constant 0.000000e+00 : f32
      memref.store %z, %tp[] : memref<f32>
      %acc2 = offload.global_tmp 0 : memref<f32>
      %s = taichi.atomic_add %acc2, %z : memref<f32>
      memref.store %z, %acc2[] : memref<f32>
      %r1 = taichi.atomic_add %tp, %s : memref<f32>
    }
  }
}

// A block_dim keeps its size; a range_for without a combine keeps 128.
// CHECK: spirv.ExecutionMode @sized__task0 "LocalSize", 64, 1, 1
// CHECK: spirv.ExecutionMode @sized__task1 "LocalSize", 128, 1, 1
offload.kernel @sized : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1000000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %r0 = taichi.atomic_add %tp, %av : memref<f32>
  } {block_dim = 64 : i64}
  offload.range_for %i = %lo to %hi : i32 {
    %t = taichi.get_field @total : memref<f32>
  }
}
taichi.field @total : memref<f32> offset 0
