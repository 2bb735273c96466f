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

    _Base = KernelCodegen
else:
    _Base = object

_MULT = 747796405
_INC = 2891336453
_PERMUTE = 277803737
_GOLDEN = 0x9E3779B9


class RandomMixin(_Base):
    """ti.random / ti.randn for KernelCodegen."""

    # -- the hidden launch counter -----------------------------------------------------

    def rng_counter_field(self) -> Any:
        prog = self.program
        f = getattr(prog, "_rng_launch_counter", None)
        if f is None:
            from ..lang.field import Field

            f = Field(dtypes.u32, "ti_rng_launches")
            f._place(())
            prog._rng_launch_counter = f
        return f

    def _counter_place(self) -> SSAValue:
        handle = self.field_handle(self.rng_counter_field())
        return self.em.emit(taichi.ElementPtrOp(handle.ssa, [])).results[0]

    def advance_rng_launch_counter(self) -> None:
        """`launches[None] += 1` at the end of the kernel body (a serial part)."""
        saved = self.em.block
        self.em.block = self.entry
        last = self.entry.last_op
        scratch = Block()
        with self.em.at(scratch):
            p = self._counter_place()
            old = self.em.load(p, dtypes.u32)
            self.em.store(p, self.em.binary("+", old, self.em.const(1, dtypes.u32)))
        self.em.block = saved
        for op in list(scratch.ops):
            scratch.detach_op(op)
            if isinstance(last, taichi.ReturnOp):
                self.entry.insert_op_before(op, last)
            else:
                self.entry.add_op(op)

    # -- the per-iteration state -------------------------------------------------------

    def _u32(self, x: int) -> Value:
        return self.em.const(x & 0xFFFFFFFF, dtypes.u32)

    def _hash(self, x: Value) -> Value:
        """PCG's output hash of one 32-bit word."""
        em = self.em
        state = em.binary("+", em.binary("*", x, self._u32(_MULT)), self._u32(_INC))
        return self._permute(state)

    def _permute(self, state: Value) -> Value:
        em = self.em
        shift = em.binary("+", em.binary(">>", state, self._u32(28)), self._u32(4))
        word = em.binary("^", em.binary(">>", state, shift), state)
        word = em.binary("*", word, self._u32(_PERMUTE))
        return em.binary("^", em.binary(">>", word, self._u32(22)), word)

    def _seed_state(self, indices: list[SSAValue], salt: int) -> SSAValue:
        em = self.em
        launches = em.load(self._counter_place(), dtypes.u32)
        seed = self.program.config.random_seed
        h = self._hash(em.binary("^", launches, self._u32(seed * _GOLDEN + salt)))
        for index in indices:
            word = em.cast(Value(index, dtypes.i32), dtypes.u32)
            h = self._hash(em.binary("^", h, em.binary("*", word, self._u32(_GOLDEN))))
        slot = em.alloca(dtypes.u32, "rng_state")
        em.store(slot, h)
        return slot

    def _at_block_start(self, block: Block, build: Callable[[], SSAValue]) -> SSAValue:
        scratch = Block()
        with self.em.at(scratch):
            result = build()
        first = block.first_op
        for op in list(scratch.ops):
            scratch.detach_op(op)
            if first is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, first)
        return result

    def rng_state(self) -> SSAValue:
        """The state slot of the current parallel iteration (or of the kernel)."""
        self.rng_used = True
        for n, loop in enumerate(self.loops):
            if loop.parallel and loop.block is not None:
                if loop.rng is None:
                    block = loop.block
                    loop.rng = self._at_block_start(
                        block, lambda b=block, k=n: self._seed_state(list(b.args), k + 1)
                    )
                return loop.rng
        kernel_state = getattr(self, "_kernel_rng", None)
        if kernel_state is None:
            scratch = Block()
            with self.em.at(scratch):
                kernel_state = self._seed_state([], 0)
            ops: list[Operation] = list(scratch.ops)
            for op in ops:
                scratch.detach_op(op)
                self.insert_prologue(op)
            self._kernel_rng = kernel_state
        return kernel_state

    def _next_u32(self) -> Value:
        em = self.em
        slot = self.rng_state()
        state = em.load(slot, dtypes.u32)
        state = em.binary("+", em.binary("*", state, self._u32(_MULT)), self._u32(_INC))
        em.store(slot, state)
        return self._permute(state)

    # -- draws -----------------------------------------------------------------------

    def _uniform(self, dt: dtypes.DataType) -> Value:
        """A float in [0, 1) of type dt."""
        em = self.em
        if dt.bits == 64:
            hi = em.cast(em.binary(">>", self._next_u32(), self._u32(6)), dtypes.f64)
            lo = em.cast(em.binary(">>", self._next_u32(), self._u32(5)), dtypes.f64)
            x = em.binary("+", em.binary("*", hi, em.const(2.0**27, dtypes.f64)), lo)
            return em.binary("*", x, em.const(2.0**-53, dtypes.f64))
        bits = em.cast(em.binary(">>", self._next_u32(), self._u32(8)), dtypes.f32)
        x = em.binary("*", bits, em.const(2.0**-24, dtypes.f32))
        return em.cast(x, dt)

    def random_call(
        self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST
    ) -> Value:
        em = self.em
        dt_arg = kwargs.get("dtype", args[0] if args else float)
        dt = self.cook_dtype(dt_arg, node)
        if name == "randn":
            if not dt.is_float:
                raise self.error(
                    TaichiTypeError, node, f"ti.randn() needs a float type, got {dt}"
                )
            fdt = dtypes.f64 if dt.bits == 64 else dtypes.f32
            u1 = em.binary("-", em.const(1.0, fdt), self._uniform(fdt))  # (0, 1]
            u2 = self._uniform(fdt)
            radius = em.math1(
                "sqrt", em.binary("*", em.const(-2.0, fdt), em.math1("log", u1))
            )
            angle = em.binary("*", u2, em.const(2 * _math.pi, fdt))
            return em.cast(em.binary("*", radius, em.math1("cos", angle)), dt)
        if dt.is_float:
            return self._uniform(dt)
        if dt is dtypes.u1:
            raise self.error(TaichiSyntaxError, node, "ti.random(ti.u1) is not supported")
        if dt.bits <= 32:
            return em.cast(Value(self._next_u32().ssa, dtypes.u32), dt)
        hi = em.cast(self._next_u32(), dtypes.u64)
        lo = em.cast(self._next_u32(), dtypes.u64)
        word = em.binary("|", em.binary("<<", hi, em.const(32, dtypes.u64)), lo)
        return Value(word.ssa, dt)


__all__ = ["RandomMixin"]
