// RUN: ti-opt %s -p convert-offload-to-spirv --split-input-file --verify-diagnostics | filecheck %s

// Integer formats are not texel formats textures support (texels are four f32).
offload.kernel @integer_format : (!taichi.texture<1, rw, rgba8u>) -> () {
  offload.serial {
    %c = spirv.Constant 0 : i32
    %t = offload.arg 0 : !taichi.texture<1, rw, rgba8u>
    %r, %g, %b, %a = taichi.texture_load %t[%c] : !taichi.texture<1, rw, rgba8u>
  }
}
// CHECK: convert-offload-to-spirv: rw textures of format 'rgba8u' are not supported

// -----

// A texture is a kernel argument: an access to any other texture value is refused.
// CHECK: convert-offload-to-spirv-textures-unsupported.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: a texture access on something other than a texture argument
offload.kernel @cast_load : (i32) -> () {
  offload.serial {
    %c = spirv.Constant 0 : i32
    %t = builtin.unrealized_conversion_cast %c : i32 to !taichi.texture<1, rw, r32f>
    %r, %g, %b, %a = taichi.texture_load %t[%c] : !taichi.texture<1, rw, r32f>
  }
}

// -----

// CHECK: convert-offload-to-spirv-textures-unsupported.mlir:[[# @LINE + 5]]:5: error: convert-offload-to-spirv: the extent of something other than a texture argument
offload.kernel @cast_dim : (i32) -> (i32) {
  offload.serial {
    %c = spirv.Constant 0 : i32
    %t = builtin.unrealized_conversion_cast %c : i32 to !taichi.texture<1, rw, r32f>
    %d = taichi.texture_dim %t, 0 : !taichi.texture<1, rw, r32f>
    offload.set_return 0, %d : i32
  }
}
