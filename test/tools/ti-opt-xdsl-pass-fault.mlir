// RUN: not ti-opt %s -p 'apply-individual-rewrite{matched_operation_index=4 operation_name="arith.addi" pattern_name="AddImmediateZero"}' 2>&1 | filecheck %s
// An xDSL pass that fails on its input with a Python exception (here an IndexError: the
// module has 4 ops, indices 0 to 3) gives a diagnostic naming the pass and the file, exit
// status 1: the fault is xDSL's, so not an "internal error" of ti-opt, and no traceback.
// The index option past the end is located at the last op, the one it went past (the
// fuzzer's 2 "unlocated" runs, utils/fuzz_ti_opt.py).

// CHECK-NOT: Traceback
// CHECK-NOT: internal error
// CHECK: ti-opt: error in pass 'apply-individual-rewrite' (xdsl.transforms.individual_rewrite) on {{.*}}ti-opt-xdsl-pass-fault.mlir: xDSL's pass failed: IndexError
// CHECK-NEXT: ti-opt-xdsl-pass-fault.mlir:[[# @LINE + 5]]:3: error: matched_operation_index=4 is past the last op: the module has 4 (index 0 is builtin.module, 3 this `func.return`)
// CHECK-NEXT: func.return %0 : i32
// CHECK-NEXT: ^
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
