// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_variable_ptr" root-segment-bytes=1024}' | filecheck %s
// RUN: not ti-opt %s -p 'convert-offload-to-spirv{caps="none" root-segment-bytes=1024}' 2>&1 | filecheck %s --check-prefix=NOVP

// A field spanning three segments of 1024 bytes (2048 bytes at root offset 960: a
// sparse pool's array larger than one binding). Element i is element i + 240 counted
// from segment 0's start: segment (i + 240) / 256, at (i + 240) % 256. Each segment's
// access chain takes that place or 0, and selects of pointers
// (VariablePointersStorageBuffer) keep the element's segment. The kernel binds all
// three segments.
// CHECK:       spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, VariablePointersStorageBuffer], {{.*}}> attributes {ti.root_segments = 3 : i64
// CHECK-DAG:     spirv.GlobalVariable @root_f32 bind(0, 0)
// CHECK-DAG:     spirv.GlobalVariable @root1_f32 bind(0, 6)
// CHECK-DAG:     spirv.GlobalVariable @root2_f32 bind(0, 7)
// CHECK:         %[[START:.*]] = spirv.Constant 240 : i32
// CHECK-NEXT:    %[[R0:.*]] = spirv.mlir.addressof @root_f32
// CHECK-NEXT:    %[[R1:.*]] = spirv.mlir.addressof @root1_f32
// CHECK-NEXT:    %[[R2:.*]] = spirv.mlir.addressof @root2_f32
// CHECK:         %[[K:.*]] = spirv.IAdd %i, %[[START]] : i32
// CHECK-NEXT:    %[[N:.*]] = spirv.Constant 256 : i32
// CHECK-NEXT:    %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[SEG:.*]] = spirv.SDiv %[[K]], %[[N]] : i32
// CHECK-NEXT:    %[[AT:.*]] = spirv.SMod %[[K]], %[[N]] : i32
// CHECK-NEXT:    %[[C0:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[H0:.*]] = spirv.IEqual %[[SEG]], %[[C0]] : i32
// CHECK-NEXT:    %[[A0:.*]] = spirv.Select %[[H0]], %[[AT]], %[[Z]] : i1, i32
// CHECK-NEXT:    %[[P0:.*]] = spirv.AccessChain %[[R0]][%[[Z]], %[[A0]]]
// CHECK-NEXT:    %[[C1:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[H1:.*]] = spirv.IEqual %[[SEG]], %[[C1]] : i32
// CHECK-NEXT:    %[[A1:.*]] = spirv.Select %[[H1]], %[[AT]], %[[Z]] : i1, i32
// CHECK-NEXT:    %[[P1:.*]] = spirv.AccessChain %[[R1]][%[[Z]], %[[A1]]]
// CHECK-NEXT:    %[[S1:.*]] = spirv.Select %[[H1]], %[[P1]], %[[P0]] : i1, !spirv.ptr<f32, StorageBuffer>
// CHECK-NEXT:    %[[C2:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:    %[[H2:.*]] = spirv.IEqual %[[SEG]], %[[C2]] : i32
// CHECK-NEXT:    %[[A2:.*]] = spirv.Select %[[H2]], %[[AT]], %[[Z]] : i1, i32
// CHECK-NEXT:    %[[P2:.*]] = spirv.AccessChain %[[R2]][%[[Z]], %[[A2]]]
// CHECK-NEXT:    %[[P:.*]] = spirv.Select %[[H2]], %[[P2]], %[[S1]] : i1, !spirv.ptr<f32, StorageBuffer>
// CHECK-NEXT:    %[[V:.*]] = spirv.Load "StorageBuffer" %[[P]] : f32
// CHECK-NEXT:    spirv.Store "StorageBuffer" %[[P]], %[[V]] : f32

// Without variable pointers the field is refused by name.
// NOVP: field @span (2048 bytes at root offset 960) straddles the root segments of 1024 bytes {{.*}} no variable pointers
taichi.field @span : memref<512xf32> offset 960
offload.kernel @spanning_field : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 512 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @span : memref<512xf32>
    %p = taichi.element_ptr %x[%i] : memref<512xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    memref.store %v, %p[] : memref<f32>
  }
}

// A compare-and-swap atomic (f32 multiply) on a spanning field: the loop swaps the
// word through the integer views of the same segments, chosen the same way.
// CHECK-LABEL: spirv.func @spanning_atomic__task0
// CHECK:         spirv.AccessChain %{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
// CHECK:         %[[W0:.*]] = spirv.AccessChain %{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
// CHECK:         %[[W1:.*]] = spirv.AccessChain %{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
// CHECK-NEXT:    %[[S:.*]] = spirv.Select %{{.*}}, %[[W1]], %[[W0]] : i1, !spirv.ptr<i32, StorageBuffer>
// CHECK:         %[[W2:.*]] = spirv.AccessChain %{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
// CHECK-NEXT:    %[[BITS:.*]] = spirv.Select %{{.*}}, %[[W2]], %[[S]] : i1, !spirv.ptr<i32, StorageBuffer>
// CHECK-NEXT:    %{{.*}} = spirv.Load "StorageBuffer" %[[BITS]] : i32
// CHECK:         spirv.AtomicCompareExchange <Device> <None> <None> %[[BITS]]
offload.kernel @spanning_atomic : () -> () {
  offload.serial {
    %i = spirv.Constant 300 : i32
    %x = taichi.get_field @span : memref<512xf32>
    %p = taichi.element_ptr %x[%i] : memref<512xf32> -> memref<f32>
    %f = spirv.Constant 1.5 : f32
    %b = taichi.atomic_mul %p, %f : memref<f32>
    memref.store %b, %p[] : memref<f32>
  }
}
