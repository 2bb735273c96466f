// RUN: not ti-opt %s -p 'apply-individual-rewrite{matched_operation_index=3 operation_name="arith.addi" pattern_name="AddImmediateZero"}' 2>&1 | filecheck %s
// An xDSL pass failing with a plain exception at an op (here a ValueError of xDSL's op
// selector: op 3 is not an arith.addi) is located: a second line names the op the pass
// was at, from the traceback (the fuzzer's "unlocated" class, utils/fuzz_ti_opt.py).

// CHECK-NOT: Traceback
// CHECK: ti-opt: error in pass 'apply-individual-rewrite' (xdsl.transforms.individual_rewrite): Unexpected op func.return at index 3, expected arith.addi.
// CHECK-NEXT: ti-opt-xdsl-pass-fault-located.mlir:[[# @LINE + 3]]:3: error: the pass failed at this `func.return`
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
