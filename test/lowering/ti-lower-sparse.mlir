// RUN: ti-opt %s -p ti-lower-sparse | filecheck %s

taichi.field @mask : memref<4x4xi32> offset 0
taichi.field @len : memref<4xi32> offset 64
taichi.field @x : memref<8xf32> offset 128

// Activation stores 1 into the cell's word (a bitmasked SNode); deactivation stores 0.
// CHECK-LABEL: taichi.kernel @activate_deactivate
// CHECK-SAME:    (%[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK-NEXT:    %[[M:.*]] = taichi.get_field @mask : memref<4x4xi32>
// CHECK-NEXT:    %[[P:.*]] = taichi.element_ptr %[[M]][%[[I]], %[[J]]] : memref<4x4xi32> -> memref<i32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    memref.store %[[ONE]], %[[P]][] : memref<i32>
// CHECK-NEXT:    %[[P3:.*]] = taichi.element_ptr %[[M]][%[[I]], %[[I]]] : memref<4x4xi32> -> memref<i32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    memref.store %[[ZERO]], %[[P3]][] : memref<i32>
// CHECK-NEXT:    taichi.return
taichi.kernel @activate_deactivate(%i: i32, %j: i32) {
  %m = taichi.get_field @mask : memref<4x4xi32>
  taichi.activate %m[%i, %j] : memref<4x4xi32>
  taichi.deactivate %m[%i, %i] : memref<4x4xi32>
  taichi.return
}

// is_active: the word is positive (a pointer word is a block index, -1 while claimed).
// CHECK-LABEL: taichi.kernel @is_active
// CHECK:         %[[P:.*]] = taichi.element_ptr %{{.*}}[%[[I:.*]], %[[I]]] : memref<4x4xi32> -> memref<i32>
// CHECK-NEXT:    %[[W:.*]] = memref.load %[[P]][] : memref<i32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ON:.*]] = arith.cmpi sgt, %[[W]], %[[ZERO]] : i32
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

// pool_alloc pops the free stack (an atomic_sub on state[1]; an entry only when the old
// top was positive), else bumps state[0]: block n + 2, or the sink block 1 with the
// exhausted word state[3] set once n reaches the capacity (64, the free list's size).
// pool_release claims an entry of the release list with an atomic add on state[2].
// CHECK-LABEL: taichi.kernel @pools
// CHECK-SAME:    (%[[S:.*]]: memref<4xi32>, %[[F:.*]]: memref<64xi32>, %[[R:.*]]: memref<64xi32>)
// CHECK-NEXT:    %[[SLOT:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    memref.store %[[Z]], %[[SLOT]][] : memref<i32>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[TOPP:.*]] = taichi.element_ptr %[[S]][%[[C1]]] : memref<4xi32> -> memref<i32>
// CHECK-NEXT:    %[[TOP:.*]] = memref.load %[[TOPP]][] : memref<i32>
// CHECK-NEXT:    %[[HAS:.*]] = arith.cmpi sgt, %[[TOP]], %[[Z]] : i32
// CHECK-NEXT:    taichi.if %[[HAS]] {
// CHECK-NEXT:      %[[K:.*]] = taichi.atomic_sub %[[TOPP]], %[[ONE]] : memref<i32>
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi sgt, %[[K]], %[[Z]] : i32
// CHECK-NEXT:      taichi.if %[[OK]] {
// CHECK-NEXT:        %[[KM1:.*]] = arith.subi %[[K]], %[[ONE]] : i32
// CHECK-NEXT:        %[[FP:.*]] = taichi.element_ptr %[[F]][%[[KM1]]] : memref<64xi32> -> memref<i32>
// CHECK-NEXT:        %[[POPPED:.*]] = memref.load %[[FP]][] : memref<i32>
// CHECK-NEXT:        memref.store %[[POPPED]], %[[SLOT]][] : memref<i32>
// CHECK:         %[[GOT:.*]] = memref.load %[[SLOT]][] : memref<i32>
// CHECK-NEXT:    %[[NONE:.*]] = arith.cmpi eq, %[[GOT]], %[[Z]] : i32
// CHECK-NEXT:    taichi.if %[[NONE]] {
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[NP:.*]] = taichi.element_ptr %[[S]][%[[C0]]] : memref<4xi32> -> memref<i32>
// CHECK-NEXT:      %[[N:.*]] = taichi.atomic_add %[[NP]], %[[ONE]] : memref<i32>
// CHECK-NEXT:      %[[CAP:.*]] = arith.constant 64 : i32
// CHECK-NEXT:      %[[FITS:.*]] = arith.cmpi slt, %[[N]], %[[CAP]] : i32
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[FRESH:.*]] = arith.addi %[[N]], %[[TWO]] : i32
// CHECK-NEXT:      %[[SINK:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[PICK:.*]] = arith.select %[[FITS]], %[[FRESH]], %[[SINK]] : i32
// CHECK-NEXT:      memref.store %[[PICK]], %[[SLOT]][] : memref<i32>
// CHECK-NEXT:      %[[FULL:.*]] = arith.cmpi sge, %[[N]], %[[CAP]] : i32
// CHECK-NEXT:      taichi.if %[[FULL]] {
// CHECK-NEXT:        %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:        %[[XP:.*]] = taichi.element_ptr %[[S]][%[[C3]]] : memref<4xi32> -> memref<i32>
// CHECK-NEXT:        memref.store %[[ONE]], %[[XP]][] : memref<i32>
// CHECK:         %[[B:.*]] = memref.load %[[SLOT]][] : memref<i32>
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[RP:.*]] = taichi.element_ptr %[[S]][%[[C2]]] : memref<4xi32> -> memref<i32>
// CHECK-NEXT:    %[[ONE2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[E:.*]] = taichi.atomic_add %[[RP]], %[[ONE2]] : memref<i32>
// CHECK-NEXT:    %[[EP:.*]] = taichi.element_ptr %[[R]][%[[E]]] : memref<64xi32> -> memref<i32>
// CHECK-NEXT:    memref.store %[[B]], %[[EP]][] : memref<i32>
// CHECK-NEXT:    taichi.return %[[B]] : i32
taichi.kernel @pools(%s: memref<4xi32>, %f: memref<64xi32>, %r: memref<64xi32>) -> i32 {
  %b = taichi.pool_alloc %s, %f : memref<4xi32>, memref<64xi32>
  taichi.pool_release %s, %r, %b : memref<4xi32>, memref<64xi32>
  taichi.return %b : i32
}

