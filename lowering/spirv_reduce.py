"""
The workgroup combine of convert-offload-to-spirv: a range_for's epilogue atomic that
folds a thread-local partial result into one place (ti-make-thread-local's add, min or
max of a 32- or 64-bit scalar) becomes one atomic a *workgroup* where the caps have
subgroup arithmetic: the subgroup reduces (`GroupNonUniform<Op> <Reduce>`), its elected
invocation writes the partial into a Workgroup array at its subgroup id, a workgroup
barrier, then the first subgroup reduces those partials and its elected invocation does
the one atomic:

    taichi.atomic_add %p, %acc : memref<f32>
      ~>
    %part = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %acc : f32 -> f32
    %one = spirv.GroupNonUniformElect <Subgroup> : i1
    %sg = spirv.Load "Input" @subgroup_index : i32                  (SubgroupId)
    if %one { @combine_0[%sg] = %part }              (!spirv.ptr<!spirv.array<128 x f32>, Workgroup>)
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    %lane = SubgroupLocalInvocationId; %n = NumSubgroups
    if %sg == 0 && %lane < %n {
      %v = @combine_0[%lane]
      for (j = %lane + SubgroupSize; j < %n; j += SubgroupSize) %v = %v + @combine_0[j]
      %total = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %v : f32 -> f32
      if elect { taichi.atomic_add %p, %total : memref<f32> }
    }

The non-uniform reductions combine the *active* invocations, so the first subgroup's
lanes past the number of subgroups stay out and no identity value is needed; the loop
covers workgroups with more subgroups than a subgroup has lanes (lavapipe: 16 of 8).
The epilogue runs after the grid-stride loop, in uniform control flow, where a
workgroup barrier is allowed. Integer sums, min and max are exact; float sums are only
reordered, as in every parallel reduction. The Workgroup array has one slot an
invocation (a subgroup has at least one), since the subgroup size is the driver's.

The `offload.last_group` that ends an epilogue (ti-fuse-serial-reduction) runs in one
invocation of the workgroup that finishes last (the classic "last block" reduction):

    spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>   (this group's combines)
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    if LocalInvocationIndex == 0 {
      %done = taichi.atomic_add %counter, 1            (the groups finished before this one)
      spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
      if %done == NumWorkgroups.x - 1 { <the last_group body>; memref.store 0, %counter }
    }

Every invocation's combines come before its device-scope release barrier, the barrier of
the workgroup before the counter's atomic increment, and the last group's acquire barrier
after it, so the last group sees every group's combines (the accumulators are read with
atomics). The counter is back to 0 for the next launch.

Compared with one atomic a subgroup, a 128-invocation workgroup of 32-wide subgroups
makes 4x fewer atomics on the one address, which serialize at the L2; the Vulkan
backend gives such a task enough workgroups to fill the device once (COMBINE_GROUPS).
"""

from __future__ import annotations

from taichi_xdsl.dialects import offload, spirv, taichi
from taichi_xdsl.lowering.spirv_atomics import combine_op
from taichi_xdsl.lowering.spirv_common import TaskState, if_then, int_const, stride_loop
from taichi_xdsl.lowering.spirv_simt import declare_input, subgroup_reduce
from xdsl.dialects import memref
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, VectorType, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

_KINDS: dict[type[taichi.AtomicOp], str] = {
    taichi.AtomicAddOp: "add",
    taichi.AtomicMinOp: "min",
    taichi.AtomicMaxOp: "max",
}
_BARRIER_SEMANTICS = "AcquireRelease|WorkgroupMemory"


def combines_per_workgroup(op: Operation) -> bool:
    """An epilogue op that combine_per_workgroup rewrites: an add/min/max atomic whose
    result is unused, of a 32- or 64-bit integer or float."""
    if type(op) not in _KINDS or op.results[0].uses:
        return False
    t = op.operands[1].type
    return (isinstance(t, IntegerType) and t.width.data in (32, 64)) or isinstance(
        t, Float32Type | Float64Type
    )


def combine_per_workgroup(state: TaskState, epilogue: Region, local_size: int) -> None:
    """Rewrite every combines_per_workgroup op of a range_for's epilogue as the module
    docstring shows (one Workgroup array and one barrier each)."""
    if not epilogue.blocks:
        return
    for op in list(epilogue.block.ops):
        if combines_per_workgroup(op):
            assert isinstance(op, taichi.AtomicOp)
            _rewrite(state, op, local_size)


def _load_input(state: TaskState, name: str, built_in: str, ops: list[Operation]) -> SSAValue:
    pointer = declare_input(state, name, built_in)
    address = spirv.AddressOfOp(name, pointer)
    load = spirv.LoadOp(address)
    ops += [address, load]
    return load.results[0]


def _partials(state: TaskState, op: taichi.AtomicOp, local_size: int) -> tuple[str, spirv.PointerType]:
    """A fresh Workgroup array for the subgroups' partial results of `op`: its name and
    pointer type."""
    block = state.module.body.block
    taken = {g.sym_name.data for g in block.ops if isinstance(g, spirv.GlobalVariableOp)}
    number = 0
    while f"combine_{number}" in taken:
        number += 1
    name = f"combine_{number}"
    pointer = spirv.PointerType(spirv.ArrayType(local_size, op.value.type), "Workgroup")
    Rewriter.insert_op(spirv.GlobalVariableOp(name, pointer), InsertPoint.at_start(block))
    return name, pointer


