"""
Vectors and matrices inside kernels.

A kernel-side vector or matrix (`Vec`) is a shape and a flat, row-major list of
scalars: IR values or Python numbers (compile-time constants, as `ti.Vector([i, j])`
inside `ti.static` loops). Arithmetic on it is arithmetic on its components, so the
rest of the compiler only ever sees scalars, except where a vector meets memory:

- a local vector variable is one slot per component (`LocalVecPlace`);
- an element of a Vector/Matrix field or ndarray (`ElementVecPlace`) is read and written
  whole with `vector.load` / `vector.store` on the container, whose trailing dimensions
  are the components; the `ti-scalarize` pass splits those into scalar element places:

      v = x[i]        %v = vector.load %x[%ii, %c0] : memref<16x3xf32>, vector<3xf32>
                      %v0 = vector.extract %v[0] : f32 from vector<3xf32>  (x3)
      x[i] = v * 2    %w = vector.insert ... ; vector.store %w, %x[%ii, %c0] ...
      x[i] += v       taichi.atomic_add on each component's element_ptr
"""

from __future__ import annotations

import ast
import functools
import itertools
import math as _math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiCompilationError, TaichiSyntaxError, TaichiTypeError
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, VectorType
from xdsl.ir import Block, SSAValue

from ..lang import dtypes
from ..lang.dtypes import DataType, promote
from .emitter import Value, ir_type
from ..lang.matrix import (
    VECTOR_TRANSPOSE,
    Matrix,
    MatrixType,
    swizzle_indices,
    swizzle_mismatch,
)
from .values import Aggregate, Container, Place, describe, is_python

if TYPE_CHECKING:
    from .visitor import KernelCodegen


class Vec(Aggregate):
    """A vector (shape (n,)) or matrix ((n, m)) value in a kernel."""

    __slots__ = ("elems", "shape")

    def __init__(self, shape: tuple[int, ...], elems: Sequence[Any]):
        assert len(elems) == _size(shape), (shape, len(elems))
        self.shape = shape
        self.elems = list(elems)

    @property
    def n(self) -> int:
        return self.shape[0]

    @property
    def m(self) -> int:
        return self.shape[1] if len(self.shape) == 2 else 1

    def at(self, i: int, j: int | None = None) -> Any:
        return self.elems[i if j is None else i * self.m + j]

    def row(self, i: int) -> Vec:
        return Vec((self.m,), self.elems[i * self.m : (i + 1) * self.m])


def _size(shape: tuple[int, ...]) -> int:
    return _math.prod(shape)


class KernelMethod:
    """A method of a kernel-side value (`v.norm`), called by the code generator."""

    __slots__ = ("fn", "name")

    def __init__(
        self, name: str, fn: Callable[[list[Any], dict[str, Any], ast.AST], Any]
):
        self.name = name
        self.fn = fn


class VecPlace(Aggregate):
    """Where a vector or matrix lives: a local variable or a field/ndarray element."""

    shape: tuple[int, ...]
    dtype: DataType

    def load(self, cg: KernelCodegen) -> Vec:
        raise NotImplementedError

    def store(self, cg: KernelCodegen, value: Vec) -> None:
        raise NotImplementedError

    def component(self, cg: KernelCodegen, flat: int) -> Place:
        raise NotImplementedError

    def dynamic_component(self, cg: KernelCodegen, index: list[Any]) -> Place | None:
        return None


class LocalVecPlace(VecPlace):
    """A vector variable: one local slot per component."""

    def __init__(self, shape: tuple[int, ...], dtype: DataType, slots: list[Place]):
        self.shape, self.dtype, self.slots = shape, dtype, slots

    def load(self, cg: KernelCodegen) -> Vec:
        return Vec(self.shape, [cg.em.load(s.ptr, s.dtype) for s in self.slots])

    def store(self, cg: KernelCodegen, value: Vec) -> None:
        for slot, x in zip(self.slots, value.elems):
            cg.em.store(slot.ptr, cg.em.value(x, self.dtype))

    def component(self, cg: KernelCodegen, flat: int) -> Place:
        return self.slots[flat]

    def dynamic_component(self, cg: KernelCodegen, index: list[Any]) -> Any:
        return DynamicComponent(self, index)


