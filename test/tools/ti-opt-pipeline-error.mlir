// RUN: not ti-opt %s -p 'canonicalize{' 2>&1 | filecheck %s
// A malformed pass pipeline is a diagnostic, not a traceback.

// CHECK-NOT: Traceback
// CHECK: ti-opt: error: in the pass pipeline:
// CHECK: canonicalize{
// CHECK: Expected argument name here
func.func @f() {
  func.return
}
