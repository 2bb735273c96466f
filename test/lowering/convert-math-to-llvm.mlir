// RUN: ti-opt %s -p convert-math-to-llvm | filecheck %s

// A conversion removes nothing it does not convert: an unused value stays (dce decides).
// CHECK-LABEL: func.func @unused_value_stays
// CHECK-NEXT:    %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    func.return
func.func @unused_value_stays(%a: i32) {
  %unused = arith.addi %a, %a : i32
  func.return
}

// Ops with an intrinsic op in xDSL's llvm dialect map one to one, fast-math flags kept.
// CHECK-LABEL: func.func @intrinsic_ops
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32)
// CHECK-NEXT:    %{{.*}} = llvm.intr.sqrt(%[[X]]) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.sin(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.cos(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.exp(%[[X]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.exp2(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.log(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.log2(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.floor(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.ceil(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.fabs(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.pow(%[[X]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.copysign(%[[X]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.fma(%[[X]], %[[Y]], %[[Z]]) {fastmathFlags = #llvm.fastmath<contract>} : (f32, f32, f32) -> f32
// CHECK-NEXT:    func.return
func.func @intrinsic_ops(%x: f32, %y: f32, %z: f32) {
  %0 = math.sqrt %x fastmath<fast> : f32
  %1 = math.sin %x : f32
  %2 = math.cos %x : f32
  %3 = math.exp %x fastmath<afn> : f32
  %4 = math.exp2 %x : f32
  %5 = math.log %x : f32
  %6 = math.log2 %x : f32
  %7 = math.floor %x : f32
  %8 = math.ceil %x : f32
  %9 = math.absf %x : f32
  %10 = math.powf %x, %y : f32
  %11 = math.copysign %x, %y : f32
  %12 = math.fma %x, %y, %z fastmath<contract> : f32
  func.return
}

