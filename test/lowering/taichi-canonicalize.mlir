// RUN: ti-opt %s -p canonicalize | filecheck %s

// An if on a constant true condition becomes its then branch.
// CHECK-LABEL: taichi.kernel @constant_true
// CHECK-SAME:    (%[[V:.*]]: i32)
// CHECK-NEXT:    taichi.print "then {}" %[[V]] : i32
// CHECK-NEXT:    taichi.return
taichi.kernel @constant_true(%v: i32) {
  %t = arith.constant true
  taichi.if %t {
    taichi.print "then {}" %v : i32
    taichi.yield
  } else {
    taichi.print "else"
    taichi.yield
  }
  taichi.return
}

// On a constant false condition: the else branch, or nothing without one.
// CHECK-LABEL: taichi.kernel @constant_false
// CHECK-NEXT:    taichi.print "else"
// CHECK-NEXT:    taichi.return
taichi.kernel @constant_false() {
  %f = arith.constant false
  taichi.if %f {
    taichi.print "then"
    taichi.yield
  } else {
    taichi.print "else"
    taichi.yield
  }
  taichi.if %f {
    taichi.print "never"
    taichi.yield
  }
  taichi.return
}

// Must not fire when the taken branch ends in break: the break must stay the last op of
// a block, so the if stays.
// CHECK-LABEL: taichi.kernel @constant_break
// CHECK:         taichi.while {
// CHECK-NEXT:      taichi.if %{{.*}} {
// CHECK-NEXT:        taichi.break
// CHECK-NEXT:      }
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
taichi.kernel @constant_break() {
  %t = arith.constant true
  taichi.while {
    taichi.if %t {
      taichi.break
    }
    taichi.yield
  }
  taichi.return
}

// An if whose branches hold only yields disappears, whatever its condition.
// CHECK-LABEL: taichi.kernel @empty_if
// CHECK-NEXT:    taichi.return
taichi.kernel @empty_if(%c: i1) {
  taichi.if %c {
    taichi.yield
  } else {
    taichi.yield
  }
  taichi.if %c {
    taichi.yield
  }
  taichi.return
}

// A range_for between equal constants (or twice the same bound) never runs; one with
// an empty body does nothing.
// CHECK-LABEL: taichi.kernel @empty_range_for
// CHECK-NEXT:    taichi.return
taichi.kernel @empty_range_for(%n: i32) {
  %four = arith.constant 4 : i32
  %also_four = arith.constant 4 : i32
  %zero = arith.constant 0 : i32
  taichi.range_for %i = %four to %also_four : i32 {
    taichi.print "never"
    taichi.yield
  }
  taichi.range_for %j = %n to %n : i32 {
    taichi.print "never"
    taichi.yield
  }
  taichi.range_for %k = %zero to %n : i32 {
    taichi.yield
  }
  taichi.return
}

// Must not fire on a loop that runs and works, nor on an if decided at run time.
// CHECK-LABEL: taichi.kernel @kept
// CHECK-SAME:    (%[[N:.*]]: i32, %[[C:.*]]: i1)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[I:.*]] = %[[ZERO]] to %[[N]] : i32 {
// CHECK-NEXT:      taichi.if %[[C]] {
// CHECK-NEXT:        taichi.print "{}" %[[I]] : i32
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.return
taichi.kernel @kept(%n: i32, %c: i1) {
  %zero = arith.constant 0 : i32
  taichi.range_for %i = %zero to %n : i32 {
    taichi.if %c {
      taichi.print "{}" %i : i32
      taichi.yield
    }
    taichi.yield
  }
  taichi.return
}
