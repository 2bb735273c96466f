// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="none"}' --split-input-file | filecheck %s

// A field loaded and stored by itself at indices (textual IR; the frontend writes
// taichi.element_ptr): the element at those indices, (i * 8 + 3) + 64 bytes / 4 for the
// load and (3 * 8 + i) + 16 for the store. The index_cast the load took goes with it.
// CHECK-LABEL: spirv.func @indexed_field_access__task0() "None" {
// CHECK-NOT:     index
// CHECK-NEXT:    %[[N1:.*]] = spirv.Constant 8 : i32
// CHECK-NEXT:    %[[START:.*]] = spirv.Constant 16 : i32
// CHECK-NEXT:    %[[ROOT:.*]] = spirv.mlir.addressof @root_f32
// CHECK-NEXT:    %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK:         %[[I:.*]] = spirv.Load "Function" %{{.*}} : i32
// CHECK:         %[[C3:.*]] = spirv.Constant 3 : i32
// CHECK-NEXT:    %[[ROW:.*]] = spirv.IMul %[[I]], %[[N1]] : i32
// CHECK-NEXT:    %[[LIN:.*]] = spirv.IAdd %[[ROW]], %[[C3]] : i32
// CHECK-NEXT:    %[[AT:.*]] = spirv.IAdd %[[LIN]], %[[START]] : i32
// CHECK-NEXT:    %[[P:.*]] = spirv.AccessChain %[[ROOT]][%[[Z]], %[[AT]]]
// CHECK-NEXT:    %[[V:.*]] = spirv.Load "StorageBuffer" %[[P]] : f32
// CHECK-NEXT:    %[[D3:.*]] = spirv.Constant 3 : i32
// CHECK-NEXT:    %[[DROW:.*]] = spirv.IMul %[[D3]], %[[N1]] : i32
// CHECK-NEXT:    %[[DLIN:.*]] = spirv.IAdd %[[DROW]], %[[I]] : i32
// CHECK-NEXT:    %[[DAT:.*]] = spirv.IAdd %[[DLIN]], %[[START]] : i32
// CHECK-NEXT:    %[[Q:.*]] = spirv.AccessChain %[[ROOT]][%[[Z]], %[[DAT]]]
// CHECK-NEXT:    spirv.Store "StorageBuffer" %[[Q]], %[[V]] : f32
taichi.field @x : memref<4x8xf32> offset 64
offload.kernel @indexed_field_access : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 4 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @x : memref<4x8xf32>
    %k = arith.index_cast %i : i32 to index
    %c3 = arith.constant 3 : index
    %v = memref.load %x[%k, %c3] : memref<4x8xf32>
    memref.store %v, %x[%c3, %k] : memref<4x8xf32>
  }
}

// -----

// A 0-d field read and written by itself: its one element, at offset 0 (the pass had
// no lowering for it).
// CHECK-LABEL: spirv.func @scalar_field_access__task0() "None" {
// CHECK-NEXT:    %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK:         spirv.mlir.merge
// CHECK:         %[[P:.*]] = spirv.AccessChain %{{.*}}[%[[Z]], %[[Z]]]
// CHECK-NEXT:    %[[V:.*]] = spirv.Load "StorageBuffer" %[[P]] : i32
// CHECK:         %[[Q:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK-NEXT:    spirv.Store "StorageBuffer" %[[Q]], %[[V]] : i32
taichi.field @s : memref<i32> offset 0
offload.kernel @scalar_field_access : () -> () {
  offload.serial {
    %s = taichi.get_field @s : memref<i32>
    %v = memref.load %s[] : memref<i32>
    memref.store %v, %s[] : memref<i32>
  }
}
