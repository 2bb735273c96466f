// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// Texture arguments and their accesses round-trip (custom and generic form).
// CHECK-LABEL: taichi.kernel @textures(%t: !taichi.texture<2, sampled>, %w: !taichi.texture<3, rw, rgba8>) {
// CHECK-NEXT:    %[[I:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[U:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    %[[R:.*]], %[[G:.*]], %[[B:.*]], %[[A:.*]] = taichi.texture_fetch %t[%[[I]], %[[I]]] lod %[[I]] : !taichi.texture<2, sampled>
// CHECK-NEXT:    %[[SR:.*]], %{{.*}}, %{{.*}}, %{{.*}} = taichi.texture_sample_lod %t[%[[U]], %[[U]]] lod %[[U]] : !taichi.texture<2, sampled>
// CHECK-NEXT:    %[[LR:.*]], %[[LG:.*]], %{{.*}}, %{{.*}} = taichi.texture_load %w[%[[I]], %[[I]], %[[I]]] : !taichi.texture<3, rw, rgba8>
// CHECK-NEXT:    taichi.texture_store %w[%[[I]], %[[I]], %[[I]]], %[[R]], %[[SR]], %[[LG]], %[[A]] : !taichi.texture<3, rw, rgba8>
// CHECK-NEXT:    %{{.*}} = taichi.texture_dim %w, 2 : !taichi.texture<3, rw, rgba8>
// CHECK-NEXT:    taichi.return
taichi.kernel @textures(%t: !taichi.texture<2, sampled>, %w: !taichi.texture<3, rw, rgba8>) {
  %i = arith.constant 1 : i32
  %u = arith.constant 0.5 : f32
  %r, %g, %b, %a = taichi.texture_fetch %t[%i, %i] lod %i : !taichi.texture<2, sampled>
  %sr, %sg, %sb, %sa = taichi.texture_sample_lod %t[%u, %u] lod %u : !taichi.texture<2, sampled>
  %lr, %lg, %lb, %la = taichi.texture_load %w[%i, %i, %i] : !taichi.texture<3, rw, rgba8>
  taichi.texture_store %w[%i, %i, %i], %r, %sr, %lg, %a : !taichi.texture<3, rw, rgba8>
  %d = taichi.texture_dim %w, 2 : !taichi.texture<3, rw, rgba8>
  taichi.return
}
