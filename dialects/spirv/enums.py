"""
The SPIR-V enumerations the `spirv` dialect names, as `name -> value` tables.

Values are the SPIR-V 1.6 specification's (section 3, "Binary Form"); names are spelled as
there (and as MLIR's SPIR-V dialect spells them), so `#spirv.scope<Device>` is `Device`, 1.
The dialect uses the names to verify its attributes; the serializer encodes the values.
Only the members a compute shader may need are listed: an unknown name is a verifier
error, never a silently wrong number.
"""

from __future__ import annotations

ADDRESSING_MODEL: dict[str, int] = {
    "Logical": 0,
    "Physical32": 1,
    "Physical64": 2,
    "PhysicalStorageBuffer64": 5348,
}

MEMORY_MODEL: dict[str, int] = {"Simple": 0, "GLSL450": 1, "OpenCL": 2, "Vulkan": 3}

EXECUTION_MODEL: dict[str, int] = {
    "Vertex": 0,
    "TessellationControl": 1,
    "TessellationEvaluation": 2,
    "Geometry": 3,
    "Fragment": 4,
    "GLCompute": 5,
    "Kernel": 6,
}

EXECUTION_MODE: dict[str, int] = {
    "OriginUpperLeft": 7,
    "OriginLowerLeft": 8,
    "LocalSize": 17,
    "LocalSizeHint": 18,
    "ContractionOff": 31,
    "SubgroupSize": 35,
    "SubgroupsPerWorkgroup": 36,
    "LocalSizeId": 38,
    "LocalSizeHintId": 39,
    "SubgroupUniformControlFlowKHR": 4421,
    "DenormPreserve": 4459,
    "DenormFlushToZero": 4460,
    "SignedZeroInfNanPreserve": 4461,
    "RoundingModeRTE": 4462,
    "RoundingModeRTZ": 4463,
}

EXECUTION_MODE_OPERANDS: dict[str, int] = {
    "LocalSize": 3,
    "LocalSizeHint": 3,
    "LocalSizeId": 3,
    "LocalSizeHintId": 3,
    "SubgroupSize": 1,
    "SubgroupsPerWorkgroup": 1,
    "DenormPreserve": 1,
    "DenormFlushToZero": 1,
    "SignedZeroInfNanPreserve": 1,
    "RoundingModeRTE": 1,
    "RoundingModeRTZ": 1,
}
"""How many literal operands each execution mode takes (0 when absent)."""

STORAGE_CLASS: dict[str, int] = {
    "UniformConstant": 0,
    "Input": 1,
    "Uniform": 2,
    "Output": 3,
    "Workgroup": 4,
    "CrossWorkgroup": 5,
    "Private": 6,
    "Function": 7,
    "Generic": 8,
    "PushConstant": 9,
    "AtomicCounter": 10,
    "Image": 11,
    "StorageBuffer": 12,
    "PhysicalStorageBuffer": 5349,
}

DECORATION: dict[str, int] = {
    "RelaxedPrecision": 0,
    "SpecId": 1,
    "Block": 2,
    "BufferBlock": 3,
    "RowMajor": 4,
    "ColMajor": 5,
    "ArrayStride": 6,
    "MatrixStride": 7,
    "GLSLShared": 8,
    "GLSLPacked": 9,
    "BuiltIn": 11,
    "NoPerspective": 13,
    "Flat": 14,
    "Invariant": 18,
    "Restrict": 19,
    "Aliased": 20,
    "Volatile": 21,
    "Coherent": 23,
    "NonWritable": 24,
    "NonReadable": 25,
    "Uniform": 26,
    "Location": 30,
    "Component": 31,
    "Index": 32,
    "Binding": 33,
    "DescriptorSet": 34,
    "Offset": 35,
    "NoContraction": 42,
    "Alignment": 44,
    "NoSignedWrap": 4469,
    "NoUnsignedWrap": 4470,
    "RestrictPointer": 5355,
    "AliasedPointer": 5356,
}

DECORATIONS_WITH_VALUE = frozenset(
    {
        "SpecId",
        "ArrayStride",
        "MatrixStride",
        "Location",
        "Component",
        "Index",
        "Binding",
        "DescriptorSet",
        "Offset",
        "Alignment",
    }
)
"""Decorations that carry one literal integer (`MatrixStride=16`)."""

BUILT_IN: dict[str, int] = {
    "Position": 0,
    "PointSize": 1,
    "VertexId": 5,
    "InstanceId": 6,
    "FragCoord": 15,
    "NumWorkgroups": 24,
    "WorkgroupSize": 25,
    "WorkgroupId": 26,
    "LocalInvocationId": 27,
    "GlobalInvocationId": 28,
    "LocalInvocationIndex": 29,
    "SubgroupSize": 36,
    "NumSubgroups": 38,
    "SubgroupId": 40,
    "SubgroupLocalInvocationId": 41,
    "VertexIndex": 42,
    "InstanceIndex": 43,
}

