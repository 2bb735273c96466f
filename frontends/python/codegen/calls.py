"""
Calls inside kernels: `ti.*` intrinsics, Python builtins, `print`, and `@ti.func`
functions (inlined at the call site, as Taichi does).

    ti.atomic_add(x[i], v)   ->  %old = taichi.atomic_add %p, %v : memref<f32>
    ti.sqrt(x)               ->  %r = math.sqrt %x : f32
    print("i =", i)          ->  taichi.print "i = {}" %i : i32
"""

from __future__ import annotations

import ast
import builtins
import inspect
import operator
import warnings
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import (
    TaichiCompilationError,
    TaichiError,
    TaichiSyntaxError,
    TaichiTypeError,
)
from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue

from ..lang import dtypes, ops, types
from ..lang.dtypes import DataType
from . import printing, simt, sparse, structs
from .emitter import Value, ir_type
from .expressions import check_divisor, integral_operand
from ..lang.matrix import Matrix, MatrixType
from ..lang.source import bind_arguments, closure_vars
from ..lang.struct import Struct, StructPlace, StructType, StructVal
from ..lang.types import NdarrayType, RefType, Template
from .lists import KernelList
from .values import (
    PY_BINOPS,
    Container,
    FieldHandle,
    NdarrayHandle,
    FunctionContext,
    Place,
    assigned_names,
    contains_return,
    stored_into,
    describe,
    is_python,
    is_scalar,
)
from .vectors import KernelMethod, LocalVecPlace, Vec, VecPlace

if TYPE_CHECKING:
    from .visitor import KernelCodegen