// Intrinsics without an xDSL op are llvm.call_intrinsic, named with their overload;
// abs/ctlz/cttz take `false`: INT_MIN and 0 are defined inputs.
// CHECK-LABEL: func.func @called_intrinsics
// CHECK-SAME:    (%[[X:.*]]: f64, %[[I:.*]]: i32, %[[V:.*]]: vector<4xf32>)
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.trunc.f64"(%[[X]]) : (f64) -> f64
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.round.f64"(%[[X]]) : (f64) -> f64
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.roundeven.v4f32"(%[[V]]) : (vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.log10.f64"(%[[X]]) {fastmathFlags = #llvm.fastmath<fast>} : (f64) -> f64
// CHECK-NEXT:    %[[F0:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.abs.i32"(%[[I]], %[[F0]]) : (i32, i1) -> i32
// CHECK-NEXT:    %[[F1:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.ctlz.i32"(%[[I]], %[[F1]]) : (i32, i1) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.ctpop.i32"(%[[I]]) : (i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.powi.f64.i32"(%[[X]], %[[I]]) : (f64, i32) -> f64
// CHECK-NEXT:    func.return
func.func @called_intrinsics(%x: f64, %i: i32, %v: vector<4xf32>) {
  %0 = math.trunc %x : f64
  %1 = math.round %x : f64
  %2 = math.roundeven %v : vector<4xf32>
  %3 = math.log10 %x fastmath<fast> : f64
  %4 = math.absi %i : i32
  %5 = math.ctlz %i : i32
  %6 = math.ctpop %i : i32
  %7 = math.fpowi %x, %i : f64, i32
  func.return
}

// Flags on a math op reach its LLVM form on every path: powi (a called intrinsic with
// its own pattern), rsqrt of a vector (a splat 1.0), and ops whose flags sit in the
// attribute dictionary (how xDSL's `FmaOp` and `NegfOp` builders put them), with no
// property or an empty one.
// CHECK-LABEL: func.func @flags_everywhere
// CHECK-SAME:    (%[[X:.*]]: f64, %[[I:.*]]: i32, %[[V:.*]]: vector<4xf32>)
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.powi.f64.i32"(%[[X]], %[[I]]) {fastmathFlags = #llvm.fastmath<fast>} : (f64, i32) -> f64
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(dense<1.000000e+00> : vector<4xf32>) : vector<4xf32>
// CHECK-NEXT:    %[[S:.*]] = llvm.intr.sqrt(%[[V]]) {fastmathFlags = #llvm.fastmath<afn>} : (vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:    %{{.*}} = llvm.fdiv %[[ONE]], %[[S]] {fastmathFlags = #llvm.fastmath<afn>} : vector<4xf32>
// CHECK-NEXT:    %{{.*}} = llvm.intr.fma(%[[X]], %[[X]], %[[X]]) {fastmathFlags = #llvm.fastmath<contract>} : (f64, f64, f64) -> f64
// CHECK-NEXT:    %{{.*}} = llvm.intr.fma(%[[X]], %[[X]], %[[X]]) {fastmathFlags = #llvm.fastmath<nnan>} : (f64, f64, f64) -> f64
// CHECK-NEXT:    %{{.*}} = llvm.intr.fma(%[[X]], %[[X]], %[[X]]) {fastmathFlags = #llvm.fastmath<ninf>} : (f64, f64, f64) -> f64
// CHECK-NEXT:    func.return
func.func @flags_everywhere(%x: f64, %i: i32, %v: vector<4xf32>) {
  %0 = math.fpowi %x, %i fastmath<fast> : f64, i32
  %1 = math.rsqrt %v fastmath<afn> : vector<4xf32>
  %2 = "math.fma"(%x, %x, %x) {fastmath = #arith.fastmath<contract>} : (f64, f64, f64) -> f64
  %3 = "math.fma"(%x, %x, %x) <{fastmath = #arith.fastmath<none>}> {fastmath = #arith.fastmath<nnan>} : (f64, f64, f64) -> f64
  %4 = "math.fma"(%x, %x, %x) <{fastmath = #arith.fastmath<ninf>}> {fastmath = #arith.fastmath<nnan>} : (f64, f64, f64) -> f64
  func.return
}

// rsqrt is 1 / sqrt(x), both with the op's flags.
// CHECK-LABEL: func.func @rsqrt
// CHECK-SAME:    (%[[X:.*]]: f32) -> f32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:    %[[S:.*]] = llvm.intr.sqrt(%[[X]]) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
// CHECK-NEXT:    %[[R:.*]] = llvm.fdiv %[[ONE]], %[[S]] {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-NEXT:    func.return %[[R]] : f32
func.func @rsqrt(%x: f32) -> f32 {
  %0 = math.rsqrt %x fastmath<fast> : f32
  func.return %0 : f32
}

// Functions without an intrinsic call libm: `tanf` for f32, `tan` for f64, f16 through
// f32. Each is declared once in the module (at its end).
// CHECK-LABEL: func.func @libm
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[D:.*]]: f64, %[[H:.*]]: f16)
// CHECK-NEXT:    %{{.*}} = llvm.call @tanf(%[[X]]) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.call @tan(%[[D]]) : (f64) -> f64
// CHECK-NEXT:    %{{.*}} = llvm.call @atan2f(%[[Y]], %[[X]]) : (f32, f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.call @tanhf(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %[[EXT:.*]] = llvm.fpext %[[H]] : f16 to f32
// CHECK-NEXT:    %[[CALL:.*]] = llvm.call @tanhf(%[[EXT]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.fptrunc %[[CALL]] : f32 to f16
// CHECK-NEXT:    func.return
func.func @libm(%x: f32, %y: f32, %d: f64, %h: f16) {
  %0 = math.tan %x fastmath<fast> : f32
  %1 = math.tan %d : f64
  %2 = math.atan2 %y, %x : f32
  %3 = math.tanh %x : f32
  %4 = math.tanh %h : f16
  func.return
}

// A libm function has no vector form: the pass must leave the op alone.
// CHECK-LABEL: func.func @vector_libm_untouched
// CHECK-SAME:    (%[[V:.*]]: vector<4xf32>)
// CHECK-NEXT:    %[[R:.*]] = math.tan %[[V]] : vector<4xf32>
// CHECK-NEXT:    func.return %[[R]] : vector<4xf32>
func.func @vector_libm_untouched(%v: vector<4xf32>) -> vector<4xf32> {
  %0 = math.tan %v : vector<4xf32>
  func.return %0 : vector<4xf32>
}

// CHECK:       llvm.func @tanf(f32) -> f32
// CHECK-NEXT:  llvm.func @tan(f64) -> f64
// CHECK-NEXT:  llvm.func @atan2f(f32, f32) -> f32
// CHECK-NEXT:  llvm.func @tanhf(f32) -> f32
// CHECK-NOT:   llvm.func


