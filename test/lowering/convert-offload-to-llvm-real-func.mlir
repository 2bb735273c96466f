// RUN: ti-opt %s -p convert-offload-to-llvm | filecheck %s
// RUN: ti-opt %s -p convert-offload-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts -t llvm | filecheck %s --check-prefix=IR

// A real function (`func.func`) becomes an internal llvm.func whose first parameter is
// the calling task's RuntimeContext (what `offload.context` is in its body); each
// `func.call` passes on the context of the function it is in (a task's or a real
// function's own first parameter). Local slots become entry allocas, per call.
// CHECK:       builtin.module {
// CHECK-NOT:     func.func
// CHECK-LABEL: llvm.func internal @k__fn0_fact(%ctx: !llvm.ptr, %n: i32) -> i32 {
// CHECK-NEXT:    %[[ONE64:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %s = llvm.alloca %[[ONE64]] x i32 {alignment = 4 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %root = llvm.load %ctx {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %one = arith.constant 1 : i32
// CHECK-NEXT:    llvm.store %one, %s : i32, !llvm.ptr
// CHECK-NEXT:    %more = arith.cmpi sgt, %n, %one : i32
// CHECK-NEXT:    cf.cond_br %more, ^[[REC:.*]], ^[[END:.*]]
// CHECK-NEXT:  ^[[REC]]:
// CHECK-NEXT:    %m = arith.subi %n, %one : i32
// CHECK-NEXT:    %f = llvm.call @k__fn0_fact(%ctx, %m) : (!llvm.ptr, i32) -> i32
// CHECK-NEXT:    %p = arith.muli %f, %n : i32
// CHECK-NEXT:    llvm.store %p, %s : i32, !llvm.ptr
// CHECK-NEXT:    cf.br ^[[END]]
// CHECK-NEXT:  ^[[END]]:
// CHECK-NEXT:    %r = llvm.load %s : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.store %r, %root : i32, !llvm.ptr
// CHECK-NEXT:    llvm.return %r : i32
// CHECK-NEXT:  }
// CHECK-LABEL: llvm.func internal @k__fn1_touch(%ctx_1: !llvm.ptr) {
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
// CHECK-LABEL: llvm.func @k__task0(%ctx_2: !llvm.ptr, %begin: i32, %end: i32) {
// CHECK-NEXT:    %c = arith.constant 5 : i32
// CHECK-NEXT:    %r_1 = llvm.call @k__fn0_fact(%ctx_2, %c) : (!llvm.ptr, i32) -> i32
// CHECK-NEXT:    llvm.call @k__fn1_touch(%ctx_2) : (!llvm.ptr) -> ()
// CHECK-NOT:     func.call

// In LLVM, the real functions are internal (the JIT may inline them; their names
// never clash with another kernel's).
// IR: define internal i32 @"k__fn0_fact"(ptr %"ctx", i32 %"n")
// IR: call i32 @"k__fn0_fact"(ptr %"ctx", i32
// IR: define internal void @"k__fn1_touch"(ptr %"ctx")
// IR: define void @"k__task0"(ptr %"ctx", i32 %"begin", i32 %"end")
// IR: call i32 @"k__fn0_fact"(ptr %"ctx", i32 5)
// IR: call void @"k__fn1_touch"(ptr %"ctx")

taichi.field @x : memref<8xi32> offset 0

func.func private @k__fn0_fact(%n: i32) -> i32 {
  %ctx = offload.context : !llvm.ptr
  %root = llvm.load %ctx {invariant} : !llvm.ptr -> !llvm.ptr
  %s = memref.alloca() : memref<i32>
  %one = arith.constant 1 : i32
  memref.store %one, %s[] : memref<i32>
  %more = arith.cmpi sgt, %n, %one : i32
  cf.cond_br %more, ^bb1, ^bb2
^bb1:
  %m = arith.subi %n, %one : i32
  %f = func.call @k__fn0_fact(%m) : (i32) -> i32
  %p = arith.muli %f, %n : i32
  memref.store %p, %s[] : memref<i32>
  cf.br ^bb2
^bb2:
  %r = memref.load %s[] : memref<i32>
  llvm.store %r, %root : i32, !llvm.ptr
  func.return %r : i32
}

func.func private @k__fn1_touch() {
  func.return
}

offload.kernel @k : () -> i32 {
  offload.serial {
    %c = arith.constant 5 : i32
    %r = func.call @k__fn0_fact(%c) : (i32) -> i32
    func.call @k__fn1_touch() : () -> ()
    offload.set_return 0, %r : i32
  }
}

// A real function with several results (a vector's elements) returns them as one
// struct; the call takes them out with extractvalue.
// CHECK-LABEL: llvm.func internal @k__fn2_pair(%ctx_3: !llvm.ptr, %v: i32) -> !llvm.struct<(i32, i32)> {
// CHECK-NEXT:    %one_1 = arith.constant 1 : i32
// CHECK-NEXT:    %w = arith.addi %v, %one_1 : i32
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i32, i32)>
// CHECK-NEXT:    %[[S0:.*]] = llvm.insertvalue %v, %[[U]][0] : !llvm.struct<(i32, i32)>
// CHECK-NEXT:    %[[S1:.*]] = llvm.insertvalue %w, %[[S0]][1] : !llvm.struct<(i32, i32)>
// CHECK-NEXT:    llvm.return %[[S1]] : !llvm.struct<(i32, i32)>
// CHECK-NEXT:  }
// CHECK-LABEL: llvm.func @k2__task0(
// CHECK-NEXT:    %c_1 = arith.constant 5 : i32
// CHECK-NEXT:    %[[P:.*]] = llvm.call @k__fn2_pair(%{{.*}}, %c_1) : (!llvm.ptr, i32) -> !llvm.struct<(i32, i32)>
// CHECK-NEXT:    %[[A:.*]] = llvm.extractvalue %[[P]][0] : !llvm.struct<(i32, i32)>
// CHECK-NEXT:    %[[B:.*]] = llvm.extractvalue %[[P]][1] : !llvm.struct<(i32, i32)>
// CHECK-NEXT:    %{{.*}} = arith.addi %[[A]], %[[B]] : i32
func.func private @k__fn2_pair(%v: i32) -> (i32, i32) {
  %one = arith.constant 1 : i32
  %w = arith.addi %v, %one : i32
  func.return %v, %w : i32, i32
}

offload.kernel @k2 : () -> i32 {
  offload.serial {
    %c = arith.constant 5 : i32
    %a, %b = func.call @k__fn2_pair(%c) : (i32) -> (i32, i32)
    %s = arith.addi %a, %b : i32
    offload.set_return 0, %s : i32
  }
}
