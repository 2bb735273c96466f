// RUN: ti-opt %s -p 'convert-offload-to-spirv{fold-bounds=true}' | filecheck %s

// `for i in range(x.shape[0])`: the serial task only stores the shape for the bound, so
// the range_for task reads the shape itself (ndarray shapes follow the argument's pointer
// in the argument buffer) and the serial task is marked ti.skip (not dispatched).
// CHECK:       spirv.module {{.*}} attributes {ti.skip, ti.kernel = "copy", ti.task = 0 : i64}
// CHECK:       spirv.module {{.*}} attributes {ti.kernel = "copy", ti.task = 1 : i64}
// CHECK-NOT:     @gtmps
// CHECK:         spirv.func @copy__task1() "None" {
// CHECK:           %[[ARGS:.*]] = spirv.mlir.addressof @args_i32
// CHECK:           %[[SHAPE:.*]] = spirv.AccessChain %[[ARGS]][%{{.*}}, %{{.*}}]
// CHECK-NEXT:      %[[N:.*]] = spirv.Load "StorageBuffer" %[[SHAPE]] : i32
// CHECK:           %{{.*}} = spirv.SLessThan %{{.*}}, %[[N]] : i32
// CHECK:           spirv.Return
offload.kernel @copy : (memref<?xf32>, memref<?xf32>) -> () {
  offload.serial {
    %x = offload.arg 0 : memref<?xf32>
    %c0 = arith.constant 0 : index
    %d = memref.dim %x, %c0 : memref<?xf32>
    %n = arith.index_cast %d : index to i32
    %t = offload.global_tmp 0 : memref<i32>
    memref.store %n, %t[] : memref<i32>
  }
  %lo = arith.constant 0 : i32
  %t = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %t[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %y = offload.arg 1 : memref<?xf32>
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    memref.store %v, %py[] : memref<f32>
  }
}

// Kept: the bound is also read inside a task, and a serial task that reads memory.
// CHECK:       spirv.module {{.*}} attributes {ti.kernel = "shared", ti.task = 0 : i64}
// CHECK:       spirv.module {{.*}} attributes {ti.kernel = "shared", ti.task = 1 : i64}
// CHECK:         %{{.*}} = spirv.mlir.addressof @gtmps_i32
// CHECK:       spirv.module {{.*}} attributes {ti.kernel = "loaded", ti.task = 0 : i64}
offload.kernel @shared : (memref<?xi32>) -> () {
  offload.serial {
    %x = offload.arg 0 : memref<?xi32>
    %c0 = arith.constant 0 : index
    %d = memref.dim %x, %c0 : memref<?xi32>
    %n = arith.index_cast %d : index to i32
    %t = offload.global_tmp 0 : memref<i32>
    memref.store %n, %t[] : memref<i32>
  }
  %lo = arith.constant 0 : i32
  %t = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %t[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xi32>
    %t2 = offload.global_tmp 0 : memref<i32>
    %n2 = memref.load %t2[] : memref<i32>
    %px = taichi.element_ptr %x[%i] : memref<?xi32> -> memref<i32>
    memref.store %n2, %px[] : memref<i32>
  }
}

offload.kernel @loaded : (memref<?xi32>) -> () {
  offload.serial {
    %x = offload.arg 0 : memref<?xi32>
    %c0 = spirv.Constant 0 : i32
    %p = taichi.element_ptr %x[%c0] : memref<?xi32> -> memref<i32>
    %n = memref.load %p[] : memref<i32>
    %t = offload.global_tmp 0 : memref<i32>
    memref.store %n, %t[] : memref<i32>
  }
  %lo = arith.constant 0 : i32
  %t = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %t[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xi32>
    %px = taichi.element_ptr %x[%i] : memref<?xi32> -> memref<i32>
    memref.store %i, %px[] : memref<i32>
  }
}