def _slot(name: str, pointer: spirv.PointerType, index: SSAValue, ops: list[Operation]) -> SSAValue:
    address = spirv.AddressOfOp(name, pointer)
    chain = spirv.AccessChainOp(address, [index])
    ops += [address, chain]
    return chain.results[0]


def _rewrite(state: TaskState, op: taichi.AtomicOp, local_size: int) -> None:
    kind = _KINDS[type(op)]
    unsigned = getattr(op, "unsigned", None) is not None
    name, pointer = _partials(state, op, local_size)
    block, before = op.parent_block(), op.prev_op
    assert block is not None
    op.detach()
    ops: list[Operation] = []
    # 1. each subgroup's partial, from its elected invocation, at its subgroup id
    part = subgroup_reduce(kind, op.value, unsigned)
    elect = spirv.GroupNonUniformElectOp()
    ops += [part, elect]
    subgroup = _load_input(state, "subgroup_index", "SubgroupId", ops)
    store: list[Operation] = []
    store.append(spirv.StoreOp(_slot(name, pointer, subgroup, store), part.results[0]))
    ops.append(if_then(elect.result, store))
    ops.append(spirv.ControlBarrierOp("Workgroup", "Workgroup", _BARRIER_SEMANTICS))
    # 2. the first subgroup's lanes below the subgroup count combine the partials
    lane = _load_input(state, "subgroup_invocation_id", "SubgroupLocalInvocationId", ops)
    count = _load_input(state, "num_subgroups", "NumSubgroups", ops)
    width = _load_input(state, "subgroup_size", "SubgroupSize", ops)
    zero = int_const(0)
    first = spirv.IEqualOp(subgroup, zero)
    has_slot = spirv.SLessThanOp(lane, count)
    reads = spirv.LogicalAndOp(first, has_slot)
    ops += [zero, first, has_slot, reads]
    inner: list[Operation] = []
    running = spirv.VariableOp(spirv.PointerType(op.value.type, "Function"))
    own = spirv.LoadOp(_slot(name, pointer, lane, inner))
    after = spirv.IAddOp(lane, width)
    inner += [running, own, spirv.StoreOp(running, own), after]
    step = Block()
    loop, j = stride_loop(lane.type, after.results[0], count, width, step, inner)
    body: list[Operation] = []
    other = spirv.LoadOp(_slot(name, pointer, j, body))
    so_far = spirv.LoadOp(running)
    merged = combine_op(type(op), so_far.results[0], other.results[0], unsigned)
    body += [other, so_far, merged, spirv.StoreOp(running, merged.results[0])]
    step.insert_ops_before(body, step.last_op)  # type: ignore[arg-type]
    # 3. one atomic of the workgroup's total, from one invocation
    mine = spirv.LoadOp(running)
    total = subgroup_reduce(kind, mine.results[0], unsigned)
    last = spirv.GroupNonUniformElectOp()
    op.operands = [op.dest, total.results[0]]
    inner += [loop, mine, total, last, if_then(last.result, [op])]
    ops.append(if_then(reads.result, inner))
    point = InsertPoint.after(before) if before else InsertPoint.at_start(block)
    Rewriter.insert_op(ops, point)
    state.capabilities.update(("GroupNonUniform", "GroupNonUniformArithmetic"))


_DEVICE_SEMANTICS = "AcquireRelease|UniformMemory"


def lower_last_group(state: TaskState, epilogue: Region) -> None:
    """Rewrite the `offload.last_group` that ends `epilogue` (if any) as the module
    docstring shows: its body runs once a launch, after every workgroup's combines."""
    if not epilogue.blocks or not isinstance(epilogue.block.last_op, offload.LastGroupOp):
        return
    last = epilogue.block.last_op
    ops: list[Operation] = [
        spirv.MemoryBarrierOp("Device", _DEVICE_SEMANTICS),
        spirv.ControlBarrierOp("Workgroup", "Workgroup", _BARRIER_SEMANTICS),
    ]
    local = _load_input(state, "local_index", "LocalInvocationIndex", ops)
    zero = int_const(0)
    first = spirv.IEqualOp(local, zero)
    ops += [zero, first]
    one = int_const(1)
    done = taichi.AtomicAddOp(last.counter, one)
    groups_pointer = spirv.PointerType(VectorType(i32, [3]), "Input")
    groups_address = spirv.AddressOfOp("nwg", groups_pointer)
    groups_vector = spirv.LoadOp(groups_address)
    groups = spirv.CompositeExtractOp(groups_vector, [0])
    before = spirv.ISubOp(groups, one)
    is_last = spirv.IEqualOp(done, before)
    body = list(last.body.block.ops)
    for op in body:
        op.detach()
    body.append(memref.StoreOp.get(zero, last.counter, []))
    inner: list[Operation] = [
        one,
        done,
        spirv.MemoryBarrierOp("Device", _DEVICE_SEMANTICS),
        groups_address,
        groups_vector,
        groups,
        before,
        is_last,
        if_then(is_last.result, body),
    ]
    ops.append(if_then(first.result, inner))
    Rewriter.insert_op(ops, InsertPoint.before(last))
    last.detach()
    last.erase()
