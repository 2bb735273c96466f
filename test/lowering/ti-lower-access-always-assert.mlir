// RUN: ti-opt %s -p ti-lower-access | filecheck %s

// Without debug a plain assert goes, but an `always` one (ti-auto-diff's adstack
// overflow check) writes the error record when its condition is false, as in debug.
// CHECK:       llvm.mlir.global internal constant @guarded.assert0("adstack overflow\00")
// CHECK-NOT:   debug only
// CHECK-LABEL: offload.kernel @guarded
// CHECK:         %[[WORD:.*]] = llvm.getelementptr %ctx[32] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[ERR:.*]] = llvm.load %[[WORD]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[OK:.*]] = arith.cmpi slt
// CHECK-NEXT:    %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    %[[BAD:.*]] = arith.xori %[[OK]], %[[TRUE]] : i1
// CHECK-NEXT:    taichi.if %[[BAD]] {
// CHECK-NEXT:      %[[MSG:.*]] = llvm.mlir.addressof @guarded.assert0 : !llvm.ptr
// CHECK:           %[[CODE:.*]] = arith.constant 2 : i64
// CHECK-NEXT:      %{{.*}} = llvm_ext.cmpxchg %[[ERR]], %{{.*}}, %[[CODE]] seq_cst seq_cst : !llvm.ptr, i64
// CHECK-NOT:   arith.xori
offload.kernel @guarded : (i32) -> () {
  offload.serial {
    %n = offload.arg 0 : i32
    %four = arith.constant 4 : i32
    %ok = arith.cmpi slt, %n, %four : i32
    taichi.assert %ok, "adstack overflow" always
    taichi.assert %ok, "debug only"
  }
}
