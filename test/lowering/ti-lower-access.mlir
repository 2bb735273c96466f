// RUN: ti-opt %s -p ti-lower-access | filecheck %s
// RUN: ti-opt %s -p 'ti-lower-access{debug=true}' | filecheck %s --check-prefix=DEBUG

taichi.field @x : memref<4x8xf32> offset 64
taichi.field @s : memref<i32> offset 0

// A 2-d field element: root + 64 bytes, then row-major (i * 8 + j) f32s. The context
// reads sit at the top of the task region, marked invariant.
// CHECK-LABEL: offload.kernel @field_element
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[CTX:.*]] = offload.context : !llvm.ptr
// CHECK-NEXT:      %[[ROOT:.*]] = llvm.load %[[CTX]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:      %[[X:.*]] = llvm.getelementptr %[[ROOT]][64] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[J:.*]] = arith.constant 5 : i32
// CHECK-NEXT:      %[[I64:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:      %[[J64:.*]] = arith.extsi %[[J]] : i32 to i64
// CHECK-NEXT:      %[[N1:.*]] = arith.constant 8 : i64
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[I64]], %[[N1]] : i64
// CHECK-NEXT:      %[[LIN:.*]] = arith.addi %[[ROW]], %[[J64]] : i64
// CHECK-NEXT:      %[[P:.*]] = llvm.getelementptr %[[X]][%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK-NEXT:      %[[W:.*]] = arith.addf %[[V]], %[[V]] : f32
// CHECK-NEXT:      llvm.store %[[W]], %[[P]] : f32, !llvm.ptr
// CHECK-NEXT:    }
offload.kernel @field_element : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 4 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @x : memref<4x8xf32>
    %j = arith.constant 5 : i32
    %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %p[] : memref<f32>
  }
}

// An ndarray after an 8-byte scalar: its data pointer at byte 8 of the argument
// buffer, its extents at 16 and 24. The scalar argument is a load of byte 0, and
// memref.dim a load of the extent.
// CHECK-LABEL: offload.kernel @ndarray_element
// CHECK:           %[[CTX:.*]] = offload.context : !llvm.ptr
// CHECK-NEXT:      %[[ARGSP:.*]] = llvm.getelementptr %[[CTX]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[ARGS:.*]] = llvm.load %[[ARGSP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:      %[[A:.*]] = llvm.load %[[ARGS]] {invariant} : !llvm.ptr -> f32
// CHECK-NEXT:      %[[DATAP:.*]] = llvm.getelementptr %[[ARGS]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[DATA:.*]] = llvm.load %[[DATAP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:      %[[N1P:.*]] = llvm.getelementptr %[[ARGS]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[N1:.*]] = llvm.load %[[N1P]] {invariant} : !llvm.ptr -> i64
// CHECK-NEXT:      %[[GTMPSP:.*]] = llvm.getelementptr %[[CTX]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[GTMPS:.*]] = llvm.load %[[GTMPSP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:      %[[I:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[I64:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:      %[[J64:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[I64]], %[[N1]] : i64
// CHECK-NEXT:      %[[LIN:.*]] = arith.addi %[[ROW]], %[[J64]] : i64
// CHECK-NEXT:      %[[P:.*]] = llvm.getelementptr %[[DATA]][%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      llvm.store %[[A]], %[[P]] : f32, !llvm.ptr
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[N1]] : i64 to index
// CHECK-NEXT:      %[[NI:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK-NEXT:      llvm.store %[[NI]], %[[GTMPS]] : i32, !llvm.ptr
// CHECK-NEXT:    }
offload.kernel @ndarray_element : (f32, memref<?x?xf32>) -> () {
  offload.serial {
    %a = offload.arg 0 : f32
    %y = offload.arg 1 : memref<?x?xf32>
    %i = arith.constant 2 : i32
    %p = taichi.element_ptr %y[%i, %i] : memref<?x?xf32> -> memref<f32>
    memref.store %a, %p[] : memref<f32>
    %c1 = arith.constant 1 : index
    %n = memref.dim %y, %c1 : memref<?x?xf32>
    %ni = arith.index_cast %n : index to i32
    %t = offload.global_tmp 0 : memref<i32>
    memref.store %ni, %t[] : memref<i32>
  }
}

