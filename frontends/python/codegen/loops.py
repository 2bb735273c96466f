"""
Loops in kernels: `range`, `ti.ndrange` (flattened into one taichi.range_for), struct-for
over fields and ndarrays, `ti.static` unrolling, `while`, `break` and `continue`.

    for i, j in ti.ndrange((1, n - 1), (1, n - 1)):   taichi.range_for %t = %c0 to %N {
                                                          %j = (%t rem 62) + 1
                                                          %i = (%t div 62) + 1
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiSyntaxError, TaichiTypeError
from xdsl.dialects.builtin import UnitAttr
from xdsl.dialects.builtin import i32 as ir_i32
from xdsl.ir import Block, SSAValue

from ..lang import dtypes, ops
from .emitter import Value
from .values import (
    Container,
    LoopInfo,
    assigned_names,
    describe,
    is_scalar,
)

if TYPE_CHECKING:
    from .visitor import KernelCodegen

    _Base = KernelCodegen
else:
    _Base = object


class LoopsMixin(_Base):
    """The loop statements of KernelCodegen."""

    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error(TaichiSyntaxError, node, "unsupported syntax 'while ... else'")
        body = Block()
        with self.body(body), self.loop(LoopInfo("while", False)):
            cond = self.condition(node.test)
            if cond is False:
                return  # `while False:` never runs
            if isinstance(cond, Value):
                stop = self.em.logical_not(cond)
                self.em.emit(taichi.IfOp(stop.ssa, Block([taichi.BreakOp()])))
            self.visit_stmts(node.body)
            self.close(body)
        self.em.emit(taichi.WhileOp(body))

    def visit_Break(self, node: ast.Break) -> None:
        loop = self._innermost_loop(node, "break")
        if loop.kind == "struct":
            raise self.error(
                TaichiSyntaxError,
                node,
                "'break' cannot leave a struct-for loop (for i in field)",
            )
        if loop.parallel:
            raise self.error(
                TaichiSyntaxError,
                node,
                "'break' in a parallel loop (the outermost loops of a kernel run in "
                "parallel); put ti.loop_config(serialize=True) before the loop",
            )
        self.em.emit(taichi.BreakOp())
        self.terminated = True

    def visit_Continue(self, node: ast.Continue) -> None:
        self._innermost_loop(node, "continue")
        self.em.emit(taichi.ContinueOp())
        self.terminated = True

    def _innermost_loop(self, node: ast.AST, what: str) -> LoopInfo:
        if len(self.loops) <= self.ctx.loop_base:
            raise self.error(TaichiSyntaxError, node, f"'{what}' outside a loop")
        loop = self.loops[-1]
        if loop.kind == "static":
            raise self.error(
                TaichiSyntaxError, node, f"'{what}' in a ti.static loop is not supported"
            )
        return loop

    # -- loops -----------------------------------------------------------------------

    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(TaichiSyntaxError, node, "unsupported syntax 'for ... else'")
        config, self.pending_loop_config = self.pending_loop_config, None
        serialize = bool(config and config.get("serialize"))
        it = node.iter
        if self.is_call_to(it, ops.static):
            assert isinstance(it, ast.Call)
            items = self.eval(it)
            self.static_for(node, items)
            return
        kind, payload = self.loop_iterable(it)
        if kind == "range":
            self.range_for(node, payload[0], payload[1], serialize)
        elif kind == "ndrange":
            self.ndrange_for(node, payload, serialize)
        elif kind == "struct":
            self.struct_for(node, payload, serialize)
        else:
            self.static_for(node, payload)

    def loop_iterable(self, it: ast.expr) -> tuple[str, Any]:
        """Classify a loop's iterable: range, ndrange, struct (a container) or static."""
        if isinstance(it, ast.Call):
            func = self.eval(it.func)
            if func is builtins.range:
                return self._range_args(it)
            if func is ops.ndrange:
                return "ndrange", self._ndrange_bounds(it)
            if func is ops.grouped:
                if len(it.args) != 1:
                    raise self.error(TaichiSyntaxError, it, "ti.grouped takes one argument")
                self.pending_grouped = True
                kind, payload = self.loop_iterable(it.args[0])
                if kind == "range":
                    payload = [(payload[0], payload[1])]
                    kind = "ndrange"
                return kind, payload
        obj = self.eval(it)
        from ..lang.struct import StructField

        if isinstance(obj, StructField):  # loop over the index space of its members
            obj = self.field_handle(next(iter(obj.fields.values())))
        if isinstance(obj, Container) and obj.element_shape:
            # a Vector/Matrix container: loop over its index space only
            return "ndrange", [(0, s) for s in obj.shape(self)]
        if isinstance(obj, Container):
            return "struct", obj
        from ..lang.texture import TextureHandle

        if isinstance(obj, TextureHandle) and obj.ann.rw:  # its extents, read at run time
            return "ndrange", [(0, s) for s in obj.shape]
        if isinstance(obj, ops.NdRange):
            return "ndrange", obj.bounds()
        if isinstance(obj, range | list | tuple):
            return "static", obj
        raise self.error(
            TaichiSyntaxError,
            it,
            f"cannot loop over {describe(obj)} in a kernel (use range, "
            "ti.ndrange, a field or an ndarray)",
        )

    def _range_args(self, call: ast.Call) -> tuple[str, Any]:
        args = [self.eval(a) for a in call.args]
        if call.keywords or not 1 <= len(args) <= 2:
            raise self.error(
                TaichiSyntaxError,
                call,
                "range() in a kernel loop takes (end) or (begin, end); a step "
                "needs ti.static(range(...))",
            )
        lo, hi = (0, args[0]) if len(args) == 1 else (args[0], args[1])
        return "range", (lo, hi)

    def _ndrange_bounds(self, call: ast.Call) -> list[tuple[Any, Any]]:
        bounds = []
        for arg in call.args:
            value = self.eval(arg)
            if isinstance(value, tuple | list):
                if len(value) != 2:
                    raise self.error(
                        TaichiSyntaxError,
                        arg,
                        "ti.ndrange takes n or (begin, end) per dimension",
                    )
                bounds.append((value[0], value[1]))
            else:
                bounds.append((0, value))
        if not bounds:
            raise self.error(TaichiSyntaxError, call, "ti.ndrange needs a dimension")
        return bounds

    def check_bound(self, value: Any, node: ast.AST) -> None:
        if isinstance(value, float) or (isinstance(value, Value) and value.dtype.is_float):
            raise self.error(TaichiTypeError, node, "loop bounds must be integers")
        if not is_scalar(value):
            raise self.error(
                TaichiTypeError,
                node,
                f"a loop bound must be an integer, got {describe(value)}",
            )

    def loop_bound(self, value: Any, node: ast.AST) -> Value:
        self.check_bound(value, node)
        return self.em.value(value, dtypes.i32)

    def range_for(self, node: ast.For, lo: Any, hi: Any, serialize: bool) -> None:
        lo_v, hi_v = self.loop_bound(lo, node.iter), self.loop_bound(hi, node.iter)
        block = Block(arg_types=[ir_i32])
        info = LoopInfo("range", self.at_top() and not serialize, block)
        with self.body(block), self.loop(info):
            self.bind_targets(node, [Value(block.args[0], dtypes.i32)])
            self.visit_stmts(node.body)
            self.close(block)
        self.em.emit(taichi.RangeForOp(lo_v.ssa, hi_v.ssa, block, serialize=serialize))

    def ndrange_for(
        self, node: ast.For, bounds: list[tuple[Any, Any]], serialize: bool
    ) -> None:
        """`ti.ndrange` flattened into one range_for; indices recovered by div/rem."""
        if len(bounds) == 1 and not isinstance(node.target, ast.Tuple):
            self.range_for(node, bounds[0][0], bounds[0][1], serialize)
            return
        em = self.em
        begins = [
            self.loop_bound(b, node.iter) if isinstance(b, Value) else b for b, _ in bounds
        ]
        extents = []
        for (b, e), begin in zip(bounds, begins):
            if not isinstance(b, Value) and not isinstance(e, Value):
                self.check_bound(b, node.iter)
                self.check_bound(e, node.iter)
                extents.append(max(0, int(e) - int(b)))
            else:
                diff = em.binary("-", self.loop_bound(e, node.iter), begin)
                extents.append(em.binary("max", diff, 0))
        total: Any = 1
        for ext in extents:
            total = (
                ext * total
                if not isinstance(ext, Value) and not isinstance(total, Value)
                else em.binary("*", total, ext)
            )
        block = Block(arg_types=[ir_i32])
        info = LoopInfo("range", self.at_top() and not serialize, block)
        with self.body(block), self.loop(info):
            indices = self._unflatten(Value(block.args[0], dtypes.i32), begins, extents)
            self.bind_targets(node, indices)
            self.visit_stmts(node.body)
            self.close(block)
        lo_v, hi_v = em.const(0, dtypes.i32), self.loop_bound(total, node.iter)
        em.emit(taichi.RangeForOp(lo_v.ssa, hi_v.ssa, block, serialize=serialize))

    def _unflatten(self, flat: Value, begins: list[Any], extents: list[Any]) -> list[Value]:
        em = self.em
        indices: list[Value] = [flat] * len(extents)
        rest = flat
        for k in range(len(extents) - 1, 0, -1):
            ext = em.value(extents[k], dtypes.i32)
            rem = em.irem(rest, ext)
            indices[k] = self._offset(rem, begins[k])
            rest = em.idiv(rest, ext)
        indices[0] = self._offset(rest, begins[0])
        return indices

    def _offset(self, v: Value, begin: Any) -> Value:
        if not isinstance(begin, Value) and int(begin) == 0:
            return v
        return self.em.binary("+", v, begin)

    def struct_for(self, node: ast.For, container: Container, serialize: bool) -> None:
        block = Block(arg_types=[ir_i32] * container.ndim)
        info = LoopInfo("struct", self.at_top() and not serialize, block)
        with self.body(block), self.loop(info):
            self.bind_targets(node, [Value(a, dtypes.i32) for a in block.args])
            self.visit_stmts(node.body)
            self.close(block)
        op = taichi.StructForOp(container.ssa, block)
        if serialize:
            op.properties["serialize"] = UnitAttr()
        self.em.emit(op)

    def static_for(self, node: ast.For, items: Any) -> None:
        """`for x in ti.static(...)`: the body once per item, x a Python value."""
        try:
            iterator = iter(items)
        except TypeError:
            raise self.error(
                TaichiSyntaxError,
                node.iter,
                f"ti.static loop over {describe(items)}: not iterable",
            ) from None
        with self.loop(LoopInfo("static", False)):
            for item in iterator:
                with self.scope():
                    self.assign(node.target, item, static=True)
                    self.visit_stmts(node.body)
                if self.terminated:
                    break

    def bind_targets(self, node: ast.For, indices: list[Value]) -> None:
        """Bind loop variables; a variable the body assigns to gets a slot."""
        target = node.target
        names: list[ast.expr] = (
            list(target.elts) if isinstance(target, ast.Tuple) else [target]
        )
        if not all(isinstance(n, ast.Name) for n in names):
            raise self.error(TaichiSyntaxError, target, "loop variables must be names")
        assigned = assigned_names(node.body)
        grouped, self.pending_grouped = self.pending_grouped, False
        if len(names) == 1 and (len(indices) != 1 or grouped):
            from .vectors import Vec

            name = names[0].id  # type: ignore[attr-defined]
            # ti.grouped: one index vector
            self.ctx.scopes[-1][name] = Vec((len(indices),), list(indices))
            return
        if len(names) != len(indices):
            raise self.error(
                TaichiSyntaxError,
                target,
                f"the loop has {len(indices)} index(es) but {len(names)} loop variable(s)",
            )
        for name_node, index in zip(names, indices):
            name = name_node.id  # type: ignore[attr-defined]
            if isinstance(index.ssa, SSAValue) and index.ssa.name_hint is None:
                index.ssa.name_hint = name
            self.ctx.scopes[-1][name] = (
                self.new_local(name, index) if name in assigned else index
            )
