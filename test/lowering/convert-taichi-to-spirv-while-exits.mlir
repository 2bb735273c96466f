// RUN: ti-opt %s -p 'convert-taichi-to-spirv{check_loop_exits=true}' | filecheck %s
// RUN: ti-opt %s -p convert-taichi-to-spirv | filecheck %s --check-prefix=NOCHECK

// check_loop_exits on a while loop: the loop counts its iterations (a Function
// variable, +1 at the top of the body, before any break or continue) and a count of
// 65535 or more after it is a loop the driver cut (lavapipe ends the loops of an
// invocation there). Outside a task: an `always` assert right after the loop.
// CHECK-LABEL: func.func @spin
// CHECK:         %[[COUNT:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[LIMIT:.*]] = spirv.Constant 65535 : i32
// CHECK-NEXT:    spirv.Store "Function" %[[COUNT]], %[[ZERO]] : i32
// CHECK:         spirv.mlir.loop {
// CHECK:           %[[SEEN:.*]] = spirv.Load "Function" %[[COUNT]] : i32
// CHECK-NEXT:      %[[MORE:.*]] = spirv.IAdd %[[SEEN]], %[[ONE]] : i32
// CHECK-NEXT:      spirv.Store "Function" %[[COUNT]], %[[MORE]] : i32
// CHECK:         %[[FINAL:.*]] = spirv.Load "Function" %[[COUNT]] : i32
// CHECK-NEXT:    %[[CUT:.*]] = spirv.SGreaterThanEqual %[[FINAL]], %[[LIMIT]] : i32
// CHECK-NEXT:    %[[OK:.*]] = spirv.LogicalNot %[[CUT]] : i1
// CHECK-NEXT:    taichi.assert %[[OK]], "a serial loop ended before its last iteration{{.*}}" always
// NOCHECK-LABEL: func.func @spin
// NOCHECK-NOT:   spirv.Constant 65535
// NOCHECK-NOT:   taichi.assert
func.func @spin(%c: i1, %v: i32, %out: memref<i32>) {
  taichi.while {
    taichi.if %c {
      taichi.break
    }
    memref.store %v, %out[] : memref<i32>
    taichi.yield
  }
  func.return
}

// Inside an offload task, the count ORs into the task body's loop-cut flag, asserted
// once at the end of the body, as range_for loops do.
// CHECK-LABEL: offload.kernel @in_task
// CHECK:         %[[FLAG:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK:         spirv.mlir.loop {
// CHECK:           %{{.*}} = spirv.Load "Function" %[[CNT:.*]] : i32
// CHECK:         %[[F:.*]] = spirv.Load "Function" %[[CNT]] : i32
// CHECK-NEXT:    %[[C:.*]] = spirv.SGreaterThanEqual %[[F]], %{{.*}} : i32
// CHECK-NEXT:    %[[B:.*]] = spirv.Load "Function" %[[FLAG]] : i1
// CHECK-NEXT:    %[[E:.*]] = spirv.LogicalOr %[[B]], %[[C]] : i1
// CHECK-NEXT:    spirv.Store "Function" %[[FLAG]], %[[E]] : i1
// CHECK:         %[[CUTF:.*]] = spirv.Load "Function" %[[FLAG]] : i1
// CHECK-NEXT:    %[[OKF:.*]] = spirv.LogicalNot %[[CUTF]] : i1
// CHECK-NEXT:    taichi.assert %[[OKF]], "a serial loop ended before its last iteration{{.*}}" always
offload.kernel @in_task : () -> () {
  offload.serial {
    %c = arith.constant true
    taichi.while {
      taichi.if %c {
        taichi.break
      }
      taichi.yield
    }
  }
}
