// RUN: ti-opt %s -p 'ti-auto-diff{restore_overwritten=true}' | filecheck %s

// A clamp in place, x[t, i] = max(x[t, i], 0): the adjoint needs the value the kernel
// overwrote (the condition). With restore_overwritten the adjoint names the field and the
// box the kernel writes, row %t, for the caller to put back while it runs.
// CHECK-LABEL: taichi.kernel @clamp_grad(%t: i32)
// CHECK-SAME:    adjoint_of = @clamp
// CHECK-SAME:    restore = [{field = @x, box = ["%t", "*"]}]
taichi.field @x : memref<4x8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<4x8xf32> offset 128
taichi.kernel @clamp(%t: i32) {
  %x = taichi.get_field @x : memref<4x8xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %x[%t, %i] : memref<4x8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %c = arith.cmpf olt, %v, %zero : f32
    taichi.if %c {
      memref.store %zero, %p[] : memref<f32>
      taichi.yield
    }
    taichi.yield
  }
  taichi.return
}

// y[t + 1, i] = y[t + 1, i] * y[t + 1, i]: the box is row %t+1, whatever rows it reads.
// CHECK-LABEL: taichi.kernel @square_next_grad(%t: i32)
// CHECK-SAME:    restore = [{field = @y, box = ["%t+1", "*"]}]
taichi.field @y : memref<4x8xf32> offset 256 {grad = @y_grad}
taichi.field @y_grad : memref<4x8xf32> offset 384
taichi.kernel @square_next(%t: i32) {
  %y = taichi.get_field @y : memref<4x8xf32>
  %one = arith.constant 1 : i32
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  %n = arith.addi %t, %one : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %y[%n, %i] : memref<4x8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %s = arith.mulf %v, %v : f32
    memref.store %s, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// Twice x: the adjoint needs no value of x, so nothing is restored.
// CHECK-LABEL: taichi.kernel @double_grad
// CHECK-NOT:     restore
// CHECK-SAME:    {
taichi.kernel @double() {
  %x = taichi.get_field @x : memref<4x8xf32>
  %two = arith.constant 2.000000e+00 : f32
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %x[%lo, %i] : memref<4x8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %d = arith.mulf %v, %two : f32
    memref.store %d, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
