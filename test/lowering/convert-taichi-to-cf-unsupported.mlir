// RUN: ti-opt %s -p convert-taichi-to-cf --split-input-file --verify-diagnostics | filecheck %s

// A struct_for runs only as an outermost loop, which ti-offload makes a task of its own.
// CHECK: convert-taichi-to-cf-unsupported.mlir:[[# @LINE + 5]]:5: error: convert-taichi-to-cf: a struct_for inside a task; only an outermost struct_for runs, as a task of its own
taichi.field @x : memref<8xf32> offset 0
offload.kernel @struct_for_in_task : () -> () {
  offload.serial {
    %x = taichi.get_field @x : memref<8xf32>
    taichi.struct_for (%i) in %x : memref<8xf32> {
      taichi.yield
    }
  }
}
