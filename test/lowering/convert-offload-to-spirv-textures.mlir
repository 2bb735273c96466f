// RUN: ti-opt %s -p convert-offload-to-spirv | filecheck %s

// Texture arguments bind after the ndarrays (binding 6 + #ndarrays + j): the sampled
// texture is a combined image sampler, the rw texture a storage image of its format.
// Each image is loaded once, in the entry block; a fetch goes through spirv.Image, a
// 2-d coordinate is a vector<2xi32>, and the four channels are extracted.
// Rg8 is an extended storage format.
// CHECK-LABEL: spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, StorageImageExtendedFormats], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "copy", ti.task = 0 : i64}
// CHECK-DAG:     spirv.GlobalVariable @tex8 bind(0, 8) : !spirv.ptr<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rg8>, UniformConstant>
// CHECK-DAG:     spirv.GlobalVariable @tex7 bind(0, 7) : !spirv.ptr<!spirv.sampled_image<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>>, UniformConstant>
// CHECK-LABEL:   spirv.func @copy__task0() "None" {
// CHECK:           %[[SP:.*]] = spirv.mlir.addressof @tex7
// CHECK-NEXT:      %[[SI:.*]] = spirv.Load "UniformConstant" %[[SP]]
// CHECK-NEXT:      %[[WP:.*]] = spirv.mlir.addressof @tex8
// CHECK-NEXT:      %[[W:.*]] = spirv.Load "UniformConstant" %[[WP]]
// CHECK-NEXT:      %[[C16:.*]] = spirv.Constant 16 : i32
// CHECK-NEXT:      %{{.*}} = spirv.mlir.addressof @args_i32
// CHECK-NEXT:      %[[C0:.*]] = spirv.Constant 0 : i32
// CHECK:           %[[IMG:.*]] = spirv.Image %[[SI]]
// CHECK-NEXT:      %[[IJ:.*]] = spirv.CompositeConstruct %[[I:.*]], %[[J:.*]] : (i32, i32) -> vector<2xi32>
// CHECK-NEXT:      %[[T:.*]] = spirv.ImageFetch %[[IMG]], %[[IJ]] lod %[[LOD:.*]] : {{.*}} -> vector<4xf32>
// CHECK-NEXT:      %[[R:.*]] = spirv.CompositeExtract %[[T]][0 : i32] : vector<4xf32>
// CHECK-NEXT:      %[[G:.*]] = spirv.CompositeExtract %[[T]][1 : i32] : vector<4xf32>
// CHECK-NEXT:      %[[B:.*]] = spirv.CompositeExtract %[[T]][2 : i32] : vector<4xf32>
// CHECK-NEXT:      %[[A:.*]] = spirv.CompositeExtract %[[T]][3 : i32] : vector<4xf32>
// CHECK-NEXT:      %[[UV:.*]] = spirv.CompositeConstruct %[[U:.*]], %[[U]] : (f32, f32) -> vector<2xf32>
// CHECK-NEXT:      %[[S:.*]] = spirv.ImageSampleExplicitLod %[[SI]], %[[UV]] lod %[[U]]
// CHECK:           %[[IJ2:.*]] = spirv.CompositeConstruct %[[J]], %[[I]] : (i32, i32) -> vector<2xi32>
// CHECK-NEXT:      %[[OLD:.*]] = spirv.ImageRead %[[W]], %[[IJ2]]
// CHECK:           %[[IJ3:.*]] = spirv.CompositeConstruct %[[I]], %[[J]] : (i32, i32) -> vector<2xi32>
// CHECK-NEXT:      %[[TEXEL:.*]] = spirv.CompositeConstruct %[[R]], %[[G]], %[[B]], %[[A]] : (f32, f32, f32, f32) -> vector<4xf32>
// CHECK-NEXT:      spirv.ImageWrite %[[W]], %[[IJ3]], %[[TEXEL]]
// The extent of the rw texture (argument 3) is its shape word in the argument buffer:
// its slot starts at byte 8 (scalar) + 16 (1-d ndarray) + 24 (2-d texture) = 48,
// extent 1 is at 48 + 8 + 8 = 64, i32 element 16 (its constant made in the entry block).
// CHECK:           %[[PTR:.*]] = spirv.AccessChain %{{.*}}[%[[C0]], %[[C16]]]
// CHECK-NEXT:      %{{.*}} = spirv.Load "StorageBuffer" %[[PTR]] : i32
// CHECK-NOT:       taichi.
offload.kernel @copy : (i32, memref<?xf32>, !taichi.texture<2, sampled>, !taichi.texture<2, rw, rg8>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %n = %lo to %hi : i32 {
    %c8 = spirv.Constant 8 : i32
    %i = spirv.SDiv %n, %c8 : i32
    %j = spirv.SRem %n, %c8 : i32
    %lod = spirv.Constant 0 : i32
    %u = spirv.Constant 0.5 : f32
    %t = offload.arg 2 : !taichi.texture<2, sampled>
    %w = offload.arg 3 : !taichi.texture<2, rw, rg8>
    %r, %g, %b, %a = taichi.texture_fetch %t[%i, %j] lod %lod : !taichi.texture<2, sampled>
    %sr, %sg, %sb, %sa = taichi.texture_sample_lod %t[%u, %u] lod %u : !taichi.texture<2, sampled>
    %or, %og, %ob, %oa = taichi.texture_load %w[%j, %i] : !taichi.texture<2, rw, rg8>
    %x = spirv.FAdd %or, %sb : f32
    taichi.texture_store %w[%i, %j], %r, %g, %b, %a : !taichi.texture<2, rw, rg8>
    %d = taichi.texture_dim %w, 1 : !taichi.texture<2, rw, rg8>
    %p = offload.arg 1 : memref<?xf32>
    %q = taichi.element_ptr %p[%d] : memref<?xf32> -> memref<f32>
    memref.store %x, %q[] : memref<f32>
  }
}

