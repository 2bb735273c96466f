// RUN: ti-opt %s -p canonicalize | filecheck %s

// canonicalize (lowering/dead_code.py: xDSL's canonicalize with a cheaper dead-code
// step) erases what xDSL's erases: an op with no live user and no effect beyond its
// result, then what only it used; an op with a live user, or an effect, stays.
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

// A loop whose body feeds nothing but itself goes as a whole.
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

// Canonicalization itself still runs: folds and each op's patterns, then dead code.
// CHECK-LABEL: func.func @fold
// CHECK-NEXT:    %[[FIVE:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    memref.store %x, %m[] : memref<i32>
// CHECK-NEXT:    func.return %[[FIVE]] : i32
// CHECK-NEXT:  }
func.func @fold(%x: i32, %m: memref<i32>) -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %five = arith.addi %c2, %c3 : i32
  %zero = arith.constant 0 : i32
  %same = arith.addi %x, %zero : i32
  %dead = arith.muli %x, %five : i32
  memref.store %same, %m[] : memref<i32>
  func.return %five : i32
}
