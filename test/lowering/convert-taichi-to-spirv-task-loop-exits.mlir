// RUN: ti-opt %s -p 'convert-taichi-to-spirv{check_loop_exits=true}' | filecheck %s

// check_loop_exits inside an offload task: each loop ORs "ended before its bound (and
// not by a break)" into one flag of the task body, cleared at its top; one `always`
// assert at the end of the body, after (not under) the guard of a task `continue`.
// (Outside a task: an assert after each loop, convert-taichi-to-spirv-loop-exits.mlir.)
// CHECK-LABEL: offload.kernel @task_loops
// CHECK:         offload.range_for %[[K:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[CUT:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK-NEXT:      %[[F:.*]] = spirv.Constant false
// CHECK-NEXT:      spirv.Store "Function" %[[CUT]], %[[F]] : i1
// CHECK-NOT:     taichi.assert
// inner loop (with a break): cut |= !(broke or j >= n)
// CHECK:           %[[JREACHED:.*]] = spirv.SGreaterThanEqual %{{.*}}, %[[N:.*]] : i32
// CHECK-NEXT:      %[[BROKE:.*]] = spirv.Load "Function" %{{.*}} : i1
// CHECK-NEXT:      %[[JDONE:.*]] = spirv.LogicalOr %[[BROKE]], %[[JREACHED]] : i1
// CHECK-NEXT:      %[[JCUT:.*]] = spirv.LogicalNot %[[JDONE]] : i1
// CHECK-NEXT:      %[[OLD1:.*]] = spirv.Load "Function" %[[CUT]] : i1
// CHECK-NEXT:      %[[NEW1:.*]] = spirv.LogicalOr %[[OLD1]], %[[JCUT]] : i1
// CHECK-NEXT:      spirv.Store "Function" %[[CUT]], %[[NEW1]] : i1
// CHECK-NOT:     taichi.assert
// outer loop: cut |= !(i >= n)
// CHECK:         %[[IREACHED:.*]] = spirv.SGreaterThanEqual %{{.*}}, %[[N]] : i32
// CHECK-NEXT:    %[[ICUT:.*]] = spirv.LogicalNot %[[IREACHED]] : i1
// CHECK-NEXT:    %[[OLD2:.*]] = spirv.Load "Function" %[[CUT]] : i1
// CHECK-NEXT:    %[[NEW2:.*]] = spirv.LogicalOr %[[OLD2]], %[[ICUT]] : i1
// CHECK-NEXT:    spirv.Store "Function" %[[CUT]], %[[NEW2]] : i1
// CHECK-NOT:     taichi.assert
// the continue's guard, then the one check
// CHECK:         memref.store %[[K]]
// CHECK-NEXT:      spirv.Branch
// CHECK:           spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LAST:.*]] = spirv.Load "Function" %[[CUT]] : i1
// CHECK-NEXT:    %[[OK:.*]] = spirv.LogicalNot %[[LAST]] : i1
// CHECK-NEXT:    taichi.assert %[[OK]], "a serial loop ended before its last iteration{{.*}}" always
// CHECK-NEXT:  }
// CHECK-NOT:   taichi.assert
offload.kernel @task_loops : (i32, i1) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %k = %lo to %hi : i32 {
    %n = offload.arg 0 : i32
    %c = offload.arg 1 : i1
    %z = arith.constant 0 : i32
    taichi.range_for %i = %z to %n : i32 {
      taichi.range_for %j = %z to %n : i32 {
        taichi.if %c {
          taichi.break
        }
        taichi.yield
      }
      taichi.yield
    }
    taichi.if %c {
      taichi.continue
    }
    %g = offload.global_tmp 0 : memref<i32>
    memref.store %k, %g[] : memref<i32>
  }
}

// A task without serial loops gets no flag and no check.
// CHECK-LABEL: offload.kernel @no_loops
// CHECK-NOT:     spirv.Variable
// CHECK-NOT:     taichi.assert
// CHECK:       }
offload.kernel @no_loops : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %k = %lo to %hi : i32 {
    %g = offload.global_tmp 0 : memref<i32>
    memref.store %k, %g[] : memref<i32>
  }
}
