// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// A program's SNode trees are a module attribute: every level with its kind, extents,
// axes, chunk size, mask field, cell list, placed fields and children, in custom and generic form.

// CHECK:      builtin.module attributes {taichi.snode_trees = [
// CHECK-SAME:   #taichi.snode<root [] axes [] children [
// CHECK-SAME:     #taichi.snode<pointer [4, 4] axes [0, 1] mask @ptr children [
// CHECK-SAME:       #taichi.snode<bitmasked [2, 2] axes [0, 1] mask @bits cells @bits_cells places [@x, @y]>]>,
// CHECK-SAME:     #taichi.snode<dense [8] axes [0] children [
// CHECK-SAME:       #taichi.snode<dynamic [64] axes [1] chunk 16 mask @len places [@l]>]>]>]}
builtin.module attributes {taichi.snode_trees = [
  #taichi.snode<root [] axes [] children [
    #taichi.snode<pointer [4, 4] axes [0, 1] mask @ptr children [
      #taichi.snode<bitmasked [2, 2] axes [0, 1] mask @bits cells @bits_cells places [@x, @y]>]>,
    #taichi.snode<dense [8] axes [0] children [
      #taichi.snode<dynamic [64] axes [1] chunk 16 mask @len places [@l]>]>]>]} {
  taichi.field @ptr : memref<4x4xi32> offset 0
}
