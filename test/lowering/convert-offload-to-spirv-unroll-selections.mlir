// RUN: ti-opt %s -p 'convert-offload-to-spirv{unroll=2 unroll-selections=true}' | filecheck %s
// RUN: ti-opt %s -p 'convert-offload-to-spirv{unroll=2}' | filecheck %s --check-prefix=OFF

// A body guarded by an if (ti-align-rows' padded columns): with unroll-selections its two
// copies run one after another in the unrolled loop, each with its own selection on its
// own index (i, then i + stride); then the plain loop.
// CHECK-LABEL:   spirv.func @guarded__task0() "None" {
// CHECK:           spirv.mlir.loop {
// CHECK:             %[[I:.*]] = spirv.Load "Function" %{{.*}} : i32
// CHECK:             %[[I1:.*]] = spirv.IAdd %[[I]], %{{.*}} : i32
// CHECK-NEXT:        %{{.*}} = spirv.Constant 0 : i32
// CHECK-NEXT:        %[[C0:.*]] = spirv.SGreaterThan %[[I]], %{{.*}} : i32
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[C0]]
// CHECK:               spirv.mlir.merge
// CHECK-NEXT:        }
// CHECK-NEXT:        %{{.*}} = spirv.Constant 0 : i32
// CHECK-NEXT:        %[[C1:.*]] = spirv.SGreaterThan %[[I1]], %{{.*}} : i32
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[C1]]
// CHECK:           spirv.mlir.loop {
// CHECK:             spirv.mlir.selection {
// CHECK:           spirv.Return

// Without it, the body with an if is left as one loop.
// OFF-LABEL:   spirv.func @guarded__task0() "None" {
// OFF-COUNT-2:   spirv.mlir.{{loop|selection}}
// OFF-NOT:       spirv.mlir.loop
// OFF:           spirv.Return
offload.kernel @guarded : (memref<?xf32>) -> () {
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
