// RUN: ti-opt %s -p 'ti-auto-diff{mode=forward}' --split-input-file --verify-diagnostics | filecheck %s

// An atomic max on a field with a dual has no tangent rule (which operand won is not
// kept): rejected, never a wrong dual.
// CHECK: ti-auto-diff-forward-unsupported.mlir:[[# @LINE + 12]]:5: error: ti-auto-diff: cannot differentiate 'taichi.atomic_max' in forward mode (only atomic add/sub)
taichi.field @x : memref<8xf32> offset 0 {dual = @x_dual}
taichi.field @x_dual : memref<8xf32> offset 64
taichi.field @m : memref<f32> offset 128 {dual = @m_dual}
taichi.field @m_dual : memref<f32> offset 192
taichi.kernel @max_of() {
  %x = taichi.get_field @x : memref<8xf32>
  %m = taichi.get_field @m : memref<f32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %q = taichi.element_ptr %m[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_max %q, %v : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// A dual must be a field of the same type as its primal.
// CHECK: ti-auto-diff-forward-unsupported.mlir:[[# @LINE + 1]]:1: error: ti-auto-diff: the dual @x_dual of @x must be a taichi.field of type memref<8xf32>
taichi.field @x : memref<8xf32> offset 0 {dual = @x_dual}
taichi.field @x_dual : memref<4xf32> offset 64

// -----

// A local float array: its elements would get no tangent, so it is rejected.
// CHECK: ti-auto-diff-forward-unsupported.mlir:[[# @LINE + 5]]:3: error: ti-auto-diff: a local float array has no forward-mode tangent yet
taichi.field @x : memref<8xf32> offset 0 {dual = @x_dual}
taichi.field @x_dual : memref<8xf32> offset 64
taichi.kernel @local_array(%i: index) {
  %x = taichi.get_field @x : memref<8xf32>
  %a = memref.alloca() : memref<4xf32>
  %v = memref.load %a[%i] : memref<4xf32>
  taichi.return
}

// -----

// An op of a float result with no differentiation rule: rejected by name.
// CHECK: ti-auto-diff-forward-unsupported.mlir:[[# @LINE + 7]]:3: error: ti-auto-diff: cannot differentiate 'math.erf' in forward mode
taichi.field @x : memref<f32> offset 0 {dual = @x_dual}
taichi.field @x_dual : memref<f32> offset 64
taichi.kernel @no_rule() {
  %x = taichi.get_field @x : memref<f32>
  %p = taichi.element_ptr %x[] : memref<f32> -> memref<f32>
  %v = memref.load %p[] : memref<f32>
  %e = math.erf %v : f32
  memref.store %e, %p[] : memref<f32>
  taichi.return
}
