// RUN: not ti-opt %s -p 'apply-individual-rewrite{matched_operation_index=4 operation_name="arith.addi" pattern_name="AddImmediateZero"}' 2>&1 | filecheck %s
// An xDSL pass that fails on its input with a Python exception (here an IndexError: no
// fourth match) gives a diagnostic naming the pass and the file, exit status 1: the
// fault is xDSL's, so not an "internal error" of ti-opt, and no traceback.

// CHECK-NOT: Traceback
// CHECK-NOT: internal error
// CHECK: ti-opt: error in pass 'apply-individual-rewrite' (xdsl.transforms.individual_rewrite) on {{.*}}ti-opt-xdsl-pass-fault.mlir: xDSL's pass failed: IndexError
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
