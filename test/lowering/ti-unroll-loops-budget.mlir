// RUN: ti-opt %s -p 'ti-unroll-loops{factor=32 max_unrolled_ops=64}' | filecheck %s
// RUN: ti-opt %s -p 'ti-unroll-loops{factor=32}' | filecheck %s --check-prefix=NOLIMIT

// A body of four ops (three and the yield): 32 copies would hold 128 > 64, so the
// copies halve to 16 (64 ops): 100 trips are 6 trips of 16 copies, then 4 in a loop
// of the original body. With no limit, 32 copies: 3 trips, then 4.
// CHECK-LABEL: offload.kernel @budget
// CHECK:         %[[N:.*]] = arith.constant 6 : i32
// CHECK-NEXT:    taichi.range_for %[[K:.*]] = %{{.*}} to %[[N]] : i32 {
// CHECK-NEXT:      %[[F:.*]] = arith.constant 16 : i32
// CHECK-NEXT:      %{{.*}} = arith.muli %[[K]], %[[F]] : i32
// CHECK-COUNT-48:  "test.op"
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = arith.constant 96 : i32
// CHECK-NEXT:    taichi.range_for %{{.*}} = %[[R]] to %{{.*}} : i32 {
// NOLIMIT-LABEL: offload.kernel @budget
// NOLIMIT:         %[[N:.*]] = arith.constant 3 : i32
// NOLIMIT-NEXT:    taichi.range_for %[[K:.*]] = %{{.*}} to %[[N]] : i32 {
// NOLIMIT-NEXT:      %[[F:.*]] = arith.constant 32 : i32
// NOLIMIT-COUNT-96:  "test.op"
// NOLIMIT:         %[[R:.*]] = arith.constant 96 : i32
offload.kernel @budget : () -> () {
  offload.serial {
    %lo = arith.constant 0 : i32
    %hi = arith.constant 100 : i32
    taichi.range_for %i = %lo to %hi : i32 {
      "test.op"(%i) : (i32) -> ()
      "test.op"(%i) : (i32) -> ()
      "test.op"(%i) : (i32) -> ()
      taichi.yield
    }
  }
}
