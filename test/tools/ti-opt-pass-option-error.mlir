// RUN: not ti-opt %s -p 'canonicalize,ti-auto-diff{ad_stack_size=-1}' 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not ti-opt %s -p 'ti-auto-diff{ad_stack_size=4 mode="sideways"}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not ti-opt %s -p 'canonicalize{foo=1}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not ti-opt %s -p 'ti-unroll-loops{max_ops=8 factor="two"}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not ti-opt %s -p 'ti-to-llvm,ti-auto-diff{mode=sideways}' 2>&1 | filecheck %s --check-prefix=NAMED

// A pass option the pass rejects (out of its range, unknown, of the wrong type) is a
// diagnostic in the form of a malformed pipeline's (ti-opt-pipeline-error.mlir): the
// `-p` text as written, a caret under the option, no traceback.

// RANGE-NOT: Traceback
// RANGE: ti-opt: error: in the pass pipeline: a rejected option:
// RANGE-NEXT: pass-pipeline:1:27
// RANGE-NEXT: canonicalize,ti-auto-diff{ad_stack_size=-1}
// RANGE-NEXT: {{^                          \^{13}$}}
// RANGE-NEXT: ti-auto-diff: ad_stack_size must be >= 0, got -1

// MODE: pass-pipeline:1:30
// MODE-NEXT: ti-auto-diff{ad_stack_size=4 mode="sideways"}
// MODE-NEXT: {{^                             \^{4}$}}
// MODE-NEXT: ti-auto-diff: mode must be 'reverse' or 'forward', got 'sideways'

// UNKNOWN: pass-pipeline:1:14
// UNKNOWN-NEXT: canonicalize{foo=1}
// UNKNOWN-NEXT: {{^             \^{3}$}}
// UNKNOWN-NEXT: Provided arguments ["foo"] not found

// TYPE: pass-pipeline:1:27
// TYPE-NEXT: ti-unroll-loops{max_ops=8 factor="two"}
// TYPE-NEXT: {{^                          \^{6}$}}
// TYPE-NEXT: Incompatible types: given ('two',)

// The position is in the text as written, before a named pipeline expands.
// NAMED: pass-pipeline:1:25
// NAMED-NEXT: ti-to-llvm,ti-auto-diff{mode=sideways}
func.func @f() {
  func.return
}
