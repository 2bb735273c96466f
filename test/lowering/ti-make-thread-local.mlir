// RUN: ti-opt %s -p ti-make-thread-local | filecheck %s

taichi.field @total : memref<f32> offset 0
taichi.field @h : memref<8xi32> offset 4
taichi.field @d : memref<f64> offset 40
taichi.field @half : memref<f16> offset 48

// A sum into a 0-d field: the body adds into thread-local slot 0 (plain load, add,
// store), the prologue zeroes it, the epilogue adds it to the field once.
// CHECK-LABEL: offload.kernel @sum
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[TL:.*]] = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:      %[[V:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %[[TL]][] : memref<f32>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %[[V]] : f32
// CHECK-NEXT:      memref.store %[[NEW]], %[[TL]][] : memref<f32>
// CHECK-NEXT:    } prologue {
// CHECK-NEXT:      %[[TL:.*]] = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %[[ZERO]], %[[TL]][] : memref<f32>
// CHECK-NEXT:    } epilogue {
// CHECK-NEXT:      %[[TL:.*]] = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:      %[[ACC:.*]] = memref.load %[[TL]][] : memref<f32>
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[P]], %[[ACC]] : memref<f32>
// CHECK-NEXT:    }
offload.kernel @sum : (f32) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1024 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %v = offload.arg 0 : f32
    %t = taichi.get_field @total : memref<f32>
    %p = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %p, %v : memref<f32>
  }
}

// min and max start from the type's extreme values (+inf, INT_MAX, unsigned 0) and
// combine with the same atomic in the epilogue. Slots take offsets in order, aligned:
// i32 at 0, i32 at 4, f64 at 8.
// CHECK-LABEL: offload.kernel @min_max
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[S0:.*]] = offload.thread_local 0 : memref<i32>
// CHECK-NEXT:      %[[S4:.*]] = offload.thread_local 4 : memref<i32>
// CHECK-NEXT:      %[[S8:.*]] = offload.thread_local 8 : memref<f64>
// Each atomic updates its own slot with its own (signed, unsigned, float) op.
// CHECK:           %[[O0:.*]] = memref.load %[[S0]][] : memref<i32>
// CHECK-NEXT:      %[[N0:.*]] = arith.minsi %[[O0]], %[[I]] : i32
// CHECK-NEXT:      memref.store %[[N0]], %[[S0]][] : memref<i32>
// CHECK-NEXT:      %[[O1:.*]] = memref.load %[[S4]][] : memref<i32>
// CHECK-NEXT:      %[[N1:.*]] = arith.maxui %[[O1]], %[[I]] : i32
// CHECK-NEXT:      memref.store %[[N1]], %[[S4]][] : memref<i32>
// CHECK:           %[[V:.*]] = offload.arg 1 : f64
// CHECK-NEXT:      %[[O2:.*]] = memref.load %[[S8]][] : memref<f64>
// CHECK-NEXT:      %[[N2:.*]] = arith.maxnumf %[[O2]], %[[V]] : f64
// CHECK-NEXT:      memref.store %[[N2]], %[[S8]][] : memref<f64>
// CHECK-NEXT:    } prologue {
// CHECK-NEXT:      %[[A:.*]] = offload.thread_local 0 : memref<i32>
// CHECK-NEXT:      %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:      memref.store %[[MAX]], %[[A]][] : memref<i32>
// CHECK-NEXT:      %[[B:.*]] = offload.thread_local 4 : memref<i32>
// CHECK-NEXT:      %[[UZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      memref.store %[[UZERO]], %[[B]][] : memref<i32>
// CHECK-NEXT:      %[[C:.*]] = offload.thread_local 8 : memref<f64>
// CHECK-NEXT:      %[[NINF:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK-NEXT:      memref.store %[[NINF]], %[[C]][] : memref<f64>
// Slot 0 goes to h[0] (min), slot 4 to h[1] (unsigned max), slot 8 to d (max).
// CHECK-NEXT:    } epilogue {
// CHECK-NEXT:      %[[E0:.*]] = offload.thread_local 0 : memref<i32>
// CHECK-NEXT:      %[[A0:.*]] = memref.load %[[E0]][] : memref<i32>
// CHECK-NEXT:      %[[H:.*]] = taichi.get_field @h : memref<8xi32>
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[P0:.*]] = taichi.element_ptr %[[H]][%[[C0]]] : memref<8xi32> -> memref<i32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_min %[[P0]], %[[A0]] : memref<i32>
// CHECK-NEXT:      %[[E4:.*]] = offload.thread_local 4 : memref<i32>
// CHECK-NEXT:      %[[A4:.*]] = memref.load %[[E4]][] : memref<i32>
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[P1:.*]] = taichi.element_ptr %[[H]][%[[C1]]] : memref<8xi32> -> memref<i32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_max unsigned %[[P1]], %[[A4]] : memref<i32>
// CHECK-NEXT:      %[[E8:.*]] = offload.thread_local 8 : memref<f64>
// CHECK-NEXT:      %[[A8:.*]] = memref.load %[[E8]][] : memref<f64>
// CHECK-NEXT:      %[[D:.*]] = taichi.get_field @d : memref<f64>
// CHECK-NEXT:      %[[PD:.*]] = taichi.element_ptr %[[D]][] : memref<f64> -> memref<f64>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_max %[[PD]], %[[A8]] : memref<f64>
// CHECK-NEXT:    }
offload.kernel @min_max : (i32, f64) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1024 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %h = taichi.get_field @h : memref<8xi32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %p0 = taichi.element_ptr %h[%c0] : memref<8xi32> -> memref<i32>
    %p1 = taichi.element_ptr %h[%c1] : memref<8xi32> -> memref<i32>
    %old0 = taichi.atomic_min %p0, %i : memref<i32>
    %old1 = taichi.atomic_max unsigned %p1, %i : memref<i32>
    %d = taichi.get_field @d : memref<f64>
    %pd = taichi.element_ptr %d[] : memref<f64> -> memref<f64>
    %v = offload.arg 1 : f64
    %old2 = taichi.atomic_max %pd, %v : memref<f64>
  }
}

