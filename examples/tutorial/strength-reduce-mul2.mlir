// RUN: ti-opt %s --pass-plugin %S/strength_reduce.py -p strength-reduce-mul2 | filecheck %s

// CHECK-LABEL: taichi.kernel @ints
// CHECK:         %[[Y:.*]] = arith.addi %n, %n : i32
// CHECK-NOT:     arith.muli
// CHECK:         taichi.return %[[Y]] : i32
taichi.kernel @ints(%n: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %y = arith.muli %c2, %n : i32
  taichi.return %y : i32
}

// CHECK-LABEL: taichi.kernel @floats
// CHECK:         arith.addf %v, %v fastmath<fast> : f32
taichi.kernel @floats(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %two = arith.constant 2.0 : f32
  %p = taichi.element_ptr %x[%c0] : memref<?xf32> -> memref<f32>
  %v = memref.load %p[] : memref<f32>
  %w = arith.mulf %v, %two fastmath<fast> : f32
  memref.store %w, %p[] : memref<f32>
  taichi.return
}

// Other constants are left alone.
// CHECK-LABEL: taichi.kernel @three
// CHECK:         arith.muli %n, %c3 : i32
taichi.kernel @three(%n: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %y = arith.muli %n, %c3 : i32
  taichi.return %y : i32
}
