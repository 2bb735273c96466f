// RUN: ti-opt %s -p ti-lower-sparse --split-input-file --verify-diagnostics | filecheck %s

// A store of 1 into a pointer's word would make block 1 (the sink) the cell's block:
// a pointer is activated by taking a pool block, never by taichi.activate.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<pointer [4] axes [0] mask @ptr places [@x]>]>]} {
  taichi.field @ptr : memref<4xi32> offset 0
  taichi.field @x : memref<6xf32> offset 64
  taichi.kernel @activate_pointer(%i: i32) {
    %m = taichi.get_field @ptr : memref<4xi32>
    taichi.activate %m[%i] : memref<4xi32>
    taichi.return
  }
}
// CHECK: ti-lower-sparse: taichi.activate on @ptr, the cell words of a pointer SNode: it works on bitmasked SNodes only

// -----

// A store of 0 into a pointer's word would leak its block (pool_release gives it back).
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<pointer [4] axes [0] mask @ptr places [@x]>]>]} {
  taichi.field @ptr : memref<4xi32> offset 0
  taichi.field @x : memref<6xf32> offset 64
  taichi.kernel @deactivate_pointer(%i: i32) {
    %m = taichi.get_field @ptr : memref<4xi32>
    taichi.deactivate %m[%i] : memref<4xi32>
    taichi.return
  }
}
// CHECK: ti-lower-sparse: taichi.deactivate on @ptr, the cell words of a pointer SNode: it works on bitmasked and dynamic SNodes only

// -----

// A list op on a bitmasked mask.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<bitmasked [4] axes [0] mask @bits places [@x]>]>]} {
  taichi.field @bits : memref<4xi32> offset 0
  taichi.field @x : memref<4xf32> offset 64
  taichi.kernel @append_to_bitmasked(%i: i32) -> i32 {
    %m = taichi.get_field @bits : memref<4xi32>
    %old = taichi.append %m[%i] capacity 4 : memref<4xi32>
    taichi.return %old : i32
  }
}
// CHECK: ti-lower-sparse: taichi.append on @bits, the cell words of a bitmasked SNode: it works on dynamic SNodes only

// -----

// is_active reads activity words; a dynamic level has lengths.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<dense [4] axes [0] children [
      #taichi.snode<dynamic [8] axes [1] chunk 8 mask @len places [@l]>]>]>]} {
  taichi.field @len : memref<4xi32> offset 0
  taichi.field @l : memref<4x8xi32> offset 64
  taichi.kernel @is_active_on_lengths(%i: i32) -> i1 {
    %m = taichi.get_field @len : memref<4xi32>
    %on = taichi.is_active %m[%i] : memref<4xi32>
    taichi.return %on : i1
  }
}
// CHECK: ti-lower-sparse: taichi.is_active on @len, the cell words of a dynamic SNode: it works on pointer and bitmasked SNodes only

// -----

// The capacity of a list op is the dynamic level's extent.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<dense [4] axes [0] children [
      #taichi.snode<dynamic [8] axes [1] chunk 8 mask @len places [@l]>]>]>]} {
  taichi.field @len : memref<4xi32> offset 0
  taichi.field @l : memref<4x8xi32> offset 64
  taichi.kernel @length_wrong_capacity(%i: i32) -> i32 {
    %m = taichi.get_field @len : memref<4xi32>
    %n = taichi.length %m[%i] capacity 16 : memref<4xi32>
    taichi.return %n : i32
  }
}
// CHECK: ti-lower-sparse: taichi.length with capacity 16 on @len, a dynamic SNode of 8 cells

// -----

// A field that is no level's mask.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<bitmasked [4] axes [0] mask @bits places [@x]>]>]} {
  taichi.field @bits : memref<4xi32> offset 0
  taichi.field @x : memref<4xi32> offset 64
  taichi.kernel @activate_a_data_field(%i: i32) {
    %m = taichi.get_field @x : memref<4xi32>
    taichi.activate %m[%i] : memref<4xi32>
    taichi.return
  }
}
// CHECK: ti-lower-sparse: taichi.activate on @x, which is no sparse SNode's mask

// -----

// A list op on a field that is no level's cell list: appending would write the count
// and the entries into that field's data.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<pointer [4] axes [0] mask @ptr cells @ptr_cells places [@x]>]>]} {
  taichi.field @ptr : memref<4xi32> offset 0
  taichi.field @ptr_cells : memref<5xi32> offset 64
  taichi.field @x : memref<6xi32> offset 128
  taichi.kernel @append_to_a_field(%c: i32) {
    %l = taichi.get_field @x : memref<6xi32>
    taichi.list_append %l, %c : memref<6xi32>
    taichi.return
  }
}
// CHECK: ti-lower-sparse: taichi.list_append on @x, which is no sparse SNode's cell list

// -----

// A cell list shorter than its level's cells (2 x 4 of a pointer below a dense): a full
// list would write past its end.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<dense [2] axes [0] children [
      #taichi.snode<pointer [4] axes [0] mask @ptr cells @ptr_cells places [@x]>]>]>]} {
  taichi.field @ptr : memref<8xi32> offset 0
  taichi.field @ptr_cells : memref<5xi32> offset 64
  taichi.field @x : memref<10xf32> offset 128
  taichi.kernel @short_list(%c: i32) {
    %l = taichi.get_field @ptr_cells : memref<5xi32>
    taichi.list_append %l, %c : memref<5xi32>
    taichi.return
  }
}
// CHECK: ti-lower-sparse: taichi.list_append on @ptr_cells as memref<5xi32>, the cell list of a level of 8 cells (memref<9xi32>)
