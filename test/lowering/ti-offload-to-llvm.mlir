// RUN: ti-opt %s -p ti-offload-to-llvm | filecheck %s
// RUN: ti-opt %s -p ti-offload-to-llvm -t llvm | filecheck %s --check-prefix=IR

// saxpy on ndarrays as ti-to-offload leaves it: a serial task stores the extent in a
// global temporary, the range_for task reads it as its bound, a last serial task
// prints. After the whole pipeline only llvm-dialect functions of the task ABI remain.
// CHECK:       builtin.module {
// CHECK-NEXT:    llvm.func @fflush(!llvm.ptr) -> i32
// CHECK-NEXT:    llvm.func @printf(!llvm.ptr, ...) -> i32
// CHECK-NEXT:    llvm.mlir.global internal constant @saxpy.str0("y[0] = %f\0A\00") {addr_space = 0 : i32} : !llvm.array<11 x i8>

// The extent of x (argument 1, after the 8-byte scalar: its shape word at byte 16).
// CHECK-LABEL: llvm.func @saxpy__task0(%ctx: !llvm.ptr, %begin: i32, %end: i32) {
// CHECK-NEXT:    %[[AP:.*]] = llvm.getelementptr %ctx[24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.load %[[AP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[NP:.*]] = llvm.getelementptr %[[ARGS]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[N:.*]] = llvm.load %[[NP]] {invariant} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[GP:.*]] = llvm.getelementptr %ctx[8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[GTMPS:.*]] = llvm.load %[[GP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[HI:.*]] = llvm.trunc %[[N]] : i64 to i32
// CHECK-NEXT:    llvm.store %[[HI]], %[[GTMPS]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }

// The loop: a, x and y read once before it, the index a header block argument.
// CHECK-LABEL: llvm.func @saxpy__task1(%ctx_1: !llvm.ptr, %begin_1: i32, %end_1: i32) {
// CHECK-NEXT:    %[[AP:.*]] = llvm.getelementptr %ctx_1[24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.load %[[AP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[A:.*]] = llvm.load %[[ARGS]] {invariant} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[XP:.*]] = llvm.getelementptr %[[ARGS]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[XP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[YP:.*]] = llvm.getelementptr %[[ARGS]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[Y:.*]] = llvm.load %[[YP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[HEADER:.*]](%begin_1 : i32)
// CHECK-NEXT:  ^[[HEADER]](%[[I:.*]]: i32):
// CHECK-NEXT:    %[[GO:.*]] = llvm.icmp "slt" %[[I]], %end_1 : i32
// CHECK-NEXT:    llvm.cond_br %[[GO]], ^[[BODY:.*]], ^[[DONE:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[I1:.*]] = llvm.sext %[[I]] : i32 to i64
// CHECK-NEXT:    %[[PX:.*]] = llvm.getelementptr %[[X]][%[[I1]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[I2:.*]] = llvm.sext %[[I]] : i32 to i64
// CHECK-NEXT:    %[[PY:.*]] = llvm.getelementptr %[[Y]][%[[I2]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[VX:.*]] = llvm.load %[[PX]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[VY:.*]] = llvm.load %[[PY]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[M:.*]] = llvm.fmul %[[A]], %[[VX]]
// CHECK-NEXT:    %[[S:.*]] = llvm.fadd %[[M]], %[[VY]]
// CHECK-NEXT:    llvm.store %[[S]], %[[PY]] : f32, !llvm.ptr
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %[[I]], %[[ONE]] overflow<nsw> : i32
// CHECK-NEXT:    llvm.br ^[[HEADER]](%[[NEXT]] : i32)
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }

// The print under an if: branches, printf with the value promoted to double.
// CHECK-LABEL: llvm.func @saxpy__task2(%ctx_2: !llvm.ptr, %begin_2: i32, %end_2: i32) {
// CHECK:         %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         llvm.cond_br %{{.*}}, ^[[PRINT:.*]], ^{{.*}}
// CHECK-NEXT:  ^[[PRINT]]:
// CHECK-NEXT:    %[[FMT:.*]] = llvm.mlir.addressof @saxpy.str0 : !llvm.ptr
// CHECK-NEXT:    %[[D:.*]] = llvm.fpext %[[V]] : f32 to f64
// CHECK-NEXT:    %{{.*}} = llvm.call @printf(%[[FMT]], %[[D]]) vararg(!llvm.func<i32 (!llvm.ptr, ...)>) : (!llvm.ptr, f64) -> i32
// CHECK-NOT:   offload.
// CHECK-NOT:   taichi.
// CHECK-NOT:   arith.
// CHECK-NOT:   cf.

// The LLVM IR of the task functions.
// IR:      @"saxpy.str0" = internal constant [11 x i8] c"y[0] = %f\0a\00"
// IR:      declare i32 @"printf"(ptr %{{.*}}, ...)
// IR:      define void @"saxpy__task0"(ptr %"ctx", i32 %"begin", i32 %"end")
// IR:      define void @"saxpy__task1"(ptr %"ctx", i32 %"begin", i32 %"end")
// IR:        %"i" = phi i32 [%"begin", %"entry"], [%[[NEXT:.*]], %"bb2"]
// IR:        store float %"s", ptr
// IR:        %[[NEXT]] = add nsw i32 %"i", 1
// IR:      define void @"saxpy__task2"(ptr %"ctx", i32 %"begin", i32 %"end")
// IR:        call i32 (ptr, ...) @"printf"(ptr @"saxpy.str0", double %{{.*}})
offload.kernel @saxpy : (f32, memref<?xf32>, memref<?xf32>) -> () {
  offload.serial {
    %x = offload.arg 1 : memref<?xf32>
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %hi = arith.index_cast %n : index to i32
    %0 = offload.global_tmp 0 : memref<i32>
    memref.store %hi, %0[] : memref<i32>
  }
  %lo = arith.constant 0 : i32
  %0 = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %0[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 1 : memref<?xf32>
    %y = offload.arg 2 : memref<?xf32>
    %a = offload.arg 0 : f32
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    %vx = memref.load %px[] : memref<f32>
    %vy = memref.load %py[] : memref<f32>
    %m = arith.mulf %a, %vx : f32
    %s = arith.addf %m, %vy : f32
    memref.store %s, %py[] : memref<f32>
  }
  offload.serial {
    %y = offload.arg 2 : memref<?xf32>
    %c0 = arith.constant 0 : i32
    %p = taichi.element_ptr %y[%c0] : memref<?xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %pos = arith.constant 0.0 : f32
    %big = arith.cmpf ogt, %v, %pos : f32
    taichi.if %big {
      taichi.print "y[0] = {}" %v : f32
      taichi.yield
    }
  }
}
