# RUN: %python %s | filecheck %s
# A program's sparse SNode trees are IR data: the module attribute taichi.snode_trees
# describes every level (kind, extents, axes, chunk size, mask field, placed fields,
# children) of each root tree that holds a sparse level; the cell ops name the masks.

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
# CHECK-SAME:   #taichi.snode<pointer [4, 4] axes [0, 1] mask @[[PTR:[_a-z]+]] children [
# CHECK-SAME:     #taichi.snode<bitmasked [2, 2] axes [0, 1] mask @[[BITS:[_a-z]+]] places [@x, @y]>]>,
# CHECK-SAME:   #taichi.snode<dense [8] axes [0] children [
# CHECK-SAME:     #taichi.snode<dynamic [64] axes [1] chunk 16 mask @[[LEN:[_a-z]+]] places [@l]>]>]>]} {
# CHECK-LABEL:  taichi.kernel @touch
# CHECK:          %[[B:.*]] = taichi.get_field @[[BITS]] : memref<18x2x2xi32>
# CHECK:          %[[L:.*]] = taichi.get_field @[[LEN]] : memref<8xi32>
# CHECK:          taichi.activate %[[B]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<18x2x2xi32>
# CHECK-NEXT:     %{{.*}} = taichi.append %[[L]][%i] capacity 64 : memref<8xi32>
print(touch.get_ir(1))