CAPABILITY: dict[str, int] = {
    "Matrix": 0,
    "Shader": 1,
    "Addresses": 4,
    "Linkage": 5,
    "Kernel": 6,
    "Float16Buffer": 8,
    "Float16": 9,
    "Float64": 10,
    "Int64": 11,
    "Int64Atomics": 12,
    "Groups": 18,
    "AtomicStorage": 21,
    "Int16": 22,
    "StorageImageMultisample": 27,
    "UniformBufferArrayDynamicIndexing": 28,
    "SampledImageArrayDynamicIndexing": 29,
    "StorageBufferArrayDynamicIndexing": 30,
    "StorageImageArrayDynamicIndexing": 31,
    "Int8": 39,
    "Sampled1D": 43,
    "Image1D": 44,
    "SampledBuffer": 46,
    "ImageBuffer": 47,
    "StorageImageExtendedFormats": 49,
    "ImageQuery": 50,
    "StorageImageReadWithoutFormat": 55,
    "StorageImageWriteWithoutFormat": 56,
    "GroupNonUniform": 61,
    "GroupNonUniformVote": 62,
    "GroupNonUniformArithmetic": 63,
    "GroupNonUniformBallot": 64,
    "GroupNonUniformShuffle": 65,
    "GroupNonUniformShuffleRelative": 66,
    "GroupNonUniformClustered": 67,
    "GroupNonUniformQuad": 68,
    "StorageBuffer16BitAccess": 4433,
    "UniformAndStorageBuffer16BitAccess": 4434,
    "StoragePushConstant16": 4435,
    "StorageInputOutput16": 4436,
    "VariablePointersStorageBuffer": 4441,
    "VariablePointers": 4442,
    "StorageBuffer8BitAccess": 4448,
    "UniformAndStorageBuffer8BitAccess": 4449,
    "StoragePushConstant8": 4450,
    "DenormPreserve": 4464,
    "DenormFlushToZero": 4465,
    "SignedZeroInfNanPreserve": 4466,
    "RoundingModeRTE": 4467,
    "RoundingModeRTZ": 4468,
    "ShaderClockKHR": 5055,
    "VulkanMemoryModel": 5345,
    "VulkanMemoryModelDeviceScope": 5346,
    "PhysicalStorageBufferAddresses": 5347,
    "AtomicFloat32MinMaxEXT": 5612,
    "AtomicFloat64MinMaxEXT": 5613,
    "AtomicFloat16MinMaxEXT": 5616,
    "AtomicFloat32AddEXT": 6033,
    "AtomicFloat64AddEXT": 6034,
    "AtomicFloat16AddEXT": 6095,
}

SCOPE: dict[str, int] = {
    "CrossDevice": 0,
    "Device": 1,
    "Workgroup": 2,
    "Subgroup": 3,
    "Invocation": 4,
    "QueueFamily": 5,
    "ShaderCallKHR": 6,
}

MEMORY_SEMANTICS: dict[str, int] = {
    "None": 0x0,
    "Acquire": 0x2,
    "Release": 0x4,
    "AcquireRelease": 0x8,
    "SequentiallyConsistent": 0x10,
    "UniformMemory": 0x40,
    "SubgroupMemory": 0x80,
    "WorkgroupMemory": 0x100,
    "CrossWorkgroupMemory": 0x200,
    "AtomicCounterMemory": 0x400,
    "ImageMemory": 0x800,
    "OutputMemory": 0x1000,
    "MakeAvailable": 0x2000,
    "MakeVisible": 0x4000,
    "Volatile": 0x8000,
}

MEMORY_ORDERINGS = ("Acquire", "Release", "AcquireRelease", "SequentiallyConsistent")
"""At most one of these may be set in a memory semantics mask."""

MEMORY_ACCESS: dict[str, int] = {
    "None": 0x0,
    "Volatile": 0x1,
    "Aligned": 0x2,
    "Nontemporal": 0x4,
    "MakePointerAvailable": 0x8,
    "MakePointerVisible": 0x10,
    "NonPrivatePointer": 0x20,
}

FUNCTION_CONTROL: dict[str, int] = {
    "None": 0x0,
    "Inline": 0x1,
    "DontInline": 0x2,
    "Pure": 0x4,
    "Const": 0x8,
}

SELECTION_CONTROL: dict[str, int] = {"None": 0x0, "Flatten": 0x1, "DontFlatten": 0x2}

LOOP_CONTROL: dict[str, int] = {
    "None": 0x0,
    "Unroll": 0x1,
    "DontUnroll": 0x2,
    "DependencyInfinite": 0x4,
}

VERSIONS: dict[str, int] = {
    "v1.0": 0x00010000,
    "v1.1": 0x00010100,
    "v1.2": 0x00010200,
    "v1.3": 0x00010300,
    "v1.4": 0x00010400,
    "v1.5": 0x00010500,
    "v1.6": 0x00010600,
}
"""`#spirv.vce` version keyword -> the version word of the module header."""

GROUP_OPERATION: dict[str, int] = {
    "Reduce": 0,
    "InclusiveScan": 1,
    "ExclusiveScan": 2,
}
