"""
ti-spirv-hoist: within each block of a SPIR-V function, issue buffer loads and pure
arithmetic as early as their operands allow, ahead of the loads and stores of Function
variables that do not need them.

After ti-unroll-loops a loop body holds several copies of the original body, each
loading, computing and then updating the loop-carried variables, which are Function
variables (`acc += f`: load acc, add, store acc). NVIDIA's Vulkan compiler keeps much of
that order, so the copies overlap less than they could. With the loads and arithmetic
of all copies first and the updates last, more of their latencies overlap: n-body's
force task (32 copies) on an H200 takes 127 us with this pass, 141 us without it
(bench/results/h200-session5-probes.txt). The CPU path leaves scheduling to LLVM.

Operations that stay in their order: stores, atomics, barriers, calls, operations with
regions, image accesses, and loads and stores of Function variables. A pure operation
(arithmetic, access chains, constants) moves above any of them it does not depend on;
a buffer load (StorageBuffer, Uniform, PushConstant; not Volatile) moves above
Function-variable loads and stores only, never above anything that may write memory. Operations that move
keep their order among themselves. Moving within one block never makes an operation run
where it did not, so nothing is speculated.

    %a = spirv.Load "StorageBuffer" %p0 : f32         %a = spirv.Load "StorageBuffer" %p0
    %r = spirv.GL.InverseSqrt %a : f32                %r = spirv.GL.InverseSqrt %a : f32
    %x = spirv.Load "Function" %acc : f32             %k = spirv.IAdd %j, %c1 : i32
    %s = spirv.FAdd %x, %r : f32               ~>     %p1 = spirv.AccessChain %buf[%c0, %k]
    spirv.Store "Function" %acc, %s : f32             %b = spirv.Load "StorageBuffer" %p1
    %k = spirv.IAdd %j, %c1 : i32                     %q = spirv.GL.InverseSqrt %b : f32
    %p1 = spirv.AccessChain %buf[%c0, %k] ...         %x = spirv.Load "Function" %acc : f32
    %b = spirv.Load "StorageBuffer" %p1 : f32         %s = spirv.FAdd %x, %r : f32
    %q = spirv.GL.InverseSqrt %b : f32                spirv.Store "Function" %acc, %s : f32
    ...                                               ...
"""

from __future__ import annotations

from dataclasses import dataclass

from bisect import bisect_left

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import MemoryEffect, NoMemoryEffect, is_side_effect_free

from taichi_xdsl.dialects import spirv

_BUFFER_CLASSES = frozenset({"StorageBuffer", "Uniform", "PushConstant"})
"""Storage classes whose loads move up."""


def _storage_class(op: spirv.LoadOp | spirv.StoreOp) -> str:
    pointer = op.ptr.type
    assert isinstance(pointer, spirv.PointerType)
    return pointer.storage_class.data


def _volatile(op: spirv.LoadOp) -> bool:
    return op.memory_access is not None and "Volatile" in str(op.memory_access.data)


def _pure(op: Operation) -> bool:
    """Free to move: no regions, no memory effects, and no image access (a fetch may
    read a texel that an image write before it in the block wrote)."""
    if op.regions:
        return False
    by_type = _PURE_BY_TYPE.get(type(op))
    if by_type is None:
        by_type = _PURE_BY_TYPE[type(op)] = _pure_by_type(op)
    if by_type:
        return True
    return is_side_effect_free(op) and not op.name.startswith("spirv.Image")


_PURE_BY_TYPE: dict[type[Operation], bool] = {}
"""Op types that are pure whatever the op (True); False: ask each op (`_pure`)."""


def _pure_by_type(op: Operation) -> bool:
    """Whether every op of `op`'s type is free to move: its only memory-effect traits
    are NoMemoryEffect's own (no effects, whatever the op), and it is no image access.
    An effect trait that looks at the op (a load, a call) makes it False, and `_pure`
    then asks xDSL about each op, as before."""
    traits = op.get_traits_of_type(MemoryEffect)
    return (
        bool(traits)
        and all(
            type(t).get_effects.__func__ is NoMemoryEffect.get_effects.__func__  # type: ignore[attr-defined]
            for t in traits
        )
        and not op.name.startswith("spirv.Image")
    )


def _buffer_load(op: Operation) -> bool:
    return (
        isinstance(op, spirv.LoadOp)
        and _storage_class(op) in _BUFFER_CLASSES
        and not _volatile(op)
    )


