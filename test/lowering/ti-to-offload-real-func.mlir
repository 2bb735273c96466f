// RUN: ti-opt %s -p ti-to-offload-cpu | filecheck %s

// The taichi -> offload stage on a module with a real function (`func.func`, a
// ti.real_func called for real): the passes run inside the function too (ti-mem2reg
// forwards `mid`, cse merges the constants), ti-offload leaves it outside the tasks, and
// a call's result reaches a later task through a global temporary like any scalar.

// CHECK-LABEL: func.func private @k__fn0_total(%lo: i32, %hi: i32) -> i32 {
// CHECK-NOT:     %mid = memref.alloca
// CHECK:         %[[A:.*]] = func.call @k__fn0_total(%lo, %{{.*}}) : (i32, i32) -> i32
// CHECK:         %[[B:.*]] = func.call @k__fn0_total(%{{.*}}, %hi) : (i32, i32) -> i32
// CHECK-NEXT:    %{{.*}} = arith.addi %[[A]], %[[B]] : i32
// CHECK:         func.return %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-LABEL: offload.kernel @k : (i32) -> i32 {
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %c0 = arith.constant 0 : i32
// CHECK-NEXT:      %n = offload.arg 0 : i32
// CHECK-NEXT:      %first = func.call @k__fn0_total(%c0, %n) : (i32, i32) -> i32
// CHECK-NEXT:      %[[G:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      memref.store %first, %[[G]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK:         offload.range_for %i = %{{.*}} to %{{.*}} : i32 {
// CHECK:           %[[T:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[T]][] : memref<i32>
// CHECK-NEXT:      %[[R:.*]] = func.call @k__fn0_total(%{{.*}}, %i) : (i32, i32) -> i32
// CHECK:           %{{.*}} = arith.addi %[[R]], %[[V]] : i32
// CHECK:         }
// CHECK-NEXT:    offload.serial {
// CHECK:           %{{.*}} = func.call @k__fn0_total(
// CHECK:           offload.set_return 0

builtin.module {
  taichi.field @field0 : memref<8xi32> offset 0
  func.func private @k__fn0_total(%lo: i32, %hi: i32) -> i32 {
    %0 = memref.alloca() : memref<i32>
    %1 = arith.constant 0 : i32
    memref.store %1, %0[] : memref<i32>
    %2 = memref.alloca() : memref<i1>
    %3 = arith.constant false
    memref.store %3, %2[] : memref<i1>
    %field0 = taichi.get_field @field0 : memref<8xi32>
    %4 = arith.cmpi eq, %lo, %hi : i32
    taichi.if %4 {
      %5 = taichi.element_ptr %field0[%lo] : memref<8xi32> -> memref<i32>
      %6 = memref.load %5[] : memref<i32>
      memref.store %6, %0[] : memref<i32>
      %7 = arith.constant true
      memref.store %7, %2[] : memref<i1>
      taichi.yield
    }
    %8 = memref.load %2[] : memref<i1>
    %9 = arith.constant true
    %10 = arith.xori %8, %9 : i1
    taichi.if %10 {
      %11 = arith.addi %lo, %hi : i32
      %12 = arith.constant 2 : i32
      %13 = arith.divsi %11, %12 : i32
      %mid = memref.alloca() : memref<i32>
      memref.store %13, %mid[] : memref<i32>
      %20 = memref.load %mid[] : memref<i32>
      %21 = func.call @k__fn0_total(%lo, %20) : (i32, i32) -> i32
      %22 = memref.load %mid[] : memref<i32>
      %23 = arith.constant 1 : i32
      %24 = arith.addi %22, %23 : i32
      %25 = func.call @k__fn0_total(%24, %hi) : (i32, i32) -> i32
      %26 = arith.addi %21, %25 : i32
      memref.store %26, %0[] : memref<i32>
      %27 = arith.constant true
      memref.store %27, %2[] : memref<i1>
      taichi.yield
    }
    %28 = memref.load %0[] : memref<i32>
    func.return %28 : i32
  }
  taichi.kernel @k(%n: i32) -> i32 {
    %field0 = taichi.get_field @field0 : memref<8xi32>
    %c0 = arith.constant 0 : i32
    %first = func.call @k__fn0_total(%c0, %n) : (i32, i32) -> i32
    %0 = arith.constant 0 : i32
    %c8 = arith.constant 8 : i32
    taichi.range_for %i = %0 to %c8 : i32 {
      %1 = arith.constant 0 : i32
      %2 = func.call @k__fn0_total(%1, %i) : (i32, i32) -> i32
      %3 = taichi.element_ptr %field0[%i] : memref<8xi32> -> memref<i32>
      %s = arith.addi %2, %first : i32
      memref.store %s, %3[] : memref<i32>
      taichi.yield
    }
    %4 = arith.constant 0 : i32
    %5 = arith.constant 7 : i32
    %6 = func.call @k__fn0_total(%4, %5) : (i32, i32) -> i32
    taichi.return %6 : i32
  }
}
