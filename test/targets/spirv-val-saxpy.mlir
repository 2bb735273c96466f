// REQUIRES: spirv-tools
// RUN: ti-opt %s -t spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: ti-opt %s -t spirv-asm | filecheck %s

// A complete compute shader, as the offload -> spirv conversions will produce one for
// `y[i] = a * x[i] + y[i]; total += y[i]` in a range_for: a grid-stride loop over
// GlobalInvocationId.x with stride NumWorkgroups.x * 128 (so no dispatch needs more than
// the device's workgroup-count limit), and a float atomic add done as a compare-and-swap
// loop on the bit pattern (for devices without SPV_EXT_shader_atomic_float_add).
// spirv-val must accept the binary under Vulkan 1.1 rules.

// CHECK:      OpCapability Shader
// CHECK:      OpEntryPoint GLCompute %[[MAIN:[0-9]+]] "saxpy" %[[GID:[0-9]+]] %[[NWG:[0-9]+]]
// CHECK-NEXT: OpExecutionMode %[[MAIN]] LocalSize 128 1 1
// CHECK:      OpDecorate %[[GID]] BuiltIn GlobalInvocationId
// CHECK:      OpDecorate %[[NWG]] BuiltIn NumWorkgroups
// The grid-stride loop: the index is a phi of GlobalInvocationId.x and i + stride.
// CHECK:      %[[GID_V:[0-9]+]] = OpLoad %{{[0-9]+}} %[[GID]]
// CHECK-NEXT: %[[BEGIN:[0-9]+]] = OpCompositeExtract %{{[0-9]+}} %[[GID_V]] 0
// CHECK:      OpBranch %[[HEADER:[0-9]+]]
// CHECK-NEXT: %[[HEADER]] = OpLabel
// CHECK-NEXT: %[[I:[0-9]+]] = OpPhi %{{[0-9]+}} %[[BEGIN]] %{{[0-9]+}} %[[NEXT:[0-9]+]] %[[CONTINUE:[0-9]+]]
// CHECK-NEXT: %[[LT:[0-9]+]] = OpSLessThan %{{[0-9]+}} %[[I]]
// CHECK-NEXT: OpLoopMerge %[[MERGE:[0-9]+]] %[[CONTINUE]] None
// CHECK-NEXT: OpBranchConditional %[[LT]] %{{[0-9]+}} %[[MERGE]]
// The compare-and-swap loop, nested in the body: retry with the value seen.
// CHECK:      OpBranch %[[CAS:[0-9]+]]
// CHECK-NEXT: %[[CAS]] = OpLabel
// CHECK-NEXT: %[[EXPECTED:[0-9]+]] = OpPhi
// CHECK-NEXT: %[[OLD:[0-9]+]] = OpBitcast %{{[0-9]+}} %[[EXPECTED]]
// CHECK-NEXT: %[[SUM:[0-9]+]] = OpFAdd %{{[0-9]+}} %[[OLD]]
// CHECK-NEXT: %[[DESIRED:[0-9]+]] = OpBitcast %{{[0-9]+}} %[[SUM]]
// CHECK-NEXT: %[[SEEN:[0-9]+]] = OpAtomicCompareExchange %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %[[DESIRED]] %[[EXPECTED]]
// CHECK-NEXT: %[[DONE:[0-9]+]] = OpIEqual %{{[0-9]+}} %[[SEEN]] %[[EXPECTED]]
// CHECK-NEXT: OpLoopMerge %[[CAS_MERGE:[0-9]+]] %[[CAS_CONTINUE:[0-9]+]] None
// CHECK-NEXT: OpBranchConditional %[[DONE]] %[[CAS_MERGE]] %[[CAS_CONTINUE]]
// CHECK-NEXT: %[[CAS_CONTINUE]] = OpLabel
// CHECK-NEXT: OpBranch %[[CAS]]
// CHECK-NEXT: %[[CAS_MERGE]] = OpLabel
// CHECK-NEXT: OpBranch %[[CONTINUE]]
// CHECK-NEXT: %[[CONTINUE]] = OpLabel
// CHECK-NEXT: %[[NEXT]] = OpIAdd %{{[0-9]+}} %[[I]]
// CHECK-NEXT: OpBranch %[[HEADER]]
// CHECK-NEXT: %[[MERGE]] = OpLabel
// CHECK-NEXT: OpReturn
// CHECK-NEXT: OpFunctionEnd

spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @nwg built_in("NumWorkgroups") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @x bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
  spirv.GlobalVariable @y bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
  spirv.GlobalVariable @total bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
  spirv.GlobalVariable @args bind(0, 3) : !spirv.ptr<!spirv.struct<(f32 [0], i32 [4]), Block>, StorageBuffer>

  spirv.func @saxpy() "None" {
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %block_dim = spirv.Constant 128 : i32
    // begin = GlobalInvocationId.x, stride = NumWorkgroups.x * 128
    %gid_ptr = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
    %gid = spirv.Load "Input" %gid_ptr : vector<3xi32>
    %begin = spirv.CompositeExtract %gid[0 : i32] : vector<3xi32>
    %nwg_ptr = spirv.mlir.addressof @nwg : !spirv.ptr<vector<3xi32>, Input>
    %nwg = spirv.Load "Input" %nwg_ptr : vector<3xi32>
    %groups = spirv.CompositeExtract %nwg[0 : i32] : vector<3xi32>
    %stride = spirv.IMul %groups, %block_dim : i32
    // a and n from the argument buffer
    %args = spirv.mlir.addressof @args : !spirv.ptr<!spirv.struct<(f32 [0], i32 [4]), Block>, StorageBuffer>
    %a_ptr = spirv.AccessChain %args[%c0] : !spirv.ptr<!spirv.struct<(f32 [0], i32 [4]), Block>, StorageBuffer>, i32 -> !spirv.ptr<f32, StorageBuffer>
    %a = spirv.Load "StorageBuffer" %a_ptr : f32
    %n_ptr = spirv.AccessChain %args[%c1] : !spirv.ptr<!spirv.struct<(f32 [0], i32 [4]), Block>, StorageBuffer>, i32 -> !spirv.ptr<i32, StorageBuffer>
    %n = spirv.Load "StorageBuffer" %n_ptr : i32
    %x = spirv.mlir.addressof @x : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %y = spirv.mlir.addressof @y : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %total = spirv.mlir.addressof @total : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
    %total_bits = spirv.AccessChain %total[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
    spirv.mlir.loop {
      spirv.Branch ^header(%begin : i32)
    ^header(%i: i32):
      %in_range = spirv.SLessThan %i, %n : i32
      spirv.BranchConditional %in_range, ^body, ^merge
    ^body:
      %xi_ptr = spirv.AccessChain %x[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %xi = spirv.Load "StorageBuffer" %xi_ptr : f32
      %yi_ptr = spirv.AccessChain %y[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %yi = spirv.Load "StorageBuffer" %yi_ptr : f32
      %ax = spirv.FMul %a, %xi : f32
      %r = spirv.FAdd %ax, %yi : f32
      spirv.Store "StorageBuffer" %yi_ptr, %r : f32
      // total += r: compare-and-swap on the bit pattern until no other invocation
      // changed it in between.
      %seen0 = spirv.Load "StorageBuffer" %total_bits : i32
      spirv.mlir.loop {
        spirv.Branch ^cas(%seen0 : i32)
      ^cas(%expected: i32):
        %old = spirv.Bitcast %expected : i32 to f32
        %sum = spirv.FAdd %old, %r : f32
        %desired = spirv.Bitcast %sum : f32 to i32
        %seen = spirv.AtomicCompareExchange <Device> <None> <None> %total_bits, %desired, %expected : !spirv.ptr<i32, StorageBuffer>
        %done = spirv.IEqual %seen, %expected : i32
        spirv.BranchConditional %done, ^cas_merge, ^cas_continue
      ^cas_continue:
        spirv.Branch ^cas(%seen : i32)
      ^cas_merge:
        spirv.mlir.merge
      }
      spirv.Branch ^continue
    ^continue:
      %next = spirv.IAdd %i, %stride : i32
      spirv.Branch ^header(%next : i32)
    ^merge:
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @saxpy, @gid, @nwg
  spirv.ExecutionMode @saxpy "LocalSize", 128, 1, 1
}
