// RUN: ti-opt %s --pass-plugin %S/Inputs/count_ops_plugin.py -p count-ops,ti-demote-atomics | filecheck %s
// RUN: not ti-opt %s --pass-plugin %S/Inputs/missing.py -p count-ops 2>&1 | filecheck %s --check-prefix=MISSING
// A pass from a plain Python file runs beside ours, without editing the package.

// CHECK: taichi.kernel @k() attributes {op_count = 2 : i64} {
taichi.kernel @k() {
  %c = arith.constant 0 : i32
  taichi.return
}

// MISSING: ti-opt: error: pass plugin '{{.*}}missing.py' does not exist
