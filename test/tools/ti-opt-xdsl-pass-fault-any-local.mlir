// RUN: not ti-opt %s -p 'convert-pdl-to-pdl-interp{optimize_for_eqsat=true}' 2>&1 | filecheck %s
// An xDSL pass failing deep inside its own code, where no frame names its op `op`:
// the innermost op with a source position among the traceback's locals locates it
// (here the pattern whose rewrite uses a result of the matched op, which xDSL's eqsat
// optimisation does not implement; the fuzzer's "unlocated" class, mutated
// optimize_for_eqsat.mlir).

// CHECK-NOT: Traceback
// CHECK: xDSL's pass failed: NotImplementedError: Optimization for eqsat not implemented for this value type
// CHECK-NEXT: ti-opt-xdsl-pass-fault-any-local.mlir:[[# @LINE + 1]]:1: error: the pass failed at this `pdl.pattern`
pdl.pattern : benefit(1) {
  %x = pdl.operand
  %y = pdl.operand
  %type = pdl.type
  %mulop = pdl.operation "arith.muli" (%x, %y : !pdl.value, !pdl.value) -> (%type : !pdl.type)
  %mul = pdl.result 0 of %mulop
  pdl.rewrite %mulop {
    %newmulop = pdl.operation "arith.muli" (%mul, %y : !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.replace %mulop with %newmulop
  }
}
