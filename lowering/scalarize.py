"""
ti-scalarize: vector and matrix values to scalars.

The frontend keeps `ti.Vector` / `ti.Matrix` values of a kernel as builtin vector
types (`vector<3xf32>`, `vector<3x3xf32>`) where they meet memory: a Vector.field of
n components is a field with one more dimension (`memref<NxMx3xf32>` for a 2-d field
of 3-vectors) read and written whole with `vector.load` / `vector.store`, and parts
of a value are taken with `vector.extract` and built with `vector.broadcast` and
`vector.insert`. Element-wise `arith` / `math` ops on vectors may appear too (hand-
written IR, other frontends). Nothing past the taichi level handles vectors, so this
pass (first in `ti-to-offload`) rewrites them all into scalar ops on the components,
as Taichi's `scalarize` pass does (taichi/transforms/scalarize.cpp):

    %v = vector.load %x[%i, %j, %c0] : memref<8x8x2xf32>, vector<2xf32>
    %a = vector.extract %v[1] : f32 from vector<2xf32>
    ~>
    %p0 = taichi.element_ptr %x[%i32, %j32, %k0] : memref<8x8x2xf32> -> memref<f32>
    %s0 = memref.load %p0[] : memref<f32>
    %p1 = taichi.element_ptr %x[%i32, %j32, %k1] : memref<8x8x2xf32> -> memref<f32>
    %s1 = memref.load %p1[] : memref<f32>
    (uses of %a now use %s1; the rebuilt vector is dead and goes away)

Every load of a vector becomes the loads of its components at the same point (so a
store between the load and a use cannot change what is read); a use of a component
then folds through insert, broadcast and element-wise ops down to those scalars.
A vector value that is still used by an op this pass cannot split is an error.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from taichi_xdsl.dialects import taichi
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.context import Context
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    ModuleOp,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)


def _positions(vtype: VectorType) -> list[tuple[int, ...]]:
    """Every static position of a vector type, in row-major order."""
    return list(itertools.product(*(range(d) for d in vtype.get_shape())))


def _static_position(op: vector.ExtractOp | vector.InsertOp) -> tuple[int, ...] | None:
    """The position of a full (scalar) extract/insert with static indices only."""
    if op.dynamic_position:
        return None
    return tuple(op.static_position.get_values())


def _is_scalar_extract(op: vector.ExtractOp) -> bool:
    return not isinstance(op.result.type, VectorType)


class _IndexAsI32:
    """Builds the i32 index operands of taichi.element_ptr from `index` values."""

    def __init__(self, rewriter: PatternRewriter):
        self.rewriter = rewriter

    def __call__(self, index: SSAValue, offset: int) -> SSAValue:
        owner = index.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return self._const(owner.value.value.data + offset)
        if isinstance(owner, arith.IndexCastOp) and owner.input.type == i32:
            base = owner.input
        else:
            cast = arith.IndexCastOp(index, i32)
            self.rewriter.insert(cast)
            base = cast.result
        if offset == 0:
            return base
        add = arith.AddiOp(base, self._const(offset))
        self.rewriter.insert(add)
        return add.result

    def _const(self, value: int) -> SSAValue:
        op = arith.ConstantOp(IntegerAttr(value, i32))
        self.rewriter.insert(op)
        return op.result


def _element_places(
    base: SSAValue,
    indices: Sequence[SSAValue],
    vtype: VectorType,
    rewriter: PatternRewriter,
) -> list[SSAValue]:
    """The scalar places of each component of a vector at `base[indices]`."""
    as_i32 = _IndexAsI32(rewriter)
    rank = vtype.get_num_dims()
    lead = [as_i32(i, 0) for i in indices[: len(indices) - rank]]
    trail = indices[len(indices) - rank :]
    places = []
    for pos in _positions(vtype):
        tail = [as_i32(i, p) for i, p in zip(trail, pos)]
        ptr = taichi.ElementPtrOp(base, [*lead, *tail])
        rewriter.insert(ptr)
        places.append(ptr.result)
    return places


def _build_vector(
    scalars: Sequence[SSAValue], vtype: VectorType, rewriter: PatternRewriter
) -> SSAValue:
    """A vector of `vtype` from its components: broadcast the first, insert the rest."""
    acc = vector.BroadcastOp(scalars[0], vtype)
    rewriter.insert(acc)
    value: SSAValue = acc.vector
    for pos, s in zip(_positions(vtype)[1:], scalars[1:]):
        ins = vector.InsertOp(s, value, list(pos))
        rewriter.insert(ins)
        value = ins.result
    return value


class ScalarizeVectorLoad(RewritePattern):
    """
    A load of a whole vector -> the loads of its components, at the same point.

        %v = vector.load %x[%i, %c0] : memref<16x2xf32>, vector<2xf32>
        ~>
        %p0 = taichi.element_ptr %x[%i32, %k0] ...   %s0 = memref.load %p0[]
        %p1 = taichi.element_ptr %x[%i32, %k1] ...   %s1 = memref.load %p1[]
        %v = vector.insert %s1, (vector.broadcast %s0) [1]
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.LoadOp, rewriter: PatternRewriter) -> None:
        vtype = op.result.type
        assert isinstance(vtype, VectorType)
        places = _element_places(op.base, op.indices, vtype, rewriter)
        scalars = []
        for p in places:
            load = memref.LoadOp.get(p, [])
            rewriter.insert(load)
            scalars.append(load.res)
        rewriter.replace(op, [], [_build_vector(scalars, vtype, rewriter)])


