// RUN: ti-opt %s -p ti-to-spirv | filecheck %s

// The named pipeline: ti-to-offload, then the three conversions. A kernel whose parallel
// loop needs a bound computed by a serial task gives two modules, one per task.
// Task 0 (serial, one invocation) computes the bound n * 2 from the argument words and
// stores it into global temporary 0; task 1 reads it back as the bound of a grid-stride
// loop (start at the invocation id, step by the number of invocations, 128 per group)
// whose body scales x[i] by the argument a.
// CHECK:       builtin.module {
// CHECK-NEXT:    taichi.field @x : memref<256xf32> offset 0
// CHECK-NEXT:    spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "scale", ti.task = 0 : i64} {
// The element accesses' constants are made once, in the entry block.
// CHECK:           spirv.func @scale__task0() "None" {
// CHECK-NEXT:        %[[WORD:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:        %[[ARGS:.*]] = spirv.mlir.addressof @args_i32
// CHECK-NEXT:        %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:        %[[GTMPS:.*]] = spirv.mlir.addressof @gtmps_i32
// Its address arithmetic comes first (ti-spirv-hoist), the loads after the early return
// of all invocations but the first.
// CHECK:             %[[NP:.*]] = spirv.AccessChain %[[ARGS]][%[[ZERO]], %[[WORD]]]
// CHECK-NEXT:        %[[TWO:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:        %[[TP:.*]] = spirv.AccessChain %[[GTMPS]][%[[ZERO]], %[[ZERO]]]
// CHECK:             %[[FIRST:.*]] = spirv.INotEqual
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[FIRST]], ^[[SKIP:.*]], ^[[MERGE:.*]]
// CHECK-NEXT:        ^[[SKIP]]:
// CHECK-NEXT:          spirv.Return
// CHECK:             %[[N:.*]] = spirv.Load "StorageBuffer" %[[NP]] : i32
// CHECK-NEXT:        %[[HI:.*]] = spirv.IMul %[[N]], %[[TWO]] : i32
// CHECK-NEXT:        spirv.Store "StorageBuffer" %[[TP]], %[[HI]] : i32
// CHECK:           spirv.ExecutionMode @scale__task0 "LocalSize", 1, 1, 1
// CHECK:         spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "scale", ti.task = 1 : i64} {
// CHECK:           spirv.func @scale__task1() "None" {
// CHECK-NEXT:        %{{.*}} = spirv.Constant 0 : i32
// CHECK-NEXT:        %[[GT:.*]] = spirv.mlir.addressof @gtmps_i32
// CHECK-NEXT:        %[[FARGS:.*]] = spirv.mlir.addressof @args_f32
// CHECK-NEXT:        %[[ROOT:.*]] = spirv.mlir.addressof @root_f32
// CHECK:             %[[LS:.*]] = spirv.Constant 128 : i32
// CHECK:             %[[GID:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : vector<3xi32>
// CHECK:             %[[START:.*]] = spirv.IAdd %{{.*}}, %[[GID]] : i32
// CHECK-NEXT:        %{{.*}} = spirv.Load "Input"
// CHECK-NEXT:        %[[NWG:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : vector<3xi32>
// CHECK-NEXT:        %[[STRIDE:.*]] = spirv.IMul %[[NWG]], %[[LS]] : i32
// CHECK-NEXT:        %[[BOUND:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK-NEXT:        %[[IV:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:        spirv.Store "Function" %[[IV]], %[[START]] : i32
// CHECK-NEXT:        spirv.mlir.loop {
// CHECK:               %[[I:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:          %[[GO:.*]] = spirv.SLessThan %[[I]], %[[BOUND]] : i32
// CHECK-NEXT:          spirv.BranchConditional %[[GO]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:        ^[[BODY]]:
// CHECK:               %[[AP:.*]] = spirv.AccessChain %[[FARGS]]
// CHECK-NEXT:          %[[A:.*]] = spirv.Load "StorageBuffer" %[[AP]] : f32
// CHECK:               %[[XP:.*]] = spirv.AccessChain %[[ROOT]][%{{.*}}, %[[I]]]
// CHECK-NEXT:          %[[V:.*]] = spirv.Load "StorageBuffer" %[[XP]] : f32
// CHECK-NEXT:          %[[W:.*]] = spirv.FMul %[[V]], %[[A]] : f32
// CHECK-NEXT:          spirv.Store "StorageBuffer" %[[XP]], %[[W]] : f32
// CHECK:               %[[OLD:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:          %[[NEXT:.*]] = spirv.IAdd %[[OLD]], %[[STRIDE]] : i32
// CHECK-NEXT:          spirv.Store "Function" %[[IV]], %[[NEXT]] : i32
// CHECK:           spirv.EntryPoint "GLCompute" @scale__task1, @gid, @nwg
// CHECK-NEXT:      spirv.ExecutionMode @scale__task1 "LocalSize", 128, 1, 1
// CHECK-NOT:     taichi.kernel
// CHECK-NOT:     offload.kernel
taichi.field @x : memref<256xf32> offset 0

taichi.kernel @scale(%a: f32, %n: i32) {
  %x = taichi.get_field @x : memref<256xf32>
  %lo = arith.constant 0 : i32
  %two = arith.constant 2 : i32
  %hi = arith.muli %n, %two : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %x[%i] : memref<256xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %w = arith.mulf %v, %a : f32
    memref.store %w, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
