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
