// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

// An unknown kind.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<hash [4] axes [0] mask @m>]} {
}
// CHECK: an SNode is one of root, dense, pointer, bitmasked, dynamic, got 'hash'

// -----

// Extents and axes pair up.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<dense [4, 4] axes [0]>]} {
}
// CHECK: #taichi.snode<dense> has 2 extents for 1 axes

// -----

// An axis is used once per level.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<dense [4, 4] axes [0, 0]>]} {
}
// CHECK: #taichi.snode<dense> expects positive extents on distinct axes, got [4, 4] on [0, 0]

// -----

// Only the root has no axes.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [2] axes [0]>]} {
}
// CHECK: #taichi.snode<root>: only the root has no axes

// -----

// A dynamic level's chunk fits in its extent.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<dynamic [64] axes [0] chunk 128 mask @l>]} {
}
// CHECK: #taichi.snode<dynamic> expects one axis and a chunk size in 1..[64], got 128

// -----

// A chunk size on a dense level.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<dense [64] axes [0] chunk 8>]} {
}
// CHECK: #taichi.snode<dense> has a chunk size, which only dynamic SNodes have

// -----

// A sparse level without its mask field.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<pointer [4] axes [0]>]} {
}
// CHECK: #taichi.snode<pointer>: pointer, bitmasked and dynamic SNodes (only) have a mask field

// -----

// A dense level with a mask field.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<dense [4] axes [0] mask @m>]} {
}
// CHECK: #taichi.snode<dense>: pointer, bitmasked and dynamic SNodes (only) have a mask field

// -----

// A root below a level.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<dense [4] axes [0] children [#taichi.snode<root [] axes []>]>]} {
}
// CHECK: #taichi.snode<dense> expects #taichi.snode children below the root, got #taichi.snode<root [] axes []>

// -----

// Nothing but fields under a dynamic level.
builtin.module attributes {taichi.snode_trees = [#taichi.snode<dynamic [4] axes [0] chunk 4 mask @l children [#taichi.snode<dense [2] axes [1]>]>]} {
}
// CHECK: #taichi.snode<dynamic>: a dynamic SNode only has fields placed under it

// -----

// A cell list on a dynamic level (a struct-for walks its lengths, not a list).
builtin.module attributes {taichi.snode_trees = [#taichi.snode<dynamic [4] axes [0] chunk 4 mask @l cells @c>]} {
}
// CHECK: #taichi.snode<dynamic>: only pointer and bitmasked SNodes have a cell list
