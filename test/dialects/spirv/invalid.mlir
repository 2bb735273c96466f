// RUN: ti-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

spirv.module Logical GLSL450 {
  spirv.GlobalVariable @function_storage : !spirv.ptr<f32, Function>
}
// CHECK: storage class cannot be 'Function'

// -----

spirv.module Logical GLSL450 {
  spirv.GlobalVariable @unknown_built_in built_in("GlobalInvocationID") : !spirv.ptr<vector<3xi32>, Input>
}
// CHECK: unknown built_in 'GlobalInvocationID'

// -----

spirv.module Logical GLSL450 {
  spirv.GlobalVariable @not_a_pointer : f32
}
// CHECK: expected spirv.ptr type

// -----

spirv.module Logical GLSL450 {
  spirv.GlobalVariable @var : !spirv.ptr<f32, Input>
  spirv.func @addressof_wrong_type() "None" {
    %0 = spirv.mlir.addressof @var : !spirv.ptr<i32, Input>
    spirv.Return
  }
}
// CHECK: result type mismatch with the referenced global variable's type

// -----

spirv.module Logical GLSL450 {
  spirv.func @addressof_missing() "None" {
    %0 = spirv.mlir.addressof @nothing : !spirv.ptr<f32, Input>
    spirv.Return
  }
}
// CHECK: expected spirv.GlobalVariable symbol

// -----

func.func @access_chain_struct_dynamic_index(%i: i32) {
  %0 = spirv.Variable : !spirv.ptr<!spirv.struct<(f32, i32)>, Function>
  %1 = spirv.AccessChain %0[%i] : !spirv.ptr<!spirv.struct<(f32, i32)>, Function>, i32 -> !spirv.ptr<f32, Function>
  spirv.Return
}
// CHECK: index must be an integer spirv.Constant to access element of spirv.struct

// -----

func.func @access_chain_out_of_bounds() {
  %c2 = spirv.Constant 2 : i32
  %0 = spirv.Variable : !spirv.ptr<!spirv.struct<(f32, i32)>, Function>
  %1 = spirv.AccessChain %0[%c2] : !spirv.ptr<!spirv.struct<(f32, i32)>, Function>, i32 -> !spirv.ptr<f32, Function>
  spirv.Return
}
// CHECK: 'spirv.AccessChain' op index 2 out of bounds for '!spirv.struct<(f32, i32)>'

// -----

func.func @access_chain_non_composite(%i: i32) {
  %0 = spirv.Variable : !spirv.ptr<f32, Function>
  %1 = spirv.AccessChain %0[%i] : !spirv.ptr<f32, Function>, i32 -> !spirv.ptr<f32, Function>
  spirv.Return
}
// CHECK: cannot extract from non-composite type 'f32' with index (dynamic)

// -----

func.func @access_chain_wrong_result(%i: i32) {
  %0 = spirv.Variable : !spirv.ptr<!spirv.array<4 x f32>, Function>
  %1 = spirv.AccessChain %0[%i] : !spirv.ptr<!spirv.array<4 x f32>, Function>, i32 -> !spirv.ptr<i32, Function>
  spirv.Return
}
// CHECK: 'spirv.AccessChain' result type should be !spirv.ptr<f32, Function>, got !spirv.ptr<i32, Function>

// -----

func.func @load_wrong_type() {
  %0 = spirv.Variable : !spirv.ptr<f32, Function>
  %1 = "spirv.Load"(%0) : (!spirv.ptr<f32, Function>) -> i32
  spirv.Return
}
// CHECK: 'spirv.Load' result type i32 does not match the pointee type of !spirv.ptr<f32, Function>

// -----

