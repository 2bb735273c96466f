"""
`ti.random(dtype)` and `ti.randn(dtype)` inside kernels: a counter-based generator
emitted as plain integer arith, so every backend runs it without a runtime library.

Each iteration of a parallel loop owns a 32-bit PCG state, seeded on the iteration's
first draw by hashing (ti.init's random_seed, a per-program launch counter, the loop's
index values); each draw advances it by one LCG step and permutes it (PCG-RXS-M-XS):

    state' = state * 747796405 + 2891336453
    word   = ((state' >> ((state' >> 28) + 4)) ^ state') * 277803737
    out    = (word >> 22) ^ word

The launch counter is a hidden u32 field that each kernel using random numbers
increments once per launch (at the end of the kernel), so two launches draw different
numbers while a program run is reproducible for a seed: the draws depend on the seed,
the launch count and the loop indices, not on how iterations map to threads.
"""

from __future__ import annotations

import ast
import math as _math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiSyntaxError, TaichiTypeError
from xdsl.ir import Block, Operation, SSAValue

from ..lang import dtypes
from .emitter import Value

if TYPE_CHECKING:
    from .visitor import KernelCodegen

_MULT = 747796405
_INC = 2891336453
_PERMUTE = 277803737
_GOLDEN = 0x9E3779B9



# -- the hidden launch counter -----------------------------------------------------

def rng_counter_field(cg: KernelCodegen) -> Any:
    prog = cg.program
    f = getattr(prog, "_rng_launch_counter", None)
    if f is None:
        from ..lang.field import Field

        f = Field(dtypes.u32, "ti_rng_launches")
        f._place(())
        prog._rng_launch_counter = f
    return f

def _counter_place(cg: KernelCodegen) -> SSAValue:
    handle = cg.field_handle(rng_counter_field(cg))
    return cg.em.emit(taichi.ElementPtrOp(handle.ssa, [])).results[0]

def advance_rng_launch_counter(cg: KernelCodegen) -> None:
    """`launches[None] += 1` at the end of the kernel body (a serial part)."""
    saved = cg.em.block
    cg.em.block = cg.entry
    last = cg.entry.last_op
    scratch = Block()
    with cg.em.at(scratch):
        p = _counter_place(cg)
        old = cg.em.load(p, dtypes.u32)
        cg.em.store(p, cg.em.binary("+", old, cg.em.const(1, dtypes.u32)))
    cg.em.block = saved
    for op in list(scratch.ops):
        scratch.detach_op(op)
        if isinstance(last, taichi.ReturnOp):
            cg.entry.insert_op_before(op, last)
        else:
            cg.entry.add_op(op)

# -- the per-iteration state -------------------------------------------------------

def _u32(cg: KernelCodegen, x: int) -> Value:
    return cg.em.const(x & 0xFFFFFFFF, dtypes.u32)

def _hash(cg: KernelCodegen, x: Value) -> Value:
    """PCG's output hash of one 32-bit word."""
    em = cg.em
    state = em.binary("+", em.binary("*", x, _u32(cg, _MULT)), _u32(cg, _INC))
    return _permute(cg, state)

def _permute(cg: KernelCodegen, state: Value) -> Value:
    em = cg.em
    shift = em.binary("+", em.binary(">>", state, _u32(cg, 28)), _u32(cg, 4))
    word = em.binary("^", em.binary(">>", state, shift), state)
    word = em.binary("*", word, _u32(cg, _PERMUTE))
    return em.binary("^", em.binary(">>", word, _u32(cg, 22)), word)

def _seed_state(cg: KernelCodegen, indices: list[SSAValue], salt: int) -> SSAValue:
    em = cg.em
    launches = em.load(_counter_place(cg), dtypes.u32)
    seed = cg.program.config.random_seed
    h = _hash(cg, em.binary("^", launches, _u32(cg, seed * _GOLDEN + salt)))
    for index in indices:
        word = em.cast(Value(index, dtypes.i32), dtypes.u32)
        h = _hash(cg, em.binary("^", h, em.binary("*", word, _u32(cg, _GOLDEN))))
    slot = em.alloca(dtypes.u32, "rng_state")
    em.store(slot, h)
    return slot

