"""
Expressions in kernels: names, constants, attributes, subscripts, operators,
comparisons, `and`/`or`/`not` and `a if c else b`. Operations on Python values fold at
compile time; operations on IR values go through the Emitter's typed ops.
"""

from __future__ import annotations

import ast
import copy
import operator
from typing import TYPE_CHECKING, Any

import numpy as np
from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import (
    TaichiRuntimeError,
    TaichiSyntaxError,
    TaichiTypeError,
    in_function,
)
from xdsl.ir import Block

from ..lang import dtypes, ops
from ..lang.ndarray import Ndarray
from .emitter import Value
from ..lang.struct import StructField, StructPlace, StructVal
from .values import (
    BINOPS,
    CMP_NAMES,
    PY_BINOPS,
    PY_CMPOPS,
    UNSUPPORTED_NAMES,
    Container,
    FieldHandle,
    cmp_name,
    describe,
    is_pure,
    is_python,
    is_scalar,
)
from .lists import KernelList
from .vectors import KernelMethod, Vec, VecPlace

if TYPE_CHECKING:
    from .visitor import KernelCodegen



# -- expressions -----------------------------------------------------------------

def lower_constant(cg: KernelCodegen, node: ast.Constant) -> Any:
    if isinstance(node.value, complex | bytes):
        raise cg.error(TaichiSyntaxError, node, "unsupported constant")
    return node.value

def lower_name(cg: KernelCodegen, node: ast.Name) -> Any:
    binding = cg.lookup(node.id)
    if isinstance(binding, Ndarray):  # a global ndarray, not a kernel argument
        raise cg.error(
            TaichiTypeError,
            node,
            f"Expected ndarray in the kernel argument for argument {node.id}: an ndarray "
            "reaches a kernel only as an argument (annotated ti.types.ndarray())",
        )
    return cg.rvalue(binding)

def lower_tuple(cg: KernelCodegen, node: ast.Tuple) -> tuple[Any, ...]:
    return tuple(cg.eval(e) for e in node.elts)

def lower_list(cg: KernelCodegen, node: ast.List) -> list[Any]:
    return KernelList(cg, [cg.eval(e) for e in node.elts])

def dict_key(cg: KernelCodegen, node: ast.expr) -> Any:
    """A key of a dict display or comprehension: a compile-time value, or a scalar
    kernel value, which (as a Taichi expression does) is a key of its own, distinct
    from every other evaluation (`{x[j]: ... for j in range(3)}` has three keys)."""
    key = cg.eval(node)
    if is_python(key) or isinstance(key, Value):
        return key
    raise cg.error(
        TaichiSyntaxError,
        node,
        f"a dict key in a kernel must be a compile-time value or a scalar, not {describe(key)}",
    )

def lower_dict(cg: KernelCodegen, node: ast.Dict) -> dict[Any, Any]:
    """`{k: v, **d}` (a Python dict of values; keys as dict_key says)."""
    out: dict[Any, Any] = {}
    for key_node, value_node in zip(node.keys, node.values):
        if key_node is None:  # `**d`
            other = cg.eval(value_node)
            if not isinstance(other, dict):
                raise cg.error(TaichiSyntaxError, value_node, "'**' of a non-dict")
            out.update(other)
            continue
        key = dict_key(cg, key_node)
        out[key] = cg.eval(value_node)
    return out

def _comprehension_items(cg: KernelCodegen, gen: ast.comprehension) -> list[Any]:
    """The items a comprehension's `for` runs over, all known at compile time."""
    if gen.is_async:
        raise cg.error(TaichiSyntaxError, gen.iter, "async comprehension in a kernel")
    it = cg.eval(gen.iter)
    if isinstance(it, Vec):
        if len(it.shape) == 1:
            return list(it.elems)
        return [it.row(i) for i in range(it.shape[0])]
    if isinstance(it, Value) or isinstance(it, Container):
        raise cg.error(
            TaichiSyntaxError,
            gen.iter,
            f"a comprehension in a kernel runs over values known at compile time "
            f"(range of constants, a tuple, a vector), not {describe(it)}",
        )
    try:
        return list(it)
    except TypeError:
        raise cg.error(
            TaichiSyntaxError, gen.iter, f"cannot iterate over {describe(it)}"
        ) from None

