"""lowering/pattern_dispatch.py: TypeDispatchApplier rewrites what
GreedyRewritePatternApplier rewrites, in the same order, calling each pattern only on
the op types it names."""

from __future__ import annotations

import pytest

from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier, matched_op_types
from taichi_xdsl.utils import registry
from taichi_xdsl.utils.pass_runner import print_ir_text
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

SOURCE = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %unused = arith.muli %a, %b : i32
  %s = arith.addi %a, %b : i32
  %d = arith.subi %s, %b : i32
  %m = arith.muli %d, %a : i32
  func.return %m : i32
}
"""


class AddToSub(RewritePattern):
    """Typed by annotation: addi -> subi (tried on addi only)."""

    calls: list[str]

    def __init__(self, calls: list[str]):
        self.calls = calls

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        self.calls.append(op.name)
        rewriter.replace(op, arith.SubiOp(op.lhs, op.rhs))


class SubOrMulToConstant(RewritePattern):
    """Typed by a union annotation: subi or muli -> a constant 7."""

    def __init__(self, calls: list[str]):
        self.calls = calls

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: arith.SubiOp | arith.MuliOp, rewriter: PatternRewriter
    ) -> None:
        self.calls.append(op.name)
        rewriter.replace(op, arith.ConstantOp(IntegerAttr(7, i32)))


class DeclaredReturn(RewritePattern):
    """Typed by `op_types`: branches inside; marks func.return."""

    op_types = (func.ReturnOp,)

    def __init__(self, calls: list[str]):
        self.calls = calls

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        self.calls.append(op.name)
        if isinstance(op, func.ReturnOp) and "seen" not in op.attributes:
            op.attributes["seen"] = IntegerAttr(1, i32)
            rewriter.handle_operation_modification(op)


class Untyped(RewritePattern):
    """Names no type: called on every op it is reached for."""

    def __init__(self, calls: list[str]):
        self.calls = calls

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        self.calls.append(op.name)


def _run(applier_type: type[GreedyRewritePatternApplier], dce: bool):
    ctx = registry.make_context(("func", "arith"))
    module = Parser(ctx, SOURCE).parse_module()
    calls: dict[str, list[str]] = {}
    patterns = []
    for pattern_type in (AddToSub, SubOrMulToConstant, DeclaredReturn, Untyped):
        calls[pattern_type.__name__] = []
        patterns.append(pattern_type(calls[pattern_type.__name__]))
    applier = applier_type(patterns, dce_enabled=dce)
    PatternRewriteWalker(applier).rewrite_module(module)
    return print_ir_text(module), calls


def test_matched_op_types():
    calls: list[str] = []
    assert matched_op_types(AddToSub(calls)) == (arith.AddiOp,)
    assert matched_op_types(SubOrMulToConstant(calls)) == (arith.SubiOp, arith.MuliOp)
    assert matched_op_types(DeclaredReturn(calls)) == (func.ReturnOp,)
    assert matched_op_types(Untyped(calls)) == (Operation,)


@pytest.mark.parametrize("dce", [True, False])
def test_same_rewrites_as_the_greedy_applier(dce: bool):
    greedy_ir, greedy_calls = _run(GreedyRewritePatternApplier, dce)
    typed_ir, typed_calls = _run(TypeDispatchApplier, dce)
    assert typed_ir == greedy_ir
    assert "arith.addi" not in typed_ir and "seen = 1 : i32" in typed_ir
    # The patterns that act saw the same ops in the same order ...
    for name in ("AddToSub", "SubOrMulToConstant"):
        assert typed_calls[name] == greedy_calls[name]
    # ... and each typed pattern saw only its own op types; the untyped one every op
    # that no earlier pattern rewrote, as under the greedy applier.
    assert set(typed_calls["DeclaredReturn"]) == {"func.return"}
    assert set(greedy_calls["DeclaredReturn"]) > {"func.return"}
    assert typed_calls["Untyped"] == greedy_calls["Untyped"]


def test_dce_runs_before_the_patterns():
    ir, calls = _run(TypeDispatchApplier, True)
    # the dead muli is erased, not turned into a constant: one muli -> constant only
    assert calls["SubOrMulToConstant"].count("arith.muli") == 1
    assert "%unused" not in ir
