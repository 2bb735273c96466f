// RUN: ti-opt %s -p ti-scalarize --verify-diagnostics --split-input-file | filecheck %s

// A vector reduction is not an element-wise op: the pass cannot split it.
taichi.kernel @reduction_left(%a: f32) -> f32 {
  %v = vector.broadcast %a : f32 to vector<3xf32>
  %r = vector.reduction <add>, %v : vector<3xf32> into f32
  taichi.return %r : f32
}

// CHECK: ti-scalarize: cannot scalarize 'vector.broadcast' on vector values

// -----

// An extract at a dynamic position of an insert cannot fold: the vector stays and is
// rejected.
// CHECK: ti-scalarize-unsupported.mlir:[[# @LINE + 2]]:3: error: ti-scalarize: cannot scalarize 'vector.broadcast' on vector values
taichi.kernel @dynamic_extract_of_insert(%a: f32, %i: index) -> f32 {
  %va = vector.broadcast %a : f32 to vector<2xf32>
  %z = arith.constant 0.0 : f32
  %ins = vector.insert %z, %va [0] : f32 into vector<2xf32>
  %r = vector.extract %ins[%i] : f32 from vector<2xf32>
  taichi.return %r : f32
}

// -----

// Nor can one of an element-wise op: no scalar op is built for an unknown component.
// CHECK: ti-scalarize-unsupported.mlir:[[# @LINE + 2]]:3: error: ti-scalarize: cannot scalarize 'vector.broadcast' on vector values
taichi.kernel @dynamic_extract_of_arith(%a: f32, %i: index) -> f32 {
  %va = vector.broadcast %a : f32 to vector<2xf32>
  %m = arith.mulf %va, %va : vector<2xf32>
  %s = vector.extract %m[%i] : f32 from vector<2xf32>
  taichi.return %s : f32
}