def lower_comprehension(cg: KernelCodegen, node: ast.ListComp | ast.DictComp) -> Any:
    """
    `[f(i) for i in range(n) if c]` / `{k: v for ...}`: unrolled at compile time, as
    Taichi does; the loop variables are compile-time values and every condition must
    be known at compile time.
    """
    out: Any = {} if isinstance(node, ast.DictComp) else []

    def run(level: int) -> None:
        if level == len(node.generators):
            if isinstance(node, ast.DictComp):
                key = dict_key(cg, node.key)
                out[key] = cg.eval(node.value)
            else:
                out.append(cg.eval(node.elt))
            return
        gen = node.generators[level]
        for item in _comprehension_items(cg, gen):
            with cg.scope():
                cg.assign(gen.target, item, static=True)
                keep = True
                for cond_node in gen.ifs:
                    cond = cg.eval(cond_node)
                    if not is_python(cond):
                        raise cg.error(
                            TaichiSyntaxError,
                            cond_node,
                            "a comprehension's condition in a kernel must be known at "
                            "compile time",
                        )
                    if not cond:
                        keep = False
                        break
                if keep:
                    run(level + 1)

    run(0)
    return out if isinstance(out, dict) else KernelList(cg, out)  # built: its origin

def lower_attribute(cg: KernelCodegen, node: ast.Attribute) -> Any:
    if isinstance(node.value, ast.Name):
        binding = cg.lookup(node.value.id)
        if isinstance(binding, StructPlace):  # by reference: methods may assign
            return cg.struct_attr(binding, node.attr, node)
    if node.attr == "fill":  # x.fill(v) writes into x: a container or a vector place
        target = cg._place_or_value(node.value)
        if isinstance(target, VecPlace):
            return KernelMethod("fill", lambda args, kw, at: fill_vec(cg, target, args, at))
    base = cg.eval(node.value)
    if isinstance(base, Container):
        if node.attr == "shape":
            return base.shape(cg)
        if node.attr == "dtype":
            return base.dtype
        if node.attr == "ndim":
            return base.ndim
        if node.attr in ("grad", "dual") and isinstance(base, FieldHandle):
            return cg.field_handle(_companion_field(cg, base, node))
        if node.attr in ("grad", "dual"):
            companion = getattr(base, "companions", {}).get(node.attr)
            if companion is not None:  # a kernel parameter's, named in the kernel body
                return companion
            raise cg.error(
                TaichiSyntaxError,
                node,
                f"'.{node.attr}' of an ndarray is supported only on a kernel parameter "
                "named in the kernel's own body: pass the gradient ndarray as an "
                "argument of its own",
            )
        if node.attr in ("append", "length", "deactivate") and isinstance(base, FieldHandle):
            from .sparse import dynamic_list

            ref = dynamic_list(cg, base, [])  # y.append(v) on a 1-d dynamic field
            if ref is not None:
                return getattr(ref, node.attr)
        if node.attr in ("parent", "snode") and isinstance(base, FieldHandle):
            return getattr(base.field, node.attr)  # the layout tree, a Python object
        if node.attr in ("n", "m") and base.element_shape:  # a Vector/Matrix container
            shape = base.element_shape
            return shape[0] if node.attr == "n" else shape[1] if len(shape) == 2 else 1
        if node.attr == "fill":  # x.fill(v) or x.fill(val=v)
            return KernelMethod(
                "fill", lambda args, kwargs, at: fill(cg, base, [*args, *kwargs.values()], at)
            )
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
    if isinstance(base, StructField) and node.attr in ("append", "length", "deactivate"):
        ref = cg.struct_element(base, (), node)  # edges.append(e) on a 1-d dynamic list
        if not isinstance(ref, StructPlace):
            return getattr(ref, node.attr)
    return cg.rvalue(getattr(base, node.attr))

