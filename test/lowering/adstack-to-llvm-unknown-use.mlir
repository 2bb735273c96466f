// RUN: ti-opt %s --allow-unregistered-dialect -p convert-offload-to-llvm --verify-diagnostics | filecheck %s

// An adstack used by an op the lowering does not know (only push, pop, load_top and the
// adjoint ops are) is named, never dropped.
// CHECK: adstack-to-llvm-unknown-use.mlir:[[# @LINE + 4]]:5: error: the adstack lowering: 'test.op' of an adstack
offload.kernel @odd_use : () -> () {
  offload.serial {
    %s = taichi.adstack_alloca : !taichi.adstack<f32, 4>
    "test.op"(%s) : (!taichi.adstack<f32, 4>) -> ()
  }
}
