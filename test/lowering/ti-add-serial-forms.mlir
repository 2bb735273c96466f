// RUN: ti-opt %s -p ti-add-serial-forms | filecheck %s
// RUN: ti-opt %s -p ti-add-serial-forms,ti-add-serial-forms | filecheck %s

taichi.field @grid : memref<16xf32> offset 0
taichi.field @count : memref<i32> offset 64
taichi.field @s : memref<f32> offset 128

// A scatter with atomics on shared cells: the task is followed by its serial form,
// same bounds, where each atomic is load, combine, store and its result (a slot
// allocation's index) is the loaded value. The parallel form keeps its atomics. A
// second run of the pass adds no second form.
// CHECK-LABEL: offload.kernel @scatter
// CHECK:         %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 64 : i32
// CHECK-NEXT:    offload.range_for %[[P:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK:           %{{.*}} = taichi.atomic_add %{{.*}}, %{{.*}} : memref<f32>
// CHECK:           %{{.*}} = taichi.atomic_add %{{.*}}, %{{.*}} : memref<i32>
// CHECK:         }
// CHECK-NEXT:    offload.range_for %[[Q:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK:           %[[CELL:.*]] = taichi.element_ptr %{{.*}}[%{{.*}}] : memref<16xf32> -> memref<f32>
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %[[CELL]][] : memref<f32>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:      memref.store %[[NEW]], %[[CELL]][] : memref<f32>
// CHECK-NEXT:      %[[SLOT:.*]] = taichi.element_ptr %{{.*}}[] : memref<i32> -> memref<i32>
// CHECK-NEXT:      %[[N:.*]] = memref.load %[[SLOT]][] : memref<i32>
// CHECK-NEXT:      %[[N1:.*]] = arith.addi %[[N]], %{{.*}} : i32
// CHECK-NEXT:      memref.store %[[N1]], %[[SLOT]][] : memref<i32>
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr %{{.*}}[%[[N]]]
// CHECK-NOT:       taichi.atomic
// CHECK:         } {serial_form}
// CHECK-NOT:     serial_form
// CHECK-LABEL: offload.kernel @reduction
offload.kernel @scatter : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %p = %lo to %hi : i32 {
    %grid = taichi.get_field @grid : memref<16xf32>
    %count = taichi.get_field @count : memref<i32>
    %w = arith.constant 0.5 : f32
    %one = arith.constant 1 : i32
    %c15 = arith.constant 15 : i32
    %cell_index = arith.andi %p, %c15 : i32
    %cell = taichi.element_ptr %grid[%cell_index] : memref<16xf32> -> memref<f32>
    %0 = taichi.atomic_add %cell, %w : memref<f32>
    %slot = taichi.element_ptr %count[] : memref<i32> -> memref<i32>
    %n = taichi.atomic_add %slot, %one : memref<i32>
    %mine = taichi.element_ptr %grid[%n] : memref<16xf32> -> memref<f32>
    memref.store %w, %mine[] : memref<f32>
  }
}

// A reduction (ti-make-thread-local's form): the body adds to a thread-local slot
// without atomics, and the epilogue's one atomic a chunk is no reason for a second form.
// CHECK:         offload.range_for
// CHECK:         } epilogue {
// CHECK:           taichi.atomic_add
// CHECK-NEXT:    }
// CHECK-NEXT:  }
offload.kernel @reduction : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %acc = offload.thread_local 0 : memref<f32>
    %one = arith.constant 1.0 : f32
    %v = memref.load %acc[] : memref<f32>
    %v1 = arith.addf %v, %one : f32
    memref.store %v1, %acc[] : memref<f32>
  } epilogue {
    %acc = offload.thread_local 0 : memref<f32>
    %v = memref.load %acc[] : memref<f32>
    %s = taichi.get_field @s : memref<f32>
    %sum = taichi.element_ptr %s[] : memref<f32> -> memref<f32>
    %0 = taichi.atomic_add %sum, %v : memref<f32>
  }
}

// A serial task runs on one thread already (ti-demote-atomics demotes its atomics).
// CHECK-LABEL: offload.kernel @serial_task
// CHECK:         offload.serial {
// CHECK:           taichi.atomic_add
// CHECK-NOT:     serial_form
offload.kernel @serial_task : () -> () {
  offload.serial {
    %s = taichi.get_field @s : memref<f32>
    %sum = taichi.element_ptr %s[] : memref<f32> -> memref<f32>
    %one = arith.constant 1.0 : f32
    %0 = taichi.atomic_add %sum, %one : memref<f32>
  }
}
