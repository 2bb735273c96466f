// RUN: not ti-opt %s -p 'ti-auto-diff{ad_stack_size=-1}' 2>&1 | filecheck %s --check-prefix=SIZE
// RUN: not ti-opt %s -p 'ti-auto-diff{mode="sideways"}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: ti-opt %s -p ti-auto-diff --verify-diagnostics | filecheck %s --check-prefix=SYM

// The options of ti-auto-diff are checked when the pipeline is built, before any kernel
// is read; the diagnostic points at the option (test/tools/ti-opt-pass-option-error.mlir).
// SIZE: pass-pipeline:1:14
// SIZE: ti-auto-diff: ad_stack_size must be >= 0, got -1
// MODE: pass-pipeline:1:14
// MODE: ti-auto-diff: mode must be 'reverse' or 'forward', got 'sideways'

// A field's gradient names its field by symbol, never by string.
// SYM: ti-auto-diff-options-unsupported.mlir:[[# @LINE + 1]]:1: error: ti-auto-diff: a field's 'grad' must be a symbol
taichi.field @x : memref<8xf32> offset 0 {grad = "x_grad"}
taichi.field @x_grad : memref<8xf32> offset 64