// Global temporaries: in a task, the gtmp buffer + offset; at kernel level (a bound the
// runtime reads) the pass must not fire.
// CHECK-LABEL: offload.kernel @global_tmps
// CHECK-NEXT:    %[[N:.*]] = offload.global_tmp 8 : memref<i32>
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[CTX:.*]] = offload.context : !llvm.ptr
// CHECK-NEXT:      %[[GTMPSP:.*]] = llvm.getelementptr %[[CTX]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[GTMPS:.*]] = llvm.load %[[GTMPSP]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:      %[[T:.*]] = llvm.getelementptr %[[GTMPS]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[C:.*]] = arith.constant 10 : i32
// CHECK-NEXT:      llvm.store %[[C]], %[[T]] : i32, !llvm.ptr
// CHECK-NEXT:    }
// CHECK:         %[[HI:.*]] = memref.load %[[N]][] : memref<i32>
// CHECK-NEXT:    offload.range_for %{{.*}} = %{{.*}} to %[[HI]] : i32 {
offload.kernel @global_tmps : () -> () {
  %n = offload.global_tmp 8 : memref<i32>
  offload.serial {
    %t = offload.global_tmp 8 : memref<i32>
    %c = arith.constant 10 : i32
    memref.store %c, %t[] : memref<i32>
  }
  %lo = arith.constant 0 : i32
  %hi = memref.load %n[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
  }
}

// Thread-local slots: the task's buffer (as large as its slots reach) + offset, in each
// of prologue, body and epilogue. A 0-d field read directly is its start, and
// atomics become atomicrmw.
// CHECK-LABEL: offload.kernel @thread_locals
// CHECK:         offload.range_for
// CHECK-NEXT:      %[[TLS:.*]] = offload.thread_local_buffer 8 : !llvm.ptr
// CHECK-NEXT:      %[[ACC:.*]] = llvm.getelementptr %[[TLS]][4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[OLD:.*]] = llvm.load %[[ACC]] : !llvm.ptr -> i32
// CHECK-NEXT:      %[[NEW:.*]] = arith.addi %[[OLD]], %[[ONE]] : i32
// CHECK-NEXT:      llvm.store %[[NEW]], %[[ACC]] : i32, !llvm.ptr
// CHECK-NEXT:    } prologue {
// CHECK-NEXT:      %[[TLS:.*]] = offload.thread_local_buffer 8 : !llvm.ptr
// CHECK-NEXT:      %[[ACC:.*]] = llvm.getelementptr %[[TLS]][4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      llvm.store %[[ZERO]], %[[ACC]] : i32, !llvm.ptr
// CHECK-NEXT:    } epilogue {
// CHECK-NEXT:      %[[TLS:.*]] = offload.thread_local_buffer 8 : !llvm.ptr
// CHECK-NEXT:      %[[ACC:.*]] = llvm.getelementptr %[[TLS]][4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:      %[[CTX:.*]] = offload.context : !llvm.ptr
// CHECK-NEXT:      %[[ROOT:.*]] = llvm.load %[[CTX]] {invariant} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:      %[[V:.*]] = llvm.load %[[ACC]] : !llvm.ptr -> i32
// CHECK-NEXT:      %{{.*}} = llvm_ext.atomicrmw add %[[ROOT]], %[[V]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    }
offload.kernel @thread_locals : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 100 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %acc = offload.thread_local 4 : memref<i32>
    %one = arith.constant 1 : i32
    %old = memref.load %acc[] : memref<i32>
    %new = arith.addi %old, %one : i32
    memref.store %new, %acc[] : memref<i32>
  } prologue {
    %acc = offload.thread_local 4 : memref<i32>
    %zero = arith.constant 0 : i32
    memref.store %zero, %acc[] : memref<i32>
  } epilogue {
    %acc = offload.thread_local 4 : memref<i32>
    %v = memref.load %acc[] : memref<i32>
    %s = taichi.get_field @s : memref<i32>
    %old = taichi.atomic_add %s, %v : memref<i32>
  }
}

