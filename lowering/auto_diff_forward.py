"""
Forward mode of ti-auto-diff (`-p 'ti-auto-diff{mode=forward}'`): for each kernel `@k`
add `@k_fwd`, the primal with the tangent of every float value computed next to it.
A field's tangent is the field its `taichi.field` names with `dual = @sym`; fields
without one have a zero tangent. Run with the primal's arguments, `@k_fwd` does what
`@k` does and also writes d(outputs)/d(inputs) . dual(inputs) into the outputs' duals
(Taichi's `ti.ad.FwdMode`).

    taichi.field @x : memref<4xf32> offset 0 {dual = @x_dual}
    taichi.field @x_dual : memref<4xf32> offset 64
    taichi.field @y : memref<4xf32> offset 128 {dual = @y_dual}
    taichi.field @y_dual : memref<4xf32> offset 192
    taichi.kernel @square() {
      ...
      %v = memref.load %px[] : memref<f32>
      %sq = arith.mulf %v, %v : f32
      memref.store %sq, %py[] : memref<f32>
    }
    ~> (added)
    taichi.kernel @square_fwd() {
      ...
      %v = memref.load %px[] : memref<f32>
      %dpx = taichi.element_ptr %x_dual[%i] ; %dv = memref.load %dpx[]
      %sq = arith.mulf %v, %v : f32
      %d0 = arith.mulf %dv, %v ; %d1 = arith.mulf %dv, %v ; %dsq = arith.addf %d0, %d1
      memref.store %sq, %py[] : memref<f32>
      %dpy = taichi.element_ptr %y_dual[%i] ; memref.store %dsq, %dpy[]
    }

Unlike the reverse mode nothing is replayed or reversed: ops keep their order, so
branches, loops of any kind (while loops too), break and continue need nothing of
their own. A float local (`memref.alloca`) gets a twin slot holding its tangent. The
tangent of an op is the sum over its operands of the reverse-mode rule applied to the
operand's tangent (every rule is linear in the adjoint it scales).
"""

from __future__ import annotations

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    FunctionType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.hints import isa

TANGENT_OF_ATTR = "tangent_of"
"""Marks a forward-mode kernel with the symbol of its primal."""


def _is_slot(value: SSAValue) -> bool:
    return isinstance(value.owner, memref.AllocaOp)


