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

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import is_side_effect_free

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
    return (
        not op.regions
        and is_side_effect_free(op)
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
    for op in ops:
        op.detach()
    for i in order:
        block.add_op(ops[i])
    return True


@dataclass(frozen=True)
class HoistPass(ModulePass):
    """Issue buffer loads and pure arithmetic early in their blocks (see the module
    docstring)."""

    name = "ti-spirv-hoist"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks = [
            block
            for func in op.walk()
            if isinstance(func, spirv.FuncOp)
            for inner in func.walk()
            for region in inner.regions
            for block in region.blocks
        ]
        for block in blocks:
            hoist_block(block)
