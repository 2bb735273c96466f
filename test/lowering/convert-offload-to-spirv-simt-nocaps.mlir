// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="none"}' --split-input-file --verify-diagnostics | filecheck %s

// Without subgroup support: a subgroup barrier, elect and the invocation id are refused
// by name; a workgroup barrier needs no subgroup operations.

// CHECK: convert-offload-to-spirv-simt-nocaps.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: 'taichi.barrier' needs the device's subgroup basic operations (spirv_has_subgroup_basic), which the target lacks
offload.kernel @k : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    taichi.barrier subgroup
  }
}

// -----

// CHECK: convert-offload-to-spirv-simt-nocaps.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: 'taichi.simt_id' needs the device's subgroup basic operations (spirv_has_subgroup_basic), which the target lacks
offload.kernel @k : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %e = taichi.simt_id elect : i32
  }
}

// -----

// CHECK: convert-offload-to-spirv-simt-nocaps.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: 'taichi.simt_id' needs the device's subgroup basic operations (spirv_has_subgroup_basic), which the target lacks
offload.kernel @k : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %e = taichi.simt_id invocation_id : i32
  }
}

// -----

// CHECK-LABEL: spirv.func @k__task0()
// CHECK:         spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory>
offload.kernel @k : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    taichi.barrier workgroup
  }
}