_ATOMIC_OPS: dict[str, type[taichi.AtomicOp]] = {
    "atomic_add": taichi.AtomicAddOp,
    "atomic_sub": taichi.AtomicSubOp,
    "atomic_mul": taichi.AtomicMulOp,
    "atomic_min": taichi.AtomicMinOp,
    "atomic_max": taichi.AtomicMaxOp,
    "atomic_and": taichi.AtomicAndOp,
    "atomic_or": taichi.AtomicOrOp,
    "atomic_xor": taichi.AtomicXorOp,
}
_OPERATOR_FUNCS: dict[Any, str] = {
    **{f: symbol for symbol, f in PY_BINOPS.items()},
    operator.matmul: "@",
}
_UNARY_MATH = frozenset(
    ("sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "exp", "log", "floor", "ceil", "abs")
)
_MAX_INLINE_DEPTH = 32
_RANDOM = frozenset(("random", "randn"))
_COMPOSED_UNARY = frozenset(("asin", "acos", "atan", "round", "trunc"))
_REAL_ONLY = frozenset(("floor", "ceil", "round", "sin", "cos", "tan", "asin", "acos", "tanh"))
"""Math functions Taichi refuses integers for (sqrt, exp, log, ... convert them)."""
_ELEMENTWISE_INTRINSICS = (
    _UNARY_MATH
    | _COMPOSED_UNARY
    | {"min", "max", "pow", "atan2", "clamp", "select", "raw_div", "raw_mod"}
    | {"logical_not", "bit_not", "bit_shr"}
)
_TMATH = frozenset(
    (
        "mix",
        "step",
        "smoothstep",
        "fract",
        "sign",
        "log2",
        "isnan",
        "isinf",
        "dot",
        "cross",
        "length",
        "normalize",
        "distance",
        "reflect",
        "determinant",
        "inverse",
    )
)



def expand_starred(cg: KernelCodegen, node: ast.Call) -> ast.Call:
    """`f(*xs, **kw)` with xs a vector (its components; a matrix's rows), a tuple, list or
    other Python sequence (a NumPy array) and kw a dict known when the kernel compiles
    -> `f(xs[0], xs[1], ..., k=kw["k"])`: the call that
    the other lowerings read. Each element becomes a constant node holding its value, so
    `xs` is evaluated once."""
    starred = any(isinstance(a, ast.Starred) for a in node.args)
    if not starred and all(k.arg is not None for k in node.keywords):
        return node

    def held(value: Any, at: ast.AST) -> ast.expr:
        return ast.copy_location(ast.Constant(value=value), at)

    args: list[ast.expr] = []
    for a in node.args:
        if not isinstance(a, ast.Starred):
            args.append(a)
            continue
        args.extend(held(item, a) for item in starred_items(cg, a))
    keywords: list[ast.keyword] = []
    for k in node.keywords:
        if k.arg is not None:
            keywords.append(k)
            continue
        value = cg.eval(k.value)
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            raise cg.error(
                TaichiSyntaxError,
                k.value,
                f"**kwargs in a kernel call needs a dict with str keys, got {describe(value)}",
            )
        keywords.extend(ast.keyword(arg=key, value=held(v, k)) for key, v in value.items())
    return ast.copy_location(ast.Call(func=node.func, args=args, keywords=keywords), node)


def lower_call(cg: KernelCodegen, node: ast.Call) -> Any:
    node = expand_starred(cg, node)
    func = cg.eval(node.func)
    if isinstance(func, Vec) and node.args and not node.keywords:
        # `v(0)`, `m(i, j)`: Taichi's old call form of `v[0]`, `m[i, j]`
        index = [cg.eval(a) for a in node.args]
        return cg.vec_getitem(func, index[0] if len(index) == 1 else tuple(index), node)
    if func is builtins.print:
        return printing.emit_print(cg, node)
    if isinstance(func, ops.Intrinsic):
        return call_intrinsic(cg, func, node)
    if isinstance(func, KernelMethod):
        args = [cg.eval(a) for a in node.args]
        kwargs = {k.arg: cg.eval(k.value) for k in node.keywords}
        return func.fn(args, kwargs, node)
    if isinstance(func, type) and issubclass(func, Matrix):  # ti.Vector / ti.Matrix
        args = [cg.eval(a) for a in node.args]
        kwargs = {k.arg: cg.eval(k.value) for k in node.keywords}
        from ..lang.matrix import Vector

        return cg.make_matrix(args, kwargs, node, issubclass(func, Vector))
    if func is Struct:  # ti.Struct(a=..., b=...) or ti.Struct({"a": ..., ...})
        args = [cg.eval(a) for a in node.args]
        members = dict(args[0]) if len(args) == 1 and isinstance(args[0], dict) else {}
        if len(args) > 1 or (args and not isinstance(args[0], dict)):
            raise cg.error(
                TaichiSyntaxError, node, "ti.Struct takes a dict of members or keyword members"
            )
        members.update({k.arg: cg.eval(k.value) for k in node.keywords})
        return structs.struct_from_values(cg, members, node)
    if isinstance(func, StructType):  # Particle(pos=..., mass=...)
        args = [cg.eval(a) for a in node.args]
        kwargs = {k.arg: cg.eval(k.value) for k in node.keywords}
        return cg.make_struct(func, args, kwargs, node)
    if isinstance(func, MatrixType):  # ti.math.vec3(...), ti.types.vector(3, f32)(...)
        return cg.construct_type(func, [cg.eval(a) for a in node.args], node)
    if func in (Matrix.rows, Matrix.cols):
        expect_args(cg, node, node.args, 1)
        items = cg.eval(node.args[0])  # a list or tuple display, or a comprehension
        rows = [cg.as_vec(r) for r in items] if isinstance(items, list | tuple) else [None]
        if not rows or any(r is None for r in rows):
            raise cg.error(TaichiTypeError, node, "ti.Matrix.rows/cols take a list of vectors")
        m = cg.as_vec([r.elems for r in rows])  # type: ignore[union-attr]
        assert m is not None
        return m if func is Matrix.rows else cg.transpose(m, node)
    from ..lang.kernel import BoundFunc, Func, Kernel

    if isinstance(func, Func | BoundFunc):
        return inline_func(cg, func, node)
    if isinstance(func, Kernel):
        raise cg.error(
            TaichiSyntaxError,
            node,
            "a kernel cannot call a kernel; decorate the callee with @ti.func",
        )
    args = [cg.eval(a) for a in node.args]
    kwargs = {k.arg: cg.eval(k.value) for k in node.keywords}
    return call_python(cg, func, args, kwargs, node)

def call_python(
    cg: KernelCodegen, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call
) -> Any:
    """A builtin or another Python callable: folded when all arguments are Python."""

    has_ir = any(not is_python(x) for x in (*args, *kwargs.values()))
    if isinstance(func, DataType):
        _check_type_decoration(cg, func, args, kwargs, node)
    if args and isinstance(args[0], Vec):
        if isinstance(func, DataType) or func in (int, float, bool):
            return cg.vec_cast(args[0], cg.cook_dtype(func, node))
        if func is builtins.abs:
            return cg.vec_map(
                lambda x: (
                    cg.s_math("abs", x) if is_python(x) else cg.em.math1("abs", x)
                ),
                args[0],
                node=node,
            )
        if func in (builtins.min, builtins.max) and len(args) >= 2:
            name = func.__name__
            return cg.vec_map(
                lambda *xs: fold_minmax(cg, name, list(xs), node), *args, node=node
            )
        if func is builtins.len:
            return args[0].n
        if func in (builtins.all, builtins.any) and len(args) == 1 and not kwargs:
            return vec_all_any(cg, "and" if func is builtins.all else "or", args[0])
    if func in _OPERATOR_FUNCS and has_ir and len(args) == 2 and not kwargs:
        # operator.add(a, b) etc. on kernel values: the operator itself
        symbol = _OPERATOR_FUNCS[func]
        if symbol == "@":
            return cg.matmul(args[0], args[1], node)
        return cg.binop(symbol, args[0], args[1], node)
    if func is builtins.sum and len(args) in (1, 2) and not kwargs:
        items = list(args[0]) if isinstance(args[0], list | tuple | type({}.values())) else None
        if items is not None and any(not is_python(x) for x in (*items, *args[1:])):
            total: Any = args[1] if len(args) == 2 else 0  # sum() of kernel values
            for x in items:
                total = cg.binop("+", total, x, node)
            return total
    if func is builtins.pow and has_ir:
        expect_args(cg, node, args, 2)
        return cg.em.binary("**", *(scalar(cg, a, node) for a in args))
    if func is builtins.round and has_ir and len(args) == 1:
        return composed_unary(cg, "round", scalar(cg, args[0], node))
    if isinstance(func, DataType) and not has_ir and len(args) == 1 and not kwargs:
        # `ti.u8(200)`: a constant of that type (Taichi checks the range)
        x = args[0]
        if isinstance(x, bool | int | float):
            if func.is_int and isinstance(x, int) and not isinstance(x, bool):
                lo, hi = func.int_range()
                if not lo <= x <= hi:
                    raise cg.error(
                        TaichiTypeError,
                        node,
                        f"Integer literal {x} exceeded the range of specified dtype: {func}",
                    )
            return cg.em.const(x, func)
    if isinstance(func, DataType) or func in (int, float, bool):
        if has_ir:
            expect_args(cg, node, args, 1)
            return cg.em.value(args[0], cg.cook_dtype(func, node))
    elif func is builtins.abs and has_ir:
        return intrinsic_math(cg, "abs", args, node)
    elif func in (builtins.min, builtins.max) and has_ir:
        return fold_minmax(cg, func.__name__, args, node)
    elif func is builtins.len and args and isinstance(args[0], Container):
        shape = args[0].shape(cg)
        if not shape:
            raise cg.error(TaichiTypeError, node, "len() of a 0-d field")
        return shape[0]
    elif func is Matrix.diag and has_ir:  # ti.Matrix.diag(2, v) of a kernel value
        bound = inspect.signature(Matrix.diag).bind(*args, **kwargs)
        dim, val = bound.arguments["dim"], bound.arguments["val"]
        rows = [[val if i == j else 0 for j in range(dim)] for i in range(dim)]
        return cg.make_matrix([rows], {}, node, False)
    elif has_ir and getattr(func, "__name__", "") == "<lambda>":
        return call_lambda(cg, func, node)
    elif has_ir:
        name = getattr(func, "__name__", repr(func))
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"cannot call Python function '{name}' with Taichi values "
            "in a kernel (decorate it with @ti.func)",
        )
    return cg.rvalue(func(*args, **kwargs))

