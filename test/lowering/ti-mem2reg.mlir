// RUN: ti-opt %s -p ti-mem2reg | filecheck %s

taichi.field @g : memref<f32> offset 0

// A load right after a store in the same block reads the stored value; the slot, read
// nowhere else, goes away with its store.
// CHECK-LABEL: taichi.kernel @same_block
// CHECK-SAME:    (%[[V:.*]]: i32) -> i32
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[V]], %[[V]] : i32
// CHECK-NEXT:    taichi.return %[[W]] : i32
taichi.kernel @same_block(%v: i32) -> i32 {
  %s = memref.alloca() : memref<i32>
  memref.store %v, %s[] : memref<i32>
  %a = memref.load %s[] : memref<i32>
  %w = arith.addi %a, %a : i32
  taichi.return %w : i32
}

// The last of several stores wins.
// CHECK-LABEL: taichi.kernel @last_store_wins
// CHECK-SAME:    (%[[V:.*]]: i32, %[[U:.*]]: i32) -> i32
// CHECK-NEXT:    taichi.return %[[U]] : i32
taichi.kernel @last_store_wins(%v: i32, %u: i32) -> i32 {
  %s = memref.alloca() : memref<i32>
  memref.store %v, %s[] : memref<i32>
  memref.store %u, %s[] : memref<i32>
  %a = memref.load %s[] : memref<i32>
  taichi.return %a : i32
}

// A load in a nested region takes a store from an enclosing block: nothing on the way
// writes the slot, and the loop around the load does not write it either.
// CHECK-LABEL: taichi.kernel @into_nested_regions
// CHECK-SAME:    (%[[V:.*]]: f32, %[[C:.*]]: i1, %[[N:.*]]: i32)
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %{{.*}} = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:      taichi.if %[[C]] {
// CHECK-NEXT:        taichi.print "{}" %[[V]] : f32
// CHECK-NEXT:        taichi.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.return
taichi.kernel @into_nested_regions(%v: f32, %c: i1, %n: i32) {
  %s = memref.alloca() : memref<f32>
  memref.store %v, %s[] : memref<f32>
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    taichi.if %c {
      %a = memref.load %s[] : memref<f32>
      taichi.print "{}" %a : f32
      taichi.yield
    }
    taichi.yield
  }
  taichi.return
}

// Must not fire across the loop's back edge: the store later in the body reaches the
// load at the top of the next iteration, so the load stays (and so does the slot). The
// load after the loop stays too: the loop may or may not have stored.
// CHECK-LABEL: taichi.kernel @loop_carried
// CHECK-SAME:    (%[[V:.*]]: i32, %[[N:.*]]: i32) -> i32
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT:    memref.store %[[V]], %[[S]][] : memref<i32>
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[I:.*]] = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[S]][] : memref<i32>
// CHECK-NEXT:      %[[B:.*]] = arith.addi %[[A]], %[[I]] : i32
// CHECK-NEXT:      memref.store %[[B]], %[[S]][] : memref<i32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = memref.load %[[S]][] : memref<i32>
// CHECK-NEXT:    taichi.return %[[R]] : i32
taichi.kernel @loop_carried(%v: i32, %n: i32) -> i32 {
  %s = memref.alloca() : memref<i32>
  memref.store %v, %s[] : memref<i32>
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    %a = memref.load %s[] : memref<i32>
    %b = arith.addi %a, %i : i32
    memref.store %b, %s[] : memref<i32>
    taichi.yield
  }
  %r = memref.load %s[] : memref<i32>
  taichi.return %r : i32
}

// A store inside a while body is forwarded to a load after it in the same iteration,
// but not to the load at the top of the body.
// CHECK-LABEL: taichi.kernel @while_body
// CHECK:         taichi.while {
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[S:.*]][] : memref<i32>
// CHECK-NEXT:      %[[B:.*]] = arith.addi %[[A]], %[[A]] : i32
// CHECK-NEXT:      memref.store %[[B]], %[[S]][] : memref<i32>
// CHECK-NEXT:      taichi.print "{}" %[[B]] : i32
// CHECK-NEXT:      taichi.break
// CHECK-NEXT:    }
taichi.kernel @while_body(%v: i32) {
  %s = memref.alloca() : memref<i32>
  memref.store %v, %s[] : memref<i32>
  taichi.while {
    %a = memref.load %s[] : memref<i32>
    %b = arith.addi %a, %a : i32
    memref.store %b, %s[] : memref<i32>
    %c = memref.load %s[] : memref<i32>
    taichi.print "{}" %c : i32
    taichi.break
  }
  taichi.return
}

