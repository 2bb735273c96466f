// RUN: ti-opt %s -p ti-demote-dense-struct-for | filecheck %s

taichi.field @x : memref<4x8xf32> offset 0
taichi.field @y : memref<16xi32> offset 128
taichi.field @s : memref<f32> offset 192

// A 2-d field: one flat loop over 4*8 indices; the last index is the remainder, the
// first the quotient (row-major). `serialize` stays.
// CHECK-LABEL: taichi.kernel @field_2d
// CHECK-NEXT:    %[[X:.*]] = taichi.get_field @x : memref<4x8xf32>
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    %[[N:.*]] = arith.constant 32 : i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[L:.*]] = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:      %[[J:.*]] = arith.remsi %[[L]], %[[C8]] : i32
// CHECK-NEXT:      %[[I:.*]] = arith.divsi %[[L]], %[[C8]] : i32
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr %[[X]][%[[I]], %[[J]]] : memref<4x8xf32> -> memref<f32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    } {serialize}
taichi.kernel @field_2d() {
  %x = taichi.get_field @x : memref<4x8xf32>
  taichi.struct_for (%i, %j) in %x : memref<4x8xf32> {
    %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
    taichi.yield
  } {serialize}
  taichi.return
}

// A 1-d field: the loop index is the field index, no div/rem. Attributes (the
// block_dim of ti.loop_config) stay.
// CHECK-LABEL: taichi.kernel @field_1d
// CHECK-NEXT:    %{{.*}} = taichi.get_field @y : memref<16xi32>
// CHECK-NEXT:    %[[N:.*]] = arith.constant 16 : i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[L:.*]] = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:      taichi.print "{}" %[[L]] : i32
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    } {block_dim = 32 : i64}
taichi.kernel @field_1d() {
  %y = taichi.get_field @y : memref<16xi32>
  taichi.struct_for (%i) in %y : memref<16xi32> {
    taichi.print "{}" %i : i32
    taichi.yield
  } {block_dim = 32 : i64}
  taichi.return
}

// A 0-d field has one element: one iteration, no index.
// CHECK-LABEL: taichi.kernel @field_0d
// CHECK-NEXT:    %{{.*}} = taichi.get_field @s : memref<f32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %{{.*}} = %[[LO]] to %[[ONE]] : i32 {
// CHECK-NEXT:      taichi.print "once"
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
taichi.kernel @field_0d() {
  %s = taichi.get_field @s : memref<f32>
  taichi.struct_for () in %s : memref<f32> {
    taichi.print "once"
    taichi.yield
  }
  taichi.return
}

// A 3-d ndarray: its extents come from memref.dim at run time, cast to i32; the
// count is their product; the indices peel off last to first.
// CHECK-LABEL: taichi.kernel @ndarray_3d
// CHECK-SAME:    (%[[A:.*]]: memref<?x?x?xi32>)
// CHECK-NEXT:    %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D0:.*]] = memref.dim %[[A]], %[[K0]] : memref<?x?x?xi32>
// CHECK-NEXT:    %[[E0:.*]] = arith.index_cast %[[D0]] : index to i32
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[D1:.*]] = memref.dim %[[A]], %[[K1]] : memref<?x?x?xi32>
// CHECK-NEXT:    %[[E1:.*]] = arith.index_cast %[[D1]] : index to i32
// CHECK-NEXT:    %[[K2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[D2:.*]] = memref.dim %[[A]], %[[K2]] : memref<?x?x?xi32>
// CHECK-NEXT:    %[[E2:.*]] = arith.index_cast %[[D2]] : index to i32
// CHECK-NEXT:    %[[P01:.*]] = arith.muli %[[E0]], %[[E1]] : i32
// CHECK-NEXT:    %[[N:.*]] = arith.muli %[[P01]], %[[E2]] : i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[L:.*]] = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:      %[[K:.*]] = arith.remsi %[[L]], %[[E2]] : i32
// CHECK-NEXT:      %[[R:.*]] = arith.divsi %[[L]], %[[E2]] : i32
// CHECK-NEXT:      %[[J:.*]] = arith.remsi %[[R]], %[[E1]] : i32
// CHECK-NEXT:      %[[I:.*]] = arith.divsi %[[R]], %[[E1]] : i32
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr %[[A]][%[[I]], %[[J]], %[[K]]] : memref<?x?x?xi32> -> memref<i32>
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
taichi.kernel @ndarray_3d(%a: memref<?x?x?xi32>) {
  taichi.struct_for (%i, %j, %k) in %a : memref<?x?x?xi32> {
    %p = taichi.element_ptr %a[%i, %j, %k] : memref<?x?x?xi32> -> memref<i32>
    taichi.yield
  }
  taichi.return
}

