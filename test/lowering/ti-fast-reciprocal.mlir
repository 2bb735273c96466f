// RUN: ti-opt %s -p ti-fast-reciprocal | filecheck %s

// Three divisions by one divisor (n-body's d / (r2 * sqrt(r2))): one reciprocal, three
// multiplications.
// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %[[T:.*]] = arith.mulf %r2, %s : f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[ONE]], %[[T]] : f32
// CHECK-NEXT:    %[[A:.*]] = arith.mulf %x, %[[R]] : f32
// CHECK-NEXT:    %[[B:.*]] = arith.mulf %y, %[[R]] : f32
// CHECK-NEXT:    %[[C:.*]] = arith.mulf %z, %[[R]] fastmath<fast> : f32
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]] : f32, f32, f32
func.func @shared(%x: f32, %y: f32, %z: f32, %r2: f32, %s: f32) -> (f32, f32, f32) {
  %t = arith.mulf %r2, %s : f32
  %a = arith.divf %x, %t : f32
  %b = arith.divf %y, %t : f32
  %c = arith.divf %z, %t fastmath<fast> : f32
  func.return %a, %b, %c : f32, f32, f32
}

// Two divisions are enough to share a reciprocal; it takes the fast-math flags of the
// first division.
// CHECK-LABEL: func.func @two
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[ONE]], %d fastmath<fast> : f64
// CHECK-NEXT:    %[[A:.*]] = arith.mulf %x, %[[R]] fastmath<fast> : f64
// CHECK-NEXT:    %[[B:.*]] = arith.mulf %y, %[[R]] : f64
// CHECK-NEXT:    func.return %[[A]], %[[B]] : f64, f64
func.func @two(%x: f64, %y: f64, %d: f64) -> (f64, f64) {
  %a = arith.divf %x, %d fastmath<fast> : f64
  %b = arith.divf %y, %d : f64
  func.return %a, %b : f64, f64
}

// A square root that is only divided by: its reciprocal square root, multiplied by.
// CHECK-LABEL: func.func @by_sqrt
// CHECK-NEXT:    %[[R:.*]] = math.rsqrt %y : f64
// CHECK-NEXT:    %[[A:.*]] = arith.mulf %x, %[[R]] : f64
// CHECK-NEXT:    func.return %[[A]] : f64
func.func @by_sqrt(%x: f64, %y: f64) -> f64 {
  %s = math.sqrt %y : f64
  %a = arith.divf %x, %s : f64
  func.return %a : f64
}

// Left alone: a single division; a square root used otherwise too; divisions by one
// divisor in different blocks; a square root that is the dividend.
// CHECK-LABEL: func.func @alone
// CHECK-NEXT:    %[[A:.*]] = arith.divf %x, %y : f32
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %y : f32
// CHECK-NEXT:    %[[B:.*]] = arith.divf %x, %[[S]] : f32
// CHECK-NEXT:    %[[C:.*]] = arith.divf %[[S]], %x : f32
// CHECK-NEXT:    %[[D:.*]] = arith.addf %[[A]], %[[S]] : f32
// CHECK-NEXT:    cf.br ^[[NEXT:.*]]
// CHECK:       ^[[NEXT]]:
// CHECK-NEXT:    %[[E:.*]] = arith.divf %x, %y : f32
func.func @alone(%x: f32, %y: f32) -> (f32, f32, f32, f32) {
  %a = arith.divf %x, %y : f32
  %s = math.sqrt %y : f32
  %b = arith.divf %x, %s : f32
  %c = arith.divf %s, %x : f32
  %d = arith.addf %a, %s : f32
  cf.br ^next
^next:
  %e = arith.divf %x, %y : f32
  func.return %b, %c, %d, %e : f32, f32, f32, f32
}

// n-body's divisor y * sqrt(y), only divided by (in either order of the factors): the
// cube of one reciprocal square root, multiplied by.
// CHECK-LABEL: func.func @three_halves
// CHECK-NEXT:    %[[R:.*]] = math.rsqrt %y : f32
// CHECK-NEXT:    %[[Q:.*]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK-NEXT:    %[[C:.*]] = arith.mulf %[[Q]], %[[R]] : f32
// CHECK-NEXT:    %[[A:.*]] = arith.mulf %x, %[[C]] : f32
// CHECK-NEXT:    %[[B:.*]] = arith.mulf %z, %[[C]] : f32
// CHECK-NEXT:    %[[R2:.*]] = math.rsqrt %w : f64
// CHECK-NEXT:    %[[Q2:.*]] = arith.mulf %[[R2]], %[[R2]] : f64
// CHECK-NEXT:    %[[C2:.*]] = arith.mulf %[[Q2]], %[[R2]] : f64
// CHECK-NEXT:    %[[D:.*]] = arith.mulf %v, %[[C2]] : f64
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[D]] : f32, f32, f64
func.func @three_halves(%x: f32, %y: f32, %z: f32, %v: f64, %w: f64) -> (f32, f32, f64) {
  %s = math.sqrt %y : f32
  %t = arith.mulf %y, %s : f32
  %a = arith.divf %x, %t : f32
  %b = arith.divf %z, %t : f32
  %s2 = math.sqrt %w : f64
  %t2 = arith.mulf %s2, %w : f64
  %d = arith.divf %v, %t2 : f64
  func.return %a, %b, %d : f32, f32, f64
}

// Left alone: a square root used besides the product (the product's reciprocal is still
// shared), a product of a square root and another value, a product used otherwise too.
// CHECK-LABEL: func.func @not_three_halves
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %y : f32
// CHECK-NEXT:    %[[T:.*]] = arith.mulf %y, %[[S]] : f32
// CHECK-NEXT:    %[[A:.*]] = arith.divf %x, %[[T]] : f32
// CHECK-NEXT:    %[[U:.*]] = arith.mulf %x, %[[S]] : f32
// CHECK-NEXT:    %[[B:.*]] = arith.divf %y, %[[U]] : f32
// CHECK-NEXT:    %[[S2:.*]] = math.sqrt %x : f32
// CHECK-NEXT:    %[[V:.*]] = arith.mulf %x, %[[S2]] : f32
// CHECK-NEXT:    %[[C:.*]] = arith.divf %y, %[[V]] : f32
// CHECK-NEXT:    %[[D:.*]] = arith.addf %[[V]], %[[C]] : f32
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[D]] : f32, f32, f32
func.func @not_three_halves(%x: f32, %y: f32) -> (f32, f32, f32) {
  %s = math.sqrt %y : f32
  %t = arith.mulf %y, %s : f32
  %a = arith.divf %x, %t : f32
  %u = arith.mulf %x, %s : f32
  %b = arith.divf %y, %u : f32
  %s2 = math.sqrt %x : f32
  %v = arith.mulf %x, %s2 : f32
  %c = arith.divf %y, %v : f32
  %d = arith.addf %v, %c : f32
  func.return %a, %b, %d : f32, f32, f32
}
