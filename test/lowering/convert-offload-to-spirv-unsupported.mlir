// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="none"}' --split-input-file --verify-diagnostics | filecheck %s

// Code is generated for the declared caps: i64 needs spirv_has_int64.
// CHECK: convert-offload-to-spirv-unsupported.mlir:[[# @LINE + 2]]:3: error: convert-offload-to-spirv: i64 values need the spirv_has_int64 cap, which the target lacks
offload.kernel @wide : (i64) -> (i64) {
  offload.serial {
    %a = offload.arg 0 : i64
    offload.set_return 0, %a : i64
  }
}

// -----

// Booleans have no storage-buffer layout.
// CHECK: convert-offload-to-spirv-unsupported.mlir:[[# @LINE + 6]]:5: error: convert-offload-to-spirv: fields and ndarrays of i1 have no SPIR-V layout
taichi.field @flags : memref<4xi1> offset 0
offload.kernel @bool_field : () -> () {
  offload.serial {
    %f = taichi.get_field @flags : memref<4xi1>
    %i = spirv.Constant 0 : i32
    %p = taichi.element_ptr %f[%i] : memref<4xi1> -> memref<i1>
    %v = memref.load %p[] : memref<i1>
  }
}

// -----

// Arithmetic is convert-arith-to-spirv's business: the pipeline runs it first.
// CHECK: convert-offload-to-spirv-unsupported.mlir:[[# @LINE + 4]]:5: error: convert-offload-to-spirv: 'arith.addi' has no SPIR-V lowering here
offload.kernel @raw_arith : (i32) -> (i32) {
  offload.serial {
    %a = offload.arg 0 : i32
    %b = arith.addi %a, %a : i32
    offload.set_return 0, %b : i32
  }
}

// -----

// 64-bit integer atomics need spirv_has_atomic_int64 (a compare-and-swap loop would too).
// CHECK: convert-offload-to-spirv-unsupported.mlir:[[# @LINE + 9]]:5: error: convert-offload-to-spirv: 'taichi.atomic_add' on 64-bit integers needs the spirv_has_atomic_int64 cap
taichi.field @count : memref<i64> offset 0
offload.kernel @wide_atomic : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %c = taichi.get_field @count : memref<i64>
    %p = taichi.element_ptr %c[] : memref<i64> -> memref<i64>
    %one = spirv.Constant 1 : i64
    %old = taichi.atomic_add %p, %one : memref<i64>
  }
}
