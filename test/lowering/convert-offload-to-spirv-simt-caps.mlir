// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_subgroup_basic+spirv_has_subgroup_shuffle"}' --split-input-file --verify-diagnostics | filecheck %s

// Each subgroup op names the class of subgroup operations it needs beyond the basic ones.

// a broadcast of the first active value needs ballot
// CHECK: convert-offload-to-spirv-simt-caps.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: 'taichi.subgroup_broadcast_first' needs the device's subgroup ballot operations (spirv_has_subgroup_ballot), which the target lacks
offload.kernel @k : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %f = taichi.subgroup_broadcast_first %i : i32
  }
}

// -----

// a broadcast from a constant lane needs ballot too
// CHECK: convert-offload-to-spirv-simt-caps.mlir:[[# @LINE + 6]]:5: error: convert-offload-to-spirv: 'taichi.subgroup_shuffle' needs the device's subgroup ballot operations (spirv_has_subgroup_ballot), which the target lacks
offload.kernel @k : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %c0 = spirv.Constant 0 : i32
    %b = taichi.subgroup_shuffle broadcast %i, %c0 : i32
  }
}

// -----

// a relative shuffle (up, down) needs shuffle_relative, not shuffle
// CHECK: convert-offload-to-spirv-simt-caps.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: 'taichi.subgroup_shuffle' needs the device's subgroup shuffle_relative operations (spirv_has_subgroup_shuffle_relative), which the target lacks
offload.kernel @k : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %b = taichi.subgroup_shuffle up %i, %i : i32
  }
}