// Must not fire after an `if` that writes the slot on one path: two stores may reach
// the load. Inside the branch, the branch's own store is forwarded.
// CHECK-LABEL: taichi.kernel @conditional_store
// CHECK-SAME:    (%[[V:.*]]: i32, %[[U:.*]]: i32, %[[C:.*]]: i1) -> i32
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT:    memref.store %[[V]], %[[S]][] : memref<i32>
// CHECK-NEXT:    taichi.if %[[C]] {
// CHECK-NEXT:      memref.store %[[U]], %[[S]][] : memref<i32>
// CHECK-NEXT:      taichi.print "{}" %[[U]] : i32
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = memref.load %[[S]][] : memref<i32>
// CHECK-NEXT:    taichi.return %[[R]] : i32
taichi.kernel @conditional_store(%v: i32, %u: i32, %c: i1) -> i32 {
  %s = memref.alloca() : memref<i32>
  memref.store %v, %s[] : memref<i32>
  taichi.if %c {
    memref.store %u, %s[] : memref<i32>
    %a = memref.load %s[] : memref<i32>
    taichi.print "{}" %a : i32
    taichi.yield
  }
  %r = memref.load %s[] : memref<i32>
  taichi.return %r : i32
}

// A store in the else branch cannot reach a load in the then branch.
// CHECK-LABEL: taichi.kernel @other_branch
// CHECK-SAME:    (%[[V:.*]]: i32, %[[U:.*]]: i32, %[[C:.*]]: i1)
// CHECK:         taichi.if %[[C]] {
// CHECK-NEXT:      taichi.print "{}" %[[V]] : i32
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      memref.store %[[U]], %{{.*}}[] : memref<i32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
taichi.kernel @other_branch(%v: i32, %u: i32, %c: i1) {
  %s = memref.alloca() : memref<i32>
  memref.store %v, %s[] : memref<i32>
  taichi.if %c {
    %a = memref.load %s[] : memref<i32>
    taichi.print "{}" %a : i32
    taichi.yield
  } else {
    memref.store %u, %s[] : memref<i32>
    taichi.yield
  }
  %r = memref.load %s[] : memref<i32>
  taichi.print "{}" %r : i32
  taichi.return
}

// An atomic on the slot reads and writes it: the load after it keeps reading memory.
// A load before any store reads an uninitialised slot and stays as it is.
// CHECK-LABEL: taichi.kernel @escapes
// CHECK-SAME:    (%[[V:.*]]: f32) -> f32
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[U:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[V]], %[[S]][] : memref<f32>
// CHECK-NEXT:    %[[OLD:.*]] = taichi.atomic_add %[[S]], %[[U]] : memref<f32>
// CHECK-NEXT:    %[[R:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:    taichi.return %[[R]] : f32
taichi.kernel @escapes(%v: f32) -> f32 {
  %s = memref.alloca() : memref<f32>
  %u = memref.load %s[] : memref<f32>
  memref.store %v, %s[] : memref<f32>
  %old = taichi.atomic_add %s, %u : memref<f32>
  %r = memref.load %s[] : memref<f32>
  taichi.return %r : f32
}

// Global places are not local slots: a field element keeps its loads.
// CHECK-LABEL: taichi.kernel @global_place
// CHECK:         memref.store %{{.*}}, %[[P:.*]][] : memref<f32>
// CHECK-NEXT:    %{{.*}} = memref.load %[[P]][] : memref<f32>
taichi.kernel @global_place(%v: f32) -> f32 {
  %g = taichi.get_field @g : memref<f32>
  %p = taichi.element_ptr %g[] : memref<f32> -> memref<f32>
  memref.store %v, %p[] : memref<f32>
  %r = memref.load %p[] : memref<f32>
  taichi.return %r : f32
}

// Inside an offload task too; the task is the limit of the walk.
// CHECK-LABEL: offload.kernel @in_task
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[A:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      offload.set_return 0, %[[A]] : f32
// CHECK-NEXT:    }
offload.kernel @in_task : (f32) -> f32 {
  offload.serial {
    %a = offload.arg 0 : f32
    %s = memref.alloca() : memref<f32>
    memref.store %a, %s[] : memref<f32>
    %r = memref.load %s[] : memref<f32>
    offload.set_return 0, %r : f32
  }
}
