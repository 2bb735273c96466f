// RUN: ti-opt %s -p 'convert-offload-to-spirv{max-shared-bytes=32768}' --split-input-file --verify-diagnostics | filecheck %s
// RUN: ti-opt %s -p 'convert-offload-to-spirv{max-shared-bytes=65536}' --split-input-file | filecheck %s --check-prefix=ROOM

// max-shared-bytes (the device's maxComputeSharedMemorySize; lavapipe: 32768): a task
// whose Workgroup variables take more is rejected at its first SharedArray, naming the
// kernel, the bytes and the limit. taichi_ngp's rgb_layer declares 128 x 89 f32.
// CHECK: convert-offload-to-spirv-shared-bytes.mlir:[[# @LINE + 6]]:5: error: kernel 'rgb_layer' needs 45568 bytes of block-shared memory a block (ti.simt.block.SharedArray), more than this device's 32768 (maxComputeSharedMemorySize)
// ROOM: spirv.GlobalVariable @shared_0 : !spirv.ptr<!spirv.array<11392 x f32>, Workgroup>
offload.kernel @rgb_layer : () -> () {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  offload.range_for %i = %c0 to %c128 : i32 {
    %sh = taichi.shared_array 0 : memref<128x89xf32>
    %z = spirv.Constant 0 : i32
    %sp = taichi.element_ptr %sh[%i, %z] : memref<128x89xf32> -> memref<f32>
    %v = memref.load %sp[] : memref<f32>
  } {block_dim = 128 : i64}
}

// -----

// Two arrays count together: 2 x 4096 f64 is 65536 bytes.
// CHECK: convert-offload-to-spirv-shared-bytes.mlir:[[# @LINE + 7]]:5: error: kernel 'pair' needs 65536 bytes of block-shared memory a block
// ROOM: ti.kernel = "pair"
// ROOM-DAG: spirv.GlobalVariable @shared_0 : !spirv.ptr<!spirv.array<4096 x f64>, Workgroup>
// ROOM-DAG: spirv.GlobalVariable @shared_1 : !spirv.ptr<!spirv.array<4096 x f64>, Workgroup>
offload.kernel @pair : () -> () {
  %c0 = arith.constant 0 : i32
  offload.range_for %i = %c0 to %c0 : i32 {
    %a = taichi.shared_array 0 : memref<4096xf64>
    %b = taichi.shared_array 1 : memref<4096xf64>
    %pa = taichi.element_ptr %a[%i] : memref<4096xf64> -> memref<f64>
    %pb = taichi.element_ptr %b[%i] : memref<4096xf64> -> memref<f64>
    %v = memref.load %pa[] : memref<f64>
    memref.store %v, %pb[] : memref<f64>
  }
}

// -----

// Within the limit: compiled.
// CHECK-LABEL: spirv.module
// CHECK: spirv.GlobalVariable @shared_0 : !spirv.ptr<!spirv.array<8192 x f32>, Workgroup>
offload.kernel @fits : () -> () {
  %c0 = arith.constant 0 : i32
  offload.range_for %i = %c0 to %c0 : i32 {
    %sh = taichi.shared_array 0 : memref<8192xf32>
    %sp = taichi.element_ptr %sh[%i] : memref<8192xf32> -> memref<f32>
    %v = memref.load %sp[] : memref<f32>
  }
}
