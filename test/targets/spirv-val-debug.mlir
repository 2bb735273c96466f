// REQUIRES: spirv-tools
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{debug=true}' -t spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{debug=true}' -t spirv-asm | filecheck %s

// Debug-mode checks (bounds checks on a field and an ndarray, an atomic, an assert)
// inside a grid-stride loop: spirv-val must accept the nested selections.
// CHECK-DAG: OpULessThan
// CHECK-DAG: OpAtomicCompareExchange
// CHECK-DAG: OpAtomicIAdd
// CHECK-DAG: OpLogicalNot
taichi.field @x : memref<4x8xf32> offset 0
taichi.kernel @k(%a: memref<?xi32>, %n: i32) {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  %x = taichi.get_field @x : memref<4x8xf32>
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %x[%i, %n] : memref<4x8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %p[] : memref<f32>
    %q = taichi.element_ptr %a[%n] : memref<?xi32> -> memref<i32>
    %o = taichi.atomic_add %q, %n : memref<i32>
    %ok = arith.cmpi slt, %i, %n : i32
    taichi.assert %ok, "i < n"
    taichi.yield
  }
  taichi.return
}
