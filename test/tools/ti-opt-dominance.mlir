// RUN: not ti-opt %s --split-input-file -p ti-scalarize 2>&1 | filecheck %s
// xDSL does not check dominance; ti-opt does before any pass runs (ti-scalarize looped
// forever on a value that uses itself).

// CHECK: ti-opt-dominance.mlir:[[# @LINE + 3]]:3: error: operand #1 of 'arith.mulf' does not dominate this use
// CHECK: ti-opt-dominance.mlir:[[# @LINE + 2]]:3: note: operand defined here
func.func @uses_itself(%a: vector<4xf32>) -> vector<4xf32> {
  %m = arith.mulf %a, %m : vector<4xf32>
  func.return %m : vector<4xf32>
}
