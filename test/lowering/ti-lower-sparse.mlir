// RUN: ti-opt %s -p ti-lower-sparse | filecheck %s

taichi.field @mask : memref<4x4xi32> offset 0
taichi.field @len : memref<4xi32> offset 64
taichi.field @x : memref<8xf32> offset 128

// Activation stores 1 into the cell's word; a pointer's deactivation stores 2 (released:
// the gc loop zeroes it later), a bitmasked one's 0.
// CHECK-LABEL: taichi.kernel @activate_deactivate
// CHECK-SAME:    (%[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK-NEXT:    %[[M:.*]] = taichi.get_field @mask : memref<4x4xi32>
// CHECK-NEXT:    %[[P:.*]] = taichi.element_ptr %[[M]][%[[I]], %[[J]]] : memref<4x4xi32> -> memref<i32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    memref.store %[[ONE]], %[[P]][] : memref<i32>
// CHECK-NEXT:    %[[P2:.*]] = taichi.element_ptr %[[M]][%[[J]], %[[I]]] : memref<4x4xi32> -> memref<i32>
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    memref.store %[[TWO]], %[[P2]][] : memref<i32>
// CHECK-NEXT:    %[[P3:.*]] = taichi.element_ptr %[[M]][%[[I]], %[[I]]] : memref<4x4xi32> -> memref<i32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    memref.store %[[ZERO]], %[[P3]][] : memref<i32>
// CHECK-NEXT:    taichi.return
taichi.kernel @activate_deactivate(%i: i32, %j: i32) {
  %m = taichi.get_field @mask : memref<4x4xi32>
  taichi.activate %m[%i, %j] : memref<4x4xi32>
  taichi.deactivate %m[%j, %i] release : memref<4x4xi32>
  taichi.deactivate %m[%i, %i] : memref<4x4xi32>
  taichi.return
}

// is_active compares the word with 1: a released cell (2) is not active.
// CHECK-LABEL: taichi.kernel @is_active
// CHECK:         %[[P:.*]] = taichi.element_ptr %{{.*}}[%[[I:.*]], %[[I]]] : memref<4x4xi32> -> memref<i32>
// CHECK-NEXT:    %[[W:.*]] = memref.load %[[P]][] : memref<i32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[ON:.*]] = arith.cmpi eq, %[[W]], %[[ONE]] : i32
// CHECK-NEXT:    taichi.return %[[ON]] : i1
taichi.kernel @is_active(%i: i32) -> i1 {
  %m = taichi.get_field @mask : memref<4x4xi32>
  %on = taichi.is_active %m[%i, %i] : memref<4x4xi32>
  taichi.return %on : i1
}

// append: an atomic add of 1 whose old value is the result; length: min(len, capacity).
// CHECK-LABEL: taichi.kernel @lists
// CHECK:         %[[P:.*]] = taichi.element_ptr %[[L:.*]][%[[I:.*]]] : memref<4xi32> -> memref<i32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[OLD:.*]] = taichi.atomic_add %[[P]], %[[ONE]] : memref<i32>
// CHECK-NEXT:    %[[Q:.*]] = taichi.element_ptr %[[L]][%[[I]]] : memref<4xi32> -> memref<i32>
// CHECK-NEXT:    %[[N:.*]] = memref.load %[[Q]][] : memref<i32>
// CHECK-NEXT:    %[[CAP:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    %[[LEN:.*]] = arith.minsi %[[N]], %[[CAP]] : i32
// CHECK-NEXT:    taichi.return %[[OLD]], %[[LEN]] : i32, i32
taichi.kernel @lists(%i: i32) -> (i32, i32) {
  %l = taichi.get_field @len : memref<4xi32>
  %old = taichi.append %l[%i] capacity 8 : memref<4xi32>
  %n = taichi.length %l[%i] capacity 8 : memref<4xi32>
  taichi.return %old, %n : i32, i32
}

// Element access of fields is not a cell op: the pass leaves it alone.
// CHECK-LABEL: taichi.kernel @not_a_cell
// CHECK-NEXT:    %[[X:.*]] = taichi.get_field @x : memref<8xf32>
// CHECK-NEXT:    %[[P:.*]] = taichi.element_ptr %[[X]][%{{.*}}] : memref<8xf32> -> memref<f32>
// CHECK-NEXT:    memref.store %{{.*}}, %[[P]][] : memref<f32>
// CHECK-NEXT:    taichi.return
taichi.kernel @not_a_cell(%i: i32, %v: f32) {
  %x = taichi.get_field @x : memref<8xf32>
  %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
  memref.store %v, %p[] : memref<f32>
  taichi.return
}
