// RUN: ti-opt %s -p convert-arith-to-llvm | filecheck %s

// Integer binary ops map one to one; overflow flags are kept.
// CHECK-LABEL: func.func @integer_binary
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    %{{.*}} = llvm.add %[[A]], %[[B]] overflow<nsw> : i32
// CHECK-NEXT:    %{{.*}} = llvm.sub %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.mul %[[A]], %[[B]] overflow<nsw,nuw> : i32
// CHECK-NEXT:    %{{.*}} = llvm.sdiv %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.udiv %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.srem %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.urem %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.and %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.or %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.xor %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.shl %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.ashr %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.lshr %[[A]], %[[B]] : i32
// CHECK-NEXT:    func.return
func.func @integer_binary(%a: i32, %b: i32) {
  %0 = arith.addi %a, %b overflow<nsw> : i32
  %1 = arith.subi %a, %b : i32
  %2 = arith.muli %a, %b overflow<nsw, nuw> : i32
  %3 = arith.divsi %a, %b : i32
  %4 = arith.divui %a, %b : i32
  %5 = arith.remsi %a, %b : i32
  %6 = arith.remui %a, %b : i32
  %7 = arith.andi %a, %b : i32
  %8 = arith.ori %a, %b : i32
  %9 = arith.xori %a, %b : i32
  %10 = arith.shli %a, %b : i32
  %11 = arith.shrsi %a, %b : i32
  %12 = arith.shrui %a, %b : i32
  func.return
}

