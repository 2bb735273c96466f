// REQUIRES: spirv-tools
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{debug=true}' -t spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{debug=true}' -t spirv-asm | filecheck %s

// Debug-mode checks (bounds checks on a field and an ndarray, an atomic, an assert)
// inside a grid-stride loop: spirv-val must accept the nested selections.
// CHECK-DAG:  %[[C4:[0-9]+]] = OpConstant %{{[0-9]+}} 4{{$}}
// CHECK-DAG:  %[[C8:[0-9]+]] = OpConstant %{{[0-9]+}} 8{{$}}
// CHECK:      OpBranch %[[HEAD:[0-9]+]]
// CHECK-NEXT: %[[HEAD]] = OpLabel
// CHECK-NEXT: %[[I:[0-9]+]] = OpLoad
// CHECK-NEXT: %{{[0-9]+}} = OpSLessThan %{{[0-9]+}} %[[I]] %{{[0-9]+}}
// CHECK-NEXT: OpLoopMerge %[[EXIT:[0-9]+]] %{{[0-9]+}} None
// x[i, n]: both indices (unsigned: a negative one fails) below the shape (4, 8); the
// load only where both hold, else the first failure is recorded (compare-exchange).
// CHECK:      %[[N:[0-9]+]] = OpLoad
// CHECK:      %[[IN0:[0-9]+]] = OpULessThan %{{[0-9]+}} %[[I]] %[[C4]]
// CHECK-NEXT: %[[IN1:[0-9]+]] = OpULessThan %{{[0-9]+}} %[[N]] %[[C8]]
// CHECK:      %[[IN:[0-9]+]] = OpLogicalAnd %{{[0-9]+}} %[[IN0]] %[[IN1]]
// CHECK:      OpBranchConditional %[[IN]] %[[LOAD:[0-9]+]] %[[RECORD:[0-9]+]]
// CHECK-NEXT: %[[LOAD]] = OpLabel
// CHECK-NEXT: OpLoad
// CHECK:      %[[RECORD]] = OpLabel
// CHECK:      OpAtomicCompareExchange
// The store to x[i, n] is guarded by the same check.
// CHECK:      OpBranchConditional %[[IN]] %[[STORE:[0-9]+]] %{{[0-9]+}}
// CHECK-NEXT: %[[STORE]] = OpLabel
// CHECK-NEXT: OpStore
// The assert: where i < n fails, the failure is recorded.
// CHECK:      %[[LT:[0-9]+]] = OpSLessThan %{{[0-9]+}} %[[I]] %[[N]]
// CHECK-NEXT: %[[FAIL:[0-9]+]] = OpLogicalNot %{{[0-9]+}} %[[LT]]
// CHECK:      OpBranchConditional %[[FAIL]] %[[ASSERT:[0-9]+]] %{{[0-9]+}}
// CHECK-NEXT: %[[ASSERT]] = OpLabel
// CHECK:      OpAtomicCompareExchange
// a[n] += n became a thread-local sum, added once after the loop: the index below the
// ndarray's length (read from the arguments), the atomic only then.
// CHECK:      %[[EXIT]] = OpLabel
// CHECK-NEXT: %[[SUM:[0-9]+]] = OpLoad
// CHECK-NEXT: %{{[0-9]+}} = OpAccessChain
// CHECK-NEXT: %[[IDX:[0-9]+]] = OpLoad
// CHECK-NEXT: %{{[0-9]+}} = OpAccessChain
// CHECK-NEXT: %[[LEN:[0-9]+]] = OpLoad
// CHECK-NEXT: %[[ELEM:[0-9]+]] = OpAccessChain %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %[[IDX]]
// CHECK-NEXT: %[[OK:[0-9]+]] = OpULessThan %{{[0-9]+}} %[[IDX]] %[[LEN]]
// CHECK:      OpBranchConditional %[[OK]] %[[ADD:[0-9]+]] %{{[0-9]+}}
// CHECK-NEXT: %[[ADD]] = OpLabel
// CHECK-NEXT: %{{[0-9]+}} = OpAtomicIAdd %{{[0-9]+}} %[[ELEM]] %{{[0-9]+}} %{{[0-9]+}} %[[SUM]]
taichi.field @x : memref<4x8xf32> offset 0
taichi.kernel @k(%a: memref<?xi32>, %n: i32) {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  %x = taichi.get_field @x : memref<4x8xf32>
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %x[%i, %n] : memref<4x8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %p[] : memref<f32>
    %q = taichi.element_ptr %a[%n] : memref<?xi32> -> memref<i32>
    %o = taichi.atomic_add %q, %n : memref<i32>
    %ok = arith.cmpi slt, %i, %n : i32
    taichi.assert %ok, "i < n"
    taichi.yield
  }
  taichi.return
}
