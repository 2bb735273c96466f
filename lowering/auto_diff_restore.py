"""
ti-auto-diff{restore_overwritten=true}: the adjoint of a kernel that overwrites a field
it read, when the caller (ti.ad.Tape) puts the field's values from before the launch back
while the adjoint runs.

The adjoint replays the primal's loads after the primal ran. A load that the reverse
sweep needs, of a field the kernel writes at or after that load's statement, would read
the written value (Taichi's global data access rule). Taichi reads it anyway (a wrong
gradient in general); without the option ti-auto-diff refuses the kernel. With it, the
adjoint kernel names each such field and the part of it the kernel writes:

    taichi.kernel @clamp(%t: i32) {
      %x = taichi.get_field @x : memref<4x8xf32>
      taichi.range_for %i = %lo to %hi : i32 {
        %p = taichi.element_ptr %x[%t, %i] : memref<4x8xf32> -> memref<f32>
        %v = memref.load %p[] : memref<f32>
        %c = arith.cmpf olt, %v, %zero : f32
        taichi.if %c {
          memref.store %zero, %p[] : memref<f32>
        }
      }
    }
    ~> taichi.kernel @clamp_grad(%t: i32) attributes {adjoint_of = @clamp,
         restore = [{box = ["%t", "*"], field = @x}]} { ... }

`box` says, per dimension of the field's memref, which indices the kernel writes: "*"
(any), "7" (a constant), "%t" / "%t+1" / "%t-1" (a scalar argument, plus a constant).
Launching the adjoint with those elements as they were before the primal ran gives each
replayed load the value the primal's load read, provided no write of the field comes
before the load in the kernel (in program order, or in an earlier iteration of a serial
loop around both); a needed load after such a write is refused: no single state of
the field serves both it and the loads before the write.
"""

from __future__ import annotations

from collections.abc import Callable

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import BlockArgument, Operation, SSAValue

RESTORE_ATTR = "restore"
"""On an adjoint kernel: the fields to hold their values from before the primal's launch
while it runs, each `{field = @x, box = [...]}`."""

WHOLE = "*"
"""A box dimension along which the kernel may write any index."""


def _loops(op: Operation) -> list[Operation]:
    out: list[Operation] = []
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, taichi.KernelOp):
        if isinstance(parent, taichi.RangeForOp | taichi.StructForOp | taichi.WhileOp):
            out.append(parent)
        parent = parent.parent_op()
    return out


def _index(value: SSAValue, kernel: taichi.KernelOp) -> str:
    """A box dimension's text for an index value: a constant, an argument (+ a
    constant), else WHOLE."""
    args = kernel.body.block.args

    def arg(v: SSAValue) -> str | None:
        if isinstance(v, BlockArgument) and v in args and v.name_hint:
            return f"%{v.name_hint}"
        return None

    def const(v: SSAValue) -> int | None:
        owner = v.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return owner.value.value.data
        return None

    if (c := const(value)) is not None:
        return str(c)
    if (a := arg(value)) is not None:
        return a
    owner = value.owner
    if isinstance(owner, arith.AddiOp | arith.SubiOp):
        a, c = arg(owner.lhs), const(owner.rhs)
        if isinstance(owner, arith.AddiOp) and (a is None or c is None):
            a, c = arg(owner.rhs), const(owner.lhs)
        if a is not None and c is not None:
            offset = c if isinstance(owner, arith.AddiOp) else -c
            return f"{a}{offset:+d}" if offset else a
    return WHOLE


def _writes(kernel: taichi.KernelOp, symbol: str) -> list[Operation]:
    out: list[Operation] = []
    for op in kernel.walk():
        if isinstance(op, memref.StoreOp | taichi.AtomicOp):
            dest = op.memref if isinstance(op, memref.StoreOp) else op.dest
            owner = dest.owner
            if (
                isinstance(owner, taichi.ElementPtrOp)
                and isinstance(owner.base.owner, taichi.GetFieldOp)
                and owner.base.owner.field.root_reference.data == symbol
            ):
                out.append(op)
    return out


def _box(kernel: taichi.KernelOp, writes: list[Operation]) -> list[str]:
    """Per dimension, the one index every write uses, else WHOLE."""
    dims: list[set[str]] | None = None
    for op in writes:
        dest = op.memref if isinstance(op, memref.StoreOp) else op.dest  # pyright: ignore
        ptr = dest.owner
        assert isinstance(ptr, taichi.ElementPtrOp)
        texts = [_index(v, kernel) for v in ptr.indices]
        if dims is None:
            dims = [set() for _ in texts]
        for seen, text in zip(dims, texts):
            seen.add(text)
    assert dims is not None
    return [next(iter(s)) if len(s) == 1 else WHOLE for s in dims]


def plan_restores(
    kernel: taichi.KernelOp,
    needed: dict[str, list[memref.LoadOp]],
    serial: Callable[[Operation], bool],
) -> ArrayAttr:
    """
    The `restore` attribute for the fields in `needed` (field -> the loads of it that the
    reverse sweep needs; `serial(loop)`: whether a loop's iterations run one after
    another).

    Raises:
        PassFailedAt: a needed load comes after a write of its field.
    """
    order = {op: n for n, op in enumerate(kernel.walk())}
    entries: list[DictionaryAttr] = []
    for symbol, loads in needed.items():
        writes = _writes(kernel, symbol)
        for load in loads:
            for write in writes:
                carried = any(
                    serial(loop) and loop.is_ancestor(write) for loop in _loops(load)
                )
                if order[write] < order[load] or carried:
                    raise PassFailedAt(
                        load,
                        f"ti-auto-diff: the adjoint needs this load of @{symbol}, which "
                        "reads what the kernel wrote to it: neither the values before "
                        "the launch nor after it are what it read (global data access "
                        "rule)",
                    )
        entries.append(
            DictionaryAttr(
                {
                    "field": SymbolRefAttr(symbol),
                    "box": ArrayAttr([StringAttr(t) for t in _box(kernel, writes)]),
                }
            )
        )
    return ArrayAttr(entries)
