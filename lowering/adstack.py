"""
The lowering of the adstack ops (dialects/taichi.py) on both targets: a stack is a
fixed-size array of its element type and an i32 count, both private to the invocation
(an `llvm.alloca` at the task function's entry on the CPU, `Function` variables in
SPIR-V); the alloca op itself sets the count to 0 where it stands.

    %s = taichi.adstack_alloca : !taichi.adstack<f32, 16>
    %ok = taichi.adstack_push %s, %v : !taichi.adstack<f32, 16>
    %t = taichi.adstack_load_top %s : !taichi.adstack<f32, 16> -> f32
    taichi.adstack_pop %s : !taichi.adstack<f32, 16>
    ~>
    (entry) %buf = <16 x f32> ; %count = <i32>
    store 0, %count
    %n = load %count ; %ok = %n <u 16 ; %i = %ok ? %n : 15
    %old = load %buf[%i] ; store (%ok ? %v : %old), %buf[%i] ; store %n + 1, %count
    %n2 = load %count ; %m = %n2 - 1 ; %j = %m <u 16 ? %m : 15 ; %t = load %buf[%j]
    %n3 = load %count ; store %n3 - 1, %count

A push onto a full stack keeps what the stack holds (no write past its end) and
counts the value, so that pops stay balanced; its `%ok` is false, and ti-auto-diff
asserts it (`always`): the overflow reaches the error record on both targets.

Each target's pattern has its own file, so that a pipeline imports only its target's
dialect: `AdStackToLLVM` (lowering/llvm_adstack.py) runs inside convert-offload-to-llvm
(after the task functions exist), `AdStackToSpirv` (lowering/spirv_adstack.py) inside
convert-taichi-to-spirv; both build their ops through a `StackTarget` and share
`lower_stack_uses`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.dialects.builtin import i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter


@dataclass
class StackTarget:
    """How one target builds the few operations a stack needs."""

    const: Callable[[int], Operation]
    load: Callable[[SSAValue, Attribute], Operation]
    store: Callable[[SSAValue, SSAValue], Operation]
    element_ptr: Callable[[SSAValue, SSAValue], Operation]
    less_than: Callable[[SSAValue, SSAValue], Operation]
    select: Callable[[SSAValue, SSAValue, SSAValue], Operation]
    add: Callable[[SSAValue, SSAValue], Operation]
    sub: Callable[[SSAValue, SSAValue], Operation]


def lower_stack_uses(
    op: taichi.AdStackAllocaOp,
    buffer: SSAValue,
    count: SSAValue,
    t: StackTarget,
    rewriter: PatternRewriter,
) -> None:
    """Rewrite every push, pop and top of the stack `op` makes, then `op` itself."""
    stack_type = op.stack.type
    assert isinstance(stack_type, taichi.AdStackType)
    size, element = stack_type.size, stack_type.element_type

    def clamped(index: SSAValue, inside: SSAValue | None, ops: list[Operation]) -> SSAValue:
        """`index` if it is inside the buffer (`inside`, when known), else its last slot."""
        last = t.const(size - 1)
        ops.append(last)
        if inside is None:
            bound = t.const(size)
            check = t.less_than(index, bound.results[0])
            ops += [bound, check]
            inside = check.results[0]
        chosen = t.select(inside, index, last.results[0])
        ops.append(chosen)
        return chosen.results[0]

    for use in list(op.stack.uses):
        user = use.operation
        n = t.load(count, i32)
        n.results[0].name_hint = "depth"
        ops: list[Operation] = [n]
        match user:
            case taichi.AdStackPushOp():
                bound = t.const(size)
                fits = t.less_than(n.results[0], bound.results[0])
                ops += [bound, fits]
                ptr = t.element_ptr(buffer, clamped(n.results[0], fits.results[0], ops))
                old = t.load(ptr.results[0], element)
                kept = t.select(fits.results[0], user.value, old.results[0])
                one = t.const(1)
                grown = t.add(n.results[0], one.results[0])
                ops += [
                    ptr,
                    old,
                    kept,
                    t.store(kept.results[0], ptr.results[0]),
                    one,
                    grown,
                    t.store(grown.results[0], count),
                ]
                rewriter.replace(user, ops, [fits.results[0]])
            case taichi.AdStackPopOp():
                one = t.const(1)
                shrunk = t.sub(n.results[0], one.results[0])
                ops += [one, shrunk, t.store(shrunk.results[0], count)]
                rewriter.replace(user, ops, [])
            case taichi.AdStackLoadTopOp():
                one = t.const(1)
                top = t.sub(n.results[0], one.results[0])
                ops += [one, top]
                ptr = t.element_ptr(buffer, clamped(top.results[0], None, ops))
                value = t.load(ptr.results[0], element)
                ops += [ptr, value]
                rewriter.replace(user, ops, [value.results[0]])
            case other:
                raise PassFailedAt(
                    other, f"the adstack lowering: '{other.name}' of an adstack"
                )
    zero = t.const(0)
    rewriter.replace(op, [zero, t.store(zero.results[0], count)], [None])