def _function_access(op: Operation) -> bool:
    """A load or store of a Function variable (or its declaration): a buffer load may
    pass it, as they touch different memory."""
    if isinstance(op, spirv.VariableOp):
        return True
    if isinstance(op, spirv.LoadOp):
        return not _volatile(op) and _storage_class(op) == "Function"
    if isinstance(op, spirv.StoreOp):
        return _storage_class(op) == "Function"
    return False


def hoist_block(block: Block) -> bool:
    """Reorder `block` (see the module docstring); whether anything moved."""
    ops = list(block.ops)
    # Each operation that stays in order gets the next rank; one that moves gets the
    # rank of the last staying operation it must follow (-1: none).
    # Keyed by id(op): an op's __hash__ is a Python call, and an operand's owner may
    # be a block (never a key).
    rank: dict[int, int] = {}
    moves: list[bool] = []
    staying = -1  # rank of the last staying operation so far
    fence = -1  # rank of the last staying operation a buffer load may not pass
    for op in ops:
        load = _buffer_load(op)
        if load or _pure(op):
            after = fence if load else -1
            for operand in op.operands:
                dep = rank.get(id(operand.owner))
                if dep is not None and dep > after:
                    after = dep
            rank[id(op)] = after
            moves.append(True)
        else:
            staying += 1
            rank[id(op)] = staying
            moves.append(False)
            if not _function_access(op):
                fence = staying
    ranks = [rank[id(op)] for op in ops]
    # A staying op of rank r goes after every moving op of rank < r (those it may use
    # and those it preceded), a moving op of rank r right after the staying op of rank r.
    order = sorted(
        range(len(ops)),
        key=lambda i: (ranks[i], 0, i) if moves[i] else (ranks[i] - 1, 1, i),
    )
    if order == list(range(len(ops))):
        return False
    _reorder(block, [ops[i] for i in order], order)
    return True


def _reorder(block: Block, final: list[Operation], order: list[int]) -> None:
    """Put `block`'s ops in the order `final` (`final[k]` is op `order[k]` of the
    block), moving as few as it can: the ops of a longest run of `order` that
    increases keep their places (their order is already right), the others are
    detached and inserted, in the final order, before the next op that kept its place
    (or at the block's end). Each move is a detach and an insertion, which xDSL checks
    against the op's ancestors; moving every op cost a third of the pass."""
    kept = _longest_increasing(order)
    anchor: Operation | None = None
    anchors: list[Operation | None] = [None] * len(final)
    for k in range(len(final) - 1, -1, -1):
        anchors[k] = anchor
        if kept[k]:
            anchor = final[k]
    for k, op in enumerate(final):
        if not kept[k]:
            op.detach()
    for k, op in enumerate(final):
        if kept[k]:
            continue
        next_kept = anchors[k]
        if next_kept is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, next_kept)


def _longest_increasing(values: list[int]) -> list[bool]:
    """Which positions of `values` (distinct ints) make up one longest strictly
    increasing subsequence (patience sorting, O(n log n))."""
    tails: list[int] = []  # tails[j]: the smallest last value of an increasing run of j+1
    tail_at: list[int] = []  # the position of that value
    previous: list[int] = [-1] * len(values)
    for k, value in enumerate(values):
        j = bisect_left(tails, value)
        if j == len(tails):
            tails.append(value)
            tail_at.append(k)
        else:
            tails[j] = value
            tail_at[j] = k
        previous[k] = tail_at[j - 1] if j else -1
    kept = [False] * len(values)
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        kept[k] = True
        k = previous[k]
    return kept


@dataclass(frozen=True)
class HoistPass(ModulePass):
    """Issue buffer loads and pure arithmetic early in their blocks (see the module
    docstring)."""

    name = "ti-spirv-hoist"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks: list[Block] = []
        for func in op.walk():
            if isinstance(func, spirv.FuncOp):
                _collect_blocks(func, blocks)
        for block in blocks:
            hoist_block(block)


def _collect_blocks(op: Operation, blocks: list[Block]) -> None:
    """The blocks of `op`'s regions and of every op nested in them: the blocks that
    `op.walk()` reaches, without its generator per nesting level per op. (Their order
    does not matter: hoisting a block moves only that block's ops.)"""
    for region in op.regions:
        for block in region.blocks:
            blocks.append(block)
            for inner in block.ops:
                if inner.regions:
                    _collect_blocks(inner, blocks)