// Each atomic its atomicrmw: fsub on floats, umax for unsigned max, fmin, bitwise xor.
// CHECK-LABEL: offload.kernel @atomics
// CHECK:         %[[P:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw fsub %[[P]], %[[F:.*]] monotonic : !llvm.ptr, f32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw fmin %[[P]], %[[F]] monotonic : !llvm.ptr, f32
// CHECK:         %[[Q:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw umax %[[Q]], %[[K:.*]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw max %[[Q]], %[[K]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    %{{.*}} = llvm_ext.atomicrmw xor %[[Q]], %[[K]] monotonic : !llvm.ptr, i32
offload.kernel @atomics : (memref<?xf32>, memref<?xi32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 100 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %f = arith.constant 1.5 : f32
    %p = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %a = taichi.atomic_sub %p, %f : memref<f32>
    %b = taichi.atomic_min %p, %f : memref<f32>
    %y = offload.arg 1 : memref<?xi32>
    %k = arith.constant 7 : i32
    %q = taichi.element_ptr %y[%i] : memref<?xi32> -> memref<i32>
    %c = taichi.atomic_max unsigned %q, %k : memref<i32>
    %d = taichi.atomic_max %q, %k : memref<i32>
    %e = taichi.atomic_xor %q, %k : memref<i32>
  }
}

// A compare-and-swap is LLVM's cmpxchg; its result is the old value of the pair.
// CHECK-LABEL: offload.kernel @compare_and_swap
// CHECK:         %[[Q:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[E:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[N:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[PAIR:.*]] = llvm_ext.cmpxchg %[[Q]], %[[E]], %[[N]] seq_cst seq_cst : !llvm.ptr, i32
// CHECK-NEXT:    %[[OLD:.*]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:    offload.set_return 0, %[[OLD]] : i32
offload.kernel @compare_and_swap : (memref<?xi32>) -> (i32) {
  offload.serial {
    %y = offload.arg 0 : memref<?xi32>
    %i = arith.constant 3 : i32
    %q = taichi.element_ptr %y[%i] : memref<?xi32> -> memref<i32>
    %e = arith.constant 0 : i32
    %n = arith.constant -1 : i32
    %old = taichi.atomic_cas %q, %e, %n : memref<i32>
    offload.set_return 0, %old : i32
  }
}

// A compare-and-swap of a 64-bit word (a quantized field's) is a cmpxchg of i64.
// CHECK-LABEL: offload.kernel @compare_and_swap_i64
// CHECK:         %[[Q:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[E:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[N:.*]] = arith.constant -1 : i64
// CHECK-NEXT:    %[[PAIR:.*]] = llvm_ext.cmpxchg %[[Q]], %[[E]], %[[N]] seq_cst seq_cst : !llvm.ptr, i64
// CHECK-NEXT:    %[[OLD:.*]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(i64, i1)>
// CHECK-NEXT:    offload.set_return 0, %[[OLD]] : i64
offload.kernel @compare_and_swap_i64 : (memref<?xi64>) -> (i64) {
  offload.serial {
    %y = offload.arg 0 : memref<?xi64>
    %i = arith.constant 3 : i32
    %q = taichi.element_ptr %y[%i] : memref<?xi64> -> memref<i64>
    %e = arith.constant 0 : i64
    %n = arith.constant -1 : i64
    %old = taichi.atomic_cas %q, %e, %n : memref<i64>
    offload.set_return 0, %old : i64
  }
}

