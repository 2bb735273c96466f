// RUN: ti-opt %s -p ti-offload | filecheck %s

taichi.field @x : memref<16xf32> offset 0
taichi.field @total : memref<f32> offset 64

// Constant bounds are cloned to kernel level; the field, the argument and the constants
// the body uses are recomputed inside the task. No serial work: no serial task.
// CHECK-LABEL: offload.kernel @constant_bounds : (f32) -> () {
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 16 : i32
// CHECK-NEXT:    offload.range_for %[[I:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK-NEXT:      %[[X:.*]] = taichi.get_field @x : memref<16xf32>
// CHECK-NEXT:      %[[A:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<16xf32> -> memref<f32>
// CHECK-NEXT:      memref.store %[[A]], %[[P]][] : memref<f32>
// CHECK-NEXT:    } {block_dim = 128 : i64}
// CHECK-NEXT:  }
taichi.kernel @constant_bounds(%a: f32) {
  %x = taichi.get_field @x : memref<16xf32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 16 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %x[%i] : memref<16xf32> -> memref<f32>
    memref.store %a, %p[] : memref<f32>
    taichi.yield
  } {block_dim = 128 : i64}
  taichi.return
}

// An ndarray's length as a bound: a serial task computes it into global temporary 0,
// loaded at kernel level. Inside the loop the shape is read again (seed 004: shape reads
// are cloned into each task), not loaded from memory.
// CHECK-LABEL: offload.kernel @reverse
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[X:.*]] = offload.arg 0 : memref<?xf32>
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
// CHECK-NEXT:      %[[X:.*]] = offload.arg 0 : memref<?xf32>
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D:.*]] = memref.dim %[[X]], %[[C0]] : memref<?xf32>
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[Y:.*]] = offload.arg 1 : memref<?xf32>
// CHECK-NEXT:      %[[J:.*]] = arith.subi %[[N]], %[[I]] : i32
// CHECK-NEXT:      %[[K:.*]] = arith.subi %[[J]], %[[ONE]] : i32
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[X]][%[[K]]] : memref<?xf32> -> memref<f32>
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[P]][] : memref<f32>
// CHECK-NEXT:      %[[Q:.*]] = taichi.element_ptr %[[Y]][%[[I]]] : memref<?xf32> -> memref<f32>
// CHECK-NEXT:      memref.store %[[V]], %[[Q]][] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
taichi.kernel @reverse(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?xf32>
  %n = arith.index_cast %d : index to i32
  %one = arith.constant 1 : i32
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    %j = arith.subi %n, %i : i32
    %k = arith.subi %j, %one : i32
    %p = taichi.element_ptr %x[%k] : memref<?xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %q = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    memref.store %v, %q[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// Serial statements between loops gather into serial tasks. A bound from a kernel
// argument is stored by the serial task before its loop; x.shape[0] + 1 too. A value
// computed in a serial task and used by a later loop goes through a global
// temporary; so does a local used by several tasks (%acc). A local only one serial
// task uses (%tmp) moves into it. The return value is set by the last serial task.
// Offsets follow first use: %acc 0, %n 4 (the first loop's bound), %hi 8, %scale 16
// (an f64: 8-aligned).
// CHECK-LABEL: offload.kernel @serial_parts : (i32, memref<?xi32>) -> f64
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[ACC:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      %[[ARR:.*]] = offload.arg 1 : memref<?xi32>
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[LEN:.*]] = memref.dim %[[ARR]], %[[C0]] : memref<?xi32>
// CHECK-NEXT:      %[[LENI:.*]] = arith.index_cast %[[LEN]] : index to i32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[N:.*]] = offload.arg 0 : i32
// CHECK-NEXT:      memref.store %[[ZERO]], %[[ACC]][] : memref<i32>
// CHECK-NEXT:      %[[HI:.*]] = arith.addi %[[LENI]], %[[ONE]] : i32
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 8 : memref<i32>
// CHECK-NEXT:      memref.store %[[HI]], %[[T]][] : memref<i32>
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 4 : memref<i32>
// CHECK-NEXT:      memref.store %[[N]], %[[T]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[T:.*]] = offload.global_tmp 4 : memref<i32>
// CHECK-NEXT:    %[[N:.*]] = memref.load %[[T]][] : memref<i32>
// CHECK-NEXT:    offload.range_for %[[I:.*]] = %[[ZERO]] to %[[N]] : i32 {
// CHECK-NEXT:      %[[ACC:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[ACC]], %[[I]] : memref<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[ACC:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      %[[TMP:.*]] = memref.alloca() : memref<f64>
// CHECK-NEXT:      %[[R:.*]] = memref.load %[[ACC]][] : memref<i32>
// CHECK-NEXT:      %[[RF:.*]] = arith.sitofp %[[R]] : i32 to f64
// CHECK-NEXT:      memref.store %[[RF]], %[[TMP]][] : memref<f64>
// CHECK-NEXT:      %[[SCALE:.*]] = memref.load %[[TMP]][] : memref<f64>
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 16 : memref<f64>
// CHECK-NEXT:      memref.store %[[SCALE]], %[[T]][] : memref<f64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[T:.*]] = offload.global_tmp 8 : memref<i32>
// CHECK-NEXT:    %[[HI:.*]] = memref.load %[[T]][] : memref<i32>
// CHECK-NEXT:    offload.range_for %[[I:.*]] = %[[ZERO]] to %[[HI]] : i32 {
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 16 : memref<f64>
// CHECK-NEXT:      %[[SCALE:.*]] = memref.load %[[T]][] : memref<f64>
// CHECK-NEXT:      taichi.print "{} {}" %[[I]], %[[SCALE]] : i32, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 16 : memref<f64>
// CHECK-NEXT:      %[[SCALE:.*]] = memref.load %[[T]][] : memref<f64>
// CHECK-NEXT:      offload.set_return 0, %[[SCALE]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:  }
taichi.kernel @serial_parts(%n: i32, %arr: memref<?xi32>) -> f64 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %acc = memref.alloca() : memref<i32>
  %tmp = memref.alloca() : memref<f64>
  memref.store %zero, %acc[] : memref<i32>
  %c0 = arith.constant 0 : index
  %len = memref.dim %arr, %c0 : memref<?xi32>
  %leni = arith.index_cast %len : index to i32
  %hi = arith.addi %leni, %one : i32
  taichi.range_for %i = %zero to %n : i32 {
    %old = taichi.atomic_add %acc, %i : memref<i32>
    taichi.yield
  }
  %r = memref.load %acc[] : memref<i32>
  %rf = arith.sitofp %r : i32 to f64
  memref.store %rf, %tmp[] : memref<f64>
  %scale = memref.load %tmp[] : memref<f64>
  taichi.range_for %j = %zero to %hi : i32 {
    taichi.print "{} {}" %j, %scale : i32, f64
    taichi.yield
  }
  taichi.return %scale : f64
}

// Must not fire on a serialized outermost loop: it stays a statement of a serial task,
// with its taichi.yield. A `continue` in a parallel loop stays where it is.
// CHECK-LABEL: offload.kernel @serialized
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 4 : i32
// CHECK-NEXT:      taichi.range_for %[[I:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK-NEXT:        taichi.print "{}" %[[I]] : i32
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      } {serialize}
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    offload.range_for %{{.*}} = %[[LO]] to %[[HI]] : i32 {
// CHECK-NEXT:      %[[C:.*]] = offload.arg 0 : i1
// CHECK-NEXT:      taichi.if %[[C]] {
// CHECK-NEXT:        taichi.continue
// CHECK-NEXT:      }
// CHECK-NEXT:      taichi.print "parallel"
// CHECK-NEXT:    }
// CHECK-NEXT:  }
taichi.kernel @serialized(%c: i1) {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 4 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    taichi.print "{}" %i : i32
    taichi.yield
  } {serialize}
  taichi.range_for %j = %lo to %hi : i32 {
    taichi.if %c {
      taichi.continue
    }
    taichi.print "parallel"
    taichi.yield
  }
  taichi.return
}

