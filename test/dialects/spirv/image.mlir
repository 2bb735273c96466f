// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// Image types and ops round-trip (custom and generic form).
spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []> {
  spirv.GlobalVariable @tex bind(0, 6) : !spirv.ptr<!spirv.sampled_image<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>>, UniformConstant>
  spirv.GlobalVariable @img bind(0, 7) : !spirv.ptr<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, UniformConstant>
  // CHECK-LABEL: spirv.func @images
  // CHECK:         %[[SI:.*]] = spirv.Load "UniformConstant" %{{.*}} : !spirv.sampled_image<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>>
  // CHECK:         %[[RW:.*]] = spirv.Load "UniformConstant" %{{.*}} : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>
  // CHECK:         %[[IMG:.*]] = spirv.Image %[[SI]] : !spirv.sampled_image<{{.*}}> -> !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>
  // CHECK-NEXT:    %[[T:.*]] = spirv.ImageFetch %[[IMG]], %[[IJ:.*]] lod %[[L:.*]] : !spirv.image<{{.*}}>, vector<2xi32>, i32 -> vector<4xf32>
  // CHECK-NEXT:    %{{.*}} = spirv.ImageSampleExplicitLod %[[SI]], %[[UV:.*]] lod %[[X:.*]] : !spirv.sampled_image<{{.*}}>, vector<2xf32>, f32 -> vector<4xf32>
  // CHECK-NEXT:    %[[V:.*]] = spirv.ImageRead %[[RW]], %[[IJ]] : !spirv.image<{{.*}}Rgba8>, vector<2xi32> -> vector<4xf32>
  // CHECK-NEXT:    spirv.ImageWrite %[[RW]], %[[IJ]], %[[T]] : !spirv.image<{{.*}}Rgba8>, vector<2xi32>, vector<4xf32>
  spirv.func @images(%ij: vector<2xi32>, %uv: vector<2xf32>, %l: i32, %x: f32) "None" {
    %p = spirv.mlir.addressof @tex : !spirv.ptr<!spirv.sampled_image<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>>, UniformConstant>
    %si = spirv.Load "UniformConstant" %p : !spirv.sampled_image<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>>
    %q = spirv.mlir.addressof @img : !spirv.ptr<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, UniformConstant>
    %rw = spirv.Load "UniformConstant" %q : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>
    %img = spirv.Image %si : !spirv.sampled_image<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>> -> !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>
    %t = spirv.ImageFetch %img, %ij lod %l : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>, vector<2xi32>, i32 -> vector<4xf32>
    %s = spirv.ImageSampleExplicitLod %si, %uv lod %x : !spirv.sampled_image<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>>, vector<2xf32>, f32 -> vector<4xf32>
    %v = spirv.ImageRead %rw, %ij : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, vector<2xi32> -> vector<4xf32>
    spirv.ImageWrite %rw, %ij, %t : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, vector<2xi32>, vector<4xf32>
    spirv.Return
  }
}