class _Tangents:
    """Builds the tangents of one kernel (a copy of the primal), op by op in place."""

    def __init__(
        self, kernel: taichi.KernelOp, duals: dict[str, str], types: dict[str, MemRefType]
    ):
        self.kernel = kernel
        self.duals = duals
        self.types = types
        self.tangent: dict[SSAValue, SSAValue] = {}
        self.twin: dict[SSAValue, SSAValue] = {}
        self.dual_fields: dict[str, SSAValue] = {}
        self.cursor: Operation = kernel

    # -- emission (the interface of the reverse-mode rules) ---------------------------

    def emit(self, op: Operation) -> SSAValue:
        """Insert `op` after the cursor and move the cursor to it."""
        Rewriter.insert_op(op, InsertPoint.after(self.cursor))
        op.location = self.cursor.location
        self.cursor = op
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: float, type_: Attribute) -> SSAValue:
        assert isinstance(type_, AnyFloat)
        return self.emit(arith.ConstantOp(FloatAttr(value, type_)))

    def dual_ptr(self, ptr: SSAValue) -> SSAValue | None:
        """The element of the dual field that `ptr` (an element of a field) mirrors."""
        owner = ptr.owner
        if not isinstance(owner, taichi.ElementPtrOp) or not isinstance(
            owner.base.owner, taichi.GetFieldOp
        ):
            return None
        sym = self.duals.get(owner.base.owner.field.root_reference.data)
        if sym is None:
            return None
        base = self.dual_fields.get(sym)
        if base is None:
            get = taichi.GetFieldOp(sym, self.types[sym])
            get.result.name_hint = sym
            Rewriter.insert_op(get, InsertPoint.at_start(self.kernel.body.block))
            base = self.dual_fields[sym] = get.result
        return self.emit(taichi.ElementPtrOp(base, list(owner.indices)))

    def tangent_or_zero(self, value: SSAValue) -> SSAValue:
        t = self.tangent.get(value)
        return t if t is not None else self.const(0.0, value.type)

    # -- one op -----------------------------------------------------------------------

    def visit(self, op: Operation) -> None:
        self.cursor = op
        if isinstance(op, memref.AllocaOp):
            return self.visit_alloca(op)
        if isinstance(op, memref.LoadOp):
            return self.visit_load(op)
        if isinstance(op, memref.StoreOp):
            return self.visit_store(op)
        if isinstance(op, taichi.AtomicOp):
            return self.visit_atomic(op)
        tangents = [self.tangent.get(v) for v in op.operands]
        if all(t is None for t in tangents):
            return  # constant with respect to the duals
        results = [r for r in op.results if isinstance(r.type, AnyFloat)]
        if not results:
            return  # an int or bool result (a comparison, a cast to int): no tangent
        if isinstance(op, arith.ExtFOp | arith.TruncFOp):  # the tangent takes the cast
            self.tangent[op.results[0]] = self.emit(type(op)(tangents[0], op.result.type))
            return
        from taichi_xdsl.lowering.auto_diff import _RULES  # noqa: PLC0415 (cycle)

        rule = _RULES.get(type(op))
        if rule is None or len(op.results) != 1:
            raise PassFailedAt(
                op, f"ti-auto-diff: cannot differentiate '{op.name}' in forward mode"
            )
        total: SSAValue | None = None
        for index, t in enumerate(tangents):
            if t is None:
                continue
            operands, result = list(op.operands), op.results[0]
            for which, delta in rule(self, t, operands, result):  # type: ignore[arg-type]
                if which != index or delta is None:
                    continue
                total = delta if total is None else self.emit(arith.AddfOp(total, delta))
        if total is not None:
            self.tangent[op.results[0]] = total

    def visit_alloca(self, op: memref.AllocaOp) -> None:
        assert isa(op.memref.type, MemRefType)
        element = op.memref.type.element_type
        if not isinstance(element, AnyFloat):
            return
        if op.memref.type.get_shape():  # its loads would get no tangent: never silently
            raise PassFailedAt(
                op, "ti-auto-diff: a local float array has no forward-mode tangent yet"
            )
        twin = self.emit(memref.AllocaOp.get(element, shape=[]))
        self.emit(memref.StoreOp.get(self.const(0.0, element), twin, []))
        self.twin[op.memref] = twin

    def visit_load(self, op: memref.LoadOp) -> None:
        if not isinstance(op.res.type, AnyFloat):
            return
        twin = self.twin.get(op.memref)
        source = twin if twin is not None else self.dual_ptr(op.memref)
        if source is not None:
            self.tangent[op.res] = self.emit(memref.LoadOp.get(source, []))

    def visit_store(self, op: memref.StoreOp) -> None:
        if not isinstance(op.value.type, AnyFloat):
            return
        twin = self.twin.get(op.memref)
        dest = twin if twin is not None else self.dual_ptr(op.memref)
        if dest is not None:
            self.emit(memref.StoreOp.get(self.tangent_or_zero(op.value), dest, []))

    def visit_atomic(self, op: taichi.AtomicOp) -> None:
        if not isinstance(op.value.type, AnyFloat):
            return
        twin = self.twin.get(op.dest)
        dest = twin if twin is not None else self.dual_ptr(op.dest)
        if dest is None:
            return
        if not isinstance(op, taichi.AtomicAddOp | taichi.AtomicSubOp):
            raise PassFailedAt(
                op,
                f"ti-auto-diff: cannot differentiate '{op.name}' in forward mode "
                "(only atomic add/sub)",
            )
        if op.old.uses:
            self.tangent[op.old] = self.emit(memref.LoadOp.get(dest, []))
        t = self.tangent.get(op.value)
        if t is not None:
            self.emit(type(op)(dest, t))

    def build(self, name: str) -> taichi.KernelOp:
        for op in list(self.kernel.walk()):
            if op is not self.kernel:
                self.visit(op)
        self.kernel.sym_name = StringAttr(name)
        return self.kernel


def add_tangent_kernel(
    kernel: taichi.KernelOp, duals: dict[str, str], types: dict[str, MemRefType]
) -> None:
    """
    Add `@k_fwd` right after the primal `taichi.kernel @k` (see the module docstring).

    Raises:
        PassFailedAt: an op without a forward-mode rule on a value with a tangent.
    """
    copy = kernel.clone()
    copy.attributes[TANGENT_OF_ATTR] = SymbolRefAttr(kernel.sym_name.data)
    fwd = _Tangents(copy, duals, types).build(f"{kernel.sym_name.data}_fwd")
    assert isinstance(fwd.function_type, FunctionType)
    Rewriter.insert_op(fwd, InsertPoint.after(kernel))
