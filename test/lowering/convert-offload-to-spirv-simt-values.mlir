// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_subgroup_basic+spirv_has_subgroup_vote"}' | filecheck %s

// A vote on an i32 asks whether it is nonzero; a vote and elect give 1 or 0.
// CHECK-LABEL: spirv.func @vote__task0()
// CHECK:         %a = spirv.Constant 0 : i32
// CHECK-NEXT:    %a_1 = spirv.INotEqual %i, %a : i32
// CHECK-NEXT:    %a_2 = spirv.GroupNonUniformAny <Subgroup> %a_1 : i1 -> i1
// CHECK-NEXT:    %a_3 = spirv.Constant 1 : i32
// CHECK-NEXT:    %a_4 = spirv.Constant 0 : i32
// CHECK-NEXT:    %a_5 = spirv.Select %a_2, %a_3, %a_4 : i1, i32
// CHECK-NEXT:    %e = spirv.GroupNonUniformElect <Subgroup> : i1
// CHECK-NEXT:    %e_1 = spirv.Constant 1 : i32
// CHECK-NEXT:    %e_2 = spirv.Constant 0 : i32
// CHECK-NEXT:    %e_3 = spirv.Select %e, %e_1, %e_2 : i1, i32
// CHECK-NEXT:    %s = spirv.IAdd %a_5, %e_3 : i32
offload.kernel @vote : (memref<?xi32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = taichi.subgroup_vote any %i : i32
    %e = taichi.simt_id elect : i32
    %s = spirv.IAdd %a, %e : i32
    %x = offload.arg 0 : memref<?xi32>
    %p = taichi.element_ptr %x[%i] : memref<?xi32> -> memref<i32>
    memref.store %s, %p[] : memref<i32>
  }
}
