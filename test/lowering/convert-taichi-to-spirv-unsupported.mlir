// RUN: ti-opt %s -p convert-taichi-to-spirv --split-input-file --verify-diagnostics | filecheck %s

// A while loop without a break never ends: rejected.
// CHECK: convert-taichi-to-spirv-unsupported.mlir:[[# @LINE + 2]]:3: error: convert-taichi-to-spirv: a 'taichi.while' without a taichi.break never ends
func.func @while_without_break(%out: memref<i32>, %v: i32) {
  taichi.while {
    memref.store %v, %out[] : memref<i32>
    taichi.yield
  }
  func.return
}

// -----

// A serial struct_for must be demoted to a range_for first.
// CHECK: convert-taichi-to-spirv-unsupported.mlir:[[# @LINE + 2]]:3: error: convert-taichi-to-spirv: a serial 'taichi.struct_for' has no SPIR-V lowering
func.func @serial_struct_for(%x: memref<4xf32>) {
  taichi.struct_for (%i) in %x : memref<4xf32> {
    taichi.yield
  }
  func.return
}

// -----

// Local arrays have no lowering.
// CHECK: convert-taichi-to-spirv-unsupported.mlir:[[# @LINE + 2]]:3: error: convert-taichi-to-spirv: only 0-d local slots have a SPIR-V lowering
func.func @local_array() {
  %a = memref.alloca() : memref<4xf32>
  func.return
}

// -----

// SPIR-V has no index type: a range_for over index values is refused by name.
// CHECK: convert-taichi-to-spirv-unsupported.mlir:[[# @LINE + 3]]:3: error: convert-taichi-to-spirv: a 'taichi.range_for' over index values
func.func @index_loop(%n: index) {
  %lo = arith.constant 0 : index
  taichi.range_for %i = %lo to %n : index {
    taichi.yield
  }
  func.return
}
