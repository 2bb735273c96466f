// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

taichi.kernel @reduce_kind(%v: f32) {
  %0 = taichi.subgroup_reduce sum reduce %v : f32
  taichi.return
}
// CHECK: 'taichi.subgroup_reduce' kind must be one of add, mul, min, max, and, or, xor, got 'sum'

// -----

taichi.kernel @reduce_mode(%v: f32) {
  %0 = taichi.subgroup_reduce add scan %v : f32
  taichi.return
}
// CHECK: 'taichi.subgroup_reduce' mode must be one of reduce, inclusive, exclusive, got 'scan'

// -----

taichi.kernel @bitwise_float(%v: f32) {
  %0 = taichi.subgroup_reduce xor reduce %v : f32
  taichi.return
}
// CHECK: 'taichi.subgroup_reduce' xor combines integers, got f32

// -----

taichi.kernel @shuffle_kind(%v: f32, %i: i32) {
  %0 = taichi.subgroup_shuffle left %v, %i : f32
  taichi.return
}
// CHECK: 'taichi.subgroup_shuffle' kind must be one of index, xor, up, down, broadcast, got 'left'

// -----

taichi.kernel @vote_float(%v: f32) {
  %0 = taichi.subgroup_vote any %v : f32
  taichi.return
}
// CHECK: 'taichi.subgroup_vote' any tests an integer, got f32

// -----

taichi.kernel @simt_id_kind() {
  %0 = taichi.simt_id lane : i32
  taichi.return
}
// CHECK: 'taichi.simt_id' kind must be one of elect, invocation_id, group_size, thread_idx, global_thread_idx, got 'lane'

// -----

taichi.kernel @device_wait() {
  taichi.barrier device
  taichi.return
}
// CHECK: 'taichi.barrier' cannot wait for the whole device: only memory_only

// -----

taichi.kernel @barrier_scope() {
  taichi.barrier grid
  taichi.return
}
// CHECK: 'taichi.barrier' scope must be one of subgroup, workgroup, device, got 'grid'

// -----

taichi.kernel @shared_dynamic() {
  %a = taichi.shared_array 0 : memref<?xf32>
  taichi.return
}
// CHECK: 'taichi.shared_array' needs a static shape of positive extents, got memref<?xf32>