// add and sub on one place share a slot: sub subtracts from it, the epilogue adds it.
// h[3] at a constant index qualifies; h[5] is another element and does not get in the
// way. A conditional contribution is fine.
// CHECK-LABEL: offload.kernel @add_and_sub
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[TL:.*]] = offload.thread_local 0 : memref<i32>
// CHECK:           taichi.if %{{.*}} {
// CHECK-NEXT:        %[[A:.*]] = memref.load %[[TL]][] : memref<i32>
// CHECK-NEXT:        %[[B:.*]] = arith.addi %[[A]], %[[I]] : i32
// CHECK-NEXT:        memref.store %[[B]], %[[TL]][] : memref<i32>
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[C:.*]] = memref.load %[[TL]][] : memref<i32>
// CHECK-NEXT:      %[[D:.*]] = arith.subi %[[C]], %{{.*}} : i32
// CHECK-NEXT:      memref.store %[[D]], %[[TL]][] : memref<i32>
// CHECK-NEXT:      memref.store %[[I]], %{{.*}}[] : memref<i32>
// CHECK-NEXT:    } prologue {
// CHECK:         } epilogue {
// CHECK-NEXT:      %[[TL:.*]] = offload.thread_local 0 : memref<i32>
// CHECK-NEXT:      %[[ACC:.*]] = memref.load %[[TL]][] : memref<i32>
// CHECK-NEXT:      %[[H:.*]] = taichi.get_field @h : memref<8xi32>
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[H]][%[[C3]]] : memref<8xi32> -> memref<i32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[P]], %[[ACC]] : memref<i32>
// CHECK-NEXT:    }
offload.kernel @add_and_sub : (i1) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1024 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %c = offload.arg 0 : i1
    %h = taichi.get_field @h : memref<8xi32>
    %c3 = arith.constant 3 : i32
    %c5 = arith.constant 5 : i32
    %p = taichi.element_ptr %h[%c3] : memref<8xi32> -> memref<i32>
    %q = taichi.element_ptr %h[%c5] : memref<8xi32> -> memref<i32>
    taichi.if %c {
      %old0 = taichi.atomic_add %p, %i : memref<i32>
      taichi.yield
    }
    %old1 = taichi.atomic_sub %p, %c5 : memref<i32>
    memref.store %i, %q[] : memref<i32>
  }
}