def _check_type_decoration(
    cg: KernelCodegen, dt: DataType, args: list[Any], kwargs: dict[str, Any], node: ast.Call
) -> None:
    """`ti.f32(x)` in a kernel, as Taichi allows it: one scalar expression; a literal
    of the type's kind (`ti.f32(0)` and `ti.i32(0.0)` are errors: use ti.cast)."""
    if len(args) != 1 or kwargs:
        raise cg.error(
            TaichiSyntaxError, node, "A primitive type can only decorate a single expression."
        )
    if isinstance(args[0], Vec):
        raise cg.error(
            TaichiSyntaxError,
            node,
            "A primitive type cannot decorate an expression with a compound type.",
        )
    literal = node.args[0]
    if isinstance(literal, ast.UnaryOp) and isinstance(literal.op, ast.USub | ast.UAdd):
        literal = literal.operand
    if not isinstance(literal, ast.Constant) or isinstance(literal.value, bool):
        return
    if isinstance(literal.value, int) and dt.is_float:
        raise cg.error(
            TaichiTypeError,
            node,
            "Integer literals must be annotated with a integer type. For type casting, "
            "use `ti.cast`.",
        )
    if isinstance(literal.value, float) and not dt.is_float:
        raise cg.error(
            TaichiTypeError,
            node,
            "Floating-point literals must be annotated with a floating-point type. For "
            "type casting, use `ti.cast`.",
        )


def vec_all_any(cg: KernelCodegen, op: str, v: Vec) -> Any:
    """`all(v)` / `any(v)` of a kernel vector: whether every / some component is
    non-zero (a u1 value)."""
    em = cg.em
    result: Any = None
    for e in v.elems:
        truth = em.to_bool(em.value(e))
        result = truth if result is None else em.logical(op, result, truth)
    return result

def expect_args(cg: KernelCodegen, node: ast.Call, args: list[Any], n: int) -> None:
    if len(args) != n:
        name = ast.unparse(node.func)
        raise cg.error(
            TaichiSyntaxError, node, f"{name}() takes {n} argument(s), got {len(args)}"
        )

# -- ti.* intrinsics -------------------------------------------------------------

def starred_items(cg: KernelCodegen, arg: ast.Starred) -> list[Any]:
    """What `*x` expands into: a vector's components (a matrix's rows), or the items of
    a tuple, list or other Python sequence."""
    seq = cg.eval(arg.value)
    if isinstance(seq, Vec):
        return list(seq.elems) if len(seq.shape) == 1 else [seq.row(i) for i in range(seq.n)]
    if is_python(seq) and hasattr(seq, "__iter__") and not isinstance(seq, str | dict):
        return [cg.rvalue(item) for item in seq]  # NumPy numbers become Python ones
    raise cg.error(TaichiSyntaxError, arg, f"cannot expand {describe(seq)} into arguments")


def call_intrinsic(cg: KernelCodegen, func: ops.Intrinsic, node: ast.Call) -> Any:

    name = func.name
    if name in _ATOMIC_OPS:
        if len(node.args) != 2 or node.keywords:
            raise cg.error(
                TaichiSyntaxError, node, f"ti.{name}(x, value) takes two arguments"
            )
        target = node.args[0]
        if not isinstance(target, ast.Name | ast.Subscript | ast.Attribute):
            raise cg.error(
                TaichiSyntaxError,
                target,
                f"cannot use a non-writable target as the first operand of '{name}': "
                "it must be a variable or a field/ndarray element",
            )
        place = cg.place_of(target)
        return cg.atomic(_ATOMIC_OPS[name], place, cg.eval(node.args[1]), node)
    cg.static_depth += name == "static"
    try:
        args = [cg.eval(a) for a in node.args]
        kwargs = {k.arg: cg.eval(k.value) for k in node.keywords}
    finally:
        cg.static_depth -= name == "static"
    if name.startswith("simt."):
        return simt.lower_simt(cg, name.removeprefix("simt."), args, kwargs, node)
    if name == "loop_config":
        cg.pending_loop_config = loop_config(cg, node, args, kwargs)
        return None
    if name in sparse.INTRINSICS:  # before folding: SNode arguments are Python objects
        return sparse.lower_call(cg, name, args, kwargs, node)
    if name == "static":
        for x in (*args, *kwargs.values()):
            if isinstance(x, Value):
                raise cg.error(
                    TaichiSyntaxError,
                    node,
                    "ti.static() needs values known at compile time: its arguments "
                    "must be compile-time constants (Python values, ti.static(...) or "
                    "template arguments), not kernel arguments or local variables",
                )
        return ops.static(*args)
    if name in _RANDOM:
        return cg.random_call(name, args, kwargs, node)
    if name == "stop_grad":
        return _stop_grad(cg, args, kwargs)
    if name in ("block_local", "cache_read_only"):  # hints for CUDA (ops.py): fields only
        if kwargs or not args or not all(isinstance(a, FieldHandle) for a in args):
            raise cg.error(TaichiSyntaxError, node, f"ti.{name}(*fields) takes fields")
        return None
    if name == "cast" and args and isinstance(args[0], bool | int | float):
        # A typed constant, as in Taichi: `ti.cast(2147483647, ti.i32) + 1` wraps, so
        # the cast must not fold to an untyped Python number.
        return intrinsic_ir(cg, name, args, kwargs, node)
    if name in ("floor", "ceil") and (len(args) == 2 or "dtype" in kwargs):
        # `ti.ceil(2.5, int)` of a constant is a typed value, as Taichi's cast of the
        # rounded constant (marching_squares: `tm.ceil(grid_size * W / H, int)`).
        return intrinsic_ir(cg, name, args, kwargs, node)
    if all(is_python(x) for x in (*args, *kwargs.values())):
        return cg.rvalue(func(*args, **kwargs))  # fold at compile time
    if name in ("ndrange", "grouped"):
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"ti.{name}() works only as the iterable of a for loop",
        )
    if name == "static_print":  # at compile time; a run-time value prints as Taichi's
        print(*(x if is_python(x) else "<ti.Expr>" for x in args), **kwargs)
        return None
    return intrinsic_ir(cg, name, args, kwargs, node)

def _stop_grad(cg: KernelCodegen, args: list[Any], kwargs: dict[str, Any]) -> None:
    """
    `ti.stop_grad(x)`: in the rest of the current scope (as Taichi's, the enclosing
    block), field x is accessed through a `get_field` of its own marked `stop_grad`,
    which ti-auto-diff leaves out of the adjoint.
    """
    from taichi_xdsl.lowering.auto_diff import STOP_GRAD_ATTR
    from xdsl.dialects.builtin import UnitAttr

    if len(args) != 1 or kwargs or not isinstance(args[0], FieldHandle):
        raise TaichiError("ti.stop_grad(x) takes one field")
    handle = args[0]
    marked = handle.ssa.owner.clone()
    marked.attributes[STOP_GRAD_ATTR] = UnitAttr()
    cg.insert_prologue(marked)
    # KernelCodegen.field_handle looks this entry up through the enclosing scopes
    cg.ctx.scopes[-1][("ti.stop_grad", id(handle.field))] = FieldHandle(
        handle.field, marked.results[0]
    )