class DynamicComponent(Aggregate):
    """`v[k]` of a local vector with a run-time `k`: stores select the component."""

    def __init__(self, base: LocalVecPlace, index: list[Any]):
        self.base = base
        self.index = index
        self.dtype = base.dtype

    def hits(self, cg: KernelCodegen, node: ast.AST) -> list[Any]:
        out = []
        for pos in itertools.product(*(range(d) for d in self.base.shape)):
            hit: Any = True
            for i, p in zip(self.index, pos):
                hit = cg.logical("and", hit, cg.compare("==", i, p, node))
            out.append(hit)
        return out

    def load(self, cg: KernelCodegen, node: ast.AST) -> Any:
        return vec_getitem(cg, self.base.load(cg), self.index, node)

    def store(self, cg: KernelCodegen, value: Any, node: ast.AST) -> None:
        """Only the selected component is written (`if k == c: v[c] = x` for each c): a
        local declared outside a parallel loop is shared by its iterations, and writing
        back the other components would undo what other iterations stored there."""
        em = cg.em
        v = em.value(value, self.dtype)
        for slot, hit in zip(self.base.slots, self.hits(cg, node)):
            if is_python(hit):
                if hit:
                    em.store(slot.ptr, em.value(v, slot.dtype))
                continue
            then = Block()
            with em.at(then):
                em.store(slot.ptr, em.value(v, slot.dtype))
                em.emit(taichi.YieldOp())
            em.emit(taichi.IfOp(em.to_bool(hit).ssa, then))

    def atomic(self, cg: KernelCodegen, op_cls: Any, value: Any, node: ast.AST) -> None:
        """`v[k] += x` as an atomic on the selected component only."""
        em = cg.em
        for slot, hit in zip(self.base.slots, self.hits(cg, node)):
            if is_python(hit):
                if hit:
                    cg.atomic(op_cls, slot, value, node)
                continue
            then = Block()
            with em.at(then):
                cg.atomic(op_cls, slot, value, node)
                em.emit(taichi.YieldOp())
            em.emit(taichi.IfOp(em.to_bool(hit).ssa, then))


class DynamicSlicePlace(VecPlace):
    """
    `m[i, :]` / `m[:, j]` of a local matrix with a run-time `i` / `j`: each component a
    DynamicComponent (a store writes only the selected component).
    """

    def __init__(
        self, shape: tuple[int, ...], dtype: DataType, parts: list[DynamicComponent], node: ast.AST
    ):
        self.shape, self.dtype, self.parts, self.node = shape, dtype, parts, node

    def load(self, cg: KernelCodegen) -> Vec:
        return Vec(self.shape, [p.load(cg, self.node) for p in self.parts])

    def store(self, cg: KernelCodegen, value: Vec) -> None:
        for part, x in zip(self.parts, value.elems):
            part.store(cg, x, self.node)

    def component(self, cg: KernelCodegen, flat: int) -> Place:
        raise cg.error(
            TaichiSyntaxError,
            self.node,
            "an atomic update of a matrix slice with a run-time index is not supported; "
            "assign the slice instead (m[i, :] = m[i, :] + v)",
        )


class ElementVecPlace(VecPlace):
    """`x[i, j]` of a Vector/Matrix field or ndarray (components are trailing dims)."""

    def __init__(self, container: Container, indices: list[Value]):
        self.container = container
        self.indices = indices
        self.shape = container.element_shape
        self.dtype = container.dtype
        # a u1 (bool) component is stored as a byte (emitter.memref_type)
        self.stored_dtype = dtypes.u8 if self.dtype is dtypes.u1 else self.dtype

    def _vector_type(self) -> VectorType:
        return VectorType(ir_type(self.stored_dtype), self.shape)

    def _index_operands(self, cg: KernelCodegen) -> list[SSAValue]:
        em = cg.em
        out = [
            em.emit(arith.IndexCastOp(v.ssa, IndexType())).results[0] for v in self.indices
        ]
        zero = em.emit(arith.ConstantOp(IntegerAttr(0, IndexType()))).results[0]
        return out + [zero] * len(self.shape)

    def load(self, cg: KernelCodegen) -> Vec:
        em = cg.em
        vtype = self._vector_type()
        v = em.emit(vector.LoadOp(self.container.ssa, self._index_operands(cg), vtype))
        elems = []
        for pos in itertools.product(*(range(d) for d in self.shape)):
            ext = em.emit(vector.ExtractOp(v.results[0], list(pos), vtype.element_type))
            elems.append(em.cast(Value(ext.results[0], self.stored_dtype), self.dtype))
        return Vec(self.shape, elems)

    def store(self, cg: KernelCodegen, value: Vec) -> None:
        em = cg.em
        vtype = self._vector_type()
        scalars = [
            em.cast(em.value(x, self.dtype), self.stored_dtype).ssa for x in value.elems
        ]
        acc = em.emit(vector.BroadcastOp(scalars[0], vtype)).results[0]
        positions = list(itertools.product(*(range(d) for d in self.shape)))
        for pos, s in zip(positions[1:], scalars[1:]):
            acc = em.emit(vector.InsertOp(s, acc, list(pos))).results[0]
        em.emit(vector.StoreOp(acc, self.container.ssa, self._index_operands(cg)))

    def _place(self, cg: KernelCodegen, comps: list[Value]) -> Place:
        ssa = [v.ssa for v in (*self.indices, *comps)]
        op = cg.em.emit(taichi.ElementPtrOp(self.container.ssa, ssa))
        return Place(op.results[0], self.dtype, True)

    def component(self, cg: KernelCodegen, flat: int) -> Place:
        pos = _unravel(flat, self.shape)
        return self._place(cg, [cg.em.const(p, dtypes.i32) for p in pos])

    def dynamic_component(self, cg: KernelCodegen, index: list[Any]) -> Place | None:
        return self._place(cg, [cg.em.value(i, dtypes.i32) for i in index])