// Must not fire when the place is read in the task, when the old value is used, when
// the place depends on the loop index (a histogram), or when another access may alias
// it (h[%i] may be h[2]).
// CHECK-LABEL: offload.kernel @kept
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[V:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[P]], %[[V]] : memref<f32>
// CHECK-NEXT:      %[[SEEN:.*]] = memref.load %[[P]][] : memref<f32>
// CHECK-NEXT:      taichi.print "{}" %[[SEEN]] : f32
// CHECK-NEXT:      %[[D:.*]] = taichi.get_field @d : memref<f64>
// CHECK-NEXT:      %[[PD:.*]] = taichi.element_ptr %[[D]][] : memref<f64> -> memref<f64>
// CHECK-NEXT:      %[[W:.*]] = offload.arg 1 : f64
// CHECK-NEXT:      %[[OLD:.*]] = taichi.atomic_max %[[PD]], %[[W]] : memref<f64>
// CHECK-NEXT:      taichi.print "{}" %[[OLD]] : f64
// CHECK-NEXT:      %[[H:.*]] = taichi.get_field @h : memref<8xi32>
// CHECK-NEXT:      %[[PH:.*]] = taichi.element_ptr %[[H]][%[[I]]] : memref<8xi32> -> memref<i32>
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[PH]], %[[ONE]] : memref<i32>
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[P2:.*]] = taichi.element_ptr %[[H]][%[[C2]]] : memref<8xi32> -> memref<i32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[P2]], %[[ONE]] : memref<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
offload.kernel @kept : (f32, f64) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %v = offload.arg 0 : f32
    %t = taichi.get_field @total : memref<f32>
    %p = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %p, %v : memref<f32>
    %seen = memref.load %p[] : memref<f32>
    taichi.print "{}" %seen : f32
    %d = taichi.get_field @d : memref<f64>
    %pd = taichi.element_ptr %d[] : memref<f64> -> memref<f64>
    %w = offload.arg 1 : f64
    %old2 = taichi.atomic_max %pd, %w : memref<f64>
    taichi.print "{}" %old2 : f64
    %h = taichi.get_field @h : memref<8xi32>
    %ph = taichi.element_ptr %h[%i] : memref<8xi32> -> memref<i32>
    %one = arith.constant 1 : i32
    %old3 = taichi.atomic_add %ph, %one : memref<i32>
    %c2 = arith.constant 2 : i32
    %p2 = taichi.element_ptr %h[%c2] : memref<8xi32> -> memref<i32>
    %old4 = taichi.atomic_add %p2, %one : memref<i32>
  }
}

// An f16 sum stays atomic: per-thread partial sums would round differently from
// Taichi's update-by-update sum.
// CHECK-LABEL: offload.kernel @half_sum
// CHECK:         offload.range_for %{{.*}} = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[V:.*]] = offload.arg 0 : f16
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @half : memref<f16>
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[T]][] : memref<f16> -> memref<f16>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[P]], %[[V]] : memref<f16>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
offload.kernel @half_sum : (f16) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %v = offload.arg 0 : f16
    %t = taichi.get_field @half : memref<f16>
    %p = taichi.element_ptr %t[] : memref<f16> -> memref<f16>
    %old = taichi.atomic_add %p, %v : memref<f16>
  }
}

