// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_int16+spirv_has_int64+spirv_has_float64"}' --split-input-file --verify-diagnostics | filecheck %s

// A multiply has no SPIR-V atomic: its compare-and-swap loop needs a 32- or 64-bit word.
// CHECK: convert-offload-to-spirv-atomic-unsupported.mlir:[[# @LINE + 7]]:5: error: convert-offload-to-spirv: 'taichi.atomic_mul' on i16 has no SPIR-V lowering
taichi.field @h : memref<i16> offset 0
offload.kernel @narrow_mul : (i16) -> () {
  offload.serial {
    %a = offload.arg 0 : i16
    %h = taichi.get_field @h : memref<i16>
    %p = taichi.element_ptr %h[] : memref<i16> -> memref<i16>
    %o = taichi.atomic_mul %p, %a : memref<i16>
  }
}

// -----

// An f64 add swaps the i64 bit pattern: it needs 64-bit integer atomics.
// CHECK: convert-offload-to-spirv-atomic-unsupported.mlir:[[# @LINE + 7]]:5: error: convert-offload-to-spirv: 'taichi.atomic_add' on 64-bit integers needs the spirv_has_atomic_int64 cap
taichi.field @d : memref<f64> offset 0
offload.kernel @f64_add : (f64) -> () {
  offload.serial {
    %a = offload.arg 0 : f64
    %h = taichi.get_field @d : memref<f64>
    %p = taichi.element_ptr %h[] : memref<f64> -> memref<f64>
    %o = taichi.atomic_add %p, %a : memref<f64>
  }
}

// -----

// SharedArray atomics are 32-bit integer ones.
// CHECK: convert-offload-to-spirv-atomic-unsupported.mlir:[[# @LINE + 8]]:5: error: convert-offload-to-spirv: atomics on a SharedArray of i64 are not supported by taichi-xdsl yet (32-bit integers are)
offload.kernel @shared_i64 : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %sh = taichi.shared_array 0 : memref<64xi64>
    %sp = taichi.element_ptr %sh[%i] : memref<64xi64> -> memref<i64>
    %one = spirv.Constant 1 : i64
    %o = taichi.atomic_add %sp, %one : memref<i64>
  }
}

// -----

// A bool place is an i32 word holding 0 or 1: no atomic works on it.
// CHECK: convert-offload-to-spirv-atomic-unsupported.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: atomic on a place that has no SPIR-V lowering
offload.kernel @bool_atomic : () -> () {
  offload.serial {
    %g = offload.global_tmp 0 : memref<i1>
    %t = spirv.Constant true
    %o = taichi.atomic_or %g, %t : memref<i1>
  }
}

// -----

// A compare-and-swap of a 64-bit word needs 64-bit integer atomics.
// CHECK: convert-offload-to-spirv-atomic-unsupported.mlir:[[# @LINE + 8]]:5: error: convert-offload-to-spirv: 'taichi.atomic_cas' on 64-bit integers needs the spirv_has_atomic_int64 cap
taichi.field @w : memref<4xi64> offset 0
offload.kernel @cas_i64 : (i64) -> () {
  offload.serial {
    %e = offload.arg 0 : i64
    %f = taichi.get_field @w : memref<4xi64>
    %i = spirv.Constant 1 : i32
    %p = taichi.element_ptr %f[%i] : memref<4xi64> -> memref<i64>
    %old = taichi.atomic_cas %p, %e, %e : memref<i64>
  }
}