// A texture argument the task does not access declares no image (the pass must not
// fire on the argument itself).
// CHECK-LABEL: spirv.module {{.*}} attributes {ti.kernel = "unused", ti.task = 0 : i64}
// CHECK-NOT:     UniformConstant
// CHECK:         spirv.func @unused__task0
offload.kernel @unused : (!taichi.texture<1, rw, r32f>, i32) -> () {
  offload.serial {
    %t = offload.arg 0 : !taichi.texture<1, rw, r32f>
    %a = offload.arg 1 : i32
    %g = offload.global_tmp 0 : memref<i32>
    memref.store %a, %g[] : memref<i32>
  }
}

// A 1-d rw texture is a 1-d storage image: Image1D (R32f is a base format).
// CHECK-LABEL: spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Image1D], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "one_d", ti.task = 0 : i64}
// CHECK:         spirv.GlobalVariable @tex6 bind(0, 6) : !spirv.ptr<!spirv.image<f32, Dim1D, NoDepth, NonArrayed, SingleSampled, NoSampler, R32f>, UniformConstant>
// CHECK:         %[[T1:.*]] = spirv.ImageRead %{{.*}}, %[[C3:.*]] : !spirv.image<{{.*}}R32f>, i32 -> vector<4xf32>
// CHECK:         spirv.ImageWrite %{{.*}}, %[[C3]], %{{.*}} : !spirv.image<{{.*}}R32f>, i32, vector<4xf32>
offload.kernel @one_d : (!taichi.texture<1, rw, r32f>) -> () {
  offload.serial {
    %c = spirv.Constant 3 : i32
    %t = offload.arg 0 : !taichi.texture<1, rw, r32f>
    %r, %g, %b, %a = taichi.texture_load %t[%c] : !taichi.texture<1, rw, r32f>
    taichi.texture_store %t[%c], %a, %b, %g, %r : !taichi.texture<1, rw, r32f>
  }
}
