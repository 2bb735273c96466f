// RUN: not ti-opt %s -p apply-pdl 2>&1 | filecheck %s
// RUN: not ti-opt %s -p 'apply-pdl{max_rewrites=5}' 2>&1 | filecheck %s --check-prefix=FIVE

// xDSL's apply-pdl applies its patterns until none matches: this pattern replaces a
// `test.op` by another it matches, so xDSL's pass never ends (found by the ti-opt fuzzer,
// seed 113). ti-opt's version gives up after `max_rewrites` rewrites (1000 unless set)
// with a diagnostic at the pattern that keeps matching.

// CHECK-NOT: Traceback
// CHECK: ti-opt-apply-pdl-bound.mlir:[[# @LINE + 6]]:1: error: apply-pdl did not converge after 1000 rewrites: this pattern still matches
// CHECK-NEXT: pdl.pattern : benefit(1) {

// FIVE: error: apply-pdl did not converge after 5 rewrites

%x = "test.op"() : () -> i32
pdl.pattern : benefit(1) {
  %t = pdl.type : i32
  %root = pdl.operation "test.op" -> (%t : !pdl.type)
  pdl.rewrite %root {
    %new = pdl.operation "test.op" -> (%t : !pdl.type)
    pdl.replace %root with %new
  }
}
