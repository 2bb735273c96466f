// RUN: ti-opt %s -p convert-offload-to-llvm | filecheck %s

// The kernel, its bounds and the field symbols go; the printf and fflush declarations
// and the format strings come first.
// CHECK:      builtin.module {
// CHECK-NEXT:   llvm.func @fflush(!llvm.ptr) -> i32
// CHECK-NEXT:   llvm.func @printf(!llvm.ptr, ...) -> i32
// CHECK-NOT:    taichi.field
// CHECK-NOT:    offload.kernel
taichi.field @x : memref<8xf32> offset 0

// Task N of @k is @k__taskN(ctx, begin, end). A return value is stored at 8 * N in
// the returns buffer.
// CHECK-LABEL: llvm.func @two_tasks__task0(%ctx: !llvm.ptr, %begin: i32, %end: i32) {
// CHECK-NEXT:    %[[C:.*]] = arith.constant 7 : i32
// CHECK-NEXT:    %[[RP:.*]] = llvm.getelementptr %ctx[16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[RETURNS:.*]] = llvm.load %[[RP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[R1:.*]] = llvm.getelementptr %[[RETURNS]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[C]], %[[R1]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }

// A range_for task: thread-local buffer, prologue, the loop over [begin, end) with the
// invariant context read hoisted before it, epilogue.
// CHECK-LABEL: llvm.func @two_tasks__task1(%ctx_1: !llvm.ptr, %begin_1: i32, %end_1: i32) {
// CHECK-NEXT:    %[[SIZE:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %[[TLS:.*]] = llvm.alloca %[[SIZE]] x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    llvm.store %[[Z]], %[[TLS]] : f32, !llvm.ptr
// CHECK-NEXT:    %[[ROOT:.*]] = llvm.load %ctx_1 {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    cf.br ^[[HEADER:.*]](%begin_1 : i32)
// CHECK-NEXT:  ^[[HEADER]](%[[I:.*]]: i32):
// CHECK-NEXT:    %[[GO:.*]] = arith.cmpi slt, %[[I]], %end_1 : i32
// CHECK-NEXT:    cf.cond_br %[[GO]], ^[[BODY:.*]], ^[[EPILOGUE:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[W:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr %[[ROOT]][%[[W]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[ACC:.*]] = llvm.load %[[TLS]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:    llvm.store %[[S]], %[[TLS]] : f32, !llvm.ptr
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[I]], %[[ONE]] overflow<nsw> : i32
// CHECK-NEXT:    cf.br ^[[HEADER]](%[[NEXT]] : i32)
// CHECK-NEXT:  ^[[EPILOGUE]]:
// CHECK-NEXT:    %[[ROOT2:.*]] = llvm.load %ctx_1 {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[ACC2:.*]] = llvm.load %[[TLS]] : !llvm.ptr -> f32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw fadd %[[ROOT2]], %[[ACC2]] monotonic : !llvm.ptr, f32
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
offload.kernel @two_tasks : () -> (i32, i32) {
  offload.serial {
    %c = arith.constant 7 : i32
    offload.set_return 1, %c : i32
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %ctx = offload.context : !llvm.ptr
    %root = llvm.load %ctx {invariant} : !llvm.ptr -> !llvm.ptr
    %tls = offload.thread_local_buffer 4 : !llvm.ptr
    %w = arith.extsi %i : i32 to i64
    %p = llvm.getelementptr %root[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %p : !llvm.ptr -> f32
    %acc = llvm.load %tls : !llvm.ptr -> f32
    %s = arith.addf %acc, %v : f32
    llvm.store %s, %tls : f32, !llvm.ptr
  } prologue {
    %tls = offload.thread_local_buffer 4 : !llvm.ptr
    %z = arith.constant 0.0 : f32
    llvm.store %z, %tls : f32, !llvm.ptr
  } epilogue {
    %tls = offload.thread_local_buffer 4 : !llvm.ptr
    %ctx = offload.context : !llvm.ptr
    %root = llvm.load %ctx {invariant} : !llvm.ptr -> !llvm.ptr
    %acc = llvm.load %tls : !llvm.ptr -> f32
    %old = llvm_ext.atomicrmw fadd %root, %acc monotonic : !llvm.ptr, f32
  }
}

// An offload.cfg's blocks become the function's; local slots are allocated once at the
// entry, even one declared in a loop; print is printf (f32 promoted to double, `%`
// escaped, a newline added) then fflush.
// CHECK:       llvm.mlir.global internal constant @flow.str0("j = %d, f = %f (100%%)\0A\00") {addr_space = 0 : i32} : !llvm.array<24 x i8>
// CHECK-LABEL: llvm.func @flow__task0(%ctx_2: !llvm.ptr, %begin_2: i32, %end_2: i32) {
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[T:.*]] = llvm.alloca %[[ONE]] x i32 {alignment = 4 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[ONE2:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[SLOT:.*]] = llvm.alloca %[[ONE2]] x i32 {alignment = 4 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[N:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    cf.br ^[[HEADER:.*]](%[[Z]] : i32)
// CHECK-NEXT:  ^[[HEADER]](%[[J:.*]]: i32):
// CHECK-NEXT:    %[[GO:.*]] = arith.cmpi slt, %[[J]], %[[N]] : i32
// CHECK-NEXT:    cf.cond_br %[[GO]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    llvm.store %[[J]], %[[T]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[T]] : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.store %[[V]], %[[SLOT]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[V]] : i32 to f32
// CHECK-NEXT:    %[[FMT:.*]] = llvm.mlir.addressof @flow.str0 : !llvm.ptr
// CHECK-NEXT:    %[[D:.*]] = llvm.fpext %[[F]] : f32 to f64
// CHECK-NEXT:    %{{.*}} = llvm.call @printf(%[[FMT]], %[[J]], %[[D]]) vararg(!llvm.func<i32 (!llvm.ptr, ...)>) : (!llvm.ptr, i32, f64) -> i32
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %{{.*}} = llvm.call @fflush(%[[NULL]]) : (!llvm.ptr) -> i32
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[J]], %[[STEP]] : i32
// CHECK-NEXT:    cf.br ^[[HEADER]](%[[NEXT]] : i32)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
offload.kernel @flow : (i32) -> () {
  offload.serial {
    offload.cfg {
      %n = arith.constant 3 : i32
      %slot = memref.alloca() : memref<i32>
      %z = arith.constant 0 : i32
      cf.br ^header(%z : i32)
    ^header(%j: i32):
      %go = arith.cmpi slt, %j, %n : i32
      cf.cond_br %go, ^body, ^exit
    ^body:
      %t = memref.alloca() : memref<i32>
      memref.store %j, %t[] : memref<i32>
      %v = memref.load %t[] : memref<i32>
      memref.store %v, %slot[] : memref<i32>
      %f = arith.sitofp %v : i32 to f32
      taichi.print "j = {}, f = {} (100%)" %j, %f : i32, f32
      %one = arith.constant 1 : i32
      %next = arith.addi %j, %one : i32
      cf.br ^header(%next : i32)
    ^exit:
      offload.cfg_exit
    }
  }
}

// A flow graph with two exits: both go on to the end of the task.
// CHECK-LABEL: llvm.func @two_exits__task0(%ctx_3: !llvm.ptr, %begin_3: i32, %end_3: i32) {
// CHECK-NEXT:    %[[C:.*]] = llvm.load %ctx_3 : !llvm.ptr -> i1
// CHECK-NEXT:    cf.cond_br %[[C]], ^[[A:.*]], ^[[B:.*]]
// CHECK-NEXT:  ^[[A]]:
// CHECK-NEXT:    cf.br ^[[JOIN:.*]]
// CHECK-NEXT:  ^[[B]]:
// CHECK-NEXT:    cf.br ^[[JOIN]]
// CHECK-NEXT:  ^[[JOIN]]:
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
offload.kernel @two_exits : (i1) -> () {
  offload.serial {
    %ctx = offload.context : !llvm.ptr
    offload.cfg {
      %c = llvm.load %ctx : !llvm.ptr -> i1
      cf.cond_br %c, ^a, ^b
    ^a:
      offload.cfg_exit
    ^b:
      offload.cfg_exit
    }
  }
}

// printf's integer promotion, as C varargs do it: a bool (i1) zero-extends to 1, never
// -1; i8 and i16 sign-extend (the IR is signless and prints as signed: -5, -300); i64
// passes as %lld and f64 as is, with Taichi's 12 decimals.
// CHECK:       llvm.mlir.global internal constant @promote.str0("%d %d %d %lld %.12f\0A\00")
// CHECK-LABEL: llvm.func @promote__task0
// CHECK-NEXT:    %[[B:.*]] = arith.constant true
// CHECK-NEXT:    %[[C:.*]] = arith.constant -5 : i8
// CHECK-NEXT:    %[[S:.*]] = arith.constant -300 : i16
// CHECK-NEXT:    %[[L:.*]] = arith.constant -7 : i64
// CHECK-NEXT:    %[[D:.*]] = arith.constant 2.500000e+00 : f64
// CHECK-NEXT:    %[[FMT:.*]] = llvm.mlir.addressof @promote.str0 : !llvm.ptr
// CHECK-NEXT:    %[[B32:.*]] = llvm.zext %[[B]] : i1 to i32
// CHECK-NEXT:    %[[C32:.*]] = llvm.sext %[[C]] : i8 to i32
// CHECK-NEXT:    %[[S32:.*]] = llvm.sext %[[S]] : i16 to i32
// CHECK-NEXT:    %{{.*}} = llvm.call @printf(%[[FMT]], %[[B32]], %[[C32]], %[[S32]], %[[L]], %[[D]]) vararg(!llvm.func<i32 (!llvm.ptr, ...)>) : (!llvm.ptr, i32, i32, i32, i64, f64) -> i32
offload.kernel @promote : () -> () {
  offload.serial {
    %b = arith.constant true
    %c = arith.constant -5 : i8
    %s = arith.constant -300 : i16
    %l = arith.constant -7 : i64
    %d = arith.constant 2.5 : f64
    taichi.print "{} {} {} {} {}" %b, %c, %s, %l, %d : i1, i8, i16, i64, f64
  }
}

// A hole's own spec: printf's flags/width/precision and conversion as given, `ll` added
// for an i64, a float promoted as always; `end` replaces the newline (`%` escaped).
// CHECK:       llvm.mlir.global internal constant @specs.str0("%.10d %08llx %.2e%%\00")
// CHECK-LABEL: llvm.func @specs__task0
// CHECK-NEXT:    %[[I:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    %[[L:.*]] = arith.constant 255 : i64
// CHECK-NEXT:    %[[F:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-NEXT:    %[[FMT:.*]] = llvm.mlir.addressof @specs.str0 : !llvm.ptr
// CHECK-NEXT:    %[[D:.*]] = llvm.fpext %[[F]] : f32 to f64
// CHECK-NEXT:    %{{.*}} = llvm.call @printf(%[[FMT]], %[[I]], %[[L]], %[[D]]) vararg(!llvm.func<i32 (!llvm.ptr, ...)>) : (!llvm.ptr, i32, i64, f64) -> i32
offload.kernel @specs : () -> () {
  offload.serial {
    %i = arith.constant 5 : i32
    %l = arith.constant 255 : i64
    %f = arith.constant 2.5 : f32
    taichi.print "{:.10d} {:08x} {:.2e}" %i, %l, %f : i32, i64, f32 {end = "%"}
  }
}

// Each kernel numbers its own strings: two texts are .str0 and .str1, a text printed
// again reuses its global.
// CHECK-LABEL: llvm.mlir.global internal constant @two_texts.str0("a\0A\00")
// CHECK-NEXT:  llvm.mlir.global internal constant @two_texts.str1("b\0A\00")
// CHECK-LABEL: llvm.func @two_texts__task0
// CHECK-NEXT:    %{{.*}} = llvm.mlir.addressof @two_texts.str0 : !llvm.ptr
// CHECK:         %{{.*}} = llvm.mlir.addressof @two_texts.str1 : !llvm.ptr
// CHECK:         %{{.*}} = llvm.mlir.addressof @two_texts.str0 : !llvm.ptr
// CHECK:       llvm.mlir.global internal constant @hoist.str0("%d %d\0A\00")

// Hoisting out of a range_for: a getelementptr of constants moves before the loop, one
// of the loop index stays in the body.
// CHECK-LABEL: llvm.func @hoist__task0
// CHECK-NEXT:    %[[C:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %{{.*}} = arith.constant 5 : i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.getelementptr %{{.*}}[%[[C]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK-NEXT:    cf.br ^[[HEAD:.*]](%{{.*}} : i32)
// CHECK-NEXT:  ^[[HEAD]](%[[I:.*]]: i32):
// CHECK:         %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK-NEXT:    %{{.*}} = llvm.load %[[P]] : !llvm.ptr -> i8
// CHECK-NEXT:    %{{.*}} = llvm.load %[[Q]] : !llvm.ptr -> i8

// Only a scalar local becomes an llvm.alloca here; a local array is left as it is.
// CHECK-LABEL: llvm.func @array_local__task0
// CHECK-NEXT:    %{{.*}} = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    llvm.return
offload.kernel @two_texts : () -> () {
  offload.serial {
    taichi.print "a"
    taichi.print "b"
    taichi.print "a"
  }
}
offload.kernel @hoist : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %c = arith.constant 3 : i32
    %k = arith.constant 5 : i32
    %m = arith.muli %c, %k : i32
    %j = arith.addi %i, %m : i32
    %j2 = arith.addi %i, %c : i32
    %ctx = offload.context : !llvm.ptr
    %p = llvm.getelementptr %ctx[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i8
    %q = llvm.getelementptr %ctx[%c] : (!llvm.ptr, i32) -> !llvm.ptr, i8
    %v = llvm.load %p : !llvm.ptr -> i8
    %w = llvm.load %q : !llvm.ptr -> i8
    taichi.print "{} {}" %j, %j2 : i32, i32
  }
}
offload.kernel @array_local : () -> () {
  offload.serial {
    %a = memref.alloca() : memref<4xf32>
  }
}

// A local is aligned to its size: 2 for an i16, 1 for an i8 and for an i1 (a byte).
// CHECK-LABEL: llvm.func @byte_locals__task0
// CHECK:         %{{.*}} = llvm.alloca %{{.*}} x i16 {alignment = 2 : i64} : (i64) -> !llvm.ptr
// CHECK:         %{{.*}} = llvm.alloca %{{.*}} x i1 {alignment = 1 : i64} : (i64) -> !llvm.ptr
// CHECK:         %{{.*}} = llvm.alloca %{{.*}} x i8 {alignment = 1 : i64} : (i64) -> !llvm.ptr
offload.kernel @byte_locals : () -> () {
  offload.serial {
    %a = memref.alloca() : memref<i8>
    %b = memref.alloca() : memref<i1>
    %c = memref.alloca() : memref<i16>
  }
}

// A range_for's serial form (ti-add-serial-forms) is a function of its own named after
// the task it stands for, `@k__taskN_serial`, and takes no task number: the task after
// it is task 1.
// CHECK-LABEL: llvm.func @with_serial_form__task0(
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @with_serial_form__task0_serial(
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @with_serial_form__task1(
offload.kernel @with_serial_form : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
  }
  offload.range_for %i = %lo to %hi : i32 {
  } {serial_form}
  offload.serial {
    %c = arith.constant 0 : i32
  }
}
