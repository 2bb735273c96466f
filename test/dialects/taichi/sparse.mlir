// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// The cell ops of sparse SNodes round-trip in custom and generic form.
taichi.field @mask : memref<4x4xi32> offset 0
taichi.field @len : memref<4xi32> offset 64

// CHECK-LABEL: taichi.kernel @cells
// CHECK-NEXT:    %[[M:.*]] = taichi.get_field @mask : memref<4x4xi32>
// CHECK-NEXT:    %[[L:.*]] = taichi.get_field @len : memref<4xi32>
// CHECK-NEXT:    %[[I:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    taichi.activate %[[M]][%[[I]], %[[I]]] : memref<4x4xi32>
// CHECK-NEXT:    %[[ON:.*]] = taichi.is_active %[[M]][%[[I]], %[[I]]] : memref<4x4xi32>
// CHECK-NEXT:    taichi.deactivate %[[M]][%[[I]], %[[I]]] : memref<4x4xi32>
// CHECK-NEXT:    %[[OLD:.*]] = taichi.append %[[L]][%[[I]]] capacity 8 : memref<4xi32>
// CHECK-NEXT:    %[[N:.*]] = taichi.length %[[L]][%[[I]]] capacity 8 : memref<4xi32>
// CHECK-NEXT:    taichi.return
taichi.kernel @cells() {
  %m = taichi.get_field @mask : memref<4x4xi32>
  %l = taichi.get_field @len : memref<4xi32>
  %i = arith.constant 1 : i32
  taichi.activate %m[%i, %i] : memref<4x4xi32>
  %on = taichi.is_active %m[%i, %i] : memref<4x4xi32>
  taichi.deactivate %m[%i, %i] : memref<4x4xi32>
  %old = taichi.append %l[%i] capacity 8 : memref<4xi32>
  %n = taichi.length %l[%i] capacity 8 : memref<4xi32>
  taichi.return
}

// The pool ops of pointer SNodes and the compare-and-swap round-trip too.
// CHECK-LABEL: taichi.kernel @pools
// CHECK-SAME:    (%[[S:.*]]: memref<4xi32>, %[[F:.*]]: memref<64xi32>, %[[W:.*]]: memref<i32>)
// CHECK-NEXT:    %[[B:.*]] = taichi.pool_alloc %[[S]], %[[F]] : memref<4xi32>, memref<64xi32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[OLD:.*]] = taichi.atomic_cas %[[W]], %[[Z]], %[[B]] : memref<i32>
// CHECK-NEXT:    taichi.pool_release %[[S]], %[[F]], %[[OLD]] : memref<4xi32>, memref<64xi32>
// CHECK-NEXT:    taichi.return
taichi.kernel @pools(%s: memref<4xi32>, %f: memref<64xi32>, %w: memref<i32>) {
  %b = taichi.pool_alloc %s, %f : memref<4xi32>, memref<64xi32>
  %z = arith.constant 0 : i32
  %old = taichi.atomic_cas %w, %z, %b : memref<i32>
  taichi.pool_release %s, %f, %old : memref<4xi32>, memref<64xi32>
  taichi.return
}

// A compare-and-swap of a 64-bit word (a quantized field's word of 64 bits).
// CHECK-LABEL: taichi.kernel @cas_i64
// CHECK-SAME:    (%[[W:.*]]: memref<i64>, %[[E:.*]]: i64, %[[N:.*]]: i64)
// CHECK-NEXT:    %{{.*}} = taichi.atomic_cas %[[W]], %[[E]], %[[N]] : memref<i64>
taichi.kernel @cas_i64(%w: memref<i64>, %e: i64, %n: i64) {
  %old = taichi.atomic_cas %w, %e, %n : memref<i64>
  taichi.return
}

// The cell-list ops of a struct-for's list generation round-trip too.
// CHECK-LABEL: taichi.kernel @cell_lists
// CHECK-SAME:    (%[[L:.*]]: memref<17xi32>, %[[C:.*]]: i32) -> i32
// CHECK-NEXT:    taichi.list_clear %[[L]] : memref<17xi32>
// CHECK-NEXT:    taichi.list_append %[[L]], %[[C]] : memref<17xi32>
// CHECK-NEXT:    %[[N:.*]] = taichi.list_length %[[L]] : memref<17xi32>
// CHECK-NEXT:    %[[E:.*]] = taichi.list_get %[[L]][%[[N]]] : memref<17xi32>
// CHECK-NEXT:    taichi.return %[[E]] : i32
taichi.kernel @cell_lists(%l: memref<17xi32>, %c: i32) -> i32 {
  taichi.list_clear %l : memref<17xi32>
  taichi.list_append %l, %c : memref<17xi32>
  %n = taichi.list_length %l : memref<17xi32>
  %e = taichi.list_get %l[%n] : memref<17xi32>
  taichi.return %e : i32
}