def intrinsic_ir(
    cg: KernelCodegen, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call
) -> Any:
    em = cg.em
    if name in _RANDOM:
        return cg.random_call(name, args, kwargs, node)
    if name in _TMATH:
        return cg.math_call(name, args, node)
    if any(isinstance(a, Vec) for a in args) and name in _ELEMENTWISE_INTRINSICS:
        return cg.vec_map(
            lambda *xs: intrinsic_ir(cg, name, list(xs), kwargs, node),
            *args,
            node=node,
        )
    if name == "cast":
        dt = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        if isinstance(args[0], Vec):
            return cg.vec_cast(args[0], cg.cook_dtype(dt, node))
        return em.value(scalar(cg, args[0], node), cg.cook_dtype(dt, node))
    if name == "bit_cast":
        expect_args(cg, node, args, 2)
        x = em.value(scalar(cg, args[0], node))
        dt = cg.cook_dtype(args[1], node)
        if x.dtype.bits != dt.bits:
            raise cg.error(
                TaichiTypeError,
                node,
                f"ti.bit_cast: {x.dtype.name} has {x.dtype.bits} bits, {dt.name} has "
                f"{dt.bits}; the types must be of one width",
            )
        return em.bitcast(x, dt)
    if name == "select":
        expect_args(cg, node, args, 3)
        return em.select(*(scalar(cg, a, node) for a in args))
    if name == "frexp":
        expect_args(cg, node, args, 1)
        return frexp(cg, em.value(scalar(cg, args[0], node)), node)
    if name == "clz":
        expect_args(cg, node, args, 1)
        return count_leading_zeros(cg, em.value(scalar(cg, args[0], node)), node)
    if name in _UNARY_MATH:
        # ti.floor(x, int) / ti.ceil(x, dtype=ti.i32): the result in that type
        dt = kwargs.get("dtype", args[1] if len(args) == 2 and name in ("floor", "ceil") else None)
        if "dtype" not in kwargs and len(args) == 2 and name in ("floor", "ceil"):
            args = args[:1]
        result = intrinsic_math(cg, name, args, node)
        return em.value(result, cg.cook_dtype(dt, node)) if dt is not None else result
    if name in _COMPOSED_UNARY:
        dt = kwargs.get("dtype", args[1] if len(args) == 2 and name == "round" else None)
        expect_args(cg, node, args, 1 if dt is None or "dtype" in kwargs else 2)
        result = composed_unary(cg, name, _real_input(cg, name, args[0], node))
        return result if dt is None else em.value(result, cg.cook_dtype(dt, node))
    if name in ("raw_div", "raw_mod"):
        expect_args(cg, node, args, 2)
        a, b = (scalar(cg, a, node) for a in args)
        if cg.program.config.debug:
            check_divisor(cg, a, b, node)
        return raw_div_mod(cg, name, a, b)
    if name in ("zero", "one"):
        expect_args(cg, node, args, 1)
        return zero_or_one(cg, name == "one", args[0], node)
    if name in ("pow", "atan2"):
        expect_args(cg, node, args, 2)
        a, b = (scalar(cg, a, node) for a in args)
        return em.binary("**" if name == "pow" else "atan2", a, b)
    if name in ("min", "max"):
        return fold_minmax(cg, name, args, node)
    if name in ("logical_not", "bit_not"):  # `not x` (1 or 0, of x's type) and `~x`
        expect_args(cg, node, args, 1)
        op = "logic_not" if name == "logical_not" else "bit_not"
        x = integral_operand(cg, op, em.value(scalar(cg, args[0], node)), node)
        return em.logical_not(x) if name == "logical_not" else em.invert(x)
    if name == "bit_shr":  # a logical shift right, signed values too
        expect_args(cg, node, args, 2)
        x, n = (em.value(scalar(cg, a, node)) for a in args)
        unsigned = getattr(dtypes, f"u{x.dtype.bits}")
        return em.cast(em.shift(">>", em.cast(x, unsigned), n), x.dtype)
    if name == "clamp" and any(isinstance(a, Vec) for a in args):
        return cg.math_call("clamp", args, node)
    if name == "clamp":
        expect_args(cg, node, args, 3)
        x, lo, hi = (scalar(cg, a, node) for a in args)
        return em.binary("min", em.binary("max", x, lo), hi)
    if name == "loop_unique":  # a hint only: the value itself
        if not 1 <= len(args) <= 2 or set(kwargs) - {"covers"}:
            raise cg.error(TaichiSyntaxError, node, "ti.loop_unique(val, covers=None)")
        return scalar(cg, args[0], node)
    if name == "static_assert":  # a Python condition is checked before lowering
        raise cg.error(
            TaichiTypeError,
            node,
            "Static assert with non-static condition: ti.static_assert checks a "
            "compile-time value (a Python value or ti.static(...)); use `assert` for a "
            "run-time condition",
        )
    raise cg.error(
        TaichiSyntaxError, node, f"ti.{name}() is not supported in kernels"
    )

def composed_unary(cg: KernelCodegen, name: str, x: Any) -> Value:
    """
    ti.asin / acos / atan / round / trunc from the ops every backend has:
    atan(x) = atan2(x, 1), asin(x) = atan2(x, sqrt(1 - x^2)), acos(x) = atan2(sqrt(1 -
    x^2), x); round is half away from zero (C's round), trunc rounds towards zero.
    """
    em = cg.em
    x = em.value(x)
    x = em.cast(x, em.float_type(x.dtype))
    if name == "atan":
        return em.binary("atan2", x, em.const(1.0, x.dtype))
    if name in ("asin", "acos"):
        one_minus = em.binary("-", em.const(1.0, x.dtype), em.binary("*", x, x))
        root = em.math1("sqrt", one_minus)
        return em.binary("atan2", *((x, root) if name == "asin" else (root, x)))
    negative = em.compare("<", x, em.const(0.0, x.dtype))
    if name == "trunc":
        return em.select(negative, em.math1("ceil", x), em.math1("floor", x))
    half = em.const(0.5, x.dtype)
    up = em.math1("floor", em.binary("+", x, half))
    down = em.math1("ceil", em.binary("-", x, half))
    return em.select(negative, down, up)

