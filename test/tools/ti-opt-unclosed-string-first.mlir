// RUN: not ti-opt %s 2>&1 | filecheck %s
// An unclosed string literal as the file's first token, followed by a few hundred
// characters: xDSL's string pattern backtracks exponentially (the run never ended); the
// linear pattern must be in place before the parser lexes its first token (fuzzer, seed
// 2, mutated vector_attrs.mlir).

// CHECK: ti-opt-unclosed-string-first.mlir:[[# @LINE + 3]]:1
// CHECK: End of file reached before closing string literal.
// CHECK-NOT: Traceback
"test= [#vector.kind<add>] }: () -> ()
"test.op"() { attrs = [#vector.kind<mul>] }: () -> ()
"test.op"() { attrs = [#vector.kind<minui>] }: () -> ()
"test.op"() { attrs = [#vector.kind<minsi>] }: () -> ()
"test.op"() { attrs = [#vector.kind<minnumf>] }: () -> ()
"test.op"() { attrs = [#vector.kind<maxui>] }: () -> ()
"test.op"() { attrs = [#vector.kind<maxsi>] }: () -> ()
"test.op"() { attrs = [#vector.kind<maxnumf>] }: () -> ()
