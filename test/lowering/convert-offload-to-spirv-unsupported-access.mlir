// RUN: ti-opt %s -p convert-offload-to-spirv --split-input-file --verify-diagnostics | filecheck %s

// Each unsupported access names itself, at the op, with the pass's prefix.

// CHECK: convert-offload-to-spirv-unsupported-access.mlir:[[# @LINE + 6]]:5: error: convert-offload-to-spirv: no taichi.field @y in the module
taichi.field @x : memref<4xf32> offset 0
offload.kernel @undeclared : () -> () {
  offload.serial {
    %f = taichi.get_field @y : memref<4xf32>
    %i = spirv.Constant 0 : i32
    %p = taichi.element_ptr %f[%i] : memref<4xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
  }
}

// -----

// An f32 field starts on a word.
// CHECK: convert-offload-to-spirv-unsupported-access.mlir:[[# @LINE + 6]]:5: error: convert-offload-to-spirv: field offset 2 is not aligned
taichi.field @x : memref<4xf32> offset 2
offload.kernel @unaligned : () -> () {
  offload.serial {
    %f = taichi.get_field @x : memref<4xf32>
    %i = spirv.Constant 0 : i32
    %p = taichi.element_ptr %f[%i] : memref<4xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
  }
}

// -----

// CHECK: convert-offload-to-spirv-unsupported-access.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: element of something other than a field or an ndarray
offload.kernel @alloca_base : () -> () {
  offload.serial {
    %f = memref.alloca() : memref<4xf32>
    %i = spirv.Constant 0 : i32
    %p = taichi.element_ptr %f[%i] : memref<4xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
  }
}

// -----

// CHECK: convert-offload-to-spirv-unsupported-access.mlir:[[# @LINE + 6]]:5: error: convert-offload-to-spirv: memref.dim of something other than an ndarray argument
taichi.field @x : memref<4xf32> offset 0
offload.kernel @dim_of_field : () -> (i32) {
  offload.serial {
    %f = taichi.get_field @x : memref<4xf32>
    %c0 = arith.constant 0 : index
    %d = memref.dim %f, %c0 : memref<4xf32>
    %n = arith.index_cast %d : index to i32
    offload.set_return 0, %n : i32
  }
}

// -----

// CHECK: convert-offload-to-spirv-unsupported-access.mlir:[[# @LINE + 6]]:5: error: convert-offload-to-spirv: memref.dim needs a constant axis
offload.kernel @dim_axis : (memref<?xf32>) -> (i32) {
  offload.serial {
    %x = offload.arg 0 : memref<?xf32>
    %c0 = arith.constant 0 : index
    %ax = arith.addi %c0, %c0 : index
    %d = memref.dim %x, %ax : memref<?xf32>
    %n = arith.index_cast %d : index to i32
    offload.set_return 0, %n : i32
  }
}

// -----

// CHECK: convert-offload-to-spirv-unsupported-access.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: index values have no SPIR-V lowering
offload.kernel @to_index : (memref<?xf32>, i32) -> (i32) {
  offload.serial {
    %x = offload.arg 0 : memref<?xf32>
    %a = offload.arg 1 : i32
    %ax = arith.index_cast %a : i32 to index
    %d = memref.dim %x, %ax : memref<?xf32>
    %n = arith.index_cast %d : index to i32
    offload.set_return 0, %n : i32
  }
}

// -----

// A parallel loop runs over i32 invocation ids.
// CHECK: convert-offload-to-spirv-unsupported-access.mlir:[[# @LINE + 4]]:3: error: convert-offload-to-spirv: a range_for over i64 has no SPIR-V lowering
offload.kernel @wide_range : () -> () {
  %lo = arith.constant 0 : i64
  %hi = arith.constant 8 : i64
  offload.range_for %i = %lo to %hi : i64 {
  }
}
