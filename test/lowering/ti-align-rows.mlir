// RUN: ti-opt %s -p ti-align-rows --split-input-file | filecheck %s

// ndrange((1, 63), (1, 63)): 62 rows of 62 columns become 62 rows of 64 (3% more
// invocations), split by mask and shift; j = column, columns 1 to 62 run (j = 1 falls on
// column 1, so a row's columns 0 and 32 start lines of the field).
// CHECK-LABEL: offload.kernel @padded_rows
// CHECK:         %[[LO:.*]] = arith.constant 0 : i32
// CHECK:         %[[HI:.*]] = arith.constant 3968 : i32
// CHECK-NEXT:    offload.range_for %[[T:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK-NEXT:      %[[MASK:.*]] = arith.constant 63 : i32
// CHECK-NEXT:      %[[COL:.*]] = arith.andi %[[T]], %[[MASK]] : i32
// CHECK-NEXT:      %[[SHIFT:.*]] = arith.constant 6 : i32
// CHECK-NEXT:      %[[I:.*]] = arith.shrui %[[T]], %[[SHIFT]] : i32
// CHECK-NEXT:      %[[FRONT:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[J:.*]] = arith.subi %[[COL]], %[[FRONT]] : i32
// CHECK-NEXT:      %[[E:.*]] = arith.constant 62 : i32
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[J]], %[[E]] : i32
// CHECK-NEXT:      taichi.if %[[IN]] {
// CHECK-NEXT:        %{{.*}} = arith.constant 62 : i32
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:        %[[J1:.*]] = arith.addi %[[J]], %[[ONE]] : i32
// CHECK-NEXT:        %[[I1:.*]] = arith.addi %[[I]], %[[ONE]] : i32
// CHECK-NEXT:        %{{.*}} = taichi.get_field @v
// CHECK-NEXT:        %{{.*}} = taichi.element_ptr %{{.*}}[%[[I1]], %[[J1]]]
// CHECK:             taichi.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
taichi.field @v : memref<64x64xf32> offset 0
offload.kernel @padded_rows : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 3844 : i32
  offload.range_for %t = %lo to %hi : i32 {
    %e = arith.constant 62 : i32
    %r = arith.remsi %t, %e : i32
    %one = arith.constant 1 : i32
    %j = arith.addi %r, %one : i32
    %q = arith.divsi %t, %e : i32
    %i = arith.addi %q, %one : i32
    %v = taichi.get_field @v : memref<64x64xf32>
    %p = taichi.element_ptr %v[%i, %j] : memref<64x64xf32> -> memref<f32>
    %x = arith.constant 1.0 : f32
    memref.store %x, %p[] : memref<f32>
  }
}

// -----

// 63 columns from 2 (begin 2): columns 2 to 64 would not fit in 64, so they start at 0;
// a column index used other than added to a constant gives no front padding either.
// CHECK-LABEL: offload.kernel @no_room_in_front
// CHECK:         %[[COL:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     arith.subi
// CHECK:         %{{.*}} = arith.cmpi ult, %[[COL]], %{{.*}} : i32
// CHECK:         %[[COL2:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     arith.subi
// CHECK:         %{{.*}} = arith.cmpi ult, %[[COL2]], %{{.*}} : i32
taichi.field @u : memref<8x64xi32> offset 0
offload.kernel @no_room_in_front : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 504 : i32
  offload.range_for %t = %lo to %hi : i32 {
    %e = arith.constant 63 : i32
    %r = arith.remsi %t, %e : i32
    %two = arith.constant 2 : i32
    %j = arith.addi %r, %two : i32
    %i = arith.divsi %t, %e : i32
    %u = taichi.get_field @u : memref<8x64xi32>
    %p = taichi.element_ptr %u[%i, %j] : memref<8x64xi32> -> memref<i32>
    memref.store %i, %p[] : memref<i32>
  }
  offload.range_for %t = %lo to %hi : i32 {
    %e = arith.constant 63 : i32
    %r = arith.remsi %t, %e : i32
    %i = arith.divsi %t, %e : i32
    %u = taichi.get_field @u : memref<8x64xi32>
    %p = taichi.element_ptr %u[%i, %r] : memref<8x64xi32> -> memref<i32>
    memref.store %r, %p[] : memref<i32>
  }
}

