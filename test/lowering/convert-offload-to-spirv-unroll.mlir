// RUN: ti-opt %s -p 'convert-offload-to-spirv{unroll=2}' | filecheck %s

// A straight-line body: first a loop of two iterations at a time while both are in
// range (i < hi - stride), their ops interleaved (both loads before both stores), then
// the plain grid-stride loop from where it stopped.
// CHECK-LABEL:   spirv.func @copy__task0() "None" {
// CHECK:           %[[STRIDE:.*]] = spirv.IMul %{{.*}}, %{{.*}} : i32
// CHECK:           %[[HI:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK-NEXT:      %[[BEGIN:.*]] = spirv.IAdd %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:      %[[REACH:.*]] = spirv.IMul %[[STRIDE]], %[[ONE]] : i32
// CHECK-NEXT:      %[[LIMIT:.*]] = spirv.ISub %[[HI]], %[[REACH]] : i32
// CHECK-NEXT:      %[[TWO:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:      %[[STEP:.*]] = spirv.IMul %[[STRIDE]], %[[TWO]] : i32
// CHECK-NEXT:      %[[IV:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:      spirv.Store "Function" %[[IV]], %[[BEGIN]] : i32
// CHECK-NEXT:      spirv.mlir.loop {
// CHECK-NEXT:        spirv.Branch ^[[HEADER:.*]]
// CHECK-NEXT:      ^[[HEADER]]:
// CHECK-NEXT:        %[[I:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:        %[[LT:.*]] = spirv.SLessThan %[[I]], %[[LIMIT]] : i32
// CHECK-NEXT:        spirv.BranchConditional %[[LT]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:      ^[[BODY]]:
// CHECK-NEXT:        %[[K:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:        %[[S1:.*]] = spirv.IMul %[[STRIDE]], %[[K]] : i32
// CHECK-NEXT:        %[[I1:.*]] = spirv.IAdd %[[I]], %[[S1]] : i32
// CHECK-NEXT:        %[[X0:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %[[I]]]
// CHECK-NEXT:        %[[X1:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %[[I1]]]
// CHECK-NEXT:        %[[V0:.*]] = spirv.Load "StorageBuffer" %[[X0]] : f32
// CHECK-NEXT:        %[[V1:.*]] = spirv.Load "StorageBuffer" %[[X1]] : f32
// CHECK-NEXT:        %[[Y0:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %[[I]]]
// CHECK-NEXT:        %[[Y1:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %[[I1]]]
// CHECK-NEXT:        spirv.Store "StorageBuffer" %[[Y0]], %[[V0]] : f32
// CHECK-NEXT:        spirv.Store "StorageBuffer" %[[Y1]], %[[V1]] : f32
// CHECK-NEXT:        spirv.Branch ^[[CONT:.*]]
// CHECK-NEXT:      ^[[CONT]]:
// CHECK-NEXT:        %[[A:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:        %[[N:.*]] = spirv.IAdd %[[A]], %[[STEP]] : i32
// CHECK-NEXT:        spirv.Store "Function" %[[IV]], %[[N]] : i32
// CHECK-NEXT:        spirv.Branch ^[[HEADER]]
// CHECK-NEXT:      ^[[EXIT]]:
// CHECK-NEXT:        spirv.mlir.merge
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[REST:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:      %[[IV2:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:      spirv.Store "Function" %[[IV2]], %[[REST]] : i32
// CHECK-NEXT:      spirv.mlir.loop {
// CHECK:             %{{.*}} = spirv.SLessThan %{{.*}}, %[[HI]] : i32
// CHECK:             %{{.*}} = spirv.IAdd %{{.*}}, %[[STRIDE]] : i32
// CHECK:           spirv.Return
offload.kernel @copy : (memref<?xf32>, memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %n = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %n[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %y = offload.arg 1 : memref<?xf32>
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    memref.store %v, %py[] : memref<f32>
  }
}

// Left as one loop: a body with control flow.
// CHECK-LABEL:   spirv.func @branchy__task0() "None" {
// CHECK-COUNT-2:   spirv.mlir.{{loop|selection}}
// CHECK-NOT:       spirv.mlir.loop
// CHECK:           spirv.Return

// A body that accumulates into a thread-local slot: the iterations of one invocation
// share it, so the copies follow one another (load, add, store of the slot each).
// CHECK-LABEL:   spirv.func @sum__task0() "None" {
// CHECK:           spirv.mlir.loop {
// CHECK:             %[[I1:.*]] = spirv.IAdd %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:        %[[P0:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK-NEXT:        %[[V0:.*]] = spirv.Load "StorageBuffer" %[[P0]] : f32
// CHECK-NEXT:        %[[A0:.*]] = spirv.Load "Function" %[[TL:.*]] : f32
// CHECK-NEXT:        %[[B0:.*]] = spirv.FAdd %[[A0]], %[[V0]] : f32
// CHECK-NEXT:        spirv.Store "Function" %[[TL]], %[[B0]] : f32
// CHECK-NEXT:        %[[P1:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %[[I1]]]
// CHECK-NEXT:        %[[V1:.*]] = spirv.Load "StorageBuffer" %[[P1]] : f32
// CHECK-NEXT:        %[[A1:.*]] = spirv.Load "Function" %[[TL]] : f32
// CHECK-NEXT:        %[[B1:.*]] = spirv.FAdd %[[A1]], %[[V1]] : f32
// CHECK-NEXT:        spirv.Store "Function" %[[TL]], %[[B1]] : f32
// CHECK:           spirv.mlir.loop {
// CHECK:           spirv.Return
offload.kernel @branchy : (memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %zero = spirv.Constant 0 : i32
    %odd = spirv.SGreaterThan %i, %zero : i32
    spirv.mlir.selection {
      spirv.BranchConditional %odd, ^then, ^merge
    ^then:
      %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
      %f = spirv.Constant 1.0 : f32
      memref.store %f, %px[] : memref<f32>
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
  }
}

offload.kernel @sum : (memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %tl = offload.thread_local 0 : memref<f32>
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %a = memref.load %tl[] : memref<f32>
    %b = spirv.FAdd %a, %v : f32
    memref.store %b, %tl[] : memref<f32>
  } prologue {
    %tl = offload.thread_local 0 : memref<f32>
    %z = spirv.Constant 0.0 : f32
    memref.store %z, %tl[] : memref<f32>
  } epilogue {
  }
}