def _at_block_start(
    cg: KernelCodegen, block: Block, build: Callable[[], SSAValue]
) -> SSAValue:
    scratch = Block()
    with cg.em.at(scratch):
        result = build()
    first = block.first_op
    for op in list(scratch.ops):
        scratch.detach_op(op)
        if first is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, first)
    return result

def rng_state(cg: KernelCodegen) -> SSAValue:
    """The state slot of the current parallel iteration (or of the kernel)."""
    cg.rng_used = True
    for n, loop in enumerate(cg.loops):
        if loop.parallel and loop.block is not None:
            if loop.rng is None:
                block = loop.block
                loop.rng = _at_block_start(cg, 
                    block, lambda b=block, k=n: _seed_state(cg, list(b.args), k + 1)
                )
            return loop.rng
    kernel_state = getattr(cg, "_kernel_rng", None)
    if kernel_state is None:
        scratch = Block()
        with cg.em.at(scratch):
            kernel_state = _seed_state(cg, [], 0)
        ops: list[Operation] = list(scratch.ops)
        for op in ops:
            scratch.detach_op(op)
            cg.insert_prologue(op)
        cg._kernel_rng = kernel_state
    return kernel_state

def _next_u32(cg: KernelCodegen) -> Value:
    em = cg.em
    slot = rng_state(cg)
    state = em.load(slot, dtypes.u32)
    state = em.binary("+", em.binary("*", state, _u32(cg, _MULT)), _u32(cg, _INC))
    em.store(slot, state)
    return _permute(cg, state)

# -- draws -----------------------------------------------------------------------

def _uniform(cg: KernelCodegen, dt: dtypes.DataType) -> Value:
    """A float in [0, 1) of type dt."""
    em = cg.em
    if dt.bits == 64:
        hi = em.cast(em.binary(">>", _next_u32(cg), _u32(cg, 6)), dtypes.f64)
        lo = em.cast(em.binary(">>", _next_u32(cg), _u32(cg, 5)), dtypes.f64)
        x = em.binary("+", em.binary("*", hi, em.const(2.0**27, dtypes.f64)), lo)
        return em.binary("*", x, em.const(2.0**-53, dtypes.f64))
    bits = em.cast(em.binary(">>", _next_u32(cg), _u32(cg, 8)), dtypes.f32)
    x = em.binary("*", bits, em.const(2.0**-24, dtypes.f32))
    return em.cast(x, dt)

def random_call(
    cg: KernelCodegen, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> Value:
    em = cg.em
    dt_arg = kwargs.get("dtype", args[0] if args else float)
    dt = cg.cook_dtype(dt_arg, node)
    if name == "randn":
        if not dt.is_float:
            raise cg.error(
                TaichiTypeError, node, f"ti.randn() needs a float type, got {dt}"
            )
        fdt = dtypes.f64 if dt.bits == 64 else dtypes.f32
        u1 = em.binary("-", em.const(1.0, fdt), _uniform(cg, fdt))  # (0, 1]
        u2 = _uniform(cg, fdt)
        radius = em.math1(
            "sqrt", em.binary("*", em.const(-2.0, fdt), em.math1("log", u1))
        )
        angle = em.binary("*", u2, em.const(2 * _math.pi, fdt))
        return em.cast(em.binary("*", radius, em.math1("cos", angle)), dt)
    if dt.is_float:
        return _uniform(cg, dt)
    if dt is dtypes.u1:
        raise cg.error(TaichiSyntaxError, node, "ti.random(ti.u1) is not supported")
    if dt.bits <= 32:
        return em.cast(Value(_next_u32(cg).ssa, dtypes.u32), dt)
    hi = em.cast(_next_u32(cg), dtypes.u64)
    lo = em.cast(_next_u32(cg), dtypes.u64)
    word = em.binary("|", em.binary("<<", hi, em.const(32, dtypes.u64)), lo)
    return Value(word.ssa, dt)


__all__ = ["random_call"]
