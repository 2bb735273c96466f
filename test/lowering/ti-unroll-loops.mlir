// RUN: ti-opt %s -p ti-unroll-loops | filecheck %s
// RUN: ti-opt %s -p 'ti-unroll-loops{factor=2}' | filecheck %s --check-prefix=TWO
// RUN: ti-opt %s -p 'ti-unroll-loops{factor=2 max_ops=2}' | filecheck %s --check-prefix=MAX
// RUN: ti-opt %s -p 'ti-unroll-loops{factor=1}' | filecheck %s --check-prefix=FACTOR1
// RUN: ti-opt %s -p 'ti-unroll-loops,canonicalize' | filecheck %s --check-prefix=CANON

taichi.field @x : memref<16xf32> offset 0

// Ten iterations, factor 4: two iterations of four copies (indices 4k+0..4k+3), then
// a loop over the last two with the original body.
// CHECK-LABEL: offload.kernel @ten
// CHECK:         %[[HI:.*]] = arith.constant 10 : i32
// CHECK:         %[[K0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    taichi.range_for %[[K:.*]] = %[[K0]] to %[[K1]] : i32 {
// CHECK-NEXT:      %[[F:.*]] = arith.constant 4 : i32
// CHECK-NEXT:      %[[B:.*]] = arith.muli %[[K]], %[[F]] : i32
// CHECK-NEXT:      %[[O0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[J0:.*]] = arith.addi %[[B]], %[[O0]] : i32
// CHECK-NEXT:      %[[P0:.*]] = taichi.element_ptr %{{.*}}[%[[J0]]]
// CHECK-NEXT:      %[[V0:.*]] = memref.load %[[P0]][] : memref<f32>
// CHECK-NEXT:      %[[A0:.*]] = memref.load %[[ACC:.*]][] : memref<f32>
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %[[A0]], %[[V0]] : f32
// CHECK-NEXT:      memref.store %[[S0]], %[[ACC]][] : memref<f32>
// CHECK-NEXT:      %[[O1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[J1:.*]] = arith.addi %[[B]], %[[O1]] : i32
// CHECK-NEXT:      %[[P1:.*]] = taichi.element_ptr %{{.*}}[%[[J1]]]
// CHECK:           %{{.*}} = arith.constant 2 : i32
// CHECK:           %{{.*}} = arith.constant 3 : i32
// CHECK:           memref.store
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[REST:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    taichi.range_for %[[J:.*]] = %[[REST]] to %[[HI]] : i32 {
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr %{{.*}}[%[[J]]]
// CHECK:           taichi.yield
// CHECK-NEXT:    }
// TWO-LABEL:   offload.kernel @ten
// TWO:           %[[K1:.*]] = arith.constant 5 : i32
// TWO:           arith.constant 2 : i32
// TWO-NOT:       taichi.range_for
// TWO:           offload.set_return
offload.kernel @ten : () -> f32 {
  offload.serial {
    %lo = arith.constant 0 : i32
    %hi = arith.constant 10 : i32
    %x = taichi.get_field @x : memref<16xf32>
    %acc = memref.alloca() : memref<f32>
    taichi.range_for %j = %lo to %hi : i32 {
      %p = taichi.element_ptr %x[%j] : memref<16xf32> -> memref<f32>
      %v = memref.load %p[] : memref<f32>
      %a = memref.load %acc[] : memref<f32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[] : memref<f32>
      taichi.yield
    }
    %r = memref.load %acc[] : memref<f32>
    offload.set_return 0, %r : f32
  }
}

// Left alone: bounds not constant, fewer iterations than the factor, a break, a nested
// loop (only innermost loops are unrolled).
// CHECK-LABEL: offload.kernel @kept
// CHECK-COUNT-5: taichi.range_for %{{.*}} = %{{.*}} to %{{.*}} : i32 {
// CHECK-NOT:     arith.muli
offload.kernel @kept : (i32) -> () {
  offload.serial {
    %lo = arith.constant 0 : i32
    %three = arith.constant 3 : i32
    %eight = arith.constant 8 : i32
    %n = offload.arg 0 : i32
    %x = taichi.get_field @x : memref<16xf32>
    taichi.range_for %a = %lo to %n : i32 {
      taichi.yield
    }
    taichi.range_for %b = %lo to %three : i32 {
      %p = taichi.element_ptr %x[%b] : memref<16xf32> -> memref<f32>
      %v = memref.load %p[] : memref<f32>
      memref.store %v, %p[] : memref<f32>
      taichi.yield
    }
    taichi.range_for %c = %lo to %eight : i32 {
      taichi.break
    }
    taichi.range_for %d = %lo to %eight : i32 {
      taichi.range_for %e = %lo to %n : i32 {
        taichi.yield
      }
      taichi.yield
    }
  }
}

// Fewer trips than the factor halve the copies: 3 to 5 is two trips, one trip of two
// copies (indices 3 and 4, whatever the bounds add up to). Exactly the factor's trips
// (2 to 6) unroll: one trip of four copies. Left alone: a loop outside any task (not yet
// offloaded: its bounds may change).
// CHECK-LABEL: offload.kernel @bounds
// CHECK:         %[[ONE2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    taichi.range_for %[[K2:.*]] = %{{.*}} to %[[ONE2]] : i32 {
// CHECK-NEXT:      %[[F2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[B2:.*]] = arith.muli %[[K2]], %[[F2]] : i32
// CHECK-NEXT:      %[[O3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:      %{{.*}} = arith.addi %[[B2]], %[[O3]] : i32
// CHECK-NEXT:      %[[O4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:      %{{.*}} = arith.addi %[[B2]], %[[O4]] : i32
// CHECK-NEXT:      taichi.yield
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    taichi.range_for %{{.*}} = %{{.*}} to %[[ONE]] : i32 {
// CHECK-COUNT-4:   "test.op"(%{{.*}}) : (i32) -> ()
// CHECK-LABEL: taichi.kernel @outside
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    %{{.*}} = arith.constant 8 : i32
// CHECK-NEXT:    taichi.range_for
// CHECK-NEXT:      "test.op"
// CHECK-NEXT:      taichi.yield
offload.kernel @bounds : () -> () {
  offload.serial {
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c5 = arith.constant 5 : i32
    %c6 = arith.constant 6 : i32
    taichi.range_for %a = %c3 to %c5 : i32 {
      taichi.yield
    }
    taichi.range_for %b = %c2 to %c6 : i32 {
      "test.op"(%b) : (i32) -> ()
      taichi.yield
    }
  }
}
taichi.kernel @outside() {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    "test.op"(%i) : (i32) -> ()
    taichi.yield
  }
  taichi.return
}

// The body budget counts every op of the body, its yield too: two ops fit max_ops=2
// (unrolled), three do not.
// MAX-LABEL: offload.kernel @budget
// MAX:         %[[N2:.*]] = arith.constant 2 : i32
// MAX-NEXT:    taichi.range_for %{{.*}} = %{{.*}} to %[[N2]] : i32 {
// MAX-COUNT-2:   "test.op"(%{{.*}}) : (i32) -> ()
// MAX:         taichi.range_for %[[J:.*]] = %{{.*}} to %{{.*}} : i32 {
// MAX-NEXT:      "test.op"(%[[J]]) : (i32) -> ()
// MAX-NEXT:      "test.op"(%[[J]]) : (i32) -> ()
// MAX-NEXT:      taichi.yield
offload.kernel @budget : () -> () {
  offload.serial {
    %lo = arith.constant 0 : i32
    %hi = arith.constant 4 : i32
    taichi.range_for %i = %lo to %hi : i32 {
      "test.op"(%i) : (i32) -> ()
      taichi.yield
    }
    taichi.range_for %j = %lo to %hi : i32 {
      "test.op"(%j) : (i32) -> ()
      "test.op"(%j) : (i32) -> ()
      taichi.yield
    }
  }
}

// A factor below 2 unrolls nothing. A loop unrolled whole is gone, uses and all: its
// bounds are then unused and canonicalize removes them.
// FACTOR1-LABEL: offload.kernel @whole
// FACTOR1-NEXT:    offload.serial {
// FACTOR1-NEXT:      %{{.*}} = arith.constant 0 : i32
// FACTOR1-NEXT:      %{{.*}} = arith.constant 8 : i32
// FACTOR1-NEXT:      taichi.range_for
// CANON-LABEL: offload.kernel @whole
// CANON-NOT:     arith.constant 8 : i32
// CANON:         taichi.range_for
offload.kernel @whole : () -> () {
  offload.serial {
    %lo = arith.constant 0 : i32
    %hi = arith.constant 8 : i32
    taichi.range_for %i = %lo to %hi : i32 {
      "test.op"(%i) : (i32) -> ()
      taichi.yield
    }
  }
}
