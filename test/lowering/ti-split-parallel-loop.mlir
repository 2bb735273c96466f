// RUN: ti-opt %s -p ti-split-parallel-loop | filecheck %s

// A flattened 2-d ndrange (62 x 62, begins 1): rows in parallel, a serial row inside,
// no div/rem left; the row's index offset moves out of the serial loop.
// CHECK-LABEL: taichi.kernel @ndrange_2d
// CHECK-NEXT:    %[[C62:.*]] = arith.constant 62 : i32
// CHECK-NEXT:    %[[N:.*]] = arith.constant 3844 : i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 62 : i32
// CHECK-NEXT:    taichi.range_for %[[ROW:.*]] = %[[LO]] to %[[ROWS]] : i32 {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[E:.*]] = arith.constant 62 : i32
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[ROW]], %[[ONE]] : i32
// CHECK-NEXT:      taichi.range_for %[[COL:.*]] = %[[Z]] to %[[E]] : i32 {
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[COL]], %[[ONE]] : i32
// CHECK-NEXT:        taichi.print "{} {}" %[[I]], %[[J]] : i32, i32
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      } {serialize}
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    } {keep = 1 : i32}
taichi.kernel @ndrange_2d() {
  %c62 = arith.constant 62 : i32
  %n = arith.constant 3844 : i32
  %lo = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  taichi.range_for %t = %lo to %n : i32 {
    %r = arith.remsi %t, %c62 : i32
    %j = arith.addi %r, %one : i32
    %q = arith.divsi %t, %c62 : i32
    %i = arith.addi %q, %one : i32
    taichi.print "{} {}" %i, %j : i32, i32
    taichi.yield
  } {keep = 1 : i32}
  taichi.return
}

// A dynamic number of rows times a constant row: the parallel loop runs to the rows;
// a 3-d index keeps its div/rem of the row index, hoisted out of the serial loop.
// CHECK-LABEL: taichi.kernel @dynamic_rows
// CHECK:         %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[N:.*]] = arith.muli %[[ROWS]], %[[C64:.*]] : i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[ROW:.*]] = %[[LO]] to %[[ROWS]] : i32 {
// CHECK-NEXT:      %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:      %{{.*}} = arith.constant 64 : i32
// CHECK-NEXT:      %[[J:.*]] = arith.remsi %[[ROW]], %{{.*}} : i32
// CHECK-NEXT:      %[[I:.*]] = arith.divsi %[[ROW]], %{{.*}} : i32
// CHECK-NEXT:      taichi.range_for %[[COL:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:        taichi.print "{} {} {}" %[[I]], %[[J]], %[[COL]] : i32, i32, i32
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      } {serialize}
taichi.kernel @dynamic_rows(%a: i32, %b: i32) {
  %c64 = arith.constant 64 : i32
  %rows = arith.muli %a, %b : i32
  %n = arith.muli %rows, %c64 : i32
  %lo = arith.constant 0 : i32
  taichi.range_for %t = %lo to %n : i32 {
    %k = arith.remsi %t, %c64 : i32
    %t2 = arith.divsi %t, %c64 : i32
    %j = arith.remsi %t2, %b : i32
    %i = arith.divsi %t2, %b : i32
    taichi.print "{} {} {}" %i, %j, %k : i32, i32, i32
    taichi.yield
  }
  taichi.return
}

// Must not fire: a short last dimension (8 < 32) keeps the flat form.
// CHECK-LABEL: taichi.kernel @short_row
// CHECK:         taichi.range_for %[[T:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.remsi %[[T]], %{{.*}} : i32
// CHECK-NEXT:      %{{.*}} = arith.divsi %[[T]], %{{.*}} : i32
// CHECK-NOT:     {serialize}
// CHECK:         taichi.return
taichi.kernel @short_row() {
  %c8 = arith.constant 8 : i32
  %n = arith.constant 4096 : i32
  %lo = arith.constant 0 : i32
  taichi.range_for %t = %lo to %n : i32 {
    %r = arith.remsi %t, %c8 : i32
    %q = arith.divsi %t, %c8 : i32
    taichi.print "{} {}" %q, %r : i32, i32
    taichi.yield
  }
  taichi.return
}

// Must not fire: the bound is not a multiple of the row (a user's own t // 64, t % 64),
// the loop is serialized, or the index is used directly.
// CHECK-LABEL: taichi.kernel @not_a_grid
// CHECK-NOT:     {serialize}
// CHECK:         taichi.range_for %[[T:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.remsi %[[T]], %{{.*}} : i32
// CHECK:         taichi.range_for %[[S:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.remsi %[[S]], %{{.*}} : i32
// CHECK:         } {serialize}
// CHECK:         taichi.range_for %[[U:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.remsi %[[U]], %{{.*}} : i32
// CHECK-NEXT:      taichi.print "{} {}" %{{.*}}, %[[U]] : i32, i32
taichi.kernel @not_a_grid() {
  %c64 = arith.constant 64 : i32
  %n = arith.constant 4100 : i32
  %m = arith.constant 4096 : i32
  %lo = arith.constant 0 : i32
  taichi.range_for %t = %lo to %n : i32 {
    %r = arith.remsi %t, %c64 : i32
    %q = arith.divsi %t, %c64 : i32
    taichi.print "{} {}" %q, %r : i32, i32
    taichi.yield
  }
  taichi.range_for %s = %lo to %m : i32 {
    %r = arith.remsi %s, %c64 : i32
    %q = arith.divsi %s, %c64 : i32
    taichi.print "{} {}" %q, %r : i32, i32
    taichi.yield
  } {serialize}
  taichi.range_for %u = %lo to %m : i32 {
    %r = arith.remsi %u, %c64 : i32
    taichi.print "{} {}" %r, %u : i32, i32
    taichi.yield
  }
  taichi.return
}

