// RUN: ti-opt %s -p ti-lower-sparse --split-input-file | filecheck %s

// With the module's SNode trees, cell ops that match their level lower as without them
// (the check passes: bitmasked activation, dynamic append with the level's extent);
// the trees stay on the module for the passes after this one.
// CHECK:       builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes []
// CHECK-LABEL: taichi.kernel @checked_against_the_tree
// CHECK-SAME:    (%[[I:.*]]: i32)
// CHECK-NEXT:    %[[B:.*]] = taichi.get_field @bits : memref<4xi32>
// CHECK-NEXT:    %[[P:.*]] = taichi.element_ptr %[[B]][%[[I]]] : memref<4xi32> -> memref<i32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    memref.store %[[ONE]], %[[P]][] : memref<i32>
// CHECK-NEXT:    %[[L:.*]] = taichi.get_field @len : memref<4xi32>
// CHECK-NEXT:    %[[Q:.*]] = taichi.element_ptr %[[L]][%[[I]]] : memref<4xi32> -> memref<i32>
// CHECK-NEXT:    %[[ONE2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[OLD:.*]] = taichi.atomic_add %[[Q]], %[[ONE2]] : memref<i32>
// CHECK-NEXT:    taichi.return %[[OLD]] : i32
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<bitmasked [4] axes [0] mask @bits places [@x]>,
    #taichi.snode<dense [4] axes [0] children [
      #taichi.snode<dynamic [8] axes [1] chunk 8 mask @len places [@l]>]>]>]} {
  taichi.field @bits : memref<4xi32> offset 0
  taichi.field @x : memref<4xf32> offset 64
  taichi.field @len : memref<4xi32> offset 128
  taichi.field @l : memref<4x8xi32> offset 192
  taichi.kernel @checked_against_the_tree(%i: i32) -> i32 {
    %b = taichi.get_field @bits : memref<4xi32>
    taichi.activate %b[%i] : memref<4xi32>
    %l = taichi.get_field @len : memref<4xi32>
    %old = taichi.append %l[%i] capacity 8 : memref<4xi32>
    taichi.return %old : i32
  }
}

// -----

// A cell list that matches its level (a pointer of 2 x 4 cells below a dense: 1 + 8
// words) lowers as without the trees.
// CHECK-LABEL: taichi.kernel @list_of_the_tree
// CHECK-SAME:    (%[[C:.*]]: i32)
// CHECK-NEXT:    %[[L:.*]] = taichi.get_field @ptr_cells : memref<9xi32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[CP:.*]] = taichi.element_ptr %[[L]][%[[Z]]] : memref<9xi32> -> memref<i32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[K:.*]] = taichi.atomic_add %[[CP]], %[[ONE]] : memref<i32>
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<dense [2] axes [0] children [
      #taichi.snode<pointer [4] axes [0] mask @ptr cells @ptr_cells places [@x]>]>]>]} {
  taichi.field @ptr : memref<8xi32> offset 0
  taichi.field @ptr_cells : memref<9xi32> offset 64
  taichi.field @x : memref<10xf32> offset 128
  taichi.kernel @list_of_the_tree(%c: i32) {
    %l = taichi.get_field @ptr_cells : memref<9xi32>
    taichi.list_append %l, %c : memref<9xi32>
    taichi.return
  }
}
