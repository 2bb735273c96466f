"""
convert-offload-to-spirv: each task of an `offload.kernel @k` becomes its own
`spirv.module` with one GLCompute entry point `@k__task<N>`, and the accesses inside the
task (kernel arguments, fields, ndarrays, global temporaries, thread-local slots, return
values, atomics, print) become loads, stores and atomics on storage buffers, following
utils/spirv_abi.py (Taichi's SPIR-V codegen, seed 004: a serial task guarded by
invocation 0, a range_for as a grid-stride loop).

    offload.kernel @k : (f32) -> () {             spirv.module Logical GLSL450 requires ... {
      %lo = arith.constant 0 : i32                  spirv.GlobalVariable @gid built_in(...)
      %hi = arith.constant 1000000 : i32            spirv.GlobalVariable @nwg built_in(...)
      offload.range_for %i = %lo to %hi : i32 {  ~>  spirv.GlobalVariable @root_f32 bind(0, 0)
        ...                                           spirv.func @k__task0() "None" {
      }                                                 <begin = lo + gid.x, stride = nwg.x * 128>
    }                                                   spirv.mlir.loop { <i < hi: body; i += stride> }
                                                        spirv.Return
                                                      }
                                                      spirv.EntryPoint "GLCompute" @k__task0, @gid, @nwg
                                                      spirv.ExecutionMode @k__task0 "LocalSize", 128, 1, 1
                                                    }

Task bodies must already be structured spirv control flow and spirv arithmetic
(convert-taichi-to-spirv, convert-arith-to-spirv); this pass converts what is left:
`offload.arg`, `offload.global_tmp`, `offload.thread_local`, `taichi.get_field` +
`taichi.element_ptr`, `memref.dim` of ndarrays and the index casts around it,
`memref.load` / `memref.store` / `taichi.atomic_*` on those places, `offload.set_return`,
`taichi.print` and `taichi.assert` (erased unless `debug`).

With `debug=true` (`ti.init(arch=ti.vulkan, debug=True)`), every field/ndarray element
access runs only when each index is in [0, extent); otherwise the task writes the error
record (binding 5, utils/spirv_abi.py) with an atomic compare-exchange on its code word
(the first error wins), and a load gives 0. A false `taichi.assert` writes code 2 and
the id of its message in the kernel's `ti.asserts` table (a module attribute: SPIR-V
has no pointers to strings).

Code is generated for the caps named by the `caps` option (utils/spirv_abi.parse_caps),
never for the live device. With `preserve-nan-inf=true` (`ti.init(fast_math=False)`,
given only for a device whose float controls allow it), each module declares
`SignedZeroInfNanPreserve` for 32-bit floats and every other float width it uses, so a
driver may not assume that no value is NaN or Inf (`isnan(z / z)` with z = 0 is 1):

    spirv.module Logical GLSL450 requires      spirv.module Logical GLSL450 requires
      #spirv.vce<v1.3, [Shader], [...]> {   ~>   #spirv.vce<v1.3, [Shader, SignedZeroInfNanPreserve],
      ...                                          [..., SPV_KHR_float_controls]> {
    }                                            ...
                                                 spirv.ExecutionMode @k__task0 "SignedZeroInfNanPreserve", 32
                                               }

A float atomic add is `spirv.EXT.AtomicFAdd` when the caps
have it, a compare-and-swap loop on the bit pattern otherwise. With the subgroup caps
(`spirv_has_subgroup_basic` and `spirv_has_subgroup_arithmetic`), a range_for epilogue's
add, min or max of a thread-local partial result (ti-make-thread-local) is combined in
the workgroup first (a subgroup reduction, the subgroups' partials through Workgroup
memory, lowering/spirv_reduce.py): one atomic a workgroup instead of one an invocation.

With `unroll=N` (the Vulkan backend gives 4), a range_for whose body is straight-line code
(no control flow, print or assert; at most 64 ops; not `debug`) first runs a grid-stride
loop of N iterations at a time while all N are in range, their bodies interleaved op by
op, so the loads of the N iterations are in flight together (one after another instead
where they share a thread-local slot: a reduction); the plain loop does the rest:

    i = begin                                     // N = 2, body: v = x[i]; y[i] = v
    for (; i < hi - stride; i += 2 * stride) { v0 = x[i]; v1 = x[i + stride];
                                               y[i] = v0; y[i + stride] = v1; }
    for (; i < hi; i += stride) { v = x[i]; y[i] = v }

With `unroll-layout=block` the N copies of an invocation are LocalSize apart instead of a
grid stride: workgroup w takes N consecutive blocks of LocalSize elements (Triton's
layout), from lo + w * LocalSize * N, and the plain loop finishes its last block (a
launch shorter than N * stride keeps the stride layout, chosen on the device):

    i = lo + w * L * N + lid                     // L = LocalSize, N = 2
    for (; i < hi - L; i += 2 * stride) { v0 = x[i]; v1 = x[i + L]; ... }
    for (; i < hi; i += L) { v = x[i]; y[i] = v }

With `spread-groups=G` (the Vulkan backend gives 128), a range_for of constant length n
(or a struct_for) without a block_dim gets a workgroup size that leaves at least G groups:
DEFAULT_BLOCK_DIM (128) halved while ceil(n / size) < G, down to 32. A short launch is
then spread over G streaming multiprocessors instead of piled onto a few (n-body's 4096
bodies: 128 groups of 32 where there were 32 groups of 128 on a 132-SM GPU); a long one
keeps 128, and so does a task with ti.simt ops (its thread_idx, shared arrays and
barriers may assume the default). The backend dispatches ceil(n / LocalSize) groups.
With `combine-block-dim=N` (the Vulkan backend gives 256), a range_for that combines in
the workgroup (lowering/spirv_reduce.py) starts from N instead of 128: fewer, larger
groups, so fewer atomics on the one place.

    offload.range_for %i = %c0 to %c4096 : i32 { ... }
      ~> spirv.ExecutionMode @k__task0 "LocalSize", 32, 1, 1

With `fold-bounds=true` (the Vulkan backend's choice), a range_for bound that a serial
task computes from the kernel's arguments alone (`for i in range(x.shape[0])`: ti-offload
stores the shape in a global temporary) and that nothing else reads is recomputed at the
start of the range_for task; a serial task that does nothing else gets the module
attribute `ti.skip`, and the backend does not dispatch it (one dispatch and one barrier
fewer a launch):

    offload.serial { %n = memref.dim %x ...; memref.store %n, %gtmp0 }   (ti.skip)
    offload.range_for %i = %c0 to (load %gtmp0) { ... }
      ~>  spirv.func @k__task1 { %n = <the shape, read from the argument buffer>; loop to %n }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from taichi_xdsl.dialects import offload, spirv, taichi
from taichi_xdsl.lowering.spirv_access import (
    ArgLowering,
    DimLowering,
    ElementPtrLowering,
    FieldAccessLowering,
    GlobalTmpLowering,
    IndexCastLowering,
    LoadLowering,
    SetReturnLowering,
    StoreLowering,
    ThreadLocalLowering,
)
from taichi_xdsl.lowering.convert_taichi_to_spirv import LOOP_CUT_SHORT
from taichi_xdsl.lowering.dead_code import region_dce
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier
from taichi_xdsl.lowering.spirv_atomics import AtomicLowering
from taichi_xdsl.lowering.spirv_capabilities import finish_module
from taichi_xdsl.lowering.spirv_common import (
    TaskState,
    byte_size,
    fail,
    int_const,
    load_value,
    stride_loop,
)
from taichi_xdsl.lowering.spirv_debug import AssertLowering
from taichi_xdsl.lowering.spirv_print import PrintLowering
from taichi_xdsl.lowering.spirv_read_only import mark_read_only_buffers
from taichi_xdsl.lowering.spirv_reduce import (
    combine_per_workgroup,
    combines_per_workgroup,
    lower_last_group,
)
from taichi_xdsl.lowering.spirv_simt import SimtLowering, declare_input
from taichi_xdsl.lowering.spirv_textures import TextureLowering
from taichi_xdsl.lowering.unroll_loads_first import loads_first
from taichi_xdsl.utils import spirv_abi
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
    StringAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

_VEC3 = VectorType(i32, [3])
_INPUT_PTR = spirv.PointerType(_VEC3, "Input")


def _bound_value(
    state: TaskState,
    bound: SSAValue,
    ops: list[Operation],
    folded: dict[int, tuple[list[Operation], int]],
) -> SSAValue:
    owner = bound.owner
    if isinstance(owner, arith.ConstantOp):
        assert isinstance(owner.value, IntegerAttr)
        c = spirv.ConstantOp(owner.value)
        ops.append(c)
        return c.results[0]
    assert isinstance(owner, memref.LoadOp) and isinstance(
        owner.memref.owner, offload.GlobalTmpOp
    )
    tmp = owner.memref.owner
    offset = tmp.offset.value.data
    if offset in folded:  # recompute it here from the arguments
        templates, result = folded[offset]
        mapping: dict[SSAValue, SSAValue] = {}
        clones = [op.clone(value_mapper=mapping) for op in templates]
        ops.extend(clones)
        return clones[-1].results[result]
    ptr = state.byte_slot(spirv_abi.GTMP_BINDING, tmp.offset.value.data, bound.type, ops)
    return load_value(state, ptr, ops)


def _slice(value: SSAValue) -> list[Operation]:
    """The ops `value` is computed from, in order (all in one block)."""
    needed: set[Operation] = set()
    work = [value]
    while work:
        op = work.pop().owner
        if isinstance(op, Operation) and op not in needed:
            needed.add(op)
            work.extend(op.operands)
    block = value.owner.parent_block()  # type: ignore[union-attr]
    return [op for op in block.ops if op in needed]  # type: ignore[union-attr]


def _computes_from_arguments(op: Operation) -> bool:
    """An op a bound may be recomputed from: an argument, its shape, pure arithmetic."""
    if isinstance(op, offload.ArgOp | memref.DimOp):
        return True
    return not op.regions and op.has_trait(Pure)


def _only_bounds(tmp: Operation) -> bool:
    """Every use of the global temporary `tmp` loads a value used only as loop bounds."""
    return all(
        isinstance(use.operation, memref.LoadOp)
        and all(
            isinstance(bound.operation, offload.RangeForTask)
            for bound in use.operation.res.uses
        )
        for use in tmp.results[0].uses
    )


def _foldable_bounds(
    kernel: offload.KernelOp,
) -> tuple[dict[int, tuple[list[Operation], int]], set[int]]:
    """
    Range_for bounds that a serial task computes from the kernel's arguments alone
    (`x.shape[0]`, `n - 1`) and stores to global temporaries that nothing but range_for
    bounds read: {offset: (detached copies of the ops computing the value, in order; its
    result index in the last)}, and the indices of the serial tasks that do
    nothing else (the range_for tasks recompute the bound themselves, so the backend may
    skip dispatching these).
    """
    readers: dict[int, list[Operation]] = {}
    for op in kernel.walk():
        if isinstance(op, offload.GlobalTmpOp):
            readers.setdefault(op.offset.value.data, []).append(op)
    bounds = kernel.bound_offsets()
    folded: dict[int, tuple[list[Operation], int]] = {}
    skip: set[int] = set()
    for index, task in enumerate(kernel.tasks):
        if not isinstance(task, offload.SerialTask):
            continue
        stores: dict[int, SSAValue] = {}
        pure = True
        for op in task.body.block.ops:
            if isinstance(op, memref.StoreOp) and isinstance(
                op.memref.owner, offload.GlobalTmpOp
            ):
                stores[op.memref.owner.offset.value.data] = op.value
            elif not (
                isinstance(op, offload.GlobalTmpOp) or _computes_from_arguments(op)
            ):
                pure = False
        if not pure or not stores:
            continue
        ok = True
        for offset in stores:
            in_tasks = [r for r in readers[offset] if r.parent_op() is not kernel]
            outside = [r for r in readers[offset] if r.parent_op() is kernel]
            if len(in_tasks) != 1 or offset not in bounds or not all(
                _only_bounds(r) for r in outside
            ):
                ok = False
                break
        if ok:
            for offset, value in stores.items():
                mapping: dict[SSAValue, SSAValue] = {}
                templates = [op.clone(value_mapper=mapping) for op in _slice(value)]
                folded[offset] = (templates, value.index)  # type: ignore[union-attr]
            skip.add(index)
    return folded, skip


def _builtin_x(module: spirv.ModuleOp, name: str, ops: list[Operation]) -> SSAValue:
    address = spirv.AddressOfOp(name, _INPUT_PTR)
    vector = spirv.LoadOp(address)
    x = spirv.CompositeExtractOp(vector, [0])
    ops += [address, vector, x]
    return x.results[0]


def _inline(region: Region, block: Block) -> None:
    """Move the ops of a task region's single block (if any) to the end of `block`."""
    if not region.blocks:
        return
    for op in list(region.block.ops):
        op.detach()
        block.add_op(op)


