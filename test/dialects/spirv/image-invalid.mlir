// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

spirv.module Logical GLSL450 {
  spirv.func @read_sampled(%img: !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>, %ij: vector<2xi32>) "None" {
    %v = spirv.ImageRead %img, %ij : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>, vector<2xi32> -> vector<4xf32>
    spirv.Return
  }
}
// CHECK: 'spirv.ImageRead' needs a storage image (NoSampler)

// -----

spirv.module Logical GLSL450 {
  spirv.func @write_wrong_coordinates(%img: !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, R32f>, %i: i32, %v: vector<4xf32>) "None" {
    spirv.ImageWrite %img, %i, %v : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, R32f>, i32, vector<4xf32>
    spirv.Return
  }
}
// CHECK: 'spirv.ImageWrite' on a Dim2D image takes 2 i coordinate(s), got i32
