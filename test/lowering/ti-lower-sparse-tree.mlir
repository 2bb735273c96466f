// RUN: ti-opt %s -p ti-lower-sparse | filecheck %s

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
