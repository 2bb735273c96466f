// RUN: ti-opt %s -p 'convert-offload-to-spirv{check-loop-exits=true}' | filecheck %s
// RUN: ti-opt %s -p convert-offload-to-spirv | filecheck %s --check-prefix=OFF

// check-loop-exits (the Vulkan backend on lavapipe, whose loops of an invocation stop
// silently once they ran 65535 iterations in all): after the grid-stride loop of a
// parallel task whose body runs a serial loop, an `always` assert that the loop's index
// reached the task's bound. The driver may end the grid-stride loop at its back edge
// just after an element's own loops finished, leaving the invocation's next elements
// undone, with no error.
// CHECK-LABEL: spirv.module {{.*}} attributes {ti.asserts = {{\[}}["0", "a serial loop ended before its last iteration{{.*}}"]], ti.kernel = "fill", ti.task = 0 : i64}
// CHECK:         %[[IV:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK:         spirv.mlir.loop {
// CHECK:           %[[I:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:      %[[LT:.*]] = spirv.SLessThan %[[I]], %[[HI:.*]] : i32
// CHECK-NEXT:      spirv.BranchConditional %[[LT]], ^{{.*}}, ^[[EXIT:bb[0-9]+]]
// CHECK:         ^[[EXIT]]:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[END:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:    %[[DONE:.*]] = spirv.SGreaterThanEqual %[[END]], %[[HI]] : i32
// CHECK:         %[[BAD:.*]] = spirv.LogicalNot %[[DONE]] : i1
// CHECK-NEXT:    spirv.mlir.selection {
// CHECK-NEXT:      spirv.BranchConditional %[[BAD]]
// CHECK:           %[[CODE:.*]] = spirv.Constant 2 : i32
// CHECK:         spirv.Return

// A body of straight-line code, over a constant length: an invocation takes at most
// 2**31 / (65535 * 32) + 1 elements; no check (it would make every launch wait).
// CHECK-LABEL: spirv.module
// CHECK-NOT:     ti.asserts
// CHECK-SAME:    ti.kernel = "fill", ti.task = 1 : i64
// CHECK-NOT:     spirv.SGreaterThanEqual
// CHECK:         spirv.Return

// A length read on the device with a block of 32: DYNAMIC_GROUPS * 32 invocations may
// each take more than 65535 elements; checked.
// CHECK-LABEL: spirv.module
// CHECK-SAME:    ti.asserts
// CHECK-SAME:    ti.kernel = "fill", ti.task = 2 : i64
// CHECK:         spirv.SGreaterThanEqual
// CHECK:         spirv.Return

// The same with the default block (a cut needs more than 2,147,418,112 elements): no check.
// CHECK-LABEL: spirv.module
// CHECK-NOT:     ti.asserts
// CHECK-SAME:    ti.kernel = "fill", ti.task = 3 : i64
// CHECK-NOT:     spirv.SGreaterThanEqual
// CHECK:         spirv.Return

// Without the option: no check, no message.
// OFF-NOT:     ti.asserts
// OFF-NOT:     spirv.SGreaterThanEqual
offload.kernel @fill : (i32) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %iv = spirv.Variable : !spirv.ptr<i32, Function>
    spirv.mlir.loop {
      spirv.Branch ^bb1
    ^bb1:
      %j = spirv.Load "Function" %iv : i32
      %more = spirv.SLessThan %j, %i : i32
      spirv.BranchConditional %more, ^bb2, ^bb3
    ^bb2:
      spirv.Store "Function" %iv, %i : i32
      spirv.Branch ^bb1
    ^bb3:
      spirv.mlir.merge
    }
  }
  offload.range_for %i = %lo to %hi : i32 {
  }
  %g = offload.global_tmp 0 : memref<i32>
  %n = memref.load %g[] : memref<i32>
  offload.range_for %i = %lo to %n : i32 {
  } {block_dim = 32 : i64}
  offload.range_for %i = %lo to %n : i32 {
  }
}