def _companion_field(cg: KernelCodegen, base: FieldHandle, node: ast.Attribute) -> Any:
    """`x.grad` / `x.dual` of a field in a kernel: the placed gradient / dual field."""
    companion = getattr(base.field, node.attr, None)
    if companion is None or not companion.placed:
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"Gradient {base.field.name or base.field.symbol}.{node.attr} has not been "
            f"placed, check whether `needs_{node.attr}=True` (or place(x.{node.attr}), "
            f"ti.root.lazy_{node.attr}())",
        )
    return companion


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
    if isinstance(index, Value) and isinstance(base, np.ndarray):
        raise cg.error(
            TaichiSyntaxError,
            node,
            "a global NumPy array is a constant of the kernel: index it with compile-time "
            "values, or pass it as an argument annotated ti.types.ndarray()",
        )
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
    if not is_scalar(a) or not is_scalar(b):
        raise cg.error(
            TaichiTypeError,
            node,
            f"unsupported operand type(s) for '{op}': {describe(a)} and {describe(b)}",
        )
    if op in ("//", "%") and cg.program.config.debug:
        check_divisor(cg, a, b, node)
    if op == "**":
        check_exponent(cg, a, b, node)
    result = cg.em.binary(op, a, b)
    if op in _OVERFLOW_NAMES and cg.program.config.debug:
        check_overflow(cg, op, a, b, result, node)
    return result

_OVERFLOW_NAMES = {
    "+": "Addition",
    "-": "Subtraction",
    "*": "Multiplication",
    "<<": "Shift left",
}

def check_overflow(
    cg: KernelCodegen, op: str, a: Any, b: Any, r: Value, node: ast.AST
) -> None:
    """
    Debug mode: print Taichi's "<Operation> overflow detected in <where>" when an
    integer `a op b` wrapped around (the result is kept, as Taichi keeps it).

        signed a + b:   (a ^ r) & (b ^ r) < 0      unsigned: r < a
        signed a - b:   (a ^ b) & (a ^ r) < 0      unsigned: a < b
        a * b:          a != 0 and (r / a != b or (a == -1 and b == MIN))
        a << b:         (r >> b) != a
    """
    dt = r.dtype
    if not dt.is_int or dt is dtypes.u1:
        return
    em = cg.em
    if op == "<<":
        a = em.value(a, dt)
        b_v = em.value(b, dt) if not isinstance(b, Value) else em.cast(b, dt)
        back = em.shift(">>", r, b_v)
        wrapped = em.compare("!=", back, a)
    else:
        a, b = em.value(a, dt), em.value(b, dt)
        zero = em.const(0, dt)
        if op == "+" and dt.is_signed:
            x = em.bitwise("&", em.bitwise("^", a, r), em.bitwise("^", b, r))
            wrapped = em.compare("<", x, zero)
        elif op == "+":
            wrapped = em.compare("<", r, a)
        elif op == "-" and dt.is_signed:
            x = em.bitwise("&", em.bitwise("^", a, b), em.bitwise("^", a, r))
            wrapped = em.compare("<", x, zero)
        elif op == "-":
            wrapped = em.compare("<", a, b)
        else:
            nonzero = em.compare("!=", a, zero)
            safe_a = em.select(nonzero, a, em.const(1, dt))
            quotient = (
                em.idiv(r, safe_a) if dt.is_signed else em.floordiv(r, safe_a)
            )
            wrapped = em.logical("and", nonzero, em.compare("!=", quotient, b))
            if dt.is_signed:
                lo = dt.int_range()[0]
                min_case = em.logical(
                    "and",
                    em.compare("==", a, em.const(-1, dt)),
                    em.compare("==", b, em.const(lo, dt)),
                )
                wrapped = em.logical("or", wrapped, min_case)
    where = source_position(cg, node).replace("{", "{{").replace("}", "}}")
    message = f"{_OVERFLOW_NAMES[op]} overflow detected in {where}\n"
    then = Block()
    with cg.body(then):
        em.emit(taichi.PrintOp(message.replace("{{", "(").replace("}}", ")"), []))
        cg.close(then)
    em.emit(taichi.IfOp(wrapped.ssa, then))

def source_position(cg: KernelCodegen, node: ast.AST) -> str:
    """`File "...", line N, in <kernel>:` and the source line, for a runtime message;
    inside a ti.func `in <func> (called from kernel <kernel>)`."""
    src = cg.ctx.src
    name = in_function(getattr(src.tree, "name", cg.kernel_name), cg.kernel_name)
    return (
        f'File "{src.filename}", line {src.file_line(node)}, in {name}:\n'
        f"    {src.source_line(node).strip()}"
    )