def place_positions(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The component positions of a vector/matrix shape, row-major."""
    return list(itertools.product(*(range(d) for d in shape)))


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return (flat,) if len(shape) == 1 else (flat // shape[1], flat % shape[1])


_MATH_UNARY = ("sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "exp", "log", "floor", "ceil")



# -- conversions -----------------------------------------------------------------

def as_vec(cg: KernelCodegen, x: Any) -> Vec | None:
    """`x` as a kernel vector: a Vec, a Python-scope Matrix, or a list literal."""
    if isinstance(x, Vec):
        return x
    if isinstance(x, Matrix):
        return Vec(x.shape, [e.item() for e in x.data.ravel()])
    if isinstance(x, list | tuple) and x:
        if all(isinstance(e, Value | int | float | bool) for e in x):
            return Vec((len(x),), list(x))
        rows = [as_vec(cg, e) for e in x]
        if all(r is not None and len(r.shape) == 1 for r in rows):
            m = rows[0].n  # type: ignore[union-attr]
            if all(r.n == m for r in rows):  # type: ignore[union-attr]
                return Vec((len(rows), m), [e for r in rows for e in r.elems])  # type: ignore[union-attr]
    return None

def vec_dtype(cg: KernelCodegen, v: Vec) -> DataType:
    dt: DataType | None = None
    for e in v.elems:
        t = e.dtype if isinstance(e, Value) else cg.em.literal_dtype(e)
        dt = t if dt is None else promote(dt, t)
    assert dt is not None
    return dt

def vec_cast(cg: KernelCodegen, v: Vec, dt: DataType) -> Vec:
    return Vec(v.shape, [cg.em.value(e, dt) for e in v.elems])

def new_vec_local(
    cg: KernelCodegen, name: str | None, v: Vec, dt: DataType | None = None
) -> LocalVecPlace:
    dt = dt or vec_dtype(cg, v)
    slots = []
    for k, e in enumerate(v.elems):
        slot = cg.em.alloca(dt, f"{name}_{k}" if name else None)
        cg.em.store(slot, cg.em.value(e, dt))
        slots.append(Place(slot, dt, False))
    return LocalVecPlace(v.shape, dt, slots)

def make_matrix(
    cg: KernelCodegen,
    args: list[Any],
    kwargs: dict[str, Any],
    node: ast.AST,
    is_vector: bool,
) -> Vec:
    """`ti.Vector([...], dt=...)` / `ti.Matrix([[...], ...], dt=...)` in a kernel."""
    if not args:
        raise cg.error(TaichiSyntaxError, node, "ti.Vector/ti.Matrix need a list")
    data = args[0]
    dt = kwargs.get("dt", kwargs.get("dtype", args[1] if len(args) > 1 else None))
    v = as_vec(cg, data)
    if v is None and is_vector and isinstance(data, Vec):
        v = data
    if v is None:
        raise cg.error(
            TaichiTypeError, node, f"cannot make a vector/matrix of {describe(data)}"
        )
    if is_vector and len(v.shape) != 1:
        raise cg.error(TaichiTypeError, node, "ti.Vector takes a flat list")
    if dt is not None:
        v = vec_cast(cg, v, cg.cook_dtype(dt, node))
    return v

def construct_type(
    cg: KernelCodegen, t: MatrixType, args: list[Any], node: ast.AST
) -> Vec:
    """`ti.math.vec3(x, y, z)`, `vec3(0)`, `vec3(v2, 1.0)`, `mat2(...)`."""
    flat: list[Any] = []
    for a in args:
        v = as_vec(cg, a)
        flat.extend(v.elems if v is not None else [a])
    size = _size(t.shape)
    if len(flat) == 1:
        flat = flat * size
    if len(flat) != size:
        raise cg.error(
            TaichiTypeError, node, f"{t!r} takes {size} values, got {len(flat)}"
        )
    dt = cg.cook_dtype(t.dtype, node)
    return Vec(t.shape, [cg.em.value(e, dt) for e in flat])

# -- element-wise ----------------------------------------------------------------

def vec_map(cg: KernelCodegen, fn: Callable[..., Any], *xs: Any, node: ast.AST) -> Vec:
    vecs = [as_vec(cg, x) if isinstance(x, Vec | Matrix | list | tuple) else None for x in xs]
    shapes = {v.shape for v in vecs if v is not None}
    if len(shapes) != 1:
        raise cg.error(
            TaichiTypeError,
            node,
            f"element-wise operation on vectors of shapes {sorted(shapes)}",
        )
    (shape,) = shapes
    cols = [v.elems if v is not None else [x] * _size(shape) for v, x in zip(vecs, xs)]
    return Vec(shape, [fn(*args) for args in zip(*cols)])

def vec_binop(cg: KernelCodegen, op: str, a: Any, b: Any, node: ast.AST) -> Vec:
    return vec_map(cg, lambda x, y: cg.binop(op, x, y, node), a, b, node=node)

def vec_compare(cg: KernelCodegen, op: str, a: Any, b: Any, node: ast.AST) -> Vec:
    return vec_map(cg, lambda x, y: cg.compare(op, x, y, node), a, b, node=node)

def s_math(cg: KernelCodegen, name: str, x: Any) -> Any:
    if is_python(x):
        return {"rsqrt": lambda t: 1 / _math.sqrt(t)}.get(
            name, getattr(_math, name, None)
        )(x)  # type: ignore[misc]
    return cg.em.math1(name, x)

def s_select(cg: KernelCodegen, c: Any, a: Any, b: Any) -> Any:
    if is_python(c):
        return a if c else b
    return cg.em.select(c, a, b)

def matmul(cg: KernelCodegen, a: Any, b: Any, node: ast.AST) -> Any:
    va, vb = as_vec(cg, a), as_vec(cg, b)
    if va is None or vb is None:
        raise cg.error(TaichiTypeError, node, "'@' needs two vectors/matrices")
    if len(va.shape) == 1 and len(vb.shape) == 1:
        return dot(cg, va, vb, node)
    if len(va.shape) == 1:  # v @ M: v as a row, as Taichi's (the same as M^T @ v)
        return matmul(cg, transpose(cg, vb, node), va, node)
    k = va.m
    rows_b = vb.n
    if k != rows_b:
        raise cg.error(
            TaichiTypeError, node, f"'@' of shapes {va.shape} and {vb.shape}"
        )
    if len(vb.shape) == 1:
        return Vec(
            (va.n,),
            [
                _sum(cg, 
                    [cg.binop("*", va.at(i, t), vb.at(t), node) for t in range(k)],
                    node,
                )
                for i in range(va.n)
            ],
        )
    out = [
        _sum(cg, 
            [cg.binop("*", va.at(i, t), vb.at(t, j), node) for t in range(k)], node
        )
        for i in range(va.n)
        for j in range(vb.m)
    ]
    return Vec((va.n, vb.m), out)

def _sum(cg: KernelCodegen, xs: list[Any], node: ast.AST) -> Any:
    acc = xs[0]
    for x in xs[1:]:
        acc = cg.binop("+", acc, x, node)
    return acc

def dot(cg: KernelCodegen, a: Vec, b: Any, node: ast.AST) -> Any:
    vb = as_vec(cg, b)
    if vb is None or vb.shape != a.shape:
        raise cg.error(TaichiTypeError, node, "dot() needs two vectors of one shape")
    return _sum(cg, 
        [cg.binop("*", x, y, node) for x, y in zip(a.elems, vb.elems)], node
    )

# -- determinant / inverse -------------------------------------------------------

def _det(cg: KernelCodegen, m: list[list[Any]], node: ast.AST) -> Any:
    n = len(m)
    if n == 1:
        return m[0][0]
    if n == 2:
        return cg.binop(
            "-",
            cg.binop("*", m[0][0], m[1][1], node),
            cg.binop("*", m[0][1], m[1][0], node),
            node,
        )
    terms = []
    for j in range(n):
        minor = [row[:j] + row[j + 1 :] for row in m[1:]]
        t = cg.binop("*", m[0][j], _det(cg, minor, node), node)
        terms.append(t if j % 2 == 0 else unary_neg(cg, t))
    return _sum(cg, terms, node)

def unary_neg(cg: KernelCodegen, x: Any) -> Any:
    return -x if is_python(x) else cg.em.neg(x)

def _square(
    cg: KernelCodegen, v: Vec, node: ast.AST, what: str, any_size: bool = False
) -> list[list[Any]]:
    """The rows of square `v` (up to 4x4 unless `any_size`), else Taichi's error."""
    if len(v.shape) != 2 or v.n != v.m:
        raise cg.error(TaichiTypeError, node, f"expected a square matrix, got shape {v.shape}")
    if v.n > 4 and not any_size:
        raise cg.error(TaichiTypeError, node, f"{what} needs a matrix up to 4x4, got {v.shape}")
    return [[v.at(i, j) for j in range(v.m)] for i in range(v.n)]

def inverse(cg: KernelCodegen, v: Vec, node: ast.AST) -> Vec:
    m = _square(cg, v, node, "inverse()")
    n = len(m)
    det = _det(cg, m, node)
    inv_det = cg.binop("/", 1.0, det, node)
    out: list[Any] = [None] * (n * n)
    for i in range(n):
        for j in range(n):
            if n == 1:
                cof: Any = 1.0
            else:
                minor = [r[:j] + r[j + 1 :] for k, r in enumerate(m) if k != i]
                cof = _det(cg, minor, node)
                if (i + j) % 2:
                    cof = unary_neg(cg, cof)
            out[j * n + i] = cg.binop("*", cof, inv_det, node)  # adjugate^T
    return Vec((n, n), out)

# -- attributes and methods ------------------------------------------------------

def vec_attr(cg: KernelCodegen, v: Vec, name: str, node: ast.AST) -> Any:
    if name == "n":
        return v.n
    if name == "m":
        return v.m
    if name == "T":
        return _vm_transpose(cg, v, node)
    idx = swizzle_indices(name)
    if idx is not None and len(v.shape) == 1:
        if max(idx) >= v.n:
            raise cg.error(TaichiSyntaxError, node, swizzle_mismatch(v.n, name))
        return (
            v.elems[idx[0]]
            if len(idx) == 1
            else Vec((len(idx),), [v.elems[i] for i in idx])
        )
    method = _VECTOR_METHODS.get(name)
    if method is None:
        raise cg.error(
            TaichiSyntaxError, node, f"a vector/matrix has no attribute '{name}'"
        )
    return KernelMethod(
        name, lambda args, kwargs, call: method(cg, v, *args, node=call, **kwargs)
    )

def transpose(cg: KernelCodegen, v: Vec, node: ast.AST) -> Vec:
    if len(v.shape) == 1:
        return Vec((1, v.n), v.elems)
    return Vec((v.m, v.n), [v.at(i, j) for j in range(v.m) for i in range(v.n)])

def _vm_transpose(cg: KernelCodegen, v: Vec, node: ast.AST) -> Vec:
    """`m.transpose()` / `m.T`; of a vector it is Taichi's error (a vector is no row)."""
    if len(v.shape) == 1:
        raise cg.error(TaichiCompilationError, node, VECTOR_TRANSPOSE)
    return transpose(cg, v, node)

def _vm_norm_sqr(cg: KernelCodegen, v: Vec, node: ast.AST) -> Any:
    return dot(cg, v, v, node)

def _vm_norm(
    cg: KernelCodegen, v: Vec, eps: Any = 0, node: ast.AST | None = None
) -> Any:  # type: ignore[assignment]
    s = dot(cg, v, v, node)
    if not (is_python(eps) and eps == 0):
        s = cg.binop("+", s, eps, node)
    return s_math(cg, "sqrt", s if not is_python(s) else float(s))

def _vm_norm_inv(
    cg: KernelCodegen, v: Vec, eps: Any = 0, node: ast.AST | None = None
) -> Any:  # type: ignore[assignment]
    return cg.binop("/", 1.0, _vm_norm(cg, v, eps, node=node), node)

def _vm_normalized(
    cg: KernelCodegen, v: Vec, eps: Any = 0, node: ast.AST | None = None
) -> Vec:  # type: ignore[assignment]
    norm = _vm_norm(cg, v, node=node)
    if not (is_python(eps) and eps == 0):
        norm = cg.binop("+", norm, eps, node)
    inv = cg.binop("/", 1.0, norm, node)
    return vec_binop(cg, "*", v, inv, node)

def _vm_dot(cg: KernelCodegen, v: Vec, other: Any, node: ast.AST) -> Any:
    return dot(cg, v, other, node)

def _vm_cross(cg: KernelCodegen, v: Vec, other: Any, node: ast.AST) -> Any:
    b = as_vec(cg, other)
    if b is None or b.shape != v.shape or v.shape not in ((2,), (3,)):
        raise cg.error(TaichiTypeError, node, "cross() needs two 2- or 3-vectors")
    a = v.elems
    c = b.elems

    def det2(p: Any, q: Any, r: Any, s: Any) -> Any:
        return cg.binop(
            "-", cg.binop("*", p, q, node), cg.binop("*", r, s, node), node
        )

    if v.n == 2:
        return det2(a[0], c[1], a[1], c[0])
    return Vec(
        (3,),
        [
            det2(a[1], c[2], a[2], c[1]),
            det2(a[2], c[0], a[0], c[2]),
            det2(a[0], c[1], a[1], c[0]),
        ],
    )

def _vm_outer_product(cg: KernelCodegen, v: Vec, other: Any, node: ast.AST) -> Vec:
    b = as_vec(cg, other)
    if b is None or len(b.shape) != 1 or len(v.shape) != 1:
        raise cg.error(TaichiTypeError, node, "outer_product() needs two vectors")
    return Vec(
        (v.n, b.n), [cg.binop("*", x, y, node) for x in v.elems for y in b.elems]
    )

def _vm_trace(cg: KernelCodegen, v: Vec, node: ast.AST) -> Any:
    m = _square(cg, v, node, "trace()", any_size=True)
    return _sum(cg, [m[i][i] for i in range(len(m))], node)

def _vm_determinant(cg: KernelCodegen, v: Vec, node: ast.AST) -> Any:
    return _det(cg, _square(cg, v, node, "determinant()"), node)

def _vm_inverse(cg: KernelCodegen, v: Vec, node: ast.AST) -> Vec:
    return inverse(cg, v, node)

def _vm_sum(cg: KernelCodegen, v: Vec, node: ast.AST) -> Any:
    return _sum(cg, v.elems, node)

def _vm_max(cg: KernelCodegen, v: Vec, node: ast.AST) -> Any:
    return cg.fold_minmax("max", list(v.elems), node)  # type: ignore[arg-type]

def _vm_min(cg: KernelCodegen, v: Vec, node: ast.AST) -> Any:
    return cg.fold_minmax("min", list(v.elems), node)  # type: ignore[arg-type]

def _vm_any(cg: KernelCodegen, v: Vec, node: ast.AST) -> Any:
    acc: Any = False
    for e in v.elems:
        acc = cg.logical("or", acc, e if is_python(e) else cg.em.to_bool(e))
    return acc

def _vm_all(cg: KernelCodegen, v: Vec, node: ast.AST) -> Any:
    acc: Any = True
    for e in v.elems:
        acc = cg.logical("and", acc, e if is_python(e) else cg.em.to_bool(e))
    return acc

def _vm_cast(cg: KernelCodegen, v: Vec, dt: Any, node: ast.AST) -> Vec:
    return vec_cast(cg, v, cg.cook_dtype(dt, node))

def _vm_to_list(cg: KernelCodegen, v: Vec, node: ast.AST) -> list[Any]:
    return list(v.elems)

# -- indexing --------------------------------------------------------------------

def slice_positions(
    cg: KernelCodegen, shape: tuple[int, ...], index: Any, node: ast.AST
) -> tuple[tuple[int, ...], list[tuple[Any, ...]]] | None:
    """
    When `index` holds a slice (`m[1:, :]`, `v[::2]`, `m[:, j]`): the shape of the part
    it selects and the full index of each of its components, row-major; else None.
    Omitted trailing axes are whole (`m[1:]` is rows 1..).
    """
    idx = list(index) if isinstance(index, tuple | list) else [index]
    if not any(isinstance(i, slice) for i in idx):
        return None
    if len(idx) > len(shape):
        raise cg.error(TaichiSyntaxError, node, f"too many indices for shape {shape}")
    idx += [slice(None)] * (len(shape) - len(idx))
    axes: list[list[Any]] = []
    out_shape: list[int] = []
    for i, dim in zip(idx, shape):
        if isinstance(i, slice):
            if any(isinstance(b, int) and b < 0 for b in (i.start, i.stop, i.step)):
                raise cg.error(
                    TaichiSyntaxError,
                    node,
                    "Negative indices are not supported in Taichi kernels. Write the "
                    f"position from the start (this axis has {dim} components).",
                )
            axes.append(list(range(*i.indices(dim))))
            out_shape.append(len(axes[-1]))
        else:
            axes.append([i])
    return tuple(out_shape), list(itertools.product(*axes))


def vec_getitem(cg: KernelCodegen, v: Vec, index: Any, node: ast.AST) -> Any:
    sliced = slice_positions(cg, v.shape, index, node)
    if sliced is not None:  # a compile-time part of the vector/matrix
        shape, positions = sliced
        return Vec(shape, [vec_getitem(cg, v, p, node) for p in positions])
    idx = _component_index(cg, v.shape, index, node)
    if all(is_python(i) for i in idx):
        return v.elems[_flat(v.shape, idx)]
    check_component_index(cg, v.shape, idx, node)
    # a dynamic index: select among the components by the row-major position, which
    # is clamped into range (as Taichi's ti.types.ndarray(boundary="clamp") does)
    em = cg.em
    flat: Any = idx[0]
    if len(idx) == 2:
        row = idx[0] * v.shape[1] if is_python(idx[0]) else em.binary("*", idx[0], v.shape[1])
        flat = em.binary("+", row, idx[1])
    flat = em.binary("max", em.binary("min", flat, len(v.elems) - 1), 0)
    result: Any = v.elems[0]
    for k in range(1, len(v.elems)):
        hit = cg.compare("==", flat, k, node)
        result = s_select(cg, hit, v.elems[k], result)
    return result

def _component_index(
    cg: KernelCodegen, shape: tuple[int, ...], index: Any, node: ast.AST
) -> list[Any]:
    if isinstance(index, Vec) and len(index.shape) == 1:  # M[I], I from ti.grouped
        index = tuple(index.elems)
    idx = list(index) if isinstance(index, tuple | list) else [index]
    if len(idx) != len(shape):  # Taichi's rule: a matrix has no rows `m[i]`
        raise cg.error(
            TaichiCompilationError, node, f"Expected {len(shape)} indices, got {len(idx)}."
        )
    for i in idx:
        if not isinstance(i, int | Value) or isinstance(i, bool):
            raise cg.error(TaichiTypeError, node, f"bad vector index {describe(i)}")
    return idx

def check_component_index(
    cg: KernelCodegen, shape: tuple[int, ...], idx: list[Any], node: ast.AST
) -> None:
    """
    Debug mode: a run-time index of a vector/matrix component asserts it is in range,
    naming the kernel's file and line (without debug the index is clamped, or selects
    nothing when stored to).
    """
    if not cg.program.config.debug:
        return
    from .expressions import source_position

    em = cg.em
    for i, dim in zip(idx, shape):
        if is_python(i):
            continue
        ok = em.logical(
            "and", em.compare(">=", i, em.const(0, i.dtype)), em.compare("<", i, em.const(dim, i.dtype))
        )
        where = source_position(cg, node).replace("{", "(").replace("}", ")")
        message = f"Out of bound access to a vector/matrix of shape {shape}\n{where}"
        em.emit(taichi.AssertOp(ok.ssa, message))

def vec_place_component(
    cg: KernelCodegen, place: VecPlace, index: Any, node: ast.AST
) -> Place:
    """The scalar place `v[i]` / `m[i, j]` of a vector place (`m[:, 0]`: a vector
    place over those components)."""
    sliced = slice_positions(cg, place.shape, index, node)
    if sliced is not None:
        shape, positions = sliced
        if not all(is_python(i) for p in positions for i in p):
            dynamic = [place.dynamic_component(cg, list(p)) for p in positions]
            if any(d is None for d in dynamic):
                raise cg.error(
                    TaichiSyntaxError,
                    node,
                    "assigning to a slice of a field/ndarray element with a run-time index "
                    "is not supported yet; use ti.static(...) for the index",
                )
            return DynamicSlicePlace(shape, place.dtype, dynamic, node)  # type: ignore[return-value]
        parts = [place.component(cg, _flat(place.shape, list(p))) for p in positions]
        return LocalVecPlace(shape, place.dtype, parts)  # type: ignore[return-value]
    idx = _component_index(cg, place.shape, index, node)
    if all(is_python(i) for i in idx):
        return place.component(cg, _flat(place.shape, idx))
    check_component_index(cg, place.shape, idx, node)
    dyn = place.dynamic_component(cg, idx)
    if dyn is None:
        raise cg.error(
            TaichiSyntaxError,
            node,
            "a local vector's component is assigned with a non-constant index; "
            "use ti.static(...) for the index",
        )
    return dyn

def store_vec(cg: KernelCodegen, place: VecPlace, value: Any, node: ast.AST) -> None:
    v = as_vec(cg, value)
    if v is None and (
        isinstance(value, Value)
        or (is_python(value) and isinstance(value, int | float))
    ):
        v = Vec(place.shape, [value] * _size(place.shape))
    if v is None or v.shape != place.shape:
        if v is not None:  # Taichi's words, with its type names
            first = v.elems[0] if v.elems else None
            elt = first.dtype if isinstance(first, Value) else cg.em.literal_dtype(first)
            given, wanted = _tensor_name(v.shape, elt), _tensor_name(place.shape, place.dtype)
            raise cg.error(
                TaichiTypeError, node, f"cannot assign '{given}' to '{wanted}'"
            )
        raise cg.error(
            TaichiTypeError,
            node,
            f"cannot store {describe(value)} into a {place.shape} vector/matrix",
        )
    place.store(cg, v)


def _tensor_name(shape: tuple[int, ...], dtype: Any) -> str:
    """Taichi's name of a vector/matrix type: `[Tensor (3) i32]`, `[Tensor (2, 2) f32]`."""
    return f"[Tensor ({', '.join(map(str, shape))}) {dtype}]"


def vec_aug(
    cg: KernelCodegen, place: VecPlace, op: str, rhs: Any, node: ast.AST, atomic_cls: Any
) -> None:
    """
    `v += w`: one atomic per component, as in Taichi, on local vectors too (a local
    declared outside a parallel loop is shared by its iterations; ti-demote-atomics
    demotes the atomics that cannot race).
    """
    v = as_vec(cg, rhs)
    elems = v.elems if v is not None else [rhs] * _size(place.shape)
    if v is not None and v.shape != place.shape:
        raise cg.error(
            TaichiTypeError, node, f"'{op}=' of shapes {place.shape} and {v.shape}"
        )
    if atomic_cls is not None and isinstance(place, DynamicSlicePlace):
        for part, e in zip(place.parts, elems):
            part.atomic(cg, atomic_cls, e, node)
        return
    if atomic_cls is not None:
        for k, e in enumerate(elems):
            cg.atomic(atomic_cls, place.component(cg, k), e, node)
        return
    current = place.load(cg)
    place.store(cg, vec_binop(cg, op, current, Vec(place.shape, elems), node))

# -- ti.math ---------------------------------------------------------------------

def math_call(cg: KernelCodegen, name: str, args: list[Any], node: ast.AST) -> Any:
    """`ti.math.*` functions on scalars and vectors (element-wise where it applies)."""
    impl = functools.partial(_MATH_FUNCTIONS[name], cg)
    if any(isinstance(a, Vec | Matrix) for a in args) and name in _ELEMENTWISE:
        return vec_map(cg, lambda *xs: impl(*xs, node=node), *args, node=node)
    return impl(*args, node=node)

def _tm_clamp(cg: KernelCodegen, x: Any, lo: Any, hi: Any, node: ast.AST) -> Any:
    return cg.fold_minmax("min", [cg.fold_minmax("max", [x, lo], node), hi], node)  # type: ignore[arg-type]

def _tm_mix(cg: KernelCodegen, x: Any, y: Any, a: Any, node: ast.AST) -> Any:
    return cg.binop(
        "+", x, cg.binop("*", cg.binop("-", y, x, node), a, node), node
    )

def _tm_step(cg: KernelCodegen, edge: Any, x: Any, node: ast.AST) -> Any:
    c = cg.compare("<", x, edge, node)
    return s_select(cg, c, 0.0, 1.0)

def _tm_smoothstep(cg: KernelCodegen, e0: Any, e1: Any, x: Any, node: ast.AST) -> Any:
    t = cg.binop(
        "/", cg.binop("-", x, e0, node), cg.binop("-", e1, e0, node), node
    )
    t = _tm_clamp(cg, t, 0.0, 1.0, node)
    return cg.binop(
        "*",
        cg.binop("*", t, t, node),
        cg.binop("-", 3.0, cg.binop("*", 2.0, t, node), node),
        node,
    )

def _tm_fract(cg: KernelCodegen, x: Any, node: ast.AST) -> Any:
    return cg.binop("-", x, s_math(cg, "floor", x), node)

def _tm_sign(cg: KernelCodegen, x: Any, node: ast.AST) -> Any:
    pos = cg.compare(">", x, 0, node)
    neg = cg.compare("<", x, 0, node)
    one = (
        1.0
        if (is_python(x) and isinstance(x, float))
        or (isinstance(x, Value) and x.dtype.is_float)
        else 1
    )
    return s_select(cg, pos, one, s_select(cg, neg, -one, one * 0))

def _tm_log2(cg: KernelCodegen, x: Any, node: ast.AST) -> Any:
    # `math.log2`, correctly rounded, not Taichi's `log(x) / log(2.0)`: its divisor is a
    # default_fp literal, so an f64 log2(3) comes out with an f32's precision.
    return s_math(cg, "log2", x)

def _float_bits(cg: KernelCodegen, x: Any, node: ast.AST) -> tuple[Value, int, int]:
    v = cg.em.value(x)
    if not v.dtype.is_float:
        v = cg.em.cast(v, cg.em.default_fp)
    bits = v.dtype.bits
    it = {16: dtypes.i16, 32: dtypes.i32, 64: dtypes.i64}[bits]
    cast = cg.em.emit(arith.BitcastOp(v.ssa, IntegerType(bits)))
    raw = Value(cast.results[0], it)
    mask = (1 << (bits - 1)) - 1
    exp_all = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}[bits]
    return cg.em.binary("&", raw, mask), exp_all, bits

