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
// Each texture argument is a variable at binding 6 + its position, of its own type.
// CHECK-DAG:  OpDecorate %[[W3:[0-9]+]] Binding 9
// CHECK-DAG:  OpDecorate %[[W1:[0-9]+]] Binding 8
// CHECK-DAG:  OpDecorate %[[S2:[0-9]+]] Binding 7
// CHECK-DAG:  OpDecorate %[[S1:[0-9]+]] Binding 6
// CHECK-DAG:  %[[IMG3:[0-9]+]] = OpTypeImage %{{[0-9]+}} 3D 0 0 0 2 Rgba16f
// CHECK-DAG:  %[[IMG1W:[0-9]+]] = OpTypeImage %{{[0-9]+}} 1D 0 0 0 2 R16f
// CHECK-DAG:  %[[IMG2S:[0-9]+]] = OpTypeImage %{{[0-9]+}} 2D 0 0 0 1 Unknown
// CHECK-DAG:  %[[IMG1S:[0-9]+]] = OpTypeImage %{{[0-9]+}} 1D 0 0 0 1 Unknown
// CHECK-DAG:  %[[SI1:[0-9]+]] = OpTypeSampledImage %[[IMG1S]]
// CHECK-DAG:  %[[SI2:[0-9]+]] = OpTypeSampledImage %[[IMG2S]]
// CHECK:      %[[H_S1:[0-9]+]] = OpLoad %[[SI1]] %[[S1]]
// CHECK-NEXT: %[[H_S2:[0-9]+]] = OpLoad %[[SI2]] %[[S2]]
// CHECK-NEXT: %[[H_W1:[0-9]+]] = OpLoad %[[IMG1W]] %[[W1]]
// CHECK-NEXT: %[[H_W3:[0-9]+]] = OpLoad %[[IMG3]] %[[W3]]
// CHECK:      OpBranch %[[HEAD:[0-9]+]]
// CHECK-NEXT: %[[HEAD]] = OpLabel
// CHECK-NEXT: %[[I:[0-9]+]] = OpLoad
// s1 sampled at x = i / 64, lod 0; s2 fetched at (i, 0), lod 0 (through OpImage of
// the sampled image); w1 read at i; their red channels summed. (ti-spirv-hoist puts the
// pure arithmetic first; the image accesses keep their order.)
// CHECK:      %[[F:[0-9]+]] = OpConvertSToF %{{[0-9]+}} %[[I]]
// CHECK-NEXT: %[[X:[0-9]+]] = OpFMul %{{[0-9]+}} %[[F]]
// CHECK-NEXT: %[[C2:[0-9]+]] = OpCompositeConstruct %{{[0-9]+}} %[[I]] %[[ZERO:[0-9]+]]
// CHECK-NEXT: %[[C3:[0-9]+]] = OpCompositeConstruct %{{[0-9]+}} %[[I]] %[[ZERO]] %[[ZERO]]
// CHECK-NEXT: %[[S:[0-9]+]] = OpImageSampleExplicitLod %[[V4:[0-9]+]] %[[H_S1]] %[[X]] Lod %{{[0-9]+}}
// CHECK-NEXT: %[[R:[0-9]+]] = OpCompositeExtract %{{[0-9]+}} %[[S]] 0
// CHECK:      %[[IM:[0-9]+]] = OpImage %[[IMG2S]] %[[H_S2]]
// CHECK-NEXT: %[[T:[0-9]+]] = OpImageFetch %[[V4]] %[[IM]] %[[C2]] Lod %[[ZERO]]
// CHECK-NEXT: %[[R2:[0-9]+]] = OpCompositeExtract %{{[0-9]+}} %[[T]] 0
// CHECK:      %[[Y:[0-9]+]] = OpFAdd %{{[0-9]+}} %[[R]] %[[R2]]
// CHECK-NEXT: %[[L:[0-9]+]] = OpImageRead %[[V4]] %[[H_W1]] %[[I]]
// CHECK-NEXT: %[[R3:[0-9]+]] = OpCompositeExtract %{{[0-9]+}} %[[L]] 0
// CHECK:      %[[Z:[0-9]+]] = OpFAdd %{{[0-9]+}} %[[Y]] %[[R3]]
// The sum written to w1 at i and to w3 at (i, 0, 0).
// CHECK-NEXT: %[[TEX1:[0-9]+]] = OpCompositeConstruct %[[V4]] %[[Z]]
// CHECK-NEXT: %[[TEX3:[0-9]+]] = OpCompositeConstruct %[[V4]] %[[Z]]
// CHECK-NEXT: OpImageWrite %[[H_W1]] %[[I]] %[[TEX1]]
// CHECK-NEXT: OpImageWrite %[[H_W3]] %[[C3]] %[[TEX3]]
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
