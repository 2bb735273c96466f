// RUN: ti-opt %s -t spirv-asm | filecheck %s

// The text form of the binary (`spirv-dis --raw-id`'s format, written without spirv-tools).
// Sections come in the order SPIR-V requires; each type and constant is declared once,
// at module scope, before its first use; constants nobody uses are not emitted.

// CHECK:      ; SPIR-V
// CHECK-NEXT: ; Version: 1.3
// CHECK-NEXT: ; Generator: Khronos; 0
// CHECK-NEXT: ; Bound: {{[0-9]+}}
// CHECK-NEXT: ; Schema: 0
// CHECK-NEXT: OpCapability Shader
// CHECK-NEXT: OpCapability Int64
// CHECK-NEXT: OpCapability Float64
// CHECK-NEXT: OpExtension "SPV_KHR_storage_buffer_storage_class"
// CHECK-NEXT: %[[GLSL:[0-9]+]] = OpExtInstImport "GLSL.std.450"
// CHECK-NEXT: OpMemoryModel Logical GLSL450
// CHECK-NEXT: OpEntryPoint GLCompute %[[KERNEL:[0-9]+]] "kernel" %[[GID:[0-9]+]]
// CHECK-NEXT: OpExecutionMode %[[KERNEL]] LocalSize 64 1 1
// CHECK-NEXT: OpName %[[GID]] "gid"
// CHECK-NEXT: OpName %[[BUF:[0-9]+]] "buf"
// CHECK-NEXT: OpName %[[SHARED:[0-9]+]] "shared"
// CHECK-NEXT: OpName %[[KERNEL]] "kernel"
// CHECK-NEXT: OpName %[[TWICE:[0-9]+]] "twice"
// Decorations: built-in, struct layout (Block, member offsets and decorations), bindings,
// array strides.
// CHECK-NEXT: OpDecorate %[[GID]] BuiltIn GlobalInvocationId
// CHECK-NEXT: OpDecorate %[[RTARRAY:[0-9]+]] ArrayStride 4
// CHECK-NEXT: OpDecorate %[[STRUCT:[0-9]+]] Block
// CHECK-NEXT: OpMemberDecorate %[[STRUCT]] 0 Offset 0
// CHECK-NEXT: OpMemberDecorate %[[STRUCT]] 1 Offset 4
// CHECK-NEXT: OpMemberDecorate %[[STRUCT]] 1 NonWritable
// CHECK-NEXT: OpDecorate %[[BUF]] DescriptorSet 0
// CHECK-NEXT: OpDecorate %[[BUF]] Binding 2
// CHECK-NEXT: OpDecorate %[[ARRAY:[0-9]+]] ArrayStride 4
// Types, constants and globals, in first-use order.
// CHECK-NEXT: %[[UINT:[0-9]+]] = OpTypeInt 32 0
// CHECK-NEXT: %[[UVEC3:[0-9]+]] = OpTypeVector %[[UINT]] 3
// CHECK-NEXT: %[[UVEC3_IN:[0-9]+]] = OpTypePointer Input %[[UVEC3]]
// CHECK-NEXT: %[[GID]] = OpVariable %[[UVEC3_IN]] Input
// CHECK-NEXT: %[[FLOAT:[0-9]+]] = OpTypeFloat 32
// CHECK-NEXT: %[[RTARRAY]] = OpTypeRuntimeArray %[[FLOAT]]
// CHECK-NEXT: %[[STRUCT]] = OpTypeStruct %[[UINT]] %[[RTARRAY]]
// CHECK-NEXT: %[[STRUCT_SB:[0-9]+]] = OpTypePointer StorageBuffer %[[STRUCT]]
// CHECK-NEXT: %[[BUF]] = OpVariable %[[STRUCT_SB]] StorageBuffer
// CHECK-NEXT: %[[C64:[0-9]+]] = OpConstant %[[UINT]] 64
// CHECK-NEXT: %[[ARRAY]] = OpTypeArray %[[FLOAT]] %[[C64]]
// CHECK-NEXT: %[[ARRAY_WG:[0-9]+]] = OpTypePointer Workgroup %[[ARRAY]]
// CHECK-NEXT: %[[SHARED]] = OpVariable %[[ARRAY_WG]] Workgroup
// CHECK-NEXT: %[[VOID:[0-9]+]] = OpTypeVoid
// CHECK-NEXT: %[[VOID_FN:[0-9]+]] = OpTypeFunction %[[VOID]]
// CHECK-NEXT: %[[FLOAT_FN_PTR:[0-9]+]] = OpTypePointer Function %[[FLOAT]]
// Scalar literals: signed and unsigned, 64-bit, float and double, bool, vectors.
// CHECK-NEXT: %[[INT:[0-9]+]] = OpTypeInt 32 1
// CHECK-NEXT: %[[M1:[0-9]+]] = OpConstant %[[INT]] -1
// CHECK-NEXT: %[[ULONG:[0-9]+]] = OpTypeInt 64 0
// CHECK-NEXT: %[[BIG:[0-9]+]] = OpConstant %[[ULONG]] 5000000000
// CHECK-NEXT: %[[DOUBLE:[0-9]+]] = OpTypeFloat 64
// CHECK-NEXT: %[[TENTH:[0-9]+]] = OpConstant %[[DOUBLE]] 0.10000000000000001
// CHECK-NEXT: %[[BOOL:[0-9]+]] = OpTypeBool
// CHECK-NEXT: %[[TRUE:[0-9]+]] = OpConstantTrue %[[BOOL]]
// CHECK-NEXT: %[[V4:[0-9]+]] = OpTypeVector %[[FLOAT]] 4
// CHECK-NEXT: %[[F1:[0-9]+]] = OpConstant %[[FLOAT]] 1
// CHECK-NEXT: %[[F2:[0-9]+]] = OpConstant %[[FLOAT]] 2
// CHECK-NEXT: %[[F3:[0-9]+]] = OpConstant %[[FLOAT]] 3
// CHECK-NEXT: %[[F4:[0-9]+]] = OpConstant %[[FLOAT]] 4
// CHECK-NEXT: %[[VEC:[0-9]+]] = OpConstantComposite %[[V4]] %[[F1]] %[[F2]] %[[F3]] %[[F4]]
// CHECK-NEXT: %[[FLOAT_SB:[0-9]+]] = OpTypePointer StorageBuffer %[[FLOAT]]
// `%c1` and `%again` are one constant.
// CHECK-NEXT: %[[C1:[0-9]+]] = OpConstant %[[UINT]] 1
// CHECK-NEXT: %[[UINT_SB:[0-9]+]] = OpTypePointer StorageBuffer %[[UINT]]
// CHECK-NEXT: %[[C0:[0-9]+]] = OpConstant %[[UINT]] 0
// AcquireRelease|UniformMemory = 0x8|0x40.
// CHECK-NEXT: %[[SEM72:[0-9]+]] = OpConstant %[[UINT]] 72
// CHECK-NEXT: %[[HALF:[0-9]+]] = OpConstant %[[FLOAT]] 0.5
// CHECK-NEXT: %[[C2:[0-9]+]] = OpConstant %[[UINT]] 2
// CHECK-NEXT: %[[SEM264:[0-9]+]] = OpConstant %[[UINT]] 264
// CHECK-NEXT: %[[FLOAT_FN:[0-9]+]] = OpTypeFunction %[[FLOAT]] %[[FLOAT]]
// The function: variables first, then the body.
// CHECK-NEXT: %[[KERNEL]] = OpFunction %[[VOID]] None %[[VOID_FN]]
// CHECK-NEXT: %{{[0-9]+}} = OpLabel
// CHECK-NEXT: %[[VAR:[0-9]+]] = OpVariable %[[FLOAT_FN_PTR]] Function
// CHECK-NEXT: %{{[0-9]+}} = OpIAdd %[[INT]] %[[M1]] %[[M1]]
// CHECK-NEXT: %{{[0-9]+}} = OpIAdd %[[ULONG]] %[[BIG]] %[[BIG]]
// CHECK-NEXT: %{{[0-9]+}} = OpFAdd %[[DOUBLE]] %[[TENTH]] %[[TENTH]]
// CHECK-NEXT: %{{[0-9]+}} = OpLogicalNot %[[BOOL]] %[[TRUE]]
// CHECK-NEXT: %{{[0-9]+}} = OpFMul %[[V4]] %[[VEC]] %[[VEC]]
// CHECK-NEXT: %[[GID_V:[0-9]+]] = OpLoad %[[UVEC3]] %[[GID]]
// CHECK-NEXT: %[[I:[0-9]+]] = OpCompositeExtract %[[UINT]] %[[GID_V]] 0
// CHECK-NEXT: %[[P:[0-9]+]] = OpAccessChain %[[FLOAT_SB]] %[[BUF]] %[[C1]] %[[I]]
// CHECK-NEXT: %[[X:[0-9]+]] = OpLoad %[[FLOAT]] %[[P]] Aligned 4
// CHECK-NEXT: %[[S:[0-9]+]] = OpExtInst %[[FLOAT]] %[[GLSL]] Sqrt %[[X]]
// CHECK-NEXT: %[[N:[0-9]+]] = OpAccessChain %[[UINT_SB]] %[[BUF]] %[[C0]]
// Scope Device = 1.
// CHECK-NEXT: %{{[0-9]+}} = OpAtomicIAdd %[[UINT]] %[[N]] %[[C1]] %[[SEM72]] %[[C1]]
// CHECK-NEXT: %[[POSITIVE:[0-9]+]] = OpFOrdGreaterThan %[[BOOL]] %[[S]] %[[HALF]]
// The selection starts its own block; its merge block continues the function.
// CHECK-NEXT: OpBranch %[[HEADER:[0-9]+]]
// CHECK-NEXT: %[[HEADER]] = OpLabel
// CHECK-NEXT: OpSelectionMerge %[[MERGE:[0-9]+]] None
// CHECK-NEXT: OpBranchConditional %[[POSITIVE]] %[[THEN:[0-9]+]] %[[ELSE:[0-9]+]]
// CHECK-NEXT: %[[THEN]] = OpLabel
// CHECK-NEXT: OpStore %[[VAR]] %[[S]]
// CHECK-NEXT: OpBranch %[[MERGE]]
// CHECK-NEXT: %[[ELSE]] = OpLabel
// CHECK-NEXT: OpStore %[[VAR]] %[[HALF]]
// CHECK-NEXT: OpBranch %[[MERGE]]
// CHECK-NEXT: %[[MERGE]] = OpLabel
// CHECK-NEXT: %{{[0-9]+}} = OpFunctionCall %[[FLOAT]] %[[TWICE]] %[[X]]
// Workgroup = 2; AcquireRelease|WorkgroupMemory = 0x8|0x100.
// CHECK-NEXT: OpControlBarrier %[[C2]] %[[C2]] %[[SEM264]]
// CHECK-NEXT: OpReturn
// CHECK-NEXT: OpFunctionEnd
// CHECK-NEXT: %[[TWICE]] = OpFunction %[[FLOAT]] Inline %[[FLOAT_FN]]
// CHECK-NEXT: %[[V:[0-9]+]] = OpFunctionParameter %[[FLOAT]]
// CHECK-NEXT: %{{[0-9]+}} = OpLabel
// CHECK-NEXT: %[[TWO:[0-9]+]] = OpFAdd %[[FLOAT]] %[[V]] %[[V]]
// CHECK-NEXT: OpReturnValue %[[TWO]]
// CHECK-NEXT: OpFunctionEnd
// CHECK-NOT:  Op

spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Int64, Float64], [SPV_KHR_storage_buffer_storage_class]> {
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @buf bind(0, 2) : !spirv.ptr<!spirv.struct<(i32 [0], !spirv.rtarray<f32, stride=4> [4, NonWritable]), Block>, StorageBuffer>
  spirv.GlobalVariable @shared : !spirv.ptr<!spirv.array<64 x f32, stride=4>, Workgroup>
  spirv.func @kernel() "None" {
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %again = spirv.Constant 1 : i32
    %m1 = spirv.Constant -1 : si32
    %big = spirv.Constant 5000000000 : i64
    %half = spirv.Constant 0.5 : f32
    %tenth = spirv.Constant 0.1 : f64
    %t = spirv.Constant true
    %vec = spirv.Constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
    %neg = spirv.IAdd %m1, %m1 : si32
    %big2 = spirv.IAdd %big, %big : i64
    %tenth2 = spirv.FAdd %tenth, %tenth : f64
    %f = spirv.LogicalNot %t : i1
    %vec2 = spirv.FMul %vec, %vec : vector<4xf32>
    %gid_p = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
    %gid = spirv.Load "Input" %gid_p : vector<3xi32>
    %i = spirv.CompositeExtract %gid[0 : i32] : vector<3xi32>
    %buf = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(i32 [0], !spirv.rtarray<f32, stride=4> [4, NonWritable]), Block>, StorageBuffer>
    %p = spirv.AccessChain %buf[%c1, %i] : !spirv.ptr<!spirv.struct<(i32 [0], !spirv.rtarray<f32, stride=4> [4, NonWritable]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %x = spirv.Load "StorageBuffer" %p ["Aligned", 4] : f32
    %s = spirv.GL.Sqrt %x : f32
    %n = spirv.AccessChain %buf[%c0] : !spirv.ptr<!spirv.struct<(i32 [0], !spirv.rtarray<f32, stride=4> [4, NonWritable]), Block>, StorageBuffer>, i32 -> !spirv.ptr<i32, StorageBuffer>
    %old = spirv.AtomicIAdd <Device> <AcquireRelease|UniformMemory> %n, %again : !spirv.ptr<i32, StorageBuffer>
    %var = spirv.Variable : !spirv.ptr<f32, Function>
    %positive = spirv.FOrdGreaterThan %s, %half : f32
    spirv.mlir.selection {
      spirv.BranchConditional %positive, ^then, ^else
    ^then:
      spirv.Store "Function" %var, %s : f32
      spirv.Branch ^merge
    ^else:
      spirv.Store "Function" %var, %half : f32
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
    %r = spirv.FunctionCall @twice(%x) : (f32) -> f32
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    spirv.Return
  }
  spirv.func @twice(%v: f32) -> f32 "Inline" {
    %two = spirv.FAdd %v, %v : f32
    spirv.ReturnValue %two : f32
  }
  spirv.EntryPoint "GLCompute" @kernel, @gid
  spirv.ExecutionMode @kernel "LocalSize", 64, 1, 1
}
