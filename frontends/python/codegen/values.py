"""
What kernel expressions evaluate to, and the code generator's bookkeeping types.

An expression is an IR `Value` (emitter.py), a `Place` (a 0-d memref: a local slot or a
field/ndarray element), a `Container` (a field or an ndarray), or a plain Python object
(a compile-time constant).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.dialects.builtin import i32 as ir_i32
from xdsl.ir import Block, Operation, SSAValue

from ..lang import dtypes
from ..lang.dtypes import DataType
from .emitter import Value
from ..lang.field import Field
from ..lang.matrix import Aggregate
from ..lang.source import FunctionSource

if TYPE_CHECKING:
    from .visitor import KernelCodegen

# ---------------------------------------------------------------------------------------
# What expressions evaluate to
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """A scalar place: a local variable slot, or a field/ndarray element (`is_global`)."""

    ptr: SSAValue
    dtype: DataType
    is_global: bool


class Container:
    """A field or an ndarray as the kernel sees it."""

    ssa: SSAValue
    dtype: DataType
    ndim: int
    element_shape: tuple[int, ...] = ()  # (n,) / (n, m): a Vector / Matrix container

    def shape(self, cg: KernelCodegen) -> tuple[Any, ...]:
        raise NotImplementedError


class FieldHandle(Container):
    def __init__(self, f: Field, ssa: SSAValue):
        self.field = f
        self.ssa = ssa
        self.dtype = f.dtype
        self.ndim = len(f.shape)
        self.element_shape = tuple(getattr(f, "element_shape", ()))

    def shape(self, cg: KernelCodegen) -> tuple[int, ...]:
        return self.field.shape


def container_index_offset(container: Container) -> tuple[int, ...]:
    """The index of a container's first element per axis (ti.field's `offset=`)."""
    if isinstance(container, FieldHandle):
        return tuple(container.field.index_offset) or (0,) * container.ndim
    return (0,) * container.ndim


class NdarrayHandle(Container):
    clamp = False  # ti.types.ndarray(boundary="clamp"): indices clamped into range

    def __init__(
        self,
        ssa: SSAValue,
        dtype: DataType,
        ndim: int,
        element_shape: tuple[int, ...] = (),
    ):
        self.ssa = ssa
        self.dtype = dtype
        self.ndim = ndim
        self.element_shape = element_shape
        self.companions: dict[str, NdarrayHandle] = {}
        """`x.grad` / `x.dual` when the kernel takes them as arguments (kernel.py)."""

    def shape(self, cg: KernelCodegen) -> tuple[Value, ...]:
        """`x.shape`: memref.dim of each axis, as i32."""
        out = []
        for axis in range(self.ndim):
            c = cg.em.emit(arith.ConstantOp(IntegerAttr(axis, IndexType())))
            dim = cg.em.emit(memref.DimOp(self.ssa, c))
            cast = cg.em.emit(arith.IndexCastOp(dim.results[0], ir_i32))
            out.append(Value(cast.results[0], dtypes.i32))
        return tuple(out)


class ArgPackValue:
    """A `ti.types.argpack` kernel parameter in the kernel body: its members (values,
    ndarray handles, member packs) by name; `p.a` is the member's value."""

    def __init__(self, name: str):
        self._name = name
        self._members: dict[str, Any] = {}

    def __getattr__(self, member: str) -> Any:
        members = self.__dict__.get("_members", {})
        if member in members:
            return members[member]
        raise AttributeError(f"argpack '{self.__dict__.get('_name')}' has no member '{member}'")


@dataclass
class LoopInfo:
    kind: str  # "range", "struct", "while" or "static"
    parallel: bool
    block: Block | None = None  # the body (where per-iteration state is set up)
    rng: SSAValue | None = None  # the iteration's ti.random state slot, once used
    static_exit: str | None = None  # a ti.static loop: "break"/"continue" was reached


