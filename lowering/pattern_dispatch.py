"""
Pattern dispatch by op type: `TypeDispatchApplier` is xDSL's
`GreedyRewritePatternApplier` (patterns tried in order until one acts; trivially dead
ops erased first, optional folding) that tries on an op only the patterns that can
match its type.

Why: a walker calls its applier on every op of the IR, and the applier calls every
pattern, whose first act is an `isinstance` against xDSL's op classes. Those are ABCs,
so each miss runs `ABCMeta.__instancecheck__` in Python: a convert-offload-to-spirv
walk of a 4,500-op task with 15 patterns made some 150,000 of them to rewrite 300 ops.
Here the patterns that can match an op type are found once per type (`issubclass`)
and kept in a dict, so an op costs one dict lookup and the calls of its own patterns.

A pattern names the op types it matches by either
- `@op_type_rewrite_pattern` on its `match_and_rewrite` (xDSL's decorator: the type,
  or union of types, of the `op` parameter), or
- a class attribute `op_types: tuple[type[Operation], ...]`, for a pattern that takes
  any `Operation` and branches on its type inside (it must do nothing to other ops).
A pattern that names neither is tried on every op, as GreedyRewritePatternApplier does;
so the rewrites are the same ops in the same order, whichever applier runs.

    PatternRewriteWalker(GreedyRewritePatternApplier([A(), B()]))
      ~> PatternRewriteWalker(TypeDispatchApplier([A(), B()]))
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from types import UnionType
from typing import Union, get_args, get_origin

from taichi_xdsl.lowering.dead_code import is_trivially_dead
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
)

_ANY_OP: tuple[type[Operation], ...] = (Operation,)

_declared: dict[type[RewritePattern], tuple[type[Operation], ...]] = {}
"""The op types each pattern class matches (`matched_op_types`), found once a class."""


def matched_op_types(pattern: RewritePattern) -> tuple[type[Operation], ...]:
    """
    The op classes `pattern` can act on: its `op_types`, else the annotation that
    `@op_type_rewrite_pattern` checks, else `(Operation,)` (any op).
    """
    cls = type(pattern)
    found = _declared.get(cls)
    if found is None:
        found = _declared[cls] = _find_op_types(cls)
    return found


def _find_op_types(cls: type[RewritePattern]) -> tuple[type[Operation], ...]:
    declared = getattr(cls, "op_types", None)
    if declared is not None:
        return tuple(declared)
    method = cls.match_and_rewrite
    if method.__qualname__ != "op_type_rewrite_pattern.<locals>.impl":
        return _ANY_OP
    expected = inspect.getclosurevars(method).nonlocals.get("expected_type")
    if expected is None:  # another xDSL's decorator: try the pattern on every op
        return _ANY_OP
    types = get_args(expected) if get_origin(expected) in (Union, UnionType) else (expected,)
    if not all(isinstance(t, type) and issubclass(t, Operation) for t in types):
        return _ANY_OP
    return types


@dataclass(eq=False, repr=False)
class TypeDispatchApplier(GreedyRewritePatternApplier):
    """GreedyRewritePatternApplier that calls on an op only the patterns its type can
    match (see the module docstring); same options (`dce_enabled`, `folding_enabled`)."""

    _by_type: dict[type[Operation], tuple[RewritePattern, ...]] = field(
        default_factory=dict, init=False
    )
    _folder: GreedyRewritePatternApplier | None = field(default=None, init=False)
    """No patterns: GreedyRewritePatternApplier's folding of an op before its patterns;
    None when folding is off."""

    def __post_init__(self) -> None:
        if self.folding_enabled:
            self._folder = GreedyRewritePatternApplier(
                [], self.ctx, folding_enabled=True, dce_enabled=False
            )

    def _patterns_for(self, op_type: type[Operation]) -> tuple[RewritePattern, ...]:
        patterns = tuple(
            p for p in self.rewrite_patterns if issubclass(op_type, matched_op_types(p))
        )
        self._by_type[op_type] = patterns
        return patterns

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        # What GreedyRewritePatternApplier does first: erase a trivially dead op (asked
        # as xDSL does, more cheaply: lowering/dead_code.py), fold.
        if self.dce_enabled and is_trivially_dead(op):
            rewriter.erase(op)
            return
        if self._folder is not None:
            self._folder.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return
        patterns = self._by_type.get(type(op))
        if patterns is None:
            patterns = self._patterns_for(type(op))
        for pattern in patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return
