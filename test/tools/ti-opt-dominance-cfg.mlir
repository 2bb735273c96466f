// RUN: not ti-opt %s 2>&1 | filecheck %s
// A value defined in one branch and used after the join does not dominate its use; one
// defined before the branch does.

// CHECK-NOT: @defined_before_branch
// CHECK: ti-opt-dominance-cfg.mlir:[[# @LINE + 17]]:3: error: operand #0 of 'func.return' does not dominate this use
// CHECK-NOT: Traceback
func.func @defined_before_branch(%c: i1, %a: f32) -> f32 {
  %x = arith.addf %a, %a : f32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb2
^bb2:
  func.return %x : f32
}

func.func @defined_in_branch(%c: i1, %a: f32) -> f32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %x = arith.addf %a, %a : f32
  cf.br ^bb2
^bb2:
  func.return %x : f32
}
