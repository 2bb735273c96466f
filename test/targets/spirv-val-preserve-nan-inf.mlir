// REQUIRES: spirv-tools
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{preserve-nan-inf=true}' | filecheck %s
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{preserve-nan-inf=true}' -t spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv{preserve-nan-inf=true}' -t spirv-asm | filecheck %s --check-prefix=ASM
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv' | filecheck %s --check-prefix=FAST
// RUN: ti-opt %s -p 'ti-to-offload,convert-taichi-to-spirv,convert-arith-to-spirv,convert-offload-to-spirv' -t spirv-asm | filecheck %s --check-prefix=FASTASM

// fast_math=False: the module declares float controls so that the driver keeps NaN and
// Inf (isnan(z / z) with z = 0 is 1): the capability, SPV_KHR_float_controls (the module
// is SPIR-V 1.3) and SignedZeroInfNanPreserve for f32 and for f64, which it uses.
// CHECK-LABEL: spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Float64, SignedZeroInfNanPreserve], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_float_controls]>
// CHECK:         spirv.EntryPoint "GLCompute" @k__task0, @gid, @nwg
// CHECK-NEXT:    spirv.ExecutionMode @k__task0 "LocalSize", 1, 1, 1
// CHECK-NEXT:    spirv.ExecutionMode @k__task0 "SignedZeroInfNanPreserve", 32
// CHECK-NEXT:    spirv.ExecutionMode @k__task0 "SignedZeroInfNanPreserve", 64
// CHECK-NOT:     spirv.ExecutionMode

// ASM-DAG: OpCapability SignedZeroInfNanPreserve
// ASM-DAG: OpExtension "SPV_KHR_float_controls"
// ASM-DAG: OpExecutionMode %{{.*}} SignedZeroInfNanPreserve 32
// ASM-DAG: OpExecutionMode %{{.*}} SignedZeroInfNanPreserve 64

// Without the option (fast math, the default) the module is left as it was.
// FAST-LABEL: spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Float64], [SPV_KHR_storage_buffer_storage_class]>
// FAST:         spirv.ExecutionMode @k__task0 "LocalSize", 1, 1, 1
// FAST-NOT:     SignedZeroInfNanPreserve
// FASTASM-NOT: SignedZeroInfNanPreserve
// FASTASM-NOT: SPV_KHR_float_controls
taichi.field @r : memref<1xi32> offset 0
taichi.field @d : memref<1xf64> offset 8

taichi.kernel @k(%z: f32) {
  %q = arith.divf %z, %z : f32
  %nan = arith.cmpf uno, %q, %q : f32
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %v = arith.select %nan, %one, %zero : i32
  %rf = taichi.get_field @r : memref<1xi32>
  %r = taichi.element_ptr %rf[%zero] : memref<1xi32> -> memref<i32>
  memref.store %v, %r[] : memref<i32>
  %w = arith.extf %q : f32 to f64
  %df = taichi.get_field @d : memref<1xf64>
  %d = taichi.element_ptr %df[%zero] : memref<1xf64> -> memref<f64>
  memref.store %w, %d[] : memref<f64>
  taichi.return
}
