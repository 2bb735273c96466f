# RUN: %python %s | filecheck %s
# Texture parameters (kernel source -> taichi dialect): a ti.types.texture is a
# `!taichi.texture<N, sampled>` argument, an rw_texture `!taichi.texture<N, rw, fmt>`;
# fetch / sample_lod / load give four f32 channels (a ti.Vector of 4), store takes
# them; `for i, j in rw` is an ndrange over `taichi.texture_dim` extents. Printing the
# IR needs no Vulkan device (compiling it on the CPU raises; see test_textures.py).

import taichi_xdsl as ti

ti.init(arch=ti.cpu)


@ti.kernel
def blur(
    src: ti.types.texture(num_dimensions=2),
    dst: ti.types.rw_texture(num_dimensions=2, fmt=ti.Format.rgba8, lod=0),
):
    for i, j in dst:
        c = src.fetch(ti.Vector([i, j]), 0)
        s = src.sample_lod(ti.Vector([0.5, 0.25]), 0.0)
        dst.store(ti.Vector([i, j]), (c + s) * 0.5)


class AnyTexture:  # what get_ir needs of an argument: the duck type of ti.Texture
    def vulkan_image(self, runtime):
        raise AssertionError("not launched")


print(blur.get_ir(AnyTexture(), AnyTexture()))

# CHECK-LABEL: taichi.kernel @blur
# CHECK-SAME:    (%[[SRC:.*]]: !taichi.texture<2, sampled>, %[[DST:.*]]: !taichi.texture<2, rw, rgba8>) {
# CHECK-NEXT:    %[[W:.*]] = taichi.texture_dim %[[DST]], 0 : !taichi.texture<2, rw, rgba8>
# CHECK-NEXT:    %[[H:.*]] = taichi.texture_dim %[[DST]], 1 : !taichi.texture<2, rw, rgba8>
# CHECK:         taichi.range_for %[[T:.*]] = %{{.*}} to %{{.*}} : i32 {
# CHECK-NEXT:      %[[J:.*]] = arith.remsi %[[T]], %{{.*}} : i32
# CHECK-NEXT:      %[[I:.*]] = arith.divsi %[[T]], %{{.*}} : i32
# CHECK:           %[[R:.*]], %{{.*}}, %{{.*}}, %{{.*}} = taichi.texture_fetch %[[SRC]][%[[I]], %[[J]]] lod %{{.*}} : !taichi.texture<2, sampled>
# CHECK-NEXT:      %[[C:.*]] = memref.alloca() : memref<f32>
# CHECK-NEXT:      memref.store %[[R]], %[[C]][] : memref<f32>
# CHECK:           %[[SR:.*]], %{{.*}}, %{{.*}}, %{{.*}} = taichi.texture_sample_lod %[[SRC]][%{{.*}}, %{{.*}}] lod %{{.*}} : !taichi.texture<2, sampled>
# CHECK:           taichi.texture_store %[[DST]][%[[I]], %[[J]]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !taichi.texture<2, rw, rgba8>
