# RUN: %python %s | filecheck %s
# A program's sparse SNode trees are IR data: the module attribute taichi.snode_trees
# describes every level (kind, extents, axes, chunk size, mask field, cell list, placed
# fields, children) of each root tree that holds a sparse level; the cell ops name the
# masks, the list ops of a struct-for's list generation the cell lists.

import taichi_xdsl as ti

ti.init(arch=ti.cpu)

x = ti.field(ti.f32, name="x")
y = ti.field(ti.i32, name="y")
l = ti.field(ti.i32, name="l")
ti.root.pointer(ti.ij, 4).bitmasked(ti.ij, 2).place(x, y)
ti.root.dense(ti.i, 8).dynamic(ti.j, 64, chunk_size=16).place(l)


@ti.kernel
def touch(i: ti.i32) -> ti.i32:
    ti.activate(x.parent(), [i, i])
    return ti.append(l.parent(), i, 5)


# CHECK:      builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
# CHECK-SAME:   #taichi.snode<pointer [4, 4] axes [0, 1] mask @[[PTR:[_a-z]+]] cells @[[PCELLS:[_a-z]+]] children [
# CHECK-SAME:     #taichi.snode<bitmasked [2, 2] axes [0, 1] mask @[[BITS:[_a-z]+]] cells @[[BCELLS:[_a-z]+]] places [@x, @y]>]>,
# CHECK-SAME:   #taichi.snode<dense [8] axes [0] children [
# CHECK-SAME:     #taichi.snode<dynamic [64] axes [1] chunk 16 mask @[[LEN:[_a-z]+]] places [@l]>]>]>]} {
# CHECK-LABEL:  taichi.kernel @touch
# CHECK:          %[[B:.*]] = taichi.get_field @[[BITS]] : memref<18x2x2xi32>
# CHECK:          %[[L:.*]] = taichi.get_field @[[LEN]] : memref<8xi32>
# CHECK:          taichi.activate %[[B]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<18x2x2xi32>
# CHECK-NEXT:     %{{.*}} = taichi.append %[[L]][%i] capacity 64 : memref<8xi32>
print(touch.get_ir(1))


@ti.kernel
def visit() -> ti.i32:
    s = 0
    for i, j in x:
        s += 1
    return s


# The pointer's list: its 16 cells, tested in a parallel loop; the bitmasked level's
# list: the 4 cells of each listed pointer cell; then the loop over the bitmasked list.
# CHECK-LABEL:  taichi.kernel @visit
# CHECK-DAG:      %[[PC:.*]] = taichi.get_field @[[PCELLS]] : memref<17xi32>
# CHECK-DAG:      %[[BC:.*]] = taichi.get_field @[[BCELLS]] : memref<65xi32>
# CHECK:          taichi.list_clear %[[PC]] : memref<17xi32>
# CHECK:          taichi.range_for %[[K:.*]] = %{{.*}} to %{{.*}} : i32 {
# CHECK:            taichi.list_append %[[PC]], %[[K]] : memref<17xi32>
# CHECK:          taichi.list_clear %[[BC]] : memref<65xi32>
# CHECK-NEXT:     %[[N:.*]] = taichi.list_length %[[PC]] : memref<17xi32>
# CHECK-NEXT:     %[[FOUR:.*]] = arith.constant 4 : i32
# CHECK-NEXT:     %[[M:.*]] = arith.muli %[[N]], %[[FOUR]] : i32
# CHECK:          taichi.range_for %[[K2:.*]] = %{{.*}} to %[[M]] : i32 {
# CHECK:            %{{.*}} = taichi.list_get %[[PC]][%{{.*}}] : memref<17xi32>
# CHECK:            taichi.list_append %[[BC]], %{{.*}} : memref<65xi32>
# CHECK:          %[[L2:.*]] = taichi.list_length %[[BC]] : memref<65xi32>
# CHECK:          taichi.range_for %[[E:.*]] = %{{.*}} to %[[L2]] : i32 {
# CHECK-NEXT:       %{{.*}} = taichi.list_get %[[BC]][%[[E]]] : memref<65xi32>
print(visit.get_ir())
