// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

taichi.kernel @return_missing_value(%a: f32) -> f32 {
  taichi.return
}
// CHECK: 'taichi.return' returns () but @return_missing_value declares (f32)

// -----

taichi.kernel @element_ptr_wrong_rank(%x: memref<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %p = taichi.element_ptr %x[%c0] : memref<?x?xf32> -> memref<f32>
  taichi.return
}
// CHECK: 'taichi.element_ptr' indexes a 2-d memref<?x?xf32> with 1 indices

// -----

taichi.kernel @element_ptr_wrong_result(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %p = taichi.element_ptr %x[%c0] : memref<?xf32> -> memref<i32>
  taichi.return
}
// CHECK: 'taichi.element_ptr' expects a memref<f32> result, got memref<i32>

// -----

taichi.field @x : memref<4xf32> offset 0
taichi.kernel @get_field_wrong_type() {
  %x = taichi.get_field @x : memref<8xf32>
  taichi.return
}
// CHECK: 'taichi.get_field' reads @x as memref<8xf32>, but it is declared memref<4xf32>

// -----

taichi.field @dynamic_field : memref<?xf32> offset 0
// CHECK: 'taichi.field' @dynamic_field needs a static shape, got memref<?xf32>

// -----

taichi.kernel @break_outside_loop(%c: i1) {
  taichi.if %c {
    taichi.break
  }
  taichi.return
}
// CHECK: 'taichi.break' must be inside a loop

// -----

taichi.kernel @break_out_of_struct_for(%x: memref<?xf32>) {
  taichi.struct_for (%i) in %x : memref<?xf32> {
    taichi.break
  }
  taichi.return
}
// CHECK: 'taichi.break' cannot leave a taichi.struct_for

// -----

offload.kernel @break_out_of_parallel_task : (i1) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 4 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %c = offload.arg 0 : i1
    taichi.if %c {
      taichi.break
    }
  }
}
// CHECK: 'taichi.break' cannot leave a parallel offload.range_for task

// -----

taichi.kernel @loop_without_terminator(%n: i32) {
  %c0 = arith.constant 0 : i32
  taichi.range_for %i = %c0 to %n : i32 {
    %one = arith.constant 1 : i32
  }
  taichi.return
}
// CHECK: 'taichi.range_for' expects its body to end in taichi.yield, taichi.break or taichi.continue, got arith.constant

// -----

taichi.kernel @struct_for_index_count(%x: memref<?x?xf32>) {
  taichi.struct_for (%i) in %x : memref<?x?xf32> {
    taichi.yield
  }
  taichi.return
}
// CHECK: 'taichi.struct_for' over a 2-d container expects that many i32 body arguments, got (i32)

// -----

taichi.kernel @atomic_on_array(%x: memref<?xf32>, %v: f32) {
  %old = taichi.atomic_add %x, %v : memref<?xf32>
  taichi.return
}
// CHECK: 'taichi.atomic_add' expects its destination to be a 0-d memref, got memref<?xf32>

// -----

taichi.kernel @atomic_mul_of_another_type(%v: f32) {
  %s = memref.alloca() : memref<i32>
  %old = "taichi.atomic_mul"(%s, %v) : (memref<i32>, f32) -> f32
  taichi.return
}
// CHECK: operand 'value' at position 1 does not verify:
// CHECK-NEXT: attribute i32 expected from variable 'T', but got f32

// -----

taichi.kernel @bitwise_atomic_on_float(%v: f32) {
  %s = memref.alloca() : memref<f32>
  %old = "taichi.atomic_and"(%s, %v) : (memref<f32>, f32) -> f32
  taichi.return
}
// CHECK: operand 'dest' at position 0 does not verify

// -----

taichi.kernel @atomic_type_mismatch(%v: f64) {
  %s = memref.alloca() : memref<f32>
  %old = "taichi.atomic_add"(%s, %v) : (memref<f32>, f64) -> f64
  taichi.return
}
// CHECK: operand 'value' at position 1 does not verify

// -----

taichi.kernel @print_holes(%v: f32) {
  taichi.print "v = {} and {}" %v : f32
  taichi.return
}
// CHECK: 'taichi.print' format has 2 '{}' for 1 values

// -----

taichi.kernel @print_float_with_an_integer_conversion(%v: f32) {
  taichi.print "v = {:.2d}" %v : f32
  taichi.return
}
// CHECK: 'taichi.print' conversion 'd' does not fit a f32

// -----

taichi.kernel @kernel_without_return(%v: f32) {
  %s = memref.alloca() : memref<f32>
}
// CHECK: 'taichi.kernel' body must end in taichi.return

// -----

taichi.kernel @assert_three_values(%c: i1, %n: i32) {
  taichi.assert %c, "{} {} {}" (%n, %n, %n : i32, i32, i32)
  taichi.return
}
// CHECK: 'taichi.assert' formats at most 2 values, got 3

// -----

taichi.kernel @assert_f64_value(%c: i1, %v: f64) {
  taichi.assert %c, "v = {}" (%v : f64)
  taichi.return
}
// CHECK: 'taichi.assert' formats i32 and f32 values, got f64

// -----

taichi.kernel @assert_holes_and_values_differ(%c: i1, %v: f32) {
  taichi.assert %c, "v = {} {}" (%v : f32)
  taichi.return
}
// CHECK: 'taichi.assert' message has 2 '{}' for 1 values
