// RUN: ti-opt %s -p ti-fuse-serial-reduction | filecheck %s

taichi.field @total : memref<f32> offset 0
taichi.field @count : memref<i32> offset 4
taichi.field @y : memref<8xf32> offset 8
taichi.field @wide : memref<i64> offset 40

// `total[None] = 0.0; for i in range(x.shape[0]): total[None] += x[i]`: the bound store
// stays in a serial task (fold-bounds skips it); the combine adds into an accumulator
// (the first 8-aligned byte past the kernel's global temporaries); the last workgroup
// stores 0.0, reads the accumulator, resets it and adds it into total.
// CHECK-LABEL: offload.kernel @sum
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      %[[X:.*]] = offload.arg 0 : memref<?xf32>
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D:.*]] = memref.dim %[[X]], %[[C0]] : memref<?xf32>
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK-NEXT:      %[[G:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      memref.store %[[N]], %[[G]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK-NOT:     offload.serial
// CHECK:         } epilogue {
// CHECK-NEXT:      %[[L:.*]] = offload.thread_local 0 : memref<f32>
// CHECK-NEXT:      %[[P:.*]] = memref.load %[[L]][] : memref<f32>
// CHECK-NEXT:      %[[T:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:      %[[E:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:      %[[ACC:.*]] = offload.global_tmp 8 : memref<f32>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[ACC]], %[[P]] : memref<f32>
// CHECK-NEXT:      %[[COUNT:.*]] = offload.global_tmp 16 : memref<i32>
// CHECK-NEXT:      offload.last_group %[[COUNT]] : memref<i32> {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        %[[T2:.*]] = taichi.get_field @total : memref<f32>
// CHECK-NEXT:        %[[E2:.*]] = taichi.element_ptr %[[T2]][] : memref<f32> -> memref<f32>
// CHECK-NEXT:        memref.store %[[Z]], %[[E2]][] : memref<f32>
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        %[[ACC2:.*]] = offload.global_tmp 8 : memref<f32>
// CHECK-NEXT:        %[[SUM:.*]] = taichi.atomic_add %[[ACC2]], %[[ZERO]] : memref<f32>
// CHECK-NEXT:        memref.store %[[ZERO]], %[[ACC2]][] : memref<f32>
// CHECK-NEXT:        %{{.*}} = taichi.atomic_add %[[E]], %[[SUM]] : memref<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
offload.kernel @sum : (memref<?xf32>) -> () {
  offload.serial {
    %0 = arith.constant 0.000000e+00 : f32
    %t = taichi.get_field @total : memref<f32>
    %1 = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %x = offload.arg 0 : memref<?xf32>
    %2 = arith.constant 0 : index
    %3 = memref.dim %x, %2 : memref<?xf32>
    %4 = arith.index_cast %3 : index to i32
    memref.store %0, %1[] : memref<f32>
    %5 = offload.global_tmp 0 : memref<i32>
    memref.store %4, %5[] : memref<i32>
  }
  %0 = arith.constant 0 : i32
  %1 = offload.global_tmp 0 : memref<i32>
  %2 = memref.load %1[] : memref<i32>
  offload.range_for %i = %0 to %2 : i32 {
    %3 = offload.thread_local 0 : memref<f32>
    %x = offload.arg 0 : memref<?xf32>
    %4 = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %5 = memref.load %4[] : memref<f32>
    %6 = memref.load %3[] : memref<f32>
    %7 = arith.addf %6, %5 : f32
    memref.store %7, %3[] : memref<f32>
  } prologue {
    %8 = offload.thread_local 0 : memref<f32>
    %9 = arith.constant 0.000000e+00 : f32
    memref.store %9, %8[] : memref<f32>
  } epilogue {
    %10 = offload.thread_local 0 : memref<f32>
    %11 = memref.load %10[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %12 = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %13 = taichi.atomic_add %12, %11 : memref<f32>
  }
}

// Two sums of a constant range (no bound store): both combines get an accumulator; the
// serial task goes whole; the counter follows the accumulators.
// CHECK-LABEL: offload.kernel @two_sums
// CHECK-NOT:     offload.serial
// CHECK:         %{{.*}} = offload.global_tmp 0 : memref<f32>
// CHECK:         %{{.*}} = offload.global_tmp 8 : memref<i32>
// CHECK:         %[[COUNT:.*]] = offload.global_tmp 16 : memref<i32>
// CHECK-NEXT:    offload.last_group %[[COUNT]] : memref<i32> {
// CHECK:           %[[S0:.*]] = taichi.atomic_add %{{.*}}, %{{.*}} : memref<f32>
// CHECK:           %{{.*}} = taichi.atomic_add %tp, %[[S0]] : memref<f32>
// CHECK:           %[[S1:.*]] = taichi.atomic_add %{{.*}}, %{{.*}} : memref<i32>
// CHECK:           %{{.*}} = taichi.atomic_add %cp, %[[S1]] : memref<i32>
// CHECK-NEXT:    }
offload.kernel @two_sums : () -> () {
  offload.serial {
    %z = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1 : i32
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    memref.store %z, %tp[] : memref<f32>
    %c = taichi.get_field @count : memref<i32>
    %cp = taichi.element_ptr %c[] : memref<i32> -> memref<i32>
    memref.store %one, %cp[] : memref<i32>
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 1000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %b = offload.thread_local 4 : memref<i32>
    %bv = memref.load %b[] : memref<i32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %r0 = taichi.atomic_add %tp, %av : memref<f32>
    %c = taichi.get_field @count : memref<i32>
    %cp = taichi.element_ptr %c[] : memref<i32> -> memref<i32>
    %r1 = taichi.atomic_add %cp, %bv : memref<i32>
  }
}

// Not fused: the loop reads what the serial task stores (total).
// CHECK-LABEL: offload.kernel @loop_reads_it
// CHECK-NEXT:    offload.serial {
// CHECK-NOT:     offload.last_group
// CHECK:       }
offload.kernel @loop_reads_it : () -> () {
  offload.serial {
    %z = arith.constant 0.000000e+00 : f32
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    memref.store %z, %tp[] : memref<f32>
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %v = memref.load %tp[] : memref<f32>
    %y = taichi.get_field @y : memref<8xf32>
    %yp = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %v, %yp[] : memref<f32>
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %r0 = taichi.atomic_add %tp, %av : memref<f32>
  }
}

// Not fused: the serial task reads what the loop writes (y).
// CHECK-LABEL: offload.kernel @serial_reads_loop_output
// CHECK-NEXT:    offload.serial {
// CHECK-NOT:     offload.last_group
// CHECK:       }
offload.kernel @serial_reads_loop_output : () -> () {
  offload.serial {
    %y = taichi.get_field @y : memref<8xf32>
    %c0 = arith.constant 0 : i32
    %yp = taichi.element_ptr %y[%c0] : memref<8xf32> -> memref<f32>
    %v = memref.load %yp[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    memref.store %v, %tp[] : memref<f32>
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %one = arith.constant 1.000000e+00 : f32
    %y = taichi.get_field @y : memref<8xf32>
    %yp = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %one, %yp[] : memref<f32>
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %r0 = taichi.atomic_add %tp, %av : memref<f32>
  }
}

// Not fused: a float max (its accumulator would need -inf to start from).
// CHECK-LABEL: offload.kernel @max_is_not_fused
// CHECK-NEXT:    offload.serial {
// CHECK-NOT:     offload.last_group
// CHECK:       }
offload.kernel @max_is_not_fused : () -> () {
  offload.serial {
    %z = arith.constant 0.000000e+00 : f32
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    memref.store %z, %tp[] : memref<f32>
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %r0 = taichi.atomic_max %tp, %av : memref<f32>
  }
}

// Not fused: the serial task prints.
// CHECK-LABEL: offload.kernel @serial_prints
// CHECK-NEXT:    offload.serial {
// CHECK-NOT:     offload.last_group
// CHECK:       }
offload.kernel @serial_prints : () -> () {
  offload.serial {
    %z = arith.constant 0.000000e+00 : f32
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    memref.store %z, %tp[] : memref<f32>
    taichi.print "hi"
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %r0 = taichi.atomic_add %tp, %av : memref<f32>
  }
}

// Not fused: the range is empty (no workgroup would run the serial task).
// CHECK-LABEL: offload.kernel @empty_range
// CHECK-NEXT:    offload.serial {
// CHECK-NOT:     offload.last_group
// CHECK:       }
offload.kernel @empty_range : () -> () {
  offload.serial {
    %z = arith.constant 0.000000e+00 : f32
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    memref.store %z, %tp[] : memref<f32>
  }
  %lo = arith.constant 8 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %r0 = taichi.atomic_add %tp, %av : memref<f32>
  }
}

// Not fused: the combine's element depends on the invocation.
// CHECK-LABEL: offload.kernel @varying_element
// CHECK-NEXT:    offload.serial {
// CHECK-NOT:     offload.last_group
// CHECK:       }
offload.kernel @varying_element : () -> () {
  offload.serial {
    %z = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : i32
    %y = taichi.get_field @y : memref<8xf32>
    %yp = taichi.element_ptr %y[%c0] : memref<8xf32> -> memref<f32>
    memref.store %z, %yp[] : memref<f32>
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %b = offload.thread_local 4 : memref<i32>
    %k = memref.load %b[] : memref<i32>
    %y = taichi.get_field @y : memref<8xf32>
    %yp = taichi.element_ptr %y[%k] : memref<8xf32> -> memref<f32>
    %r0 = taichi.atomic_add %yp, %av : memref<f32>
  }
}

// Fused: the loop's own local variable (a memref.alloca) is no place the serial task
// stores.
// CHECK-LABEL: offload.kernel @loop_with_a_local
// CHECK-NOT:     offload.serial
// CHECK:         offload.last_group
offload.kernel @loop_with_a_local : () -> () {
  offload.serial {
    %z = arith.constant 0.000000e+00 : f32
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    memref.store %z, %tp[] : memref<f32>
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %v = memref.alloca() : memref<f32>
    %one = arith.constant 1.000000e+00 : f32
    memref.store %one, %v[] : memref<f32>
    %w = memref.load %v[] : memref<f32>
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %s = arith.addf %av, %w : f32
    memref.store %s, %a[] : memref<f32>
  } epilogue {
    %a = offload.thread_local 0 : memref<f32>
    %av = memref.load %a[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %r0 = taichi.atomic_add %tp, %av : memref<f32>
  }
}

// An integer min and an unsigned max: the accumulators hold keys (value ^ mask), combined
// with an unsigned max, whose identity is 0; the last workgroup turns the key back into
// a value and combines it into the place as the loop did. Signed min: the mask is every
// bit but the sign (INT_MAX -> 0); unsigned max: no mask.
// CHECK-LABEL: offload.kernel @int_min_max
// CHECK:         } epilogue {
// CHECK:           %[[ACC:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      %[[M:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:      %[[K:.*]] = arith.xori %{{.*}}, %[[M]] : i32
// CHECK-NEXT:      %{{.*}} = taichi.atomic_max unsigned %[[ACC]], %[[K]] : memref<i32>
// CHECK:           %[[ACC2:.*]] = offload.global_tmp 8 : memref<i64>
// CHECK-NEXT:      %{{.*}} = taichi.atomic_max unsigned %[[ACC2]], %bv : memref<i64>
// CHECK-NEXT:      %[[COUNT:.*]] = offload.global_tmp 16 : memref<i32>
// CHECK-NEXT:      offload.last_group %[[COUNT]]
// CHECK:             %[[KEY:.*]] = taichi.atomic_add %{{.*}}, %{{.*}} : memref<i32>
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[] : memref<i32>
// CHECK-NEXT:        %[[MB:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:        %[[V:.*]] = arith.xori %[[KEY]], %[[MB]] : i32
// CHECK-NEXT:        %{{.*}} = taichi.atomic_min %{{.*}}, %[[V]] : memref<i32>
// CHECK:             %[[KEY2:.*]] = taichi.atomic_add %{{.*}}, %{{.*}} : memref<i64>
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[] : memref<i64>
// CHECK-NEXT:        %{{.*}} = taichi.atomic_max unsigned %wp, %[[KEY2]] : memref<i64>
offload.kernel @int_min_max : () -> () {
  offload.serial {
    %big = arith.constant 1000 : i32
    %c = taichi.get_field @count : memref<i32>
    %cp = taichi.element_ptr %c[] : memref<i32> -> memref<i32>
    memref.store %big, %cp[] : memref<i32>
    %z = arith.constant 0 : i64
    %w = taichi.get_field @wide : memref<i64>
    %wp = taichi.element_ptr %w[] : memref<i64> -> memref<i64>
    memref.store %z, %wp[] : memref<i64>
  }
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.thread_local 0 : memref<i32>
  } epilogue {
    %a = offload.thread_local 0 : memref<i32>
    %av = memref.load %a[] : memref<i32>
    %b = offload.thread_local 8 : memref<i64>
    %bv = memref.load %b[] : memref<i64>
    %c = taichi.get_field @count : memref<i32>
    %cp = taichi.element_ptr %c[] : memref<i32> -> memref<i32>
    %r0 = taichi.atomic_min %cp, %av : memref<i32>
    %w = taichi.get_field @wide : memref<i64>
    %wp = taichi.element_ptr %w[] : memref<i64> -> memref<i64>
    %r1 = taichi.atomic_max unsigned %wp, %bv : memref<i64>
  }
}
