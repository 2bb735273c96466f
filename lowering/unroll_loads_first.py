"""
The unrolled copies of a guarded range_for body, loads first (convert-offload-to-spirv's
`unroll-loads-first`): each copy's guarded loads run, under the copy's own guard, before
the guarded bodies of all copies, so the loads of every copy are in flight together.

A body under an if (ti-align-rows' guard of the padded columns, a user's `if`) is
unrolled one copy after another. Each copy's body then ends in a store, which a driver
may not move a later copy's loads above (they may alias: fields share the root buffer),
so the copies' memory latencies follow one another. Here the loads that open a copy's
`then` block (those before any operation with an effect other than a read, or with
regions), with the pure operations their addresses need, are cloned into a selection of
their own on the same condition, which stores each loaded value into a Function variable;
the copy's `then` block reads the variables instead. The copies then run as: every
copy's operations before its first if, every copy's load selection, every copy's rest.

    copy k: %g_k = ...                                   %g_0 ... %g_1 ...
            if %g_k { %a = x[i_k]; %b = y[i_k]      ~>   if %g_0 { v_a0 = x[i_0]; v_b0 = y[i_0] }
                      z[i_k] = %a + %b }                 if %g_1 { v_a1 = x[i_1]; v_b1 = y[i_1] }
                                                         if %g_0 { z[i_0] = v_a0 + v_b0 }
                                                         if %g_1 { z[i_1] = v_a1 + v_b1 }

A copy's own operations keep their order; only operations of different copies are
reordered, which iterations of a parallel loop allow (they may run in any order). A load
runs only where it ran before: under its copy's condition, before the copy's first write.
Copies that share a thread-local slot (a reduction) are not handed here. On an H100 the
2048^2 stencil's task takes 14.3 us this way, 15.3 without (docs/gpu-speed/stencil.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import is_side_effect_free

from taichi_xdsl.dialects import spirv


def loads_first(
    copies: Sequence[Sequence[Operation]],
) -> tuple[list[Operation], list[spirv.VariableOp]]:
    """
    The copies' operations in their new order (see the module docstring), and the
    Function variables that carry loaded values (to be declared in the entry block).
    A copy whose first top-level selection is not a plain `if` (no else) or opens with
    no load keeps that selection whole.
    """
    heads: list[Operation] = []
    load_selections: list[Operation] = []
    rests: list[Operation] = []
    variables: list[spirv.VariableOp] = []
    for ops in copies:
        first = next(
            (n for n, op in enumerate(ops) if isinstance(op, spirv.SelectionOp)), None
        )
        if first is None:
            heads.extend(ops)
            continue
        heads.extend(ops[:first])
        selection = ops[first]
        assert isinstance(selection, spirv.SelectionOp)
        load_selections.extend(_split_loads(selection, variables))
        rests.extend(ops[first:])
    return heads + load_selections + rests, variables


def _then_block(selection: spirv.SelectionOp) -> tuple[SSAValue, Block] | None:
    """The condition and `then` block of an if without else (the false branch goes
    straight to the merge block), else None."""
    blocks = list(selection.body.blocks)
    header = blocks[0].last_op
    if len(blocks) != 3 or not isinstance(header, spirv.BranchConditionalOp):
        return None
    if header.trueTarget is not blocks[1] or header.falseTarget is not blocks[2]:
        return None
    if header.trueTargetOperands or header.falseTargetOperands or len(blocks[0].ops) != 1:
        return None
    return header.condition, blocks[1]


def _loadable(op: Operation) -> bool:
    """A load of a scalar that a Function variable can hold."""
    return isinstance(op, memref.LoadOp) and isinstance(
        op.res.type, IntegerType | AnyFloat
    )


def _split_loads(
    selection: spirv.SelectionOp, variables: list[spirv.VariableOp]
) -> list[Operation]:
    """
    The loads that open `selection`'s then block, with the pure operations their
    addresses use, cloned into a new selection on the same condition (returned; empty
    where there is no such load) that stores them into new Function variables
    (appended to `variables`), which the then block reads instead.
    """
    found = _then_block(selection)
    if found is None:
        return []
    condition, then = found
    prefix: list[Operation] = []
    for op in then.ops:
        if op.regions or not (_loadable(op) or is_side_effect_free(op)):
            break
        prefix.append(op)
    loads = [op for op in prefix if isinstance(op, memref.LoadOp)]
    if not loads:
        return []
    # The slice: the loads and what their operands need from the prefix.
    needed: set[int] = set()
    for op in reversed(prefix):
        if isinstance(op, memref.LoadOp) or id(op) in needed:
            needed.add(id(op))
            for operand in op.operands:
                if isinstance(operand.owner, Operation) and operand.owner.parent is then:
                    needed.add(id(operand.owner))
    body = Block()
    mapping: dict[SSAValue, SSAValue] = {}
    cloned: list[tuple[memref.LoadOp, Operation]] = []
    for op in prefix:
        if id(op) in needed:
            clone = op.clone(value_mapper=mapping)  # maps op's results to clone's
            body.add_op(clone)
            if isinstance(op, memref.LoadOp):
                cloned.append((op, clone))
    for load, clone in cloned:
        variable = spirv.VariableOp(spirv.PointerType(load.res.type, "Function"))
        variables.append(variable)
        body.add_op(spirv.StoreOp(variable, clone.results[0]))
        read = spirv.LoadOp(variable)
        then.insert_op_before(read, load)
        load.res.replace_all_uses_with(read.results[0])
        then.erase_op(load)
    merge = Block([spirv.MergeOp()])
    body.add_op(spirv.BranchOp(merge))
    header = Block([spirv.BranchConditionalOp(condition, body, merge)])
    return [spirv.SelectionOp(Region([header, body, merge]))]