def _tm_isnan(cg: KernelCodegen, x: Any, node: ast.AST) -> Any:
    if is_python(x):
        return _math.isnan(x)
    mag, exp_all, _ = _float_bits(cg, x, node)
    return cg.compare(">", mag, exp_all, node)

def _tm_isinf(cg: KernelCodegen, x: Any, node: ast.AST) -> Any:
    if is_python(x):
        return _math.isinf(x)
    mag, exp_all, _ = _float_bits(cg, x, node)
    return cg.compare("==", mag, exp_all, node)

def _vec_arg(cg: KernelCodegen, x: Any, node: ast.AST, fn: str) -> Vec:
    v = as_vec(cg, x)
    if v is None:
        raise cg.error(
            TaichiTypeError, node, f"ti.math.{fn}() needs vectors, got {describe(x)}"
        )
    return v

def _tm_dot(cg: KernelCodegen, a: Any, b: Any, node: ast.AST) -> Any:
    return dot(cg, _vec_arg(cg, a, node, "dot"), b, node)

def _tm_cross(cg: KernelCodegen, a: Any, b: Any, node: ast.AST) -> Any:
    return _vm_cross(cg, _vec_arg(cg, a, node, "cross"), b, node)

def _tm_length(cg: KernelCodegen, a: Any, node: ast.AST) -> Any:
    return _vm_norm(cg, _vec_arg(cg, a, node, "length"), node=node)

