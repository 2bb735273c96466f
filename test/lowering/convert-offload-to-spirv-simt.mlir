// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{caps="spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic+spirv_has_subgroup_ballot+spirv_has_subgroup_shuffle+spirv_has_subgroup_shuffle_relative+spirv_has_subgroup_vote"}' | filecheck %s
// RUN: not ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{caps="spirv_has_subgroup_basic"}' 2>&1 | filecheck %s --check-prefix=NOCAP

// The ti.simt ops on Vulkan: subgroup reductions, scans, shuffles, broadcasts and votes
// become non-uniform group instructions of the Subgroup scope, ids built-in inputs (added
// to the entry point's interface), a shared array a Workgroup variable, barriers OpControlBarrier / OpMemoryBarrier; the module
// declares the capability of each class used.

// CHECK:      spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic, GroupNonUniformBallot, GroupNonUniformShuffle, GroupNonUniformShuffleRelative, GroupNonUniformVote]
// CHECK-DAG:    spirv.GlobalVariable @shared_0 : !spirv.ptr<!spirv.array<256 x i32>, Workgroup>
// CHECK-DAG:    spirv.GlobalVariable @local_id built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
// CHECK-DAG:    spirv.GlobalVariable @subgroup_invocation_id built_in("SubgroupLocalInvocationId") : !spirv.ptr<i32, Input>
// CHECK:        %[[S:.*]] = spirv.GroupNonUniformFAdd <Subgroup> <InclusiveScan> %{{.*}} : f32 -> f32
// CHECK-NEXT:   %[[M:.*]] = spirv.GroupNonUniformUMax <Subgroup> <ExclusiveScan> %{{.*}} : i32 -> i32
// CHECK-NEXT:   %[[R:.*]] = spirv.GroupNonUniformShuffleDown <Subgroup> %[[S]], %{{.*}} : f32, i32 -> f32
// CHECK-NEXT:   %[[B:.*]] = spirv.GroupNonUniformBroadcast <Subgroup> %[[R]], %{{.*}} : f32, i32 -> f32
// CHECK-NEXT:   %[[X:.*]] = spirv.GroupNonUniformShuffle <Subgroup> %[[B]], %{{.*}} : f32, i32 -> f32
// CHECK-NEXT:   %[[F:.*]] = spirv.GroupNonUniformBroadcastFirst <Subgroup> %[[X]] : f32 -> f32
// CHECK:        %[[NZ:.*]] = spirv.INotEqual %[[M]], %{{.*}} : i32
// CHECK-NEXT:   %[[ANY:.*]] = spirv.GroupNonUniformAny <Subgroup> %[[NZ]] : i1 -> i1
// CHECK:        spirv.Select %[[ANY]], %{{.*}}, %{{.*}} : i1, i32
// CHECK:        %[[EQ:.*]] = spirv.GroupNonUniformAllEqual <Subgroup> %[[F]] : f32 -> i1
// CHECK:        %[[E:.*]] = spirv.GroupNonUniformElect <Subgroup> : i1
// CHECK:        %[[P:.*]] = spirv.mlir.addressof @subgroup_invocation_id : !spirv.ptr<i32, Input>
// CHECK-NEXT:   %{{.*}} = spirv.Load "Input" %[[P]] : i32
// CHECK:        %[[L:.*]] = spirv.mlir.addressof @local_id : !spirv.ptr<vector<3xi32>, Input>
// CHECK-NEXT:   %[[LV:.*]] = spirv.Load "Input" %[[L]] : vector<3xi32>
// CHECK-NEXT:   %{{.*}} = spirv.CompositeExtract %[[LV]][0 : i32] : vector<3xi32>
// CHECK:        %[[SH:.*]] = spirv.mlir.addressof @shared_0 : !spirv.ptr<!spirv.array<256 x i32>, Workgroup>
// CHECK-NEXT:   %[[SP:.*]] = spirv.AccessChain %[[SH]][%{{.*}}] : !spirv.ptr<!spirv.array<256 x i32>, Workgroup>, i32 -> !spirv.ptr<i32, Workgroup>
// CHECK-NEXT:   spirv.Store "Workgroup" %[[SP]], %{{.*}} : i32
// CHECK-NEXT:   spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory>
// CHECK:        spirv.AtomicIAdd <Workgroup> <None> %{{.*}}, %{{.*}} : !spirv.ptr<i32, Workgroup>
// CHECK-NEXT:   spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory|WorkgroupMemory>
// CHECK:      spirv.EntryPoint "GLCompute" @simt__task0, @gid, @nwg, @subgroup_invocation_id, @local_id

// Without a class of subgroup operations in the caps, the op's line is named.
// NOCAP: convert-offload-to-spirv-simt.mlir:{{[0-9]+}}:{{[0-9]+}}: error: convert-offload-to-spirv: 'taichi.subgroup_reduce' needs the device's subgroup arithmetic operations (spirv_has_subgroup_arithmetic), which the target lacks
taichi.field @x : memref<256xf32> offset 0
taichi.field @n : memref<256xi32> offset 1024

taichi.kernel @simt() {
  %x = taichi.get_field @x : memref<256xf32>
  %n = taichi.get_field @n : memref<256xi32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 256 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %px = taichi.element_ptr %x[%i] : memref<256xf32> -> memref<f32>
    %pn = taichi.element_ptr %n[%i] : memref<256xi32> -> memref<i32>
    %v = memref.load %px[] : memref<f32>
    %s = taichi.subgroup_reduce add inclusive %v : f32
    %m = taichi.subgroup_reduce max exclusive unsigned %i : i32
    %r = taichi.subgroup_shuffle down %s, %i : f32
    %c0 = arith.constant 0 : i32
    %b = taichi.subgroup_shuffle broadcast %r, %c0 : f32
    %xb = taichi.subgroup_shuffle index %b, %i : f32
    %f = taichi.subgroup_broadcast_first %xb : f32
    %a = taichi.subgroup_vote any %m : i32
    %q = taichi.subgroup_vote all_equal %f : f32
    %e = taichi.simt_id elect : i32
    %k = taichi.simt_id invocation_id : i32
    %t = taichi.simt_id thread_idx : i32
    %sh = taichi.shared_array 0 : memref<4x64xi32>
    %sp = taichi.element_ptr %sh[%k, %t] : memref<4x64xi32> -> memref<i32>
    memref.store %e, %sp[] : memref<i32>
    taichi.barrier workgroup
    %sq = taichi.element_ptr %sh[%c0, %c0] : memref<4x64xi32> -> memref<i32>
    %old = taichi.atomic_add %sq, %e : memref<i32>
    taichi.barrier device memory_only
    %sum1 = arith.addi %a, %q : i32
    %sum2 = arith.addi %sum1, %e : i32
    %sum3 = arith.addi %sum2, %k : i32
    %sum4 = arith.addi %sum3, %old : i32
    memref.store %sum4, %pn[] : memref<i32>
    memref.store %f, %px[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