def _workgroup_bytes(module: spirv.ModuleOp) -> int:
    """Bytes of the Workgroup variables (block-shared memory) `module` declares."""
    total = 0
    for op in module.body.block.ops:
        if not isinstance(op, spirv.GlobalVariableOp):
            continue
        pointer = op.type
        if not (
            isinstance(pointer, spirv.PointerType)
            and pointer.storage_class.data == "Workgroup"
        ):
            continue
        total += _type_bytes(pointer.pointee_type)
    return total


def _type_bytes(type_: Attribute) -> int:
    """Bytes of an array of integers or floats (the Workgroup variables' types)."""
    if isinstance(type_, spirv.ArrayType):
        return type_.size.data * _type_bytes(type_.element_type)
    if isinstance(type_, IntegerType):
        return max(1, type_.width.data // 8)
    assert isinstance(type_, AnyFloat), type_
    return type_.bitwidth // 8


def _first_shared_array(task: offload.TaskOp) -> Operation:
    """The task's first ti.simt.block.SharedArray, else the task (where to report)."""
    for op in task.walk():
        if isinstance(op, taichi.SharedArrayOp):
            return op
    return task


def _check_shared_bytes(
    kernel: offload.KernelOp, anchor: Operation, module: spirv.ModuleOp, limit: int
) -> None:
    """Reject a task module whose block-shared memory exceeds `limit` (max-shared-bytes),
    at `anchor` (its first SharedArray)."""
    used = _workgroup_bytes(module)
    if used <= limit:
        return
    raise PassFailedAt(
        anchor,
        f"kernel '{kernel.sym_name.data}' needs {used} bytes of block-shared memory a "
        f"block (ti.simt.block.SharedArray), more than this device's {limit} "
        "(maxComputeSharedMemorySize): use smaller shared arrays or fewer of them",
    )


def _grid_loop_may_be_cut(task: offload.TaskOp, body: Block, local_size: int) -> bool:
    """
    Whether to check the grid-stride loop of `task` against a driver's loop budget
    (lavapipe: 65535 iterations of all the loops of a SIMD group of invocations): when
    its body runs serial loops, which spend the budget (the task already asserts that
    they ran whole, so the check costs no host wait more), or when its length is read
    on the device and its block is smaller than DEFAULT_BLOCK_DIM (DYNAMIC_GROUPS groups of 32 invocations: a cut past
    536,854,528 elements). Not checked, to spare every launch a host wait to read the
    error record (a 4096-element ndarray kernel on lavapipe: 1.5 ms a launch against
    0.65): a launch of constant length (at most 65535 groups, which every Vulkan device
    allows, so an invocation takes at most 2**31 / (65535 * 32) + 1 elements), and one
    of device-read length with a full block, where a cut needs more than 2,147,418,112
    elements (65534 for each of DYNAMIC_GROUPS * 128 invocations).
    """
    if any(isinstance(op, spirv.LoopOp) for op in body.walk()):
        return True
    if isinstance(task, offload.RangeForTask) and not (
        isinstance(task.lower.owner, arith.ConstantOp)
        and isinstance(task.upper.owner, arith.ConstantOp)
    ):
        return local_size < spirv_abi.DEFAULT_BLOCK_DIM
    return False


def _grid_stride_done(
    iv: spirv.VariableOp, hi: SSAValue, task: offload.TaskOp
) -> list[Operation]:
    """After the grid-stride loop (`check-loop-exits`): assert (always) that it reached
    `hi`. A driver that ends an invocation's loops once they ran out of a shared budget
    (lavapipe) may end it at its back edge just after an element's own loops finished,
    leaving the invocation's next elements undone."""
    end = spirv.LoadOp(iv)
    done = spirv.SGreaterThanEqualOp(end, hi)
    check = taichi.AssertOp(done, LOOP_CUT_SHORT, always=True)
    ops: list[Operation] = [end, done, check]
    for op in ops:
        op.location = task.location
    return ops


def _task_module(
    kernel: offload.KernelOp,
    index: int,
    task: offload.TaskOp,
    fields: dict[str, taichi.FieldOp],
    caps: dict[str, int],
    prints: list[tuple[str, tuple[str, ...]]],
    debug: bool,
    asserts: list[str],
    preserve_nan_inf: bool,
    unroll: int,
    folded: dict[int, tuple[list[Operation], int]],
    spread_groups: int,
    root_segment_bytes: int = 0,
    check_loop_exits: bool = False,
    unroll_layout: str = "stride",
    unroll_selections: bool = False,
    combine_block_dim: int = 0,
    unroll_loads_first: bool = False,
) -> spirv.ModuleOp:
    symbol = spirv_abi.task_symbol(kernel.sym_name.data, index)
    gid = spirv.GlobalVariableOp("gid", _INPUT_PTR, built_in="GlobalInvocationId")
    nwg = spirv.GlobalVariableOp("nwg", _INPUT_PTR, built_in="NumWorkgroups")
    func = spirv.FuncOp(symbol, ([], []))
    entry = func.entry_block
    module = spirv.ModuleOp([gid, nwg, func])
    state = TaskState(
        module, entry, kernel, fields, caps, [], len(prints), debug, preserve_nan_inf,
        len(asserts), root_segment_bytes=root_segment_bytes,
    )
    ops: list[Operation] = []
    gx = _builtin_x(module, "gid", ops)
    if isinstance(task, offload.SerialTask):
        local_size = 1
        zero = int_const(0)
        not_first = spirv.INotEqualOp(gx, zero)
        skip, merge = Block([spirv.ReturnOp()]), Block([spirv.MergeOp()])
        header = Block([spirv.BranchConditionalOp(not_first, skip, merge)])
        ops += [zero, not_first, spirv.SelectionOp(Region([header, skip, merge]))]
        entry.add_ops(ops)
        _inline(task.body, entry)
    else:
        assert isinstance(task, offload.RangeForTask | offload.StructForTask)
        combines = _combines_in_workgroup(task, caps)
        local_size = _local_size(task, spread_groups, combine_block_dim if combines else 0)
        nx = _builtin_x(module, "nwg", ops)
        local = int_const(local_size)
        stride = spirv.IMulOp(nx, local)
        ops += [local, stride]
        body = Block()
        if isinstance(task, offload.RangeForTask):
            index_type = task.lower.type
            if index_type != i32:
                raise fail(task, f"a range_for over {index_type} has no SPIR-V lowering")
            lo = _bound_value(state, task.lower, ops, folded)
            hi = _bound_value(state, task.upper, ops, folded)
        else:
            shape = task.field_type.get_shape()
            lo_op, hi_op = int_const(0), int_const(_product(shape))
            ops += [lo_op, hi_op]
            lo, hi = lo_op.results[0], hi_op.results[0]
        begin = spirv.IAddOp(lo, gx)
        ops.append(begin)
        entry.add_ops(ops)
        if isinstance(task, offload.RangeForTask):
            _inline(task.prologue, entry)
        _inline(task.body, body)
        start = begin.results[0]
        mode = (
            _unroll_mode(state, body, unroll_selections, unroll_loads_first)
            if unroll > 1
            else None
        )
        tail_stride = stride.results[0]
        if mode is not None and isinstance(task, offload.RangeForTask):
            spacing = stride.results[0]
            if unroll_layout == "block":  # a workgroup's copies side by side
                start, spacing = _block_start(
                    state, entry, start, gx, local, stride, lo, hi, unroll
                )
                tail_stride = spacing
            start = _unrolled_grid_stride(
                entry, task.index, start, hi, stride.results[0], body, unroll, mode,
                spacing,
            )
        tail: list[Operation] = []
        loop, i = stride_loop(i32, start, hi, tail_stride, body, tail)
        entry.add_ops(tail)
        if isinstance(task, offload.RangeForTask):
            task.index.replace_all_uses_with(i)
        else:
            _struct_indices(task, i, body)
        entry.add_op(loop)
        if check_loop_exits and _grid_loop_may_be_cut(task, body, local_size):
            iv = tail[0]
            assert isinstance(iv, spirv.VariableOp)
            entry.add_ops(_grid_stride_done(iv, hi, task))
        if isinstance(task, offload.RangeForTask):
            if _has_subgroup_arithmetic(caps):
                combine_per_workgroup(state, task.epilogue, local_size)
            lower_last_group(state, task.epilogue)
            _inline(task.epilogue, entry)
    entry.add_op(spirv.ReturnOp())
    module.body.block.add_ops(
        [
            spirv.EntryPointOp("GLCompute", symbol, _inputs(module)),
            spirv.ExecutionModeOp(symbol, "LocalSize", [local_size, 1, 1]),
        ]
    )
    _convert_accesses(state, func)
    mark_read_only_buffers(module)
    prints.extend(state.prints)
    asserts.extend(state.asserts)
    if state.asserts:
        module.attributes["ti.asserts"] = ArrayAttr(
            ArrayAttr([StringAttr(str(state.assert_base + n)), StringAttr(text)])
            for n, text in enumerate(state.asserts)
        )
    finish_module(state, task)
    return module


MIN_SPREAD_BLOCK = 32
"""The smallest workgroup spread-groups chooses: one subgroup of an NVIDIA GPU."""


_SIMT_TYPES = frozenset(taichi.SIMT_OPS)
"""The ti.simt op classes (none has subclasses): a set lookup a task op, not an
isinstance against each of these ABCs."""


def _combines_in_workgroup(task: offload.TaskOp, caps: dict[str, int]) -> bool:
    """A range_for whose epilogue combine_per_workgroup rewrites."""
    return (
        isinstance(task, offload.RangeForTask)
        and _has_subgroup_arithmetic(caps)
        and bool(task.epilogue.blocks)
        and any(combines_per_workgroup(op) for op in task.epilogue.block.ops)
    )


def _local_size(task: offload.TaskOp, spread_groups: int, default: int = 0) -> int:
    """
    The workgroup size of a parallel task: its block_dim (ti.loop_config), else
    `default` (0: DEFAULT_BLOCK_DIM), halved (down to MIN_SPREAD_BLOCK) while a launch
    of constant length would have fewer than `spread_groups` groups (see the module
    docstring); never for a task with ti.simt ops, whose results may depend on the
    block size.
    """
    block_dim = getattr(task, "block_dim", None)
    if block_dim is not None and block_dim.value.data:
        return block_dim.value.data
    local = default or spirv_abi.DEFAULT_BLOCK_DIM
    if not spread_groups or any(type(op) in _SIMT_TYPES for op in task.walk()):
        return local  # ti.simt code may depend on the block size (thread_idx, shared arrays)
    if isinstance(task, offload.StructForTask):
        n = _product(task.field_type.get_shape())
    else:
        assert isinstance(task, offload.RangeForTask)
        lo, hi = task.lower.owner, task.upper.owner
        if not (isinstance(lo, arith.ConstantOp) and isinstance(hi, arith.ConstantOp)):
            return local  # a length read on the device: the backend covers it with groups
        assert isinstance(lo.value, IntegerAttr) and isinstance(hi.value, IntegerAttr)
        n = hi.value.value.data - lo.value.value.data
    while local > MIN_SPREAD_BLOCK and -(-n // local) < spread_groups:
        local //= 2
    return local


_UNROLL_MAX_OPS = 64
_NOT_UNROLLED = (taichi.PrintOp, taichi.AssertOp, *taichi.SIMT_OPS)


def _unroll_mode(
    state: TaskState, body: Block, selections: bool = False, loads_first: bool = False
) -> str | None:
    """
    How iterations of this range_for body may run several at a time: None (not at all:
    control flow, more than _UNROLL_MAX_OPS ops, print, assert, debug checks),
    "sequential" (one after another: they share a thread-local slot, or, with
    `selections`, the body has if/else without loops: ti-align-rows' guard),
    "loads-first" (such a guarded body with `loads_first`), else "lockstep" (interleaved
    op by op).
    """
    if state.debug:
        return None
    count = 0
    guarded = shares_slot = False
    for op in body.walk():
        count += 1
        if isinstance(op, _NOT_UNROLLED) or count > _UNROLL_MAX_OPS:
            return None
        if op.regions:
            if not (selections and isinstance(op, spirv.SelectionOp)):
                return None
            guarded = True
        if isinstance(op, offload.ThreadLocalOp):
            shares_slot = True
    if not count:
        return None
    if shares_slot:
        return "sequential"
    if guarded:
        return "loads-first" if loads_first else "sequential"
    return "lockstep"


def _block_start(
    state: TaskState,
    entry: Block,
    begin: SSAValue,
    gx: SSAValue,
    local: spirv.ConstantOp,
    stride: spirv.IMulOp,
    lo: SSAValue,
    hi: SSAValue,
    factor: int,
) -> tuple[SSAValue, SSAValue]:
    """
    The "block" layout of the unrolled loop (Triton's): workgroup w takes the `factor`
    blocks of LocalSize consecutive elements from w * LocalSize * factor, an invocation
    the one at its local id in each. Returns its first index, begin + w * LocalSize *
    (factor - 1) (begin = lo + gid), and the distance between its copies (LocalSize).
    A launch shorter than one such run for every group (hi - lo < factor * stride) keeps
    the stride layout (begin, stride): in the block layout its last groups would have
    nothing to do, where spread-groups chose their number to spread it over the GPU.

        %full = hi - lo >= factor * stride
        start = %full ? begin + (gid - lid) * (factor - 1) : begin
        spacing = %full ? LocalSize : stride
    """
    declare_input(state, "local_id", "LocalInvocationId", vector=True)
    ops: list[Operation] = []
    lid = _builtin_x(state.module, "local_id", ops)
    base = spirv.ISubOp(gx, lid)  # w * LocalSize
    more = int_const(factor - 1)
    extra = spirv.IMulOp(base, more)
    block_start = spirv.IAddOp(begin, extra)
    length = spirv.ISubOp(hi, lo)
    width = int_const(factor)
    run = spirv.IMulOp(stride, width)
    full = spirv.SGreaterThanEqualOp(length, run)
    start = spirv.SelectOp(full, block_start, begin)
    spacing = spirv.SelectOp(full, local, stride)
    entry.add_ops(
        [*ops, base, more, extra, block_start, length, width, run, full, start, spacing]
    )
    return start.results[0], spacing.results[0]


def _unrolled_grid_stride(
    entry: Block,
    index: SSAValue,
    begin: SSAValue,
    end: SSAValue,
    stride: SSAValue,
    body: Block,
    factor: int,
    mode: str = "lockstep",
    spacing: SSAValue | None = None,
) -> SSAValue:
    """
    Ahead of the grid-stride loop, a loop that runs `factor` iterations at a time, each
    `spacing` apart (default `stride`; LocalSize in the block layout, where the plain
    loop then goes on `spacing` apart through the rest of the invocation's last block),
    while all of them are in range (i < end - (factor - 1) * spacing). In "lockstep" mode their
    bodies are interleaved op by op, so the loads of all come before the stores of any
    and are in flight together; in "sequential" mode the bodies follow one another (the
    iterations share a thread-local slot, which the driver keeps in a register, so it
    can still issue the loads together). Adds it to `entry`; returns the index where the
    plain loop goes on.

        lockstep:   for (i = begin; i < end - 3s; i += 4s) { a(i) a(i+s) ...; b(i) ... }
        sequential: for (i = begin; i < end - 3s; i += 4s) { a(i) b(i) ...; a(i+s) ... }
        loads-first: sequential, but each copy's guarded loads ahead of every copy's
                     guarded body (lowering/unroll_loads_first.py)

    Iterations of a parallel loop may run in any order, so interleaving them is allowed.
    """
    spacing = stride if spacing is None else spacing
    last = int_const(factor - 1)
    reach = spirv.IMulOp(spacing, last)
    limit = spirv.ISubOp(end, reach)
    width = int_const(factor)
    step = spirv.IMulOp(stride, width)
    iv = spirv.VariableOp(spirv.PointerType(i32, "Function"))
    entry.add_ops([last, reach, limit, width, step, iv, spirv.StoreOp(iv, begin)])
    i = spirv.LoadOp(iv)
    lt = spirv.SLessThanOp(i, limit)
    unrolled = Block()
    header, cont, merge = Block(), Block(), Block([spirv.MergeOp()])
    header.add_ops([i, lt, spirv.BranchConditionalOp(lt, unrolled, merge)])
    maps: list[dict[SSAValue, SSAValue]] = []
    for k in range(factor):
        if k == 0:
            maps.append({index: i.results[0]})
            continue
        offset = int_const(k)
        scaled = spirv.IMulOp(spacing, offset)
        at = spirv.IAddOp(i, scaled)
        unrolled.add_ops([offset, scaled, at])
        maps.append({index: at.results[0]})
    if mode == "lockstep":
        for op in body.ops:
            for mapping in maps:
                unrolled.add_op(op.clone(value_mapper=mapping))
    elif mode == "loads-first":
        copies = [[op.clone(value_mapper=mapping) for op in body.ops] for mapping in maps]
        ordered, variables = loads_first(copies)
        entry.add_ops(variables)
        unrolled.add_ops(ordered)
    else:
        for mapping in maps:
            for op in body.ops:
                unrolled.add_op(op.clone(value_mapper=mapping))
    unrolled.add_op(spirv.BranchOp(cont))
    again = spirv.LoadOp(iv)
    advance = spirv.IAddOp(again, step)
    cont.add_ops([again, advance, spirv.StoreOp(iv, advance), spirv.BranchOp(header)])
    start = Block([spirv.BranchOp(header)])
    entry.add_op(spirv.LoopOp(Region([start, header, unrolled, cont, merge])))
    rest = spirv.LoadOp(iv)
    entry.add_op(rest)
    return rest.results[0]


def _inputs(module: spirv.ModuleOp) -> list[str]:
    """The entry point's interface: gid, nwg, then the built-ins declared since."""
    names = [
        g.sym_name.data
        for g in module.body.block.ops
        if isinstance(g, spirv.GlobalVariableOp) and g.built_in is not None
    ]
    return ["gid", "nwg", *(n for n in reversed(names) if n not in ("gid", "nwg"))]


def _has_subgroup_arithmetic(caps: dict[str, int]) -> bool:
    return bool(
        caps.get("spirv_has_subgroup_basic") and caps.get("spirv_has_subgroup_arithmetic")
    )


def _product(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _struct_indices(task: offload.StructForTask, i: SSAValue, body: Block) -> None:
    """The body's per-axis indices from the flattened index (row-major)."""
    shape = task.field_type.get_shape()
    ops: list[Operation] = []
    rest = i
    values: list[SSAValue] = []
    for axis in range(len(shape) - 1, -1, -1):
        extent = int_const(shape[axis])
        q = spirv.SDivOp(rest, extent)
        r = spirv.SRemOp(rest, extent)
        ops += [extent, q, r]
        values.append(r.results[0] if axis else rest)
        rest = q.results[0]
    values.reverse()
    first = body.first_op
    if first is None:
        return  # an empty body uses no index
    Rewriter.insert_op(ops, InsertPoint.before(first))
    for arg, value in zip(task.body.block.args, values):
        arg.replace_all_uses_with(value)


def _convert_accesses(state: TaskState, func: spirv.FuncOp) -> None:
    patterns: list[RewritePattern] = [
        ArgLowering(state),
        GlobalTmpLowering(state),
        ThreadLocalLowering(state),
        FieldAccessLowering(state),
        ElementPtrLowering(state),
        DimLowering(state),
        IndexCastLowering(state),
        LoadLowering(state),
        StoreLowering(state),
        AtomicLowering(state),
        SetReturnLowering(state),
        PrintLowering(state),
        AssertLowering(state),
        TextureLowering(state),
        SimtLowering(state),
    ]
    # No dead-code elimination while rewriting: a buffer view's address is cached.
    PatternRewriteWalker(
        TypeDispatchApplier(patterns, dce_enabled=False), apply_recursively=True
    ).rewrite_region(func.body)
    # What no use needs any more: get_field / ndarray args / index constants / chains.
    region_dce(func.body)


def _root_segments(
    kernel: offload.KernelOp, fields: dict[str, taichi.FieldOp], segment_bytes: int
) -> int:
    """How many root segments `kernel` binds: up to the last one holding a byte of a
    field it names (at least one, binding 0)."""
    last = 0
    for op in kernel.walk():
        if isinstance(op, taichi.GetFieldOp):
            declared = fields.get(op.field.root_reference.data)
            if declared is not None:  # the segment of its last byte
                field_type = declared.type
                nbytes = field_type.element_count() * byte_size(field_type.element_type)
                end = declared.offset.value.data + max(nbytes, 1) - 1
                last = max(last, end // segment_bytes)
    return last + 1


@dataclass(frozen=True)
class ConvertOffloadToSpirvPass(ModulePass):
    """
    Tasks of offload kernels -> one spirv.module each, for the caps named by `caps`
    (see utils/spirv_abi.parse_caps; empty: DEFAULT_CAPS). With `debug`, element
    accesses are bounds-checked and asserts checked, writing the error record. With
    `preserve-nan-inf`, each module declares SignedZeroInfNanPreserve (float controls).
    With `unroll` > 1, straight-line range_for bodies run that many iterations at a time
    (see the module docstring), a grid stride apart, or LocalSize apart in a run of
    blocks of the workgroup's own with `unroll-layout=block`; with `unroll-selections`,
    bodies with if/else too, one copy after another, and with `unroll-loads-first`
    each copy's guarded loads ahead of every copy's guarded body
    (lowering/unroll_loads_first.py). With `fold-bounds`,
    range_for bounds that a serial task computes from the arguments alone are
    recomputed in the range_for task, and that
    serial task's module is marked `ti.skip` when it does nothing else. With
    `spread-groups` > 0, a parallel task of constant length and no block_dim gets
    workgroups small enough (down to 32) for that many groups. With
    `root-segment-bytes` S > 0, the root is bound as segments of S bytes (utils/
    spirv_abi.py): a field at root offset B is read from segment B // S at B % S, and
    each task module records in `ti.root_segments` how many segments its kernel binds.
    With `check-loop-exits`, a parallel task whose grid-stride loop a driver's loop
    budget may cut (lavapipe's) asserts (always) that the loop reached its bound.
    With `max-shared-bytes` N > 0 (the device's maxComputeSharedMemorySize), a task
    whose Workgroup variables (ti.simt.block.SharedArray, a reduction's partials) take
    more than N bytes is rejected at its first SharedArray.
    With `combine-block-dim` N > 0, a range_for without a block_dim whose epilogue
    combines in the workgroup (subgroup caps) gets N invocations a group instead of
    DEFAULT_BLOCK_DIM (fewer, for spread-groups, when its length is constant).
    """

    name = "convert-offload-to-spirv"

    caps: str = ""
    debug: bool = False
    preserve_nan_inf: bool = False
    unroll: int = 1
    fold_bounds: bool = False
    spread_groups: int = 0
    root_segment_bytes: int = 0
    check_loop_exits: bool = False
    max_shared_bytes: int = 0
    unroll_layout: str = "stride"
    unroll_selections: bool = False
    combine_block_dim: int = 0
    unroll_loads_first: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        caps = spirv_abi.parse_caps(self.caps)
        fields = {
            f.sym_name.data: f for f in op.body.block.ops if isinstance(f, taichi.FieldOp)
        }
        for kernel in [k for k in op.body.block.ops if isinstance(k, offload.KernelOp)]:
            prints: list[tuple[str, tuple[str, ...]]] = []
            asserts: list[str] = []
            modules: list[spirv.ModuleOp] = []
            folded, skip = _foldable_bounds(kernel) if self.fold_bounds else ({}, set())
            segments = (
                _root_segments(kernel, fields, self.root_segment_bytes)
                if self.root_segment_bytes
                else 1
            )
            for index, task in enumerate(kernel.tasks):
                base = len(prints)
                anchor = _first_shared_array(task)
                module = _task_module(
                    kernel,
                    index,
                    task,
                    fields,
                    caps,
                    prints,
                    self.debug,
                    asserts,
                    self.preserve_nan_inf,
                    self.unroll,
                    folded,
                    self.spread_groups,
                    self.root_segment_bytes,
                    self.check_loop_exits,
                    self.unroll_layout,
                    self.unroll_selections,
                    self.combine_block_dim,
                    self.unroll_loads_first,
                )
                if self.max_shared_bytes:
                    _check_shared_bytes(kernel, anchor, module, self.max_shared_bytes)
                if self.root_segment_bytes:
                    module.attributes["ti.root_segments"] = IntegerAttr(segments, i64)
                if index in skip:
                    module.attributes["ti.skip"] = UnitAttr()
                specs = ArrayAttr(
                    ArrayAttr(
                        [
                            StringAttr(str(base + n)),
                            StringAttr(fmt),
                            *map(StringAttr, kinds),
                        ]
                    )
                    for n, (fmt, kinds) in enumerate(prints[base:])
                )
                if specs.data:
                    module.attributes["ti.prints"] = specs
                module.attributes["ti.kernel"] = StringAttr(kernel.sym_name.data)
                module.attributes["ti.task"] = IntegerAttr(index, i64)
                modules.append(module)
            Rewriter.insert_op(modules, InsertPoint.before(kernel))
            kernel.detach()
            kernel.erase()
