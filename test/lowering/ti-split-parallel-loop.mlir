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
