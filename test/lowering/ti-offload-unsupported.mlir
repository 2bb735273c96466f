// RUN: ti-opt %s -p ti-offload --split-input-file --verify-diagnostics | filecheck %s

// A struct_for over an ndarray has no field to walk: demote it first.
// CHECK: ti-offload-unsupported.mlir:[[# @LINE + 2]]:3: error: ti-offload: a struct_for over an ndarray needs ti-demote-dense-struct-for first
taichi.kernel @struct_for_over_ndarray(%a: memref<?xf32>) {
  taichi.struct_for (%i) in %a : memref<?xf32> {
    taichi.yield
  }
  taichi.return
}

// -----

// A parallel loop cannot be left early.
// CHECK: ti-offload-unsupported.mlir:[[# @LINE + 5]]:7: error: ti-offload: 'break' cannot leave a parallel loop (serialize it)
taichi.kernel @break_in_parallel_loop(%n: i32, %c: i1) {
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    taichi.if %c {
      taichi.break
    }
    taichi.yield
  }
  taichi.return
}

// -----

// A local array cannot live in a global temporary (one scalar a slot).
// CHECK: ti-offload-unsupported.mlir:[[# @LINE + 3]]:3: error: ti-offload: the local memref<4xf32> is used by several tasks or a parallel loop; only scalar locals can become global temporaries
taichi.kernel @local_array_in_parallel_loop(%v: f32) {
  %lo = arith.constant 0 : i32
  %arr = memref.alloca() : memref<4xf32>
  %hi = arith.constant 4 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %idx = arith.index_cast %i : i32 to index
    memref.store %v, %arr[%idx] : memref<4xf32>
    taichi.yield
  }
  taichi.return
}

// -----

// A vector read in serial code and used by a loop: only scalars go through global
// temporaries (ti-scalarize runs first in the pipeline).
// CHECK: ti-offload-unsupported.mlir:[[# @LINE + 5]]:3: error: ti-offload: a vector<2xf32> computed in one task cannot reach another
taichi.field @v : memref<16x2xf32> offset 0
taichi.kernel @vector_across(%j: index) {
  %x = taichi.get_field @v : memref<16x2xf32>
  %c0 = arith.constant 0 : index
  %w = vector.load %x[%j, %c0] : memref<16x2xf32>, vector<2xf32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 16 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %ii = arith.index_cast %i : i32 to index
    vector.store %w, %x[%ii, %c0] : memref<16x2xf32>, vector<2xf32>
    taichi.yield
  }
  taichi.return
}