def frexp(cg: KernelCodegen, x: Value, node: ast.AST) -> tuple[Value, Value]:
    """
    ti.frexp(x) -> (m, e), x = m * 2**e with 0.5 <= |m| < 1, from the float's bits:
    e = biased exponent - (bias - 1); m = x's bits with the exponent field set to
    bias - 1. A subnormal x is first scaled by 2**k (exact) and k taken off e; x = 0
    gives (0, 0), an infinity or NaN (x, 0), as C's frexp. An integer x is first
    converted to default_fp.
    """
    em = cg.em
    if not x.dtype.is_float:
        x = em.cast(x, em.float_type(x.dtype))
    f = x.dtype
    bits_dt = {16: dtypes.i16, 32: dtypes.i32, 64: dtypes.i64}[f.bits]
    mant_bits = {16: 10, 32: 23, 64: 52}[f.bits]
    exp_mask = (1 << (f.bits - 1 - mant_bits)) - 1
    bias = exp_mask >> 1
    k = mant_bits + 2

    def exponent_field(v: Value) -> Value:
        shifted = em.shift(">>", em.bitcast(v, bits_dt), em.const(mant_bits, bits_dt))
        return em.bitwise("&", shifted, em.const(exp_mask, bits_dt))

    subnormal = em.compare("==", exponent_field(x), em.const(0, bits_dt))
    y = em.select(subnormal, em.binary("*", x, em.const(float(2**k), f)), x)
    field = exponent_field(y)
    keep = ~(exp_mask << mant_bits)  # the sign and mantissa bits
    half = em.bitwise(
        "|",
        em.bitwise("&", em.bitcast(y, bits_dt), em.const(keep, bits_dt)),
        em.const((bias - 1) << mant_bits, bits_dt),
    )
    e = em.binary("-", field, em.const(bias - 1, bits_dt))
    e = em.cast(em.select(subnormal, em.binary("-", e, em.const(k, bits_dt)), e), dtypes.i32)
    special = em.logical(
        "or",
        em.compare("==", x, em.const(0.0, f)),
        em.compare("==", field, em.const(exp_mask, bits_dt)),
    )
    m = em.select(special, x, em.bitcast(half, f))
    return m, em.select(special, em.const(0, dtypes.i32), e)

def count_leading_zeros(cg: KernelCodegen, x: Value, node: ast.AST) -> Value:
    """
    ti.math.clz(x): the leading zero bits of an integer, by halving (arith ops only, so
    every backend has it):

        n = 0; for s in 16, 8, 4, 2, 1 (32 bits): if x's top s bits are 0: n += s; x <<= s
        then n += 1 if x's top bit is 0 (x was 0: n = 32)
    """
    em = cg.em
    if not x.dtype.is_int or x.dtype is dtypes.u1:
        raise cg.error(TaichiTypeError, node, f"ti.math.clz needs an integer, got {x.dtype}")
    bits = x.dtype.bits

    def mask(value: int) -> Value:  # a bit pattern as a constant of x's type
        if x.dtype.is_signed and value >= 1 << (bits - 1):
            value -= 1 << bits
        return em.const(value, x.dtype)

    n = em.const(0, x.dtype)
    s = bits // 2
    while s:
        top = em.bitwise("&", x, mask(((1 << s) - 1) << (bits - s)))
        empty = em.compare("==", top, em.const(0, x.dtype))
        n = em.select(empty, em.binary("+", n, em.const(s, x.dtype)), n)
        x = em.select(empty, em.shift("<<", x, em.const(s, x.dtype)), x)
        s //= 2
    top = em.bitwise("&", x, mask(1 << (bits - 1)))
    empty = em.compare("==", top, em.const(0, x.dtype))
    return em.select(empty, em.binary("+", n, em.const(1, x.dtype)), n)

def raw_div_mod(cg: KernelCodegen, name: str, a: Any, b: Any) -> Value:
    """C's `/` and `%` (ti.raw_div, ti.raw_mod): truncating for integers; for floats
    a / b and fmod (the dividend's sign)."""
    em = cg.em
    if not isinstance(a, Value) and not isinstance(b, Value):
        a = em.value(a)
    a, b = em.pair(a, b)
    dt = em.arith_type(a, b)
    a, b = em.cast(a, dt), em.cast(b, dt)
    if dt.is_float:
        if name == "raw_div":
            return em.truediv(a, b)
        q = em.truediv(a, b)
        negative = em.compare("<", q, em.const(0.0, dt))
        tq = em.select(negative, em.math1("ceil", q), em.math1("floor", q))
        return em.binary("-", a, em.binary("*", b, tq))
    if dt.is_unsigned:
        return em.floordiv(a, b) if name == "raw_div" else em.mod(a, b)
    return em.idiv(a, b) if name == "raw_div" else em.irem(a, b)

def zero_or_one(cg: KernelCodegen, one: bool, x: Any, node: ast.AST) -> Any:
    """ti.zero(x) / ti.one(x): a 0 or 1 of x's type and shape."""
    em = cg.em
    if isinstance(x, Vec):
        return Vec(x.shape, [em.const(int(one), em.value(e).dtype) for e in x.elems])
    return em.const(int(one), em.value(scalar(cg, x, node)).dtype)

def scalar(cg: KernelCodegen, x: Any, node: ast.AST) -> Any:

    if not is_scalar(x):
        raise cg.error(TaichiTypeError, node, f"expected a scalar, got {describe(x)}")
    return x

def intrinsic_math(
    cg: KernelCodegen, name: str, args: list[Any], node: ast.Call
) -> Value:
    if not args:
        raise cg.error(TaichiSyntaxError, node, f"ti.{name}() needs an argument")
    return cg.em.math1(name, cg.em.value(_real_input(cg, name, args[0], node)))

def _real_input(cg: KernelCodegen, name: str, arg: Any, node: ast.Call) -> Any:
    """`arg` as a scalar; an integer one is refused where Taichi refuses it."""
    x = scalar(cg, arg, node)
    if name in _REAL_ONLY:
        dt = x.dtype if isinstance(x, Value) else cg.em.literal_dtype(x)
        if not dt.is_float:
            raise cg.error(
                TaichiTypeError,
                node,
                f"'{name}' takes real inputs only, however '{dt}' is provided. Convert "
                f"it first: ti.{name}(ti.cast(x, ti.f32)) or ti.{name}(float(x)).",
            )
    return x