// A row of exactly 32 (MIN_ROW) is split; the bound 32 * a (the constant on the left)
// gives a rows.
// CHECK-LABEL: taichi.kernel @row_of_32
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK:         %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[ROW:.*]] = %[[LO]] to %[[A]] : i32 {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[E:.*]] = arith.constant 32 : i32
// CHECK-NEXT:      taichi.range_for %[[COL:.*]] = %[[Z]] to %[[E]] : i32 {
// CHECK-NEXT:        taichi.print "{} {}" %[[ROW]], %[[COL]] : i32, i32
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      } {serialize}
taichi.kernel @row_of_32(%a: i32) {
  %c32 = arith.constant 32 : i32
  %n = arith.muli %c32, %a : i32
  %lo = arith.constant 0 : i32
  taichi.range_for %t = %lo to %n : i32 {
    %k = arith.remsi %t, %c32 : i32
    %i = arith.divsi %t, %c32 : i32
    taichi.print "{} {}" %i, %k : i32, i32
    taichi.yield
  }
  taichi.return
}

// A break that leaves an inner loop does not stop the split; one that leaves the
// parallel loop itself does.
// CHECK-LABEL: taichi.kernel @breaks
// CHECK:         taichi.range_for %[[ROW:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK:           taichi.range_for %[[COL:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:        taichi.range_for %{{.*}} = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:          taichi.break
// CHECK-NEXT:        } {serialize}
// CHECK-NEXT:        taichi.print "{} {}" %[[ROW]], %[[COL]] : i32, i32
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      } {serialize}
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.range_for %[[U:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.remsi %[[U]], %{{.*}} : i32
// CHECK-NEXT:      %{{.*}} = arith.divsi %[[U]], %{{.*}} : i32
// CHECK-NEXT:      taichi.print
// CHECK-NEXT:      taichi.break
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.return
taichi.kernel @breaks(%m: i32) {
  %c64 = arith.constant 64 : i32
  %n = arith.constant 4096 : i32
  %lo = arith.constant 0 : i32
  taichi.range_for %t = %lo to %n : i32 {
    %k = arith.remsi %t, %c64 : i32
    %i = arith.divsi %t, %c64 : i32
    taichi.range_for %s = %lo to %m : i32 {
      taichi.break
    } {serialize}
    taichi.print "{} {}" %i, %k : i32, i32
    taichi.yield
  }
  taichi.range_for %u = %lo to %n : i32 {
    %k = arith.remsi %u, %c64 : i32
    %i = arith.divsi %u, %c64 : i32
    taichi.print "{} {}" %i, %k : i32, i32
    taichi.break
  }
  taichi.return
}

// Must not fire: the index used other than by a remsi/divsi, and a loop already
// serialized.
// CHECK-LABEL: taichi.kernel @not_only_rows
// CHECK:         taichi.range_for %[[T:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.remsi %[[T]], %{{.*}} : i32
// CHECK-NEXT:      taichi.print "{} {}" %[[T]], %{{.*}} : i32, i32
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.range_for %[[U:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.remsi %[[U]], %{{.*}} : i32
// CHECK-NEXT:      taichi.print "{}" %{{.*}} : i32
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    } {serialize}
// CHECK-NEXT:    taichi.return
taichi.kernel @not_only_rows() {
  %c64 = arith.constant 64 : i32
  %n = arith.constant 4096 : i32
  %lo = arith.constant 0 : i32
  taichi.range_for %t = %lo to %n : i32 {
    %k = arith.remsi %t, %c64 : i32
    taichi.print "{} {}" %t, %k : i32, i32
    taichi.yield
  }
  taichi.range_for %u = %lo to %n : i32 {
    %k = arith.remsi %u, %c64 : i32
    taichi.print "{}" %k : i32
    taichi.yield
  } {serialize}
  taichi.return
}

// A 3-d loop of 64 x 64 x 64: one split only (the pass does not split the new row loop
// again); the middle index's div/rem move before the serial row.
// CHECK-LABEL: taichi.kernel @cube
// CHECK:         %[[ROWS:.*]] = arith.constant 4096 : i32
// CHECK-NEXT:    taichi.range_for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] : i32 {
// CHECK-NEXT:      %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:      %{{.*}} = arith.constant 64 : i32
// CHECK-NEXT:      %[[J:.*]] = arith.remsi %[[ROW]], %{{.*}} : i32
// CHECK-NEXT:      %[[I:.*]] = arith.divsi %[[ROW]], %{{.*}} : i32
// CHECK-NEXT:      taichi.range_for %[[COL:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:        taichi.print "{} {} {}" %[[I]], %[[J]], %[[COL]] : i32, i32, i32
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      } {serialize}
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.return
taichi.kernel @cube() {
  %c64 = arith.constant 64 : i32
  %n = arith.constant 262144 : i32
  %lo = arith.constant 0 : i32
  taichi.range_for %t = %lo to %n : i32 {
    %k = arith.remsi %t, %c64 : i32
    %t2 = arith.divsi %t, %c64 : i32
    %j = arith.remsi %t2, %c64 : i32
    %i = arith.divsi %t2, %c64 : i32
    taichi.print "{} {} {}" %i, %j, %k : i32, i32, i32
    taichi.yield
  }
  taichi.return
}
