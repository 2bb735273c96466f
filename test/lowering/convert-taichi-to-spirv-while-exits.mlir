// RUN: ti-opt %s -p 'convert-taichi-to-spirv{check_loop_exits=true}' | filecheck %s
// RUN: ti-opt %s -p convert-taichi-to-spirv | filecheck %s --check-prefix=NOCHECK

// check_loop_exits on a while loop: a loop that ends with its break flag unset was cut
// by the driver (lavapipe ends the loops of a SIMD group of invocations once they ran
// 65535 iterations in all, so no count of the loop's own can tell). The loop also counts
// its iterations and leaves at a count of -1 (2**32 - 1 iterations): a second exit, so
// that the driver's compiler cannot fold the break flag after the loop to true.
// Outside a task: an `always` assert of the break flag right after the loop.
// CHECK-LABEL: func.func @spin
// CHECK:         %[[BRK:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK-NEXT:    %[[COUNT:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[WRAP:.*]] = spirv.Constant -1 : i32
// CHECK-NEXT:    spirv.Store "Function" %[[COUNT]], %[[ZERO]] : i32
// CHECK:         spirv.mlir.loop {
// CHECK:           %[[B:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:      %[[GO:.*]] = spirv.LogicalNot %[[B]] : i1
// CHECK-NEXT:      %[[NOW:.*]] = spirv.Load "Function" %[[COUNT]] : i32
// CHECK-NEXT:      %[[ROOM:.*]] = spirv.INotEqual %[[NOW]], %[[WRAP]] : i32
// CHECK-NEXT:      %[[BOTH:.*]] = spirv.LogicalAnd %[[GO]], %[[ROOM]] : i1
// CHECK-NEXT:      spirv.BranchConditional %[[BOTH]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:    ^[[BODY]]:
// CHECK-NEXT:      %[[SEEN:.*]] = spirv.Load "Function" %[[COUNT]] : i32
// CHECK-NEXT:      %[[MORE:.*]] = spirv.IAdd %[[SEEN]], %[[ONE]] : i32
// CHECK-NEXT:      spirv.Store "Function" %[[COUNT]], %[[MORE]] : i32
// CHECK:         ^[[EXIT]]:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[BROKE:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:    taichi.assert %[[BROKE]], "a serial loop ended before its last iteration{{.*}}" always
// NOCHECK-LABEL: func.func @spin
// NOCHECK-NOT:   spirv.Constant -1
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

// Inside an offload task, a loop left without its break ORs into the task body's
// loop-cut flag, asserted once at the end of the body, as range_for loops do.
// CHECK-LABEL: offload.kernel @in_task
// CHECK:         %[[FLAG:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK:         %[[TBRK:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK:         spirv.mlir.loop {
// CHECK:           spirv.BranchConditional %{{.*}}, ^{{.*}}, ^[[TEXIT:.*]]
// CHECK:         ^[[TEXIT]]:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[TB:.*]] = spirv.Load "Function" %[[TBRK]] : i1
// CHECK-NEXT:    %[[C:.*]] = spirv.LogicalNot %[[TB]] : i1
// CHECK-NEXT:    %[[OLD:.*]] = spirv.Load "Function" %[[FLAG]] : i1
// CHECK-NEXT:    %[[E:.*]] = spirv.LogicalOr %[[OLD]], %[[C]] : i1
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
