"""
The ti.simt ops of convert-offload-to-spirv: subgroup operations -> SPIR-V's non-uniform
group instructions (scope Subgroup), barriers -> OpControlBarrier / OpMemoryBarrier,
invocation ids -> built-in inputs.

    %s = taichi.subgroup_reduce add inclusive %v : f32
      ~> %s = spirv.GroupNonUniformFAdd <Subgroup> <InclusiveScan> %v : f32 -> f32
    %r = taichi.subgroup_shuffle down %v, %i : f32
      ~> %r = spirv.GroupNonUniformShuffleDown <Subgroup> %v, %i : f32, i32 -> f32
    %a = taichi.subgroup_vote any %c : i32
      ~> %z = spirv.Constant 0 : i32
         %b = spirv.INotEqual %c, %z : i32
         %y = spirv.GroupNonUniformAny <Subgroup> %b : i1 -> i1
         %a = spirv.Select %y, %one, %zero : i1, i32
    %k = taichi.simt_id invocation_id : i32
      ~> %p = spirv.mlir.addressof @subgroup_id : !spirv.ptr<i32, Input>
         %k = spirv.Load "Input" %p : i32
    taichi.barrier workgroup
      ~> spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory>

A `taichi.shared_array` is a Workgroup variable; its elements are addressed by
ElementPtrLowering through `shared_element_ptr`, and integer atomics on them are
Workgroup-scoped.

Each op needs the device's subgroup support for its class (basic, arithmetic, ballot,
shuffle, shuffle_relative, vote, from the caps); without it the pass stops at the op's
source line naming what is missing. `broadcast` by an index that is not a constant is a
Shuffle (SPIR-V 1.3 wants Broadcast's index constant).
"""

from __future__ import annotations

from taichi_xdsl.dialects import spirv, taichi
from taichi_xdsl.lowering.spirv_common import TaskPattern, TaskState, fail, int_const
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    IntegerType,
    MemRefType,
    SymbolRefAttr,
    VectorType,
    i1,
    i32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

_SCANS = {"reduce": "Reduce", "inclusive": "InclusiveScan", "exclusive": "ExclusiveScan"}
_FLOAT_REDUCE = {
    "add": spirv.GroupNonUniformFAddOp,
    "mul": spirv.GroupNonUniformFMulOp,
    "min": spirv.GroupNonUniformFMinOp,
    "max": spirv.GroupNonUniformFMaxOp,
}
_INT_REDUCE = {
    "add": spirv.GroupNonUniformIAddOp,
    "mul": spirv.GroupNonUniformIMulOp,
    "min": spirv.GroupNonUniformSMinOp,
    "max": spirv.GroupNonUniformSMaxOp,
    "and": spirv.GroupNonUniformBitwiseAndOp,
    "or": spirv.GroupNonUniformBitwiseOrOp,
    "xor": spirv.GroupNonUniformBitwiseXorOp,
}
_UNSIGNED_REDUCE = {
    "min": spirv.GroupNonUniformUMinOp,
    "max": spirv.GroupNonUniformUMaxOp,
}
_SHUFFLES = {
    "index": spirv.GroupNonUniformShuffleOp,
    "xor": spirv.GroupNonUniformShuffleXorOp,
    "up": spirv.GroupNonUniformShuffleUpOp,
    "down": spirv.GroupNonUniformShuffleDownOp,
}
# capability, the cap that says the device has it, the name users know it by
_NEEDS = {
    "basic": ("GroupNonUniform", "spirv_has_subgroup_basic"),
    "arithmetic": ("GroupNonUniformArithmetic", "spirv_has_subgroup_arithmetic"),
    "ballot": ("GroupNonUniformBallot", "spirv_has_subgroup_ballot"),
    "shuffle": ("GroupNonUniformShuffle", "spirv_has_subgroup_shuffle"),
    "shuffle_relative": (
        "GroupNonUniformShuffleRelative",
        "spirv_has_subgroup_shuffle_relative",
    ),
    "vote": ("GroupNonUniformVote", "spirv_has_subgroup_vote"),
}
_BUILTINS = {  # simt_id kind -> (global, built-in, scalar or the x of a vec3)
    "invocation_id": ("subgroup_invocation_id", "SubgroupLocalInvocationId", False),
    "group_size": ("subgroup_size", "SubgroupSize", False),
    "thread_idx": ("local_id", "LocalInvocationId", True),
    "global_thread_idx": ("gid", "GlobalInvocationId", True),
}
_SCOPES = {"subgroup": "Subgroup", "workgroup": "Workgroup", "device": "Device"}
_SEMANTICS = "AcquireRelease|UniformMemory|WorkgroupMemory"


