// RUN: ti-opt %s -p ti-fold-sqrt-compare | filecheck %s

// julia's `z.norm() < 20`: the sum of squares against the smallest f32 whose root is 20
// (399.99997, not 400); the fast-math flags stay on the compare.
// CHECK-LABEL: func.func @norm_below
// CHECK:         %[[N2:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %c = arith.constant 2.000000e+01 : f32
// CHECK-NEXT:    %[[T:.*]] = arith.constant 399.999969 : f32
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpf olt, %[[N2]], %[[T]] fastmath<fast> : f32
// CHECK-NEXT:    func.return %[[IN]] : i1
func.func @norm_below(%x: f32, %y: f32) -> i1 {
  %xx = arith.mulf %x, %x : f32
  %yy = arith.mulf %y, %y : f32
  %n2 = arith.addf %xx, %yy : f32
  %n = math.sqrt %n2 : f32
  %c = arith.constant 2.000000e+01 : f32
  %in = arith.cmpf olt, %n, %c fastmath<fast> : f32
  func.return %in : i1
}

// `<=` and `>` use the smallest x whose root exceeds C: for 2.0 in f64 that is two
// floats after 4.0 (the root of the one after 4.0 still rounds to 2). `<=` becomes
// `<`, `>` becomes `>=`; `>=` keeps its predicate; a constant on the left is swapped to
// the right.
// CHECK-LABEL: func.func @predicates
// CHECK-NEXT:    %[[XX:.*]] = arith.mulf %x, %x : f64
// CHECK-NEXT:    %c = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    %[[T1:.*]] = arith.constant 4.0000000000000018 : f64
// CHECK-NEXT:    %[[LE:.*]] = arith.cmpf olt, %[[XX]], %[[T1]] : f64
// CHECK-NEXT:    %[[T2:.*]] = arith.constant 4.0000000000000018 : f64
// CHECK-NEXT:    %[[GT:.*]] = arith.cmpf oge, %[[XX]], %[[T2]] : f64
// CHECK-NEXT:    %[[T3:.*]] = arith.constant 4.000000e+00 : f64
// CHECK-NEXT:    %[[GE:.*]] = arith.cmpf uge, %[[XX]], %[[T3]] : f64
// CHECK-NEXT:    %[[T4:.*]] = arith.constant 4.000000e+00 : f64
// CHECK-NEXT:    %[[SW:.*]] = arith.cmpf olt, %[[XX]], %[[T4]] : f64
// CHECK-NEXT:    func.return %[[LE]], %[[GT]], %[[GE]], %[[SW]] : i1, i1, i1, i1
func.func @predicates(%x: f64) -> (i1, i1, i1, i1) {
  %xx = arith.mulf %x, %x : f64
  %r = math.sqrt %xx : f64
  %c = arith.constant 2.000000e+00 : f64
  %le = arith.cmpf ole, %r, %c : f64
  %gt = arith.cmpf ogt, %r, %c : f64
  %ge = arith.cmpf uge, %r, %c : f64
  %sw = arith.cmpf ogt, %c, %r : f64
  func.return %le, %gt, %ge, %sw : i1, i1, i1, i1
}

// The root has another use: it stays, only the compare changes.
// CHECK-LABEL: func.func @root_used_too
// CHECK-NEXT:    %[[A:.*]] = math.absf %x : f32
// CHECK-NEXT:    %[[R:.*]] = math.sqrt %[[A]] : f32
// CHECK-NEXT:    %c = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[T:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpf olt, %[[A]], %[[T]] : f32
// CHECK-NEXT:    func.return %[[LT]], %[[R]] : i1, f32
func.func @root_used_too(%x: f32) -> (i1, f32) {
  %a = math.absf %x : f32
  %r = math.sqrt %a : f32
  %c = arith.constant 1.000000e+00 : f32
  %lt = arith.cmpf olt, %r, %c : f32
  func.return %lt, %r : i1, f32
}

// Must not fire: an operand that may be negative (sqrt(-1) < 20 is false, -1 < 400 is
// true), a quotient of non-negatives (x / sqrt(-0.0) is -inf), equality, a bound known
// at run time, a non-positive bound, a bound whose square overflows f32, and f16.
// CHECK-LABEL: func.func @left_alone
// CHECK:         arith.cmpf olt, %r0, %c : f32
// CHECK:         arith.cmpf olt, %q, %c : f32
// CHECK-NEXT:    arith.cmpf oeq, %r, %c : f32
// CHECK-NEXT:    arith.cmpf olt, %r, %b : f32
// CHECK:         arith.cmpf olt, %r, %zero : f32
// CHECK:         arith.cmpf olt, %r, %huge : f32
// CHECK:         arith.cmpf olt, %hr, %hc : f16
// CHECK-NEXT:    func.return
func.func @left_alone(%x: f32, %y: f32, %b: f32, %h: f16) -> (i1, i1, i1, i1, i1, i1, i1) {
  %r0 = math.sqrt %x : f32
  %c = arith.constant 2.000000e+01 : f32
  %a = arith.cmpf olt, %r0, %c : f32
  %yy = arith.mulf %y, %y : f32
  %r = math.sqrt %yy : f32
  %quot = arith.divf %yy, %r : f32
  %q = math.sqrt %quot : f32
  %d = arith.cmpf olt, %q, %c : f32
  %e = arith.cmpf oeq, %r, %c : f32
  %v = arith.cmpf olt, %r, %b : f32
  %zero = arith.constant 0.000000e+00 : f32
  %z = arith.cmpf olt, %r, %zero : f32
  %huge = arith.constant 3.000000e+38 : f32
  %o = arith.cmpf olt, %r, %huge : f32
  %hh = arith.mulf %h, %h : f16
  %hr = math.sqrt %hh : f16
  %hc = arith.constant 2.000000e+00 : f16
  %hl = arith.cmpf olt, %hr, %hc : f16
  func.return %a, %d, %e, %v, %z, %o, %hl : i1, i1, i1, i1, i1, i1, i1
}
