// RUN: ti-opt %s -p ti-lower-access | filecheck %s

// LLVM's atomicrmw has no multiply: taichi.atomic_mul becomes a compare-and-swap loop
// on the bit pattern of the place; a local slot carries the word seen from one try to
// the next and holds the old value when the swap succeeds.

// CHECK-LABEL: offload.kernel @multiply
// CHECK:         %[[P:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[SEEN:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT:    %[[FIRST:.*]] = llvm.load %[[P]] : !llvm.ptr -> i32
// CHECK-NEXT:    memref.store %[[FIRST]], %[[SEEN]][] : memref<i32>
// CHECK-NEXT:    taichi.while {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[SEEN]][] : memref<i32>
// CHECK-NEXT:      %[[OLD:.*]] = arith.bitcast %[[E]] : i32 to f32
// CHECK-NEXT:      %[[NEW:.*]] = arith.mulf %[[OLD]], %[[F:.*]] : f32
// CHECK-NEXT:      %[[BITS:.*]] = arith.bitcast %[[NEW]] : f32 to i32
// CHECK-NEXT:      %[[PAIR:.*]] = llvm_ext.cmpxchg %[[P]], %[[E]], %[[BITS]] seq_cst seq_cst : !llvm.ptr, i32
// CHECK-NEXT:      %[[NOW:.*]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:      %[[OK:.*]] = llvm.extractvalue %[[PAIR]][1] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:      memref.store %[[NOW]], %[[SEEN]][] : memref<i32>
// CHECK-NEXT:      taichi.if %[[OK]] {
// CHECK-NEXT:        taichi.break
// CHECK-NEXT:      }
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LAST:.*]] = memref.load %[[SEEN]][] : memref<i32>
// CHECK-NEXT:    %[[A:.*]] = arith.bitcast %[[LAST]] : i32 to f32
// CHECK-NEXT:    llvm.store %[[A]], %[[P]] : f32, !llvm.ptr
// On integers no bit pattern needs reinterpreting.
// CHECK:         %[[Q:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() : memref<i64>
// CHECK-NEXT:    %[[QF:.*]] = llvm.load %[[Q]] : !llvm.ptr -> i64
// CHECK-NEXT:    memref.store %[[QF]], %[[S]][] : memref<i64>
// CHECK-NEXT:    taichi.while {
// CHECK-NEXT:      %[[QE:.*]] = memref.load %[[S]][] : memref<i64>
// CHECK-NEXT:      %[[QN:.*]] = arith.muli %[[QE]], %{{.*}} : i64
// CHECK-NEXT:      %{{.*}} = llvm_ext.cmpxchg %[[Q]], %[[QE]], %[[QN]] seq_cst seq_cst : !llvm.ptr, i64
// CHECK-NOT:     atomicrmw
offload.kernel @multiply : (memref<?xf32>, memref<?xi64>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 100 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %f = arith.constant 1.5 : f32
    %p = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %a = taichi.atomic_mul %p, %f : memref<f32>
    memref.store %a, %p[] : memref<f32>
    %y = offload.arg 1 : memref<?xi64>
    %k = arith.constant 3 : i64
    %q = taichi.element_ptr %y[%i] : memref<?xi64> -> memref<i64>
    %b = taichi.atomic_mul %q, %k : memref<i64>
  }
}
