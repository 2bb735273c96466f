// RUN: ti-opt %s -p convert-offload-to-llvm --split-input-file --verify-diagnostics | filecheck %s

// The task ABI passes the range as two i32.
// CHECK: convert-offload-to-llvm-unsupported.mlir:[[# @LINE + 4]]:3: error: convert-offload-to-llvm: a range_for over index; the CPU task ABI passes i32 bounds
offload.kernel @index_range : () -> () {
  %lo = arith.constant 0 : index
  %hi = arith.constant 8 : index
  offload.range_for %i = %lo to %hi : index {
  }
}

// -----

// A struct_for task is a range_for over the flattened indices by the time it gets here.
// CHECK: convert-offload-to-llvm-unsupported.mlir:[[# @LINE + 3]]:3: error: convert-offload-to-llvm: 'offload.struct_for' needs ti-demote-dense-struct-for first
taichi.field @x : memref<4x8xf32> offset 0
offload.kernel @struct_for_task : () -> () {
  offload.struct_for @x : memref<4x8xf32> {
  ^bb0(%i: i32, %j: i32):
  }
}

// -----

// Places are ti-lower-access's business: the pipeline runs it first.
// CHECK: convert-offload-to-llvm-unsupported.mlir:[[# @LINE + 4]]:5: error: convert-offload-to-llvm: 'taichi.get_field' left in a task; run ti-lower-access and convert-taichi-to-cf first
taichi.field @x : memref<8xf32> offset 0
offload.kernel @access_not_lowered : () -> f32 {
  offload.serial {
    %x = taichi.get_field @x : memref<8xf32>
    %i = arith.constant 1 : i32
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    offload.set_return 0, %v : f32
  }
}

// -----

// printf has no conversion for a 128-bit integer: rejected by name, never truncated.
// CHECK: convert-offload-to-llvm-unsupported.mlir:[[# @LINE + 4]]:5: error: convert-offload-to-llvm: cannot print a i128
offload.kernel @print_i128 : () -> () {
  offload.serial {
    %i = arith.constant 3 : i128
    taichi.print "{}" %i : i128
  }
}

// -----

// A print's format string is a global of its kernel or real function: a print
// outside both has none.
// CHECK: convert-offload-to-llvm-unsupported.mlir:[[# @LINE + 2]]:1: error: convert-offload-to-llvm: 'taichi.print' outside a kernel
%v = arith.constant 1 : i32
taichi.print "{}" %v : i32
