// RUN: ti-opt %s -p convert-offload-to-spirv | filecheck %s

// A static extent of an ndarray argument, 0 included, is a constant; only a dynamic
// one is read from the argument buffer.

// CHECK-LABEL: attributes {ti.kernel = "static_dim"
// CHECK:         %d = spirv.Constant 5 : i32
// CHECK-NOT:     spirv.Load "StorageBuffer"
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %d : i32
offload.kernel @static_dim : (memref<5x?xf32>) -> (i32) {
  offload.serial {
    %x = offload.arg 0 : memref<5x?xf32>
    %c0 = arith.constant 0 : index
    %d = memref.dim %x, %c0 : memref<5x?xf32>
    %n = arith.index_cast %d : index to i32
    offload.set_return 0, %n : i32
  }
}

// CHECK-LABEL: attributes {ti.kernel = "zero_dim"
// CHECK:         %d = spirv.Constant 0 : i32
// CHECK-NOT:     spirv.Load "StorageBuffer"
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %d : i32
offload.kernel @zero_dim : (memref<?x0xf32>) -> (i32) {
  offload.serial {
    %x = offload.arg 0 : memref<?x0xf32>
    %c1 = arith.constant 1 : index
    %d = memref.dim %x, %c1 : memref<?x0xf32>
    %n = arith.index_cast %d : index to i32
    offload.set_return 0, %n : i32
  }
}

// The row index is scaled by the static row length 0, not by a shape word.
// CHECK-LABEL: attributes {ti.kernel = "zero_row"
// CHECK:         %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK:         %[[I:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK-NEXT:    %p = spirv.IMul %[[I]], %[[ZERO]] : i32
// CHECK-NEXT:    %p_1 = spirv.IAdd %p, %[[I]] : i32
// CHECK-NEXT:    %p_2 = spirv.AccessChain %{{.*}}[%[[ZERO]], %p_1]
offload.kernel @zero_row : (memref<?x0xf32>, i32) -> (f32) {
  offload.serial {
    %x = offload.arg 0 : memref<?x0xf32>
    %i = offload.arg 1 : i32
    %p = taichi.element_ptr %x[%i, %i] : memref<?x0xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    offload.set_return 0, %v : f32
  }
}
