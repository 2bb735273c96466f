// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

taichi.kernel @activate_wrong_rank(%m: memref<4x4xi32>) {
  %i = arith.constant 0 : i32
  taichi.activate %m[%i] : memref<4x4xi32>
  taichi.return
}
// CHECK: 'taichi.activate' names a cell of a 2-d memref<4x4xi32> with 1 indices

// -----

taichi.kernel @is_active_float_mask(%m: memref<4xf32>) {
  %i = arith.constant 0 : i32
  %on = taichi.is_active %m[%i] : memref<4xf32>
  taichi.return
}
// CHECK: Expected attribute i32 but got f32

// -----

taichi.kernel @append_zero_capacity(%l: memref<4xi32>) {
  %i = arith.constant 0 : i32
  %old = taichi.append %l[%i] capacity 0 : memref<4xi32>
  taichi.return
}
// CHECK: 'taichi.append' expects a positive capacity, got 0

// -----

taichi.kernel @length_wrong_rank(%l: memref<4xi32>) {
  %old = taichi.length %l[] capacity 4 : memref<4xi32>
  taichi.return
}
// CHECK: 'taichi.length' names a cell of a 1-d memref<4xi32> with 0 indices

// -----

taichi.kernel @deactivate_index_type(%m: memref<4xi32>) {
  %i = arith.constant 0 : i64
  "taichi.deactivate"(%m, %i) <{operandSegmentSizes = array<i32: 1, 1>}> : (memref<4xi32>, i64) -> ()
  taichi.return
}
// CHECK: Expected attribute i32 but got i64

// -----

taichi.kernel @pool_state_not_four_words(%s: memref<3xi32>, %f: memref<64xi32>) {
  %b = taichi.pool_alloc %s, %f : memref<3xi32>, memref<64xi32>
  taichi.return
}
// CHECK: 'taichi.pool_alloc' expects a memref<4xi32> pool state, got memref<3xi32>

// -----

taichi.kernel @pool_list_not_1d(%s: memref<4xi32>, %f: memref<8x8xi32>, %b: i32) {
  taichi.pool_release %s, %f, %b : memref<4xi32>, memref<8x8xi32>
  taichi.return
}
// CHECK: 'taichi.pool_release' expects a 1-d block list, got memref<8x8xi32>

// -----

taichi.kernel @cas_on_an_array(%w: memref<4xi32>) {
  %z = arith.constant 0 : i32
  %old = taichi.atomic_cas %w, %z, %z : memref<4xi32>
  taichi.return
}
// CHECK: 'taichi.atomic_cas' expects its destination to be a 0-d memref, got memref<4xi32>

// -----

taichi.kernel @cas_on_floats(%w: memref<f32>, %v: f32) {
  %old = taichi.atomic_cas %w, %v, %v : memref<f32>
  taichi.return
}
// CHECK: Expected one of i32, i64, but got f32

// -----

taichi.kernel @cas_on_i16(%w: memref<i16>, %v: i16) {
  %old = taichi.atomic_cas %w, %v, %v : memref<i16>
  taichi.return
}
// CHECK: Expected one of i32, i64, but got i16

// -----

taichi.kernel @list_clear_2d(%l: memref<4x4xi32>) {
  taichi.list_clear %l : memref<4x4xi32>
  taichi.return
}
// CHECK: 'taichi.list_clear' expects a cell list memref<Nxi32> with N >= 1, got memref<4x4xi32>

// -----

taichi.kernel @list_length_empty(%l: memref<0xi32>) -> i32 {
  %n = taichi.list_length %l : memref<0xi32>
  taichi.return %n : i32
}
// CHECK: 'taichi.list_length' expects a cell list memref<Nxi32> with N >= 1, got memref<0xi32>

// -----

taichi.kernel @list_append_float_list(%l: memref<17xf32>, %c: i32) {
  taichi.list_append %l, %c : memref<17xf32>
  taichi.return
}
// CHECK: Expected attribute i32 but got f32

// -----

taichi.kernel @list_append_float_cell(%l: memref<17xi32>, %c: f32) {
  "taichi.list_append"(%l, %c) : (memref<17xi32>, f32) -> ()
  taichi.return
}
// CHECK: operand 'cell' at position 1 does not verify

// -----

taichi.kernel @list_get_i64_index(%l: memref<17xi32>, %k: i64) -> i32 {
  %e = "taichi.list_get"(%l, %k) : (memref<17xi32>, i64) -> i32
  taichi.return %e : i32
}
// CHECK: operand 'index' at position 1 does not verify
