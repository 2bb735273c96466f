"""
ti-expand-f64-math: f64 transcendental functions as f64 arithmetic, for Vulkan.

GLSL.std.450's Exp, Log, Sin, Pow, ... take 16/32-bit floats only, and Taichi's and our
SPIR-V codegen used to compute an f64 `math.exp` in f32 between two conversions
(exp(1.0) = 2.7182819843292236). This pass replaces each f64 math op it knows by
straight-line f64 code that SPIR-V has natively (add, mul, div, fma, floor, compares,
selects, 64-bit integer bit tricks), accurate to a few ulp:

- exp: x = k ln2 + r with ln2 in two parts (Cody and Waite), |r| <= ln2/2; a degree
  13 Taylor polynomial of expm1(r); the result scaled by 2^k in two steps, so that
  subnormal results and exp(709.7) come out right. Overflow gives inf, underflow 0.
- log, log2: x = 2^e m with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s),
  s = (m - 1) / (m + 1), carried as a double-double, so that log2(3) is correctly rounded
  and pow can use it; x < 0 gives NaN, 0 gives -inf.
- pow: exp(y log|x|) with the product in double-double; C's special cases (pow(x, 0) = 1,
  pow(1, y) = 1, a negative x to an integer power takes the sign of its parity, NaN for a
  negative x to a non-integer power).
- tanh: expm1(2|x|) / (expm1(2|x|) + 2) near 0, 1 - 2 / (exp(2|x|) + 1) elsewhere.
- sin, cos, tan: |x| = k pi/2 + r as a double-double r, by Cody and Waite (pi/2 in three
  parts) below 2^20 and by Payne and Hanek (exact products with 52-bit chunks of 2/pi,
  summed mod 4) above, up to 1.8e308; Taylor polynomials of r picked by k mod 4;
  tan = sin / cos. Within an ulp except within ~1e-16 (relative) of a multiple of pi/2,
  where the absolute error stays below 1e-29.

- atan2: atan(u) by Taylor on |u| <= tan(pi/8), u = min(|x|, |y|) / max(|x|, |y|) or,
  past tan(pi/8), (min - max) / (min + max) with pi/4 added; then the octant and the
  signs (C's signed zeros and infinities). Within 2 ulp. (ti.asin and ti.acos use it.)

Ops it does not know (f64 asin, acos, atan, sinh, cosh, exp2, log10: the frontend emits
none of them) are left alone; convert-arith-
to-spirv then refuses them with a located error instead of narrowing them to f32.

    %y = math.exp %x : f64
    ~>
    %k = math.floor (x * log2(e) + 0.5)      ; x = k ln2 + r
    %r = x - k * ln2_hi - k * ln2_lo
    %q = r + r^2 * (1/2 + r (1/6 + ...))     ; expm1(r), Horner with math.fma
    %y = (1 + q) * 2^(k/2) * 2^(k - k/2)     ; the powers of two built from their bits
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from decimal import Decimal, getcontext
from fractions import Fraction
from math import factorial

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    Float64Type,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    UnitAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

getcontext().prec = 60
_LN2 = Decimal("0.693147180559945309417232121458176568075500134360255254120680009")


def _split(value: Decimal, zero_bits: int = 0) -> tuple[float, float]:
    """`value` as hi + lo doubles; hi has its `zero_bits` low mantissa bits cleared."""
    bits = struct.unpack("<q", struct.pack("<d", float(value)))[0]
    bits &= ~((1 << zero_bits) - 1)
    hi = struct.unpack("<d", struct.pack("<q", bits))[0]
    return hi, float(value - Decimal(hi))


_LN2_HI, _LN2_LO = _split(_LN2, 21)  # k * _LN2_HI is exact for |k| < 2^21
_LN2_DD = _split(_LN2)
_INV_LN2_DD = _split(1 / _LN2)
_EXP_COEFFS = [float(Fraction(1, factorial(n))) for n in range(13, 1, -1)]  # 1/13! .. 1/2!
_ATANH_COEFFS = [float(Fraction(1, 2 * k + 1)) for k in range(12, 0, -1)]  # 1/25 .. 1/3
def _arctan_inverse(n: int, bits: int) -> int:
    """atan(1/n) * 2^bits, rounded down (Gregory's series in integers)."""
    one, total, k = 1 << (bits + 32), 0, 0
    term = one // n
    while term:
        total += (-1) ** k * (term // (2 * k + 1))
        term //= n * n
        k += 1
    return total >> 32


_BITS = 1400
_PI_SCALED = 4 * (4 * _arctan_inverse(5, _BITS) - _arctan_inverse(239, _BITS))  # Machin
_TWO_OVER_PI = (2 << (2 * _BITS)) // _PI_SCALED  # 2/pi * 2^_BITS
_PIO2 = Fraction(_PI_SCALED, 2 << _BITS)


def _pio2_parts() -> tuple[float, float, float]:
    """pi/2 as p1 + p2 + p3; p1 and p2 have 33 significant bits, so k * p is exact for
    |k| < 2^20 (Cody and Waite, as fdlibm)."""
    parts, rest = [], _PIO2
    for keep in (33, 33, 53):
        exponent = rest.numerator.bit_length() - rest.denominator.bit_length()
        quantum = Fraction(2) ** (exponent - keep + 1)
        part = Fraction(int(rest / quantum), 1) * quantum
        parts.append(float(part))
        rest -= Fraction(parts[-1])
    return parts[0], parts[1], parts[2]


_PIO2_1, _PIO2_2, _PIO2_3 = _pio2_parts()
_PIO2_DD = (float(_PIO2), float(_PIO2 - Fraction(float(_PIO2))))
_PH_SCALE = 1000  # big arguments are scaled by 2^-1000, the chunks of 2/pi by 2^1000
_PH_CHUNKS = 24  # 52-bit chunks of 2/pi: enough for |x| up to 2^1024


def _two_over_pi_chunks() -> list[tuple[float, float]]:
    """Bits 52 i .. 52 i + 51 after the point of 2/pi, times 2^_PH_SCALE, each split in
    two 26-bit doubles (so their products with 27-bit halves of x are exact)."""
    chunks = []
    for i in range(_PH_CHUNKS):
        shift = _BITS - 52 * (i + 1)
        chunk = (_TWO_OVER_PI >> shift) & ((1 << 52) - 1)
        hi, lo = chunk >> 26 << 26, chunk & ((1 << 26) - 1)
        scale = Fraction(2) ** (_PH_SCALE - 52 * (i + 1))
        chunks.append((float(hi * scale), float(lo * scale)))
    return chunks


_TWO_OVER_PI_CHUNKS = _two_over_pi_chunks()
_SIN_COEFFS = [float(Fraction((-1) ** n, factorial(2 * n + 1))) for n in range(13, 0, -1)]
_COS_COEFFS = [float(Fraction((-1) ** n, factorial(2 * n))) for n in range(13, 1, -1)]
_ATAN_COEFFS = [float(Fraction((-1) ** n, 2 * n + 1)) for n in range(24, 0, -1)]
_PI_DD = (float(2 * _PIO2), float(2 * _PIO2 - Fraction(float(2 * _PIO2))))
_PIO4_DD = (float(_PIO2 / 2), float(_PIO2 / 2 - Fraction(float(_PIO2 / 2))))
_TAN_PI_8 = 0.41421356237309503
_EXP_MAX = 709.782712893384  # exp(x) overflows above
_EXP_MIN = -745.1332191019412  # exp(x) rounds to 0 below
_SQRT2 = 1.4142135623730951


class _F64:
    """Appends f64 (and i64) arithmetic ops to a list; every op gets `location`."""

    def __init__(self, location: Attribute):
        self.ops: list[Operation] = []
        self.location = location

    def emit(self, op: Operation) -> SSAValue:
        op.location = self.location
        # compensated sums only work as written: no contraction, no reassociation
        # (convert-arith-to-spirv carries it to SPIR-V's NoContraction decoration)
        if not isinstance(op, arith.ConstantOp) and op.results[0].type == f64:
            op.attributes["no_contraction"] = UnitAttr()
        self.ops.append(op)
        return op.results[0]

    def c(self, value: float) -> SSAValue:
        return self.emit(arith.ConstantOp(FloatAttr(value, f64)))

    def ci(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr(value, i64)))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AddfOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SubfOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MulfOp(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.DivfOp(a, b))

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        return self.emit(math.FmaOp(a, b, c))

    def neg(self, a: SSAValue) -> SSAValue:
        return self.emit(arith.NegfOp(a))

    def floor(self, a: SSAValue) -> SSAValue:
        return self.emit(math.FloorOp(a))

    def abs(self, a: SSAValue) -> SSAValue:
        return self.emit(math.AbsFOp(a))

    def cmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.CmpfOp(a, b, predicate))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SelectOp(cond, a, b))

    def either(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.OrIOp(a, b))

    def both(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AndIOp(a, b))

    def horner(self, x: SSAValue, coeffs: list[float]) -> SSAValue:
        acc = self.c(coeffs[0])
        for coeff in coeffs[1:]:
            acc = self.fma(acc, x, self.c(coeff))
        return acc

    def two_sum(self, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
        """s + e = a + b exactly (Knuth)."""
        s = self.add(a, b)
        bb = self.sub(s, a)
        e = self.add(self.sub(a, self.sub(s, bb)), self.sub(b, bb))
        return s, e

    def split(self, a: SSAValue) -> tuple[SSAValue, SSAValue]:
        """a = hi + lo with 26-bit halves (Veltkamp), for |a| < 2^996."""
        t = self.mul(a, self.c(134217729.0))  # 2^27 + 1
        hi = self.sub(t, self.sub(t, a))
        return hi, self.sub(a, hi)

    def two_prod(self, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
        """p + e = a * b exactly (Dekker), without fma: lavapipe's f64 fma is not
        always fused, and an unfused fma(a, b, -p) is 0."""
        p = self.mul(a, b)
        a_hi, a_lo = self.split(a)
        b_hi, b_lo = self.split(b)
        e = self.add(self.sub(self.mul(a_hi, b_hi), p), self.mul(a_hi, b_lo))
        e = self.add(self.add(e, self.mul(a_lo, b_hi)), self.mul(a_lo, b_lo))
        return p, e

    def power_of_two(self, k: SSAValue) -> SSAValue:
        """2^k for an i64 k in [-1022, 1023], from its bits."""
        biased = self.emit(arith.AddiOp(k, self.ci(1023)))
        bits = self.emit(arith.ShLIOp(biased, self.ci(52)))
        return self.emit(arith.BitcastOp(bits, f64))

    # -- exp ----------------------------------------------------------------------------

    def exp_core(self, hi: SSAValue, lo: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(k, t) with exp(hi + lo) = 2^k (1 + t), k an integral f64, for hi in
        [_EXP_MIN, _EXP_MAX] (|lo| tiny beside hi)."""
        k = self.floor(self.fma(hi, self.c(float(1 / _LN2)), self.c(0.5)))
        r_hi = self.sub(hi, self.mul(k, self.c(_LN2_HI)))  # exact (Sterbenz)
        r_lo = self.sub(lo, self.mul(k, self.c(_LN2_LO)))
        r, c = self.two_sum(r_hi, r_lo)
        q = self.fma(self.mul(r, r), self.horner(r, _EXP_COEFFS), r)  # expm1(r)
        # exp(r + c) - 1 = q + c (1 + q)
        return k, self.add(q, self.fma(c, q, c))

    def scale(self, m: SSAValue, k: SSAValue) -> SSAValue:
        """m * 2^k for an integral f64 k in [-1080, 1030], in two exact steps."""
        ki = self.emit(arith.FPToSIOp(k, i64))
        k1 = self.emit(arith.ShRSIOp(ki, self.ci(1)))
        k2 = self.emit(arith.SubiOp(ki, k1))
        return self.mul(self.mul(m, self.power_of_two(k1)), self.power_of_two(k2))

    def exp_dd(self, hi: SSAValue, lo: SSAValue) -> SSAValue:
        """exp(hi + lo); NaN, overflow (inf) and underflow (0) decided by `hi`."""
        over = self.cmp("ogt", hi, self.c(_EXP_MAX))
        under = self.cmp("olt", hi, self.c(_EXP_MIN))
        nan = self.cmp("uno", hi, hi)
        out_of_range = self.either(self.either(over, under), nan)
        zero = self.c(0.0)
        safe_hi = self.select(out_of_range, zero, hi)
        safe_lo = self.select(out_of_range, zero, lo)
        k, t = self.exp_core(safe_hi, safe_lo)
        result = self.scale(self.add(self.c(1.0), t), k)
        result = self.select(under, zero, result)
        result = self.select(over, self.c(float("inf")), result)
        return self.select(nan, hi, result)

    def expm1(self, x: SSAValue) -> SSAValue:
        """exp(x) - 1 for |x| <= 1.2, accurate relative to the result near 0."""
        k, t = self.exp_core(x, self.c(0.0))
        two_k = self.scale(self.c(1.0), k)
        # 2^k (1 + t) - 1 = (2^k - 1) + 2^k t; 2^k - 1 is exact for small k
        return self.fma(two_k, t, self.sub(two_k, self.c(1.0)))

    # -- log ----------------------------------------------------------------------------

    def log_parts(self, x: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(e, l_hi, l_lo): x = 2^e m, log(m) = l_hi + l_lo, for a finite x > 0."""
        tiny = self.cmp("olt", x, self.c(2.0**-1022))
        scaled = self.select(tiny, self.mul(x, self.c(2.0**54)), x)
        bits = self.emit(arith.BitcastOp(scaled, i64))
        exponent = self.emit(arith.ShRSIOp(bits, self.ci(52)))
        mantissa_bits = self.emit(
            arith.OrIOp(
                self.emit(arith.AndIOp(bits, self.ci((1 << 52) - 1))), self.ci(1023 << 52)
            )
        )
        m = self.emit(arith.BitcastOp(mantissa_bits, f64))  # in [1, 2)
        e = self.emit(arith.SIToFPOp(exponent, f64))
        e = self.sub(e, self.select(tiny, self.c(1023.0 + 54.0), self.c(1023.0)))
        big = self.cmp("ogt", m, self.c(_SQRT2))
        m = self.select(big, self.mul(m, self.c(0.5)), m)
        e = self.add(e, self.select(big, self.c(1.0), self.c(0.0)))
        f = self.sub(m, self.c(1.0))  # exact
        # s = f / (2 + f) as s_hi + s_lo
        d_hi = self.add(self.c(2.0), f)
        d_lo = self.add(self.sub(self.c(2.0), d_hi), f)
        s_hi = self.div(f, d_hi)
        q_hi, q_lo = self.two_prod(s_hi, d_hi)
        residual = self.sub(self.sub(self.sub(f, q_hi), q_lo), self.mul(s_hi, d_lo))
        s_lo = self.div(residual, d_hi)
        # log(m) = 2 atanh(s) = 2s (1 + z/3 + z^2/5 + ...), z = s^2 <= 0.0295
        z = self.mul(s_hi, s_hi)
        series = self.mul(z, self.horner(z, _ATANH_COEFFS))
        two_s = self.mul(self.c(2.0), s_hi)
        tail = self.fma(two_s, series, self.mul(self.c(2.0), s_lo))
        l_hi = self.add(two_s, tail)
        l_lo = self.sub(tail, self.sub(l_hi, two_s))
        return e, l_hi, l_lo

    def mul_dd(
        self, hi: SSAValue, lo: SSAValue, c: tuple[float, float]
    ) -> tuple[SSAValue, SSAValue]:
        """(hi + lo) * (c[0] + c[1]) as a double-double."""
        c_hi, c_lo = self.c(c[0]), self.c(c[1])
        p, err = self.two_prod(hi, c_hi)
        err = self.add(err, self.add(self.mul(hi, c_lo), self.mul(lo, c_hi)))
        return p, err

    def log_dd(
        self, x: SSAValue, scale: tuple[float, float], e_scale: tuple[float, float]
    ) -> tuple[SSAValue, SSAValue]:
        """log(x) * scale as hi + lo, where e_scale = ln2 * scale (as double-doubles)."""
        e, l_hi, l_lo = self.log_parts(x)
        l_hi, l_lo = self.mul_dd(l_hi, l_lo, scale) if scale != (1.0, 0.0) else (l_hi, l_lo)
        e_hi, e_lo = self.mul_dd(e, self.c(0.0), e_scale)
        hi, lo = self.two_sum(e_hi, l_hi)
        lo = self.add(lo, self.add(l_lo, e_lo))
        s = self.add(hi, lo)
        return s, self.sub(lo, self.sub(s, hi))

    def log_special(self, x: SSAValue, result: SSAValue) -> SSAValue:
        """`result` where x is finite and > 0; log's value elsewhere."""
        result = self.select(self.cmp("oeq", x, self.c(float("inf"))), x, result)
        result = self.select(self.cmp("oeq", x, self.c(0.0)), self.c(float("-inf")), result)
        return self.select(self.cmp("ult", x, self.c(0.0)), self.c(float("nan")), result)


class _Trig(_F64):
    """sin and cos: |x| = k pi/2 + r, then polynomials of r by the quadrant k mod 4."""

    def mod4(self, p: SSAValue) -> SSAValue:
        """p - 4 floor(p / 4), exact for a double p."""
        q = self.floor(self.mul(p, self.c(0.25)))
        return self.sub(p, self.mul(q, self.c(4.0)))

    def reduce_small(self, a: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(k, r_hi, r_lo) for 0 <= a < 2^20 (Cody and Waite, pi/2 in three parts)."""
        k = self.floor(self.fma(a, self.c(float(1 / _PIO2)), self.c(0.5)))
        r1 = self.sub(a, self.mul(k, self.c(_PIO2_1)))  # exact
        r, e = self.two_sum(r1, self.neg(self.mul(k, self.c(_PIO2_2))))  # k p2 exact
        e = self.sub(e, self.mul(k, self.c(_PIO2_3)))
        return k, *self.two_sum(r, e)

    def reduce_big(self, a: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(k, r_hi, r_lo) for a >= 2^20: a * 2/pi mod 4 summed from exact products of
        the halves of a (2^-1000 a) and the 52-bit chunks of 2/pi (Payne and Hanek)."""
        scaled = self.mul(a, self.c(2.0**-_PH_SCALE))
        bits = self.emit(arith.BitcastOp(scaled, i64))
        high = self.emit(arith.AndIOp(bits, self.ci(~((1 << 27) - 1))))
        a_hi = self.emit(arith.BitcastOp(high, f64))
        a_lo = self.sub(scaled, a_hi)
        s, e = self.c(0.0), self.c(0.0)
        for c_hi, c_lo in _TWO_OVER_PI_CHUNKS:
            for x_part in (a_hi, a_lo):
                for c_part in (c_hi, c_lo):
                    term = self.mod4(self.mul(x_part, self.c(c_part)))
                    s, err = self.two_sum(s, term)
                    e = self.add(e, err)
            s = self.mod4(s)  # keep the integral part small
        k = self.floor(self.add(s, self.c(0.5)))
        f_hi, f_lo = self.two_sum(self.sub(s, k), e)
        r_hi, r_lo = self.mul_dd(f_hi, f_lo, _PIO2_DD)
        return k, r_hi, r_lo

    def reduce(self, x: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(quadrant in 0..3, r_hi, r_lo) with |x| = k pi/2 + r, |r| <~ pi/4."""
        a = self.abs(x)
        small = self.cmp("olt", a, self.c(2.0**20))
        k_s, hi_s, lo_s = self.reduce_small(self.select(small, a, self.c(0.0)))
        k_b, hi_b, lo_b = self.reduce_big(self.select(small, self.c(2.0**20), a))
        quadrant = self.mod4(self.select(small, k_s, k_b))
        return quadrant, self.select(small, hi_s, hi_b), self.select(small, lo_s, lo_b)

    def sin_poly(self, r: SSAValue, r_lo: SSAValue) -> SSAValue:
        z = self.mul(r, r)
        tail = self.mul(self.mul(z, r), self.horner(z, _SIN_COEFFS))
        correction = self.mul(r_lo, self.fma(z, self.c(-0.5), self.c(1.0)))
        return self.add(r, self.add(tail, correction))

    def cos_poly(self, r: SSAValue, r_lo: SSAValue) -> SSAValue:
        z = self.mul(r, r)
        half_z = self.mul(z, self.c(0.5))
        w = self.sub(self.c(1.0), half_z)
        tail = self.mul(self.mul(z, z), self.horner(z, _COS_COEFFS))
        tail = self.sub(self.add(self.sub(self.sub(self.c(1.0), w), half_z), tail),
                        self.mul(r, r_lo))
        return self.add(w, tail)

    def by_quadrant(self, q: SSAValue, values: list[SSAValue]) -> SSAValue:
        """values[q] for a quadrant q in {0, 1, 2, 3}."""
        result = values[0]
        for index in (1, 2, 3):
            hit = self.cmp("oeq", q, self.c(float(index)))
            result = self.select(hit, values[index], result)
        return result

    def sin_cos(self, x: SSAValue) -> tuple[SSAValue, SSAValue]:
        q, r, r_lo = self.reduce(x)
        s, c = self.sin_poly(r, r_lo), self.cos_poly(r, r_lo)
        sin_a = self.by_quadrant(q, [s, c, self.neg(s), self.neg(c)])
        cos_a = self.by_quadrant(q, [c, self.neg(s), self.neg(c), s])
        negative = self.cmp("olt", x, self.c(0.0))
        return self.select(negative, self.neg(sin_a), sin_a), cos_a


def _sin(b: _F64, x: SSAValue) -> SSAValue:
    assert isinstance(b, _Trig)
    return b.sin_cos(x)[0]


def _cos(b: _F64, x: SSAValue) -> SSAValue:
    assert isinstance(b, _Trig)
    return b.sin_cos(x)[1]


def _tan(b: _F64, x: SSAValue) -> SSAValue:
    assert isinstance(b, _Trig)
    sin, cos = b.sin_cos(x)
    return b.div(sin, cos)


def _atan2(b: _F64, y: SSAValue, x: SSAValue) -> SSAValue:
    """atan2 from atan(u) on |u| <= tan(pi/8) (Taylor), with u = min/max of |x|, |y| or
    (min - max) / (min + max) past tan(pi/8), then the octant's constant in
    double-double; C's special values (signed zeros, infinities, NaN)."""
    ay, ax = b.abs(y), b.abs(x)
    swap = b.cmp("ogt", ay, ax)
    num, den = b.select(swap, ax, ay), b.select(swap, ay, ax)
    t = b.div(num, den)
    shifted = b.cmp("ogt", t, b.c(_TAN_PI_8))
    u = b.select(shifted, b.div(b.sub(num, den), b.add(num, den)), t)
    z = b.mul(u, u)
    a = b.fma(b.mul(u, z), b.horner(z, _ATAN_COEFFS), u)  # atan(u)
    zero = b.c(0.0)
    r = b.add(b.select(shifted, b.c(_PIO4_DD[0]), zero),
              b.add(b.select(shifted, b.c(_PIO4_DD[1]), zero), a))
    # |y| > |x|: pi/2 - r; x < 0 (or -0): pi - r
    r = b.select(swap, b.add(b.c(_PIO2_DD[0]), b.sub(b.c(_PIO2_DD[1]), r)), r)
    inf = b.c(float("inf"))
    both_inf = b.both(b.cmp("oeq", ax, inf), b.cmp("oeq", ay, inf))
    r = b.select(both_inf, b.c(_PIO4_DD[0]), r)
    r = b.select(b.cmp("oeq", ay, zero), zero, r)  # atan2(+-0, x): 0 or pi below
    x_bits = b.emit(arith.BitcastOp(x, i64))
    x_negative = b.emit(arith.CmpiOp(x_bits, b.ci(0), "slt"))  # -0 too
    r = b.select(x_negative, b.add(b.c(_PI_DD[0]), b.sub(b.c(_PI_DD[1]), r)), r)
    y_bits = b.emit(arith.BitcastOp(y, i64))
    y_negative = b.emit(arith.CmpiOp(y_bits, b.ci(0), "slt"))
    r = b.select(y_negative, b.neg(r), r)
    return b.select(b.either(b.cmp("uno", x, x), b.cmp("uno", y, y)), b.add(x, y), r)


def _exp(b: _F64, x: SSAValue) -> SSAValue:
    return b.exp_dd(x, b.c(0.0))


def _log_with(scale: tuple[float, float], e_scale: tuple[float, float]) -> Callable:
    def build(b: _F64, x: SSAValue) -> SSAValue:
        hi, _ = b.log_dd(x, scale, e_scale)
        return b.log_special(x, hi)

    return build


def _pow(b: _F64, x: SSAValue, y: SSAValue) -> SSAValue:
    ax = b.abs(x)
    l_hi, l_lo = b.log_dd(ax, (1.0, 0.0), _LN2_DD)
    inf = b.c(float("inf"))
    l_hi = b.select(b.cmp("oeq", ax, inf), inf, l_hi)
    l_hi = b.select(b.cmp("oeq", ax, b.c(0.0)), b.c(float("-inf")), l_hi)
    p, p_err = b.two_prod(y, l_hi)
    p_lo = b.add(p_err, b.mul(y, l_lo))
    r = b.exp_dd(p, p_lo)
    # a negative x: an integral y gives the sign of its parity, any other y NaN
    integral = b.cmp("oeq", b.floor(y), y)
    half = b.mul(y, b.c(0.5))
    odd = b.both(integral, b.cmp("one", b.floor(half), half))
    negative = b.cmp("olt", x, b.c(0.0))
    r = b.select(b.both(negative, odd), b.neg(r), r)
    fractional = b.cmp("une", b.floor(y), y)
    finite_negative = b.both(negative, b.cmp("one", ax, inf))  # pow(-inf, 0.5) = inf
    r = b.select(b.both(finite_negative, fractional), b.c(float("nan")), r)
    r = b.select(b.cmp("uno", x, x), x, r)
    one = b.c(1.0)
    # |x| = 1 to an infinite power is 1 (C99); pow(1, y) = pow(x, 0) = 1 even for NaN
    unit_inf = b.both(b.cmp("oeq", ax, one), b.cmp("oeq", b.abs(y), inf))
    r = b.select(unit_inf, one, r)
    r = b.select(b.cmp("oeq", x, one), one, r)
    return b.select(b.cmp("oeq", y, b.c(0.0)), one, r)


def _tanh(b: _F64, x: SSAValue) -> SSAValue:
    a = b.abs(x)
    small = b.cmp("olt", a, b.c(0.55))
    # near 0: expm1(2a) / (expm1(2a) + 2); beyond: 1 - 2 / (exp(2a) + 1)
    em = b.expm1(b.mul(b.select(small, a, b.c(0.0)), b.c(2.0)))
    near = b.div(em, b.add(em, b.c(2.0)))
    e = b.exp_dd(b.mul(a, b.c(2.0)), b.c(0.0))
    far = b.sub(b.c(1.0), b.div(b.c(2.0), b.add(e, b.c(1.0))))
    r = b.select(small, near, far)
    return b.select(b.cmp("olt", x, b.c(0.0)), b.neg(r), r)


_EXPANSIONS: dict[type[Operation], Callable[..., SSAValue]] = {
    math.ExpOp: _exp,
    math.LogOp: _log_with((1.0, 0.0), _LN2_DD),
    math.Log2Op: _log_with(_INV_LN2_DD, (1.0, 0.0)),
    math.PowFOp: _pow,
    math.TanhOp: _tanh,
    math.SinOp: _sin,
    math.CosOp: _cos,
    math.TanOp: _tan,
    math.Atan2Op: _atan2,
}
"""The f64 math ops this pass expands, each to the builder of its f64 code."""


class ExpandF64Math(RewritePattern):
    """
    An f64 math op of `_EXPANSIONS` -> its f64 arithmetic (see the module docstring).
    Must not fire on f32/f16 ops (GLSL.std.450 has those) or on vectors.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        expand = _EXPANSIONS.get(type(op))
        if expand is None or not isinstance(op.results[0].type, Float64Type):
            return
        builder = _Trig(op.location)
        result = expand(builder, *op.operands)
        rewriter.replace(op, builder.ops, [result])


class ExpandF64MathPass(ModulePass):
    """Expand f64 exp/log/log2/pow/tanh/sin/cos/tan/atan2 into f64 arithmetic (SPIR-V)."""

    name = "ti-expand-f64-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandF64Math(), apply_recursively=False).rewrite_module(op)