def fold_minmax(cg: KernelCodegen, name: str, args: list[Any], node: ast.Call) -> Any:
    if len(args) == 1 and isinstance(args[0], tuple | list):
        args = list(args[0])
    if len(args) < 2:
        raise cg.error(TaichiSyntaxError, node, f"{name}() needs two or more values")
    result = scalar(cg, args[0], node)
    for x in args[1:]:
        result = cg.em.binary(name, result, scalar(cg, x, node))
    return result

# -- @ti.func --------------------------------------------------------------------

def call_lambda(cg: KernelCodegen, fn: Any, node: ast.Call) -> Any:
    """A Python lambda called with Taichi values: inlined as a ti.func would be (Taichi
    traces it; `lambda x: ti.abs(-x)` in Taichi's grad-check tests)."""
    from ..lang.kernel import Func

    return inline_func(cg, Func(fn), node)


def inline_func(cg: KernelCodegen, func: Any, node: ast.Call) -> Any:
    """Inline a ti.func: its body is compiled here with its parameters bound (a
    ti.real_func is called for real where real_funcs.call can)."""
    from ..lang.kernel import BoundFunc, RealFunc
    from . import real_funcs

    bound_self = func.obj if isinstance(func, BoundFunc) else None
    func = func.func if isinstance(func, BoundFunc) else func
    arguments = _bind_func_args(cg, func, bound_self, func.annotations(), node)
    if isinstance(func, RealFunc):
        _check_real_func(cg, func, func.source(), func.annotations(), node)
        result = real_funcs.call(cg, func, arguments, node)
        if result is not real_funcs.INLINE:
            return result
    return inline_bound_func(cg, func, arguments, node)


def inline_bound_func(
    cg: KernelCodegen, func: Any, arguments: dict[str, Any], node: ast.AST
) -> Any:
    """Inline the ti.func `func` with its parameters bound to `arguments` (values, or
    places for template parameters), as a call at `node` would."""
    if cg.func_depth >= _MAX_INLINE_DEPTH:
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"ti.func '{func.fn.__name__}' recurses; recursion is not supported",
        )
    src = func.source()
    annotations = func.annotations()
    ctx = FunctionContext(
        src,
        func.fn.__globals__,
        closure_vars(func.fn),
        False,
        cg.em.block,
        len(cg.loops),
    )  # type: ignore[arg-type]
    ctx.anchor = cg.em.block.last_op  # type: ignore[union-attr]
    ret_ann = annotations.get("return")
    if ret_ann is not None and not any(contains_return(s) for s in src.tree.body):
        raise cg.error(
            TaichiSyntaxError,
            node,
            "Function has a return type but does not have a return statement",
        )
    vec_ret = struct_ret = tuple_ret = None
    if isinstance(ret_ann, tuple | list) or getattr(ret_ann, "__origin__", None) is tuple:
        # `-> (ti.f32, S)` / `tuple[...]` / `typing.Tuple[...]`: each item its own type
        tuple_ret = tuple(ret_ann) if isinstance(ret_ann, tuple | list) else ret_ann.__args__
        ret_ann = None
    elif isinstance(ret_ann, MatrixType):
        vec_ret, ret_ann = ret_ann, None  # checked on the returned value below
    elif isinstance(ret_ann, StructType):
        struct_ret, ret_ann = ret_ann, None
    if ret_ann is not None:
        ctx.return_types = [cg.cook_dtype(ret_ann, node)]
    # A parameter is a copy (Taichi passes by value): one the body assigns to, or into
    # (`M[0, 1] = 2`, `v.x += 1`), gets a local slot of its own.
    assigned = assigned_names(src.tree.body) | stored_into(src.tree.body)
    for name, value in arguments.items():
        ctx.scopes[0][name] = _bind_param(cg, 
            name, value, annotations.get(name), assigned, node
        )
    saved = (cg.ctx, cg.terminated, cg.pending_loop_config)
    cg.ctx, cg.terminated, cg.pending_loop_config = ctx, False, None
    cg.func_depth += 1
    cg.inlining.append(func)
    try:
        cg.visit_stmts(src.tree.body)
    except TaichiCompilationError as e:
        raise _called_from(e, saved[0], node) from None
    finally:
        cg.inlining.pop()
        cg.func_depth -= 1
        cg.ctx, cg.terminated, cg.pending_loop_config = saved
    if tuple_ret is not None:
        result = ctx.result
        if not isinstance(result, tuple | list) or len(result) != len(tuple_ret):
            raise cg.error(
                TaichiSyntaxError,
                node,
                f"ti.func '{func.fn.__name__}' must return {len(tuple_ret)} values "
                "(one 'return' of a tuple at the end of its body)",
            )
        return tuple(
            cg.convert_to_type(t, cg.rvalue(v), node) for t, v in zip(tuple_ret, result)
        )
    if struct_ret is not None and ctx.result is not None:
        result = ctx.result
        if isinstance(result, StructPlace):  # a variable of the callee: its value
            result = cg.rvalue(result)
        return cg.convert_to_type(struct_ret, result, node)
    if vec_ret is not None and ctx.ret_vec is None:
        v = cg.as_vec(ctx.result)
        if v is None:
            v = cg.construct_type(vec_ret, [ctx.result], node)
        return cg.vec_cast(v, cg.cook_dtype(vec_ret.dtype, node))
    if ctx.ret_vec is not None:
        return ctx.ret_vec.load(cg)
    if ctx.ret_slots is not None:
        assert ctx.return_types is not None
        return cg.em.load(ctx.ret_slots[0], ctx.return_types[0])
    if ctx.return_types and ctx.result is not None:
        v = cg.as_vec(ctx.result) if not is_scalar(ctx.result) else None
        if v is not None:  # `-> ti.f32` on a vector: Taichi casts each element
            return cg.vec_cast(v, ctx.return_types[0])
        return cg.em.value(scalar(cg, ctx.result, node), ctx.return_types[0])
    return ctx.result

