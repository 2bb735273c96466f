// RUN: not ti-opt %s -p printf-to-llvm 2>&1 | filecheck %s
// A pass (here xDSL's printf-to-llvm, given a printf inside a nested module: it declares
// @printf in the outer one) leaves an op that fails to verify and has no location of its
// own: the diagnostic names the located op around it (the fuzzer's "unlocated" class).

// CHECK: ti-opt-unlocated-op-from-pass.mlir:[[# @LINE + 3]]:3: error: '@printf' could not be found in symbol table (in a `llvm.call` without a location, inside this op)
// CHECK-NOT: Traceback
builtin.module {
  func.func @main() {
    printf.print_format "Hello"
    func.return
  }
}
func.func @other() {
  func.return
}
