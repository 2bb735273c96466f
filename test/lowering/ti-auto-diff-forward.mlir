// RUN: ti-opt %s -p 'ti-auto-diff{mode=forward}' --split-input-file | filecheck %s

// y[i] = x[i] * x[i]: the load of x also loads x.dual; the product's tangent is
// dx * x + dx * x (the rule of each operand applied to its tangent); the store of y
// stores the tangent into y.dual. The primal stays as it was.
// CHECK-LABEL: taichi.kernel @square_fwd() attributes {tangent_of = @square} {
// CHECK-NEXT:    %[[YD:.*]] = taichi.get_field @y_dual : memref<8xf32>
// CHECK-NEXT:    %[[XD:.*]] = taichi.get_field @x_dual : memref<8xf32>
// CHECK-NEXT:    %[[X:.*]] = taichi.get_field @x : memref<8xf32>
// CHECK-NEXT:    %[[Y:.*]] = taichi.get_field @y : memref<8xf32>
// CHECK-NEXT:    taichi.struct_for (%[[I:.*]]) in %[[X]] : memref<8xf32> {
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[P]][] : memref<f32>
// CHECK-NEXT:      %[[DP:.*]] = taichi.element_ptr %[[XD]][%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      %[[DV:.*]] = memref.load %[[DP]][] : memref<f32>
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:      %[[T0:.*]] = arith.mulf %[[DV]], %[[V]] : f32
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[DV]], %[[V]] : f32
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[DV]], %[[V]] : f32
// CHECK-NEXT:      %[[T1:.*]] = arith.mulf %[[DV]], %[[V]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.addf %[[T0]], %[[T1]] : f32
// CHECK-NEXT:      %[[PY:.*]] = taichi.element_ptr %[[Y]][%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      memref.store %[[SQ]], %[[PY]][] : memref<f32>
// CHECK-NEXT:      %[[DPY:.*]] = taichi.element_ptr %[[YD]][%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      memref.store %[[T]], %[[DPY]][] : memref<f32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.return
// CHECK-NEXT:  }
taichi.field @x : memref<8xf32> offset 0 {dual = @x_dual}
taichi.field @x_dual : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128 {dual = @y_dual}
taichi.field @y_dual : memref<8xf32> offset 192
taichi.kernel @square() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %sq = arith.mulf %v, %v : f32
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %sq, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// A float local carried through a while loop: its twin slot holds the tangent, loaded
// and stored next to it, inside the loop as outside. x has no dual field: its load has
// no tangent, and a store of a value without one stores a zero tangent.
// CHECK-LABEL: taichi.kernel @grow_fwd(%{{.*}}: f32) attributes {tangent_of = @grow} {
// CHECK:         %[[S:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[DS:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[Z]], %[[DS]][] : memref<f32>
// CHECK:         taichi.while {
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:      %[[DV:.*]] = memref.load %[[DS]][] : memref<f32>
// CHECK-NEXT:      %[[W:.*]] = math.sin %[[V]] : f32
// CHECK-NEXT:      %[[COS:.*]] = math.cos %[[V]] : f32
// CHECK-NEXT:      %[[DW:.*]] = arith.mulf %[[DV]], %[[COS]] : f32
// CHECK-NEXT:      memref.store %[[W]], %[[S]][] : memref<f32>
// CHECK-NEXT:      memref.store %[[DW]], %[[DS]][] : memref<f32>
// CHECK:         %[[PX:.*]] = taichi.element_ptr
// CHECK-NEXT:    %[[X:.*]] = memref.load %[[PX]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[X]], %[[S]][] : memref<f32>
// CHECK-NEXT:    %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[Z2]], %[[DS]][] : memref<f32>
taichi.field @x : memref<f32> offset 0
taichi.field @y : memref<f32> offset 64 {dual = @y_dual}
taichi.field @y_dual : memref<f32> offset 128
taichi.kernel @grow(%a: f32) {
  %x = taichi.get_field @x : memref<f32>
  %y = taichi.get_field @y : memref<f32>
  %s = memref.alloca() : memref<f32>
  %py = taichi.element_ptr %y[] : memref<f32> -> memref<f32>
  %y0 = memref.load %py[] : memref<f32>
  memref.store %y0, %s[] : memref<f32>
  taichi.while {
    %v = memref.load %s[] : memref<f32>
    %w = math.sin %v : f32
    memref.store %w, %s[] : memref<f32>
    %go = arith.cmpf olt, %w, %a : f32
    taichi.if %go {
      taichi.break
    }
    taichi.yield
  }
  %px = taichi.element_ptr %x[] : memref<f32> -> memref<f32>
  %xv = memref.load %px[] : memref<f32>
  memref.store %xv, %s[] : memref<f32>
  taichi.return
}

