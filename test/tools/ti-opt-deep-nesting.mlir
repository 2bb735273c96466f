// RUN: %python %S/Inputs/nest.py 600 | ti-opt -p canonicalize | filecheck %s
// 600 nested regions: Python's default recursion limit stopped xDSL near 140; ti-opt
// runs on a thread with a deep stack.

// CHECK: func.func @nested
// CHECK-COUNT-3: scf.if
