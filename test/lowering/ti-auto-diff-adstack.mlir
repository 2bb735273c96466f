// RUN: ti-opt %s -p 'ti-auto-diff{ad_stack_size=8}' | filecheck %s
// RUN: ti-opt %s -p ti-auto-diff | filecheck %s --check-prefix=DEFAULT

// Two serial loops in a parallel one. The first (5 iterations, constant bounds) carries
// p, q and the counter k: one stack each, of exactly 5 values, pushed unchecked. The
// second (n iterations) carries p: a stack of ad_stack_size values (8 here, 1024 by
// default) whose pushes are asserted in every mode. The reverse sweep pops them in
// reverse order of the loops.
// CHECK-LABEL: taichi.kernel @fib_grad(%n: i32) attributes {adjoint_of = @fib} {
// CHECK:         %[[SP:.*]] = taichi.adstack_alloca : !taichi.adstack<f32, 5>
// CHECK-NEXT:    %[[SQ:.*]] = taichi.adstack_alloca : !taichi.adstack<f32, 5>
// CHECK-NEXT:    %[[SK:.*]] = taichi.adstack_alloca : !taichi.adstack<i32, 5>
// CHECK-NEXT:    taichi.range_for %{{.*}} = %lo to %five : i32 {
// CHECK-NEXT:      %[[P:.*]] = memref.load %p[] : memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.adstack_push %[[SP]], %[[P]] : !taichi.adstack<f32, 5>
// CHECK-NEXT:      %[[Q:.*]] = memref.load %q[] : memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.adstack_push %[[SQ]], %[[Q]] : !taichi.adstack<f32, 5>
// CHECK-NEXT:      %[[K:.*]] = memref.load %k[] : memref<i32>
// CHECK-NEXT:      %{{.*}} = taichi.adstack_push %[[SK]], %[[K]] : !taichi.adstack<i32, 5>
// CHECK-NEXT:      %{{.*}} = memref.load %p[] : memref<f32>
// CHECK:         %[[SN:.*]] = taichi.adstack_alloca : !taichi.adstack<f32, 8>
// CHECK-NEXT:    taichi.range_for %{{.*}} = %lo to %n : i32 {
// CHECK-NEXT:      %[[P2:.*]] = memref.load %p[] : memref<f32>
// CHECK-NEXT:      %[[FITS:.*]] = taichi.adstack_push %[[SN]], %[[P2]] : !taichi.adstack<f32, 8>
// CHECK-NEXT:      taichi.assert %[[FITS]], "adstack overflow: a loop of kernel 'fib' ran more than 8 iterations, the values its adjoint keeps for it; raise ti.init(ad_stack_size=...)" always
// CHECK:         taichi.range_for %{{.*}} = %lo to %n : i32 {
// CHECK:           %[[T:.*]] = taichi.adstack_load_top %[[SN]] : !taichi.adstack<f32, 8> -> f32
// CHECK-NEXT:      memref.store %[[T]], %[[FRESH:.*]][] : memref<f32>
// CHECK-NEXT:      taichi.adstack_pop %[[SN]] : !taichi.adstack<f32, 8>
// CHECK-NEXT:      %{{.*}} = memref.load %[[FRESH]][] : memref<f32>
// CHECK:         taichi.range_for %{{.*}} = %lo to %five : i32 {
// CHECK:           %[[TP:.*]] = taichi.adstack_load_top %[[SP]] : !taichi.adstack<f32, 5> -> f32
// CHECK-NEXT:      memref.store %[[TP]], %{{.*}}[] : memref<f32>
// CHECK-NEXT:      taichi.adstack_pop %[[SP]] : !taichi.adstack<f32, 5>
// CHECK-NEXT:      %[[TQ:.*]] = taichi.adstack_load_top %[[SQ]] : !taichi.adstack<f32, 5> -> f32
// CHECK-NEXT:      memref.store %[[TQ]], %{{.*}}[] : memref<f32>
// CHECK-NEXT:      taichi.adstack_pop %[[SQ]] : !taichi.adstack<f32, 5>
// CHECK-NEXT:      %[[TK:.*]] = taichi.adstack_load_top %[[SK]] : !taichi.adstack<i32, 5> -> i32
// CHECK-NEXT:      memref.store %[[TK]], %{{.*}}[] : memref<i32>
// CHECK-NEXT:      taichi.adstack_pop %[[SK]] : !taichi.adstack<i32, 5>

// DEFAULT: taichi.adstack_alloca : !taichi.adstack<f32, 5>
// DEFAULT: taichi.adstack_alloca : !taichi.adstack<f32, 1024>

taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 64
taichi.field @y : memref<8xf32> offset 128 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 192
taichi.kernel @fib(%n: i32) {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %lo = arith.constant 0 : i32
  %five = arith.constant 5 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.000000e+00 : f32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %px = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %p = memref.alloca() : memref<f32>
    %q = memref.alloca() : memref<f32>
    %k = memref.alloca() : memref<i32>
    memref.store %zero, %p[] : memref<f32>
    memref.store %v, %q[] : memref<f32>
    memref.store %lo, %k[] : memref<i32>
    taichi.range_for %j = %lo to %five : i32 {
      %a = memref.load %p[] : memref<f32>
      %b = memref.load %q[] : memref<f32>
      %c = arith.addf %a, %b : f32
      memref.store %b, %p[] : memref<f32>
      memref.store %c, %q[] : memref<f32>
      %kk = memref.load %k[] : memref<i32>
      %k1 = arith.addi %kk, %c1 : i32
      memref.store %k1, %k[] : memref<i32>
      taichi.yield
    }
    taichi.range_for %j = %lo to %n : i32 {
      %a = memref.load %p[] : memref<f32>
      %b = arith.mulf %a, %v : f32
      memref.store %b, %p[] : memref<f32>
      taichi.yield
    }
    %r = memref.load %q[] : memref<f32>
    %r2 = memref.load %p[] : memref<f32>
    %s = arith.addf %r, %r2 : f32
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %s, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// Constant bounds that do not start at 0: the stack holds upper - lower values (3 for
// 2..5), and at least one (1 for 4..5).
// CHECK-LABEL: taichi.kernel @offset_bounds_grad() attributes {adjoint_of = @offset_bounds} {
// CHECK:         %[[S3:.*]] = taichi.adstack_alloca : !taichi.adstack<f32, 3>
// CHECK-NEXT:    taichi.range_for %{{.*}} = %two to %five : i32 {
// CHECK:         %[[S1:.*]] = taichi.adstack_alloca : !taichi.adstack<f32, 1>
// CHECK-NEXT:    taichi.range_for %{{.*}} = %four to %five : i32 {
taichi.kernel @offset_bounds() {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %two = arith.constant 2 : i32
  %four = arith.constant 4 : i32
  %five = arith.constant 5 : i32
  taichi.struct_for (%i) in %x : memref<8xf32> {
    %px = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %p = memref.alloca() : memref<f32>
    memref.store %v, %p[] : memref<f32>
    taichi.range_for %j = %two to %five : i32 {
      %a = memref.load %p[] : memref<f32>
      %b = arith.mulf %a, %v : f32
      memref.store %b, %p[] : memref<f32>
      taichi.yield
    }
    taichi.range_for %j = %four to %five : i32 {
      %a = memref.load %p[] : memref<f32>
      %b = arith.mulf %a, %v : f32
      memref.store %b, %p[] : memref<f32>
      taichi.yield
    }
    %r = memref.load %p[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %r, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
