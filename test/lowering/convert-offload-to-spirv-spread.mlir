// RUN: ti-opt %s -p 'convert-offload-to-spirv{spread-groups=128}' | filecheck %s
// RUN: ti-opt %s -p 'convert-offload-to-spirv' | filecheck %s --check-prefix=OFF

// spread-groups=128: a parallel task of constant length and no block_dim gets the
// largest workgroup (128, 64 or 32) that still leaves 128 groups, so a short launch
// covers as many SMs as a long one.

// 4096 iterations: 128 groups of 32 (not 32 groups of 128).
// CHECK-DAG:  spirv.ExecutionMode @spread__task0 "LocalSize", 32, 1, 1
// 12288 iterations: 128 would give 96 groups, 64 gives 192.
// CHECK-DAG:  spirv.ExecutionMode @spread__task1 "LocalSize", 64, 1, 1
// 2^20 iterations: the default stays.
// CHECK-DAG:  spirv.ExecutionMode @spread__task2 "LocalSize", 128, 1, 1
// 100 iterations: never below 32.
// CHECK-DAG:  spirv.ExecutionMode @spread__task3 "LocalSize", 32, 1, 1
// A block_dim (ti.loop_config) is the user's choice: kept.
// CHECK-DAG:  spirv.ExecutionMode @spread__task4 "LocalSize", 256, 1, 1
// A length read on the device: the default (the backend chooses the group count).
// CHECK-DAG:  spirv.ExecutionMode @spread__task5 "LocalSize", 128, 1, 1
// A struct_for over 64x64 elements counts them: 4096, so 32.
// CHECK-DAG:  spirv.ExecutionMode @spread__task6 "LocalSize", 32, 1, 1
// ti.simt code may assume the default block (thread_idx, shared arrays): kept.
// CHECK-DAG:  spirv.ExecutionMode @spread__task7 "LocalSize", 128, 1, 1

// Without the option every task keeps 128 or its block_dim.
// OFF-DAG:    spirv.ExecutionMode @spread__task0 "LocalSize", 128, 1, 1
// OFF-DAG:    spirv.ExecutionMode @spread__task4 "LocalSize", 256, 1, 1
// OFF-DAG:    spirv.ExecutionMode @spread__task6 "LocalSize", 128, 1, 1
offload.kernel @spread : () -> () {
  %c0 = arith.constant 0 : i32
  %c4096 = arith.constant 4096 : i32
  offload.range_for %i = %c0 to %c4096 : i32 {
  }
  %c12288 = arith.constant 12288 : i32
  offload.range_for %i = %c0 to %c12288 : i32 {
  }
  %big = arith.constant 1048576 : i32
  offload.range_for %i = %c0 to %big : i32 {
  }
  %c100 = arith.constant 100 : i32
  offload.range_for %i = %c0 to %c100 : i32 {
  }
  offload.range_for %i = %c0 to %c4096 : i32 {
  } {block_dim = 256 : i64}
  %g = offload.global_tmp 0 : memref<i32>
  %n = memref.load %g[] : memref<i32>
  offload.range_for %i = %c0 to %n : i32 {
  }
  offload.struct_for @x : memref<64x64xf32> {
  ^bb0(%a: i32, %b: i32):
  }
  offload.range_for %i = %c0 to %c4096 : i32 {
    %t = taichi.simt_id thread_idx : i32
  }
}
taichi.field @x : memref<64x64xf32> offset 0
