// RUN: not ti-opt %s 2>&1 | filecheck %s

// xDSL's verifier lets an llvm.func's `visibility_` past 2 through, and its printer then
// asserts (found by the ti-opt fuzzer, seed 606): ti-opt reports it at the op.

// CHECK-NOT: Traceback
// CHECK-NOT: internal error
// CHECK: ti-opt-print-failure.mlir:[[# @LINE + 1]]:1: error: xDSL cannot print this `llvm.func`: AssertionError: Invalid visibility value
"llvm.func"() ({
}) {CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void (i64)>, linkage = #llvm.linkage<external>, sym_name = "nop", visibility_ = 7 : i64} : () -> ()
