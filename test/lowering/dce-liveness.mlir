// RUN: ti-opt %s -p dce | filecheck %s

// dce (lowering/dead_code.py; canonicalize's dead-code step: canonicalize.mlir) erases
// what xDSL's region_dce erases: an op with no live user and no effect beyond its
// result, and then what only it used; an op with a live user, or with an effect, stays.
// CHECK-LABEL: func.func @liveness
// CHECK-NEXT:    %[[A:.*]] = arith.addi %x, %y : i32
// CHECK-NEXT:    %[[S:.*]] = arith.subi %[[A]], %y : i32
// CHECK-NEXT:    memref.store %[[S]], %m[] : memref<i32>
// CHECK-NEXT:    %[[L:.*]] = memref.load %m[] : memref<i32>
// CHECK-NEXT:    func.return %[[L]] : i32
// CHECK-NEXT:  }
func.func @liveness(%x: i32, %y: i32, %m: memref<i32>) -> i32 {
  %a = arith.addi %x, %y : i32
  %b = arith.muli %x, %y : i32
  %c = arith.muli %b, %b : i32
  %s = arith.subi %a, %y : i32
  memref.store %s, %m[] : memref<i32>
  %unused = memref.load %m[] : memref<i32>
  %l = memref.load %m[] : memref<i32>
  func.return %l : i32
}

// A loop whose body feeds nothing but itself is dead as a whole in dce; its
// counter's addition has a user (the yield) but no live one.
// CHECK-LABEL: func.func @dead_loop
// CHECK-NEXT:    func.return %n : index
// CHECK-NEXT:  }
func.func @dead_loop(%n: index) -> index {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%acc = %lo) -> (index) {
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  func.return %n : index
}
