// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_int64+spirv_has_float64+spirv_has_atomic_int64+spirv_has_atomic_float_add"}' --split-input-file | filecheck %s

// Which atomic each kind and signedness gets: a signed min is SMin and an unsigned one
// UMin, in a storage buffer, in a SharedArray (Workgroup) and on a thread-local slot
// (a plain load, combine, store: its old value is the load); an f64 add is a
// compare-and-swap loop on the i64 bit pattern, which needs Int64Atomics.

// CHECK-LABEL: spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Float64, Int64, Int64Atomics], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "kinds"
// CHECK:         %o1 = spirv.AtomicSMin <Device> <None> %[[P:.*]], %[[A:.*]] : !spirv.ptr<i32, StorageBuffer>
// CHECK-NEXT:    %o2 = spirv.AtomicUMin <Device> <None> %[[P]], %[[A]] : !spirv.ptr<i32, StorageBuffer>
// CHECK-NEXT:    %o3 = spirv.AtomicUMax <Device> <None> %[[P]], %[[A]] : !spirv.ptr<i32, StorageBuffer>
// CHECK:         spirv.AtomicCompareExchange <Device> <None> <None> %{{.*}} : !spirv.ptr<i64, StorageBuffer>
taichi.field @n : memref<i32> offset 0
taichi.field @d : memref<f64> offset 8
offload.kernel @kinds : (i32, f64) -> () {
  offload.serial {
    %a = offload.arg 0 : i32
    %b = offload.arg 1 : f64
    %n = taichi.get_field @n : memref<i32>
    %pn = taichi.element_ptr %n[] : memref<i32> -> memref<i32>
    %o1 = taichi.atomic_min %pn, %a : memref<i32>
    %o2 = taichi.atomic_min unsigned %pn, %a : memref<i32>
    %o3 = taichi.atomic_max unsigned %pn, %a : memref<i32>
    %d = taichi.get_field @d : memref<f64>
    %pd = taichi.element_ptr %d[] : memref<f64> -> memref<f64>
    %o4 = taichi.atomic_add %pd, %b : memref<f64>
  }
}

// CHECK-LABEL: attributes {ti.kernel = "local_min"
// CHECK:         %acc = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK:         %v = spirv.Load "StorageBuffer" %[[X:.*]] : i32
// CHECK-NEXT:    %o1 = spirv.Load "Function" %acc : i32
// CHECK-NEXT:    %o1_1 = spirv.GL.SMin %o1, %v : i32
// CHECK-NEXT:    spirv.Store "Function" %acc, %o1_1 : i32
// CHECK-NEXT:    %o2 = spirv.Load "Function" %acc : i32
// CHECK-NEXT:    %o2_1 = spirv.GL.UMax %o2, %v : i32
// CHECK-NEXT:    spirv.Store "Function" %acc, %o2_1 : i32
// CHECK-NEXT:    spirv.Store "StorageBuffer" %[[X]], %o1 : i32
offload.kernel @local_min : (memref<?xi32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %acc = offload.thread_local 0 : memref<i32>
    %x = offload.arg 0 : memref<?xi32>
    %p = taichi.element_ptr %x[%i] : memref<?xi32> -> memref<i32>
    %v = memref.load %p[] : memref<i32>
    %o1 = taichi.atomic_min %acc, %v : memref<i32>
    %o2 = taichi.atomic_max unsigned %acc, %v : memref<i32>
    memref.store %o1, %p[] : memref<i32>
  } prologue {
  } epilogue {
  }
}

// CHECK-LABEL: attributes {ti.kernel = "shared_min"
// CHECK:         %o1 = spirv.AtomicSMin <Workgroup> <None> %[[S:.*]], %i : !spirv.ptr<i32, Workgroup>
// CHECK-NEXT:    %o2 = spirv.AtomicUMin <Workgroup> <None> %[[S]], %i : !spirv.ptr<i32, Workgroup>
offload.kernel @shared_min : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %sh = taichi.shared_array 0 : memref<64xi32>
    %sp = taichi.element_ptr %sh[%i] : memref<64xi32> -> memref<i32>
    %o1 = taichi.atomic_min %sp, %i : memref<i32>
    %o2 = taichi.atomic_min unsigned %sp, %i : memref<i32>
  }
}

// -----

// A float sub with the native float add: the add of the negated value.
// CHECK-LABEL: attributes {ti.kernel = "native_sub"
// CHECK:         %[[A:.*]] = spirv.Load "StorageBuffer" %{{.*}} : f32
// CHECK:         %old = spirv.FNegate %[[A]] : f32
// CHECK-NEXT:    %old_1 = spirv.EXT.AtomicFAdd <Device> <None> %{{.*}}, %old : !spirv.ptr<f32, StorageBuffer>
taichi.field @x : memref<f32> offset 0
offload.kernel @native_sub : (f32) -> () {
  offload.serial {
    %a = offload.arg 0 : f32
    %f = taichi.get_field @x : memref<f32>
    %p = taichi.element_ptr %f[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_sub %p, %a : memref<f32>
  }
}

// -----

// A compare-and-swap of a 64-bit word (a quantized field's) is an i64
// spirv.AtomicCompareExchange, with the Int64Atomics capability.
// CHECK-LABEL: spirv.module
// CHECK:         Int64Atomics
// CHECK-LABEL: attributes {ti.kernel = "cas_i64"
// CHECK:         %[[P:.*]] = spirv.AccessChain %{{.*}} -> !spirv.ptr<i64, StorageBuffer>
// CHECK-NEXT:    %[[E:.*]] = spirv.Constant 0 : i64
// CHECK-NEXT:    %[[N:.*]] = spirv.Constant -1 : i64
// CHECK-NEXT:    %{{.*}} = spirv.AtomicCompareExchange <Device> <None> <None> %[[P]], %[[N]], %[[E]] : !spirv.ptr<i64, StorageBuffer>
taichi.field @w : memref<4xi64> offset 0
offload.kernel @cas_i64 : () -> () {
  offload.serial {
    %f = taichi.get_field @w : memref<4xi64>
    %i = spirv.Constant 1 : i32
    %p = taichi.element_ptr %f[%i] : memref<4xi64> -> memref<i64>
    %e = spirv.Constant 0 : i64
    %n = spirv.Constant -1 : i64
    %old = taichi.atomic_cas %p, %e, %n : memref<i64>
  }
}