@dataclass
class FunctionContext:
    """What names mean inside the kernel or the inlined ti.func being compiled."""

    src: FunctionSource
    globals: dict[str, Any]
    closure: dict[str, Any]
    is_kernel: bool
    entry_block: Block
    loop_base: int
    return_types: list[DataType] | None = None
    scopes: list[dict[str, Any]] = field(default_factory=lambda: [{}])
    ret_slots: list[SSAValue] | None = None
    ret_flag: SSAValue | None = None  # set once a return inside if/else ran
    anchor: Operation | None = None  # where a ti.func's slots are inserted
    result: Any = None
    ret_vec: Any = None  # a ti.func's vector result slots, when returned from a branch


BINOPS: dict[type, str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
}
PY_BINOPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "|": operator.or_,
    "^": operator.xor,
    "&": operator.and_,
}
CMPOPS: dict[type, str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
}
PY_CMPOPS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "is": operator.is_,
    "is not": operator.is_not,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}
ATOMIC_AUGASSIGN: dict[str, type[taichi.AtomicOp]] = {
    "+": taichi.AtomicAddOp,
    "-": taichi.AtomicSubOp,
    "&": taichi.AtomicAndOp,
    "|": taichi.AtomicOrOp,
    "^": taichi.AtomicXorOp,
}
TERMINATORS = (taichi.YieldOp, taichi.BreakOp, taichi.ContinueOp, taichi.ReturnOp)
UNSUPPORTED_NAMES = {
    "Lambda": "lambda",
    "ListComp": "list comprehension",
    "SetComp": "set comprehension",
    "DictComp": "dict comprehension",
    "GeneratorExp": "generator expression",
    "Try": "try",
    "TryStar": "try",
    "With": "with",
    "AsyncWith": "async with",
    "Raise": "raise",
    "ClassDef": "class",
    "FunctionDef": "def (nested function)",
    "AsyncFunctionDef": "async def",
    "Await": "await",
    "Yield": "yield",
    "YieldFrom": "yield from",
    "Global": "global",
    "Nonlocal": "nonlocal",
    "Delete": "del",
    "Import": "import",
    "ImportFrom": "import",
    "Match": "match",
    "NamedExpr": ":=",
    "Dict": "dict display",
    "Set": "set display",
    "Starred": "starred expression",
    "Slice": "slice",
    "AsyncFor": "async for",
    "MatMult": "@",
}
_PURE_NODES = (
    ast.Name,
    ast.Constant,
    ast.Load,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.BoolOp,
    ast.Attribute,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
    ast.Tuple,
)


def is_python(x: Any) -> bool:
    return not isinstance(x, Value | Place | Container | Aggregate)


def is_scalar(x: Any) -> bool:
    return isinstance(x, Value | bool | int | float)


def assigned_names(stmts: Sequence[ast.stmt]) -> set[str]:
    """Names stored to anywhere in `stmts` (variables that need a slot)."""
    names: set[str] = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def stored_into(stmts: Sequence[ast.stmt]) -> set[str]:
    """Names whose components `stmts` store to: `M[0, 1] = ..`, `v.x += ..`."""
    names: set[str] = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(
                node.ctx, ast.Store
            ):
                root = node.value
                while isinstance(root, ast.Subscript | ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name):
                    names.add(root.id)
    return names


def is_pure(node: ast.AST) -> bool:
    """An expression with no calls or memory reads: safe to evaluate eagerly."""
    return all(isinstance(n, _PURE_NODES) for n in ast.walk(node))


CMP_NAMES = frozenset(("<", "<=", ">", ">=", "==", "!="))


def contains_return(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(stmt))


def cmp_name(op: ast.cmpop) -> str:
    name = CMPOPS.get(type(op))
    if name is not None:
        return name
    return {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}[type(op)]


def describe(x: Any) -> str:
    if isinstance(x, Value):
        return f"a {x.dtype} value"
    if isinstance(x, FieldHandle):
        return "a field"
    if isinstance(x, NdarrayHandle):
        return "an ndarray"
    if isinstance(x, Place):
        return "a variable"
    if isinstance(x, Aggregate):
        shape = getattr(x, "shape", None)
        return f"a {'vector' if shape and len(shape) == 1 else 'matrix'} of shape {shape}"
    return (
        f"{type(x).__name__} {x!r}"
        if isinstance(x, int | float | str)
        else (f"a {type(x).__name__}")
    )
