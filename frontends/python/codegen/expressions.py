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



# -- expressions -----------------------------------------------------------------

def lower_constant(cg: KernelCodegen, node: ast.Constant) -> Any:
    if isinstance(node.value, complex | bytes):
        raise cg.error(TaichiSyntaxError, node, "unsupported constant")
    return node.value

def lower_name(cg: KernelCodegen, node: ast.Name) -> Any:
    return cg.rvalue(cg.lookup(node.id))

def lower_tuple(cg: KernelCodegen, node: ast.Tuple) -> tuple[Any, ...]:
    return tuple(cg.eval(e) for e in node.elts)

def lower_list(cg: KernelCodegen, node: ast.List) -> list[Any]:
    return [cg.eval(e) for e in node.elts]

def lower_attribute(cg: KernelCodegen, node: ast.Attribute) -> Any:
    if isinstance(node.value, ast.Name):
        binding = cg.lookup(node.value.id)
        if isinstance(binding, StructPlace):  # by reference: methods may assign
            return cg.struct_attr(binding, node.attr, node)
    base = cg.eval(node.value)
    if isinstance(base, Container):
        if node.attr == "shape":
            return base.shape(cg)
        if node.attr == "dtype":
            return base.dtype
        if node.attr == "ndim":
            return base.ndim
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"a field/ndarray has no attribute '{node.attr}' in a kernel",
        )
    if isinstance(base, Value):
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"a {base.dtype} value has no attribute '{node.attr}'",
        )
    if isinstance(base, Vec):
        return cg.vec_attr(base, node.attr, node)
    if isinstance(base, StructVal | StructPlace):
        return cg.struct_attr(base, node.attr, node)
    return cg.rvalue(getattr(base, node.attr))

def lower_subscript(cg: KernelCodegen, node: ast.Subscript) -> Any:
    base = cg.eval(node.value)
    index = cg.eval(node.slice)
    if isinstance(base, Container):
        place = cg.element(base, index, node)
        return cg.rvalue(place)
    if isinstance(base, Vec):
        return cg.vec_getitem(base, index, node)
    if isinstance(base, StructField):
        return cg.struct_element(base, index, node)
    if isinstance(index, Value):
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"cannot index {describe(base)} with a Taichi value",
        )
    if isinstance(base, Value):
        raise cg.error(
            TaichiSyntaxError, node, f"a {base.dtype} value cannot be indexed"
        )
    return cg.rvalue(base[index])

def binop_name(cg: KernelCodegen, op: ast.operator, node: ast.AST) -> str:
    name = BINOPS.get(type(op))
    if name is None:
        what = UNSUPPORTED_NAMES.get(type(op).__name__, type(op).__name__)
        raise cg.error(TaichiSyntaxError, node, f"unsupported operator '{what}'")
    return name

def binop(cg: KernelCodegen, op: str, a: Any, b: Any, node: ast.AST) -> Any:
    if isinstance(a, Vec) or isinstance(b, Vec):
        return cg.vec_binop(op, a, b, node)
    if is_python(a) and is_python(b):
        return PY_BINOPS[op](a, b)
    for x in (a, b):
        if not is_scalar(x):
            raise cg.error(
                TaichiTypeError, node, f"unsupported operand {describe(x)} for '{op}'"
            )
    return cg.em.binary(op, a, b)

def lower_bin_op(cg: KernelCodegen, node: ast.BinOp) -> Any:
    if isinstance(node.op, ast.MatMult):
        a, b = cg.eval(node.left), cg.eval(node.right)
        if is_python(a) and is_python(b):
            return a @ b
        return cg.matmul(a, b, node)
    op = binop_name(cg, node.op, node)
    return binop(cg, op, cg.eval(node.left), cg.eval(node.right), node)

def lower_unary_op(cg: KernelCodegen, node: ast.UnaryOp) -> Any:
    x = cg.eval(node.operand)
    if isinstance(x, Vec):
        if isinstance(node.op, ast.UAdd):
            return x
        if isinstance(node.op, ast.USub):
            return Vec(x.shape, [cg.unary_neg(e) for e in x.elems])
        if isinstance(node.op, ast.Not):
            return Vec(
                x.shape, [cg.em.logical_not(cg.em.value(e)) for e in x.elems]
            )
        return Vec(x.shape, [cg.em.invert(cg.em.value(e)) for e in x.elems])
    if is_python(x):
        return {
            ast.USub: operator.neg,
            ast.UAdd: operator.pos,
            ast.Not: operator.not_,
            ast.Invert: operator.invert,
        }[type(node.op)](x)
    if not isinstance(x, Value):
        raise cg.error(TaichiTypeError, node, f"unsupported operand {describe(x)}")
    if isinstance(node.op, ast.USub):
        return cg.em.neg(x)
    if isinstance(node.op, ast.UAdd):
        return x
    if isinstance(node.op, ast.Not):
        return cg.em.logical_not(x)
    return cg.em.invert(x)

