// RUN: ti-opt %s -p convert-offload-to-llvm | filecheck %s

// An adstack in a task: its buffer and count are allocas at the function's entry, its
// count is reset where the stack is made. A push stores only while the stack has room
// (else it rewrites the top with its own value) and counts the value either way; its
// result says whether it fitted. A top reads the slot under the count, clamped to the
// buffer; a pop lowers the count.
// CHECK-LABEL: llvm.func @stack__task0(%ctx: !llvm.ptr, %begin: i32, %end: i32) {
// CHECK-NEXT:    %[[SIZE:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %[[BUF:.*]] = llvm.alloca %[[SIZE]] x f32 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[ONE64:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[COUNT:.*]] = llvm.alloca %[[ONE64]] x i32 {alignment = 4 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %v = arith.constant 2.500000e+00 : f32
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    llvm.store %[[ZERO]], %[[COUNT]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[N:.*]] = llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[FITS:.*]] = arith.cmpi ult, %[[N]], %[[FOUR]] : i32
// CHECK-NEXT:    %[[LAST:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[I:.*]] = arith.select %[[FITS]], %[[N]], %[[LAST]] : i32
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr %[[BUF]][%[[I]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[OLD:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[KEPT:.*]] = arith.select %[[FITS]], %v, %[[OLD]] : f32
// CHECK-NEXT:    llvm.store %[[KEPT]], %[[P]] : f32, !llvm.ptr
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[GROWN:.*]] = arith.addi %[[N]], %[[ONE]] : i32
// CHECK-NEXT:    llvm.store %[[GROWN]], %[[COUNT]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[N2:.*]] = llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[ONE2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[TOP:.*]] = arith.subi %[[N2]], %[[ONE2]] : i32
// CHECK-NEXT:    %[[LAST2:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[FOUR2:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[TOP]], %[[FOUR2]] : i32
// CHECK-NEXT:    %[[J:.*]] = arith.select %[[IN]], %[[TOP]], %[[LAST2]] : i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.getelementptr %[[BUF]][%[[J]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[T:.*]] = llvm.load %[[Q]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[N3:.*]] = llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[ONE3:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[SHRUNK:.*]] = arith.subi %[[N3]], %[[ONE3]] : i32
// CHECK-NEXT:    llvm.store %[[SHRUNK]], %[[COUNT]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.return
offload.kernel @stack : () -> () {
  offload.serial {
    %v = arith.constant 2.500000e+00 : f32
    %s = taichi.adstack_alloca : !taichi.adstack<f32, 4>
    %fits = taichi.adstack_push %s, %v : !taichi.adstack<f32, 4>
    %t = taichi.adstack_load_top %s : !taichi.adstack<f32, 4> -> f32
    taichi.adstack_pop %s : !taichi.adstack<f32, 4>
  }
}

// At the limit: 131072 f64 are exactly 1 MiB, and an i1 takes one byte (1048576 of
// them fit): both are accepted.
// CHECK-LABEL: llvm.func @at_limit__task0
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(131072) : i64
// CHECK-NEXT:    %{{.*}} = llvm.alloca %[[N]] x f64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @bits__task0
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(1048576) : i64
// CHECK-NEXT:    %{{.*}} = llvm.alloca %[[N]] x i1 {alignment = 8 : i64} : (i64) -> !llvm.ptr
offload.kernel @at_limit : () -> () {
  offload.serial {
    %s = taichi.adstack_alloca : !taichi.adstack<f64, 131072>
  }
}
offload.kernel @bits : () -> () {
  offload.serial {
    %b = taichi.adstack_alloca : !taichi.adstack<i1, 1048576>
  }
}

// A stack made in a loop body (inside an offload.cfg): its buffer and count are still
// allocated once, at the function's entry; only the count's reset is in the loop.
// CHECK-LABEL: llvm.func @in_loop__task0
// CHECK-NEXT:    %[[SIZE:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %{{.*}} = llvm.alloca %[[SIZE]] x f32 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[COUNT:.*]] = llvm.alloca %[[ONE]] x i32 {alignment = 4 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %{{.*}} = arith.constant 2.500000e+00 : f32
// CHECK-NEXT:    cf.br ^bb1(%{{.*}} : i32)
// CHECK:       ^bb2:
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    llvm.store %[[Z]], %[[COUNT]] : i32, !llvm.ptr
offload.kernel @in_loop : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    offload.cfg {
      %s = taichi.adstack_alloca : !taichi.adstack<f32, 4>
      %v = arith.constant 2.5 : f32
      %ok = taichi.adstack_push %s, %v : !taichi.adstack<f32, 4>
      offload.cfg_exit
    }
  }
}
