"""lowering/spirv_hoist.py: the reordering moves the fewest ops it can and leaves a
block in exactly the order the ranks give (what moving every op gave)."""

from __future__ import annotations

import random

import pytest

from taichi_xdsl.lowering.spirv_hoist import _longest_increasing, _reorder
from xdsl.dialects import test
from xdsl.ir import Block


def _longest_length(values: list[int]) -> int:
    best = [1] * len(values)
    for k in range(len(values)):
        for j in range(k):
            if values[j] < values[k]:
                best[k] = max(best[k], best[j] + 1)
    return max(best, default=0)


@pytest.mark.parametrize("seed", range(20))
def test_longest_increasing_is_increasing_and_longest(seed: int):
    rng = random.Random(seed)
    values = list(range(rng.randrange(0, 40)))
    rng.shuffle(values)
    kept = _longest_increasing(values)
    chosen = [v for v, keep in zip(values, kept) if keep]
    assert chosen == sorted(chosen)
    assert len(chosen) == _longest_length(values)


@pytest.mark.parametrize("seed", range(20))
def test_reorder_gives_the_final_order(seed: int):
    rng = random.Random(seed)
    ops = [test.TestOp(attributes={}) for _ in range(rng.randrange(1, 30))]
    block = Block(ops)
    order = list(range(len(ops)))
    rng.shuffle(order)
    final = [ops[i] for i in order]
    _reorder(block, final, order)
    assert list(block.ops) == final


def test_reorder_keeps_an_increasing_run_in_place():
    ops = [test.TestOp(attributes={}) for _ in range(6)]
    block = Block(ops)
    order = [0, 1, 4, 2, 3, 5]  # only op 4 moves
    moved = []
    for op in ops:
        original = op.detach
        op.detach = (lambda o, f: lambda: (moved.append(o), f())[1])(op, original)  # type: ignore[method-assign]
    _reorder(block, [ops[i] for i in order], order)
    assert list(block.ops) == [ops[i] for i in order]
    assert moved == [ops[4]]
