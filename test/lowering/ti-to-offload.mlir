// RUN: ti-opt %s -p ti-to-offload-cpu | filecheck %s

taichi.field @total : memref<f32> offset 0
taichi.field @x : memref<1024xf32> offset 4
taichi.field @u : memref<64x64xf32> offset 4100
taichi.field @v : memref<64x64xf32> offset 20484

// saxpy on ndarrays:
//   for i in range(x.shape[0]): y[i] = a * x[i] + y[i]
// A serial task reads x.shape[0] into a global temporary for the
// loop's bound; the loop task reads its arguments itself.
// CHECK-LABEL: offload.kernel @saxpy : (f32, memref<?xf32>, memref<?xf32>) -> () {
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[X:.*]] = offload.arg 1 : memref<?xf32>
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D:.*]] = memref.dim %[[X]], %[[C0]] : memref<?xf32>
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      memref.store %[[N]], %[[T]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[T:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:    %[[HI:.*]] = memref.load %[[T]][] : memref<i32>
// CHECK-NEXT:    offload.range_for %[[I:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK-NEXT:      %[[X:.*]] = offload.arg 1 : memref<?xf32>
// CHECK-NEXT:      %[[A:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      %[[Y:.*]] = offload.arg 2 : memref<?xf32>
// CHECK-NEXT:      %[[PX:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<?xf32> -> memref<f32>
// CHECK-NEXT:      %[[VX:.*]] = memref.load %[[PX]][] : memref<f32>
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[A]], %[[VX]] : f32
// CHECK-NEXT:      %[[PY:.*]] = taichi.element_ptr %[[Y]][%[[I]]] : memref<?xf32> -> memref<f32>
// CHECK-NEXT:      %[[VY:.*]] = memref.load %[[PY]][] : memref<f32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[M]], %[[VY]] : f32
// CHECK-NEXT:      memref.store %[[S]], %[[PY]][] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
taichi.kernel @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?xf32>
  %n = arith.index_cast %d : index to i32
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %vx = memref.load %px[] : memref<f32>
    %m = arith.mulf %a, %vx : f32
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    %vy = memref.load %py[] : memref<f32>
    %s = arith.addf %m, %vy : f32
    memref.store %s, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// A sum into a 0-d field:
//   for i in x: total[None] += x[i] * 2
// The struct_for becomes a range_for task over 1024; the local
// is forwarded away; the atomic add goes through a thread-local slot and runs once per
// thread in the epilogue.
// CHECK-LABEL: offload.kernel @sum : () -> () {
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 1024 : i32
// CHECK-NEXT:    offload.range_for %[[I:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK-NEXT:      %[[TL:.*]] = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:      %[[X:.*]] = taichi.get_field @x : memref<1024xf32>
// CHECK-NEXT:      %[[PX:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<1024xf32> -> memref<f32>
// CHECK-NEXT:      %[[XI:.*]] = memref.load %[[PX]][] : memref<f32>
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[T:.*]] = arith.mulf %[[XI]], %[[TWO]] : f32
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %[[TL]][] : memref<f32>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %[[T]] : f32
// CHECK-NEXT:      memref.store %[[NEW]], %[[TL]][] : memref<f32>
// CHECK-NEXT:    } prologue {
// CHECK-NEXT:      %[[TL:.*]] = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %[[ZERO]], %[[TL]][] : memref<f32>
// CHECK-NEXT:    } epilogue {
// CHECK-NEXT:      %[[TL:.*]] = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:      %[[ACC:.*]] = memref.load %[[TL]][] : memref<f32>
// CHECK-NEXT:      %[[TOTAL:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[PT:.*]] = taichi.element_ptr %[[TOTAL]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[PT]], %[[ACC]] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
taichi.kernel @sum() {
  %x = taichi.get_field @x : memref<1024xf32>
  %total = taichi.get_field @total : memref<f32>
  taichi.struct_for (%i) in %x : memref<1024xf32> {
    %v = memref.alloca() : memref<f32>
    %px = taichi.element_ptr %x[%i] : memref<1024xf32> -> memref<f32>
    %xi = memref.load %px[] : memref<f32>
    %two = arith.constant 2.0 : f32
    %t = arith.mulf %xi, %two : f32
    memref.store %t, %v[] : memref<f32>
    %vv = memref.load %v[] : memref<f32>
    %pt = taichi.element_ptr %total[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %pt, %vv : memref<f32>
    taichi.yield
  }
  taichi.return
}

// A 5-point stencil over the interior, ndrange flattened by the frontend:
//   for i, j in ti.ndrange((1, 63), (1, 63)):
//       v[i, j] = u[i, j] + w * (u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1] - 4 * u[i, j])
// One range_for task over the rows with constant bounds (ti-split-parallel-loop: the
// last dimension is a serial loop inside, with no div/rem); the index locals are
// forwarded away, the constants, fields and the weight are recomputed inside the task,
// and what does not depend on the column is computed once a row.
// CHECK-LABEL: offload.kernel @stencil : (f32) -> () {
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 62 : i32
// CHECK-NEXT:    offload.range_for %[[ROW:.*]] = %[[LO]] to %[[ROWS]] : i32 {
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[U:.*]] = taichi.get_field @u : memref<64x64xf32>
// CHECK-NEXT:      %[[W:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      %[[V:.*]] = taichi.get_field @v : memref<64x64xf32>
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[C62:.*]] = arith.constant 62 : i32
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[ROW]], %[[C1]] : i32
// CHECK-NEXT:      %[[IM:.*]] = arith.subi %[[I]], %[[C1]] : i32
// CHECK-NEXT:      %[[IP:.*]] = arith.addi %[[I]], %[[C1]] : i32
// CHECK-NEXT:      %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      taichi.range_for %[[COL:.*]] = %[[C0]] to %[[C62]] : i32 {
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[COL]], %[[C1]] : i32
// CHECK-NEXT:        %[[JM:.*]] = arith.subi %[[J]], %[[C1]] : i32
// CHECK-NEXT:        %[[JP:.*]] = arith.addi %[[J]], %[[C1]] : i32
// CHECK-NEXT:        %[[P0:.*]] = taichi.element_ptr %[[U]][%[[I]], %[[J]]] : memref<64x64xf32> -> memref<f32>
// CHECK-NEXT:        %[[A0:.*]] = memref.load %[[P0]][] : memref<f32>
// CHECK-NEXT:        %[[P1:.*]] = taichi.element_ptr %[[U]][%[[IM]], %[[J]]] : memref<64x64xf32> -> memref<f32>
// CHECK-NEXT:        %[[A1:.*]] = memref.load %[[P1]][] : memref<f32>
// CHECK-NEXT:        %[[P2:.*]] = taichi.element_ptr %[[U]][%[[IP]], %[[J]]] : memref<64x64xf32> -> memref<f32>
// CHECK-NEXT:        %[[A2:.*]] = memref.load %[[P2]][] : memref<f32>
// CHECK-NEXT:        %[[P3:.*]] = taichi.element_ptr %[[U]][%[[I]], %[[JM]]] : memref<64x64xf32> -> memref<f32>
// CHECK-NEXT:        %[[A3:.*]] = memref.load %[[P3]][] : memref<f32>
// CHECK-NEXT:        %[[P4:.*]] = taichi.element_ptr %[[U]][%[[I]], %[[JP]]] : memref<64x64xf32> -> memref<f32>
// CHECK-NEXT:        %[[A4:.*]] = memref.load %[[P4]][] : memref<f32>
// CHECK-NEXT:        %[[S1:.*]] = arith.addf %[[A1]], %[[A2]] : f32
// CHECK-NEXT:        %[[S2:.*]] = arith.addf %[[S1]], %[[A3]] : f32
// CHECK-NEXT:        %[[S3:.*]] = arith.addf %[[S2]], %[[A4]] : f32
// CHECK-NEXT:        %[[C:.*]] = arith.mulf %[[FOUR]], %[[A0]] : f32
// CHECK-NEXT:        %[[LAP:.*]] = arith.subf %[[S3]], %[[C]] : f32
// CHECK-NEXT:        %[[D:.*]] = arith.mulf %[[W]], %[[LAP]] : f32
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %[[A0]], %[[D]] : f32
// CHECK-NEXT:        %[[PV:.*]] = taichi.element_ptr %[[V]][%[[I]], %[[J]]] : memref<64x64xf32> -> memref<f32>
// CHECK-NEXT:        memref.store %[[NEW]], %[[PV]][] : memref<f32>
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      } {serialize}
// CHECK-NEXT:    }
// CHECK-NEXT:  }
taichi.kernel @stencil(%w: f32) {
  %u = taichi.get_field @u : memref<64x64xf32>
  %v = taichi.get_field @v : memref<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c62 = arith.constant 62 : i32
  %n = arith.constant 3844 : i32
  taichi.range_for %l = %c0 to %n : i32 {
    %si = memref.alloca() : memref<i32>
    %sj = memref.alloca() : memref<i32>
    %q = arith.divsi %l, %c62 : i32
    %i0 = arith.addi %q, %c1 : i32
    memref.store %i0, %si[] : memref<i32>
    %r = arith.remsi %l, %c62 : i32
    %j0 = arith.addi %r, %c1 : i32
    memref.store %j0, %sj[] : memref<i32>
    %i = memref.load %si[] : memref<i32>
    %j = memref.load %sj[] : memref<i32>
    %im = arith.subi %i, %c1 : i32
    %ip = arith.addi %i, %c1 : i32
    %jm = arith.subi %j, %c1 : i32
    %jp = arith.addi %j, %c1 : i32
    %p0 = taichi.element_ptr %u[%i, %j] : memref<64x64xf32> -> memref<f32>
    %a0 = memref.load %p0[] : memref<f32>
    %p1 = taichi.element_ptr %u[%im, %j] : memref<64x64xf32> -> memref<f32>
    %a1 = memref.load %p1[] : memref<f32>
    %p2 = taichi.element_ptr %u[%ip, %j] : memref<64x64xf32> -> memref<f32>
    %a2 = memref.load %p2[] : memref<f32>
    %p3 = taichi.element_ptr %u[%i, %jm] : memref<64x64xf32> -> memref<f32>
    %a3 = memref.load %p3[] : memref<f32>
    %p4 = taichi.element_ptr %u[%i, %jp] : memref<64x64xf32> -> memref<f32>
    %a4 = memref.load %p4[] : memref<f32>
    %s1 = arith.addf %a1, %a2 : f32
    %s2 = arith.addf %s1, %a3 : f32
    %s3 = arith.addf %s2, %a4 : f32
    %four = arith.constant 4.0 : f32
    %c = arith.mulf %four, %a0 : f32
    %lap = arith.subf %s3, %c : f32
    %d = arith.mulf %w, %lap : f32
    %new = arith.addf %a0, %d : f32
    %pv = taichi.element_ptr %v[%i, %j] : memref<64x64xf32> -> memref<f32>
    memref.store %new, %pv[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// A serial part and a return value:
//   s = 0.0
//   for k in range(n): s += x[k]          (serialized)
//   m = s / n
//   for i in range(n): x[i] -= m
//   return m
// The serialized loop stays in the first serial
// task with its local; the mean crosses to the parallel loop and to the final serial
// task through global temporary 4; the argument bound through global temporary 0. The
// parallel update x[i] -= m touches only its own element: demoted to load/add/store.
// CHECK-LABEL: offload.kernel @center : (i32) -> f32 {
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[N:.*]] = offload.arg 0 : i32
// CHECK-NEXT:      %[[X:.*]] = taichi.get_field @x : memref<1024xf32>
// CHECK-NEXT:      %[[S:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:      memref.store %[[ZERO]], %[[S]][] : memref<f32>
// CHECK-NEXT:      taichi.range_for %[[K:.*]] = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:        %[[PK:.*]] = taichi.element_ptr %[[X]][%[[K]]] : memref<1024xf32> -> memref<f32>
// CHECK-NEXT:        %[[XK:.*]] = memref.load %[[PK]][] : memref<f32>
// CHECK-NEXT:        %[[ACC:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[ACC]], %[[XK]] : f32
// CHECK-NEXT:        memref.store %[[SUM]], %[[S]][] : memref<f32>
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      } {serialize}
// CHECK-NEXT:      %[[TOTAL:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:      %[[NF:.*]] = arith.sitofp %[[N]] : i32 to f32
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[TOTAL]], %[[NF]] : f32
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 4 : memref<f32>
// CHECK-NEXT:      memref.store %[[MEAN]], %[[T]][] : memref<f32>
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      memref.store %[[N]], %[[T]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[T:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:    %[[N:.*]] = memref.load %[[T]][] : memref<i32>
// CHECK-NEXT:    offload.range_for %[[I:.*]] = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:      %[[X:.*]] = taichi.get_field @x : memref<1024xf32>
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 4 : memref<f32>
// CHECK-NEXT:      %[[MEAN:.*]] = memref.load %[[T]][] : memref<f32>
// CHECK-NEXT:      %[[PI:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<1024xf32> -> memref<f32>
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[MEAN]] : f32
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %[[PI]][] : memref<f32>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %[[NEG]] : f32
// CHECK-NEXT:      memref.store %[[NEW]], %[[PI]][] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 4 : memref<f32>
// CHECK-NEXT:      %[[MEAN:.*]] = memref.load %[[T]][] : memref<f32>
// CHECK-NEXT:      offload.set_return 0, %[[MEAN]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:  }
taichi.kernel @center(%n: i32) -> f32 {
  %x = taichi.get_field @x : memref<1024xf32>
  %s = memref.alloca() : memref<f32>
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %s[] : memref<f32>
  %lo = arith.constant 0 : i32
  taichi.range_for %k = %lo to %n : i32 {
    %pk = taichi.element_ptr %x[%k] : memref<1024xf32> -> memref<f32>
    %xk = memref.load %pk[] : memref<f32>
    %acc = memref.load %s[] : memref<f32>
    %sum = arith.addf %acc, %xk : f32
    memref.store %sum, %s[] : memref<f32>
    taichi.yield
  } {serialize}
  %m = memref.alloca() : memref<f32>
  %total = memref.load %s[] : memref<f32>
  %nf = arith.sitofp %n : i32 to f32
  %mean = arith.divf %total, %nf : f32
  memref.store %mean, %m[] : memref<f32>
  taichi.range_for %i = %lo to %n : i32 {
    %pi = taichi.element_ptr %x[%i] : memref<1024xf32> -> memref<f32>
    %mi = memref.load %m[] : memref<f32>
    %neg = arith.negf %mi : f32
    %old = taichi.atomic_add %pi, %neg : memref<f32>
    taichi.yield
  }
  %mr = memref.load %m[] : memref<f32>
  taichi.return %mr : f32
}
