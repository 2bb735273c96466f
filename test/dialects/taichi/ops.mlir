// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// CHECK: taichi.field @x : memref<4x8xf32> offset 0
taichi.field @x : memref<4x8xf32> offset 0
// CHECK-NEXT: taichi.field @s : memref<i32> offset 128
taichi.field @s : memref<i32> offset 128

// A kernel with scalar and ndarray arguments and a return value.
// CHECK-LABEL: taichi.kernel @access(%a: f32, %arr: memref<?xf32>) -> f32 {
// CHECK-NEXT:    %[[X:.*]] = taichi.get_field @x : memref<4x8xf32>
// CHECK-NEXT:    %[[I:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[P:.*]] = taichi.element_ptr %[[X]][%[[I]], %[[I]]] : memref<4x8xf32> -> memref<f32>
// CHECK-NEXT:    %[[Q:.*]] = taichi.element_ptr %arr[%[[I]]] : memref<?xf32> -> memref<f32>
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[Q]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[V]], %[[P]][] : memref<f32>
// CHECK-NEXT:    %[[S:.*]] = taichi.get_field @s : memref<i32>
// CHECK-NEXT:    %{{.*}} = taichi.element_ptr %[[S]][] : memref<i32> -> memref<i32>
// CHECK-NEXT:    taichi.return %a : f32
taichi.kernel @access(%a: f32, %arr: memref<?xf32>) -> f32 {
  %x = taichi.get_field @x : memref<4x8xf32>
  %i = arith.constant 1 : i32
  %p = taichi.element_ptr %x[%i, %i] : memref<4x8xf32> -> memref<f32>
  %q = taichi.element_ptr %arr[%i] : memref<?xf32> -> memref<f32>
  %v = memref.load %q[] : memref<f32>
  memref.store %v, %p[] : memref<f32>
  %s = taichi.get_field @s : memref<i32>
  %sp = taichi.element_ptr %s[] : memref<i32> -> memref<i32>
  taichi.return %a : f32
}

// Loops and branches, with break and continue.
// CHECK-LABEL: taichi.kernel @control(%n: i32, %c: i1) {
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[I:.*]] = %[[LO]] to %n : i32 {
// CHECK-NEXT:      taichi.if %c {
// CHECK-NEXT:        taichi.break
// CHECK-NEXT:      } else {
// CHECK-NEXT:        taichi.continue
// CHECK-NEXT:      }
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    } {serialize}
// CHECK-NEXT:    %[[X:.*]] = taichi.get_field @x : memref<4x8xf32>
// CHECK-NEXT:    taichi.struct_for (%[[R:.*]], %[[C:.*]]) in %[[X]] : memref<4x8xf32> {
// CHECK-NEXT:      taichi.print "i = {} j = {}" %[[R]], %[[C]] : i32, i32
// CHECK-NEXT:      taichi.print "{:08x};{:+d}" %[[R]], %n : i32, i32 {end = ""}
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.while {
// CHECK-NEXT:      taichi.if %c {
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      taichi.assert %c, "c holds"
// CHECK-NEXT:      taichi.assert %c, "n = {:d}"(%n : i32)
// CHECK-NEXT:      taichi.break
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.return
taichi.kernel @control(%n: i32, %c: i1) {
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    taichi.if %c {
      taichi.break
    } else {
      taichi.continue
    }
    taichi.yield
  } {serialize}
  %x = taichi.get_field @x : memref<4x8xf32>
  taichi.struct_for (%r, %col) in %x : memref<4x8xf32> {
    taichi.print "i = {} j = {}" %r, %col : i32, i32
    taichi.print "{:08x};{:+d}" %r, %n : i32, i32 {end = ""}
    taichi.yield
  }
  taichi.while {
    taichi.if %c {
      taichi.yield
    }
    taichi.assert %c, "c holds"
    taichi.assert %c, "n = {:d}" (%n : i32)
    taichi.break
  }
  taichi.return
}

// Every atomic returns the old value.
// CHECK-LABEL: taichi.kernel @atomics(%f: f32, %k: i32) {
// CHECK-NEXT:    %[[F:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[K:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_add %[[F]], %f : memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_sub %[[F]], %f : memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_mul %[[F]], %f : memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_mul %[[K]], %k : memref<i32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_min %[[F]], %f : memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_max unsigned %[[K]], %k : memref<i32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_and %[[K]], %k : memref<i32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_or %[[K]], %k : memref<i32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_xor %[[K]], %k : memref<i32>
taichi.kernel @atomics(%f: f32, %k: i32) {
  %fs = memref.alloca() : memref<f32>
  %ks = memref.alloca() : memref<i32>
  %0 = taichi.atomic_add %fs, %f : memref<f32>
  %1 = taichi.atomic_sub %fs, %f : memref<f32>
  %m = taichi.atomic_mul %fs, %f : memref<f32>
  %n = taichi.atomic_mul %ks, %k : memref<i32>
  %2 = taichi.atomic_min %fs, %f : memref<f32>
  %3 = taichi.atomic_max unsigned %ks, %k : memref<i32>
  %4 = taichi.atomic_and %ks, %k : memref<i32>
  %5 = taichi.atomic_or %ks, %k : memref<i32>
  %6 = taichi.atomic_xor %ks, %k : memref<i32>
  taichi.return
}
