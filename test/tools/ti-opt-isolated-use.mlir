// RUN: not ti-opt %s -p ti-offload 2>&1 | filecheck %s
// A module-level value used inside a kernel (isolated from above): the diagnostic
// points at the use, not at the kernel around it.

// CHECK-NOT: Traceback
// CHECK: ti-opt-isolated-use.mlir:[[# @LINE + 7]]:5: error: Operation using value defined out of its IsolatedFromAbove parent
%c = arith.constant 1.0 : f32
taichi.kernel @k(%a: memref<?xf32>) {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 4 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %a[%i] : memref<?xf32> -> memref<f32>
    memref.store %c, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
