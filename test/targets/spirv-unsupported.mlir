// RUN: ti-opt %s --split-input-file --verify-diagnostics -t spirv-asm | filecheck %s

// The binary holds one module: two spirv.modules in one input cannot be serialized.
spirv.module Logical GLSL450 {
}
spirv.module Logical GLSL450 {
}
// CHECK: cannot serialize 'builtin.module': expected exactly one spirv.module inside, found 2

// -----

// Nothing to serialize.
func.func @not_spirv() {
  func.return
}
// CHECK: cannot serialize 'builtin.module': expected exactly one spirv.module inside, found 0
