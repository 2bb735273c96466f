// RUN: ti-opt %s -p convert-offload-to-llvm --split-input-file --verify-diagnostics | filecheck %s

// A stack too large for a CPU thread's stack is refused, naming the option to lower.
// CHECK: adstack-to-llvm-unsupported.mlir:[[# @LINE + 3]]:5: error: an adstack of 1000000 values of f64 is more than 1048576 bytes of a CPU thread's stack; lower ti.init(ad_stack_size=...)
offload.kernel @huge : () -> () {
  offload.serial {
    %s = taichi.adstack_alloca : !taichi.adstack<f64, 1000000>
  }
}

// -----

// One f64 past 1 MiB (131073 x 8 bytes) is refused too.
// CHECK: adstack-to-llvm-unsupported.mlir:[[# @LINE + 3]]:5: error: an adstack of 131073 values of f64 is more than 1048576 bytes of a CPU thread's stack; lower ti.init(ad_stack_size=...)
offload.kernel @just_over : () -> () {
  offload.serial {
    %s = taichi.adstack_alloca : !taichi.adstack<f64, 131073>
  }
}
