// RUN: ti-opt %s -p convert-taichi-to-spirv | filecheck %s

// Two breaks one after the other: the ops after each run only while no break is set
// (the second guard nests in the first).
// CHECK-LABEL: taichi.kernel @two_breaks
// CHECK:         %[[BRK:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK:         spirv.BranchConditional %c, ^bb1, ^bb2
// CHECK:         %[[F1:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:    %[[G1:.*]] = spirv.LogicalNot %[[F1]] : i1
// CHECK-NEXT:    spirv.mlir.selection {
// CHECK-NEXT:      spirv.BranchConditional %[[G1]], ^bb1, ^bb2
// CHECK-NEXT:    ^bb1:
// CHECK-NEXT:      memref.store %j, %out[] : memref<i32>
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %d, ^bb1, ^bb2
// CHECK:           %[[F2:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:      %[[G2:.*]] = spirv.LogicalNot %[[F2]] : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[G2]], ^bb1, ^bb2
// CHECK-NEXT:      ^bb1:
// CHECK-NEXT:        memref.store %n, %out[] : memref<i32>

// A break in the then branch of an if with an else: the loop lowers the jump, then the
// if keeps both branches.
// CHECK-LABEL: taichi.kernel @break_in_then
// CHECK:         %[[B:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK:         spirv.mlir.selection {
// CHECK-NEXT:      spirv.BranchConditional %c, ^bb1, ^bb2
// CHECK-NEXT:    ^bb1:
// CHECK-NEXT:      %[[T:.*]] = spirv.Constant true
// CHECK-NEXT:      spirv.Store "Function" %[[B]], %[[T]] : i1
// CHECK-NEXT:      spirv.Branch ^bb3
// CHECK-NEXT:    ^bb2:
// CHECK-NEXT:      memref.store %j, %out[] : memref<i32>
// CHECK-NEXT:      spirv.Branch ^bb3
// CHECK-NEXT:    ^bb3:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[F:.*]] = spirv.Load "Function" %[[B]] : i1
// CHECK-NEXT:    %[[G:.*]] = spirv.LogicalNot %[[F]] : i1
// CHECK-NEXT:    spirv.mlir.selection {
// CHECK-NEXT:      spirv.BranchConditional %[[G]], ^bb1, ^bb2
// CHECK-NEXT:    ^bb1:
// CHECK-NEXT:      memref.store %n, %out[] : memref<i32>
taichi.kernel @two_breaks(%n: i32, %c: i1, %d: i1, %out: memref<i32>) {
  %lo = arith.constant 0 : i32
  taichi.range_for %j = %lo to %n : i32 {
    taichi.if %c {
      taichi.break
    }
    memref.store %j, %out[] : memref<i32>
    taichi.if %d {
      taichi.break
    }
    memref.store %n, %out[] : memref<i32>
    taichi.yield
  }
  taichi.return
}
taichi.kernel @break_in_then(%n: i32, %c: i1, %out: memref<i32>) {
  %lo = arith.constant 0 : i32
  taichi.range_for %j = %lo to %n : i32 {
    taichi.if %c {
      taichi.break
    } else {
      memref.store %j, %out[] : memref<i32>
      taichi.yield
    }
    memref.store %n, %out[] : memref<i32>
    taichi.yield
  }
  taichi.return
}
