"""
ti-make-thread-local: reduce into a per-thread slot, combine once per thread.

`total[None] += x[i]` in a parallel loop is an atomic add on one address from every
iteration: the threads serialise on it. Like Taichi (taichi/transforms/make_thread_local.cpp),
a range_for task whose body only *reduces* into a loop-invariant place accumulates into an
`offload.thread_local` slot instead: the prologue sets the slot to the identity, the body
updates it with a plain load/op/store (the atomic on the thread-private slot is demoted as
ti-demote-atomics does it), and the epilogue applies ONE atomic of the slot's value to
the original place.

    offload.range_for %i = %lo to %hi : i32 {
      %s = taichi.get_field @s : memref<f32>
      %p = taichi.element_ptr %s[] : memref<f32> -> memref<f32>
      %old = taichi.atomic_add %p, %v : memref<f32>      (%old unused)
    }
    ~>
    offload.range_for %i = %lo to %hi : i32 {
      %tl = offload.thread_local 0 : memref<f32>
      %a = memref.load %tl[] : memref<f32>
      %b = arith.addf %a, %v : f32
      memref.store %b, %tl[] : memref<f32>
    } prologue {
      %tl = offload.thread_local 0 : memref<f32>
      %zero = arith.constant 0.000000e+00 : f32
      memref.store %zero, %tl[] : memref<f32>
    } epilogue {
      %tl = offload.thread_local 0 : memref<f32>
      %acc = memref.load %tl[] : memref<f32>
      %s = taichi.get_field @s : memref<f32>
      %p = taichi.element_ptr %s[] : memref<f32> -> memref<f32>
      %0 = taichi.atomic_add %p, %acc : memref<f32>
    }

A place qualifies when it is computed from pure ops only, none depending on the loop index
(a 0-d field element, `x[3, 0]`, an ndarray argument's element at constant indices, a
global temporary), every atomic on it is one of add/sub (mixed), or all min, or all max
(same signedness), their results are unused, and nothing else in the task reads, writes
or may alias it (another element of the same container at non-constant indices counts;
so does a call of a real function, `func.call`, which may access any field).
The identities: 0 for add, +inf / the type's maximum for min, -inf / minimum for max.

f16 reductions stay atomic: with 11 bits of mantissa a running f16 sum stops growing
once the addend is under half its spacing, so per-thread partial sums would give a
different (larger) total than the updates one by one that Taichi's answer is (a sum of
1000 x 1.12 is 1029 in f16 with Taichi, not ~1118).

atomic_sub joins the add family: the slot accumulates `slot - v` from 0 and the epilogue
adds the slot, as Taichi does. That is exact for integers (wrapping arithmetic is
associative) and, for floats, only reorders the sum the way every parallel reduction
does (negation is exact), so it is allowed for floats too. Distinct ndarray arguments
are assumed not to alias, as in Taichi.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    f16,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free
from xdsl.utils.hints import isa

from taichi_xdsl.dialects import offload, taichi
from taichi_xdsl.lowering.demote_atomics import DemoteAtomic, calls_functions, container
from taichi_xdsl.lowering.offload import byte_size

_FAMILY: dict[type[taichi.AtomicOp], str] = {
    taichi.AtomicAddOp: "add",
    taichi.AtomicSubOp: "add",
    taichi.AtomicMinOp: "min",
    taichi.AtomicMaxOp: "max",
}

Place = tuple[Hashable, tuple[Hashable, ...]]
"""A global place: its container (field name, argument or global temporary) and its
indices (a constant's value, or the SSA value)."""


def _index_key(value: SSAValue) -> Hashable:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return value


def _place(value: SSAValue) -> Place | None:
    where = container(value)
    if where is None:
        return None  # a local slot, thread-private
    owner = value.owner
    indices = owner.indices if isinstance(owner, taichi.ElementPtrOp) else ()
    return where, tuple(_index_key(index) for index in indices)


def _may_alias(a: Place, b: Place) -> bool:
    if a[0] != b[0]:
        return False
    constant = all(isinstance(i, int) for i in (*a[1], *b[1]))
    return not constant or a[1] == b[1]


def _invariant(value: SSAValue) -> bool:
    """Computed by pure ops from nothing that changes with the iteration."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.regions or not is_side_effect_free(owner):
        return False
    return all(_invariant(operand) for operand in owner.operands)


def _accesses(task: offload.RangeForTask) -> Iterator[tuple[Operation, Place]]:
    """Every op of `task` that reads or writes a global place, with the place."""
    for op in task.walk():
        if isinstance(op, taichi.ElementPtrOp | memref.DimOp):
            continue  # computes an address or reads a shape, touches no element
        for operand in op.operands:
            if isa(operand.type, MemRefType) and (place := _place(operand)) is not None:
                yield op, place


def _family(op: Operation) -> tuple[str, bool] | None:
    family = _FAMILY.get(type(op))  # pyright: ignore[reportArgumentType]
    if family is None:
        return None
    return family, getattr(op, "unsigned", None) is not None


def _reductions(task: offload.RangeForTask) -> dict[Place, list[taichi.AtomicOp]]:
    """The body's reductions that may become thread-local, by place, in program order."""
    groups: dict[Place, list[taichi.AtomicOp]] = {}
    if calls_functions(task):
        return groups
    for op in task.body.walk():
        if (
            isinstance(op, taichi.AtomicOp)
            and _family(op) is not None
            and not op.old.uses
            and op.value.type != f16
            and _invariant(op.dest)
            and (place := _place(op.dest)) is not None
        ):
            groups.setdefault(place, []).append(op)
    accesses = list(_accesses(task))
    return {
        place: atomics
        for place, atomics in groups.items()
        if len({_family(op) for op in atomics}) == 1
        and all(op in atomics for op, other in accesses if _may_alias(place, other))
    }


def _identity(family: str, unsigned: bool, element_type: Attribute) -> arith.ConstantOp:
    if isinstance(element_type, AnyFloat):
        value = {"add": 0.0, "min": float("inf"), "max": float("-inf")}[family]
        return arith.ConstantOp(FloatAttr(value, element_type))
    assert isinstance(element_type, IntegerType)
    width = element_type.width.data
    if unsigned:
        # only atomic_min / atomic_max carry `unsigned`; -1: all bits set
        value = {"min": -1, "max": 0}[family]
    else:
        value = {"add": 0, "min": 2 ** (width - 1) - 1, "max": -(2 ** (width - 1))}[family]
    return arith.ConstantOp(IntegerAttr(value, element_type))


def _clone_into(
    value: SSAValue, block: Block, mapping: dict[SSAValue, SSAValue]
) -> SSAValue:
    """Recompute the invariant `value` at the end of `block`."""
    if value not in mapping:
        owner = value.owner
        assert isinstance(owner, Operation)
        clone = owner.clone()
        clone.operands = [
            _clone_into(operand, block, mapping) for operand in owner.operands
        ]
        block.add_op(clone)
        mapping[value] = clone.results[value.index]  # pyright: ignore[reportAttributeAccessIssue]
    return mapping[value]


def _block_of(region_owner: offload.RangeForTask, which: str) -> Block:
    region = getattr(region_owner, which)
    if not region.blocks:
        region.add_block(Block())
    return region.block


def _thread_local_end(task: offload.RangeForTask) -> int:
    """The first byte after the thread-local slots the task already has."""
    return max(
        (
            t.offset.value.data + byte_size(t.result.type.element_type)  # pyright: ignore
            for t in task.walk()
            if isinstance(t, offload.ThreadLocalOp)
        ),
        default=0,
    )


class ReduceIntoThreadLocal(RewritePattern):
    """
    Reductions on a loop-invariant global place go through a thread-local slot (module
    docstring has the before/after IR).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.RangeForTask, rewriter: PatternRewriter):
        groups = _reductions(op)
        if not groups:
            return  # no reduction, or its place is used otherwise in the task
        end = _thread_local_end(op)
        body_start = InsertPoint.before(op.body.block.first_op)  # pyright: ignore
        prologue = InsertPoint.at_end(_block_of(op, "prologue"))
        epilogue = _block_of(op, "epilogue")
        mapping: dict[SSAValue, SSAValue] = {}
        for atomics in groups.values():
            first = atomics[0]
            element_type = first.value.type
            size = byte_size(element_type)
            offset = -(-end // size) * size
            end = offset + size
            family, unsigned = _family(first)  # pyright: ignore[reportGeneralTypeIssues]

            # Prologue: the slot starts at the identity.
            slot = offload.ThreadLocalOp(offset, element_type)
            identity = _identity(family, unsigned, element_type)
            init = [slot, identity, memref.StoreOp.get(identity, slot, [])]
            rewriter.insert(init, prologue)
            # Body: each atomic updates the slot instead, and cannot race there.
            body_slot = offload.ThreadLocalOp(offset, element_type)
            rewriter.insert(body_slot, body_start)
            # Epilogue: one atomic of the slot's value into the place.
            tail_slot = offload.ThreadLocalOp(offset, element_type)
            acc = memref.LoadOp.get(tail_slot, [])
            rewriter.insert([tail_slot, acc], InsertPoint.at_end(epilogue))
            place = _clone_into(first.dest, epilogue, mapping)
            combine = taichi.AtomicAddOp if family == "add" else type(first)
            final = combine(place, acc.res)
            if unsigned:
                final.properties["unsigned"] = first.properties["unsigned"]
            rewriter.insert(final, InsertPoint.at_end(epilogue))
            for new_op in (*init, body_slot, tail_slot, acc, final):
                new_op.location = first.location
            for atomic in atomics:
                atomic.operands = [body_slot.result, atomic.value]
                rewriter.notify_op_modified(atomic)
                DemoteAtomic().match_and_rewrite(atomic, rewriter)


class MakeThreadLocalPass(ModulePass):
    """Accumulate range_for reductions per thread; combine once per thread."""

    name = "ti-make-thread-local"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            ReduceIntoThreadLocal(), apply_recursively=False
        ).rewrite_module(op)
