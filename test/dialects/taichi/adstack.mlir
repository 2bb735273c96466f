// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// The adstack ops round-trip, and an always-checked assert keeps its keyword.

taichi.kernel @stack(%v: f32, %n: i32, %c: i1) {
  %s = taichi.adstack_alloca : !taichi.adstack<f32, 16>
  %ok = taichi.adstack_push %s, %v : !taichi.adstack<f32, 16>
  taichi.assert %ok, "adstack overflow" always
  taichi.assert %c, "debug only"
  %t = taichi.adstack_load_top %s : !taichi.adstack<f32, 16> -> f32
  taichi.adstack_pop %s : !taichi.adstack<f32, 16>
  %si = taichi.adstack_alloca : !taichi.adstack<i32, 1>
  %oki = taichi.adstack_push %si, %n : !taichi.adstack<i32, 1>
  taichi.return
}

// CHECK-LABEL: taichi.kernel @stack(%v: f32, %n: i32, %c: i1) {
// CHECK-NEXT:    %s = taichi.adstack_alloca : !taichi.adstack<f32, 16>
// CHECK-NEXT:    %ok = taichi.adstack_push %s, %v : !taichi.adstack<f32, 16>
// CHECK-NEXT:    taichi.assert %ok, "adstack overflow" always
// CHECK-NEXT:    taichi.assert %c, "debug only"
// CHECK-NEXT:    %t = taichi.adstack_load_top %s : !taichi.adstack<f32, 16> -> f32
// CHECK-NEXT:    taichi.adstack_pop %s : !taichi.adstack<f32, 16>
// CHECK-NEXT:    %si = taichi.adstack_alloca : !taichi.adstack<i32, 1>
// CHECK-NEXT:    %oki = taichi.adstack_push %si, %n : !taichi.adstack<i32, 1>