// A cell list: word 0 counts the entries, entry k is word 1 + k. Clearing stores 0 in
// the count, an append claims its entry with an atomic add on the count, the length
// loads the count and list_get loads word 1 + index.
// CHECK-LABEL: taichi.kernel @cell_lists
// CHECK-SAME:    (%[[L:.*]]: memref<17xi32>, %[[C:.*]]: i32) -> i32
// CHECK-NEXT:    %[[Z0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[CP0:.*]] = taichi.element_ptr %[[L]][%[[Z0]]] : memref<17xi32> -> memref<i32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    memref.store %[[Z]], %[[CP0]][] : memref<i32>
// CHECK-NEXT:    %[[Z1:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[CP1:.*]] = taichi.element_ptr %[[L]][%[[Z1]]] : memref<17xi32> -> memref<i32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[K:.*]] = taichi.atomic_add %[[CP1]], %[[ONE]] : memref<i32>
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[K]], %[[ONE]] : i32
// CHECK-NEXT:    %[[EP:.*]] = taichi.element_ptr %[[L]][%[[W]]] : memref<17xi32> -> memref<i32>
// CHECK-NEXT:    memref.store %[[C]], %[[EP]][] : memref<i32>
// CHECK-NEXT:    %[[Z2:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[CP2:.*]] = taichi.element_ptr %[[L]][%[[Z2]]] : memref<17xi32> -> memref<i32>
// CHECK-NEXT:    %[[N:.*]] = memref.load %[[CP2]][] : memref<i32>
// CHECK-NEXT:    %[[ONE2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[W2:.*]] = arith.addi %[[N]], %[[ONE2]] : i32
// CHECK-NEXT:    %[[GP:.*]] = taichi.element_ptr %[[L]][%[[W2]]] : memref<17xi32> -> memref<i32>
// CHECK-NEXT:    %[[E:.*]] = memref.load %[[GP]][] : memref<i32>
// CHECK-NEXT:    taichi.return %[[E]] : i32
taichi.kernel @cell_lists(%l: memref<17xi32>, %c: i32) -> i32 {
  taichi.list_clear %l : memref<17xi32>
  taichi.list_append %l, %c : memref<17xi32>
  %n = taichi.list_length %l : memref<17xi32>
  %e = taichi.list_get %l[%n] : memref<17xi32>
  taichi.return %e : i32
}
