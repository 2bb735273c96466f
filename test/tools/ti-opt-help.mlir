// RUN: env COLUMNS=1000 ti-opt --help | filecheck %s
// ti-opt lists our passes, named pipelines and targets beside xDSL's.

// CHECK-DAG: ti-demote-atomics
// CHECK-DAG: ti-offload
// CHECK-DAG: ti-to-llvm
// CHECK-DAG: canonicalize

// Each arch's pipeline, as the JIT runs it (utils/pipelines.py), with its stages.
// CHECK: named pipelines
// CHECK: ti-to-llvm = ti-to-offload-cpu + ti-offload-to-llvm
// CHECK-NEXT: ti-to-offload-cpu: ti-lower-sparse,ti-scalarize,ti-mem2reg,
// CHECK: ti-to-spirv = ti-to-offload + ti-offload-to-spirv
