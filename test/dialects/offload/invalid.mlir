// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A bound the runtime cannot know before the launch: computing it needs a task.
offload.kernel @bound_not_known_before_launch : (i32) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.addi %lo, %lo : i32
  offload.range_for %i = %lo to %hi : i32 {
  }
}
// CHECK: invalid.mlir:[[# @LINE - 6]]:1: error: 'offload.kernel' body holds tasks and their bounds only, got arith.addi

// -----

offload.kernel @arg_out_of_range : (f32) -> () {
  offload.serial {
    %a = offload.arg 1 : f32
  }
}
// CHECK: 'offload.arg' reads argument 1 of a kernel with 1

// -----

offload.kernel @arg_wrong_type : (f32) -> () {
  offload.serial {
    %a = offload.arg 0 : i32
  }
}
// CHECK: 'offload.arg' reads argument 0 as i32, but the kernel declares it f32

// -----

offload.kernel @return_wrong_type : () -> (f32) {
  offload.serial {
    %c = arith.constant 1 : i32
    offload.set_return 0, %c : i32
  }
}
// CHECK: 'offload.set_return' returns a i32 as value 0, but the kernel declares f32

// -----

offload.kernel @struct_for_arity : () -> () {
  offload.struct_for @x : memref<4x8xf32> {
  ^bb0(%i: i32):
  }
}
// CHECK: 'offload.struct_for' over a 2-d field expects 2 i32 body arguments, got (i32)

// -----

offload.kernel @range_for_index_type : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  "offload.range_for"(%lo, %hi) ({
  ^bb0(%i: i64):
  }, {}, {}) : (i32, i32) -> ()
}
// CHECK: 'offload.range_for' expects one body argument of type i32, got (i64)

// -----

offload.kernel @global_tmp_not_scalar : () -> () {
  %t = offload.global_tmp 0 : memref<4xi32>
}
// CHECK: 'offload.global_tmp' expects a 0-d memref result, got memref<4xi32>

// -----

func.func @task_outside_kernel() {
  offload.serial {
    %c = arith.constant 0 : i32
  }
  func.return
}
// CHECK: 'offload.serial' expects parent op 'offload.kernel'

// -----

offload.kernel @empty_thread_local_buffer : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %tls = offload.thread_local_buffer 0 : !llvm.ptr
  }
}
// CHECK: 'offload.thread_local_buffer' expects a positive size, got 0

// -----

offload.kernel @cfg_entry_with_arguments : () -> () {
  offload.serial {
    offload.cfg {
    ^entry(%x: i32):
      offload.cfg_exit
    }
  }
}
// CHECK: 'offload.cfg' entry block takes no arguments

// -----

// The context of a task, or of a real function (func.func): nowhere else.
taichi.kernel @context_outside_task() {
  %ctx = offload.context : !llvm.ptr
  taichi.return
}
// CHECK: 'offload.context' expects ancestor op to be one of 'offload.serial', 'offload.range_for', 'offload.struct_for', 'func.func'

// -----

// The context is a pointer (!llvm.ptr, checked by name so that Vulkan never loads the
// llvm dialect): another type is refused.
offload.kernel @context_not_a_pointer : () -> () {
  offload.serial {
    %ctx = offload.context : i64
  }
}
// CHECK: i64 should be of base attribute llvm.ptr

// -----

// A serial form stands for the range_for right before it: not after a serial task.
offload.kernel @serial_form_alone : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.serial {
    %c = arith.constant 0 : i32
  }
  offload.range_for %i = %lo to %hi : i32 {
  } {serial_form}
}
// CHECK: 'offload.kernel' a serial_form range_for must follow the range_for it stands for, with the same bounds

// -----

// ... and with the bounds of that range_for.
offload.kernel @serial_form_other_bounds : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  %hi2 = arith.constant 4 : i32
  offload.range_for %i = %lo to %hi : i32 {
  }
  offload.range_for %i = %lo to %hi2 : i32 {
  } {serial_form}
}
// CHECK: 'offload.kernel' a serial_form range_for must follow the range_for it stands for, with the same bounds

// -----

offload.kernel @last_group_in_body : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %n = offload.global_tmp 0 : memref<i32>
    offload.last_group %n : memref<i32> {
      %c = offload.global_tmp 8 : memref<i32>
    }
  }
}
// CHECK: 'offload.last_group' must be in a range_for's epilogue

// -----

offload.kernel @last_group_counter_type : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
  } epilogue {
    %n = offload.global_tmp 0 : memref<f32>
    offload.last_group %n : memref<f32> {
      %c = offload.global_tmp 8 : memref<i32>
    }
  }
}
// CHECK: 'offload.last_group' counter must be a memref<i32>, got memref<f32>

// -----

offload.kernel @last_group_not_last : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
  } epilogue {
    %n = offload.global_tmp 0 : memref<i32>
    offload.last_group %n : memref<i32> {
      %c = offload.global_tmp 8 : memref<i32>
    }
    %m = offload.global_tmp 4 : memref<i32>
  }
}
// CHECK: 'offload.last_group' must be the last op of the epilogue

// -----

offload.kernel @last_group_in_serial : () -> () {
  offload.serial {
    %n = offload.global_tmp 0 : memref<i32>
    offload.last_group %n : memref<i32> {
      %c = offload.global_tmp 8 : memref<i32>
    }
  }
}
// CHECK: 'offload.last_group' expects parent op 'offload.range_for'
