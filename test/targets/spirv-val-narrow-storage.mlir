// REQUIRES: spirv-tools
// RUN: ti-opt %S/../lowering/convert-offload-to-spirv-narrow-types.mlir -p 'convert-offload-to-spirv{caps="spirv_has_int8+spirv_has_int16+spirv_has_float16+spirv_has_float64"}' -t spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv

// 8-bit, 16-bit and f16 storage-buffer elements, an f64 value: the module is valid
// Vulkan 1.1 SPIR-V (spirv-val rejects it without SPV_KHR_8bit_storage or
// SPV_KHR_16bit_storage; it does not notice a missing capability, so the FileCheck
// lines on the whole triple are in that file).
