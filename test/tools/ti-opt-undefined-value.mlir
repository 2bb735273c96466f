// RUN: not ti-opt %s -p ti-offload 2>&1 | filecheck %s
// A value used in a kernel but defined in another one: xDSL's parser reported it at the
// end of the input; the diagnostic names the use.

// CHECK-NOT: Traceback
// CHECK: ti-opt-undefined-value.mlir:[[# @LINE + 9]]:3: error: use of undefined value '%c'
// CHECK-NEXT: memref.store %c, %q[] : memref<f32>
taichi.kernel @defines(%a: memref<?xf32>) {
  %c = arith.constant 1.0 : f32
  taichi.return
}
taichi.kernel @uses(%a: memref<?xf32>) {
  %p = arith.constant 0 : i32
  %q = taichi.element_ptr %a[%p] : memref<?xf32> -> memref<f32>
  memref.store %c, %q[] : memref<f32>
  taichi.return
}
