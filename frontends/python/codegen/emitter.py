"""
Typed IR construction for the kernel code generator.

The IR is signless; a `Value` pairs an SSA value with its Taichi type, and the
`Emitter` picks the signed, unsigned or float op for it and applies Taichi's type
promotion and casting rules:

    a: ti.i32, b: ti.u32  ->  a < b   is   %c = arith.cmpi ult, %a, %b : i32
    a: ti.i32             ->  a // 2  is   divsi + remsi + a sign correction
    a: ti.i32             ->  a / 2   is   sitofp to default_fp, then divf

Python numbers stay Python numbers until they meet an IR value; then they become an
`arith.constant` of the promoted type (so `x_f64 * 0.1` keeps 0.1 exact in f64).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from math import copysign as math_copysign
from typing import Any

import numpy as np

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiRuntimeError, TaichiTypeError
from xdsl.dialects import arith, math, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.dialects.builtin import f16 as ir_f16
from xdsl.dialects.builtin import f32 as ir_f32
from xdsl.dialects.builtin import f64 as ir_f64
from xdsl.ir import Attribute, Block, Operation, SSAValue

from ..lang import dtypes
from ..lang.dtypes import DataType, promote

_IR_FLOATS = {16: ir_f16, 32: ir_f32, 64: ir_f64}


def ir_type(dt: DataType) -> Attribute:
    """The signless IR type of a Taichi type (`u32` -> `i32`, `u1` -> `i1`)."""
    return _IR_FLOATS[dt.bits] if dt.is_float else IntegerType(dt.bits)


def memref_type(dt: DataType, shape: tuple[int, ...] | list[int]) -> MemRefType:
    """`memref<shape x T>` of a field or ndarray; -1 entries are dynamic. A u1 (bool)
    element is stored as a byte holding 0 or 1 (`Emitter.load` / `store` convert)."""
    element = IntegerType(8) if dt is dtypes.u1 else ir_type(dt)
    return MemRefType(element, [DYNAMIC_INDEX if s < 0 else s for s in shape])


@dataclass(frozen=True, slots=True)
class Value:
    """An SSA value and its Taichi type."""

    ssa: SSAValue
    dtype: DataType


Scalar = int | float | bool
Operand = Value | Scalar

_ARITH: dict[str, tuple[Any, Any, Any]] = {
    # op: (signed int, unsigned int, float)
    "+": (arith.AddiOp, arith.AddiOp, arith.AddfOp),
    "-": (arith.SubiOp, arith.SubiOp, arith.SubfOp),
    "*": (arith.MuliOp, arith.MuliOp, arith.MulfOp),
    "min": (arith.MinSIOp, arith.MinUIOp, arith.MinnumfOp),
    "max": (arith.MaxSIOp, arith.MaxUIOp, arith.MaxnumfOp),
}
_BITWISE = {"&": arith.AndIOp, "|": arith.OrIOp, "^": arith.XOrIOp}
_CMP_SIGNED = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_CMP_UNSIGNED = {"<": "ult", "<=": "ule", ">": "ugt", ">=": "uge", "==": "eq", "!=": "ne"}
_CMP_FLOAT = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_FLOAT_MATH: dict[str, Callable[[SSAValue], Operation]] = {
    "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp,
    "sin": math.SinOp,
    "cos": math.CosOp,
    "tan": math.TanOp,
    "tanh": math.TanhOp,
    "exp": math.ExpOp,
    "log": math.LogOp,
    "log2": math.Log2Op,
    "floor": math.FloorOp,
    "ceil": math.CeilOp,
}


class Emitter:
    """Appends typed ops to the current block, each with the current location."""

    def __init__(self, default_ip: DataType, default_fp: DataType):
        self.default_ip = default_ip
        self.default_fp = default_fp
        self.block: Block | None = None
        self.loc: Attribute | None = None

    # -- basics ----------------------------------------------------------------------

    def emit(self, op: Operation) -> Operation:
        if self.loc is not None:
            op.location = self.loc  # pyright: ignore[reportAttributeAccessIssue]
        assert self.block is not None
        self.block.add_op(op)
        return op

    def _v(self, op: Operation, dt: DataType) -> Value:
        return Value(self.emit(op).results[0], dt)

    def literal_dtype(self, x: Scalar) -> DataType:
        """The type Taichi gives a Python literal."""
        if isinstance(x, bool):
            return dtypes.u1
        if isinstance(x, int):
            lo, hi = self.default_ip.int_range()
            if lo <= x <= hi:
                return self.default_ip
            raise TaichiTypeError(
                f"Integer literal {x} exceeded the range of default_ip: "
                f"{self.default_ip}, please specify the dtype via e.g. `ti.u64({x})` "
                "or set a different `default_ip` in `ti.init()`"
            )
        return self.default_fp

    def make_const(self, x: Scalar, dt: DataType) -> Operation:
        """An unattached `arith.constant` holding `x` converted to `dt`."""
        if dt.is_float:
            value = float(dt.np_dtype.type(x))
            if 0 < abs(value) < np.finfo(dt.np_dtype).tiny:
                value = math_copysign(0.0, value)  # Taichi flushes subnormals to zero
            attr: Attribute = FloatAttr(value, ir_type(dt))  # pyright: ignore
        else:
            ivalue = int(bool(x)) if dt is dtypes.u1 else int(x)
            ivalue &= (1 << dt.bits) - 1
            if dt.bits > 1 and ivalue >= 1 << (dt.bits - 1):
                ivalue -= 1 << dt.bits  # the signless attribute holds the signed pattern
            attr = IntegerAttr(ivalue, IntegerType(dt.bits))
        op = arith.ConstantOp(attr)  # pyright: ignore[reportArgumentType]
        if self.loc is not None:
            op.location = self.loc  # pyright: ignore[reportAttributeAccessIssue]
        return op

    def const(self, x: Scalar, dt: DataType) -> Value:
        """An `arith.constant` holding `x` converted to `dt`."""
        return self._v(self.make_const(x, dt), dt)

    def value(self, x: Operand, dt: DataType | None = None) -> Value:
        """`x` as an IR value (a Python number becomes a constant of its literal type)."""
        if isinstance(x, Value):
            return x if dt is None else self.cast(x, dt)
        if dt is not None and dt.is_int and isinstance(x, int) and not isinstance(x, bool):
            lo, hi = dt.int_range()
            if not lo <= x <= hi:
                self.literal_dtype(x)  # raises when default_ip cannot hold it either
        return self.const(self.literal(x), dt or self.literal_dtype(x))

    def literal(self, x: Scalar) -> Scalar:
        """
        A Python number as it enters a kernel: Taichi types a float as default_fp, so with
        f32 (the default) `out_f64[0] = 0.1` stores 0.10000000149011612 and `x_f64 * 0.1`
        multiplies by that value; `ti.f64(0.1)` (Emitter.const) keeps all the digits.
        """
        return dtypes.float_literal(x, self.default_fp)

    def pair(self, a: Operand, b: Operand) -> tuple[Value, Value]:
        """Both operands as values; a Python number takes the type it would promote to."""
        if not isinstance(a, Value):
            assert isinstance(b, Value)
            a = self.const(self.literal(a), promote(self.literal_dtype(a), b.dtype))
        elif not isinstance(b, Value):
            b = self.const(self.literal(b), promote(a.dtype, self.literal_dtype(b)))
        return a, b

    # -- casts -----------------------------------------------------------------------

    def cast(self, v: Value, dt: DataType) -> Value:
        """Taichi's `ti.cast(v, dt)`."""
        src = v.dtype
        if src is dt:
            return v
        if dt is dtypes.u1:
            return self.to_bool(v)
        target = ir_type(dt)
        if src.is_float and dt.is_float:
            if src.bits == dt.bits:
                return Value(v.ssa, dt)
            op = arith.ExtFOp if dt.bits > src.bits else arith.TruncFOp
            return self._v(op(v.ssa, target), dt)  # pyright: ignore
        if src.is_int and dt.is_float:
            op = arith.SIToFPOp if src.is_signed else arith.UIToFPOp
            return self._v(op(v.ssa, target), dt)  # pyright: ignore
        if src.is_float:
            op = arith.FPToSIOp if dt.is_signed else arith.FPToUIOp
            return self._v(op(v.ssa, target), dt)  # pyright: ignore
        if src.bits == dt.bits:
            return Value(v.ssa, dt)
        if src.bits < dt.bits:
            op = arith.ExtSIOp if src.is_signed else arith.ExtUIOp
            return self._v(op(v.ssa, target), dt)  # pyright: ignore
        return self._v(arith.TruncIOp(v.ssa, target), dt)  # pyright: ignore

    def bitcast(self, v: Value, dt: DataType) -> Value:
        """v's bits read as dt, a type of the same width (`ti.bit_cast`)."""
        target = ir_type(dt)
        if ir_type(v.dtype) == target:  # i32 <-> u32: the same signless IR value
            return Value(v.ssa, dt)
        return self._v(arith.BitcastOp(v.ssa, target), dt)

    def to_bool(self, v: Operand) -> Value:
        """`v != 0` as a u1 (i1) value."""
        v = self.value(v)
        if v.dtype is dtypes.u1:
            return v
        zero = self.const(0, v.dtype)
        return self.compare("!=", v, zero)

    # -- arithmetic ------------------------------------------------------------------

    def arith_type(self, a: Value, b: Value) -> DataType:
        dt = promote(a.dtype, b.dtype)
        return self.default_ip if dt is dtypes.u1 else dt

    def binary(self, op: str, a: Operand, b: Operand) -> Value:
        """`a op b` with Taichi's promotion; op is a Python operator, min, max or atan2."""
        if op in _ARITH:
            return self.arith(op, a, b)
        if op in _BITWISE:
            return self.bitwise(op, a, b)
        if op in ("<<", ">>"):
            return self.shift(op, a, b)
        handler = _BINARY_HANDLERS.get(op)
        if handler is None:
            raise TaichiTypeError(f"unsupported binary operator {op!r}")
        return handler(self, a, b)

    def arith(self, op: str, a: Operand, b: Operand) -> Value:
        """`+ - * min max`: one op per (signed, unsigned, float)."""
        a, b, dt = self._arith_pair(a, b)
        signed, unsigned, floating = _ARITH[op]
        cls = floating if dt.is_float else signed if dt.is_signed else unsigned
        return self._v(cls(a.ssa, b.ssa), dt)

    def atan2(self, a: Operand, b: Operand) -> Value:
        a, b = self.pair(a, b)
        dt = self.float_type(promote(a.dtype, b.dtype))
        return self._v(math.Atan2Op(self.cast(a, dt).ssa, self.cast(b, dt).ssa), dt)

    def float_type(self, dt: DataType) -> DataType:
        return dt if dt.is_float else self.default_fp

    def truediv(self, a: Operand, b: Operand) -> Value:
        a, b = self.pair(a, b)
        a = self.cast(a, self.float_type(a.dtype))
        b = self.cast(b, self.float_type(b.dtype))
        dt = promote(a.dtype, b.dtype)
        a, b = self.cast(a, dt), self.cast(b, dt)
        return self._v(arith.DivfOp(a.ssa, b.ssa), dt)

    def _arith_pair(self, a: Operand, b: Operand) -> tuple[Value, Value, DataType]:
        """Both operands cast to their arithmetic type (u1 counts as default_ip)."""
        a, b = self.pair(a, b)
        dt = self.arith_type(a, b)
        return self.cast(a, dt), self.cast(b, dt), dt

    def floordiv(self, a: Operand, b: Operand) -> Value:
        """Python's `//`: rounds towards negative infinity for signed integers."""
        b_const = b if not isinstance(b, Value) else None
        a, b, dt = self._arith_pair(a, b)
        if dt.is_float:
            q = self._v(arith.DivfOp(a.ssa, b.ssa), dt)
            return self._v(math.FloorOp(q.ssa), dt)
        if dt.is_unsigned:
            return self._v(arith.DivUIOp(a.ssa, b.ssa), dt)
        q = self._v(arith.DivSIOp(a.ssa, b.ssa), dt)
        r = self._v(arith.RemSIOp(a.ssa, b.ssa), dt)
        adjust = self._needs_sign_fix(r, b, b_const)
        one = self.const(1, dt)
        q_minus = self._v(arith.SubiOp(q.ssa, one.ssa), dt)
        return self._v(arith.SelectOp(adjust.ssa, q_minus.ssa, q.ssa), dt)

    def mod(self, a: Operand, b: Operand) -> Value:
        """Python's `%`: the result takes the sign of the divisor."""
        b_const = b if not isinstance(b, Value) else None
        a, b, dt = self._arith_pair(a, b)
        if dt.is_float:
            # Taichi: a - b * floor(a / b)
            q = self._v(arith.DivfOp(a.ssa, b.ssa), dt)
            fq = self._v(math.FloorOp(q.ssa), dt)
            prod = self._v(arith.MulfOp(b.ssa, fq.ssa), dt)
            return self._v(arith.SubfOp(a.ssa, prod.ssa), dt)
        if dt.is_unsigned:
            return self._v(arith.RemUIOp(a.ssa, b.ssa), dt)
        r = self._v(arith.RemSIOp(a.ssa, b.ssa), dt)
        adjust = self._needs_sign_fix(r, b, b_const)
        r_plus = self._v(arith.AddiOp(r.ssa, b.ssa), dt)
        return self._v(arith.SelectOp(adjust.ssa, r_plus.ssa, r.ssa), dt)

    def _needs_sign_fix(self, r: Value, b: Value, b_const: Scalar | None) -> Value:
        """Whether a truncated remainder `r` has the wrong sign for floor semantics."""
        zero = self.const(0, r.dtype)
        if isinstance(b_const, int) and b_const > 0:
            return self.compare("<", r, zero)  # a positive divisor: fix negative r
        if isinstance(b_const, int) and b_const < 0:
            return self.compare(">", r, zero)
        nonzero = self.compare("!=", r, zero)
        x = self._v(arith.XOrIOp(r.ssa, b.ssa), r.dtype)
        signs_differ = self.compare("<", x, zero)
        return self._v(arith.AndIOp(nonzero.ssa, signs_differ.ssa), dtypes.u1)

    def idiv(self, a: Value, b: Value) -> Value:
        """Truncating signed division of two values of one type (no floor fix)."""
        return self._v(arith.DivSIOp(a.ssa, b.ssa), a.dtype)

    def irem(self, a: Value, b: Value) -> Value:
        """Truncating signed remainder of two values of one type."""
        return self._v(arith.RemSIOp(a.ssa, b.ssa), a.dtype)

    def bitwise(self, op: str, a: Operand, b: Operand) -> Value:
        given = [x.dtype if isinstance(x, Value) else self.literal_dtype(x) for x in (a, b)]
        if any(dt.is_float for dt in given):
            raise TaichiTypeError(
                f"unsupported operand type(s) for '{op}': '{given[0]}' and '{given[1]}' "
                "(bitwise operators need integers)"
            )
        a, b = self.pair(a, b)
        dt = promote(a.dtype, b.dtype)
        a, b = self.cast(a, dt), self.cast(b, dt)
        return self._v(_BITWISE[op](a.ssa, b.ssa), dt)

    def shift(self, op: str, a: Operand, b: Operand) -> Value:
        """`<<`, `>>` (arithmetic for signed): the result has the left operand's type."""
        a = self.value(a)
        b = self.value(b)
        if a.dtype.is_float or b.dtype.is_float:
            raise TaichiTypeError(
                f"unsupported operand type(s) for '{op}': '{a.dtype}' and '{b.dtype}' "
                "(shifts need integers)"
            )
        if a.dtype is dtypes.u1:
            a = self.cast(a, self.default_ip)
        b = self.cast(b, a.dtype)
        if op == "<<":
            cls: Any = arith.ShLIOp
        else:
            cls = arith.ShRSIOp if a.dtype.is_signed else arith.ShRUIOp
        return self._v(cls(a.ssa, b.ssa), a.dtype)

    def compare(self, op: str, a: Operand, b: Operand) -> Value:
        a, b = self.pair(a, b)
        dt = promote(a.dtype, b.dtype)
        a, b = self.cast(a, dt), self.cast(b, dt)
        if dt.is_float:
            return self._v(arith.CmpfOp(a.ssa, b.ssa, _CMP_FLOAT[op]), dtypes.u1)
        table = _CMP_SIGNED if dt.is_signed else _CMP_UNSIGNED
        return self._v(arith.CmpiOp(a.ssa, b.ssa, table[op]), dtypes.u1)

    def logical(self, op: str, a: Operand, b: Operand) -> Value:
        """Non-short-circuit `and`/`or` of two truth values (u1)."""
        a, b = self.to_bool(a), self.to_bool(b)
        cls = arith.AndIOp if op == "and" else arith.OrIOp
        return self._v(cls(a.ssa, b.ssa), dtypes.u1)

    def neg(self, a: Value) -> Value:
        if a.dtype.is_float:
            return self._v(arith.NegfOp(a.ssa), a.dtype)
        if a.dtype is dtypes.u1:
            a = self.cast(a, self.default_ip)
        return self.binary("-", self.const(0, a.dtype), a)

    def invert(self, a: Value) -> Value:
        if a.dtype.is_float:
            raise TaichiTypeError(f"'~' needs an integer, got {a.dtype}")
        ones = self.const(-1, a.dtype)
        return self._v(arith.XOrIOp(a.ssa, ones.ssa), a.dtype)

    def logical_not(self, a: Value) -> Value:
        if a.dtype is dtypes.u1:
            true = self.const(True, dtypes.u1)
            return self._v(arith.XOrIOp(a.ssa, true.ssa), dtypes.u1)
        return self.compare("==", a, self.const(0, a.dtype))

    def select(self, c: Operand, a: Operand, b: Operand) -> Value:
        cond = self.to_bool(c)
        if not isinstance(a, Value) and not isinstance(b, Value):
            a = self.value(a, promote(self.literal_dtype(a), self.literal_dtype(b)))
        a, b = self.pair(a, b)
        dt = promote(a.dtype, b.dtype)
        a, b = self.cast(a, dt), self.cast(b, dt)
        return self._v(arith.SelectOp(cond.ssa, a.ssa, b.ssa), dt)

    # -- math ------------------------------------------------------------------------

    def math1(self, name: str, a: Operand) -> Value:
        """A unary math function; integers are first converted to default_fp."""
        a = self.value(a)
        if name == "abs":
            if a.dtype.is_float:
                return self._v(math.AbsFOp(a.ssa), a.dtype)
            if a.dtype.is_unsigned:
                return a
            return self._v(math.AbsIOp(a.ssa), a.dtype)
        a = self.cast(a, self.float_type(a.dtype))
        return self._v(_FLOAT_MATH[name](a.ssa), a.dtype)

    def pow(self, a: Operand, b: Operand) -> Value:
        """`a ** b`: a constant integer exponent is unrolled into multiplications, an
        integer exponent value runs a square-and-multiply loop, floats use math.powf."""
        if isinstance(b, bool):
            b = int(b)
        if isinstance(b, int):
            return self._pow_const(self.value(a), b)
        a, b = self.pair(a, b)
        if b.dtype.is_int:
            return self._pow_loop(a, b)
        dt = self.float_type(promote(a.dtype, b.dtype))
        a, b = self.cast(a, dt), self.cast(b, dt)
        return self._v(math.PowFOp(a.ssa, b.ssa), dt)

    def _pow_const(self, a: Value, n: int) -> Value:
        # Taichi: an integer exponent keeps the type of the base
        dt = self.default_ip if a.dtype is dtypes.u1 else a.dtype
        a = self.cast(a, dt)
        if n < 0 and not dt.is_float:  # Taichi's error (a RuntimeError when it compiles)
            raise TaichiRuntimeError(
                f"Negative exponent in pow(int, int) is not allowed (exponent {n})."
            )
        result: Value | None = None
        square, k = a, abs(n)
        while k:
            if k & 1:
                result = square if result is None else self.binary("*", result, square)
            k >>= 1
            if k:
                square = self.binary("*", square, square)
        if result is None:
            result = self.const(1, dt)
        if n < 0:
            result = self.truediv(self.const(1, dt), result)
        return result

    def _pow_loop(self, a: Value, b: Value) -> Value:
        """
        `a ** n` for an integer value n, as Taichi demotes it: square and multiply.

            r = 1; p = a; e = |n|
            while e > 0: (if e & 1: r *= p); p *= p; e >>= 1
            float a and n < 0: r = 1 / r   (an integer a gets 1 for n < 0)
        """
        dt = self.default_ip if a.dtype is dtypes.u1 else a.dtype
        e = self.cast(b, self.default_ip) if b.dtype is dtypes.u1 else b
        negative = None
        if dt.is_float and e.dtype.is_signed:
            negative = self.compare("<", e, self.const(0, e.dtype))
            e = self.math1("abs", e)
        r_slot, p_slot, e_slot = self.alloca(dt), self.alloca(dt), self.alloca(e.dtype)
        self.store(r_slot, self.const(1, dt))
        self.store(p_slot, self.cast(a, dt))
        self.store(e_slot, e)
        body = Block()
        with self.at(body):
            ev = self.load(e_slot, e.dtype)
            done = self.compare("<=", ev, self.const(0, e.dtype))
            self.emit(taichi.IfOp(done.ssa, Block([taichi.BreakOp()])))
            odd = self.to_bool(self.bitwise("&", ev, self.const(1, e.dtype)))
            then = Block()
            with self.at(then):
                prod = self.binary("*", self.load(r_slot, dt), self.load(p_slot, dt))
                self.store(r_slot, prod)
                self.emit(taichi.YieldOp())
            self.emit(taichi.IfOp(odd.ssa, then))
            p = self.load(p_slot, dt)
            self.store(p_slot, self.binary("*", p, p))
            self.store(e_slot, self.shift(">>", ev, self.const(1, e.dtype)))
            self.emit(taichi.YieldOp())
        self.emit(taichi.WhileOp(body))
        result = self.load(r_slot, dt)
        if negative is not None:
            return self.select(negative, self.truediv(self.const(1, dt), result), result)
        return result

    @contextmanager
    def at(self, block: Block) -> Iterator[Block]:
        """Emit into `block` inside the `with`."""
        saved, self.block = self.block, block
        try:
            yield block
        finally:
            self.block = saved

    # -- memory ----------------------------------------------------------------------

    def alloca(self, dt: DataType, name: str | None = None) -> SSAValue:
        op = memref.AllocaOp.get(ir_type(dt), shape=[])
        slot = self.emit(op).results[0]
        if name and name.isidentifier():
            slot.name_hint = name
        return slot

    def load(self, slot: SSAValue, dt: DataType) -> Value:
        if dt is dtypes.u1 and stored_as_byte(slot):  # a bool field element: byte != 0
            return self.to_bool(self._v(memref.LoadOp.get(slot, []), dtypes.u8))
        return self._v(memref.LoadOp.get(slot, []), dt)

    def store(self, slot: SSAValue, v: Value) -> None:
        if v.dtype is dtypes.u1 and stored_as_byte(slot):  # a bool field element: 0 or 1
            v = self.cast(v, dtypes.u8)
        self.emit(memref.StoreOp.get(v.ssa, slot, []))


def stored_as_byte(slot: SSAValue) -> bool:
    """Whether `slot` holds a u1 as a byte (fields and ndarrays; locals hold an i1)."""
    slot_type = slot.type
    return isinstance(slot_type, MemRefType) and slot_type.element_type == IntegerType(8)


_BINARY_HANDLERS: dict[str, Callable[[Emitter, Operand, Operand], Value]] = {
    "/": Emitter.truediv,
    "//": Emitter.floordiv,
    "%": Emitter.mod,
    "**": Emitter.pow,
    "atan2": Emitter.atan2,
}
