// RUN: not ti-opt %s -p 'apply-individual-rewrite{matched_operation_index=2 operation_name="arith.addi" pattern_name="NoSuchPattern"}' 2>&1 | filecheck %s
// An xDSL pass rejecting an option about one op (no pattern of that name for it) names
// that op, the pass's `matched_operation`, not the module the pass was given.

// CHECK-NOT: Traceback
// CHECK: ti-opt: error in pass 'apply-individual-rewrite' (xdsl.transforms.individual_rewrite): Pattern name NoSuchPattern not found for the provided operation name.
// CHECK-NEXT: ti-opt-xdsl-pass-pattern-missing.mlir:[[# @LINE + 3]]:3: error: the pass failed at this `arith.addi`
// CHECK-NEXT: %0 = arith.addi %a, %a : i32
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
