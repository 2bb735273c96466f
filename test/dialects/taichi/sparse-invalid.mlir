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
