// RUN: ti-opt %s -p 'convert-taichi-to-spirv{check_loop_exits=true}' | filecheck %s
// RUN: ti-opt %s -p convert-taichi-to-spirv | filecheck %s --check-prefix=NOCHECK

// check_loop_exits (the Vulkan backend on lavapipe, which ends loops after 65535
// iterations silently): after each serial range_for, an `always` assert that its
// counter reached the bound, or, for a loop with a break, that it broke out.
// CHECK-LABEL: taichi.kernel @loops(%n: i32, %c: i1) {
// CHECK:         %[[IV:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK:         spirv.mlir.loop {
// CHECK:         spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[END:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:    %[[DONE:.*]] = spirv.SGreaterThanEqual %[[END]], %n : i32
// CHECK-NEXT:    taichi.assert %[[DONE]], "a serial loop ended before its last iteration: this Vulkan driver stops the loops of a shader invocation once they ran a number of iterations in all (Mesa's lavapipe: 65535, shared by the loops of neighbouring invocations too); run this kernel on another device or the CPU" always
// CHECK-NEXT:    %[[BRK:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK-NEXT:    %[[IV2:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK:         spirv.IAdd
// CHECK-NEXT:      spirv.Store "Function" %[[IV2]], %{{.*}} : i32
// CHECK:           spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[END2:.*]] = spirv.Load "Function" %[[IV2]] : i32
// CHECK-NEXT:    %[[REACHED:.*]] = spirv.SGreaterThanEqual %[[END2]], %n : i32
// CHECK-NEXT:    %[[BROKE:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:    %[[EITHER:.*]] = spirv.LogicalOr %[[BROKE]], %[[REACHED]] : i1
// CHECK-NEXT:    taichi.assert %[[EITHER]], {{.*}} always
// CHECK-NEXT:    taichi.return

// NOCHECK-NOT: taichi.assert
taichi.kernel @loops(%n: i32, %c: i1) {
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    taichi.yield
  }
  taichi.range_for %j = %lo to %n : i32 {
    taichi.if %c {
      taichi.break
    }
    taichi.yield
  }
  taichi.return
}