def check_divisor(cg: KernelCodegen, a: Any, b: Any, node: ast.AST) -> None:
    """
    Debug mode: an integer `a // b` or `a % b` asserts `b != 0` first, so a division by
    zero raises an error naming the kernel's file, line and source. (Without debug the
    result is defined: see lowering/guard_int_division.py.)
    """
    em = cg.em
    if is_python(b) and b != 0:
        return
    a_v, b_v = em.pair(a, b)
    dt = em.arith_type(a_v, b_v)
    if not dt.is_int:
        return
    divisor = em.cast(b_v, dt)
    nonzero = em.compare("!=", divisor, em.const(0, dt))
    where = source_position(cg, node).replace("{", "(").replace("}", ")")
    em.emit(taichi.AssertOp(nonzero.ssa, f"Division by zero detected in {where}"))

def check_exponent(cg: KernelCodegen, a: Any, b: Any, node: ast.AST) -> None:
    """An integer `a ** b` with a constant negative exponent is an error when the kernel
    compiles (a RuntimeError, as Taichi's); in debug mode a signed run-time exponent
    asserts `b >= 0`, with Taichi's message."""
    em = cg.em
    base_dt = a.dtype if isinstance(a, Value) else em.literal_dtype(a)
    if base_dt.is_float:
        return
    if isinstance(b, int) and not isinstance(b, bool):
        if b < 0:
            raise cg.error(
                TaichiRuntimeError, node, "Negative exponent in pow(int, int) is not allowed."
            )
        return
    if not cg.program.config.debug or not isinstance(b, Value) or not b.dtype.is_signed:
        return
    if b.dtype.is_float:
        return
    ok = em.compare(">=", b, em.const(0, b.dtype))
    where = source_position(cg, node).replace("{", "(").replace("}", ")")
    message = f"Negative exponent in pow(int, int) is not allowed.\n{where}"
    em.emit(taichi.AssertOp(ok.ssa, message))

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
                x.shape,
                [
                    cg.em.logical_not(integral_operand(cg, "logic_not", cg.em.value(e), node))
                    for e in x.elems
                ],
            )
        return Vec(
            x.shape,
            [cg.em.invert(integral_operand(cg, "bit_not", cg.em.value(e), node)) for e in x.elems],
        )
    if is_python(x):
        return {
            ast.USub: operator.neg,
            ast.UAdd: operator.pos,
            ast.Not: operator.not_,
            ast.Invert: operator.invert,
        }[type(node.op)](x)
    if not isinstance(x, Value):
        raise cg.error(TaichiTypeError, node, f"unsupported operand type for unary op: {describe(x)}")
    if isinstance(node.op, ast.USub):
        return cg.em.neg(x)
    if isinstance(node.op, ast.UAdd):
        return x
    if isinstance(node.op, ast.Not):
        return cg.em.logical_not(integral_operand(cg, "logic_not", x, node))
    return cg.em.invert(integral_operand(cg, "bit_not", x, node))

def integral_operand(cg: KernelCodegen, op: str, x: Value, node: ast.AST) -> Value:
    """`x` of `not x` / `~x`: Taichi takes integers only (`not 1.0` is an error)."""
    if x.dtype.is_float:
        raise cg.error(
            TaichiTypeError,
            node,
            f"'{op}' takes integral inputs only, however '{x.dtype}' is provided",
        )
    return x

def compare(cg: KernelCodegen, op: str, a: Any, b: Any, node: ast.AST) -> Any:
    if op in ("is", "is not"):  # Taichi removed them from kernels (ti.static too)
        raise cg.error(
            TaichiSyntaxError,
            node,
            f'Operator "{op}" in Taichi scope is not supported: compare values with '
            "== / != (decide on Python objects outside the kernel)",
        )
    if op in ("in", "not in") and not cg.static_depth:
        raise cg.error(
            TaichiSyntaxError,
            node,
            '"In" is only supported inside `ti.static`. Write '
            f"`ti.static(a {op} b)` to decide it at compile time.",
        )
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
        if isinstance(result, Vec):  # `u <= v <= w`: component-wise
            result = vec_logical(cg, "and", result, c, node)
        elif isinstance(c, Vec) and not is_python(result):
            result = vec_logical(cg, "and", c, result, node)
        else:
            result = logical(cg, "and", result, c)
        if result is False:
            return False  # Python's chained comparison stops here
        left = right
    return result