def _tm_normalize(cg: KernelCodegen, a: Any, node: ast.AST) -> Any:
    return _vm_normalized(cg, _vec_arg(cg, a, node, "normalize"), node=node)

def _tm_distance(cg: KernelCodegen, a: Any, b: Any, node: ast.AST) -> Any:
    return _vm_norm(cg, vec_binop(cg, "-", a, b, node), node=node)

def _tm_reflect(cg: KernelCodegen, i: Any, n: Any, node: ast.AST) -> Any:
    d = dot(cg, _vec_arg(cg, n, node, "reflect"), i, node)
    return vec_binop(cg, 
        "-", i, vec_binop(cg, "*", n, cg.binop("*", 2.0, d, node), node), node
    )

def _tm_determinant(cg: KernelCodegen, m: Any, node: ast.AST) -> Any:
    return _vm_determinant(cg, _vec_arg(cg, m, node, "determinant"), node)

def _tm_inverse(cg: KernelCodegen, m: Any, node: ast.AST) -> Any:
    return inverse(cg, _vec_arg(cg, m, node, "inverse"), node)


_ELEMENTWISE = frozenset(
    ("clamp", "mix", "step", "smoothstep", "fract", "sign", "log2", "isnan", "isinf")
)


def _flat(shape: tuple[int, ...], idx: list[Any]) -> int:
    idx = [int(i) for i in idx]
    for i, d in zip(idx, shape):
        if not 0 <= i < d:
            raise TaichiSyntaxError(
                f"index {i} out of range for a vector/matrix of shape {shape}"
            )
    return idx[0] if len(shape) == 1 else idx[0] * shape[1] + idx[1]


# `v.norm()`, `v.dot(w)`, ... and `ti.math.clamp(...)`, ...: the functions above by name.
_VECTOR_METHODS = {n[4:]: f for n, f in list(globals().items()) if n.startswith("_vm_")}
_MATH_FUNCTIONS = {n[4:]: f for n, f in list(globals().items()) if n.startswith("_tm_")}

__all__ = [
    "ElementVecPlace",
    "KernelMethod",
    "LocalVecPlace",
    "Vec",
    "VecPlace",
]
