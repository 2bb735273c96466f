// RUN: ti-opt %s -p 'ti-auto-diff{restore_overwritten=true}' --split-input-file --verify-diagnostics | filecheck %s

// The adjoint needs a load that reads what the kernel wrote before it (x[i] squared,
// then squared again through memory): neither the values before the launch nor after it
// are what it read, so restoring the field cannot help.
// CHECK: ti-auto-diff-restore-unsupported.mlir:[[# @LINE + 11]]:5: error: ti-auto-diff: the adjoint needs this load of @x, which reads what the kernel wrote to it: neither the values before the launch nor after it are what it read (global data access rule)
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128
taichi.kernel @square_twice() {
  %x = taichi.get_field @x : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %s = arith.mulf %v, %v : f32
    memref.store %s, %p[] : memref<f32>
    %w = memref.load %p[] : memref<f32>
    %t = arith.mulf %w, %w : f32
    memref.store %t, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// A serial loop carries x[i] from one iteration to the next: the load in iteration k reads
// what iteration k - 1 wrote.
// CHECK: ti-auto-diff-restore-unsupported.mlir:[[# @LINE + 9]]:7: error: ti-auto-diff: the adjoint needs this load of @x
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.kernel @power(%n: i32) {
  %x = taichi.get_field @x : memref<8xf32>
  %zero = arith.constant 0 : i32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    taichi.range_for %j = %zero to %n : i32 {
      %v = memref.load %p[] : memref<f32>
      %s = arith.mulf %v, %v : f32
      memref.store %s, %p[] : memref<f32>
      taichi.yield
    }
    taichi.yield
  }
  taichi.return
}