def _check_real_func(
    cg: KernelCodegen, func: Any, src: Any, annotations: dict[str, Any], node: ast.Call
) -> None:
    """A ti.real_func that returns a value says its type."""
    returns_value = any(
        isinstance(n, ast.Return) and n.value is not None for n in ast.walk(src.tree)
    )
    if returns_value and annotations.get("return") is None:
        raise cg.error(
            TaichiCompilationError,
            node,
            f"ti.real_func '{func.__name__}': the return value must be annotated",
        )

def _called_from(e: TaichiCompilationError, caller: Any, node: ast.AST) -> Exception:
    """The error raised inside an inlined ti.func, followed by the call that inlined it,
    so that an error inside a library ti.func also names the user's line."""
    return caller.src.called_from(e, node)


def _bind_func_args(
    cg: KernelCodegen,
    func: Any,
    bound_self: Any,
    annotations: dict[str, Any],
    node: ast.Call,
) -> dict[str, Any]:
    sig = func.signature()
    params = list(sig.parameters)
    offset = 1 if bound_self is not None else 0

    def arg_value(param: str | None, arg: ast.expr) -> Any:
        # A template parameter given a variable receives the variable itself.
        if (
            param is not None
            and _is_template(annotations.get(param))
            and isinstance(arg, ast.Name)
        ):
            binding = cg.lookup(arg.id)

            if isinstance(binding, Place | VecPlace | StructPlace):
                return binding
            return cg.rvalue(binding)
        ann = annotations.get(param) if param is not None else None
        if isinstance(ann, RefType):  # by reference: the caller's place itself
            place = cg._place_or_value(arg)
            if not isinstance(place, Place):
                raise cg.error(
                    TaichiSyntaxError,
                    arg,
                    f"parameter '{param}' of ti.func '{func.fn.__name__}' is a ti.ref: "
                    f"its argument must be a scalar variable or element, got {describe(place)}",
                )
            want = cg.cook_dtype(ann.dtype, arg)
            if place.dtype is not want:
                raise cg.error(
                    TaichiTypeError,
                    arg,
                    f"parameter '{param}' is a ti.ref({want}), the argument is a {place.dtype}",
                )
            return place
        return cg.eval(arg)

    positional = [
        arg_value(params[i + offset] if i + offset < len(params) else None, a)
        for i, a in enumerate(node.args)
    ]
    keywords = {k.arg: arg_value(k.arg, k.value) for k in node.keywords}
    head = [bound_self] if bound_self is not None else []
    try:
        bound = bind_arguments(sig, [*head, *positional], keywords)
    except TaichiSyntaxError as e:
        raise cg.error(
            TaichiSyntaxError, node, f"calling ti.func '{func.fn.__name__}': {e}"
        ) from None
    except TypeError as e:
        raise cg.error(
            TaichiSyntaxError, node, f"calling ti.func '{func.fn.__name__}': {e}"
        ) from None
    return dict(bound.arguments)

def _bind_param(
    cg: KernelCodegen, name: str, value: Any, ann: Any, assigned: set[str], node: ast.AST
) -> Any:

    if _is_template(ann) or isinstance(value, Place | VecPlace | StructPlace):
        return value
    if isinstance(value, KernelList):  # a list is passed by value too: its elements' copy
        return KernelList(cg, list(value))
    if isinstance(ann, StructType) or isinstance(value, StructVal):
        if isinstance(ann, StructType):
            value = cg.convert_to_type(ann, value, node)
        return cg.new_struct_local(name, value) if name in assigned else value
    if isinstance(ann, MatrixType):
        v = cg.as_vec(value)
        if v is None:
            v = cg.construct_type(ann, [value], node)
        elif tuple(v.shape) != tuple(ann.shape):  # never padded or cut
            what = f"n {ann.n}, but got {v.shape[0]}" if len(ann.shape) == len(v.shape) == 1 else f"shape {ann.shape}, but got {v.shape}"
            raise cg.error(
                TaichiSyntaxError, node, f"Argument {name} is expected to be a Matrix with {what}"
            )
        v = cg.vec_cast(v, cg.cook_dtype(ann.dtype, node))
        return cg.new_vec_local(name, v) if name in assigned else v
    if isinstance(value, Vec):
        return cg.new_vec_local(name, value) if name in assigned else value
    if isinstance(ann, NdarrayType) or ann is types.ndarray:
        if not isinstance(value, Container):
            raise cg.error(
                TaichiTypeError,
                node,
                f"parameter '{name}' expects an ndarray or a field",
            )
        if isinstance(ann, NdarrayType) and isinstance(value, NdarrayHandle):
            _check_ndarray_param(cg, name, ann, value, node)
        return value
    if ann is not None and ann is not inspect.Parameter.empty:
        dt = cg.cook_dtype(ann, node)
        value = cg.em.value(scalar(cg, value, node), dt)
        return cg.new_local(name, value, dt) if name in assigned else value
    if isinstance(value, bool | int | float):
        # Taichi copies each argument into a variable: a Python number becomes a value of
        # its literal type (`f(2147483647)` then `p + p` wraps in i32, never folds).
        value = cg.em.value(value)
    if is_scalar(value) and name in assigned:
        return cg.new_local(name, value)
    return value

def _check_ndarray_param(
    cg: KernelCodegen, name: str, ann: NdarrayType, value: NdarrayHandle, node: ast.AST
) -> None:
    """An ndarray passed to a ti.func parameter `ti.types.ndarray(dtype, ndim)` has
    that element type and ndim (what the annotation leaves out, any)."""
    given = (
        f"[Tensor {value.element_shape} {value.dtype}]".replace(",)", ")")
        if value.element_shape
        else str(value.dtype)
    )
    if ann.dtype is not None:
        if isinstance(ann.dtype, MatrixType):
            want_shape, want_dt = tuple(ann.dtype.shape), cg.cook_dtype(ann.dtype.dtype, node)
        else:
            want_shape, want_dt = (), cg.cook_dtype(ann.dtype, node)
        if want_shape != tuple(value.element_shape) or want_dt is not value.dtype:
            want = (
                f"[Tensor {want_shape} {want_dt}]".replace(",)", ")") if want_shape else str(want_dt)
            )
            raise cg.error(
                TaichiTypeError,
                node,
                f"Invalid value for argument {name} - required element type: {want}, "
                f"but {given} is provided",
            )
    if ann.ndim is not None and ann.ndim != value.ndim:
        raise cg.error(
            TaichiTypeError,
            node,
            f"Invalid value for argument {name} - required ndim={ann.ndim}, but a "
            f"{value.ndim}d ndarray is provided",
        )

