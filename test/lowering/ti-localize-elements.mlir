// RUN: ti-opt %s -p ti-localize-elements | filecheck %s

// A clamp against both bounds (Taichi's diff_sph boundary_handle): the element becomes a
// local; only its first load stays global, and its last value is stored back at the end
// of the loop body.
// CHECK-LABEL: taichi.kernel @clamp_twice
// CHECK:         %[[P:.*]] = taichi.element_ptr %{{.*}}[%{{.*}}] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[P]][] : memref<f32>
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    memref.store %[[V]], %[[S]][] : memref<f32>
// CHECK-NEXT:    %[[C:.*]] = arith.cmpf olt, %[[V]], %[[LO:.*]] : f32
// CHECK-NEXT:    taichi.if %[[C]] {
// CHECK-NEXT:      memref.store %[[LO]], %[[S]][] : memref<f32>
// CHECK:         %[[W:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:    %[[D:.*]] = arith.cmpf ogt, %[[W]], %[[HI:.*]] : f32
// CHECK-NEXT:    taichi.if %[[D]] {
// CHECK-NEXT:      memref.store %[[HI]], %[[S]][] : memref<f32>
// CHECK:         %[[LAST:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[LAST]], %[[P]][] : memref<f32>
// CHECK-NEXT:    taichi.yield
taichi.field @x : memref<8xf32> offset 0
taichi.kernel @clamp_twice(%lo: f32, %hi: f32) {
  %x = taichi.get_field @x : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %c = arith.cmpf olt, %v, %lo : f32
    taichi.if %c {
      memref.store %lo, %p[] : memref<f32>
      taichi.yield
    }
    %w = memref.load %p[] : memref<f32>
    %d = arith.cmpf ogt, %w, %hi : f32
    taichi.if %d {
      memref.store %hi, %p[] : memref<f32>
      taichi.yield
    }
    taichi.yield
  }
  taichi.return
}

// Components 0 and 1 of one vector element are different elements: both are localized.
// CHECK-LABEL: taichi.kernel @two_components
// CHECK-COUNT-2: memref.alloca() : memref<f32>
taichi.field @v : memref<8x2xf32> offset 64
taichi.kernel @two_components(%a: f32) {
  %v = taichi.get_field @v : memref<8x2xf32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %n = arith.constant 8 : i32
  taichi.range_for %i = %zero to %n : i32 {
    %p = taichi.element_ptr %v[%i, %zero] : memref<8x2xf32> -> memref<f32>
    %q = taichi.element_ptr %v[%i, %one] : memref<8x2xf32> -> memref<f32>
    %x = memref.load %p[] : memref<f32>
    %y = memref.load %q[] : memref<f32>
    memref.store %a, %p[] : memref<f32>
    memref.store %a, %q[] : memref<f32>
    %z = memref.load %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// x[i] and x[i + 1] may be one element (in another iteration): nothing changes.
// CHECK-LABEL: taichi.kernel @maybe_aliased
// CHECK-NOT:     memref.alloca
// CHECK:         taichi.return
taichi.kernel @maybe_aliased(%a: f32) {
  %x = taichi.get_field @x : memref<8xf32>
  %one = arith.constant 1 : i32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %j = arith.addi %i, %one : i32
    %q = taichi.element_ptr %x[%j] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    memref.store %v, %q[] : memref<f32>
    memref.store %a, %p[] : memref<f32>
    %w = memref.load %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// The first access is a store inside an `if`: a load before it would read an element the
// kernel may never have touched; nothing changes. So too for an element that an atomic
// updates, and for one a `continue` may leave before the end of the body.
// CHECK-LABEL: taichi.kernel @first_access_conditional
// CHECK-NOT:     memref.alloca
// CHECK:         taichi.return
taichi.kernel @first_access_conditional(%a: f32, %c: i1) {
  %x = taichi.get_field @x : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    taichi.if %c {
      memref.store %a, %p[] : memref<f32>
      taichi.yield
    }
    %v = memref.load %p[] : memref<f32>
    memref.store %v, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// CHECK-LABEL: taichi.kernel @atomic_on_element
// CHECK-NOT:     memref.alloca
// CHECK:         taichi.return
taichi.kernel @atomic_on_element(%a: f32) {
  %x = taichi.get_field @x : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    memref.store %v, %p[] : memref<f32>
    %old = taichi.atomic_add %p, %a : memref<f32>
    taichi.yield
  }
  taichi.return
}

// CHECK-LABEL: taichi.kernel @continue_in_body
// CHECK-NOT:     memref.alloca
// CHECK:         taichi.return
taichi.kernel @continue_in_body(%a: f32, %c: i1) {
  %x = taichi.get_field @x : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    memref.store %a, %p[] : memref<f32>
    taichi.if %c {
      taichi.continue
    }
    %w = memref.load %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
