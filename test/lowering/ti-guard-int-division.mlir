// RUN: ti-opt %s -p ti-guard-int-division | filecheck %s

// A signed division by a divisor that may be 0 or -1: divide by 1 instead, then
// a / 0 = 0 and a / -1 = 0 - a (MIN wraps to MIN).
// CHECK-LABEL: func.func @signed_div
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[BZ:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[M1:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[BM1:.*]] = arith.cmpi eq, %[[B]], %[[M1]] : i32
// CHECK-NEXT:    %[[UNSAFE:.*]] = arith.ori %[[BZ]], %[[BM1]] : i1
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[UNSAFE]], %[[ONE]], %[[B]] : i32
// CHECK-NEXT:    %[[RAW:.*]] = arith.divsi %[[A]], %[[SAFE]] {ti.guarded} : i32
// CHECK-NEXT:    %[[NEG:.*]] = arith.subi %[[ZERO]], %[[A]] : i32
// CHECK-NEXT:    %[[Q1:.*]] = arith.select %[[BM1]], %[[NEG]], %[[RAW]] : i32
// CHECK-NEXT:    %[[Q:.*]] = arith.select %[[BZ]], %[[ZERO]], %[[Q1]] : i32
// CHECK-NEXT:    func.return %[[Q]] : i32
func.func @signed_div(%a : i32, %b : i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  func.return %q : i32
}

// An unsigned division by 0 gives all ones.
// CHECK-LABEL: func.func @unsigned_div
// CHECK-SAME:    (%[[A:.*]]: i64, %[[B:.*]]: i64)
// CHECK:         %[[BZ:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : i64
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[BZ]], %{{.*}}, %[[B]] : i64
// CHECK-NEXT:    %[[RAW:.*]] = arith.divui %[[A]], %[[SAFE]] {ti.guarded} : i64
// CHECK-NEXT:    %[[ONES:.*]] = arith.constant -1 : i64
// CHECK-NEXT:    %[[Q:.*]] = arith.select %[[BZ]], %[[ONES]], %[[RAW]] : i64
// CHECK-NEXT:    func.return %[[Q]] : i64
func.func @unsigned_div(%a : i64, %b : i64) -> i64 {
  %q = arith.divui %a, %b : i64
  func.return %q : i64
}

// A remainder by 0 is the dividend; by -1 it is a % 1 = 0.
// CHECK-LABEL: func.func @signed_rem
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK:         %[[BZ:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : i32
// CHECK:         %[[RAW:.*]] = arith.remsi %[[A]], %{{.*}} {ti.guarded} : i32
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[BZ]], %[[A]], %[[RAW]] : i32
// CHECK-NEXT:    func.return %[[R]] : i32
func.func @signed_rem(%a : i32, %b : i32) -> i32 {
  %r = arith.remsi %a, %b : i32
  func.return %r : i32
}

// A constant divisor other than 0 and -1 needs no guard.
// CHECK-LABEL: func.func @constant_divisor
// CHECK-NEXT:    %[[C:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %{{.*}}, %[[C]] : i32
// CHECK-NEXT:    %[[R:.*]] = arith.remui %{{.*}}, %[[C]] : i32
// CHECK-NEXT:    func.return %[[Q]], %[[R]] : i32, i32
func.func @constant_divisor(%a : i32) -> (i32, i32) {
  %c = arith.constant 3 : i32
  %q = arith.divsi %a, %c : i32
  %r = arith.remui %a, %c : i32
  func.return %q, %r : i32, i32
}

// A constant -1 still needs the guard for a signed division (MIN / -1 traps on x86).
// CHECK-LABEL: func.func @minus_one
// CHECK:         arith.divsi %{{.*}}, %{{.*}} {ti.guarded} : i32
func.func @minus_one(%a : i32) -> i32 {
  %c = arith.constant -1 : i32
  %q = arith.divsi %a, %c : i32
  func.return %q : i32
}

// A constant 0 divisor is guarded like any other zero (the result is defined, the CPU
// does not trap); a constant 1 is not.
// CHECK-LABEL: func.func @constant_zero_and_one
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[O:.*]] = arith.constant 1 : i32
// CHECK:         %[[Q:.*]] = arith.divui %{{.*}}, %{{.*}} {ti.guarded} : i32
// CHECK:         %[[P:.*]] = arith.divui %a, %[[O]] : i32
// CHECK-NEXT:    func.return %{{.*}}, %[[P]] : i32, i32
func.func @constant_zero_and_one(%a : i32) -> (i32, i32) {
  %z = arith.constant 0 : i32
  %o = arith.constant 1 : i32
  %q = arith.divui %a, %z : i32
  %p = arith.divui %a, %o : i32
  func.return %q, %p : i32, i32
}

// -1 written as its all-ones pattern is still -1 for a signed division.
// CHECK-LABEL: func.func @minus_one_pattern
// CHECK:         arith.divsi %{{.*}}, %{{.*}} {ti.guarded} : i32
func.func @minus_one_pattern(%a : i32) -> i32 {
  %c = arith.constant 4294967295 : i32
  %q = arith.divsi %a, %c : i32
  func.return %q : i32
}