// Must not fire on range_for loops (the frontend's flattened ndrange among them).
// CHECK-LABEL: taichi.kernel @range_for_kept
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %{{.*}} = %[[LO]] to %{{.*}} : i32 {
taichi.kernel @range_for_kept(%n: i32) {
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    taichi.yield
  }
  taichi.return
}

// The largest field an i32 index counts (2**31 - 1 elements) converts; an empty field is
// an extent of 0 (a constant, not a dynamic size).
// CHECK-LABEL: taichi.kernel @edges
// CHECK-NEXT:    %{{.*}} = taichi.get_field @big : memref<2147483647xi8>
// CHECK-NEXT:    %[[N:.*]] = arith.constant 2147483647 : i32
// CHECK:         taichi.range_for %{{.*}} = %{{.*}} to %[[N]] : i32 {
// CHECK:         %{{.*}} = taichi.get_field @empty : memref<0xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK:         taichi.range_for %{{.*}} = %{{.*}} to %[[Z]] : i32 {
taichi.field @big : memref<2147483647xi8> offset 0
taichi.field @empty : memref<0xf32> offset 0
taichi.kernel @edges() {
  %b = taichi.get_field @big : memref<2147483647xi8>
  taichi.struct_for (%i) in %b : memref<2147483647xi8> {
    taichi.yield
  }
  %e = taichi.get_field @empty : memref<0xf32>
  taichi.struct_for (%j) in %e : memref<0xf32> {
    taichi.yield
  }
  taichi.return
}

// A 0 extent of a 2-d field is a constant too (only an ndarray's `?` reads memref.dim).
// CHECK-LABEL: taichi.kernel @empty_2d
// CHECK-NEXT:    %{{.*}} = taichi.get_field @empty2 : memref<4x0xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:           %{{.*}} = arith.remsi %{{.*}}, %[[ZERO]] : i32
taichi.field @empty2 : memref<4x0xf32> offset 0
taichi.kernel @empty_2d() {
  %e = taichi.get_field @empty2 : memref<4x0xf32>
  taichi.struct_for (%i, %j) in %e : memref<4x0xf32> {
    taichi.print "{} {}" %i, %j : i32, i32
    taichi.yield
  }
  taichi.return
}

// One dynamic extent makes the whole count dynamic, wherever it is: the static extents
// are constants multiplied in, the `?` is read with memref.dim (an ndarray of vectors,
// a field-like shape from IR).
// CHECK-LABEL: taichi.kernel @mixed
// CHECK-SAME:    (%[[A:.*]]: memref<?x4xi32>, %[[B:.*]]: memref<4x?xi32>)
// CHECK-NEXT:    %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D0:.*]] = memref.dim %[[A]], %[[K0]] : memref<?x4xi32>
// CHECK-NEXT:    %[[E0:.*]] = arith.index_cast %[[D0]] : index to i32
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[N:.*]] = arith.muli %[[E0]], %[[C4]] : i32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[L:.*]] = %[[LO]] to %[[N]] : i32 {
// CHECK-NEXT:      %[[J:.*]] = arith.remsi %[[L]], %[[C4]] : i32
// CHECK-NEXT:      %[[I:.*]] = arith.divsi %[[L]], %[[C4]] : i32
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr %[[A]][%[[I]], %[[J]]]
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[F4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[D1:.*]] = memref.dim %[[B]], %[[K1]] : memref<4x?xi32>
// CHECK-NEXT:    %[[E1:.*]] = arith.index_cast %[[D1]] : index to i32
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[F4]], %[[E1]] : i32
// CHECK-NEXT:    %[[LO2:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %[[L2:.*]] = %[[LO2]] to %[[M]] : i32 {
// CHECK-NEXT:      %[[Q:.*]] = arith.remsi %[[L2]], %[[E1]] : i32
// CHECK-NEXT:      %[[P:.*]] = arith.divsi %[[L2]], %[[E1]] : i32
// CHECK-NEXT:      %{{.*}} = taichi.element_ptr %[[B]][%[[P]], %[[Q]]]
taichi.kernel @mixed(%a: memref<?x4xi32>, %b: memref<4x?xi32>) {
  taichi.struct_for (%i, %j) in %a : memref<?x4xi32> {
    %p = taichi.element_ptr %a[%i, %j] : memref<?x4xi32> -> memref<i32>
    taichi.yield
  }
  taichi.struct_for (%k, %l) in %b : memref<4x?xi32> {
    %q = taichi.element_ptr %b[%k, %l] : memref<4x?xi32> -> memref<i32>
    taichi.yield
  }
  taichi.return
}
