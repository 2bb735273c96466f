// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_int8+spirv_has_int16+spirv_has_float16+spirv_has_float64"}' | filecheck %s

// 8- and 16-bit values need their capability (Int8, Int16, Float16); 8- and 16-bit
// elements of a storage buffer also need StorageBuffer8BitAccess /
// StorageBuffer16BitAccess and their extensions (spirv-val rejects the module without
// the extensions: test/targets/spirv-val-narrow-storage.mlir; it lets a missing
// capability through, so the triple is checked here). An f64 that only lives in a value
// (never stored) still needs Float64. 32-bit elements need nothing more.
// CHECK:       spirv.module Logical GLSL450 requires #spirv.vce<v1.3,
// CHECK-SAME:    [Shader, Float16, Float64, Int16, Int8, StorageBuffer16BitAccess, StorageBuffer8BitAccess],
// CHECK-SAME:    [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage, SPV_KHR_8bit_storage]>
// CHECK-LABEL: spirv.func @narrow__task0
// CHECK:         spirv.AccessChain {{.*}} -> !spirv.ptr<i8, StorageBuffer>
// CHECK:         spirv.AccessChain {{.*}} -> !spirv.ptr<i16, StorageBuffer>
// CHECK:         spirv.AccessChain {{.*}} -> !spirv.ptr<f16, StorageBuffer>
// CHECK:         %[[WIDE:.*]] = spirv.FConvert %{{.*}} : f16 to f64
// CHECK-NEXT:    %[[BACK:.*]] = spirv.FConvert %[[WIDE]] : f64 to f16
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[BACK]] : f16
offload.kernel @narrow : (memref<?xi8>, memref<?xi16>, memref<?xf16>, memref<?xf32>) -> () {
  offload.serial {
    %a = offload.arg 0 : memref<?xi8>
    %b = offload.arg 1 : memref<?xi16>
    %h = offload.arg 2 : memref<?xf16>
    %f = offload.arg 3 : memref<?xf32>
    %z = spirv.Constant 0 : i32
    %pa = taichi.element_ptr %a[%z] : memref<?xi8> -> memref<i8>
    %pb = taichi.element_ptr %b[%z] : memref<?xi16> -> memref<i16>
    %ph = taichi.element_ptr %h[%z] : memref<?xf16> -> memref<f16>
    %pf = taichi.element_ptr %f[%z] : memref<?xf32> -> memref<f32>
    %va = memref.load %pa[] : memref<i8>
    %vb = memref.load %pb[] : memref<i16>
    %vh = memref.load %ph[] : memref<f16>
    %vf = memref.load %pf[] : memref<f32>
    %wide = spirv.FConvert %vh : f16 to f64
    %back = spirv.FConvert %wide : f64 to f16
    memref.store %va, %pa[] : memref<i8>
    memref.store %vb, %pb[] : memref<i16>
    memref.store %back, %ph[] : memref<f16>
    memref.store %vf, %pf[] : memref<f32>
  }
}