def logical(cg: KernelCodegen, op: str, a: Any, b: Any) -> Any:
    """
    `a and b` / `a or b` on already evaluated scalars, as Taichi (and Python) do: the
    operand that decides, in the promoted type (`1 and 2` is 2, `0 or 3` is 3).
    """
    if is_python(a) and is_python(b):
        return (a and b) if op == "and" else (a or b)
    em = cg.em
    if is_python(a):  # a decides at compile time
        return (a if not a else b) if op == "and" else (a if a else b)
    a, b = em.pair(a, b)
    dt = dtypes.promote(a.dtype, b.dtype)
    a, b = em.cast(a, dt), em.cast(b, dt)
    cond = em.to_bool(a)
    return em.select(cond, b, a) if op == "and" else em.select(cond, a, b)

def lower_bool_op(cg: KernelCodegen, node: ast.BoolOp) -> Any:
    op = "and" if isinstance(node.op, ast.And) else "or"
    result = cg.eval(node.values[0])
    for value_node in node.values[1:]:
        if is_python(result):
            if (op == "and") != bool(result):
                return result  # Python short-circuit at compile time
            result = cg.eval(value_node)
            continue
        if isinstance(result, Vec):  # element-wise truth values, as Taichi's
            other = cg.eval(value_node)
            return vec_logical(cg, op, result, other, node)
        if not is_scalar(result):
            raise cg.error(TaichiTypeError, node, f"'{op}' on {describe(result)}")
        if is_pure(value_node):
            result = logical(cg, op, result, cg.eval(value_node))
        else:
            result = short_circuit(cg, op, result, value_node)
    return result

def vec_logical(cg: KernelCodegen, op: str, a: Vec, b: Any, node: ast.AST) -> Vec:
    """`u and v` / `u or v` of vectors: the truth of each pair of components."""
    elems_b = b.elems if isinstance(b, Vec) else [b] * len(a.elems)
    if isinstance(b, Vec) and b.shape != a.shape:
        raise cg.error(
            TaichiTypeError, node, f"'{op}' of shapes {a.shape} and {b.shape}"
        )
    if not all(is_scalar(x) for x in elems_b):
        raise cg.error(TaichiTypeError, node, f"'{op}' on {describe(b)}")
    em = cg.em
    out = []
    for x, y in zip(a.elems, elems_b):
        truth = em.logical(op, em.value(x), em.value(y))
        out.append(em.cast(truth, em.default_ip))
    return Vec(a.shape, out)

def short_circuit(cg: KernelCodegen, op: str, lhs: Value, rhs_node: ast.expr) -> Value:
    """
    Evaluate `rhs_node` only when `lhs` does not decide `lhs op rhs`; the result is the
    deciding operand. Its type is the promoted type of both, known once the right side
    is compiled: the slot is created with lhs's type and widened when needed.
    """
    em = cg.em
    then = Block()
    with cg.body(then):
        rhs = cg.eval(rhs_node)
        if not is_scalar(rhs):
            raise cg.error(TaichiTypeError, rhs_node, f"'{op}' on {describe(rhs)}")
        rhs_dt = rhs.dtype if isinstance(rhs, Value) else em.literal_dtype(rhs)
        dt = dtypes.promote(lhs.dtype, rhs_dt)
        rhs_v = em.value(rhs, dt)
    slot = em.alloca(dt)
    em.store(slot, em.cast(lhs, dt))
    with cg.body(then, new_scope=False):
        em.store(slot, rhs_v)
        cg.close(then)
    first = em.to_bool(lhs)
    go = first if op == "and" else em.logical_not(first)
    em.emit(taichi.IfOp(go.ssa, then))
    return em.load(slot, dt)

def lower_if_exp(cg: KernelCodegen, node: ast.IfExp) -> Any:
    test = cg.eval(node.test)
    if isinstance(test, Vec | VecPlace):
        raise cg.error(
            TaichiSyntaxError,
            node,
            "a vector condition in `a if c else b` would choose per component: "
            'Please use "ti.select" instead.',
        )
    cond = cg.as_condition(test, node.test)
    if not isinstance(cond, Value):
        return cg.eval(node.body if cond else node.orelse)
    if is_pure(node.body) and is_pure(node.orelse):
        a, b = cg.eval(node.body), cg.eval(node.orelse)
        va = cg.as_vec(a) if not is_scalar(a) else None
        vb = cg.as_vec(b) if not is_scalar(b) else None
        if va is not None and vb is not None and va.shape != vb.shape:
            raise cg.error(
                TaichiTypeError,
                node,
                f"Cannot broadcast tensor to tensor: 'a if c else b' with shapes "
                f"{va.shape} and {vb.shape}",
            )
        if (va is not None or vb is not None) and (va is not None or is_scalar(a)) and (
            vb is not None or is_scalar(b)
        ):  # a vector and a vector or scalar: component-wise, as ti.select
            return cg.vec_map(
                lambda x, y: cg.em.select(cond, x, y),
                va if va is not None else a,
                vb if vb is not None else b,
                node=node,
            )
        if not is_scalar(a) or not is_scalar(b):
            raise cg.error(TaichiTypeError, node, "'a if c else b' needs scalars or vectors")
        return cg.em.select(cond, a, b)
    return _if_exp_branches(cg, node, cond)

