// RUN: not ti-opt %s 2>&1 | filecheck %s
// A malformed file: a located diagnostic on stderr, exit status 1, no Python traceback.

// CHECK-NOT: Traceback
// CHECK: ti-opt: error: {{.*}}ti-opt-parse-error.mlir:[[# @LINE + 3]]:{{[0-9]+}}
// CHECK-NOT: Traceback
taichi.kernel @k(%a: f32) {
  %b = arith.addf %a, : f32
  taichi.return
}
