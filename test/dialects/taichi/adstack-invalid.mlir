// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

taichi.kernel @empty_stack() {
  %s = taichi.adstack_alloca : !taichi.adstack<f32, 0>
  taichi.return
}
// CHECK: an adstack holds at least one value, got 0

// -----

taichi.kernel @stack_of_vectors() {
  %s = taichi.adstack_alloca : !taichi.adstack<vector<2xf32>, 4>
  taichi.return
}
// CHECK: an adstack holds scalars, got vector<2xf32>

// -----

taichi.kernel @push_wrong_type(%v: f64) {
  %s = taichi.adstack_alloca : !taichi.adstack<f32, 4>
  %ok = "taichi.adstack_push"(%s, %v) : (!taichi.adstack<f32, 4>, f64) -> i1
  taichi.return
}
// CHECK: 'taichi.adstack_push' pushes a f64 onto a stack of f32

// -----

taichi.kernel @top_wrong_type() {
  %s = taichi.adstack_alloca : !taichi.adstack<i32, 4>
  %t = taichi.adstack_load_top %s : !taichi.adstack<i32, 4> -> f32
  taichi.return
}
// CHECK: 'taichi.adstack_load_top' reads a f32 from a stack of i32

// -----

taichi.kernel @pop_not_a_stack(%v: f32) {
  "taichi.adstack_pop"(%v) : (f32) -> ()
  taichi.return
}
// CHECK: operand 'stack' at position 0 does not verify:
// CHECK-NEXT: f32 should be of base attribute taichi.adstack