def _if_exp_branches(cg: KernelCodegen, node: ast.IfExp, cond: Value) -> Any:
    """`a if c else b` whose sides read memory or call: each side evaluated only in its
    branch (a guard such as `x[i] if i < n else 0` reads nothing out of range). Sides
    may be scalars or vectors of one shape (a scalar side is broadcast)."""
    em = cg.em
    blocks, values = [Block(), Block()], []
    for block, branch in zip(blocks, (node.body, node.orelse)):
        with cg.body(block):
            v = cg.eval(branch)
            vec = cg.as_vec(v) if not is_scalar(v) else None
            if vec is not None:
                v = vec
            elif not is_scalar(v):
                raise cg.error(
                    TaichiTypeError, branch, "'a if c else b' needs scalars or vectors"
                )
            values.append(em.value(v) if isinstance(v, Value) else v)
    if any(isinstance(v, Vec) for v in values):
        return _if_exp_vectors(cg, node, cond, blocks, values)
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

def _if_exp_vectors(
    cg: KernelCodegen, node: ast.IfExp, cond: Value, blocks: list[Block], values: list[Any]
) -> Vec:
    """`u if c else v` with a run-time scalar `c` and vector branches (a scalar branch
    fills every component): each branch stores its components into shared slots."""
    em = cg.em
    shape = next(v.shape for v in values if isinstance(v, Vec))
    elems = []
    for v in values:
        if isinstance(v, Vec) and v.shape != shape:
            raise cg.error(
                TaichiTypeError,
                node,
                f"Cannot broadcast tensor to tensor: 'a if c else b' of shapes {shape} "
                f"and {v.shape}",
            )
        elems.append(list(v.elems) if isinstance(v, Vec) else [v] * len(values[0].elems if isinstance(values[0], Vec) else values[1].elems))
    dt: Any = None
    for es in elems:
        for e in es:
            t = e.dtype if isinstance(e, Value) else em.literal_dtype(e)
            dt = t if dt is None else dtypes.promote(dt, t)
    slots = [em.alloca(dt) for _ in elems[0]]
    for block, es in zip(blocks, elems):
        with cg.body(block, new_scope=False):
            for slot, e in zip(slots, es):
                em.store(slot, em.value(e, dt))
            cg.close(block)
    em.emit(taichi.IfOp(cond.ssa, blocks[0], blocks[1]))
    return Vec(shape, [em.load(slot, dt) for slot in slots])

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


_FILL_LOOP = ast.parse("for I in grouped(target):\n    target[I] = value").body[0]


def fill(cg: KernelCodegen, container: Container, args: list[Any], node: ast.AST) -> None:
    """`x.fill(v)` in a kernel: `for I in ti.grouped(x): x[I] = v`, a parallel loop at
    the kernel's top as any other (v is evaluated once, before the loop)."""
    if len(args) != 1:
        raise cg.error(TaichiSyntaxError, node, "fill() takes one value")
    loop = copy.deepcopy(_FILL_LOOP)
    for sub in ast.walk(loop):  # errors point at the call
        if hasattr(sub, "lineno"):
            ast.copy_location(sub, node)
    value = args[0]
    cg.ctx.scopes.append({"grouped": ops.grouped, "target": container, "value": value})
    try:
        cg.visit(loop)
    finally:
        cg.ctx.scopes.pop()


def fill_vec(cg: KernelCodegen, place: VecPlace, args: list[Any], node: ast.AST) -> None:
    """`v.fill(x)` of a vector/matrix variable or element: every component becomes x."""
    if len(args) != 1 or not is_scalar(args[0]):
        raise cg.error(TaichiSyntaxError, node, "a vector/matrix's fill() takes one scalar")
    size = 1
    for n in place.shape:
        size *= n
    cg.store(place, Vec(place.shape, [args[0]] * size), node)
