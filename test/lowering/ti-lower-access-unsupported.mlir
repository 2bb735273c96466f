// RUN: ti-opt %s -p ti-lower-access --split-input-file --verify-diagnostics | filecheck %s

// Only fields and ndarray arguments have elements in buffers; a local array has none.
// CHECK: ti-lower-access-unsupported.mlir:[[# @LINE + 5]]:5: error: ti-lower-access: an element of memref.alloca; expected a taichi.get_field or an ndarray offload.arg
offload.kernel @element_of_local_array : () -> () {
  offload.serial {
    %a = memref.alloca() : memref<4xf32>
    %i = arith.constant 1 : i32
    %p = taichi.element_ptr %a[%i] : memref<4xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
  }
}

// -----

// The extent of which dimension? It must be known when the task is compiled.
// CHECK: ti-lower-access-unsupported.mlir:[[# @LINE + 6]]:5: error: ti-lower-access: the extent of ndarray argument 0 needs a constant dimension
offload.kernel @dim_not_constant : (memref<?x?xf32>) -> () {
  offload.serial {
    %a = offload.arg 0 : memref<?x?xf32>
    %k = arith.constant 1 : i32
    %d = arith.index_cast %k : i32 to index
    %n = memref.dim %a, %d : memref<?x?xf32>
  }
}

// -----

// A global place can only be loaded, stored or updated atomically.
// CHECK: ti-lower-access-unsupported.mlir:[[# @LINE + 8]]:5: error: ti-lower-access: 'memref.copy' of a global place; expected memref.load, memref.store or a taichi atomic
taichi.field @x : memref<8xf32> offset 0
offload.kernel @place_copied : () -> () {
  offload.serial {
    %x = taichi.get_field @x : memref<8xf32>
    %i = arith.constant 1 : i32
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %q = memref.alloca() : memref<f32>
    "memref.copy"(%p, %q) : (memref<f32>, memref<f32>) -> ()
  }
}

// -----

// The last workgroup's part of an epilogue (ti-fuse-serial-reduction) is Vulkan's alone.
// CHECK: ti-lower-access-unsupported.mlir:[[# @LINE + 8]]:5: error: ti-lower-access: 'offload.last_group' (ti-fuse-serial-reduction) has no CPU lowering; the CPU pipeline (ti-to-offload-cpu) does not fuse
offload.kernel @last_group_on_cpu : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %n = offload.global_tmp 0 : memref<i32>
    offload.last_group %n : memref<i32> {
      %c = offload.global_tmp 4 : memref<f32>
    }
  }
}
