// RUN: ti-opt %s -p ti-auto-diff --split-input-file | filecheck %s
// Run again, the pass changes nothing: a kernel already differentiated, and the derived
// kernels themselves, are skipped.
// RUN: ti-opt %s -p ti-auto-diff,ti-auto-diff --split-input-file | filecheck %s

// The seed's Tape example: loss += x[i]^2. The adjoint replays the body, reads the
// gradient of the atomic's destination and adds 2 * x[i] * loss.grad into x.grad.
// CHECK-LABEL: taichi.kernel @sum_sq_grad() attributes {adjoint_of = @sum_sq} {
// CHECK-NEXT:    %[[XG:.*]] = taichi.get_field @x_grad : memref<8xf32>
// CHECK-NEXT:    %[[LG:.*]] = taichi.get_field @loss_grad : memref<f32>
// CHECK-NEXT:    %[[X:.*]] = taichi.get_field @x : memref<8xf32>
// CHECK-NEXT:    %{{.*}} = taichi.get_field @loss : memref<f32>
// CHECK-NEXT:    taichi.struct_for (%[[I:.*]]) in %[[X]] : memref<8xf32> {
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[P]][] : memref<f32>
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr
// CHECK-NEXT:      %[[LP:.*]] = taichi.element_ptr %[[LG]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[LP]][] : memref<f32>
// CHECK-NEXT:      %[[D0:.*]] = arith.mulf %[[A]], %[[V]] : f32
// CHECK-NEXT:      %[[D1:.*]] = arith.mulf %[[A]], %[[V]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.addf %[[D0]], %[[D1]] : f32
// CHECK-NEXT:      %[[XP:.*]] = taichi.element_ptr %[[XG]][%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[XP]], %[[D]] : memref<f32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.return
// CHECK-NEXT:  }
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @loss : memref<f32> offset 128 {grad = @loss_grad}
taichi.field @loss_grad : memref<f32> offset 192
taichi.kernel @sum_sq() {
  %x = taichi.get_field @x : memref<8xf32>
  %loss = taichi.get_field @loss : memref<f32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %sq = arith.mulf %v, %v : f32
    %l = taichi.element_ptr %loss[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %l, %sq : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// y[i] = sin(x[i]) * a + c[i]: the global store reads y.grad, then zeroes it (the store
// overwrote y[i]: no earlier store may receive that gradient); the replay drops the store;
// c has no gradient, so its load gets no adjoint; a scalar argument gets none either.
// CHECK-LABEL: taichi.kernel @scaled_sin_grad(%{{.*}}: f32) attributes {adjoint_of = @scaled_sin} {
// CHECK-NEXT:    %[[XG:.*]] = taichi.get_field @x_grad : memref<8xf32>
// CHECK-NEXT:    %[[YG:.*]] = taichi.get_field @y_grad : memref<8xf32>
// CHECK:         taichi.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK:           %[[V:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK:           %[[S:.*]] = math.sin %[[V]] : f32
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[S]], %[[A:.*]] : f32
// CHECK-NEXT:      %{{.*}} = arith.addf
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr
// CHECK-NOT:       memref.store
// CHECK-NEXT:      %[[YP:.*]] = taichi.element_ptr %[[YG]][%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      %[[DY:.*]] = memref.load %[[YP]][] : memref<f32>
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %[[ZERO]], %[[YP]][] : memref<f32>
// CHECK-NEXT:      %[[DM:.*]] = arith.mulf %[[DY]], %[[A]] : f32
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[DY]], %[[S]] : f32
// CHECK-NEXT:      %[[COS:.*]] = math.cos %[[V]] : f32
// CHECK-NEXT:      %[[DX:.*]] = arith.mulf %[[DM]], %[[COS]] : f32
// CHECK-NEXT:      %[[XP:.*]] = taichi.element_ptr %[[XG]][%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[XP]], %[[DX]] : memref<f32>
// CHECK-NEXT:      taichi.yield
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 192
taichi.field @c : memref<8xf32> offset 256
taichi.kernel @scaled_sin(%a: f32) {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %c = taichi.get_field @c : memref<8xf32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %px = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %pc = taichi.element_ptr %c[%i] : memref<8xf32> -> memref<f32>
    %w = memref.load %pc[] : memref<f32>
    %s = math.sin %v : f32
    %m = arith.mulf %s, %a : f32
    %r = arith.addf %m, %w : f32
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %r, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// A local written in both branches: the reverse if restores the local into a fresh
// slot, replays its branch, and moves the local's adjoint (a slot) into the branch's
// value; x's adjoint, used in nested regions, lives in a slot too.
// CHECK-LABEL: taichi.kernel @branch_grad() attributes {adjoint_of = @branch} {
// CHECK:         %[[C:.*]] = arith.cmpf ogt, %[[V:.*]], %{{.*}} : f32
// CHECK:         %[[SADJ:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[Z0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[Z0]], %[[SADJ]][] : memref<f32>
// CHECK-NEXT:    %[[VADJ:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[Z1:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[Z1]], %[[VADJ]][] : memref<f32>
// CHECK-NEXT:    %[[YP:.*]] = taichi.element_ptr %{{.*}}[%{{.*}}] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %[[DY:.*]] = memref.load %[[YP]][] : memref<f32>
// CHECK-NEXT:    %[[ZY:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[ZY]], %[[YP]][] : memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_add %[[SADJ]], %[[DY]] : memref<f32>
// CHECK-NEXT:    taichi.if %[[C]] {
// CHECK-NEXT:      %{{.*}} = memref.alloca() : memref<f32>
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[V]] : f32
// CHECK-NEXT:      memref.store %[[E]], %{{.*}}[] : memref<f32>
// CHECK-NEXT:      %[[DS:.*]] = memref.load %[[SADJ]][] : memref<f32>
// CHECK-NEXT:      %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %[[Z2]], %[[SADJ]][] : memref<f32>
// CHECK-NEXT:      %[[DE:.*]] = arith.mulf %[[DS]], %[[E]] : f32
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[VADJ]], %[[DE]] : memref<f32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    } else {
// CHECK:           %[[DS2:.*]] = memref.load %[[SADJ]][] : memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[VADJ]], %[[DS2]] : memref<f32>
// CHECK:         }
// CHECK-NEXT:    %[[DV:.*]] = memref.load %[[VADJ]][] : memref<f32>
// CHECK-NEXT:    %[[XP:.*]] = taichi.element_ptr %{{.*}}[%{{.*}}] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_add %[[XP]], %[[DV]] : memref<f32>
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 192
taichi.kernel @branch() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %zero = arith.constant 0.000000e+00 : f32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %s = memref.alloca() : memref<f32>
    %px = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %c = arith.cmpf ogt, %v, %zero : f32
    taichi.if %c {
      %e = math.exp %v : f32
      memref.store %e, %s[] : memref<f32>
      taichi.yield
    } else {
      memref.store %v, %s[] : memref<f32>
      taichi.yield
    }
    %r = memref.load %s[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %r, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// s = s * x[i], n times (dynamic trip count, loop-carried local): the replay pushes s at
// the start of each iteration onto an adstack (1024 values: the bounds are not
// constants and ad_stack_size is 0), asserting, in every mode, that it fits; the
// reverse loop runs j = n - 1 down to 0, each iteration popping s back, then reversing
// iteration j (linear in n).
// CHECK-LABEL: taichi.kernel @power_grad(%{{.*}}: i32) attributes {adjoint_of = @power} {
// CHECK:         memref.store %{{.*}}, %[[S:.*]][] : memref<f32>
// CHECK-NEXT:    %[[SNAP:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:    %[[STACK:.*]] = taichi.adstack_alloca : !taichi.adstack<f32, 1024>
// CHECK-NEXT:    taichi.range_for %{{.*}} = %[[LO:.*]] to %[[N:.*]] : i32 {
// CHECK-NEXT:      %[[CUR:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:      %[[FITS:.*]] = taichi.adstack_push %[[STACK]], %[[CUR]] : !taichi.adstack<f32, 1024>
// CHECK-NEXT:      taichi.assert %[[FITS]], "adstack overflow: a loop of kernel 'power' ran more than 1024 iterations, the values its adjoint keeps for it; raise ti.init(ad_stack_size=...)" always
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[LO]], %[[N]] : i32
// CHECK-NEXT:    %[[LAST:.*]] = arith.subi %[[SUM]], %[[ONE]] : i32
// CHECK-NEXT:    taichi.range_for %[[JR:.*]] = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:      %[[J:.*]] = arith.subi %[[LAST]], %[[JR]] : i32
// CHECK-NEXT:      %[[FRESH:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:      memref.store %[[SNAP]], %[[FRESH]][] : memref<f32>
// CHECK-NEXT:      %[[TOP:.*]] = taichi.adstack_load_top %[[STACK]] : !taichi.adstack<f32, 1024> -> f32
// CHECK-NEXT:      memref.store %[[TOP]], %[[FRESH]][] : memref<f32>
// CHECK-NEXT:      taichi.adstack_pop %[[STACK]] : !taichi.adstack<f32, 1024>
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %[[FRESH]][] : memref<f32>
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[OLD]], %[[V:.*]] : f32
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      %[[DNEW:.*]] = memref.load %[[SADJ:.*]][] : memref<f32>
// CHECK-NEXT:      %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %{{.*}}, %[[SADJ]][] : memref<f32>
// CHECK-NEXT:      %[[DOLD:.*]] = arith.mulf %[[DNEW]], %[[V]] : f32
// CHECK-NEXT:      %[[DV:.*]] = arith.mulf %[[DNEW]], %[[OLD]] : f32
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[VADJ:.*]], %[[DV]] : memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[SADJ]], %[[DOLD]] : memref<f32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 192
taichi.kernel @power(%n: i32) {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %lo = arith.constant 0 : i32
  %one = arith.constant 1.000000e+00 : f32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %px = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %s = memref.alloca() : memref<f32>
    memref.store %one, %s[] : memref<f32>
    taichi.range_for %j = %lo to %n : i32 {
      %old = memref.load %s[] : memref<f32>
      %new = arith.mulf %old, %v : f32
      memref.store %new, %s[] : memref<f32>
      taichi.yield
    }
    %r = memref.load %s[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %r, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// The pass must not fire where there is nothing to differentiate: c has no gradient,
// so the adjoint of y[i] = 2 * c[i] is empty; a kernel whose adjoint exists (@done)
// and an adjoint kernel itself get no new adjoint.
// CHECK-LABEL: taichi.kernel @constant_input_grad() attributes {adjoint_of = @constant_input} {
// CHECK-NEXT:    %{{.*}} = taichi.get_field @c : memref<8xf32>
// CHECK-NEXT:    %{{.*}} = taichi.get_field @y : memref<8xf32>
// CHECK-NEXT:    taichi.return
// CHECK-NEXT:  }
// CHECK-NEXT:  taichi.kernel @done() {
// CHECK-NEXT:    taichi.return
// CHECK-NEXT:  }
// CHECK-NEXT:  taichi.kernel @done_grad() attributes {adjoint_of = @done} {
// CHECK-NEXT:    taichi.return
// CHECK-NEXT:  }
// CHECK-NEXT: }
taichi.field @c : memref<8xf32> offset 0
taichi.field @y : memref<8xf32> offset 64 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 128
taichi.kernel @constant_input() {
  %c = taichi.get_field @c : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  taichi.struct_for (%i) in %c : memref<8xf32> {
    %pc = taichi.element_ptr %c[%i] : memref<8xf32> -> memref<f32>
    %w = memref.load %pc[] : memref<f32>
    %d = arith.addf %w, %w : f32
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %d, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
taichi.kernel @done() {
  taichi.return
}
taichi.kernel @done_grad() attributes {adjoint_of = @done} {
  taichi.return
}

// -----

// x[i + 1] = x[i] * 2 writes the field it reads, but the adjoint needs none of the
// values read: the product scales x[i] by a constant (Taichi's test_loop_grad). The
// pass must not reject it; the adjoint reads x.grad[i + 1], zeroes it, and adds twice
// that into x.grad[i].
// CHECK-LABEL: taichi.kernel @shift_double_grad() attributes {adjoint_of = @shift_double} {
// CHECK:         taichi.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK:           %[[N:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK:           %[[GN:.*]] = taichi.element_ptr %x_grad[%[[N]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[GN]][] : memref<f32>
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %[[Z]], %[[GN]][] : memref<f32>
// CHECK-NEXT:      %[[D:.*]] = arith.mulf %[[A]], %two : f32
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[A]], %v : f32
// CHECK-NEXT:      %[[GI:.*]] = taichi.element_ptr %x_grad[%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[GI]], %[[D]] : memref<f32>
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.kernel @shift_double() {
  %x = taichi.get_field @x : memref<8xf32>
  %two = arith.constant 2.000000e+00 : f32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  taichi.range_for %i = %c0 to %c7 : i32 {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %d = arith.mulf %v, %two : f32
    %n = arith.addi %i, %c1 : i32
    %q = taichi.element_ptr %x[%n] : memref<8xf32> -> memref<f32>
    memref.store %d, %q[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// The rules of negf, log2, fma, maxnumf and atan2, each operand's delta pinned: which
// operand of a max gets the adjoint, atan2's x / (x^2 + y^2) and -y / (x^2 + y^2), log2's
// ln 2, fma's a*b + c.
// CHECK-LABEL: taichi.kernel @rules_grad() attributes {adjoint_of = @rules} {
// CHECK:         %q = taichi.element_ptr %y[%c3] : memref<4xf32> -> memref<f32>
// CHECK-NEXT:    %[[V0:.*]] = taichi.element_ptr %y_grad[%c3] : memref<4xf32> -> memref<f32>
// CHECK-NEXT:    %[[V1:.*]] = memref.load %[[V0]][] : memref<f32>
// CHECK-NEXT:    %[[V2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[V2]], %[[V0]][] : memref<f32>
// CHECK-NEXT:    %[[V3:.*]] = arith.mulf %b, %b : f32
// CHECK-NEXT:    %[[V4:.*]] = arith.mulf %a, %a : f32
// CHECK-NEXT:    %[[V5:.*]] = arith.addf %[[V3]], %[[V4]] : f32
// CHECK-NEXT:    %[[V6:.*]] = arith.mulf %[[V1]], %b : f32
// CHECK-NEXT:    %[[V7:.*]] = arith.divf %[[V6]], %[[V5]] : f32
// CHECK-NEXT:    %[[V8:.*]] = arith.mulf %[[V1]], %a : f32
// CHECK-NEXT:    %[[V9:.*]] = arith.divf %[[V8]], %[[V5]] : f32
// CHECK-NEXT:    %[[V10:.*]] = arith.negf %[[V9]] : f32
// CHECK-NEXT:    %[[V11:.*]] = arith.cmpf oge, %a, %b : f32
// CHECK-NEXT:    %[[V12:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[V13:.*]] = arith.select %[[V11]], %[[V1]], %[[V12]] : f32
// CHECK-NEXT:    %[[V14:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[V15:.*]] = arith.select %[[V11]], %[[V14]], %[[V1]] : f32
// CHECK-NEXT:    %[[V16:.*]] = arith.addf %[[V7]], %[[V13]] : f32
// CHECK-NEXT:    %[[V17:.*]] = arith.addf %[[V10]], %[[V15]] : f32
// CHECK-NEXT:    %[[V18:.*]] = arith.mulf %[[V1]], %b : f32
// CHECK-NEXT:    %[[V19:.*]] = arith.mulf %[[V1]], %a : f32
// CHECK-NEXT:    %[[V20:.*]] = arith.addf %[[V16]], %[[V18]] : f32
// CHECK-NEXT:    %[[V21:.*]] = arith.addf %[[V17]], %[[V19]] : f32
// CHECK-NEXT:    %[[V22:.*]] = arith.constant 0.693147182 : f32
// CHECK-NEXT:    %[[V23:.*]] = arith.mulf %b, %[[V22]] : f32
// CHECK-NEXT:    %[[V24:.*]] = arith.divf %[[V1]], %[[V23]] : f32
// CHECK-NEXT:    %[[V25:.*]] = arith.addf %[[V21]], %[[V24]] : f32
// CHECK-NEXT:    %[[V26:.*]] = arith.negf %[[V1]] : f32
// CHECK-NEXT:    %[[V27:.*]] = arith.addf %[[V20]], %[[V26]] : f32
// CHECK-NEXT:    %[[V28:.*]] = taichi.element_ptr %x_grad[%c2] : memref<4xf32> -> memref<f32>
// CHECK-NEXT:    %[[V29:.*]] = taichi.atomic_add %[[V28]], %[[V1]] : memref<f32>
// CHECK-NEXT:    %[[V30:.*]] = taichi.element_ptr %x_grad[%c1] : memref<4xf32> -> memref<f32>
// CHECK-NEXT:    %[[V31:.*]] = taichi.atomic_add %[[V30]], %[[V25]] : memref<f32>
// CHECK-NEXT:    %[[V32:.*]] = taichi.element_ptr %x_grad[%c0] : memref<4xf32> -> memref<f32>
// CHECK-NEXT:    %[[V33:.*]] = taichi.atomic_add %[[V32]], %[[V27]] : memref<f32>
// CHECK-NEXT:    taichi.return
taichi.field @x : memref<4xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<4xf32> offset 64
taichi.field @y : memref<4xf32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<4xf32> offset 192
taichi.kernel @rules() {
  %x = taichi.get_field @x : memref<4xf32>
  %y = taichi.get_field @y : memref<4xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %p0 = taichi.element_ptr %x[%c0] : memref<4xf32> -> memref<f32>
  %p1 = taichi.element_ptr %x[%c1] : memref<4xf32> -> memref<f32>
  %p2 = taichi.element_ptr %x[%c2] : memref<4xf32> -> memref<f32>
  %a = memref.load %p0[] : memref<f32>
  %b = memref.load %p1[] : memref<f32>
  %c = memref.load %p2[] : memref<f32>
  %n = arith.negf %a : f32
  %l = math.log2 %b : f32
  %f = math.fma %a, %b, %c : f32
  %m = arith.maxnumf %a, %b : f32
  %t = math.atan2 %a, %b : f32
  %s1 = arith.addf %n, %l : f32
  %s2 = arith.addf %f, %m : f32
  %s3 = arith.addf %s1, %s2 : f32
  %s4 = arith.addf %s3, %t : f32
  %q = taichi.element_ptr %y[%c3] : memref<4xf32> -> memref<f32>
  memref.store %s4, %q[] : memref<f32>
  taichi.return
}

// -----

// A cast's adjoint is cast back (f64 -> f32 by truncf); a cast to its own width passes
// the adjoint through unchanged.
// CHECK-LABEL: taichi.kernel @same_width_grad() attributes {adjoint_of = @same_width} {
// CHECK:         %[[DY:.*]] = memref.load %{{.*}}[] : memref<f64>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    memref.store %[[Z]], %{{.*}}[] : memref<f64>
// CHECK-NEXT:    %[[DX:.*]] = arith.truncf %[[DY]] : f64 to f32
// CHECK-NEXT:    %[[PX:.*]] = taichi.element_ptr %x_grad[] : memref<f32> -> memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_add %[[PX]], %[[DX]] : memref<f32>
// CHECK-NEXT:    taichi.return
taichi.field @x : memref<f32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<f32> offset 64
taichi.field @y : memref<f64> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<f64> offset 192
taichi.kernel @same_width() {
  %x = taichi.get_field @x : memref<f32>
  %y = taichi.get_field @y : memref<f64>
  %p = taichi.element_ptr %x[] : memref<f32> -> memref<f32>
  %v = memref.load %p[] : memref<f32>
  %w = arith.extf %v : f32 to f32
  %d = arith.extf %w : f32 to f64
  %q = taichi.element_ptr %y[] : memref<f64> -> memref<f64>
  memref.store %d, %q[] : memref<f64>
  taichi.return
}

// -----

// y[i] += x[i], then x[i] = 0: the adjoint never reads x (an atomic add's reverse needs
// only its adjoint), so writing x after the read is allowed. In reverse: x's gradient is
// reset by the store, then gets y's.
// CHECK-LABEL: taichi.kernel @move_grad() attributes {adjoint_of = @move} {
// CHECK:         %[[G0:.*]] = taichi.element_ptr %x_grad[%i] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[Z]], %[[G0]][] : memref<f32>
// CHECK-NEXT:    %[[PY:.*]] = taichi.element_ptr %y_grad[%i] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %[[DY:.*]] = memref.load %[[PY]][] : memref<f32>
// CHECK-NEXT:    %[[G1:.*]] = taichi.element_ptr %x_grad[%i] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_add %[[G1]], %[[DY]] : memref<f32>
// CHECK-NEXT:    taichi.yield
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 192
taichi.kernel @move() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %zero = arith.constant 0.0 : f32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %q = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    %old = taichi.atomic_add %q, %v : memref<f32>
    memref.store %zero, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// A field stored, then read in the same iteration and divided by a constant (Taichi's
// diff_sph compute_loss): a quotient's adjoint needs its divisor, and its numerator only
// when the divisor is active, so the load of @d is no global data access rule break.
// Its adjoint goes to d.grad; the store's adjoint then zeroes d.grad.
// CHECK-LABEL: taichi.kernel @store_then_divide_grad() attributes {adjoint_of = @store_then_divide} {
// CHECK:         %[[LG:.*]] = taichi.element_ptr %loss_grad[] : memref<f32> -> memref<f32>
// CHECK-NEXT:    %[[A:.*]] = memref.load %[[LG]][] : memref<f32>
// CHECK-NEXT:    %[[D:.*]] = arith.divf %[[A]], %{{.*}} : f32
// CHECK:         %[[DG:.*]] = taichi.element_ptr %{{.*}}[%[[I:.*]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_add %[[DG]], %[[D]] : memref<f32>
// CHECK-NEXT:    %[[DG2:.*]] = taichi.element_ptr %{{.*}}[%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[Z]], %[[DG2]][] : memref<f32>
taichi.field @d : memref<8xf32> offset 0 {grad = @d_grad}
taichi.field @d_grad : memref<8xf32> offset 64
taichi.field @loss : memref<f32> offset 128 {grad = @loss_grad}
taichi.field @loss_grad : memref<f32> offset 192
taichi.kernel @store_then_divide() {
  %d = taichi.get_field @d : memref<8xf32>
  %loss = taichi.get_field @loss : memref<f32>
  %four = arith.constant 4.0 : f32
  %one = arith.constant 1.0 : f32
  taichi.struct_for (%i) in %d : memref<8xf32> {
    %p = taichi.element_ptr %d[%i] : memref<8xf32> -> memref<f32>
    memref.store %one, %p[] : memref<f32>
    %v = memref.load %p[] : memref<f32>
    %q = arith.divf %v, %four : f32
    %l = taichi.element_ptr %loss[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %l, %q : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// ti.atomic_max into a field: the gradient of y reaches one value equal to y's final
// value (read back after the primal), nothing else: the first such value takes y's
// gradient with an atomic multiply by 0, so tied values do not each receive it.
// CHECK-LABEL: taichi.kernel @highest_grad() attributes {adjoint_of = @highest} {
// CHECK:         %[[V:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK:         %[[YG:.*]] = taichi.element_ptr %y_grad[] : memref<f32> -> memref<f32>
// CHECK-NEXT:    %[[YP:.*]] = taichi.element_ptr %y[] : memref<f32> -> memref<f32>
// CHECK-NEXT:    %[[Y:.*]] = memref.load %[[YP]][] : memref<f32>
// CHECK-NEXT:    %[[HIT:.*]] = arith.cmpf oeq, %[[V]], %[[Y]] : f32
// CHECK-NEXT:    %[[TAKEN:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %[[Z]], %[[TAKEN]][] : memref<f32>
// CHECK-NEXT:    taichi.if %[[HIT]] {
// CHECK-NEXT:      %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[G:.*]] = taichi.atomic_mul %[[YG]], %[[Z2]] : memref<f32>
// CHECK-NEXT:      memref.store %[[G]], %[[TAKEN]][] : memref<f32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[D:.*]] = memref.load %[[TAKEN]][] : memref<f32>
// CHECK-NEXT:    %[[XG:.*]] = taichi.element_ptr %x_grad[%{{.*}}] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    %{{.*}} = taichi.atomic_add %[[XG]], %[[D]] : memref<f32>
// CHECK-NOT:     taichi.store
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<f32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<f32> offset 192
taichi.kernel @highest() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<f32>
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %q = taichi.element_ptr %y[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_max %q, %v : memref<f32>
    taichi.yield
  }
  taichi.return
}

// -----

// A struct-for over a sparse SNode generates its cell list first (codegen/sparse.py): the
// adjoint replays the list generation (list_clear, the loop of list_append) before the
// reverse loop that walks the list, so it never reads a list another kernel left.
// CHECK-LABEL: taichi.kernel @list_sum_sq_grad() attributes {adjoint_of = @list_sum_sq} {
// CHECK:         %[[X:.*]] = taichi.get_field @x : memref<8xf32>
// CHECK:         %[[CELLS:.*]] = taichi.get_field @cells : memref<9xi32>
// CHECK-NEXT:    taichi.list_clear %[[CELLS]] : memref<9xi32>
// CHECK:         taichi.range_for %[[K:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[ON:.*]] = taichi.is_active %{{.*}}[%[[K]]] : memref<8xi32>
// CHECK-NEXT:      taichi.if %[[ON]] {
// CHECK-NEXT:        taichi.list_append %[[CELLS]], %[[K]] : memref<9xi32>
// CHECK:         %[[N:.*]] = taichi.list_length %[[CELLS]] : memref<9xi32>
// CHECK-NEXT:    taichi.range_for %[[E:.*]] = %{{.*}} to %[[N]] : i32 {
// CHECK-NEXT:      %[[I:.*]] = taichi.list_get %[[CELLS]][%[[E]]] : memref<9xi32>
// CHECK:           taichi.element_ptr %{{.*}}[%[[I]]] : memref<8xf32> -> memref<f32>
// CHECK:           taichi.atomic_add
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @loss : memref<f32> offset 128 {grad = @loss_grad}
taichi.field @loss_grad : memref<f32> offset 192
taichi.field @mask : memref<8xi32> offset 256
taichi.field @cells : memref<9xi32> offset 320
taichi.kernel @list_sum_sq() {
  %x = taichi.get_field @x : memref<8xf32>
  %loss = taichi.get_field @loss : memref<f32>
  %mask = taichi.get_field @mask : memref<8xi32>
  %cells = taichi.get_field @cells : memref<9xi32>
  taichi.list_clear %cells : memref<9xi32>
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  taichi.range_for %k = %c0 to %c8 : i32 {
    %on = taichi.is_active %mask[%k] : memref<8xi32>
    taichi.if %on {
      taichi.list_append %cells, %k : memref<9xi32>
      taichi.yield
    }
    taichi.yield
  }
  %n = taichi.list_length %cells : memref<9xi32>
  taichi.range_for %e = %c0 to %n : i32 {
    %i = taichi.list_get %cells[%e] : memref<9xi32>
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %sq = arith.mulf %v, %v : f32
    %l = taichi.element_ptr %loss[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %l, %sq : memref<f32>
    taichi.yield
  }
  taichi.return
}