def func_return(cg: KernelCodegen, value: Any, node: ast.Return, at_top: bool) -> None:
    """A `return` in a ti.func: the value itself at top level, else through a slot."""
    ctx = cg.ctx
    if at_top and ctx.ret_slots is None and ctx.ret_vec is None:
        ctx.result = value
        return
    if value is None and not ctx.return_types:  # a bare `return` of a void real func
        mark_returned(cg)
        return
    v = (
        cg.as_vec(value)
        if not isinstance(value, Value | bool | int | float)
        else None
    )
    if v is not None:  # a vector returned from inside if/else: through local slots
        if ctx.ret_vec is None:
            zero = Vec(v.shape, [0] * len(v.elems))
            ctx.ret_vec = _func_vec_slot(cg, ctx, zero, cg.vec_dtype(v))
        ctx.ret_vec.store(cg, v)
        mark_returned(cg)
        return
    if not isinstance(value, Value | bool | int | float):
        raise cg.error(
            TaichiSyntaxError, node, "a 'return' inside if/else must return one scalar"
        )
    if ctx.ret_slots is None:
        dt = (
            ctx.return_types[0]
            if ctx.return_types
            else (
                value.dtype
                if isinstance(value, Value)
                else cg.em.literal_dtype(value)
            )
        )
        ctx.return_types = [dt]
        ctx.ret_slots = [ctx_slot(cg, dt)]
    cg.em.store(ctx.ret_slots[0], cg.em.value(value, ctx.return_types[0]))
    mark_returned(cg)

def _func_vec_slot(
    cg: KernelCodegen, ctx: FunctionContext, zero: Vec, dt: DataType
) -> LocalVecPlace:
    slots = [Place(ctx_slot(cg, dt, ctx), dt, False) for _ in zero.elems]
    return LocalVecPlace(zero.shape, dt, slots)

def ctx_slot(
    cg: KernelCodegen, dt: DataType, ctx: FunctionContext | None = None
) -> SSAValue:
    """A zero-initialized slot at the start of the current kernel or ti.func call."""
    ctx = ctx or cg.ctx
    if ctx.is_kernel:
        return cg.prologue_slot(dt)
    alloca = memref.AllocaOp.get(ir_type(dt), shape=[])
    zero = cg.em.make_const(0, dt)
    store = memref.StoreOp.get(zero.results[0], alloca.results[0], [])
    for op in (alloca, zero, store):
        _insert_at_anchor(cg, ctx, op)
    return alloca.results[0]

def _insert_at_anchor(cg: KernelCodegen, ctx: FunctionContext, op: Operation) -> None:
    op.location = cg.em.loc  # pyright: ignore[reportAttributeAccessIssue]
    block = ctx.entry_block
    if ctx.anchor is None:
        first = block.first_op
        if first is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, first)
    else:
        block.insert_op_after(op, ctx.anchor)
    ctx.anchor = op

def mark_returned(cg: KernelCodegen) -> None:
    """Record that a branch returned: later statements are skipped at run time."""
    ctx = cg.ctx
    if ctx.ret_flag is None:
        ctx.ret_flag = ctx_slot(cg, dtypes.u1)
    cg.em.store(ctx.ret_flag, cg.em.const(True, dtypes.u1))

def break_if_returned(cg: KernelCodegen) -> None:
    """After an inner loop that may have returned: `if returned { break }`."""
    from xdsl.ir import Block

    assert cg.ctx.ret_flag is not None
    returned = cg.em.load(cg.ctx.ret_flag, dtypes.u1)
    cg.em.emit(taichi.IfOp(returned.ssa, Block([taichi.BreakOp()])))


def guard_rest(cg: KernelCodegen, rest: list[ast.stmt]) -> None:
    """Run `rest` only if no earlier branch returned: `if !returned { rest }`."""
    from xdsl.ir import Block

    ctx = cg.ctx
    assert ctx.ret_flag is not None
    returned = cg.em.load(ctx.ret_flag, dtypes.u1)
    go = cg.em.logical_not(returned)
    block = Block()
    with cg.body(block):
        cg.visit_stmts(rest)
        cg.close(block)
    cg.em.emit(taichi.IfOp(go.ssa, block))


def _is_template(ann: Any) -> bool:
    return isinstance(ann, Template) or ann is Template or ann is types.template


_LOOP_CONFIG_WARNED: set[str] = set()


def loop_config(
    cg: KernelCodegen, node: ast.Call, args: list[Any], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """
    `ti.loop_config(...)` for the next loop, checked: `serialize` and `block_dim` (the
    threads of a group on Vulkan) are honoured; `parallelize` and
    `block_dim_adaptive=False` (CPU scheduling hints) warn once by name that they are
    not; `bit_vectorize=True` raises (no quantized types).
    """
    known = ("block_dim", "serialize", "parallelize", "block_dim_adaptive", "bit_vectorize")
    unknown = [k for k in kwargs if k not in known]
    if args or unknown:
        raise cg.error(
            TaichiSyntaxError,
            node,
            "ti.loop_config takes keyword arguments " + ", ".join(known)
            + (f", not {', '.join(unknown)}" if unknown else ""),
        )
    config = dict(kwargs)
    block_dim = config.get("block_dim")
    if block_dim is not None and (
        isinstance(block_dim, Value) or isinstance(block_dim, bool)
        or not isinstance(block_dim, int) or not 0 < block_dim <= 1024
    ):
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"ti.loop_config(block_dim=...) must be a constant from 1 to 1024, got "
            f"{describe(block_dim)}",
        )
    if config.get("bit_vectorize"):
        raise cg.error(
            TaichiSyntaxError,
            node,
            "ti.loop_config(bit_vectorize=True) needs quantized types, which "
            "taichi-xdsl does not support",
        )
    ignored = []
    if config.get("parallelize") is not None:
        ignored.append("parallelize")
    if config.get("block_dim_adaptive", True) is False:
        ignored.append("block_dim_adaptive")
    for option in ignored:
        if option not in _LOOP_CONFIG_WARNED:
            _LOOP_CONFIG_WARNED.add(option)
            warnings.warn(
                f"ti.loop_config({option}=...) is not supported by taichi-xdsl and is "
                "ignored: the loop is scheduled over every CPU thread as usual",
                stacklevel=2,
            )
    return config
