// REQUIRES: spirv-tools
// RUN: ti-opt %s -t spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: ti-opt %s -t spirv-asm | filecheck %s

// Control flow the conversions will produce, each shape checked by spirv-val:
// - a serial task: only invocation 0 runs the body (a selection with an early return);
// - two selections in a row (the first's merge block is the second's predecessor) and a
//   selection nested in another's header block;
// - a loop whose body leaves early to the merge block (`break`) and a selection in the
//   continue block;
// - shared memory and a workgroup barrier, a helper function, GLSL.std.450 and
//   conversions.


// The serializer gives each structured construct its merge and branch instructions, in
// the order spirv-val requires, naming the right blocks:
// CHECK:      OpEntryPoint GLCompute %[[SERIAL:[0-9]+]] "serial"
// CHECK-NEXT: OpEntryPoint GLCompute %[[LOOPS:[0-9]+]] "loops"
// CHECK:      %[[SERIAL]] = OpFunction
// The early return of every invocation but the first.
// CHECK:      %[[NOT_FIRST:[0-9]+]] = OpINotEqual
// CHECK:      OpSelectionMerge %[[M0:[0-9]+]] None
// CHECK-NEXT: OpBranchConditional %[[NOT_FIRST]] %[[SKIP:[0-9]+]] %[[M0]]
// CHECK-NEXT: %[[SKIP]] = OpLabel
// CHECK-NEXT: OpReturn
// CHECK-NEXT: %[[M0]] = OpLabel
// A selection in the header block of another: the inner merge block holds the outer
// selection's merge instruction.
// CHECK:      %[[BIG:[0-9]+]] = OpFOrdGreaterThan
// CHECK:      OpBranch %[[OUTER:[0-9]+]]
// CHECK-NEXT: %[[OUTER]] = OpLabel
// CHECK-NEXT: OpBranch %[[INNER:[0-9]+]]
// CHECK-NEXT: %[[INNER]] = OpLabel
// CHECK-NEXT: OpSelectionMerge %[[IM:[0-9]+]] None
// CHECK-NEXT: OpBranchConditional %[[BIG]] %[[THEN:[0-9]+]] %[[IM]]
// CHECK-NEXT: %[[THEN]] = OpLabel
// CHECK:      OpBranch %[[IM]]
// CHECK-NEXT: %[[IM]] = OpLabel
// CHECK:      %[[NEG:[0-9]+]] = OpFOrdLessThan
// CHECK-NEXT: OpSelectionMerge %[[OM:[0-9]+]] None
// CHECK-NEXT: OpBranchConditional %[[NEG]] %[[T2:[0-9]+]] %[[E2:[0-9]+]]
// CHECK-NEXT: %[[T2]] = OpLabel
// CHECK-NEXT: OpFunctionCall %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}}
// CHECK:      OpBranch %[[OM]]
// CHECK-NEXT: %[[E2]] = OpLabel
// CHECK-NEXT: OpBranch %[[OM]]
// CHECK-NEXT: %[[OM]] = OpLabel
// CHECK:      OpFunctionEnd
// The loop: the block argument becomes a phi of the entry value and the continue
// block's; `break` branches to the merge block; the continue block's selection merges
// into the block that steps the counter.
// CHECK:      %[[LOOPS]] = OpFunction
// CHECK:      OpControlBarrier
// CHECK:      OpBranch %[[HEAD:[0-9]+]]
// CHECK-NEXT: %[[HEAD]] = OpLabel
// CHECK-NEXT: %[[I:[0-9]+]] = OpPhi %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %[[NEXT:[0-9]+]] %[[STEP:[0-9]+]]
// CHECK-NEXT: %[[LT:[0-9]+]] = OpSLessThan %{{[0-9]+}} %[[I]]
// CHECK-NEXT: OpLoopMerge %[[LM:[0-9]+]] %[[CONT:[0-9]+]] None
// CHECK-NEXT: OpBranchConditional %[[LT]] %[[BODY:[0-9]+]] %[[LM]]
// CHECK-NEXT: %[[BODY]] = OpLabel
// CHECK:      %[[OVER:[0-9]+]] = OpFOrdGreaterThan
// CHECK-NEXT: OpBranchConditional %[[OVER]] %[[LM]] %[[CONT]]
// CHECK-NEXT: %[[CONT]] = OpLabel
// CHECK:      OpSelectionMerge %[[STEP]] None
// CHECK:      %[[STEP]] = OpLabel
// CHECK-NEXT: %[[NEXT]] = OpIAdd %{{[0-9]+}} %[[I]]
// CHECK-NEXT: OpBranch %[[HEAD]]
// CHECK-NEXT: %[[LM]] = OpLabel

spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []> {
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @lid built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @data bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
  spirv.GlobalVariable @tile : !spirv.ptr<!spirv.array<64 x f32>, Workgroup>

  spirv.func @clamp01(%x: f32) -> f32 "Inline" {
    %zero = spirv.Constant 0.0 : f32
    %one = spirv.Constant 1.0 : f32
    %r = spirv.GL.FClamp %x, %zero, %one : f32
    spirv.ReturnValue %r : f32
  }

  spirv.func @serial() "None" {
    %c0 = spirv.Constant 0 : i32
    %gid_ptr = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
    %gid = spirv.Load "Input" %gid_ptr : vector<3xi32>
    %x = spirv.CompositeExtract %gid[0 : i32] : vector<3xi32>
    %not_first = spirv.INotEqual %x, %c0 : i32
    // Serial tasks run on invocation 0 only.
    spirv.mlir.selection {
      spirv.BranchConditional %not_first, ^skip, ^merge
    ^skip:
      spirv.Return
    ^merge:
      spirv.mlir.merge
    }
    %data = spirv.mlir.addressof @data : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %p = spirv.AccessChain %data[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %v = spirv.Load "StorageBuffer" %p : f32
    %half = spirv.Constant 0.5 : f32
    %big = spirv.FOrdGreaterThan %v, %half : f32
    %var = spirv.Variable : !spirv.ptr<f32, Function>
    spirv.Store "Function" %var, %v : f32
    // A selection nested in the header block of another.
    spirv.mlir.selection {
      spirv.mlir.selection {
        spirv.BranchConditional %big, ^then, ^merge
      ^then:
        %s = spirv.GL.Sqrt %v : f32
        spirv.Store "Function" %var, %s : f32
        spirv.Branch ^merge
      ^merge:
        spirv.mlir.merge
      }
      %w = spirv.Load "Function" %var : f32
      %neg = spirv.FOrdLessThan %w, %half : f32
      spirv.BranchConditional %neg, ^then, ^else
    ^then:
      %c = spirv.FunctionCall @clamp01(%w) : (f32) -> f32
      spirv.Store "Function" %var, %c : f32
      spirv.Branch ^merge
    ^else:
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
    %out = spirv.Load "Function" %var : f32
    spirv.Store "StorageBuffer" %p, %out : f32
    spirv.Return
  }

  spirv.func @loops() "None" {
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %c10 = spirv.Constant 10 : i32
    %lid_ptr = spirv.mlir.addressof @lid : !spirv.ptr<vector<3xi32>, Input>
    %lid = spirv.Load "Input" %lid_ptr : vector<3xi32>
    %l = spirv.CompositeExtract %lid[0 : i32] : vector<3xi32>
    %tile = spirv.mlir.addressof @tile : !spirv.ptr<!spirv.array<64 x f32>, Workgroup>
    %slot = spirv.AccessChain %tile[%l] : !spirv.ptr<!spirv.array<64 x f32>, Workgroup>, i32 -> !spirv.ptr<f32, Workgroup>
    %lf = spirv.ConvertSToF %l : i32 to f32
    spirv.Store "Workgroup" %slot, %lf : f32
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    %acc = spirv.Variable : !spirv.ptr<f32, Function>
    %zero = spirv.Constant 0.0 : f32
    spirv.Store "Function" %acc, %zero : f32
    spirv.mlir.loop {
      spirv.Branch ^header(%c0 : i32)
    ^header(%i: i32):
      %lt = spirv.SLessThan %i, %c10 : i32
      spirv.BranchConditional %lt, ^body, ^merge
    ^body:
      %elem = spirv.AccessChain %tile[%i] : !spirv.ptr<!spirv.array<64 x f32>, Workgroup>, i32 -> !spirv.ptr<f32, Workgroup>
      %e = spirv.Load "Workgroup" %elem : f32
      %a = spirv.Load "Function" %acc : f32
      %sum = spirv.FAdd %a, %e : f32
      spirv.Store "Function" %acc, %sum : f32
      %limit = spirv.Constant 100.0 : f32
      %over = spirv.FOrdGreaterThan %sum, %limit : f32
      // break
      spirv.BranchConditional %over, ^merge, ^continue
    ^continue:
      %odd = spirv.BitwiseAnd %i, %c1 : i32
      %is_odd = spirv.IEqual %odd, %c1 : i32
      spirv.mlir.selection {
        spirv.BranchConditional %is_odd, ^then, ^merge
      ^then:
        %t = spirv.Load "Function" %acc : f32
        %neg = spirv.FNegate %t : f32
        %ab = spirv.GL.FAbs %neg : f32
        spirv.Store "Function" %acc, %ab : f32
        spirv.Branch ^merge
      ^merge:
        spirv.mlir.merge
      }
      %next = spirv.IAdd %i, %c1 : i32
      spirv.Branch ^header(%next : i32)
    ^merge:
      spirv.mlir.merge
    }
    %final = spirv.Load "Function" %acc : f32
    %bits = spirv.Bitcast %final : f32 to i32
    %back = spirv.Bitcast %bits : i32 to f32
    %pos = spirv.FOrdGreaterThan %back, %zero : f32
    %picked = spirv.Select %pos, %back, %zero : i1, f32
    %data = spirv.mlir.addressof @data : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %p = spirv.AccessChain %data[%c0, %l] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %p, %picked : f32
    spirv.Return
  }

  spirv.EntryPoint "GLCompute" @serial, @gid
  spirv.ExecutionMode @serial "LocalSize", 1, 1, 1
  spirv.EntryPoint "GLCompute" @loops, @lid
  spirv.ExecutionMode @loops "LocalSize", 64, 1, 1
}