// Float ops keep their fast-math flags (operand order too: x - y, not y - x).
// CHECK-LABEL: func.func @float_binary
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-NEXT:    %{{.*}} = llvm.fadd %[[X]], %[[Y]] {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-NEXT:    %{{.*}} = llvm.fsub %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fmul %[[X]], %[[Y]] {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
// CHECK-NEXT:    %{{.*}} = llvm.fdiv %[[Y]], %[[X]] {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-NEXT:    %{{.*}} = llvm.fneg %[[X]] {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-NEXT:    func.return
func.func @float_binary(%x: f32, %y: f32) {
  %0 = arith.addf %x, %y fastmath<fast> : f32
  %1 = arith.subf %x, %y : f32
  %2 = arith.mulf %x, %y fastmath<reassoc,contract> : f32
  %3 = arith.divf %y, %x fastmath<fast> : f32
  %4 = arith.negf %x fastmath<fast> : f32
  func.return
}

// Vectors go through unchanged: LLVM's instructions take them.
// CHECK-LABEL: func.func @vector_binary
// CHECK-SAME:    (%[[X:.*]]: vector<4xf32>, %[[Y:.*]]: vector<4xf32>)
// CHECK-NEXT:    %[[R:.*]] = llvm.fadd %[[X]], %[[Y]] {fastmathFlags = #llvm.fastmath<fast>} : vector<4xf32>
// CHECK-NEXT:    func.return %[[R]] : vector<4xf32>
func.func @vector_binary(%x: vector<4xf32>, %y: vector<4xf32>) -> vector<4xf32> {
  %0 = arith.addf %x, %y fastmath<fast> : vector<4xf32>
  func.return %0 : vector<4xf32>
}

// Constants: index ones become i64, and reach unconverted users through a cast.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(-2 : i8) : i8
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(true) : i1
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(1.500000e+00 : f32) : f32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(2.500000e-01 : f64) : f64
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(dense<1.000000e+00> : vector<4xf32>) : vector<4xf32>
// CHECK-NEXT:    %[[I:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %[[CAST:.*]] = builtin.unrealized_conversion_cast %[[I]] : i64 to index
// CHECK-NEXT:    func.return %[[CAST]] : index
func.func @constants() -> index {
  %0 = arith.constant 7 : i32
  %1 = arith.constant -2 : i8
  %2 = arith.constant true
  %3 = arith.constant 1.5 : f32
  %4 = arith.constant 0.25 : f64
  %5 = arith.constant dense<1.0> : vector<4xf32>
  %6 = arith.constant 4 : index
  func.return %6 : index
}

// Every cmpi predicate keeps its meaning.
// CHECK-LABEL: func.func @cmpi
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    %{{.*}} = llvm.icmp "eq" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "ne" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "slt" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "sle" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "sgt" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "sge" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "ult" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "ule" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "ugt" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.icmp "uge" %[[A]], %[[B]] : i32
// CHECK-NEXT:    func.return
func.func @cmpi(%a: i32, %b: i32) {
  %0 = arith.cmpi eq, %a, %b : i32
  %1 = arith.cmpi ne, %a, %b : i32
  %2 = arith.cmpi slt, %a, %b : i32
  %3 = arith.cmpi sle, %a, %b : i32
  %4 = arith.cmpi sgt, %a, %b : i32
  %5 = arith.cmpi sge, %a, %b : i32
  %6 = arith.cmpi ult, %a, %b : i32
  %7 = arith.cmpi ule, %a, %b : i32
  %8 = arith.cmpi ugt, %a, %b : i32
  %9 = arith.cmpi uge, %a, %b : i32
  func.return
}

// Every cmpf predicate keeps its meaning, and fast-math flags are kept.
// CHECK-LABEL: func.func @cmpf
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "_false" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "oeq" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "ogt" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "oge" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "olt" %[[X]], %[[Y]] {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "ole" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "one" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "ord" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "ueq" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "ugt" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "uge" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "ult" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "ule" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "une" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "uno" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "_true" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    func.return
func.func @cmpf(%x: f32, %y: f32) {
  %0 = arith.cmpf false, %x, %y : f32
  %1 = arith.cmpf oeq, %x, %y : f32
  %2 = arith.cmpf ogt, %x, %y : f32
  %3 = arith.cmpf oge, %x, %y : f32
  %4 = arith.cmpf olt, %x, %y fastmath<fast> : f32
  %5 = arith.cmpf ole, %x, %y : f32
  %6 = arith.cmpf one, %x, %y : f32
  %7 = arith.cmpf ord, %x, %y : f32
  %8 = arith.cmpf ueq, %x, %y : f32
  %9 = arith.cmpf ugt, %x, %y : f32
  %10 = arith.cmpf uge, %x, %y : f32
  %11 = arith.cmpf ult, %x, %y : f32
  %12 = arith.cmpf ule, %x, %y : f32
  %13 = arith.cmpf une, %x, %y : f32
  %14 = arith.cmpf uno, %x, %y : f32
  %15 = arith.cmpf true, %x, %y : f32
  func.return
}

// select keeps the order of its operands.
// CHECK-LABEL: func.func @select
// CHECK-SAME:    (%[[C:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32) -> f32
// CHECK-NEXT:    %[[R:.*]] = llvm.select %[[C]], %[[X]], %[[Y]] : i1, f32
// CHECK-NEXT:    func.return %[[R]] : f32
func.func @select(%c: i1, %x: f32, %y: f32) -> f32 {
  %0 = arith.select %c, %x, %y : f32
  func.return %0 : f32
}

// Casts: uitofp, fptosi and fptoui come from llvm_ext (xDSL's llvm lacks them).
// CHECK-LABEL: func.func @casts
// CHECK-SAME:    (%[[A:.*]]: i32, %[[X:.*]]: f32, %[[D:.*]]: f64)
// CHECK-NEXT:    %{{.*}} = llvm.sext %[[A]] : i32 to i64
// CHECK-NEXT:    %{{.*}} = llvm.zext %[[A]] : i32 to i64
// CHECK-NEXT:    %{{.*}} = llvm.trunc %[[A]] : i32 to i8
// CHECK-NEXT:    %{{.*}} = llvm.fpext %[[X]] : f32 to f64
// CHECK-NEXT:    %{{.*}} = llvm.fptrunc %[[D]] : f64 to f32
// CHECK-NEXT:    %{{.*}} = llvm.sitofp %[[A]] : i32 to f32
// CHECK-NEXT:    %{{.*}} = llvm_ext.uitofp %[[A]] : i32 to f32
// CHECK-NEXT:    %{{.*}} = llvm_ext.fptosi %[[X]] : f32 to i32
// CHECK-NEXT:    %{{.*}} = llvm_ext.fptoui %[[D]] : f64 to i64
// CHECK-NEXT:    %{{.*}} = llvm.bitcast %[[X]] : f32 to i32
// CHECK-NEXT:    func.return
func.func @casts(%a: i32, %x: f32, %d: f64) {
  %0 = arith.extsi %a : i32 to i64
  %1 = arith.extui %a : i32 to i64
  %2 = arith.trunci %a : i32 to i8
  %3 = arith.extf %x : f32 to f64
  %4 = arith.truncf %d : f64 to f32
  %5 = arith.sitofp %a : i32 to f32
  %6 = arith.uitofp %a : i32 to f32
  %7 = arith.fptosi %x : f32 to i32
  %8 = arith.fptoui %d : f64 to i64
  %9 = arith.bitcast %x : f32 to i32
  func.return
}

// index_cast sign-extends to i64 or truncates from it; i64 <-> index is no op at all.
// The index values meet unconverted users (func.return) through casts.
// CHECK-LABEL: func.func @index_cast
// CHECK-SAME:    (%[[A:.*]]: i32, %[[L:.*]]: i64, %[[I:.*]]: index) -> (index, i32, index)
// CHECK-NEXT:    %[[EXT:.*]] = llvm.sext %[[A]] : i32 to i64
// CHECK-NEXT:    %[[EXT_INDEX:.*]] = builtin.unrealized_conversion_cast %[[EXT]] : i64 to index
// CHECK-NEXT:    %[[I64:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
// CHECK-NEXT:    %[[TRUNC:.*]] = llvm.trunc %[[I64]] : i64 to i32
// CHECK-NEXT:    %[[SAME:.*]] = builtin.unrealized_conversion_cast %[[L]] : i64 to index
// CHECK-NEXT:    func.return %[[EXT_INDEX]], %[[TRUNC]], %[[SAME]] : index, i32, index
func.func @index_cast(%a: i32, %l: i64, %i: index) -> (index, i32, index) {
  %0 = arith.index_cast %a : i32 to index
  %1 = arith.index_cast %i : index to i32
  %2 = arith.index_cast %l : i64 to index
  func.return %0, %1, %2 : index, i32, index
}

// Index arithmetic is i64 arithmetic: a converted producer hands over its i64 directly.
// CHECK-LABEL: func.func @index_arith
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32) -> index
// CHECK-NEXT:    %[[EA:.*]] = llvm.sext %[[A]] : i32 to i64
// CHECK-NEXT:    %{{.*}} = builtin.unrealized_conversion_cast %[[EA]] : i64 to index
// CHECK-NEXT:    %[[EB:.*]] = llvm.sext %[[B]] : i32 to i64
// CHECK-NEXT:    %{{.*}} = builtin.unrealized_conversion_cast %[[EB]] : i64 to index
// CHECK-NEXT:    %[[SUM:.*]] = llvm.add %[[EA]], %[[EB]] : i64
// CHECK-NEXT:    %[[R:.*]] = builtin.unrealized_conversion_cast %[[SUM]] : i64 to index
// CHECK-NEXT:    func.return %[[R]] : index
func.func @index_arith(%a: i32, %b: i32) -> index {
  %0 = arith.index_cast %a : i32 to index
  %1 = arith.index_cast %b : i32 to index
  %2 = arith.addi %0, %1 : index
  func.return %2 : index
}

// Integer min/max are LLVM intrinsics; minimumf/maximumf too (NaN-propagating),
// minnumf/maxnumf are xDSL's llvm.intr.minnum/maxnum. Fast-math flags are kept.
// CHECK-LABEL: func.func @min_max
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.smin.i32"(%[[A]], %[[B]]) : (i32, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.smax.i32"(%[[A]], %[[B]]) : (i32, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.umin.i32"(%[[A]], %[[B]]) : (i32, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.umax.i32"(%[[A]], %[[B]]) : (i32, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.minimum.f32"(%[[X]], %[[Y]]) {fastmathFlags = #llvm.fastmath<fast>} : (f32, f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.maximum.f32"(%[[X]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.minnum(%[[X]], %[[Y]]) {fastmathFlags = #llvm.fastmath<fast>} : (f32, f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.maxnum(%[[X]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    func.return
func.func @min_max(%a: i32, %b: i32, %x: f32, %y: f32) {
  %0 = arith.minsi %a, %b : i32
  %1 = arith.maxsi %a, %b : i32
  %2 = arith.minui %a, %b : i32
  %3 = arith.maxui %a, %b : i32
  %4 = arith.minimumf %x, %y fastmath<fast> : f32
  %5 = arith.maximumf %x, %y : f32
  %6 = arith.minnumf %x, %y fastmath<fast> : f32
  %7 = arith.maxnumf %x, %y : f32
  func.return
}

// floordivsi: the truncated quotient, minus one when the remainder is not zero and its
// sign differs from the divisor's (-7 floordiv 2 = -4, not -3).
// CHECK-LABEL: func.func @floordivsi
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.sdiv %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[R:.*]] = llvm.srem %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[INEXACT:.*]] = llvm.icmp "ne" %[[R]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[RNEG:.*]] = llvm.icmp "slt" %[[R]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[BNEG:.*]] = llvm.icmp "slt" %[[B]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[WRONG:.*]] = llvm.icmp "ne" %[[RNEG]], %[[BNEG]] : i1
// CHECK-NEXT:    %[[FIX:.*]] = llvm.and %[[INEXACT]], %[[WRONG]] : i1
// CHECK-NEXT:    %[[STEP:.*]] = llvm.zext %[[FIX]] : i1 to i32
// CHECK-NEXT:    %[[RES:.*]] = llvm.sub %[[Q]], %[[STEP]] : i32
// CHECK-NEXT:    func.return %[[RES]] : i32
func.func @floordivsi(%a: i32, %b: i32) -> i32 {
  %0 = arith.floordivsi %a, %b : i32
  func.return %0 : i32
}

// ceildivsi: plus one when the remainder is not zero and has the divisor's sign.
// CHECK-LABEL: func.func @ceildivsi
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.sdiv %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[R:.*]] = llvm.srem %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[INEXACT:.*]] = llvm.icmp "ne" %[[R]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[RNEG:.*]] = llvm.icmp "slt" %[[R]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[BNEG:.*]] = llvm.icmp "slt" %[[B]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[WRONG:.*]] = llvm.icmp "eq" %[[RNEG]], %[[BNEG]] : i1
// CHECK-NEXT:    %[[FIX:.*]] = llvm.and %[[INEXACT]], %[[WRONG]] : i1
// CHECK-NEXT:    %[[STEP:.*]] = llvm.zext %[[FIX]] : i1 to i32
// CHECK-NEXT:    %[[RES:.*]] = llvm.add %[[Q]], %[[STEP]] : i32
// CHECK-NEXT:    func.return %[[RES]] : i32
func.func @ceildivsi(%a: i32, %b: i32) -> i32 {
  %0 = arith.ceildivsi %a, %b : i32
  func.return %0 : i32
}

// ceildivui: plus one when the remainder is not zero.
// CHECK-LABEL: func.func @ceildivui
// CHECK-SAME:    (%[[A:.*]]: i64, %[[B:.*]]: i64) -> i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[Q:.*]] = llvm.udiv %[[A]], %[[B]] : i64
// CHECK-NEXT:    %[[R:.*]] = llvm.urem %[[A]], %[[B]] : i64
// CHECK-NEXT:    %[[INEXACT:.*]] = llvm.icmp "ne" %[[R]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[STEP:.*]] = llvm.zext %[[INEXACT]] : i1 to i64
// CHECK-NEXT:    %[[RES:.*]] = llvm.add %[[Q]], %[[STEP]] : i64
// CHECK-NEXT:    func.return %[[RES]] : i64
func.func @ceildivui(%a: i64, %b: i64) -> i64 {
  %0 = arith.ceildivui %a, %b : i64
  func.return %0 : i64
}

// Tensors are not LLVM values: the pass must leave these ops alone.
// CHECK-LABEL: func.func @tensors_untouched
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[R:.*]] = arith.addf %[[X]], %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = arith.cmpf olt, %[[R]], %[[X]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32>
func.func @tensors_untouched(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  %1 = arith.cmpf olt, %0, %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// A conversion removes nothing it does not convert: an unused value stays (dce decides).
// CHECK-LABEL: func.func @unused_value_stays
// CHECK-NEXT:    %{{.*}} = {{arith.addi|llvm.add}} %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    func.return
func.func @unused_value_stays(%a: i32) {
  %unused = arith.addi %a, %a : i32
  func.return
}

// Not LLVM values, left alone: a bitcast to or from index (meaningless once index is
// i64), a constant vector of index values, a constant tensor.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT:    %[[B0:.*]] = arith.bitcast %{{.*}} : i64 to index
// CHECK-NEXT:    %[[B1:.*]] = arith.bitcast %{{.*}} : index to i64
// CHECK-NEXT:    %[[V:.*]] = arith.constant dense<[1, 2]> : vector<2xindex>
// CHECK-NEXT:    %[[T:.*]] = arith.constant dense<1> : tensor<2xi32>
// CHECK-NEXT:    func.return %[[B0]], %[[B1]], %[[V]], %[[T]]
func.func @left_alone(%l: i64, %i: index) -> (index, i64, vector<2xindex>, tensor<2xi32>) {
  %0 = arith.bitcast %l : i64 to index
  %1 = arith.bitcast %i : index to i64
  %2 = arith.constant dense<[1, 2]> : vector<2xindex>
  %3 = arith.constant dense<1> : tensor<2xi32>
  func.return %0, %1, %2, %3 : index, i64, vector<2xindex>, tensor<2xi32>
}