class SimtLowering(TaskPattern):
    """The ti.simt ops (see the module docstring)."""

    op_types = taichi.SIMT_OPS
    """What it converts (lowering/pattern_dispatch.py)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, taichi.SharedArrayOp):
            if not op.result.uses:  # its element_ptrs now address its Workgroup variable
                rewriter.erase(op)
        elif isinstance(op, taichi.SubgroupReduceOp):
            self._need(op, "basic", "arithmetic")
            rewriter.replace(
                op,
                subgroup_reduce(
                    op.kind.data, op.value, op.unsigned is not None, op.mode.data
                ),
            )
        elif isinstance(op, taichi.SubgroupShuffleOp):
            self._shuffle(op, rewriter)
        elif isinstance(op, taichi.SubgroupBroadcastFirstOp):
            self._need(op, "basic", "ballot")
            rewriter.replace(op, spirv.GroupNonUniformBroadcastFirstOp(op.value))
        elif isinstance(op, taichi.SubgroupVoteOp):
            self._vote(op, rewriter)
        elif isinstance(op, taichi.SimtIdOp):
            self._id(op, rewriter)
        elif isinstance(op, taichi.BarrierOp):
            scope = _SCOPES[op.scope.data]
            if op.scope.data == "subgroup":
                self._need(op, "basic")
            barrier: Operation = (
                spirv.MemoryBarrierOp(scope, _SEMANTICS)
                if op.memory_only is not None
                else spirv.ControlBarrierOp(scope, scope, _SEMANTICS)
            )
            rewriter.replace(op, barrier, [])

    def _need(self, op: Operation, *classes: str) -> None:
        for name in classes:
            capability, cap = _NEEDS[name]
            if not self.state.caps.get(cap):
                raise fail(
                    op,
                    f"'{op.name}' needs the device's subgroup {name} operations "
                    f"({cap}), which the target lacks",
                )
            self.state.capabilities.add(capability)

    def _shuffle(self, op: taichi.SubgroupShuffleOp, rewriter: PatternRewriter) -> None:
        kind = op.kind.data
        if kind == "broadcast" and isinstance(op.index.owner, spirv.ConstantOp):
            self._need(op, "basic", "ballot")
            new: Operation = spirv.GroupNonUniformBroadcastOp(op.value, op.index)
        else:
            relative = kind in ("up", "down")
            self._need(op, "basic", "shuffle_relative" if relative else "shuffle")
            new = _SHUFFLES.get(kind, spirv.GroupNonUniformShuffleOp)(op.value, op.index)
        rewriter.replace(op, new)

    def _vote(self, op: taichi.SubgroupVoteOp, rewriter: PatternRewriter) -> None:
        self._need(op, "basic", "vote")
        ops: list[Operation] = []
        value = op.value
        if op.kind.data == "all_equal":
            vote: Operation = spirv.GroupNonUniformAllEqualOp(value)
        else:
            if value.type != i1:
                assert isinstance(value.type, IntegerType)
                zero = int_const(0, value.type)
                test = spirv.INotEqualOp(value, zero)
                ops += [zero, test]
                value = test.results[0]
            vote = (
                spirv.GroupNonUniformAllOp(value)
                if op.kind.data == "all"
                else spirv.GroupNonUniformAnyOp(value)
            )
        one, zero_i32 = int_const(1), int_const(0)
        result = spirv.SelectOp(vote.results[0], one, zero_i32)
        rewriter.replace(op, [*ops, vote, one, zero_i32, result])

    def _id(self, op: taichi.SimtIdOp, rewriter: PatternRewriter) -> None:
        kind = op.kind.data
        if kind == "elect":
            self._need(op, "basic")
            elect = spirv.GroupNonUniformElectOp()
            one, zero = int_const(1), int_const(0)
            rewriter.replace(op, [elect, one, zero, spirv.SelectOp(elect.result, one, zero)])
            return
        if kind in ("invocation_id", "group_size"):
            self._need(op, "basic")
        name, built_in, vector = _BUILTINS[kind]
        pointer = declare_input(self.state, name, built_in, vector)
        address = spirv.AddressOfOp(name, pointer)
        load = spirv.LoadOp(address)
        ops: list[Operation] = [address, load]
        if vector:
            ops.append(spirv.CompositeExtractOp(load, [0]))
        rewriter.replace(op, ops)

def subgroup_reduce(
    kind: str, value: SSAValue, unsigned: bool, mode: str = "reduce"
) -> Operation:
    """`kind` (add, mul, min, max, and, or, xor) of `value` over the active invocations
    of the subgroup: `spirv.GroupNonUniform<Op> <Subgroup> <Reduce|InclusiveScan|...>`."""
    table = (
        _FLOAT_REDUCE
        if isinstance(value.type, AnyFloat)
        else _UNSIGNED_REDUCE
        if unsigned and kind in _UNSIGNED_REDUCE
        else _INT_REDUCE
    )
    return table[kind](value, "Subgroup", _SCANS[mode])


def declare_input(
    state: TaskState, name: str, built_in: str, vector: bool = False
) -> spirv.PointerType:
    """The Input variable `name` of `built_in` (an i32, or a vector of 3 with `vector`),
    declared once and listed in the entry point's interface (if it exists yet)."""
    module = state.module
    pointer = spirv.PointerType(VectorType(i32, [3]) if vector else i32, "Input")
    block = module.body.block
    for existing in block.ops:
        if isinstance(existing, spirv.GlobalVariableOp) and existing.sym_name.data == name:
            return existing.pointer_type
    Rewriter.insert_op(
        spirv.GlobalVariableOp(name, pointer, built_in=built_in),
        InsertPoint.at_start(block),
    )
    for entry in block.ops:
        if isinstance(entry, spirv.EntryPointOp):
            names = [s.string_value() for s in entry.interface]
            if name not in names:
                entry.properties["interface"] = ArrayAttr(
                    [*entry.interface, SymbolRefAttr(name)]
                )
    return pointer