func.func @load_aligned_without_alignment() {
  %0 = spirv.Variable : !spirv.ptr<f32, Function>
  %1 = "spirv.Load"(%0) <{memory_access = #spirv.memory_access<Aligned>}> : (!spirv.ptr<f32, Function>) -> f32
  spirv.Return
}
// CHECK: 'spirv.Load' has the Aligned flag but no alignment

// -----

func.func @store_wrong_type(%v: i32) {
  %0 = spirv.Variable : !spirv.ptr<f32, Function>
  "spirv.Store"(%0, %v) : (!spirv.ptr<f32, Function>, i32) -> ()
  spirv.Return
}
// CHECK: 'spirv.Store' value of type i32 does not match the pointee type of !spirv.ptr<f32, Function>

// -----

func.func @variable_not_function() {
  %0 = spirv.Variable : !spirv.ptr<f32, Private>
  spirv.Return
}
// CHECK: 'spirv.Variable' can only be used to model function-level variables

// -----

func.func @variable_init_not_constant(%v: i32) {
  %0 = spirv.Variable init(%v) : !spirv.ptr<i32, Function>
  spirv.Return
}
// CHECK: 'spirv.Variable' initializer must be a spirv.Constant

// -----

func.func @constant_tensor() {
  %0 = spirv.Constant dense<1> : tensor<4xi32>
  spirv.Return
}
// CHECK: 'spirv.Constant' dense values must have a SPIR-V vector type, got tensor<4xi32>

// -----

func.func @iadd_float(%a: f32) {
  %0 = spirv.IAdd %a, %a : f32
  spirv.Return
}
// CHECK: 'spirv.IAdd' expects integer or vector of integer operands, got f32

// -----

func.func @fadd_int(%a: i32) {
  %0 = spirv.FAdd %a, %a : i32
  spirv.Return
}
// CHECK: 'spirv.FAdd' expects float or vector of float operands, got i32

// -----

func.func @logical_and_int(%a: i32) {
  %0 = spirv.LogicalAnd %a, %a : i32
  spirv.Return
}
// CHECK: 'spirv.LogicalAnd' expects bool or vector of bool operands, got i32

// -----

func.func @compare_wrong_result(%a: vector<4xi32>) {
  %0 = "spirv.IEqual"(%a, %a) : (vector<4xi32>, vector<4xi32>) -> i1
  spirv.Return
}
// CHECK: 'spirv.IEqual' result must be vector<4xi1>, got i1

// -----

func.func @select_vector_condition_scalar_result(%c: vector<3xi1>, %a: i32) {
  %0 = spirv.Select %c, %a, %a : vector<3xi1>, i32
  spirv.Return
}
// CHECK: result expected to be of vector type when condition is of vector type

// -----

func.func @sconvert_same_width(%a: i32) {
  %0 = spirv.SConvert %a : i32 to i32
  spirv.Return
}
// CHECK: 'spirv.SConvert' expects different bit widths for operand type and result type, got i32 to i32

// -----

func.func @bitcast_width_mismatch(%a: f32) {
  %0 = spirv.Bitcast %a : f32 to i64
  spirv.Return
}
// CHECK: 'spirv.Bitcast' operand type f32 and result type i64 must have the same bit width

// -----

func.func @convert_shape_mismatch(%a: vector<2xf32>) {
  %0 = spirv.ConvertFToS %a : vector<2xf32> to i32
  spirv.Return
}
// CHECK: 'spirv.ConvertFToS' operand and result must have the same number of components

// -----

func.func @atomic_value_type_mismatch(%p: !spirv.ptr<i32, StorageBuffer>, %v: i64) {
  %0 = "spirv.AtomicIAdd"(%p, %v) <{memory_scope = #spirv.scope<Device>, semantics = #spirv.memory_semantics<None>}> : (!spirv.ptr<i32, StorageBuffer>, i64) -> i64
  spirv.Return
}
// CHECK: 'spirv.AtomicIAdd' op failed to verify that `value` type matches pointee type of `pointer`: i64 vs i32

// -----

func.func @atomic_iadd_float(%p: !spirv.ptr<f32, StorageBuffer>, %v: f32) {
  %0 = spirv.AtomicIAdd <Device> <None> %p, %v : !spirv.ptr<f32, StorageBuffer>
  spirv.Return
}
// CHECK: 'spirv.AtomicIAdd' expects integer or vector of integer value, got f32

// -----

func.func @atomic_fadd_int(%p: !spirv.ptr<i32, StorageBuffer>, %v: i32) {
  %0 = spirv.EXT.AtomicFAdd <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
  spirv.Return
}
// CHECK: 'spirv.EXT.AtomicFAdd' expects float or vector of float value, got i32

// -----

func.func @cas_comparator_mismatch(%p: !spirv.ptr<i32, StorageBuffer>, %v: i32, %c: i16) {
  %0 = "spirv.AtomicCompareExchange"(%p, %v, %c) <{memory_scope = #spirv.scope<Device>, equal_semantics = #spirv.memory_semantics<None>, unequal_semantics = #spirv.memory_semantics<None>}> : (!spirv.ptr<i32, StorageBuffer>, i32, i16) -> i32
  spirv.Return
}
// CHECK: 'spirv.AtomicCompareExchange' op failed to verify that `comparator` type matches pointee type of `pointer`: i16 vs i32

// -----

func.func @two_memory_orderings() {
  spirv.MemoryBarrier <Device>, <Acquire|Release>
  spirv.Return
}
// CHECK: expected at most one of these four memory constraints to be set

// -----

func.func @unknown_scope() {
  spirv.MemoryBarrier <Galaxy>, <None>
  spirv.Return
}
// CHECK: unknown scope 'Galaxy'

// -----

func.func @branch_weights_both_zero(%c: i1) {
  spirv.BranchConditional %c [0, 0], ^a, ^b
^a:
  spirv.Return
^b:
  spirv.Return
}
// CHECK: branch weights cannot both be zero

// -----

func.func @branch_wrong_operands(%v: f32) {
  spirv.Branch ^next(%v : f32)
^next(%a: i32):
  spirv.Return
}
// CHECK: 'spirv.Branch' passes (f32) to a block expecting (i32)

// -----

func.func @selection_merge_not_last(%c: i1) {
  spirv.mlir.selection {
    spirv.BranchConditional %c, ^a, ^b
  ^a:
    spirv.mlir.merge
  ^b:
    spirv.Return
  }
  spirv.Return
}
// CHECK: last block must be the merge block with only one 'spirv.mlir.merge' op

// -----

func.func @selection_header_not_conditional() {
  spirv.mlir.selection {
    spirv.Branch ^merge
  ^merge:
    spirv.mlir.merge
  }
  spirv.Return
}
// CHECK: 'spirv.mlir.selection' header block must end in spirv.BranchConditional

// -----

func.func @loop_missing_continue() {
  spirv.mlir.loop {
    spirv.Branch ^header
  ^header:
    spirv.Branch ^merge
  ^merge:
    spirv.mlir.merge
  }
  spirv.Return
}
// CHECK: requires a loop continue block branching to the loop header block

// -----

func.func @loop_entry_not_to_header() {
  spirv.mlir.loop {
    spirv.Branch ^merge
  ^header:
    spirv.Branch ^merge
  ^continue:
    spirv.Branch ^header
  ^merge:
    spirv.mlir.merge
  }
  spirv.Return
}
// CHECK: entry block must only have one 'spirv.Branch' op to the second block

// -----

func.func @loop_body_branches_to_header(%c: i1) {
  spirv.mlir.loop {
    spirv.Branch ^header
  ^header:
    spirv.BranchConditional %c, ^body, ^merge
  ^body:
    spirv.Branch ^header
  ^continue:
    spirv.Branch ^header
  ^merge:
    spirv.mlir.merge
  }
  spirv.Return
}
// CHECK: can only have the entry and loop continue block branching to the loop header block

// -----

func.func @loop_header_nested_selection(%c: i1) {
  spirv.mlir.loop {
    spirv.Branch ^header
  ^header:
    spirv.mlir.selection {
      spirv.BranchConditional %c, ^then, ^merge
    ^then:
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
    spirv.BranchConditional %c, ^body, ^merge
  ^body:
    spirv.Branch ^continue
  ^continue:
    spirv.Branch ^header
  ^merge:
    spirv.mlir.merge
  }
  spirv.Return
}
// CHECK: 'spirv.mlir.loop' header block cannot hold a nested spirv.mlir.selection or spirv.mlir.loop

// -----

func.func @merge_outside_construct() {
  spirv.mlir.merge
}
// CHECK: expected parent op to be 'spirv.mlir.selection' or 'spirv.mlir.loop'

// -----

spirv.module Logical GLSL450 {
  spirv.func @return_in_value_function() -> i32 "None" {
    spirv.Return
  }
}
// CHECK: cannot be used in functions returning value

// -----

spirv.module Logical GLSL450 {
  spirv.func @return_value_wrong_type() -> f32 "None" {
    %0 = spirv.Constant 42 : i32
    spirv.ReturnValue %0 : i32
  }
}
// CHECK: return value's type ('i32') mismatch with function's result type ('f32')

// -----

spirv.module Logical GLSL450 {
  spirv.func @call_wrong_arity(%a: i32) "None" {
    spirv.FunctionCall @call_wrong_arity() : () -> ()
    spirv.Return
  }
}
// CHECK: has incorrect number of operands for callee: expected 1, but provided 0

// -----

spirv.module Logical GLSL450 {
  spirv.func @call_unknown() "None" {
    spirv.FunctionCall @nowhere() : () -> ()
    spirv.Return
  }
}
// CHECK: op callee function 'nowhere' not found in nearest symbol table

// -----

spirv.module Logical GLSL450 {
  spirv.func @main() "None" {
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @entry_point_unknown
}
// CHECK: function 'entry_point_unknown' not found in 'spirv.module'

// -----

spirv.module Logical GLSL450 {
  spirv.func @duplicate_entry_point() "None" {
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @duplicate_entry_point
  spirv.EntryPoint "GLCompute" @duplicate_entry_point
}
// CHECK: duplicate of a previous EntryPointOp for @duplicate_entry_point

// -----

spirv.module Logical GLSL450 {
  spirv.func @local_size_two_values() "None" {
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @local_size_two_values
  spirv.ExecutionMode @local_size_two_values "LocalSize", 128, 1
}
// CHECK: execution mode 'LocalSize' takes 3 values, got 2

// -----

spirv.module Logical GLSL450 {
  spirv.func @external_function() "None"
}
// CHECK: 'spirv.module' cannot contain external functions (@external_function)

// -----

spirv.module Logical GLSL450 {
  spirv.func @non_spirv_op() "None" {
    %0 = arith.constant 0 : i32
    spirv.Return
  }
}
// CHECK: functions in 'spirv.module' can only contain spirv.* ops, got arith.constant

// -----

spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Telepathy], []> {
}
// CHECK: unknown SPIR-V capability 'Telepathy'

// -----

spirv.module Logical GLSL450 requires #spirv.vce<v2.0, [Shader], []> {
}
// CHECK: unknown SPIR-V version 'v2.0'

// -----

func.func private @struct_partial_offsets(!spirv.struct<(f32 [0], i32)>)
// CHECK: offset specification must be given for all members

// -----

func.func private @array_zero_stride(!spirv.array<4 x f32, stride=0>)
// CHECK: ArrayStride must be greater than zero

// -----

func.func private @unknown_storage_class(!spirv.ptr<f32, Heap>)
// CHECK: unknown storage class: Heap

// -----

func.func private @tensor_element(!spirv.rtarray<tensor<4xf32>>)
// CHECK: cannot use 'tensor<4xf32>' to compose SPIR-V types

// -----

func.func @composite_extract_out_of_bounds(%v: !spirv.array<4 x f32>) {
  %0 = spirv.CompositeExtract %v[4 : i32] : !spirv.array<4 x f32>
  spirv.Return
}
// CHECK: 'spirv.CompositeExtract' index 4 out of bounds

// -----

func.func @group_fadd_int(%v: i32) {
  %0 = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %v : i32 -> i32
  spirv.Return
}
// CHECK: 'spirv.GroupNonUniformFAdd' expects float or vector of float value, got i32

// -----

func.func @group_iadd_result_type(%v: i32) {
  %0 = spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %v : i32 -> i64
  spirv.Return
}
// CHECK: 'spirv.GroupNonUniformIAdd' result type must match the value's: i64 vs i32

// -----

func.func @group_device_scope(%v: f32) {
  %0 = spirv.GroupNonUniformFAdd <Device> <Reduce> %v : f32 -> f32
  spirv.Return
}
// CHECK: 'spirv.GroupNonUniformFAdd' execution scope must be 'Workgroup' or 'Subgroup', got 'Device'

// -----

func.func @elect_device_scope() {
  %0 = spirv.GroupNonUniformElect <Device> : i1
  spirv.Return
}
// CHECK: 'spirv.GroupNonUniformElect' execution scope must be 'Workgroup' or 'Subgroup', got 'Device'

// -----

func.func @group_operation_unknown(%v: f32) {
  %0 = spirv.GroupNonUniformFAdd <Subgroup> <Clustered> %v : f32 -> f32
  spirv.Return
}
// CHECK: unknown group operation 'Clustered', expected one of Reduce, InclusiveScan, ExclusiveScan

// -----

func.func @group_bitwise_float(%v: f32) {
  %0 = spirv.GroupNonUniformBitwiseAnd <Subgroup> <Reduce> %v : f32 -> f32
  spirv.Return
}
// CHECK: 'spirv.GroupNonUniformBitwiseAnd' expects integer or vector of integer value, got f32

// -----

func.func @group_shuffle_result(%v: f32, %i: i32) {
  %0 = spirv.GroupNonUniformShuffle <Subgroup> %v, %i : f32, i32 -> i32
  spirv.Return
}
// CHECK: 'spirv.GroupNonUniformShuffle' result type must match the value's: i32 vs f32

// -----

func.func @group_vote_not_bool(%v: i32) {
  %0 = spirv.GroupNonUniformAll <Subgroup> %v : i32 -> i1
  spirv.Return
}
// CHECK: 'spirv.GroupNonUniformAll' votes on an i1, got i32

// -----

func.func @group_broadcast_first_result(%v: f32) {
  %0 = spirv.GroupNonUniformBroadcastFirst <Subgroup> %v : f32 -> i1
  spirv.Return
}
// CHECK: 'spirv.GroupNonUniformBroadcastFirst' result type must be f32, got i1

// -----

func.func @bit_field_of_a_float(%f: f32, %i: i32) {
  %0 = spirv.BitFieldSExtract %f, %i, %i : f32, i32, i32
  func.return
}
// CHECK: 'spirv.BitFieldSExtract' expects integer or vector of integer base, got f32

// -----

func.func @bit_field_count_of_a_vector(%a: i32, %i: i32, %v: vector<2xi32>) {
  %0 = spirv.BitFieldSExtract %a, %i, %v : i32, i32, vector<2xi32>
  func.return
}
// CHECK: 'spirv.BitFieldSExtract' count must be an integer scalar, got vector<2xi32>
