// RUN: ti-opt %s -p ti-scalarize --verify-diagnostics --split-input-file | filecheck %s

// A vector reduction is not an element-wise op: the pass cannot split it.
taichi.kernel @reduction_left(%a: f32) -> f32 {
  %v = vector.broadcast %a : f32 to vector<3xf32>
  %r = vector.reduction <add>, %v : vector<3xf32> into f32
  taichi.return %r : f32
}

// CHECK: ti-scalarize: cannot scalarize 'vector.broadcast' on vector values
