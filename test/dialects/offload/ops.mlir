// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

taichi.field @x : memref<4x8xf32> offset 0

// A serial task computes a loop bound into a global temporary; the range_for reads it
// at kernel level; a last serial task sets the return value.
// CHECK-LABEL: offload.kernel @tasks : (f32, memref<?xf32>) -> f32 {
// CHECK-NEXT:    %[[N:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[ARR:.*]] = offload.arg 1 : memref<?xf32>
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D:.*]] = memref.dim %[[ARR]], %[[C0]] : memref<?xf32>
// CHECK-NEXT:      %[[D32:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK-NEXT:      %[[T:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      memref.store %[[D32]], %[[T]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[HI:.*]] = memref.load %[[N]][] : memref<i32>
// CHECK-NEXT:    offload.range_for %[[I:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK-NEXT:      %{{.*}} = offload.arg 0 : f32
// CHECK-NEXT:    } {block_dim = 128 : i64}
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[A:.*]] = offload.arg 0 : f32
// CHECK-NEXT:      offload.set_return 0, %[[A]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:  }
offload.kernel @tasks : (f32, memref<?xf32>) -> (f32) {
  %n = offload.global_tmp 0 : memref<i32>
  offload.serial {
    %x = offload.arg 1 : memref<?xf32>
    %c0 = arith.constant 0 : index
    %d = memref.dim %x, %c0 : memref<?xf32>
    %d32 = arith.index_cast %d : index to i32
    %t = offload.global_tmp 0 : memref<i32>
    memref.store %d32, %t[] : memref<i32>
  }
  %lo = arith.constant 0 : i32
  %hi = memref.load %n[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.arg 0 : f32
  } {block_dim = 128 : i64}
  offload.serial {
    %a = offload.arg 0 : f32
    offload.set_return 0, %a : f32
  }
}

// A reduction: each thread accumulates into a thread-local slot, set up in the
// prologue and combined in the epilogue; a struct_for visits a field's indices.
// CHECK-LABEL: offload.kernel @reduction : () -> () {
// CHECK:         offload.range_for %{{.*}} = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:    } prologue {
// CHECK-NEXT:      %{{.*}} = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:    } epilogue {
// CHECK-NEXT:      %{{.*}} = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    offload.struct_for @x : memref<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT:    }
offload.kernel @reduction : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %acc = offload.thread_local 0 : memref<f32>
  } prologue {
    %acc = offload.thread_local 0 : memref<f32>
  } epilogue {
    %acc = offload.thread_local 0 : memref<f32>
  }
  offload.struct_for @x : memref<4x8xf32> {
  ^bb0(%r: i32, %c: i32):
  }
}

// What ti-lower-access and convert-taichi-to-cf leave in tasks: the context pointer,
// the thread-local buffer, and a task region as a flow graph.
// CHECK-LABEL: offload.kernel @lowered : (i1) -> () {
// CHECK:         offload.range_for %{{.*}} = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[CTX:.*]] = offload.context : !llvm.ptr
// CHECK-NEXT:      %[[TLS:.*]] = offload.thread_local_buffer 8 : !llvm.ptr
// CHECK-NEXT:      offload.cfg {
// CHECK-NEXT:        %[[C:.*]] = llvm.load %[[CTX]] : !llvm.ptr -> i1
// CHECK-NEXT:        cf.cond_br %[[C]], ^[[THEN:.*]], ^[[END:.*]]
// CHECK-NEXT:      ^[[THEN]]:
// CHECK-NEXT:        llvm.store %[[C]], %[[TLS]] : i1, !llvm.ptr
// CHECK-NEXT:        cf.br ^[[END]]
// CHECK-NEXT:      ^[[END]]:
// CHECK-NEXT:        offload.cfg_exit
// CHECK-NEXT:      }
// CHECK-NEXT:    }
offload.kernel @lowered : (i1) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %ctx = offload.context : !llvm.ptr
    %tls = offload.thread_local_buffer 8 : !llvm.ptr
    offload.cfg {
      %c = llvm.load %ctx : !llvm.ptr -> i1
      cf.cond_br %c, ^then, ^end
    ^then:
      llvm.store %c, %tls : i1, !llvm.ptr
      cf.br ^end
    ^end:
      offload.cfg_exit
    }
  }
}

// A real function (a ti.real_func called for real) reads the context it was called with.
// CHECK-LABEL: func.func private @k__fn0_root() -> !llvm.ptr {
// CHECK-NEXT:    %[[CTX:.*]] = offload.context : !llvm.ptr
// CHECK-NEXT:    %[[ROOT:.*]] = llvm.load %[[CTX]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    func.return %[[ROOT]] : !llvm.ptr
// CHECK-NEXT:  }
func.func private @k__fn0_root() -> !llvm.ptr {
  %ctx = offload.context : !llvm.ptr
  %root = llvm.load %ctx : !llvm.ptr -> !llvm.ptr
  func.return %root : !llvm.ptr
}

// A range_for and its serial form (ti-add-serial-forms), with the same bounds.
// CHECK-LABEL: offload.kernel @serial_form : () -> () {
// CHECK:         offload.range_for %{{.*}} = %[[LO:.*]] to %[[HI:.*]] : i32 {
// CHECK:         }
// CHECK-NEXT:    offload.range_for %{{.*}} = %[[LO]] to %[[HI]] : i32 {
// CHECK:         } {serial_form}
offload.kernel @serial_form : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @x : memref<4x8xf32>
  }
  offload.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @x : memref<4x8xf32>
  } {serial_form}
}

// The serial part of a launch run by the last workgroup of a range_for
// (ti-fuse-serial-reduction).
// CHECK-LABEL: offload.kernel @last_group : () -> () {
// CHECK:         } epilogue {
// CHECK-NEXT:      %[[N:.*]] = offload.global_tmp 4 : memref<i32>
// CHECK-NEXT:      offload.last_group %[[N]] : memref<i32> {
// CHECK-NEXT:        %{{.*}} = offload.global_tmp 0 : memref<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
offload.kernel @last_group : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %t = offload.thread_local 0 : memref<f32>
  } epilogue {
    %n = offload.global_tmp 4 : memref<i32>
    offload.last_group %n : memref<i32> {
      %acc = offload.global_tmp 0 : memref<f32>
    }
  }
}