// -----

// The old value of an atomic add on a field with a dual has the old dual as its tangent
// (loaded before the dual's own atomic add); a cast carries its operand's tangent to the
// new width.
// CHECK-LABEL: taichi.kernel @cast_and_old_fwd()
// CHECK:         %[[V:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT:    %[[PXD:.*]] = taichi.element_ptr %x_dual[%i]
// CHECK-NEXT:    %[[TV:.*]] = memref.load %[[PXD]][] : memref<f32>
// CHECK:         %old = taichi.atomic_add %sp, %v : memref<f32>
// CHECK-NEXT:    %[[PSD:.*]] = taichi.element_ptr %s_dual[] : memref<f32> -> memref<f32>
// CHECK-NEXT:    %[[TOLD:.*]] = memref.load %[[PSD]][] : memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_add %[[PSD]], %[[TV]] : memref<f32>
// CHECK-NEXT:    %m = arith.mulf %old, %v : f32
// CHECK-NEXT:    %[[A:.*]] = arith.mulf %[[TOLD]], %v : f32
// CHECK:         %[[B:.*]] = arith.mulf %[[TV]], %old : f32
// CHECK-NEXT:    %[[T:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:    %w = arith.extf %m : f32 to f64
// CHECK-NEXT:    %[[TW:.*]] = arith.extf %[[T]] : f32 to f64
// CHECK:         %[[PYD:.*]] = taichi.element_ptr %y_dual[%i]
// CHECK-NEXT:    memref.store %[[TW]], %[[PYD]][] : memref<f64>
taichi.field @x : memref<8xf32> offset 0 {dual = @x_dual}
taichi.field @x_dual : memref<8xf32> offset 64
taichi.field @y : memref<8xf64> offset 128 {dual = @y_dual}
taichi.field @y_dual : memref<8xf64> offset 192
taichi.field @s : memref<f32> offset 256 {dual = @s_dual}
taichi.field @s_dual : memref<f32> offset 320
taichi.kernel @cast_and_old() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf64>
  %s = taichi.get_field @s : memref<f32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %sp = taichi.element_ptr %s[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %sp, %v : memref<f32>
    %m = arith.mulf %old, %v : f32
    %w = arith.extf %m : f32 to f64
    %q = taichi.element_ptr %y[%i] : memref<8xf64> -> memref<f64>
    memref.store %w, %q[] : memref<f64>
    taichi.yield
  }
  taichi.return
}

// -----

// An ndarray argument has no dual: its element is a constant of the tangent kernel.
// CHECK-LABEL: taichi.kernel @from_array_fwd(%a: memref<8xf32>)
// CHECK:         %[[PD:.*]] = taichi.element_ptr %x_dual[%i]
// CHECK-NEXT:    %[[TV:.*]] = memref.load %[[PD]][] : memref<f32>
// CHECK-NEXT:    %q = taichi.element_ptr %a[%i] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %w = memref.load %q[] : memref<f32>
// CHECK-NEXT:    %m = arith.mulf %v, %w : f32
// CHECK-NEXT:    %[[T:.*]] = arith.mulf %[[TV]], %w : f32
// CHECK:         memref.store %[[T]], %{{.*}}[] : memref<f32>
taichi.field @x : memref<8xf32> offset 0 {dual = @x_dual}
taichi.field @x_dual : memref<8xf32> offset 64
taichi.kernel @from_array(%a: memref<8xf32>) {
  %x = taichi.get_field @x : memref<8xf32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %q = taichi.element_ptr %a[%i] : memref<8xf32> -> memref<f32>
    %w = memref.load %q[] : memref<f32>
    %m = arith.mulf %v, %w : f32
    memref.store %m, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
