// RUN: ti-opt %s -p ti-auto-diff --split-input-file --verify-diagnostics | filecheck %s

// A while loop that computes a differentiated value has no trip count to reverse.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 9]]:5: error: ti-auto-diff: a while loop that computes a differentiated value is not supported (use a range-for with a bound)
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.kernel @while_loop() {
  %x = taichi.get_field @x : memref<8xf32>
  %ten = arith.constant 1.000000e+01 : f32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %s = memref.alloca() : memref<f32>
    taichi.while {
      %v = memref.load %p[] : memref<f32>
      %w = memref.load %s[] : memref<f32>
      %n = arith.mulf %v, %w : f32
      memref.store %n, %s[] : memref<f32>
      %big = arith.cmpf ogt, %n, %ten : f32
      taichi.if %big {
        taichi.break
      }
      taichi.yield
    }
    taichi.yield
  }
  taichi.return
}

// -----

// Leaving a loop early breaks the replay of its iterations.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 17]]:9: error: ti-auto-diff: 'taichi.break' in a loop that computes a differentiated value is not supported
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128
taichi.kernel @break_in_loop(%n: i32) {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %lo = arith.constant 0 : i32
  %one = arith.constant 1.000000e+00 : f32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %s = memref.alloca() : memref<f32>
    taichi.range_for %j = %lo to %n : i32 {
      %v = memref.load %p[] : memref<f32>
      memref.store %v, %s[] : memref<f32>
      %c = arith.cmpf ogt, %v, %one : f32
      taichi.if %c {
        taichi.break
      }
      taichi.yield
    }
    %r = memref.load %s[] : memref<f32>
    %q = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %r, %q[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// Only atomic add and sub, and max/min into a field, have adjoints.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 12]]:5: error: ti-auto-diff: cannot differentiate 'taichi.atomic_mul' (only atomic add/sub, and atomic max/min into a field)
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @m : memref<f32> offset 128 {grad = @m_grad}
taichi.field @m_grad : memref<f32> offset 192
taichi.kernel @atomic_mul() {
  %x = taichi.get_field @x : memref<8xf32>
  %m = taichi.get_field @m : memref<f32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %q = taichi.element_ptr %m[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_mul %q, %v : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// An op without a derivative rule is named.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 11]]:5: error: ti-auto-diff: cannot differentiate 'math.erf'
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 192
taichi.kernel @erf() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %r = math.erf %v : f32
    %o = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %r, %o[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// The reverse sweep needs a value loaded from a field the kernel also writes (as
// ti.random's launch counter): launched after the primal, the adjoint would read the
// written value.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 10]]:3: error: ti-auto-diff: the adjoint needs this load of @launches, which the kernel also writes: it would read the written value (global data access rule)
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128
taichi.field @launches : memref<i32> offset 192
taichi.kernel @counter() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %n = taichi.get_field @launches : memref<i32>
  %pn = taichi.element_ptr %n[] : memref<i32> -> memref<i32>
  %count = memref.load %pn[] : memref<i32>
  %f = arith.sitofp %count : i32 to f32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %r = arith.mulf %v, %f : f32
    %q = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %r, %q[] : memref<f32>
    taichi.yield
  }
  %one = arith.constant 1 : i32
  %next = arith.addi %count, %one : i32
  memref.store %next, %pn[] : memref<i32>
  taichi.return
}

// -----

// A gradient field must have its primal's type.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 1]]:1: error: ti-auto-diff: the gradient @x_grad of @x must be a taichi.field of type memref<8xf32>
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<4xf32> offset 64

// -----

// Only float fields have gradients: an integer field with one is named.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 1]]:1: error: ti-auto-diff: @n needs a float type for a gradient
taichi.field @n : memref<8xi32> offset 0 {grad = @n_grad}
taichi.field @n_grad : memref<8xi32> offset 64

// -----

// The old value of an atomic add on a local, used in a differentiated value: its adjoint
// would need the order of the adds, so it is rejected.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 13]]:5: error: ti-auto-diff: the old value of 'taichi.atomic_add' cannot be differentiated
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 192
taichi.kernel @old_used() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %s = memref.alloca() : memref<f32>
    memref.store %v, %s[] : memref<f32>
    %old = taichi.atomic_add %s, %v : memref<f32>
    %m = arith.mulf %old, %v : f32
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %m, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// x[i] = x[i]^2 through a local: the load and the store are in one statement (the same
// loop) and the value reaches the product through the local; the adjoint would read the
// squared value.
// CHECK: ti-auto-diff-unsupported.mlir:[[# @LINE + 7]]:5: error: ti-auto-diff: the adjoint needs this load of @x, which the kernel also writes: it would read the written value (global data access rule)
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.kernel @square_in_place() {
  %x = taichi.get_field @x : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %s = memref.alloca() : memref<f32>
    memref.store %v, %s[] : memref<f32>
    %w = memref.load %s[] : memref<f32>
    %m = arith.mulf %w, %w : f32
    memref.store %m, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