// Without debug an assert is dropped (its condition left to dce); a local slot is not
// a global place and stays.
// CHECK-LABEL: offload.kernel @assert_and_local
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[SLOT:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT:      %[[C:.*]] = arith.constant 3 : i32
// CHECK-NEXT:      memref.store %[[C]], %[[SLOT]][] : memref<i32>
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %{{.*}} = arith.cmpi sgt, %[[C]], %[[ZERO]] : i32
// CHECK-NEXT:    }
// DEBUG-LABEL: offload.kernel @assert_and_local
// DEBUG:         %[[OK:.*]] = arith.cmpi sgt
// DEBUG-NEXT:    %[[TRUE:.*]] = arith.constant true
// DEBUG-NEXT:    %[[BAD:.*]] = arith.xori %[[OK]], %[[TRUE]] : i1
// DEBUG-NEXT:    taichi.if %[[BAD]] {
// DEBUG-NEXT:      %[[MSG:.*]] = llvm.mlir.addressof @assert_and_local.assert0 : !llvm.ptr
// DEBUG-NEXT:      %[[WORD:.*]] = llvm.ptrtoint %[[MSG]] : !llvm.ptr to i64
// DEBUG-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i64
// DEBUG-NEXT:      %[[NONE:.*]] = arith.constant 0 : i64
// DEBUG-NEXT:      %[[CODE:.*]] = arith.constant 2 : i64
// DEBUG-NEXT:      %[[SWAP:.*]] = llvm_ext.cmpxchg %[[ERR:.*]], %[[NONE]], %[[CODE]] seq_cst seq_cst : !llvm.ptr, i64
// DEBUG-NEXT:      %[[WON:.*]] = llvm.extractvalue %[[SWAP]][1] : !llvm.struct<(i64, i1)>
// DEBUG-NEXT:      taichi.if %[[WON]] {
// DEBUG-NEXT:        %[[W1:.*]] = llvm.getelementptr %[[ERR]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// DEBUG-NEXT:        llvm.store %[[WORD]], %[[W1]] : i64, !llvm.ptr
// DEBUG-NEXT:        %[[W2:.*]] = llvm.getelementptr %[[ERR]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// DEBUG-NEXT:        llvm.store %[[ZERO]], %[[W2]] : i64, !llvm.ptr
// DEBUG-NEXT:        %[[W3:.*]] = llvm.getelementptr %[[ERR]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// DEBUG-NEXT:        llvm.store %[[ZERO]], %[[W3]] : i64, !llvm.ptr
// DEBUG-NEXT:        taichi.yield
// DEBUG-NEXT:      }
// DEBUG-NEXT:      taichi.yield
// DEBUG-NEXT:    }
offload.kernel @assert_and_local : () -> () {
  offload.serial {
    %slot = memref.alloca() : memref<i32>
    %c = arith.constant 3 : i32
    memref.store %c, %slot[] : memref<i32>
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi sgt, %c, %zero : i32
    taichi.assert %ok, "c must be positive"
  }
}

// Debug: each index is compared (unsigned, so negatives fail) with its extent; the
// load runs only in bounds and reads through a slot, 0 otherwise; the error record
// gets the first bad dimension (below the address of the access's site, its
// `file:line:column` text, shifted left 8), its index and its extent.
// DEBUG:         llvm.mlir.global internal constant @checked_load.site0("{{.*}}ti-lower-access.mlir:[[# @LINE + 52]]:5\00")
// DEBUG-LABEL: offload.kernel @checked_load
// DEBUG:         %[[N0:.*]] = llvm.load %{{.*}} {invariant} : !llvm.ptr -> i64
// DEBUG:         %[[N1:.*]] = llvm.load %{{.*}} {invariant} : !llvm.ptr -> i64
// DEBUG:         %[[ERR:.*]] = llvm.load %{{.*}} {invariant} : !llvm.ptr -> !llvm.ptr
// DEBUG:         %[[I0:.*]] = arith.extsi %{{.*}} : i32 to i64
// DEBUG-NEXT:    %[[OK0:.*]] = arith.cmpi ult, %[[I0]], %[[N0]] : i64
// DEBUG-NEXT:    %[[I1:.*]] = arith.extsi %{{.*}} : i32 to i64
// DEBUG-NEXT:    %[[OK1:.*]] = arith.cmpi ult, %[[I1]], %[[N1]] : i64
// DEBUG-NEXT:    %[[ROW:.*]] = arith.muli %[[I0]], %[[N1]] : i64
// DEBUG-NEXT:    %[[LIN:.*]] = arith.addi %[[ROW]], %[[I1]] : i64
// DEBUG-NEXT:    %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// DEBUG-NEXT:    %[[OK:.*]] = arith.andi %[[OK0]], %[[OK1]] : i1
// DEBUG-NEXT:    %[[SLOT:.*]] = memref.alloca() : memref<f32>
// DEBUG-NEXT:    taichi.if %[[OK]] {
// DEBUG-NEXT:      %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// DEBUG-NEXT:      memref.store %[[V]], %[[SLOT]][] : memref<f32>
// DEBUG-NEXT:      taichi.yield
// DEBUG-NEXT:    } else {
// DEBUG-NEXT:      %[[D1:.*]] = arith.constant 1 : i64
// DEBUG-NEXT:      %[[D0:.*]] = arith.constant 0 : i64
// DEBUG-NEXT:      %[[DIM:.*]] = arith.select %[[OK0]], %[[D1]], %[[D0]] : i64
// DEBUG-NEXT:      %[[IDX:.*]] = arith.select %[[OK0]], %[[I1]], %[[I0]] : i64
// DEBUG-NEXT:      %[[EXT:.*]] = arith.select %[[OK0]], %[[N1]], %[[N0]] : i64
// DEBUG-NEXT:      %[[SITE:.*]] = llvm.mlir.addressof @checked_load.site0 : !llvm.ptr
// DEBUG-NEXT:      %[[SITEW:.*]] = llvm.ptrtoint %[[SITE]] : !llvm.ptr to i64
// DEBUG-NEXT:      %[[EIGHT:.*]] = arith.constant 8 : i64
// DEBUG-NEXT:      %[[SHIFTED:.*]] = arith.shli %[[SITEW]], %[[EIGHT]] : i64
// DEBUG-NEXT:      %[[FIRST:.*]] = arith.ori %[[SHIFTED]], %[[DIM]] : i64
// DEBUG-NEXT:      %[[NONE:.*]] = arith.constant 0 : i64
// DEBUG-NEXT:      %[[CODE:.*]] = arith.constant 1 : i64
// DEBUG-NEXT:      %[[SWAP:.*]] = llvm_ext.cmpxchg %[[ERR]], %[[NONE]], %[[CODE]] seq_cst seq_cst : !llvm.ptr, i64
// DEBUG-NEXT:      %[[WON:.*]] = llvm.extractvalue %[[SWAP]][1] : !llvm.struct<(i64, i1)>
// DEBUG-NEXT:      taichi.if %[[WON]] {
// DEBUG-NEXT:        %[[W1:.*]] = llvm.getelementptr %[[ERR]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// DEBUG-NEXT:        llvm.store %[[FIRST]], %[[W1]] : i64, !llvm.ptr
// DEBUG-NEXT:        %[[W2:.*]] = llvm.getelementptr %[[ERR]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// DEBUG-NEXT:        llvm.store %[[IDX]], %[[W2]] : i64, !llvm.ptr
// DEBUG-NEXT:        %[[W3:.*]] = llvm.getelementptr %[[ERR]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// DEBUG-NEXT:        llvm.store %[[EXT]], %[[W3]] : i64, !llvm.ptr
// DEBUG-NEXT:        taichi.yield
// DEBUG-NEXT:      }
// DEBUG-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// DEBUG-NEXT:      memref.store %[[Z]], %[[SLOT]][] : memref<f32>
// DEBUG-NEXT:      taichi.yield
// DEBUG-NEXT:    }
// DEBUG-NEXT:    %[[R:.*]] = memref.load %[[SLOT]][] : memref<f32>
// DEBUG-NEXT:    offload.set_return 0, %[[R]] : f32
offload.kernel @checked_load : (memref<?x?xf32>, i32) -> f32 {
  offload.serial {
    %y = offload.arg 0 : memref<?x?xf32>
    %i = offload.arg 1 : i32
    %p = taichi.element_ptr %y[%i, %i] : memref<?x?xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    offload.set_return 0, %v : f32
  }
}

// Debug: a message's values fill the two free words of the record: an f32 as its bits,
// each zero-extended to i64; the message global names their kinds before the format.
// DEBUG:         llvm.mlir.global internal constant @assert_values.assert0("\1Fi32,f32\1Fx[{}] = {:.2f}\00")
// DEBUG-LABEL: offload.kernel @assert_values
// DEBUG:         %[[BAD:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// DEBUG-NEXT:    taichi.if %[[BAD]] {
// DEBUG-NEXT:      %[[MSG:.*]] = llvm.mlir.addressof @assert_values.assert0 : !llvm.ptr
// DEBUG-NEXT:      %[[WORD:.*]] = llvm.ptrtoint %[[MSG]] : !llvm.ptr to i64
// DEBUG-NEXT:      %{{.*}} = arith.constant 0 : i64
// DEBUG-NEXT:      %[[I:.*]] = arith.extui %[[IDX:.*]] : i32 to i64
// DEBUG-NEXT:      %[[BITS:.*]] = arith.bitcast %[[VAL:.*]] : f32 to i32
// DEBUG-NEXT:      %[[F:.*]] = arith.extui %[[BITS]] : i32 to i64
// DEBUG:             llvm.store %[[WORD]], %{{.*}} : i64, !llvm.ptr
// DEBUG:             llvm.store %[[I]], %{{.*}} : i64, !llvm.ptr
// DEBUG:             llvm.store %[[F]], %{{.*}} : i64, !llvm.ptr
offload.kernel @assert_values : () -> () {
  offload.serial {
    %i = arith.constant 3 : i32
    %v = arith.constant 2.5 : f32
    %zero = arith.constant 0.0 : f32
    %ok = arith.cmpf olt, %v, %zero : f32
    taichi.assert %ok, "x[{}] = {:.2f}" (%i, %v : i32, f32)
  }
}

// The extent of the first dimension of the second ndarray (byte 32: the first takes
// bytes 0 to 23, the second's data pointer is at 24); debug: an i32 load out of bounds reads 0 : i32, and each assert of a
// kernel has its own message global (.assert0, .assert1).
// CHECK-LABEL: offload.kernel @first_extent
// CHECK:         %[[N0P:.*]] = llvm.getelementptr %args[32] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[N0:.*]] = llvm.load %[[N0P]] {invariant} : !llvm.ptr -> i64
// CHECK:         %n = arith.index_cast %[[N0]] : i64 to index
// DEBUG-LABEL: offload.kernel @first_extent
// DEBUG:           %[[Z:.*]] = arith.constant 0 : i32
// DEBUG-NEXT:      memref.store %[[Z]], %v[] : memref<i32>
// DEBUG:         llvm.mlir.addressof @first_extent.assert0 : !llvm.ptr
// DEBUG:         llvm.mlir.addressof @first_extent.assert1 : !llvm.ptr
offload.kernel @first_extent : (memref<?x?xi32>, memref<?x?xi32>) -> () {
  offload.serial {
    %y = offload.arg 1 : memref<?x?xi32>
    %c0 = arith.constant 0 : index
    %n = memref.dim %y, %c0 : memref<?x?xi32>
    %ni = arith.index_cast %n : index to i32
    %i = arith.constant 2 : i32
    %p = taichi.element_ptr %y[%i, %i] : memref<?x?xi32> -> memref<i32>
    %v = memref.load %p[] : memref<i32>
    %s = arith.addi %v, %ni : i32
    %t = offload.global_tmp 0 : memref<i32>
    memref.store %s, %t[] : memref<i32>
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi sgt, %s, %zero : i32
    taichi.assert %ok, "first"
    taichi.assert %ok, "second"
  }
}

// A field loaded and stored by itself at indices, as textual IR may write it: the
// element at those indices (it was element 0 whatever the indices), through the same
// addressing as taichi.element_ptr, bounds-checked under debug.
// CHECK-LABEL: offload.kernel @indexed_field_access
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK:           %[[X:.*]] = llvm.getelementptr %{{.*}}[64] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:           %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:      %[[I64:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:      %[[C364:.*]] = arith.extsi %[[C3]] : i32 to i64
// CHECK-NEXT:      %[[N1:.*]] = arith.constant 8 : i64
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[I64]], %[[N1]] : i64
// CHECK-NEXT:      %[[LIN:.*]] = arith.addi %[[ROW]], %[[C364]] : i64
// CHECK-NEXT:      %[[P:.*]] = llvm.getelementptr %[[X]][%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK-NEXT:      %[[D3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:      %[[D364:.*]] = arith.extsi %[[D3]] : i32 to i64
// CHECK-NEXT:      %[[DI64:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:      %[[M1:.*]] = arith.constant 8 : i64
// CHECK-NEXT:      %[[DROW:.*]] = arith.muli %[[D364]], %[[M1]] : i64
// CHECK-NEXT:      %[[DLIN:.*]] = arith.addi %[[DROW]], %[[DI64]] : i64
// CHECK-NEXT:      %[[Q:.*]] = llvm.getelementptr %[[X]][%[[DLIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      llvm.store %[[V]], %[[Q]] : f32, !llvm.ptr
// CHECK-NEXT:    }
// DEBUG-LABEL: offload.kernel @indexed_field_access
// DEBUG:         arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// DEBUG:         llvm.load
offload.kernel @indexed_field_access : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 4 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = taichi.get_field @x : memref<4x8xf32>
    %k = arith.index_cast %i : i32 to index
    %c3 = arith.constant 3 : index
    %v = memref.load %x[%k, %c3] : memref<4x8xf32>
    memref.store %v, %x[%c3, %k] : memref<4x8xf32>
  }
}