def shared_element_ptr(
    state: TaskState, array: taichi.SharedArrayOp, indices: list[SSAValue], ops: list[Operation]
) -> SSAValue:
    """
    The address of `array[indices]`: an access chain into the array's Workgroup variable
    (declared on first use; row-major, no explicit layout).

        %s = taichi.shared_array 0 : memref<4x8xf32>
        %p = taichi.element_ptr %s[%i, %j] : memref<4x8xf32> -> memref<f32>
          ~> spirv.GlobalVariable @shared_0 : !spirv.ptr<!spirv.array<32 x f32>, Workgroup>
             %k = %i * 8 + %j
             %p = spirv.AccessChain @shared_0[%k] : !spirv.ptr<f32, Workgroup>
    """
    type_ = array.result.type
    assert isinstance(type_, MemRefType)
    shape = type_.get_shape()
    element = type_.element_type
    assert element != i1  # ElementPtrLowering refuses i1 elements first
    size = 1
    for d in shape:
        size *= d
    name = f"shared_{array.id.value.data}"
    pointer = spirv.PointerType(spirv.ArrayType(size, element), "Workgroup")
    block = state.module.body.block
    if not any(
        isinstance(g, spirv.GlobalVariableOp) and g.sym_name.data == name for g in block.ops
    ):
        Rewriter.insert_op(spirv.GlobalVariableOp(name, pointer), InsertPoint.at_start(block))
    index: SSAValue | None = None
    for value, extent in zip(indices, shape):
        if index is None:
            index = value
            continue
        extent_op = int_const(extent)
        scaled = spirv.IMulOp(index, extent_op)
        summed = spirv.IAddOp(scaled, value)
        ops += [extent_op, scaled, summed]
        index = summed.results[0]
    assert index is not None
    address = spirv.AddressOfOp(name, pointer)
    chain = spirv.AccessChainOp(address, [index])
    ops += [address, chain]
    return chain.results[0]
