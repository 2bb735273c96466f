// RUN: ti-opt %s --split-input-file --parsing-diagnostics 2>&1 | filecheck %s
// Malformed input that made xDSL's parser hang or fail with a Python exception: each is
// a located parse error, and ti-opt goes on to the next chunk.

// An unclosed string literal followed by text backtracked exponentially in xDSL's lexer.
// CHECK: ti-opt-malformed.mlir:[[# @LINE + 2]]:18
// CHECK: End of file reached before closing string literal.
"test.op"() {a = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz} : () -> ()

// -----

// A block label defined twice after a forward reference (a KeyError in xDSL).
// CHECK: ti-opt-malformed.mlir:[[# @LINE + 6]]:1
// CHECK: re-declaration of block 'bb1'
func.func @duplicate_label() {
  cf.br ^bb1
^bb1:
  cf.br ^bb1
^bb1:
  func.return
}

// -----

// An integer literal too wide for f16 (an OverflowError in xDSL).
// CHECK: ti-opt-malformed.mlir:[[# @LINE + 3]]:3
// CHECK: malformed operation (OverflowError
func.func @f16_literal_out_of_range() {
  %0 = spirv.Constant 0x12345ff : f16
  func.return
}

// -----

// A struct position past the struct's members (an IndexError in xDSL).
// CHECK: ti-opt-malformed.mlir:[[# @LINE + 3]]:3
// CHECK: malformed operation (IndexError
func.func @extractvalue_out_of_range(%p: !llvm.struct<(i32, i32)>) {
  %0 = llvm.extractvalue %p[65536] : !llvm.struct<(i32, i32)>
  func.return
}

// CHECK-NOT: Traceback
// CHECK-NOT: internal error
