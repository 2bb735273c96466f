// RUN: ti-opt %s -p ti-scalarize --split-input-file | filecheck %s

// A whole-vector load of a 2-d field of 2-vectors becomes one element_ptr + load per
// component, at the load's position; extracts fold to those scalars.
taichi.field @v : memref<8x8x2xf32> offset 0
taichi.kernel @load_components(%i: i32, %j: i32) -> (f32, f32) {
  %x = taichi.get_field @v : memref<8x8x2xf32>
  %ii = arith.index_cast %i : i32 to index
  %jj = arith.index_cast %j : i32 to index
  %c0 = arith.constant 0 : index
  %vec = vector.load %x[%ii, %jj, %c0] : memref<8x8x2xf32>, vector<2xf32>
  %a = vector.extract %vec[0] : f32 from vector<2xf32>
  %b = vector.extract %vec[1] : f32 from vector<2xf32>
  taichi.return %a, %b : f32, f32
}

// CHECK-LABEL: taichi.kernel @load_components
// CHECK-SAME:    (%[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK:         %[[X:.*]] = taichi.get_field @v
// CHECK:         %[[K0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[P0:.*]] = taichi.element_ptr %[[X]][%[[I]], %[[J]], %[[K0]]] : memref<8x8x2xf32> -> memref<f32>
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[P1:.*]] = taichi.element_ptr %[[X]][%[[I]], %[[J]], %[[K1]]] : memref<8x8x2xf32> -> memref<f32>
// CHECK-NEXT:    %[[S0:.*]] = memref.load %[[P0]][] : memref<f32>
// CHECK-NEXT:    %[[S1:.*]] = memref.load %[[P1]][] : memref<f32>
// CHECK-NOT:     vector.
// CHECK:         taichi.return %[[S0]], %[[S1]] : f32, f32

// -----

// A whole-vector store of a value built from scalars: one scalar store per component.
taichi.field @w : memref<4x3xf32> offset 0
taichi.kernel @store_built(%i: i32, %a: f32, %b: f32) {
  %x = taichi.get_field @w : memref<4x3xf32>
  %ii = arith.index_cast %i : i32 to index
  %c0 = arith.constant 0 : index
  %v0 = vector.broadcast %a : f32 to vector<3xf32>
  %v1 = vector.insert %b, %v0 [2] : f32 into vector<3xf32>
  vector.store %v1, %x[%ii, %c0] : memref<4x3xf32>, vector<3xf32>
  taichi.return
}

// CHECK-LABEL: taichi.kernel @store_built
// CHECK-SAME:    (%[[I:.*]]: i32, %[[A:.*]]: f32, %[[B:.*]]: f32)
// CHECK:         %[[P0:.*]] = taichi.element_ptr %{{.*}}[%[[I]], %{{.*}}] : memref<4x3xf32> -> memref<f32>
// CHECK:         %[[P1:.*]] = taichi.element_ptr %{{.*}}[%[[I]], %{{.*}}] : memref<4x3xf32> -> memref<f32>
// CHECK:         %[[P2:.*]] = taichi.element_ptr %{{.*}}[%[[I]], %{{.*}}] : memref<4x3xf32> -> memref<f32>
// CHECK-NEXT:    memref.store %[[A]], %[[P0]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[A]], %[[P1]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[B]], %[[P2]][] : memref<f32>
// CHECK-NEXT:    taichi.return

// -----

// Element-wise arith on vectors (a matrix here) splits into one scalar op per component;
// a splat constant becomes a scalar constant.
taichi.kernel @elementwise(%a: f32, %b: f32) -> f32 {
  %va = vector.broadcast %a : f32 to vector<2x2xf32>
  %vb = vector.broadcast %b : f32 to vector<2x2xf32>
  %two = arith.constant dense<2.0> : vector<2x2xf32>
  %s = arith.addf %va, %vb : vector<2x2xf32>
  %m = arith.mulf %s, %two : vector<2x2xf32>
  %r = vector.extract %m[1, 0] : f32 from vector<2x2xf32>
  taichi.return %r : f32
}

// CHECK-LABEL: taichi.kernel @elementwise
// CHECK-SAME:    (%[[A:.*]]: f32, %[[B:.*]]: f32)
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[S]], %[[TWO]] : f32
// CHECK-NEXT:    taichi.return %[[M]] : f32

// -----

// A constant of distinct components: each extract takes its own component (row-major:
// [1, 0] is the third), not the first.
taichi.kernel @constant_components(%a: f32) -> f32 {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : vector<2x2xf32>
  %va = vector.broadcast %a : f32 to vector<2x2xf32>
  %m = arith.mulf %va, %c : vector<2x2xf32>
  %r = vector.extract %m[1, 0] : f32 from vector<2x2xf32>
  taichi.return %r : f32
}

