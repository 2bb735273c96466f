// RUN: env COLUMNS=1000 ti-opt --help | filecheck %s
// ti-opt lists our passes, named pipelines and targets beside xDSL's.

// CHECK-DAG: ti-demote-atomics
// CHECK-DAG: ti-offload
// CHECK-DAG: ti-to-llvm
// CHECK-DAG: canonicalize
