// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="none"}' --split-input-file | filecheck %s

// An ndarray only loaded from is NonWritable (its loads may take the read-only cache);
// the one stored to is not; the argument buffer (the ndarrays' shapes) is only read.
// CHECK-LABEL: spirv.module
// CHECK-DAG:   spirv.GlobalVariable @arr1_f32 bind(0, 7) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
// CHECK-DAG:   spirv.GlobalVariable @arr0_f32 bind(0, 6) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0, NonWritable]), Block>, StorageBuffer>
// CHECK-DAG:   spirv.GlobalVariable @args_i32 bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0, NonWritable]), Block>, StorageBuffer>
// CHECK:       spirv.func @copy_ndarray__task0()
// CHECK:         %{{.*}} = spirv.mlir.addressof @arr0_f32 : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0, NonWritable]), Block>, StorageBuffer>
offload.kernel @copy_ndarray : (memref<?xf32>, memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.arg 0 : memref<?xf32>
    %b = offload.arg 1 : memref<?xf32>
    %pa = taichi.element_ptr %a[%i] : memref<?xf32> -> memref<f32>
    %v = memref.load %pa[] : memref<f32>
    %pb = taichi.element_ptr %b[%i] : memref<?xf32> -> memref<f32>
    memref.store %v, %pb[] : memref<f32>
  }
}

// -----

// Two fields in the root, one read and one written: the root is written, so no view of
// it is NonWritable (a read-only cache would not see the stores of this dispatch).
// CHECK-LABEL: spirv.module
// CHECK:       spirv.GlobalVariable @root_f32 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
// CHECK-NOT:   NonWritable
// CHECK:       spirv.EntryPoint
taichi.field @x : memref<64xf32> offset 0
taichi.field @y : memref<64xf32> offset 256
offload.kernel @fields_root_written : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @x : memref<64xf32>
    %y = taichi.get_field @y : memref<64xf32>
    %px = taichi.element_ptr %x[%i] : memref<64xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<64xf32> -> memref<f32>
    memref.store %v, %py[] : memref<f32>
  }
}

// -----

// A task that only reads the root (a sum into an ndarray's atomics): the root is
// NonWritable, the ndarray updated atomically is not.
// CHECK-LABEL: spirv.module
// CHECK-DAG:   spirv.GlobalVariable @arr0_i32 bind(0, 6) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
// CHECK-DAG:   spirv.GlobalVariable @root_i32 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0, NonWritable]), Block>, StorageBuffer>
// CHECK:       spirv.AtomicIAdd
taichi.field @x : memref<64xi32> offset 0
offload.kernel @root_read_atomic_out : (memref<?xi32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @x : memref<64xi32>
    %out = offload.arg 0 : memref<?xi32>
    %px = taichi.element_ptr %x[%i] : memref<64xi32> -> memref<i32>
    %v = memref.load %px[] : memref<i32>
    %c0 = spirv.Constant 0 : i32
    %po = taichi.element_ptr %out[%c0] : memref<?xi32> -> memref<i32>
    %old = taichi.atomic_add %po, %v : memref<i32>
  }
}

// -----

// Two views of one buffer (the root as i32 and as f32): a store through the f32 view
// keeps the i32 view writable too, as they alias.
// CHECK-LABEL: spirv.module
// CHECK-NOT:   NonWritable
// CHECK:       spirv.EntryPoint
taichi.field @n : memref<64xi32> offset 0
taichi.field @y : memref<64xf32> offset 256
offload.kernel @aliasing_views : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %n = taichi.get_field @n : memref<64xi32>
    %y = taichi.get_field @y : memref<64xf32>
    %pn = taichi.element_ptr %n[%i] : memref<64xi32> -> memref<i32>
    %v = memref.load %pn[] : memref<i32>
    %f = spirv.ConvertSToF %v : i32 to f32
    %py = taichi.element_ptr %y[%i] : memref<64xf32> -> memref<f32>
    memref.store %f, %py[] : memref<f32>
  }
}