// CHECK-LABEL: taichi.kernel @constant_components
// CHECK-SAME:    (%[[A:.*]]: f32)
// CHECK-NEXT:    %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[A]], %[[THREE]] : f32
// CHECK-NEXT:    taichi.return %[[M]] : f32

// -----

// Scalar code is left alone: the pass must not fire.
taichi.field @s : memref<4xf32> offset 0
taichi.kernel @scalar_only(%i: i32) -> f32 {
  %x = taichi.get_field @s : memref<4xf32>
  %p = taichi.element_ptr %x[%i] : memref<4xf32> -> memref<f32>
  %v = memref.load %p[] : memref<f32>
  taichi.return %v : f32
}

// CHECK-LABEL: taichi.kernel @scalar_only
// CHECK-NEXT:    %[[X:.*]] = taichi.get_field @s : memref<4xf32>
// CHECK-NEXT:    %[[P:.*]] = taichi.element_ptr %[[X]][%{{.*}}] : memref<4xf32> -> memref<f32>
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[P]][] : memref<f32>
// CHECK-NEXT:    taichi.return %[[V]] : f32

// -----

// Index operands that are not casts of an i32: each is cast once per place, and a
// component past the first adds its offset to the cast.
taichi.field @v : memref<8x4xf32> offset 0
taichi.kernel @index_operands(%n: index, %k: index) -> (f32, f32) {
  %x = taichi.get_field @v : memref<8x4xf32>
  %vec = vector.load %x[%n, %k] : memref<8x4xf32>, vector<2xf32>
  %a = vector.extract %vec[0] : f32 from vector<2xf32>
  %b = vector.extract %vec[1] : f32 from vector<2xf32>
  taichi.return %a, %b : f32, f32
}

// CHECK-LABEL: taichi.kernel @index_operands
// CHECK-SAME:    (%[[N:.*]]: index, %[[K:.*]]: index)
// CHECK-NEXT:    %[[X:.*]] = taichi.get_field @v : memref<8x4xf32>
// CHECK-NEXT:    %[[N32:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK-NEXT:    %[[K32:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:    %[[P0:.*]] = taichi.element_ptr %[[X]][%[[N32]], %[[K32]]] : memref<8x4xf32> -> memref<f32>
// CHECK-NEXT:    %[[K32B:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[K1:.*]] = arith.addi %[[K32B]], %[[ONE]] : i32
// CHECK-NEXT:    %[[P1:.*]] = taichi.element_ptr %[[X]][%[[N32]], %[[K1]]] : memref<8x4xf32> -> memref<f32>
// CHECK-NEXT:    %[[A:.*]] = memref.load %[[P0]][] : memref<f32>
// CHECK-NEXT:    %[[B:.*]] = memref.load %[[P1]][] : memref<f32>
// CHECK-NEXT:    taichi.return %[[A]], %[[B]] : f32, f32

// -----

// A select of vectors keeps its scalar condition.
taichi.kernel @select_components(%c: i1, %a: f32, %b: f32) -> f32 {
  %va = vector.broadcast %a : f32 to vector<2xf32>
  %vb = vector.broadcast %b : f32 to vector<2xf32>
  %s = arith.select %c, %va, %vb : vector<2xf32>
  %r = vector.extract %s[1] : f32 from vector<2xf32>
  taichi.return %r : f32
}

// CHECK-LABEL: taichi.kernel @select_components
// CHECK-SAME:    (%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32)
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[C]], %[[A]], %[[B]] : f32
// CHECK-NEXT:    taichi.return %[[R]] : f32

// -----

// An integer constant of distinct components gives its own component as an integer; a
// one-component constant its only one.
taichi.kernel @int_components(%a: i32) -> (i32, f32) {
  %c = arith.constant dense<[7, 9]> : vector<2xi32>
  %va = vector.broadcast %a : i32 to vector<2xi32>
  %m = arith.addi %va, %c : vector<2xi32>
  %r = vector.extract %m[1] : i32 from vector<2xi32>
  %one = arith.constant dense<[5.0]> : vector<1xf32>
  %f = vector.extract %one[0] : f32 from vector<1xf32>
  taichi.return %r, %f : i32, f32
}

// CHECK-LABEL: taichi.kernel @int_components
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NEXT:    %[[NINE:.*]] = arith.constant 9 : i32
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[A]], %[[NINE]] : i32
// CHECK-NEXT:    %[[F:.*]] = arith.constant 5.000000e+00 : f32
// CHECK-NEXT:    taichi.return %[[R]], %[[F]] : i32, f32
