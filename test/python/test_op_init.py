"""dialects/op_init.py: `init_op` builds the op `IRDLOperation.__init__` builds, the fast
way for ops of one operand and result per definition, the general way otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from taichi_xdsl.dialects import spirv
from taichi_xdsl.dialects.op_init import _fixed_counts, init_op
from xdsl.dialects.builtin import IntegerAttr, VectorType, i32
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException


def _both(cls: type[IRDLOperation], **kwargs: Any) -> tuple[IRDLOperation, IRDLOperation]:
    fast = cls.__new__(cls)
    init_op(fast, **kwargs)
    general = cls.__new__(cls)
    IRDLOperation.__init__(
        general,
        operands=list(kwargs.get("operands", ())),
        result_types=list(kwargs.get("result_types", ())),
        properties=kwargs.get("properties"),
        attributes=kwargs.get("attributes"),
    )
    return fast, general


def _same(a: IRDLOperation, b: IRDLOperation) -> None:
    assert type(a) is type(b)
    assert list(a.operands) == list(b.operands)
    assert [r.type for r in a.results] == [r.type for r in b.results]
    assert a.properties == b.properties
    assert a.attributes == b.attributes
    assert a.location == b.location
    assert len(a.regions) == len(b.regions) and a.successors == b.successors


def test_fixed_and_general_shapes():
    assert _fixed_counts(spirv.IAddOp) == (2, 1)
    assert _fixed_counts(spirv.ConstantOp) == (0, 1)
    assert _fixed_counts(spirv.AccessChainOp) is None  # variadic indices
    assert _fixed_counts(spirv.CompositeConstructOp) is None


def test_the_fast_way_builds_the_same_op():
    c = spirv.ConstantOp(IntegerAttr(3, i32))
    _same(*_both(spirv.IAddOp, operands=(c, c.results[0]), result_types=(i32,)))
    _same(*_both(spirv.ConstantOp, properties={"value": IntegerAttr(7, i32)},
                 result_types=(i32,)))  # fmt: skip
    fast, general = _both(
        spirv.IAddOp, operands=(c, c), result_types=(i32,),
        attributes={"no_contraction": None},
    )  # fmt: skip
    _same(fast, general)
    assert "no_contraction" not in fast.attributes  # a None attribute is left out
    fast.verify()


def test_the_general_way_for_other_shapes():
    c = spirv.ConstantOp(IntegerAttr(3, i32))
    vector = VectorType(i32, [2])
    fast, general = _both(
        spirv.CompositeConstructOp, operands=([c, c],), result_types=(vector,)
    )
    _same(fast, general)
    assert len(fast.operands) == 2


def test_a_wrong_count_is_refused_as_before():
    c = spirv.ConstantOp(IntegerAttr(3, i32))
    op = spirv.IAddOp.__new__(spirv.IAddOp)
    with pytest.raises(ValueError, match="Expected 2 operand, but got 1"):
        init_op(op, operands=(c,), result_types=(i32,))


def test_ops_built_with_it_still_verify():
    c = spirv.ConstantOp.from_int(1)
    bad = spirv.IAddOp(c, spirv.ConstantOp.from_bool(True))
    with pytest.raises(VerifyException):
        bad.verify()
