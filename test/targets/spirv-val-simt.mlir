// REQUIRES: spirv-tools
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{caps="spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic+spirv_has_subgroup_ballot+spirv_has_subgroup_shuffle+spirv_has_subgroup_shuffle_relative+spirv_has_subgroup_vote"}' -t spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv

// Every ti.simt op lowered for Vulkan in one task: spirv-val accepts the module under
// Vulkan 1.1 rules (SPIR-V 1.3: Broadcast by a constant index, built-ins in the interface).

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
