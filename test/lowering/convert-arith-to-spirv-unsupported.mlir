// RUN: ti-opt %s -p convert-arith-to-spirv --split-input-file --verify-diagnostics | filecheck %s

// GLSL.std.450 has no f64 sin: refused with its position, never computed in f32.
// CHECK: convert-arith-to-spirv-unsupported.mlir:[[# @LINE + 2]]:3: error: f64 'math.sin' is not supported on Vulkan: GLSL.std.450 has no f64 version
func.func @f64_sin(%x: f64) -> f64 {
  %s = math.sin %x : f64
  func.return %s : f64
}

// -----

// Nor an f64 sinh (ti-expand-f64-math has no expansion of it).
// CHECK: convert-arith-to-spirv-unsupported.mlir:[[# @LINE + 2]]:3: error: f64 'math.sinh' is not supported on Vulkan
func.func @f64_sinh(%x: f64) -> f64 {
  %a = math.sinh %x : f64
  func.return %a : f64
}