// A struct_for over a field that was not demoted becomes a struct_for task.
// CHECK-LABEL: offload.kernel @struct_for_task
// CHECK-NEXT:    offload.struct_for @x : memref<16xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: i32):
// CHECK-NEXT:      %[[X:.*]] = taichi.get_field @x : memref<16xf32>
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[Q:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<16xf32> -> memref<f32>
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[P]][] : memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[Q]], %[[V]] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
taichi.kernel @struct_for_task() {
  %x = taichi.get_field @x : memref<16xf32>
  %t = taichi.get_field @total : memref<f32>
  %q = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
  taichi.struct_for (%i) in %x : memref<16xf32> {
    %p = taichi.element_ptr %x[%i] : memref<16xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %old = taichi.atomic_add %q, %v : memref<f32>
    taichi.yield
  }
  taichi.return
}

// Global temporaries are packed in the order the loop first reads them, each aligned to
// its own size: an index takes 8 bytes, an i12 2, an i8 and an i1 one each.
// CHECK-LABEL: offload.kernel @small_tmps
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %a = offload.arg 0 : i32
// CHECK:         %{{.*}} = offload.global_tmp 0 : memref<index>
// CHECK:         %{{.*}} = offload.global_tmp 11 : memref<i1>
// CHECK:         %{{.*}} = offload.global_tmp 8 : memref<i12>
// CHECK:         %{{.*}} = offload.global_tmp 10 : memref<i8>
// CHECK:         offload.range_for
// The task's arguments and loads keep the names of the values they stand for.
// CHECK-NEXT:      %0 = offload.global_tmp 0 : memref<index>
// CHECK-NEXT:      %k = memref.load %0[] : memref<index>
taichi.kernel @small_tmps(%a: i32, %b: i32) {
  %x = taichi.get_field @x : memref<16xf32>
  %ai = arith.index_cast %a : i32 to index
  %one = arith.constant 1 : index
  %k = arith.addi %ai, %one : index
  %c = arith.cmpi slt, %a, %b : i32
  %t = arith.trunci %b : i32 to i12
  %u = arith.trunci %a : i32 to i8
  %lo = arith.constant 0 : i32
  %hi = arith.constant 16 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %ki = arith.index_cast %k : index to i32
    %ti = arith.extsi %t : i12 to i32
    %ui = arith.extsi %u : i8 to i32
    %s = arith.addi %ki, %ti : i32
    %r = arith.addi %s, %ui : i32
    %z = arith.select %c, %r, %i : i32
    %f = arith.sitofp %z : i32 to f32
    %p = taichi.element_ptr %x[%i] : memref<16xf32> -> memref<f32>
    memref.store %f, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// A local that only one serial task uses stays a local of that task (no global
// temporary).
// CHECK-LABEL: offload.kernel @serial_local
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %a = offload.arg 0 : f32
// CHECK-NEXT:      %t = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %pt = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %s = memref.alloca() : memref<f32>
// CHECK-NEXT:      memref.store %a, %s[] : memref<f32>
// CHECK-NEXT:      %v = memref.load %s[] : memref<f32>
// CHECK-NEXT:      memref.store %v, %pt[] : memref<f32>
// CHECK-NEXT:    }
taichi.kernel @serial_local(%a: f32) {
  %x = taichi.get_field @x : memref<16xf32>
  %s = memref.alloca() : memref<f32>
  memref.store %a, %s[] : memref<f32>
  %v = memref.load %s[] : memref<f32>
  %t = taichi.get_field @total : memref<f32>
  %pt = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
  memref.store %v, %pt[] : memref<f32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 16 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %x[%i] : memref<16xf32> -> memref<f32>
    memref.store %a, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

// A place computed in serial code from a loaded index and used only by the loop: the
// loop recomputes it from the index's temporary, and the serial copy (and the field it
// reads) is removed as dead.
// CHECK-LABEL: offload.kernel @dead_in_serial
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %kf = taichi.get_field @k : memref<i32>
// CHECK-NEXT:      %kp = taichi.element_ptr %kf[] : memref<i32> -> memref<i32>
// CHECK-NEXT:      %v = memref.load %kp[] : memref<i32>
// CHECK-NEXT:      %0 = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      memref.store %v, %0[] : memref<i32>
// CHECK-NEXT:    }
taichi.field @k : memref<i32> offset 64
taichi.kernel @dead_in_serial() {
  %x = taichi.get_field @x : memref<16xf32>
  %kf = taichi.get_field @k : memref<i32>
  %kp = taichi.element_ptr %kf[] : memref<i32> -> memref<i32>
  %v = memref.load %kp[] : memref<i32>
  %p = taichi.element_ptr %x[%v] : memref<16xf32> -> memref<f32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 16 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %p[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
