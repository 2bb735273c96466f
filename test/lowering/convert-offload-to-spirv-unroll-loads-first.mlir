// RUN: ti-opt %s -p 'convert-offload-to-spirv{unroll=2 unroll-selections=true unroll-loads-first=true}' | filecheck %s
// RUN: ti-opt %s -p 'convert-offload-to-spirv{unroll=2 unroll-selections=true}' | filecheck %s --check-prefix=OFF

// Two guarded copies, loads first: each copy's guard, then each copy's loads under its
// own guard into Function variables, then each copy's body reading the variables; the
// load after the copy's store (y[i] after y[i] = ...) stays in the body.
// CHECK-LABEL:   spirv.func @guarded__task0() "None" {
// CHECK-COUNT-2:   %{{.*}} = spirv.Variable : !spirv.ptr<f32, Function>
// CHECK:           spirv.mlir.loop {
// CHECK:             %[[I:.*]] = spirv.Load "Function" %{{.*}} : i32
// CHECK:             %[[C0:.*]] = spirv.SGreaterThan %[[I]], %{{.*}} : i32
// CHECK:             %[[C1:.*]] = spirv.SGreaterThan %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[C0]]
// CHECK:                 %[[A0:.*]] = spirv.Load "StorageBuffer" %{{.*}} : f32
// CHECK-NEXT:            spirv.Store "Function" %[[V0:.*]], %[[A0]] : f32
// CHECK-NOT:             spirv.Store "StorageBuffer"
// CHECK:               spirv.mlir.merge
// CHECK-NEXT:        }
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[C1]]
// CHECK:                 %[[A1:.*]] = spirv.Load "StorageBuffer" %{{.*}} : f32
// CHECK-NEXT:            spirv.Store "Function" %[[V1:.*]], %[[A1]] : f32
// CHECK:               spirv.mlir.merge
// CHECK-NEXT:        }
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[C0]]
// CHECK:                 spirv.Load "Function" %[[V0]] : f32
// CHECK:                 spirv.Store "StorageBuffer"
// CHECK:                 spirv.Load "StorageBuffer"
// CHECK:               spirv.mlir.merge
// CHECK-NEXT:        }
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[C1]]
// CHECK:                 spirv.Load "Function" %[[V1]] : f32
// CHECK:           spirv.Return

// Without it, each copy loads and stores in its own selection, one after the other.
// OFF-LABEL:   spirv.func @guarded__task0() "None" {
// OFF-NOT:       spirv.Variable : !spirv.ptr<f32, Function>
// OFF:           spirv.mlir.selection {
// OFF:             spirv.Load "StorageBuffer"
// OFF:             spirv.Store "StorageBuffer"
// OFF:           spirv.mlir.selection {
// OFF:           spirv.Return
offload.kernel @guarded : (memref<?xf32>, memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %y = offload.arg 1 : memref<?xf32>
    %zero = spirv.Constant 0 : i32
    %pos = spirv.SGreaterThan %i, %zero : i32
    spirv.mlir.selection {
      spirv.BranchConditional %pos, ^then, ^merge
    ^then:
      %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
      %a = memref.load %px[] : memref<f32>
      %two = spirv.Constant 2.0 : f32
      %b = spirv.FMul %a, %two : f32
      %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
      memref.store %b, %py[] : memref<f32>
      %c = memref.load %py[] : memref<f32>
      memref.store %c, %px[] : memref<f32>
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
  }
}