// Must not fire in a serial task (ti-demote-atomics handles those) nor in a struct_for
// task (no prologue or epilogue to use).
// CHECK-LABEL: offload.kernel @not_range_for
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[V:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[P]], %[[V]] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    offload.struct_for @h : memref<8xi32> {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[P]], %[[V]] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
offload.kernel @not_range_for : (f32) -> () {
  offload.serial {
    %v = offload.arg 0 : f32
    %t = taichi.get_field @total : memref<f32>
    %p = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %p, %v : memref<f32>
  }
  offload.struct_for @h : memref<8xi32> {
  ^bb0(%i: i32):
    %v = offload.arg 0 : f32
    %t = taichi.get_field @total : memref<f32>
    %p = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %p, %v : memref<f32>
  }
}

// A product is not made a reduction (Taichi reduces add/sub/min/max only): a result-
// unused multiply of one place stays atomic.
// CHECK-LABEL: offload.kernel @product
// CHECK:         offload.range_for
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %[[V:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %{{.*}} = taichi.atomic_mul %[[P]], %[[V]] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NOT:     offload.thread_local
offload.kernel @product : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %t = taichi.get_field @total : memref<f32>
    %p = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %v = arith.constant 2.0 : f32
    %old = taichi.atomic_mul %p, %v : memref<f32>
  }
}

// A task that already has a thread-local slot (0, an i32): the new slot starts after it.
// CHECK-LABEL: offload.kernel @after_a_slot
// CHECK:         offload.range_for %{{.*}} = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = offload.thread_local 4 : memref<f32>
// CHECK-NEXT:      %{{.*}} = offload.thread_local 0 : memref<i32>
// CHECK:         } prologue {
// CHECK-NEXT:      %{{.*}} = offload.thread_local 4 : memref<f32>
offload.kernel @after_a_slot : (f32) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1024 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %s = offload.thread_local 0 : memref<i32>
    memref.store %i, %s[] : memref<i32>
    %v = offload.arg 0 : f32
    %t = taichi.get_field @total : memref<f32>
    %p = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %p, %v : memref<f32>
  }
}

// An unsigned min starts from all bits set (-1, the largest u32).
// CHECK-LABEL: offload.kernel @umin
// CHECK:         } prologue {
// CHECK-NEXT:      %[[S:.*]] = offload.thread_local 0 : memref<i32>
// CHECK-NEXT:      %[[ID:.*]] = arith.constant -1 : i32
// CHECK-NEXT:      memref.store %[[ID]], %[[S]][] : memref<i32>
offload.kernel @umin : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1024 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %h = taichi.get_field @h : memref<8xi32>
    %c0 = arith.constant 0 : i32
    %p = taichi.element_ptr %h[%c0] : memref<8xi32> -> memref<i32>
    %old = taichi.atomic_min unsigned %p, %i : memref<i32>
  }
}

// A task that calls a real function keeps its reductions atomic: the function may read
// or write the same place.
// CHECK-LABEL: offload.kernel @calls
// CHECK-NOT:     offload.thread_local
// CHECK:         %{{.*}} = taichi.atomic_add %{{.*}}, %{{.*}} : memref<f32>
// CHECK-NEXT:    func.call @calls__fn0_peek() : () -> f32
// CHECK-NOT:     prologue
func.func private @calls__fn0_peek() -> f32 {
  %t = taichi.get_field @total : memref<f32>
  %p = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
  %v = memref.load %p[] : memref<f32>
  func.return %v : f32
}
offload.kernel @calls : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1024 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %one = arith.constant 1.0 : f32
    %t = taichi.get_field @total : memref<f32>
    %p = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %p, %one : memref<f32>
    %seen = func.call @calls__fn0_peek() : () -> f32
  }
}
