"""
Find the loop-carried recurrences that LLVM's SLP vectoriser turned into a cross-lane
vector chain, so that the JIT can optimise that module again without SLP.

The SLP vectoriser prices a tree by throughput: two scalar multiplies for one packed
multiply is a gain, a lane insert or extract costs about one. On a loop-carried
recurrence whose lanes feed each other, that is the wrong measure: the loop runs at the
latency of the chain from a header phi back to itself, and every lane move SLP adds is
on that chain. Complex multiplication is the common case, `z = (z0*z0 - z1*z1 + c0,
2*z0*z1 + c1)` in a `while` loop (Taichi's fractal, mandelbrot and julia programs; the
bench's julia case): LLVM 22 vectorises it with an estimated gain of 4, and the loop
runs 1.6x slower (llvm-mca, znver3: 12.0 against 7.7 cycles an iteration; measured
single-thread: 114 against 62 ms, docs/cpu-speed/julia.md).

After SLP (optimised IR; `%sq` carries the squares, the lanes swap through extract and
insert on every iteration):

    loop:
      %sq = phi <2 x float> [ %sq0, %entry ], [ %sq.next, %loop ]
      %s0 = extractelement <2 x float> %sq, i64 0
      %re = fsub fast float -0.8, %s0
      %v  = insertelement <2 x float> %im2, float %re, i64 1
      %z  = fadd fast <2 x float> %v, %c
      %sq.next = fmul fast <2 x float> %z, %z
      br i1 %done, label %exit, label %loop

`cross_lane_recurrences(ir)` names every vector phi from which a chain of definitions
leads back to the phi itself through an `extractelement`, `insertelement` or
`shufflevector`. Vector phis of independent lanes (an accumulator of packed sums) have
no lane move on their cycle and are kept, and so are the loop vectoriser's own phis (in
its `vector.*` / `vec.epilog.*` blocks: first-order recurrences splice lanes by design,
and its cost model looks at the whole loop).
"""

from __future__ import annotations

import re

_NAME = r'%(?:"[^"]*"|[-\w.$]+)'
_DEFINITION = re.compile(rf"^\s*({_NAME}) = (?:(?:tail|musttail|notail) )?(\w+)(.*)$")
_LABEL = re.compile(r'^("[^"]*"|[-\w.$]+):')
_FUNCTION = re.compile(r"^define [^\n]*\{\n(.*?)^\}", re.S | re.M)
_VECTOR_PHI = re.compile(r"= phi (?:[a-z ]+ )?<\d+ x (?:half|bfloat|float|double)>")
_LANE_MOVES = frozenset({"extractelement", "insertelement", "shufflevector"})
_LOOP_VECTORIZER_BLOCKS = ("vector.", "vec.epilog.")


def cross_lane_recurrences(ir: str) -> list[str]:
    """
    The vector phis of `ir` (optimised LLVM IR text) whose loop-carried chain moves lanes.

    Returns:
        The phis' names (`%13`), in the order of the text; empty when there is none.
    """
    if not _VECTOR_PHI.search(ir):  # the common case: a cheap look at the whole text
        return []
    found: list[str] = []
    for body in _FUNCTION.findall(ir):
        if _VECTOR_PHI.search(body):
            definitions, phis = _definitions(body)
            found += [phi for phi in phis if _moves_lanes_on_its_cycle(phi, definitions)]
    return found


def _definitions(body: str) -> tuple[dict[str, tuple[str, list[str]]], list[str]]:
    """Each value's opcode and operand names; the vector phis outside vectorised loops."""
    definitions: dict[str, tuple[str, list[str]]] = {}
    phis: list[str] = []
    block = ""
    for line in body.splitlines():
        label = _LABEL.match(line)
        if label:
            block = label.group(1).strip('"')
            continue
        match = _DEFINITION.match(line)
        if not match:
            continue
        name, opcode, rest = match.groups()
        definitions[name] = (opcode, re.findall(_NAME, rest))
        if (
            opcode == "phi"
            and _VECTOR_PHI.search(line)
            and not block.startswith(_LOOP_VECTORIZER_BLOCKS)
        ):
            phis.append(name)
    return definitions, phis


def _moves_lanes_on_its_cycle(
    phi: str, definitions: dict[str, tuple[str, list[str]]]
) -> bool:
    """Whether a chain of operands from `phi`'s incoming values reaches `phi` again
    through a lane move (a search over (value, lane move seen yet) pairs)."""
    stack = [(value, False) for value in definitions[phi][1]]
    seen: set[tuple[str, bool]] = set()
    while stack:
        value, moved = stack.pop()
        if value == phi:
            if moved:
                return True
            continue
        if (value, moved) in seen or value not in definitions:
            continue  # an argument, a constant, a block label, or done already
        seen.add((value, moved))
        opcode, operands = definitions[value]
        moved = moved or opcode in _LANE_MOVES
        stack.extend((operand, moved) for operand in operands)
    return False
