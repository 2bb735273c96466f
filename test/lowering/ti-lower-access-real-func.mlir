// RUN: ti-opt %s -p ti-lower-access | filecheck %s
// RUN: ti-opt %s -p 'ti-lower-access{debug=true}' | filecheck %s --check-prefix=DEBUG

// A real function (`func.func`, a ti.real_func called for real) reaches the kernel's
// fields through its own `offload.context` reads, made at the top of its body, like a
// task region's; the call in the task is left as it is.
taichi.field @x : memref<8xi32> offset 16

// CHECK-LABEL: func.func private @k__fn0_get(%i: i32) -> i32 {
// CHECK-NEXT:    %ctx = offload.context : !llvm.ptr
// CHECK-NEXT:    %root = llvm.load %ctx {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %x = llvm.getelementptr %root[16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[W:.*]] = arith.extsi %i : i32 to i64
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr %x[%[[W]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %v = llvm.load %[[P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %one = arith.constant 1 : i32
// CHECK-NEXT:    %w = arith.addi %v, %one : i32
// CHECK-NEXT:    llvm.store %w, %[[P]] : i32, !llvm.ptr
// CHECK-NEXT:    func.return %v : i32
// CHECK-NEXT:  }
// CHECK:       offload.serial {
// CHECK-NEXT:    %c = arith.constant 3 : i32
// CHECK-NEXT:    %r = func.call @k__fn0_get(%c) : (i32) -> i32
// CHECK-NEXT:    offload.set_return 0, %r : i32
// CHECK-NEXT:  }

// With debug, the function checks its indices and writes the error record of the
// context it was given.
// DEBUG-LABEL: func.func private @k__fn0_get(%i: i32) -> i32 {
// DEBUG-NEXT:    %ctx = offload.context : !llvm.ptr
// DEBUG-NEXT:    %root = llvm.load %ctx {invariant} : !llvm.ptr -> !llvm.ptr
// DEBUG-NEXT:    %x = llvm.getelementptr %root[16] : (!llvm.ptr) -> !llvm.ptr, i8
// DEBUG-NEXT:    %[[E:.*]] = llvm.getelementptr %ctx[32] : (!llvm.ptr) -> !llvm.ptr, i8
// DEBUG-NEXT:    %error = llvm.load %[[E]] {invariant} : !llvm.ptr -> !llvm.ptr
// DEBUG:         llvm_ext.cmpxchg %error
// DEBUG:         func.return

// A task's reads stay in the task.
// DEBUG-LABEL: offload.kernel @k
// DEBUG-NOT:     offload.context
// DEBUG:         func.call @k__fn0_get

func.func private @k__fn0_get(%i: i32) -> i32 {
  %x = taichi.get_field @x : memref<8xi32>
  %p = taichi.element_ptr %x[%i] : memref<8xi32> -> memref<i32>
  %v = memref.load %p[] : memref<i32>
  %one = arith.constant 1 : i32
  %w = arith.addi %v, %one : i32
  memref.store %w, %p[] : memref<i32>
  func.return %v : i32
}

offload.kernel @k : () -> i32 {
  offload.serial {
    %c = arith.constant 3 : i32
    %r = func.call @k__fn0_get(%c) : (i32) -> i32
    offload.set_return 0, %r : i32
  }
}