// -----

// Rows already a power of two long (a struct-for over 16x32): the split becomes a mask
// and a shift, with no guard and the same bound.
// CHECK-LABEL: offload.kernel @power_of_two_rows
// CHECK:         %[[HI:.*]] = arith.constant 512 : i32
// CHECK-NEXT:    offload.range_for %[[T:.*]] = %{{.*}} to %[[HI]] : i32 {
// CHECK-NEXT:      %[[MASK:.*]] = arith.constant 31 : i32
// CHECK-NEXT:      %[[J:.*]] = arith.andi %[[T]], %[[MASK]] : i32
// CHECK-NEXT:      %[[SHIFT:.*]] = arith.constant 5 : i32
// CHECK-NEXT:      %[[I:.*]] = arith.shrui %[[T]], %[[SHIFT]] : i32
// CHECK-NEXT:      %{{.*}} = arith.constant 32 : i32
// CHECK-NEXT:      %{{.*}} = taichi.get_field @w
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT:     taichi.if
taichi.field @w : memref<16x32xf32> offset 0
offload.kernel @power_of_two_rows : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 512 : i32
  offload.range_for %t = %lo to %hi : i32 {
    %e = arith.constant 32 : i32
    %j = arith.remsi %t, %e : i32
    %i = arith.divsi %t, %e : i32
    %w = taichi.get_field @w : memref<16x32xf32>
    %p = taichi.element_ptr %w[%i, %j] : memref<16x32xf32> -> memref<f32>
    %x = arith.constant 1.0 : f32
    memref.store %x, %p[] : memref<f32>
  }
}

// -----

// Not rewritten: rows of 48 would take 64 (a third more invocations); the flat index is
// used by itself too; the bound is read at run time; the split divides by two extents.
// CHECK-LABEL: offload.kernel @left_alone
// CHECK-NOT:     arith.andi
// CHECK-NOT:     arith.shrui
// CHECK-NOT:     taichi.if
// CHECK:         offload.range_for
// CHECK:         arith.remsi
taichi.field @a : memref<8x48xi32> offset 0
offload.kernel @left_alone : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 384 : i32
  offload.range_for %t = %lo to %hi : i32 {
    %e = arith.constant 48 : i32
    %j = arith.remsi %t, %e : i32
    %i = arith.divsi %t, %e : i32
    %a = taichi.get_field @a : memref<8x48xi32>
    %p = taichi.element_ptr %a[%i, %j] : memref<8x48xi32> -> memref<i32>
    memref.store %t, %p[] : memref<i32>
  }
  %hi2 = arith.constant 3844 : i32
  offload.range_for %t = %lo to %hi2 : i32 {
    %e = arith.constant 62 : i32
    %j = arith.remsi %t, %e : i32
    %i = arith.divsi %t, %e : i32
    %a = taichi.get_field @a : memref<8x48xi32>
    %p = taichi.element_ptr %a[%i, %j] : memref<8x48xi32> -> memref<i32>
    memref.store %t, %p[] : memref<i32>
  }
  %g = offload.global_tmp 0 : memref<i32>
  %n = memref.load %g[] : memref<i32>
  offload.range_for %t = %lo to %n : i32 {
    %e = arith.constant 62 : i32
    %j = arith.remsi %t, %e : i32
    %i = arith.divsi %t, %e : i32
    %a = taichi.get_field @a : memref<8x48xi32>
    %p = taichi.element_ptr %a[%i, %j] : memref<8x48xi32> -> memref<i32>
    memref.store %i, %p[] : memref<i32>
  }
  %hi3 = arith.constant 3720 : i32
  offload.range_for %t = %lo to %hi3 : i32 {
    %e = arith.constant 62 : i32
    %f = arith.constant 60 : i32
    %j = arith.remsi %t, %e : i32
    %i = arith.divsi %t, %f : i32
    %a = taichi.get_field @a : memref<8x48xi32>
    %p = taichi.element_ptr %a[%i, %j] : memref<8x48xi32> -> memref<i32>
    memref.store %i, %p[] : memref<i32>
  }
}
