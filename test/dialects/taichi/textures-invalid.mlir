// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

taichi.kernel @fetch_wrong_rank(%t: !taichi.texture<2, sampled>) {
  %i = arith.constant 0 : i32
  %r, %g, %b, %a = taichi.texture_fetch %t[%i] lod %i : !taichi.texture<2, sampled>
  taichi.return
}
// CHECK: 'taichi.texture_fetch' indexes a 2-d texture with 1 coordinates

// -----

taichi.kernel @load_from_sampled(%t: !taichi.texture<1, sampled>) {
  %i = arith.constant 0 : i32
  %r, %g, %b, %a = taichi.texture_load %t[%i] : !taichi.texture<1, sampled>
  taichi.return
}
// CHECK: 'taichi.texture_load' expects an rw texture, got !taichi.texture<1, sampled>

// -----

taichi.kernel @sample_rw(%t: !taichi.texture<1, rw, r32f>) {
  %u = arith.constant 0.5 : f32
  %r, %g, %b, %a = taichi.texture_sample_lod %t[%u] lod %u : !taichi.texture<1, rw, r32f>
  taichi.return
}
// CHECK: 'taichi.texture_sample_lod' expects a sampled texture, got !taichi.texture<1, rw, r32f>

// -----

taichi.kernel @dim_out_of_range(%t: !taichi.texture<2, rw, r32f>) {
  %d = taichi.texture_dim %t, 2 : !taichi.texture<2, rw, r32f>
  taichi.return
}
// CHECK: 'taichi.texture_dim' reads axis 2 of a 2-d texture

// -----

taichi.kernel @rw_without_format(%t: !taichi.texture<2, rw>) {
  taichi.return
}
// CHECK: an rw texture names its format; a sampled one does not
