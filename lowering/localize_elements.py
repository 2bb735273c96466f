"""
ti-localize-elements: an element of a field that one block reads, then writes and reads
again becomes a local variable of the block: one load where it is first read, one store
of its last value at the end of the block.

Run before ti-auto-diff on the copy of a kernel its adjoint is built from: the adjoint
replays global loads after the primal ran, so a load that reads what the kernel wrote
before it (Taichi's diff_sph `boundary_handle`, which clamps `F_pos[bs, t, i][j]` against
the lower bound, then tests the result against the upper) could see neither the value
before the launch nor the one after. As a local, every read but the first follows the
stores in SSA, and the one global load reads the value before the launch.

    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %c = arith.cmpf olt, %v, %lo : f32
    taichi.if %c {
      memref.store %lo, %p[] : memref<f32>
    }
    %w = memref.load %p[] : memref<f32>
    ~>
    %p = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %s = memref.alloca() : memref<f32>
    memref.store %v, %s[] : memref<f32>
    %c = arith.cmpf olt, %v, %lo : f32
    taichi.if %c {
      memref.store %lo, %s[] : memref<f32>
    }
    %w = memref.load %s[] : memref<f32>
    ...
    %last = memref.load %s[] : memref<f32>          (before the block's terminator)
    memref.store %last, %p[] : memref<f32>

The element must be private to the block's thread and reachable only through `%p`: the
pointer is used by loads and stores only (no atomic), in its block or in `taichi.if`s in
it (not in a loop, whose iterations may run in parallel), its first use is a load of the
block itself, the block has no `break`/`continue` that could skip the final store, and
every other access of the field has an index that is a different constant from %p's in
some dimension. Writing back a value that did not change is harmless in a
race-free kernel (Taichi's rule: no two threads write one element).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from taichi_xdsl.dialects import taichi

_ACCESSES = (memref.LoadOp, memref.StoreOp, taichi.AtomicOp)


def _field_of(ptr: taichi.ElementPtrOp) -> str | None:
    base = ptr.base.owner
    return base.field.root_reference.data if isinstance(base, taichi.GetFieldOp) else None


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _distinct(a: taichi.ElementPtrOp, b: taichi.ElementPtrOp) -> bool:
    """Whether the two pointers surely address different elements."""
    for x, y in zip(a.indices, b.indices):
        cx, cy = _constant(x), _constant(y)
        if cx is not None and cy is not None and cx != cy:
            return True
    return False


def _in_block(op: Operation, block: Block) -> Operation | None:
    """The op of `block` holding `op` through `taichi.if`s only, else None."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        if parent is None or not isinstance(parent, taichi.IfOp):
            return None
        op = parent
    return op


def _localizable(ptr: taichi.ElementPtrOp, accessed: list[taichi.ElementPtrOp]) -> bool:
    block = ptr.parent_block()
    if block is None or not isinstance(ptr.result.type, MemRefType):
        return False
    uses = [u.operation for u in ptr.result.uses]
    if not uses or not any(isinstance(u, memref.StoreOp) for u in uses):
        return False
    for use in uses:
        if not isinstance(use, memref.LoadOp | memref.StoreOp):
            return False  # an atomic
        if _in_block(use, block) is None:
            return False  # in a loop of the block
        if isinstance(use, memref.StoreOp) and use.memref is not ptr.result:
            return False  # the pointer itself is stored somewhere
    order = {op: n for n, op in enumerate(block.ops)}
    first = min(uses, key=lambda u: order[_in_block(u, block)])  # type: ignore[index]
    if not isinstance(first, memref.LoadOp) or first.parent_block() is not block:
        return False
    terminator = block.last_op
    for op in block.ops:
        for inner in op.walk():
            if isinstance(inner, taichi.BreakOp | taichi.ContinueOp | taichi.ReturnOp) and (
                inner is not terminator
            ):
                return False
    return all(other is ptr or _distinct(ptr, other) for other in accessed)


def localize(ptr: taichi.ElementPtrOp) -> None:
    """Rewrite the accesses through `ptr` to a local (see the module docstring)."""
    block = ptr.parent_block()
    assert block is not None and block.last_op is not None
    order = {op: n for n, op in enumerate(block.ops)}
    uses = sorted(
        (u.operation for u in ptr.result.uses),
        key=lambda u: order[_in_block(u, block)],  # type: ignore[index]
    )
    first = uses[0]
    assert isinstance(first, memref.LoadOp)
    slot = memref.AllocaOp.get(first.res.type, shape=[])
    init = memref.StoreOp.get(first.res, slot.memref, [])
    Rewriter.insert_op([slot, init], InsertPoint.after(first))
    for use in uses[1:]:
        if isinstance(use, memref.LoadOp):
            new = memref.LoadOp.get(slot.memref, [])
            new.location = use.location  # pyright: ignore
            Rewriter.replace_op(use, new)
        else:
            assert isinstance(use, memref.StoreOp)
            new = memref.StoreOp.get(use.value, slot.memref, [])
            new.location = use.location  # pyright: ignore
            Rewriter.replace_op(use, new)
    last = memref.LoadOp.get(slot.memref, [])
    back = memref.StoreOp.get(last.res, ptr.result, [])
    for op in (slot, init, last, back):
        op.location = first.location  # pyright: ignore
    Rewriter.insert_op([last, back], InsertPoint.before(block.last_op))


class LocalizeElementsPass(ModulePass):
    """Keep an element a block reads, writes and reads again in a local of the block."""

    name = "ti-localize-elements"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, taichi.KernelOp)]:
            accessed: dict[str, list[taichi.ElementPtrOp]] = {}
            for inner in kernel.walk():
                if isinstance(inner, _ACCESSES):
                    atomic = isinstance(inner, taichi.AtomicOp)
                    owner = (inner.dest if atomic else inner.memref).owner
                    if isinstance(owner, taichi.ElementPtrOp) and (sym := _field_of(owner)):
                        if owner not in accessed.setdefault(sym, []):
                            accessed[sym].append(owner)
            for sym, ptrs in accessed.items():
                for ptr in ptrs:
                    if _localizable(ptr, ptrs):
                        localize(ptr)
