"""
Expressions in kernels: names, constants, attributes, subscripts, operators,
comparisons, `and`/`or`/`not` and `a if c else b`. Operations on Python values fold at
compile time; operations on IR values go through the Emitter's typed ops.
"""

from __future__ import annotations

import ast
import operator
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiSyntaxError, TaichiTypeError
from xdsl.ir import Block

from ..lang import dtypes
from .emitter import Value
from ..lang.struct import StructField, StructPlace, StructVal
from .values import (
    BINOPS,
    CMP_NAMES,
    PY_BINOPS,
    PY_CMPOPS,
    UNSUPPORTED_NAMES,
    Container,
    cmp_name,
    describe,
    is_pure,
    is_python,
    is_scalar,
)
from .vectors import Vec

if TYPE_CHECKING:
    from .visitor import KernelCodegen

    _Base = KernelCodegen
else:
    _Base = object


class ExpressionsMixin(_Base):
    """The expression visitors of KernelCodegen."""

    # -- expressions -----------------------------------------------------------------

    def visit_Constant(self, node: ast.Constant) -> Any:
        if isinstance(node.value, complex | bytes):
            raise self.error(TaichiSyntaxError, node, "unsupported constant")
        return node.value

    def visit_Name(self, node: ast.Name) -> Any:
        return self.rvalue(self.lookup(node.id))

    def visit_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.eval(e) for e in node.elts)

    def visit_List(self, node: ast.List) -> list[Any]:
        return [self.eval(e) for e in node.elts]

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name):
            binding = self.lookup(node.value.id)
            if isinstance(binding, StructPlace):  # by reference: methods may assign
                return self.struct_attr(binding, node.attr, node)
        base = self.eval(node.value)
        if isinstance(base, Container):
            if node.attr == "shape":
                return base.shape(self)
            if node.attr == "dtype":
                return base.dtype
            if node.attr == "ndim":
                return base.ndim
            raise self.error(
                TaichiSyntaxError,
                node,
                f"a field/ndarray has no attribute '{node.attr}' in a kernel",
            )
        if isinstance(base, Value):
            raise self.error(
                TaichiSyntaxError,
                node,
                f"a {base.dtype} value has no attribute '{node.attr}'",
            )
        if isinstance(base, Vec):
            return self.vec_attr(base, node.attr, node)
        if isinstance(base, StructVal | StructPlace):
            return self.struct_attr(base, node.attr, node)
        return self.rvalue(getattr(base, node.attr))

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        base = self.eval(node.value)
        index = self.eval(node.slice)
        if isinstance(base, Container):
            place = self.element(base, index, node)
            return self.rvalue(place)
        if isinstance(base, Vec):
            return self.vec_getitem(base, index, node)
        if isinstance(base, StructField):
            return self.struct_element(base, index, node)
        if isinstance(index, Value):
            raise self.error(
                TaichiSyntaxError,
                node,
                f"cannot index {describe(base)} with a Taichi value",
            )
        if isinstance(base, Value):
            raise self.error(
                TaichiSyntaxError, node, f"a {base.dtype} value cannot be indexed"
            )
        return self.rvalue(base[index])

    def binop_name(self, op: ast.operator, node: ast.AST) -> str:
        name = BINOPS.get(type(op))
        if name is None:
            what = UNSUPPORTED_NAMES.get(type(op).__name__, type(op).__name__)
            raise self.error(TaichiSyntaxError, node, f"unsupported operator '{what}'")
        return name

    def binop(self, op: str, a: Any, b: Any, node: ast.AST) -> Any:
        if isinstance(a, Vec) or isinstance(b, Vec):
            return self.vec_binop(op, a, b, node)
        if is_python(a) and is_python(b):
            return PY_BINOPS[op](a, b)
        for x in (a, b):
            if not is_scalar(x):
                raise self.error(
                    TaichiTypeError, node, f"unsupported operand {describe(x)} for '{op}'"
                )
        return self.em.binary(op, a, b)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        if isinstance(node.op, ast.MatMult):
            a, b = self.eval(node.left), self.eval(node.right)
            if is_python(a) and is_python(b):
                return a @ b
            return self.matmul(a, b, node)
        op = self.binop_name(node.op, node)
        return self.binop(op, self.eval(node.left), self.eval(node.right), node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        x = self.eval(node.operand)
        if isinstance(x, Vec):
            if isinstance(node.op, ast.UAdd):
                return x
            if isinstance(node.op, ast.USub):
                return Vec(x.shape, [self.unary_neg(e) for e in x.elems])
            if isinstance(node.op, ast.Not):
                return Vec(
                    x.shape, [self.em.logical_not(self.em.value(e)) for e in x.elems]
                )
            return Vec(x.shape, [self.em.invert(self.em.value(e)) for e in x.elems])
        if is_python(x):
            return {
                ast.USub: operator.neg,
                ast.UAdd: operator.pos,
                ast.Not: operator.not_,
                ast.Invert: operator.invert,
            }[type(node.op)](x)
        if not isinstance(x, Value):
            raise self.error(TaichiTypeError, node, f"unsupported operand {describe(x)}")
        if isinstance(node.op, ast.USub):
            return self.em.neg(x)
        if isinstance(node.op, ast.UAdd):
            return x
        if isinstance(node.op, ast.Not):
            return self.em.logical_not(x)
        return self.em.invert(x)

    def compare(self, op: str, a: Any, b: Any, node: ast.AST) -> Any:
        if (isinstance(a, Vec) or isinstance(b, Vec)) and op in CMP_NAMES:
            return self.vec_compare(op, a, b, node)
        if is_python(a) and is_python(b):
            return PY_CMPOPS[op](a, b)
        if op not in CMP_NAMES or not is_scalar(a) or not is_scalar(b):
            raise self.error(
                TaichiTypeError,
                node,
                f"cannot compare {describe(a)} and {describe(b)} with '{op}'",
            )
        return self.em.compare(op, a, b)

    def visit_Compare(self, node: ast.Compare) -> Any:
        left = self.eval(node.left)
        if len(node.ops) == 1:  # (element-wise for vectors)
            return self.compare(
                cmp_name(node.ops[0]), left, self.eval(node.comparators[0]), node
            )
        result: Any = True
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node)
            c = self.compare(cmp_name(op_node), left, right, node)
            result = self.logical("and", result, c)
            if result is False:
                return False  # Python's chained comparison stops here
            left = right
        return result

    def logical(self, op: str, a: Any, b: Any) -> Any:
        """`a and b` / `a or b` on already evaluated operands (u1 for IR values)."""
        if is_python(a) and is_python(b):
            return (a and b) if op == "and" else (a or b)
        if is_python(a):
            a, b = b, a
        if is_python(b):
            if op == "and":
                return self.em.to_bool(a) if b else False
            return True if b else self.em.to_bool(a)
        return self.em.logical(op, a, b)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        op = "and" if isinstance(node.op, ast.And) else "or"
        result = self.eval(node.values[0])
        for value_node in node.values[1:]:
            if is_python(result):
                if (op == "and") != bool(result):
                    return result  # Python short-circuit at compile time
                result = self.eval(value_node)
                continue
            if not is_scalar(result):
                raise self.error(TaichiTypeError, node, f"'{op}' on {describe(result)}")
            if is_pure(value_node):
                result = self.logical(op, result, self.eval(value_node))
            else:
                result = self.short_circuit(op, result, value_node)
        return result

    def short_circuit(self, op: str, lhs: Value, rhs_node: ast.expr) -> Value:
        """Evaluate `rhs_node` only when `lhs` does not decide `lhs op rhs`."""
        em = self.em
        first = em.to_bool(lhs)
        slot = em.alloca(dtypes.u1)
        em.store(slot, first)
        then = Block()
        with self.body(then):
            rhs = self.eval(rhs_node)
            if not is_scalar(rhs):
                raise self.error(TaichiTypeError, rhs_node, f"'{op}' on {describe(rhs)}")
            em.store(
                slot,
                em.to_bool(rhs)
                if isinstance(rhs, Value)
                else em.const(bool(rhs), dtypes.u1),
            )
            self.close(then)
        go = first if op == "and" else em.logical_not(first)
        em.emit(taichi.IfOp(go.ssa, then))
        return em.load(slot, dtypes.u1)

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        cond = self.condition(node.test)
        if not isinstance(cond, Value):
            return self.eval(node.body if cond else node.orelse)
        if is_pure(node.body) and is_pure(node.orelse):
            a, b = self.eval(node.body), self.eval(node.orelse)
            if not is_scalar(a) or not is_scalar(b):
                raise self.error(TaichiTypeError, node, "'a if c else b' needs scalars")
            return self.em.select(cond, a, b)
        return self._if_exp_branches(node, cond)

    def _if_exp_branches(self, node: ast.IfExp, cond: Value) -> Value:
        em = self.em
        blocks, values = [Block(), Block()], []
        for block, branch in zip(blocks, (node.body, node.orelse)):
            with self.body(block):
                v = self.eval(branch)
                if not is_scalar(v):
                    raise self.error(
                        TaichiTypeError, branch, "'a if c else b' needs scalars"
                    )
                values.append(em.value(v) if isinstance(v, Value) else v)
        a, b = values
        dt = dtypes.promote(
            a.dtype if isinstance(a, Value) else em.literal_dtype(a),
            b.dtype if isinstance(b, Value) else em.literal_dtype(b),
        )
        slot = em.alloca(dt)
        for block, v in zip(blocks, values):
            with self.body(block, new_scope=False):
                em.store(slot, em.value(v, dt))
                self.close(block)
        em.emit(taichi.IfOp(cond.ssa, blocks[0], blocks[1]))
        return em.load(slot, dt)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> Any:
        parts = [
            self.eval(v.value) if isinstance(v, ast.FormattedValue) else v.value
            for v in node.values
        ]  # type: ignore[attr-defined]
        if any(not is_python(p) for p in parts):
            raise self.error(
                TaichiSyntaxError,
                node,
                "an f-string with Taichi values works only inside print()",
            )
        return "".join(str(p) for p in parts)
