// RUN: ti-opt %s -p ti-demote-dense-struct-for --split-input-file --verify-diagnostics | filecheck %s

// A field of more elements than an i32 loop index can count.
// CHECK: ti-demote-dense-struct-for-unsupported.mlir:[[# @LINE + 4]]:3: error: ti-demote-dense-struct-for: 4294967296 elements overflow the i32 loop index
taichi.field @huge : memref<65536x65536xi8> offset 0
taichi.kernel @too_many_elements() {
  %x = taichi.get_field @huge : memref<65536x65536xi8>
  taichi.struct_for (%i, %j) in %x : memref<65536x65536xi8> {
    taichi.yield
  }
  taichi.return
}

// -----

// One element past what an i32 index counts.
// CHECK: ti-demote-dense-struct-for-unsupported.mlir:[[# @LINE + 4]]:3: error: ti-demote-dense-struct-for: 2147483648 elements overflow the i32 loop index
taichi.field @past : memref<2147483648xi8> offset 0
taichi.kernel @one_too_many() {
  %x = taichi.get_field @past : memref<2147483648xi8>
  taichi.struct_for (%i) in %x : memref<2147483648xi8> {
    taichi.yield
  }
  taichi.return
}
