// RUN: not ti-opt %s 2>&1 | filecheck %s
// A verifier of xDSL that raises a bare Exception instead of a VerifyException (scf.while
// whose block argument types differ from its operands): still a located diagnostic at the
// op, exit status 1, not an internal error (fuzzer, mutated scf_ops.mlir).

// CHECK-NOT: internal error
// CHECK: ti-opt-verifier-exception.mlir:[[# @LINE + 3]]:3: error: 'scf.while' does not verify: Block arguments with wrong type, expected f64, got i32
// CHECK-NOT: Traceback
func.func @f(%init: i32) -> f64 {
  %res = scf.while (%arg = %init) : (i32) -> f64 {
    %c = arith.constant true
    %x = arith.sitofp %arg : i32 to f64
    scf.condition(%c) %x : f64
  } do {
  ^bb0(%y: i32):
    scf.yield %y : i32
  }
  func.return %res : f64
}
