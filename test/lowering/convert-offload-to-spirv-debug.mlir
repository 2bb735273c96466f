// RUN: ti-opt %s -p 'convert-offload-to-spirv{debug=true}' | filecheck %s
// RUN: ti-opt %s -p convert-offload-to-spirv | filecheck %s --check-prefix=NODEBUG

taichi.field @x : memref<4x8xf32> offset 0

// debug=true: x[i, j] is read only when 0 <= i < 4 and 0 <= j < 8 (one unsigned
// compare per index); otherwise the first bad index goes to the error record (binding
// 5): the invocation that swaps its code word from 0 to 1 writes (site | dim, index,
// extent), the site the id + 1 of the access's `file:line:column` in the ti.asserts
// table, shifted left 8 (here id 0: 256 | dim).
// The load goes through a Function variable that holds 0 when the read was skipped.
// CHECK-LABEL: spirv.module {{.*}} attributes {ti.asserts = {{\[}}["0", "{{.*}}convert-offload-to-spirv-debug.mlir:[[# @LINE + 54]]:5"], ["1", "x must be positive"]], ti.kernel = "checked", ti.task = 0 : i64}
// CHECK-DAG:     spirv.GlobalVariable @error_i32 bind(0, 5)
// CHECK-LABEL:   spirv.func @checked__task0() "None" {
// CHECK:           %[[SLOT:.*]] = spirv.Variable : !spirv.ptr<f32, Function>
// CHECK:           %[[PTR:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %{{.*}}] : {{.*}} -> !spirv.ptr<f32, StorageBuffer>
// CHECK-NEXT:      %[[C4:.*]] = spirv.Constant 4 : i32
// CHECK-NEXT:      %[[OK0:.*]] = spirv.ULessThan %[[I:.*]], %[[C4]] : i32
// CHECK-NEXT:      %[[C8:.*]] = spirv.Constant 8 : i32
// CHECK-NEXT:      %[[OK1:.*]] = spirv.ULessThan %[[J:.*]], %[[C8]] : i32
// CHECK-NEXT:      %[[D1:.*]] = spirv.Constant 257 : i32
// CHECK-NEXT:      %[[D0:.*]] = spirv.Constant 256 : i32
// CHECK-NEXT:      %[[DIM:.*]] = spirv.Select %[[OK0]], %[[D1]], %[[D0]] : i1, i32
// CHECK-NEXT:      %[[IDX:.*]] = spirv.Select %[[OK0]], %[[J]], %[[I]] : i1, i32
// CHECK-NEXT:      %[[EXT:.*]] = spirv.Select %[[OK0]], %[[C8]], %[[C4]] : i1, i32
// CHECK-NEXT:      %[[OK:.*]] = spirv.LogicalAnd %[[OK0]], %[[OK1]] : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[OK]], ^[[READ:.*]], ^[[BAD:.*]]
// CHECK-NEXT:      ^[[READ]]:
// CHECK-NEXT:        %[[V:.*]] = spirv.Load "StorageBuffer" %[[PTR]] : f32
// CHECK-NEXT:        spirv.Store "Function" %[[SLOT]], %[[V]] : f32
// CHECK-NEXT:        spirv.Branch ^[[MERGE:.*]]
// CHECK-NEXT:      ^[[BAD]]:
// CHECK-NEXT:        %[[CODE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:        %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK:             %[[OLD:.*]] = spirv.AtomicCompareExchange <Device> <None> <None> %{{.*}}, %[[CODE]], %[[ZERO]]
// CHECK-NEXT:        %[[WON:.*]] = spirv.IEqual %[[OLD]], %[[ZERO]] : i32
// CHECK-NEXT:        spirv.mlir.selection {
// CHECK-NEXT:          spirv.BranchConditional %[[WON]]
// CHECK:               spirv.Store "StorageBuffer" %{{.*}}, %[[DIM]] : i32
// CHECK:               spirv.Store "StorageBuffer" %{{.*}}, %[[IDX]] : i32
// CHECK:               spirv.Store "StorageBuffer" %{{.*}}, %[[EXT]] : i32
// CHECK:             %[[F0:.*]] = spirv.Constant 0.000000e+00 : f32
// CHECK-NEXT:        spirv.Store "Function" %[[SLOT]], %[[F0]] : f32
// CHECK:           %[[LOADED:.*]] = spirv.Load "Function" %[[SLOT]] : f32
// The assert: code 2 and the id of its message when the condition is false.
// CHECK:           %[[ID:.*]] = spirv.Constant 1 : i32
// CHECK:           %[[BADC:.*]] = spirv.LogicalNot %{{.*}} : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[BADC]]
// CHECK:             %[[CODE2:.*]] = spirv.Constant 2 : i32
// CHECK:             spirv.AtomicCompareExchange <Device> <None> <None> %{{.*}}, %[[CODE2]]
// CHECK:             spirv.Store "StorageBuffer" %{{.*}}, %[[ID]] : i32

// Without debug the pass must not check: no compares, no error record, no assert.
// NODEBUG-LABEL: spirv.func @checked__task0
// NODEBUG-NOT:     spirv.ULessThan
// NODEBUG-NOT:     AtomicCompareExchange
// NODEBUG-NOT:     LogicalNot
// NODEBUG:         spirv.Return
offload.kernel @checked : (i32, i32) -> () {
  offload.serial {
    %i = offload.arg 0 : i32
    %j = offload.arg 1 : i32
    %x = taichi.get_field @x : memref<4x8xf32>
    %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %z = spirv.Constant 0.0 : f32
    %ok = spirv.FOrdGreaterThan %v, %z : f32
    taichi.assert %ok, "x must be positive"
  }
}

// A message's values: the i32 itself and the f32's bits fill the record's two free
// words; the message in the ti.asserts table names their kinds before the format.
// CHECK-LABEL: spirv.module {{.*}} attributes {ti.asserts = {{\[}}["0", "\1Fi32,f32\1Fx[{}] = {:.2f}"]], ti.kernel = "formatted"
// CHECK:           %[[I:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK:           %[[V:.*]] = spirv.Constant 2.500000e+00 : f32
// CHECK:           %[[BITS:.*]] = spirv.Bitcast %[[V]] : f32 to i32
// CHECK:             spirv.Store "StorageBuffer" %{{.*}}, %[[I]] : i32
// CHECK:             spirv.Store "StorageBuffer" %{{.*}}, %[[BITS]] : i32
offload.kernel @formatted : (i32) -> () {
  offload.serial {
    %i = offload.arg 0 : i32
    %v = spirv.Constant 2.5 : f32
    %z = spirv.Constant 0.0 : f32
    %ok = spirv.FOrdLessThan %v, %z : f32
    taichi.assert %ok, "x[{}] = {:.2f}" (%i, %v : i32, f32)
  }
}
