// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// The ti.simt ops (subgroups and workgroups) round-trip in both forms.
// CHECK-LABEL: taichi.kernel @simt(%v: f32, %n: i32) {
// CHECK-NEXT:    %{{.*}} = taichi.subgroup_reduce add reduce %v : f32
// CHECK-NEXT:    %{{.*}} = taichi.subgroup_reduce max exclusive unsigned %n : i32
// CHECK-NEXT:    %{{.*}} = taichi.subgroup_reduce xor inclusive %n : i32
// CHECK-NEXT:    %{{.*}} = taichi.subgroup_shuffle down %v, %n : f32
// CHECK-NEXT:    %{{.*}} = taichi.subgroup_shuffle broadcast %n, %n : i32
// CHECK-NEXT:    %{{.*}} = taichi.subgroup_broadcast_first %v : f32
// CHECK-NEXT:    %{{.*}} = taichi.subgroup_vote any %n : i32
// CHECK-NEXT:    %{{.*}} = taichi.subgroup_vote all_equal %v : f32
// CHECK-NEXT:    %{{.*}} = taichi.simt_id elect : i32
// CHECK-NEXT:    %{{.*}} = taichi.simt_id global_thread_idx : i32
// CHECK-NEXT:    taichi.barrier workgroup
// CHECK-NEXT:    taichi.barrier subgroup memory_only
// CHECK-NEXT:    taichi.barrier device memory_only
// CHECK-NEXT:    taichi.return
taichi.kernel @simt(%v: f32, %n: i32) {
  %0 = taichi.subgroup_reduce add reduce %v : f32
  %1 = taichi.subgroup_reduce max exclusive unsigned %n : i32
  %2 = taichi.subgroup_reduce xor inclusive %n : i32
  %3 = taichi.subgroup_shuffle down %v, %n : f32
  %4 = taichi.subgroup_shuffle broadcast %n, %n : i32
  %5 = taichi.subgroup_broadcast_first %v : f32
  %6 = taichi.subgroup_vote any %n : i32
  %7 = taichi.subgroup_vote all_equal %v : f32
  %8 = taichi.simt_id elect : i32
  %9 = taichi.simt_id global_thread_idx : i32
  taichi.barrier workgroup
  taichi.barrier subgroup memory_only
  taichi.barrier device memory_only
  taichi.return
}

// CHECK-LABEL: taichi.kernel @shared() {
// CHECK-NEXT:    %{{.*}} = taichi.shared_array 0 : memref<128xf32>
// CHECK-NEXT:    %{{.*}} = taichi.shared_array 1 : memref<4x8xi32>
taichi.kernel @shared() {
  %a = taichi.shared_array 0 : memref<128xf32>
  %b = taichi.shared_array 1 : memref<4x8xi32>
  taichi.return
}
