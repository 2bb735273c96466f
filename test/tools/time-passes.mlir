// RUN: ti-opt %s -p ti-to-offload-cpu --time-passes | filecheck %s
// RUN: ti-opt %s -p ti-to-offload-cpu --print-between-passes | filecheck %s --check-prefix=BETWEEN
// RUN: ti-opt %s -p cse --time-passes | filecheck %s --check-prefix=ONE

// A named pipeline runs pass by pass: --time-passes names each of its passes (in order),
// and --print-between-passes prints the IR between them.

// CHECK:      Pass {{.*}} took {{[0-9.e-]+}} seconds
// CHECK:      Pass ti-mem2reg took {{[0-9.e-]+}} seconds
// CHECK-NEXT: Pass canonicalize took {{[0-9.e-]+}} seconds
// CHECK-NEXT: Pass cse took {{[0-9.e-]+}} seconds
// CHECK-NEXT: Pass ti-demote-dense-struct-for took {{[0-9.e-]+}} seconds
// CHECK-NEXT: Pass ti-split-parallel-loop took {{[0-9.e-]+}} seconds
// CHECK-NEXT: Pass ti-offload took {{[0-9.e-]+}} seconds
// CHECK-NOT:  Pass ti-to-offload-cpu took
// CHECK-LABEL: offload.kernel @fill

// BETWEEN:     IR after ti-mem2reg:
// BETWEEN:     IR after ti-offload:
// BETWEEN-NEXT: builtin.module {
// BETWEEN:     offload.range_for

// The pass list without a named pipeline is left as it is.
// ONE:      Pass cse took {{[0-9.e-]+}} seconds
// ONE-NOT:  Pass
// ONE-LABEL: taichi.kernel @fill

taichi.field @x : memref<1024xf32> offset 0

taichi.kernel @fill(%v: f32) {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1024 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @x : memref<1024xf32>
    %p = taichi.element_ptr %x[%i] : memref<1024xf32> -> memref<f32>
    memref.store %v, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