def compare(cg: KernelCodegen, op: str, a: Any, b: Any, node: ast.AST) -> Any:
    if (isinstance(a, Vec) or isinstance(b, Vec)) and op in CMP_NAMES:
        return cg.vec_compare(op, a, b, node)
    if is_python(a) and is_python(b):
        return PY_CMPOPS[op](a, b)
    if op not in CMP_NAMES or not is_scalar(a) or not is_scalar(b):
        raise cg.error(
            TaichiTypeError,
            node,
            f"cannot compare {describe(a)} and {describe(b)} with '{op}'",
        )
    return cg.em.compare(op, a, b)

def lower_compare(cg: KernelCodegen, node: ast.Compare) -> Any:
    left = cg.eval(node.left)
    if len(node.ops) == 1:  # (element-wise for vectors)
        return compare(cg, 
            cmp_name(node.ops[0]), left, cg.eval(node.comparators[0]), node
        )
    result: Any = True
    for op_node, right_node in zip(node.ops, node.comparators):
        right = cg.eval(right_node)
        c = compare(cg, cmp_name(op_node), left, right, node)
        result = logical(cg, "and", result, c)
        if result is False:
            return False  # Python's chained comparison stops here
        left = right
    return result

def logical(cg: KernelCodegen, op: str, a: Any, b: Any) -> Any:
    """`a and b` / `a or b` on already evaluated operands (u1 for IR values)."""
    if is_python(a) and is_python(b):
        return (a and b) if op == "and" else (a or b)
    if is_python(a):
        a, b = b, a
    if is_python(b):
        if op == "and":
            return cg.em.to_bool(a) if b else False
        return True if b else cg.em.to_bool(a)
    return cg.em.logical(op, a, b)

def lower_bool_op(cg: KernelCodegen, node: ast.BoolOp) -> Any:
    op = "and" if isinstance(node.op, ast.And) else "or"
    result = cg.eval(node.values[0])
    for value_node in node.values[1:]:
        if is_python(result):
            if (op == "and") != bool(result):
                return result  # Python short-circuit at compile time
            result = cg.eval(value_node)
            continue
        if not is_scalar(result):
            raise cg.error(TaichiTypeError, node, f"'{op}' on {describe(result)}")
        if is_pure(value_node):
            result = logical(cg, op, result, cg.eval(value_node))
        else:
            result = short_circuit(cg, op, result, value_node)
    return result

def short_circuit(cg: KernelCodegen, op: str, lhs: Value, rhs_node: ast.expr) -> Value:
    """Evaluate `rhs_node` only when `lhs` does not decide `lhs op rhs`."""
    em = cg.em
    first = em.to_bool(lhs)
    slot = em.alloca(dtypes.u1)
    em.store(slot, first)
    then = Block()
    with cg.body(then):
        rhs = cg.eval(rhs_node)
        if not is_scalar(rhs):
            raise cg.error(TaichiTypeError, rhs_node, f"'{op}' on {describe(rhs)}")
        em.store(
            slot,
            em.to_bool(rhs)
            if isinstance(rhs, Value)
            else em.const(bool(rhs), dtypes.u1),
        )
        cg.close(then)
    go = first if op == "and" else em.logical_not(first)
    em.emit(taichi.IfOp(go.ssa, then))
    return em.load(slot, dtypes.u1)

def lower_if_exp(cg: KernelCodegen, node: ast.IfExp) -> Any:
    cond = cg.condition(node.test)
    if not isinstance(cond, Value):
        return cg.eval(node.body if cond else node.orelse)
    if is_pure(node.body) and is_pure(node.orelse):
        a, b = cg.eval(node.body), cg.eval(node.orelse)
        if not is_scalar(a) or not is_scalar(b):
            raise cg.error(TaichiTypeError, node, "'a if c else b' needs scalars")
        return cg.em.select(cond, a, b)
    return _if_exp_branches(cg, node, cond)

def _if_exp_branches(cg: KernelCodegen, node: ast.IfExp, cond: Value) -> Value:
    em = cg.em
    blocks, values = [Block(), Block()], []
    for block, branch in zip(blocks, (node.body, node.orelse)):
        with cg.body(block):
            v = cg.eval(branch)
            if not is_scalar(v):
                raise cg.error(
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
        with cg.body(block, new_scope=False):
            em.store(slot, em.value(v, dt))
            cg.close(block)
    em.emit(taichi.IfOp(cond.ssa, blocks[0], blocks[1]))
    return em.load(slot, dt)

def lower_joined_str(cg: KernelCodegen, node: ast.JoinedStr) -> Any:
    parts = [
        cg.eval(v.value) if isinstance(v, ast.FormattedValue) else v.value
        for v in node.values
    ]  # type: ignore[attr-defined]
    if any(not is_python(p) for p in parts):
        raise cg.error(
            TaichiSyntaxError,
            node,
            "an f-string with Taichi values works only inside print()",
        )
    return "".join(str(p) for p in parts)
