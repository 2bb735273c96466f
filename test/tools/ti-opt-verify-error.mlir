// RUN: not ti-opt %s 2>&1 | filecheck %s
// An op failing its verifier: the diagnostic points at the op, exit status 1.

// CHECK-NOT: Traceback
// CHECK: ti-opt-verify-error.mlir:[[# @LINE + 6]]:3: error: 'taichi.element_ptr' indexes a 1-d memref<?xf32> with 2 indices
// CHECK-NEXT: %p = taichi.element_ptr
// CHECK-NEXT: ^
// CHECK-NOT: Traceback
taichi.kernel @k(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %p = taichi.element_ptr %x[%c0, %c0] : memref<?xf32> -> memref<f32>
  taichi.return
}