class ScalarizeVectorStore(RewritePattern):
    """
    A store of a whole vector -> one store per component.

        vector.store %v, %x[%i, %c0] : memref<16x2xf32>, vector<2xf32>
        ~>
        %a = vector.extract %v[0]   %p0 = taichi.element_ptr %x[%i32, %k0]
        memref.store %a, %p0[]      (and the same for component 1)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.StoreOp, rewriter: PatternRewriter) -> None:
        vtype = op.vector.type
        assert isinstance(vtype, VectorType)
        places = _element_places(op.base, op.indices, vtype, rewriter)
        for pos, place in zip(_positions(vtype), places):
            ext = vector.ExtractOp(op.vector, list(pos), vtype.element_type)
            rewriter.insert(ext)
            rewriter.insert(memref.StoreOp.get(ext.result, place, []))
        rewriter.erase(op)


class FoldExtractOfInsert(RewritePattern):
    """
    `extract(insert(%s, %d, P), Q)` -> `%s` if P == Q, else `extract(%d, Q)`.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.ExtractOp, rewriter: PatternRewriter) -> None:
        ins = op.vector.owner
        if not isinstance(ins, vector.InsertOp) or not _is_scalar_extract(op):
            return
        p, q = _static_position(ins), _static_position(op)
        if p is None or q is None or len(p) != len(q):
            return
        if p == q:
            rewriter.replace(op, [], [ins.source])
        else:
            rewriter.replace(op, vector.ExtractOp(ins.dest, list(q), op.result.type))


class FoldExtractOfBroadcast(RewritePattern):
    """`extract(broadcast(%s : scalar), Q)` -> `%s`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.ExtractOp, rewriter: PatternRewriter) -> None:
        bc = op.vector.owner
        if isinstance(bc, vector.BroadcastOp) and not isinstance(
            bc.source.type, VectorType
        ):
            rewriter.replace(op, [], [bc.source])


class ScalarizeElementwise(RewritePattern):
    """
    A component of an element-wise arith/math op -> the op on the components.

        %c = arith.addf %a, %b : vector<3xf32>
        %x = vector.extract %c[2] : f32 from vector<3xf32>
        ~>
        %a2 = vector.extract %a[2]   %b2 = vector.extract %b[2]
        %x = arith.addf %a2, %b2 : f32

    A splat `arith.constant dense<1.0> : vector<3xf32>` gives the scalar constant.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.ExtractOp, rewriter: PatternRewriter) -> None:
        src = op.vector.owner
        pos = _static_position(op)
        if (
            not isinstance(src, Operation)
            or pos is None
            or not _is_scalar_extract(op)
            or src.dialect_name() not in ("arith", "math")
            or len(src.results) != 1
        ):
            return
        scalar_type = op.result.type
        if isinstance(src, arith.ConstantOp):
            value = src.value
            if not isinstance(value, DenseIntOrFPElementsAttr):
                return
            values = value.get_values()
            vtype = src.result.type
            assert isinstance(vtype, VectorType)
            flat = 0 if len(values) == 1 else _positions(vtype).index(pos)
            attr = _scalar_attr(values[flat], scalar_type)
            rewriter.replace(op, arith.ConstantOp(attr, scalar_type))
            return
        operands = []
        for operand in src.operands:
            if isinstance(operand.type, VectorType):
                element = operand.type.element_type
                ext = vector.ExtractOp(operand, list(pos), element)
                rewriter.insert(ext)
                operands.append(ext.result)
            else:
                operands.append(operand)  # arith.select's scalar condition
        new = type(src).create(
            operands=operands,
            result_types=[scalar_type],
            properties=dict(src.properties),
            attributes=dict(src.attributes),
        )
        rewriter.replace(op, new)


def _scalar_attr(value: float, scalar_type: Attribute) -> Attribute:
    from xdsl.dialects.builtin import FloatAttr

    if isinstance(value, float):
        return FloatAttr(value, scalar_type)  # pyright: ignore[reportArgumentType]
    return IntegerAttr(value, scalar_type)  # pyright: ignore[reportArgumentType]


def _vector_users_left(module: ModuleOp) -> Operation | None:
    for op in module.walk():
        if any(isinstance(r.type, VectorType) for r in op.results):
            return op
        if isinstance(op, vector.ExtractOp | vector.InsertOp | vector.BroadcastOp):
            return op
    return None


@dataclass(frozen=True)
class ScalarizePass(ModulePass):
    """Rewrite vector-typed values (Vector/Matrix fields and values) into scalars."""

    name = "ti-scalarize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            TypeDispatchApplier(
                [
                    ScalarizeVectorLoad(),
                    ScalarizeVectorStore(),
                    FoldExtractOfInsert(),
                    FoldExtractOfBroadcast(),
                    ScalarizeElementwise(),
                ]
            ),
            apply_recursively=True,
        ).rewrite_module(op)
        left = _vector_users_left(op)
        if left is not None:
            raise PassFailedAt(
                left, f"ti-scalarize: cannot scalarize '{left.name}' on vector values"
            )


__all__ = ["ScalarizePass"]
