// REQUIRES: spirv-tools
// RUN: ti-opt %s -p ti-to-spirv -t spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: ti-opt %s -p ti-to-spirv -t spirv-asm | filecheck %s

// Textures of 1, 2 and 3 dimensions through the whole SPIR-V pipeline: spirv-val must
// accept the module under Vulkan 1.1 rules (a 1-d sampled image needs Sampled1D, a 1-d
// storage image Image1D, an R16f storage image StorageImageExtendedFormats).
// CHECK-DAG:  OpCapability Sampled1D
// CHECK-DAG:  OpCapability Image1D
// CHECK-DAG:  OpCapability StorageImageExtendedFormats
// CHECK-DAG:  OpDecorate %[[S1:[0-9]+]] Binding 6
// CHECK-DAG:  OpDecorate %[[W3:[0-9]+]] Binding 9
// CHECK-DAG:  %[[IMG3:[0-9]+]] = OpTypeImage %{{[0-9]+}} 3D 0 0 0 2 Rgba16f
// CHECK-DAG:  %[[IMG1S:[0-9]+]] = OpTypeImage %{{[0-9]+}} 1D 0 0 0 1 Unknown
// CHECK-DAG:  OpTypeSampledImage %[[IMG1S]]
// CHECK:      OpImageSampleExplicitLod %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} Lod %{{[0-9]+}}
// CHECK:      OpImageFetch
// CHECK:      OpImageRead
// CHECK:      OpImageWrite
taichi.kernel @tex(%s1: !taichi.texture<1, sampled>, %s2: !taichi.texture<2, sampled>, %w1: !taichi.texture<1, rw, r16f>, %w3: !taichi.texture<3, rw, rgba16f>) {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %f = arith.sitofp %i : i32 to f32
    %u = arith.constant 0.015625 : f32
    %x = arith.mulf %f, %u : f32
    %l = arith.constant 0.0 : f32
    %r, %g, %b, %a = taichi.texture_sample_lod %s1[%x] lod %l : !taichi.texture<1, sampled>
    %c0 = arith.constant 0 : i32
    %r2, %g2, %b2, %a2 = taichi.texture_fetch %s2[%i, %c0] lod %c0 : !taichi.texture<2, sampled>
    %r3, %g3, %b3, %a3 = taichi.texture_load %w1[%i] : !taichi.texture<1, rw, r16f>
    %y = arith.addf %r, %r2 : f32
    %z = arith.addf %y, %r3 : f32
    taichi.texture_store %w1[%i], %z, %g, %b, %a : !taichi.texture<1, rw, r16f>
    taichi.texture_store %w3[%i, %c0, %c0], %z, %g2, %b3, %a2 : !taichi.texture<3, rw, rgba16f>
    taichi.yield
  }
  taichi.return
}
