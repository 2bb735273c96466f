// RUN: not ti-opt %s -p 'ti-auto-diff{ad_stack_size=-1}' 2>&1 | filecheck %s --check-prefix=SIZE
// RUN: not ti-opt %s -p 'ti-auto-diff{mode="sideways"}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: ti-opt %s -p ti-auto-diff --verify-diagnostics | filecheck %s --check-prefix=SYM

// The options of ti-auto-diff are checked before any kernel is read.
// SIZE: error: ti-auto-diff: ad_stack_size must be >= 0
// MODE: error: ti-auto-diff: mode must be 'reverse' or 'forward', got 'sideways'

// A field's gradient names its field by symbol, never by string.
// SYM: ti-auto-diff-options-unsupported.mlir:[[# @LINE + 1]]:1: error: ti-auto-diff: a field's 'grad' must be a symbol
taichi.field @x : memref<8xf32> offset 0 {grad = "x_grad"}
taichi.field @x_grad : memref<8xf32> offset 64
