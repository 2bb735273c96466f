// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_atomic_float_add"}' | filecheck %s

// SPIR-V has no atomic multiply: taichi.atomic_mul is a compare-and-swap loop on the
// word (through the integer view of a float place), even with native float atomic add.
// The old value goes out of the loop through a Function variable.

taichi.field @words : memref<4xi32> offset 0
taichi.field @reals : memref<4xf32> offset 16

// CHECK-LABEL: spirv.func @multiply__task0
// CHECK:         %[[WOLD:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK:         %[[ROLD:.*]] = spirv.Variable : !spirv.ptr<f32, Function>
// CHECK:         %[[K:.*]] = spirv.Constant 3 : i32
// CHECK:         %[[W:.*]] = spirv.AccessChain %{{.*}} -> !spirv.ptr<i32, StorageBuffer>
// CHECK-NEXT:    %[[W0:.*]] = spirv.Load "StorageBuffer" %[[W]] : i32
// CHECK-NEXT:    spirv.mlir.loop {
// CHECK-NEXT:      spirv.Branch ^[[CAS:.*]](%[[W0]] : i32)
// CHECK-NEXT:    ^[[CAS]](%[[E:.*]]: i32):
// CHECK-NEXT:      spirv.Store "Function" %[[WOLD]], %[[E]] : i32
// CHECK-NEXT:      %[[N:.*]] = spirv.IMul %[[E]], %[[K]] : i32
// CHECK-NEXT:      %[[SEEN:.*]] = spirv.AtomicCompareExchange <Device> <None> <None> %[[W]], %[[N]], %[[E]] : !spirv.ptr<i32, StorageBuffer>
// CHECK-NEXT:      %[[DONE:.*]] = spirv.IEqual %[[SEEN]], %[[E]] : i32
// CHECK-NEXT:      spirv.BranchConditional %[[DONE]], ^[[MERGE:.*]], ^[[CONT:.*]]
// CHECK-NEXT:    ^[[CONT]]:
// CHECK-NEXT:      spirv.Branch ^[[CAS]](%[[SEEN]] : i32)
// CHECK-NEXT:    ^[[MERGE]]:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A:.*]] = spirv.Load "Function" %[[WOLD]] : i32
// CHECK:         %[[R:.*]] = spirv.AccessChain %{{.*}} -> !spirv.ptr<i32, StorageBuffer>
// CHECK-NEXT:    %[[R0:.*]] = spirv.Load "StorageBuffer" %[[R]] : i32
// CHECK-NEXT:    spirv.mlir.loop {
// CHECK-NEXT:      spirv.Branch ^[[FCAS:.*]](%[[R0]] : i32)
// CHECK-NEXT:    ^[[FCAS]](%[[FE:.*]]: i32):
// CHECK-NEXT:      %[[OLD:.*]] = spirv.Bitcast %[[FE]] : i32 to f32
// CHECK-NEXT:      spirv.Store "Function" %[[ROLD]], %[[OLD]] : f32
// CHECK-NEXT:      %[[FN:.*]] = spirv.FMul %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:      %[[FBITS:.*]] = spirv.Bitcast %[[FN]] : f32 to i32
// CHECK-NEXT:      %{{.*}} = spirv.AtomicCompareExchange <Device> <None> <None> %[[R]], %[[FBITS]], %[[FE]] : !spirv.ptr<i32, StorageBuffer>
// CHECK:         spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = spirv.Load "Function" %[[ROLD]] : f32
// CHECK-NOT:     spirv.AtomicIMul
// CHECK-NOT:     spirv.EXT.AtomicFAdd
offload.kernel @multiply : () -> () {
  offload.serial {
    %i = spirv.Constant 1 : i32
    %w = taichi.get_field @words : memref<4xi32>
    %p = taichi.element_ptr %w[%i] : memref<4xi32> -> memref<i32>
    %k = spirv.Constant 3 : i32
    %a = taichi.atomic_mul %p, %k : memref<i32>
    %r = taichi.get_field @reals : memref<4xf32>
    %q = taichi.element_ptr %r[%i] : memref<4xf32> -> memref<f32>
    %f = spirv.Constant 1.5 : f32
    %b = taichi.atomic_mul %q, %f : memref<f32>
    memref.store %a, %p[] : memref<i32>
    memref.store %b, %q[] : memref<f32>
  }
}
