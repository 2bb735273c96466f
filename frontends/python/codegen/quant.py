"""
Quantized fields in kernels (`ti.types.quant`, lang/quant.py and lang/bitpacked.py).

An element of a quantized field is `bits` bits at `shift` of a u32 word of the root (a
u64 when the fields of the word take more than 32 bits; `QuantField.word`). The
frontend expands each access into taichi-dialect ops on that word, so both targets run
it through their existing lowering:

    x[i]            %w = memref.load %word_ptr             (bits at `shift` of the word)
                    %v = (%w << (32 - shift - bits)) >>s (32 - bits)   signed
                         (%w >> shift) & mask                           unsigned
                    then cast to the compute type (times `scale` for fixed point)

    x[i] = v        taichi.while {                          read-modify-write of the word:
                      %old = memref.load %slot              other fields share it, so the
                      %new = (%old & ~(mask << shift)) | (bits(v) << shift)
                      %seen = taichi.atomic_cas %word_ptr, %old, %new
                      taichi.if (%seen == %old) { taichi.break }
                      memref.store %seen, %slot             (a neighbour wrote: retry)
                    }

`x[i] += v` (and the other atomics) is the same loop with `bits(old + v)`: for a
fixed-point type the increment is rounded to steps first and added to the stored
integer, as Taichi 1.7.4 adds it. The read-modify-write is atomic with respect to
every field of the word, which a plain store would not be (it would undo a
neighbour's concurrent write).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiTypeError
from xdsl.ir import Block

from ..lang import dtypes
from ..lang.bitpacked import QuantField, QuantMatrixField
from ..lang.quant import QuantFixed, QuantFloat, QuantInt
from .values import FieldHandle, Place, Value
from .vectors import Vec, VecPlace

if TYPE_CHECKING:
    from .visitor import KernelCodegen


def handle(cg: KernelCodegen, f: QuantField | QuantMatrixField) -> FieldHandle:
    """The container a quantized field is in a kernel: indexed as the field, stored in
    the words of `f.word` (of each component's word for a Vector/Matrix field)."""
    first = f if isinstance(f, QuantField) else next(iter(f.components.values()))
    assert first.word is not None
    word = cg.field_handle(first.word)
    out = FieldHandle(f, word.ssa)
    cg.field_handles[id(f)] = out
    return out


def element(
    cg: KernelCodegen,
    f: QuantField | QuantMatrixField,
    index: list[Value],
    node: ast.AST,
    write: bool,
) -> QuantPlace | QuantVecPlace:
    """`x[index]`: the word that holds it and its shift in that word."""
    if isinstance(f, QuantMatrixField):
        places = [element(cg, c, index, node, write) for c in f.components.values()]
        return QuantVecPlace(f.element_shape, f.dtype, places)  # type: ignore[arg-type]
    em = cg.em
    assert f.word is not None
    word_dt = f.word.dtype
    if f.slots is None:  # a bitpacked field: one element per word
        word_index, shift = list(index), em.const(f.shift, word_dt)
    else:  # a quant_array: `slots` elements of the last level per word
        word_index, pos = [], None
        for axis, v in enumerate(index):
            n = f.slots.get(axis, 1)
            if axis not in f.new_axes:  # an axis of the parent's cells
                word_index.append(v if n == 1 else em.binary("//", v, n))
            if n > 1:
                r = em.binary("%", v, n)
                pos = r if pos is None else em.binary("+", em.binary("*", pos, n), r)
        shift = (
            em.const(0, word_dt)
            if pos is None
            else em.cast(em.binary("*", pos, f.qtype.bits), word_dt)
        )
    word = cg.element(cg.field_handle(f.word), tuple(word_index), node, write)
    assert isinstance(word, Place)
    if f.shared is not None:
        return SharedFloatPlace(word, f, shift)
    return QuantPlace(word, f, shift)


class QuantPlace:
    """An element of a quantized field: `bits` bits at `shift` of a u32 or u64 word."""

    def __init__(self, word: Place, f: QuantField, shift: Value):
        self.word = word
        self.word_dt = word.dtype
        self.word_bits = word.dtype.bits
        self.field = f
        self.qtype = f.qtype
        self.shift = shift
        self.dtype = f.qtype.compute

    # -- bits <-> values -------------------------------------------------------------

    def _extract(self, cg: KernelCodegen, w: Value) -> Value:
        """The bits of this element in word `w`: a signed integer of the word's width
        (sign-extended) or the unsigned word shifted down and masked."""
        em, bits, width = cg.em, self.qtype.bits, self.word_bits
        if self.qtype.signed and not isinstance(self.qtype, QuantFloat):
            up = em.binary("-", em.const(width - bits, self.word_dt), self.shift)
            top = em.shift("<<", w, up)
            signed = dtypes.i64 if width == 64 else dtypes.i32
            return em.shift(">>", em.cast(top, signed), em.const(width - bits, signed))
        v = em.shift(">>", w, self.shift)
        return (
            v
            if bits == width
            else em.bitwise("&", v, em.const(self.qtype.mask, self.word_dt))
        )

    def _value(self, cg: KernelCodegen, raw: Value) -> Value:
        """The compute-type value of extracted bits."""
        em = cg.em
        if isinstance(self.qtype, QuantFixed):
            return em.binary(
                "*", em.cast(raw, self.dtype), em.const(self.qtype.scale, self.dtype)
            )
        if isinstance(self.qtype, QuantFloat):
            return _float_of_bits(cg, self.qtype, raw)
        return em.cast(raw, self.dtype)

    def _steps(self, cg: KernelCodegen, value: Any) -> Value:
        """A value as the integer the type stores (before keeping its low bits): the
        compute-type integer, or for fixed point `v / scale` rounded half away from 0."""
        em = cg.em
        v = em.value(value, self.dtype)
        if isinstance(self.qtype, QuantFloat):
            return _bits_of_float(cg, self.qtype, v)
        if isinstance(self.qtype, QuantInt):
            return em.cast(v, dtypes.i64 if self.dtype.bits == 64 else dtypes.i32)
        scaled = em.binary("*", v, em.const(1.0 / self.qtype.scale, self.dtype))
        half = em.select(
            em.compare(">=", scaled, em.const(0.0, self.dtype)),
            em.const(0.5, self.dtype),
            em.const(-0.5, self.dtype),
        )
        return em.cast(em.binary("+", scaled, half), dtypes.i64)

    def _placed(self, cg: KernelCodegen, steps: Value) -> Value:
        """The stored integer's low `bits` at this element's place in a word."""
        em = cg.em
        low = em.cast(steps, self.word_dt)
        if self.qtype.bits < self.word_bits:
            low = em.bitwise("&", low, em.const(self.qtype.mask, self.word_dt))
        return em.shift("<<", low, self.shift)

    # -- accesses --------------------------------------------------------------------

    def _read(self, cg: KernelCodegen, w: Value) -> Value:
        """This element's value in word `w`."""
        return self._value(cg, self._extract(cg, w))

    def _write(self, cg: KernelCodegen, w: Value, value: Value) -> Value:
        """The bits (of `_keep`'s complement) that hold `value` in place of word `w`'s."""
        return self._placed(cg, self._steps(cg, value))

    def _keep(self, cg: KernelCodegen) -> Value:
        """The bits of the word a write keeps."""
        em = cg.em
        return em.invert(
            em.shift("<<", em.const(self.qtype.mask, self.word_dt), self.shift)
        )

    def load(self, cg: KernelCodegen) -> Value:
        return self._read(cg, cg.em.load(self.word.ptr, self.word_dt))

    def store(self, cg: KernelCodegen, value: Any, node: ast.AST) -> None:
        v = cg.em.value(value, self.dtype)
        if isinstance(self, SharedFloatPlace):
            self._update(cg, lambda old: self._write(cg, old, v))
            return
        placed = self._write(cg, v, v)
        self._update(cg, lambda old: placed)

    def atomic(self, cg: KernelCodegen, op_cls: Any, value: Any, node: ast.AST) -> Value:
        """`ti.atomic_*(x[i], v)`, `x[i] += v`: returns the old value."""
        em = cg.em
        if op_cls in (taichi.AtomicAddOp, taichi.AtomicSubOp) and not isinstance(
            self.qtype, QuantFloat
        ):
            inc = self._steps(cg, value)

            def new_bits(old: Value) -> Value:
                raw = em.cast(self._extract(cg, old), inc.dtype)
                op = "+" if op_cls is taichi.AtomicAddOp else "-"
                return self._placed(cg, em.binary(op, raw, inc))

        else:
            binop = _COMBINE.get(op_cls)
            if binop is None or (self.dtype.is_float and op_cls in _BITWISE):
                raise cg.error(
                    TaichiTypeError,
                    node,
                    f"{op_cls.name} is not supported on a quantized {self.qtype!r} field",
                )

            def new_bits(old: Value) -> Value:
                current = self._read(cg, old)
                return self._write(cg, old, binop(em, current, em.value(value, self.dtype)))

        old = self._update(cg, new_bits)
        return self._read(cg, old)

    def _update(self, cg: KernelCodegen, new_bits: Any) -> Value:
        """Replace this element's bits of the word with `new_bits(old word)` by a
        compare-and-swap loop; returns the word it replaced."""
        em = cg.em
        ptr = self.word.ptr
        wdt = self.word_dt
        keep = self._keep(cg)
        slot = em.alloca(wdt)
        em.store(slot, em.load(ptr, wdt))
        body = Block()
        with em.at(body):
            old = em.load(slot, wdt)
            new = em.bitwise("|", em.bitwise("&", old, keep), new_bits(old))
            seen = Value(em.emit(taichi.AtomicCasOp(ptr, old.ssa, new.ssa)).results[0], wdt)
            done = em.compare("==", seen, old)
            em.emit(taichi.IfOp(done.ssa, Block([taichi.BreakOp()])))
            em.store(slot, seen)
            em.emit(taichi.YieldOp())
        em.emit(taichi.WhileOp(body))
        return em.load(slot, wdt)


class SharedFloatPlace(QuantPlace):
    """An element of a quantized float whose exponent others share (lang/bitpacked.py,
    SharedExponent): a write re-encodes every float of the group under the exponent
    of the largest, as Taichi does, in one compare-and-swap of the word."""

    def _group_values(self, cg: KernelCodegen, w: Value) -> list[Value]:
        g = self.field.shared
        assert g is not None
        em = cg.em
        exponent = em.bitwise(
            "&", em.shift(">>", w, g.shift), em.const((1 << g.exp) - 1, self.word_dt)
        )
        out = []
        for f in g.members:
            raw = em.bitwise(
                "&", em.shift(">>", w, f.shift), em.const(g.digits_mask(f), self.word_dt)
            )
            out.append(
                _shared_value(
                    cg, f.qtype, em.cast(exponent, dtypes.u32), em.cast(raw, dtypes.u32)
                )
            )
        return out

    def _read(self, cg: KernelCodegen, w: Value) -> Value:
        g = self.field.shared
        assert g is not None
        return self._group_values(cg, w)[g.index(self.field)]

    def _write(self, cg: KernelCodegen, w: Value, value: Value) -> Value:
        g = self.field.shared
        assert g is not None
        em, wdt = cg.em, self.word_dt
        values = self._group_values(cg, w)
        values[g.index(self.field)] = em.value(value, dtypes.f32)
        exps = [
            em.cast(
                em.bitwise(
                    "&",
                    em.shift(">>", em.cast(em.bitcast(v, dtypes.i32), dtypes.u32), 23),
                    0xFF,
                ),
                dtypes.i32,
            )
            for v in values
        ]
        top = exps[0]
        for x in exps[1:]:
            top = em.binary("max", top, x)
        q0 = g.members[0].qtype
        offset = em.select(
            em.compare("!=", top, 0),
            em.const(q0.exponent_offset, dtypes.i32),
            em.const(0, dtypes.i32),
        )
        stored = em.binary("max", em.binary("-", top, offset), em.const(0, dtypes.i32))
        bits = em.shift("<<", em.cast(em.cast(stored, dtypes.u32), wdt), g.shift)
        for f, v in zip(g.members, values):
            digits = _shared_digits(cg, f.qtype, v, top)
            bits = em.bitwise("|", bits, em.shift("<<", em.cast(digits, wdt), f.shift))
        return em.bitwise("&", bits, em.const(g.mask, wdt))

    def _keep(self, cg: KernelCodegen) -> Value:
        g = self.field.shared
        assert g is not None
        return cg.em.invert(cg.em.const(g.mask, self.word_dt))


def _ctlz(cg: KernelCodegen, x: Value) -> Value:
    """The leading zero bits of a u32 (32 for 0), by halving."""
    em, u32 = cg.em, dtypes.u32
    n = em.const(0, u32)
    for k in (16, 8, 4, 2, 1):
        top_clear = em.compare("<", x, em.const(1 << (32 - k), u32))
        n = em.binary("+", n, em.select(top_clear, em.const(k, u32), em.const(0, u32)))
        x = em.select(top_clear, em.shift("<<", x, k), x)
    return n


def _shared_value(cg: KernelCodegen, q: QuantFloat, exponent: Value, raw: Value) -> Value:
    """The f32 of digits `raw` under a shared `exponent` (both u32; lang/quant.py's
    QuantFloat.shared_value in IR)."""
    em, d = cg.em, q.digit_bits
    u32, i32 = dtypes.u32, dtypes.i32
    digits, sign = raw, em.const(0, u32)
    if q.signed:
        sign = em.bitwise("&", raw, em.const(1 << d, u32))
        digits = em.shift("<<", em.bitwise("^", raw, sign), 1)
        sign = em.shift("<<", sign, 31 - d)
    lz = em.select(em.compare("==", digits, 0), em.const(32, u32), _ctlz(cg, digits))
    extra = em.binary("-", em.const(31 - d, i32), em.cast(lz, i32))
    offset: Any = em.const(q.exponent_offset, i32)
    if q.exp < 8:
        offset = em.select(em.compare("!=", exponent, 0), offset, em.const(0, i32))
    offset = em.binary("+", offset, extra)
    if not q.signed:
        offset = em.binary("+", offset, em.const(1, i32))
    digits = em.shift(
        "<<", digits, em.cast(em.binary("-", em.const(23 - d, i32), extra), u32)
    )
    bits = em.bitwise(
        "|",
        em.shift("<<", em.cast(em.binary("+", em.cast(exponent, i32), offset), u32), 23),
        em.bitwise("&", digits, em.const((1 << 23) - 1, u32)),
    )
    zero = em.logical("or", em.compare("==", exponent, 0), em.compare("==", raw, 0))
    bits = em.bitwise("|", em.select(zero, em.const(0, u32), bits), sign)
    return em.bitcast(em.cast(bits, i32), dtypes.f32)


def _shared_digits(cg: KernelCodegen, q: QuantFloat, v: Value, top: Value) -> Value:
    """The digits (and sign) of f32 `v` under the f32 exponent `top` (i32), a u32."""
    em, d = cg.em, q.digit_bits
    u32 = dtypes.u32
    ub = em.cast(em.bitcast(v, dtypes.i32), u32)
    own = em.bitwise("&", em.shift(">>", ub, 23), em.const(0xFF, u32))
    m = em.bitwise(
        "|", em.bitwise("&", ub, em.const((1 << 23) - 1, u32)), em.const(1 << 23, u32)
    )
    down = em.binary("min", em.binary("-", em.cast(top, u32), own), em.const(31, u32))
    m = em.shift(">>", m, down)
    shift = 24 - d
    m = em.binary("+", m, em.const(1 << (shift - 1), u32))
    m = em.shift(">>", em.binary("min", m, em.const((1 << 24) - 1, u32)), shift)
    if q.signed:
        m = em.bitwise("|", m, em.shift("<<", em.shift(">>", ub, 31), d))
    return m


class QuantVecPlace(VecPlace):
    """An element of a quantized Vector/Matrix field: one QuantPlace per component."""

    def __init__(self, shape: tuple[int, ...], dtype: Any, places: list[QuantPlace]):
        self.shape, self.dtype, self.places = shape, dtype, places

    def load(self, cg: KernelCodegen) -> Vec:
        return Vec(self.shape, [p.load(cg) for p in self.places])

    def store(self, cg: KernelCodegen, value: Vec) -> None:
        for p, x in zip(self.places, value.elems):
            p.store(cg, x, None)  # type: ignore[arg-type]

    def component(self, cg: KernelCodegen, flat: int) -> Any:
        return self.places[flat]


def _bits_of_float(cg: KernelCodegen, q: QuantFloat, v: Value) -> Value:
    """An f32 as the exponent (low `exp` bits) and digits of `q` (lang/quant.py says
    how Taichi rounds, clamps and flushes to zero)."""
    em, e, d = cg.em, q.exp, q.digit_bits
    i32, u32 = dtypes.i32, dtypes.u32
    b = em.bitcast(v, i32)
    if d < 23:
        b = em.binary("+", b, em.const(1 << (22 - d), i32))
    ub = em.cast(b, u32)
    exponent = em.cast(em.bitwise("&", em.shift(">>", ub, 23), em.const(0xFF, u32)), i32)
    digits = em.bitwise("&", em.shift(">>", ub, 23 - d), em.const((1 << d) - 1, u32))
    if q.signed:
        digits = em.bitwise("|", digits, em.shift("<<", em.shift(">>", ub, 31), d))
    offset = em.select(
        em.compare("!=", exponent, 0), em.const(q.exponent_offset, i32), em.const(0, i32)
    )
    exponent = em.binary("max", em.binary("-", exponent, offset), em.const(0, i32))
    digits = em.select(em.compare("!=", exponent, 0), digits, em.const(0, u32))
    return em.cast(em.bitwise("|", em.cast(exponent, u32), em.shift("<<", digits, e)), i32)


def _float_of_bits(cg: KernelCodegen, q: QuantFloat, raw: Value) -> Value:
    """The f32 that the `exp + frac` bits `raw` of `q` hold."""
    em, e, d = cg.em, q.exp, q.digit_bits
    u32 = dtypes.u32
    raw = em.cast(raw, u32)
    exponent = em.bitwise("&", raw, em.const((1 << e) - 1, u32))
    digits = em.bitwise("&", em.shift(">>", raw, e), em.const((1 << q.frac) - 1, u32))
    digits = em.shift("<<", digits, 23 - d)
    offset: Any = em.const(q.exponent_offset, u32)
    if e < 8:
        offset = em.select(em.compare("!=", exponent, 0), offset, em.const(0, u32))
    bits = em.bitwise(
        "|",
        em.shift("<<", em.binary("+", exponent, offset), 23),
        em.bitwise("&", digits, em.const((1 << 23) - 1, u32)),
    )
    if q.signed:
        sign = em.bitwise("&", digits, em.const(1 << 23, u32))
        bits = em.bitwise("|", bits, em.shift("<<", sign, 8))
    return em.bitcast(em.cast(bits, dtypes.i32), dtypes.f32)


_BITWISE = (taichi.AtomicAndOp, taichi.AtomicOrOp, taichi.AtomicXorOp)
_COMBINE: dict[Any, Any] = {  # on the decoded values (add and sub: of quantized floats)
    taichi.AtomicAddOp: lambda em, a, b: em.binary("+", a, b),
    taichi.AtomicSubOp: lambda em, a, b: em.binary("-", a, b),
    taichi.AtomicMulOp: lambda em, a, b: em.binary("*", a, b),
    taichi.AtomicMinOp: lambda em, a, b: em.binary("min", a, b),
    taichi.AtomicMaxOp: lambda em, a, b: em.binary("max", a, b),
    taichi.AtomicAndOp: lambda em, a, b: em.bitwise("&", a, b),
    taichi.AtomicOrOp: lambda em, a, b: em.bitwise("|", a, b),
    taichi.AtomicXorOp: lambda em, a, b: em.bitwise("^", a, b),
}
