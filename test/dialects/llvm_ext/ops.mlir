// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// CHECK-LABEL: llvm.func @conversions
// CHECK-SAME:    (%[[X:.*]]: f32, %[[I:.*]]: i32, %[[V:.*]]: vector<4xf32>)
// CHECK-NEXT:    %{{.*}} = llvm_ext.fptosi %[[X]] : f32 to i32
// CHECK-NEXT:    %{{.*}} = llvm_ext.fptoui %[[X]] : f32 to i64
// CHECK-NEXT:    %{{.*}} = llvm_ext.uitofp %[[I]] : i32 to f64
// CHECK-NEXT:    %{{.*}} = llvm_ext.fptosi %[[V]] : vector<4xf32> to vector<4xi32>
llvm.func @conversions(%x: f32, %i: i32, %v: vector<4xf32>) {
  %a = llvm_ext.fptosi %x : f32 to i32
  %b = llvm_ext.fptoui %x : f32 to i64
  %c = llvm_ext.uitofp %i : i32 to f64
  %d = llvm_ext.fptosi %v : vector<4xf32> to vector<4xi32>
  llvm.return
}

// CHECK-LABEL: llvm.func @atomics
// CHECK-SAME:    (%[[P:.*]]: !llvm.ptr, %[[X:.*]]: f32, %[[I:.*]]: i32)
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw add %[[P]], %[[I]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw umin %[[P]], %[[I]] seq_cst : !llvm.ptr, i32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw fadd %[[P]], %[[X]] monotonic : !llvm.ptr, f32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw fmax %[[P]], %[[X]] acq_rel : !llvm.ptr, f32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw xchg %[[P]], %[[X]] seq_cst : !llvm.ptr, f32
// CHECK-NEXT:    %[[PAIR:.*]] = llvm_ext.cmpxchg %[[P]], %[[I]], %[[I]] seq_cst monotonic : !llvm.ptr, i32
// CHECK-NEXT:    %{{.*}} = llvm.extractvalue %[[PAIR]][1] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:    llvm_ext.fence seq_cst
// CHECK-NEXT:    llvm_ext.fence syncscope("singlethread") acquire
llvm.func @atomics(%p: !llvm.ptr, %x: f32, %i: i32) {
  %0 = llvm_ext.atomicrmw add %p, %i monotonic : !llvm.ptr, i32
  %1 = llvm_ext.atomicrmw umin %p, %i seq_cst : !llvm.ptr, i32
  %2 = llvm_ext.atomicrmw fadd %p, %x monotonic : !llvm.ptr, f32
  %3 = llvm_ext.atomicrmw fmax %p, %x acq_rel : !llvm.ptr, f32
  %4 = llvm_ext.atomicrmw xchg %p, %x seq_cst : !llvm.ptr, f32
  %pair = llvm_ext.cmpxchg %p, %i, %i seq_cst monotonic : !llvm.ptr, i32
  %ok = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
  llvm_ext.fence seq_cst
  llvm_ext.fence syncscope("singlethread") acquire
  llvm.return
}
