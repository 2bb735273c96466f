"""
convert-arith-to-spirv: `arith` and `math` ops -> `spirv` ops (MLIR's ArithToSPIRV and
MathToSPIRV, for the scalar types taichi kernels use).

    %s = arith.addf %a, %b : f32          ~>  %s = spirv.FAdd %a, %b : f32
    %c = arith.cmpi slt, %i, %n : i32     ~>  %c = spirv.SLessThan %i, %n : i32
    %r = math.sqrt %x : f32               ~>  %r = spirv.GL.Sqrt %x : f32
    %q = arith.floordivsi %a, %b : i32    ~>  SDiv, then one less when the remainder is
                                              non-zero and its sign differs from %b's
    %r = arith.remsi %a, %b : i32         ~>  %a - (%a SDiv %b) * %b

Vulkan leaves OpSRem and OpSMod undefined when an operand is negative (NVIDIA's driver
returns wrong remainders for them), so a signed remainder is computed from OpSDiv, as
Taichi's SPIR-V codegen does.

GLSL.std.450's transcendental functions take 16/32-bit floats only: an f64 `math.sin`
is an error naming its source position (ti-expand-f64-math, earlier in the pipeline,
expands f64 exp/log/log2/pow/tanh/sin/cos/tan/atan2 into f64 arithmetic). Taichi computed such ops in f32
between two FConverts, quietly.

Left alone: ops with `index` operands or results (they only appear around ndarray
shapes, which convert-offload-to-spirv reads from the argument buffer) and the
kernel-level constants of an `offload.kernel` (a range_for's bounds, read by the runtime).
"""

from __future__ import annotations

from collections.abc import Callable

from taichi_xdsl.dialects import offload, spirv
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
    VectorType,
    f32,
    i1,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

Built = tuple[list[Operation], SSAValue]
Builder = Callable[[Operation], Built]


def _one(op: Operation) -> Built:
    return [op], op.results[0]


def _binary(kind: type[Operation]) -> Builder:
    return lambda op: _one(kind(op.operands[0], op.operands[1]))  # type: ignore[call-arg]


def _unary(kind: type[Operation]) -> Builder:
    return lambda op: _one(kind(op.operands[0]))  # type: ignore[call-arg]


def _widened(signed: bool, ops: list[Operation], *values: SSAValue) -> list[SSAValue]:
    """8- and 16-bit integers extended to i32 (each conversion appended to `ops`); other
    values as they are. NVIDIA's driver (580) miscompiles narrow min/max and compares:
    `i16(255) == max(i16(255), i16(7), x)` came out as `x >= 255` (differential run
    on an H100), so narrow integers are compared and min/max'ed at 32 bits."""
    out = []
    for value in values:
        type_ = value.type
        if isinstance(type_, IntegerType) and 1 < type_.width.data < 32:
            kind = spirv.SConvertOp if signed else spirv.UConvertOp
            ops.append(kind(value, IntegerType(32)))
            value = ops[-1].results[0]
        out.append(value)
    return out


def _min_max_of(kind: type[Operation], signed: bool, a: SSAValue, b: SSAValue) -> Built:
    """`kind(a, b)` for an integer min/max, at 32 bits for narrow types (`_widened`)."""
    ops: list[Operation] = []
    wide_a, wide_b = _widened(signed, ops, a, b)
    ops.append(kind(wide_a, wide_b))  # type: ignore[call-arg]
    if wide_a is not a:
        ops.append(spirv.SConvertOp(ops[-1].results[0], a.type))
    return ops, ops[-1].results[0]


def _min_max(kind: type[Operation], signed: bool, on_bools: type[Operation]) -> Builder:
    """
    Integer min/max, at 32 bits for narrow types (see `_widened`). On bools, which
    GLSL.std.450's min/max do not take, the logical op `on_bools` that gives the same:
    unsigned, true is 1 (max is `or`, min is `and`); signed, an i1's true is -1 (max is
    `and`, min is `or`).
    """

    def build(op: Operation) -> Built:
        a, b = op.operands
        if _is_bool(a):
            return _one(on_bools(a, b))  # type: ignore[call-arg]
        return _min_max_of(kind, signed, a, b)

    return build


def _absi(op: Operation) -> Built:
    """Integer abs as select(x < 0, -x, x), compared at 32 bits for narrow types
    (`_widened`). NVIDIA's driver (580) miscompiles both other spellings: GLSL SAbs it
    takes as never negative, so `2**25 // (abs(INT_MIN) | 1)` divided as if the divisor
    were positive (0, not -1); SMax(x, -x) came out as an unsigned max, abs(-83) = -83,
    in 19 of 10,000 differential programs on the H200. The select is right at 8 to 32
    bits there; at 64 bits the driver still takes it as never negative, so
    abs(INT64_MIN) used as a divisor can differ on NVIDIA (README, differential testing)."""
    ops: list[Operation] = []
    (x,) = _widened(True, ops, op.operands[0])
    zero = spirv.ConstantOp(IntegerAttr(0, x.type))
    negated = spirv.SNegateOp(x)
    negative = spirv.SLessThanOp(x, zero.results[0])
    select = spirv.SelectOp(negative.results[0], negated.results[0], x)
    ops += [zero, negated, negative, select]
    if x is not op.operands[0]:
        ops.append(spirv.SConvertOp(select.results[0], op.operands[0].type))
    return ops, ops[-1].results[0]


def _shift_left(op: Operation) -> Built:
    """
    `x << n`, spelt so that NVIDIA's driver (580) keeps its wrap-around. 8/16-bit: at 32
    bits, then the low bits re-sign-extended with OpBitFieldSExtract (`_narrow_shift_left`);
    64-bit: on the two 32-bit halves (`_wide_shift_left`); 32-bit: OpShiftLeftLogical. With
    the plain op the driver compared `(-i16(l) << 13) < ...` (l an i64) as if the bits
    shifted out of 16 were kept, and took `1 > (i64(u32(a)) << 58)` as false for a
    negative shifted value (difftest seeds 9074 and 3126 on the H200). Nine variants were
    tried there (bench/nvidia_shift_probe.py, bench/results/h200-nvidia-shift-probe.txt):
    these two are right on every seed and edge value; a shl/ashr pair at 32 bits, IMul by
    2**c, a Bitcast round trip of the result or of the zero extension were not.
    """
    width = op.operands[0].type.width.data  # type: ignore[attr-defined]
    if 1 < width < 32:
        return _narrow_shift_left(op, width)
    if width == 64:
        return _wide_shift_left(op)
    return _one(spirv.ShiftLeftLogicalOp(*op.operands))


def _narrow_shift_left(op: Operation, width: int) -> Built:
    """
    An 8/16-bit `x << n` at 32 bits, its low `width` bits sign-extended, then narrowed.

        %r = arith.shli %x, %n : i16   ~>   %x32 = spirv.SConvert %x : i16 to i32
                                            %n32 = spirv.UConvert %n : i16 to i32
                                            %s = spirv.ShiftLeftLogical %x32, %n32
                                            %e = spirv.BitFieldSExtract %s, %c0, %c16
                                            %r = spirv.SConvert %e : i32 to i16
    """
    x, n = op.operands
    x32 = spirv.SConvertOp(x, IntegerType(32))
    n32 = spirv.UConvertOp(n, IntegerType(32))
    shifted = spirv.ShiftLeftLogicalOp(x32, n32)
    zero, bits = spirv.ConstantOp.from_int(0), spirv.ConstantOp.from_int(width)
    extended = spirv.BitFieldSExtractOp(shifted, zero, bits)
    narrowed = spirv.SConvertOp(extended, x.type)
    return [x32, n32, shifted, zero, bits, extended, narrowed], narrowed.results[0]


def _wide_shift_left(op: Operation) -> Built:
    """
    A 64-bit `x << n` on x's two 32-bit halves (lo, hi), the amount taken modulo 64.
    A constant amount c < 32 gives (lo << c, hi << c | lo >> (32 - c)); c >= 32 gives
    (0, lo << (c - 32)). A variable one computes both and selects on n >= 32:

        %r = arith.shli %x, %c5 : i64  ~>  %v = spirv.Bitcast %x : i64 to vector<2xi32>
                                            %lo = spirv.CompositeExtract %v[0 : i32]
                                            %hi = spirv.CompositeExtract %v[1 : i32]
                                            %h = spirv.BitwiseOr (%hi << 5), (%lo >> 27)
                                            %l = spirv.ShiftLeftLogical %lo, %c5_i32
                                            %w = spirv.CompositeConstruct %l, %h
                                            %r = spirv.Bitcast %w : vector<2xi32> to i64
    """
    x, n = op.operands
    i32 = IntegerType(32)
    halves = VectorType(i32, [2])
    ops: list[Operation] = []

    def add(new: Operation) -> SSAValue:
        ops.append(new)
        return new.results[0]

    def const(value: int) -> SSAValue:
        return add(spirv.ConstantOp.from_int(value))

    amount = _constant_int(n)
    if amount is not None and amount % 64 == 0:
        return [], x
    pair = add(spirv.BitcastOp(x, halves))
    lo = add(spirv.CompositeExtractOp(pair, [0]))
    hi = add(spirv.CompositeExtractOp(pair, [1]))
    if amount is not None and amount % 64 >= 32:
        new_lo = const(0)
        new_hi = add(spirv.ShiftLeftLogicalOp(lo, const(amount % 64 - 32)))
    elif amount is not None:
        c = amount % 64
        new_lo = add(spirv.ShiftLeftLogicalOp(lo, const(c)))
        carry = add(spirv.ShiftRightLogicalOp(lo, const(32 - c)))
        new_hi = add(spirv.BitwiseOrOp(add(spirv.ShiftLeftLogicalOp(hi, const(c))), carry))
    else:
        n32 = add(spirv.SConvertOp(n, i32))
        low5 = add(spirv.BitwiseAndOp(n32, const(31)))
        high = add(spirv.BitwiseAndOp(n32, const(32)))
        above = add(spirv.INotEqualOp(high, const(0)))
        lo_shifted = add(spirv.ShiftLeftLogicalOp(lo, low5))
        hi_shifted = add(spirv.ShiftLeftLogicalOp(hi, low5))
        # lo >> (32 - low5), in two steps: a shift by 32 is undefined in SPIR-V
        lo_halved = add(spirv.ShiftRightLogicalOp(lo, const(1)))
        rest = add(spirv.ISubOp(const(31), low5))
        carry = add(spirv.ShiftRightLogicalOp(lo_halved, rest))
        below_hi = add(spirv.BitwiseOrOp(hi_shifted, carry))
        new_lo = add(spirv.SelectOp(above, const(0), lo_shifted))
        new_hi = add(spirv.SelectOp(above, lo_shifted, below_hi))
    joined = add(spirv.CompositeConstructOp([new_lo, new_hi], halves))
    add(spirv.BitcastOp(joined, x.type))
    return ops, ops[-1].results[0]


def _convert(kind: type[Operation]) -> Builder:
    return lambda op: _one(kind(op.operands[0], op.results[0].type))  # type: ignore[call-arg]


def _is_bool(value: SSAValue) -> bool:
    return value.type == i1


def _bitwise(int_kind: type[Operation], bool_kind: type[Operation]) -> Builder:
    def build(op: Operation) -> Built:
        kind = bool_kind if _is_bool(op.operands[0]) else int_kind
        return _one(kind(op.operands[0], op.operands[1]))  # type: ignore[call-arg]

    return build


def _constant(op: Operation) -> Built:
    assert isinstance(op, arith.ConstantOp)
    value = op.value
    assert isinstance(value, IntegerAttr | FloatAttr)
    return _one(spirv.ConstantOp(value))


def _const_like(value: float, type_: object) -> spirv.ConstantOp:
    if isinstance(type_, IntegerType):
        return spirv.ConstantOp.from_int(int(value), type_)
    return spirv.ConstantOp.from_float(float(value), type_)  # type: ignore[arg-type]


_CMPI: dict[str, type[Operation]] = {
    "eq": spirv.IEqualOp,
    "ne": spirv.INotEqualOp,
    "slt": spirv.SLessThanOp,
    "sle": spirv.SLessThanEqualOp,
    "sgt": spirv.SGreaterThanOp,
    "sge": spirv.SGreaterThanEqualOp,
    "ult": spirv.ULessThanOp,
    "ule": spirv.ULessThanEqualOp,
    "ugt": spirv.UGreaterThanOp,
    "uge": spirv.UGreaterThanEqualOp,
}
_CMPI_NAMES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_CMPF: dict[str, type[Operation]] = {
    "oeq": spirv.FOrdEqualOp,
    "one": spirv.FOrdNotEqualOp,
    "olt": spirv.FOrdLessThanOp,
    "ole": spirv.FOrdLessThanEqualOp,
    "ogt": spirv.FOrdGreaterThanOp,
    "oge": spirv.FOrdGreaterThanEqualOp,
    "ueq": spirv.FUnordEqualOp,
    "une": spirv.FUnordNotEqualOp,
    "ult": spirv.FUnordLessThanOp,
    "ule": spirv.FUnordLessThanEqualOp,
    "ugt": spirv.FUnordGreaterThanOp,
    "uge": spirv.FUnordGreaterThanEqualOp,
}
_CMPF_NAMES = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
]  # fmt: skip


def _cmpi(op: Operation) -> Built:
    assert isinstance(op, arith.CmpiOp)
    name = _CMPI_NAMES[op.predicate.value.data]
    lhs, rhs = op.lhs, op.rhs
    if _is_bool(lhs) and name in ("eq", "ne"):
        kind = spirv.LogicalEqualOp if name == "eq" else spirv.LogicalNotEqualOp
        return _one(kind(lhs, rhs))
    if _is_bool(lhs):
        # SPIR-V orders integers only: widen the bools to i32 (true is 1 unsigned, -1
        # signed, as arith reads an i1); difftest seed 2269, `(a == b) < (c > d)`.
        true = spirv.ConstantOp.from_int(-1 if name[0] == "s" else 1)
        false = spirv.ConstantOp.from_int(0)
        a = spirv.SelectOp(lhs, true.results[0], false.results[0])
        b = spirv.SelectOp(rhs, true.results[0], false.results[0])
        compare = _CMPI[name](a.results[0], b.results[0])  # type: ignore[call-arg]
        return [true, false, a, b, compare], compare.results[0]
    narrowed = _narrow_extended_compare(name, lhs, rhs)
    if narrowed is not None:
        return narrowed
    return _compare(name, lhs, rhs, [])


def _compare(name: str, lhs: SSAValue, rhs: SSAValue, ops: list[Operation]) -> Built:
    """The integer compare `name`, after `ops`; narrow operands at 32 bits (`_widened`)."""
    a, b = _widened(name[0] != "u", ops, lhs, rhs)
    ops.append(_CMPI[name](a, b))  # type: ignore[call-arg]
    return ops, ops[-1].results[0]


_SWAPPED = {"eq": "eq", "ne": "ne", "slt": "sgt", "sle": "sge", "sgt": "slt",
            "sge": "sle", "ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule"}


def _narrow_extended_compare(name: str, lhs: SSAValue, rhs: SSAValue) -> Built | None:
    """
    `ext(%x) < C` with C in %x's range compares %x with C in %x's narrower type.

        %w = spirv.SConvert %x : i32 to i64 ; %c = spirv.Constant 255 : i64
        %r = arith.cmpi slt, %w, %c : i64   ~>  %r = spirv.SLessThan %x, %c32 : i32

    Lavapipe (Mesa llvmpipe 24) answers such a comparison wrongly in its widened form
    (`i64(a[i]) < i64(255)` is false for a[i] = 5; Taichi 1.7.4 on lavapipe too); found
    by utils/difftest.py, seed 7. The narrow form is equivalent and cheaper everywhere.
    """
    if _constant_int(lhs) is not None and _constant_int(rhs) is None:
        name, lhs, rhs = _SWAPPED[name], rhs, lhs
    value = _constant_int(rhs)
    owner = lhs.owner
    if value is None:
        return None
    signed = isinstance(owner, arith.ExtSIOp | spirv.SConvertOp)
    if not (signed or isinstance(owner, arith.ExtUIOp | spirv.UConvertOp)):
        return None
    if name[0] in "su" and (name[0] == "s") != signed:
        return None  # a signed compare of a zero-extended value, or the reverse
    narrow = owner.operands[0]
    if not isinstance(narrow.type, IntegerType) or narrow.type.width.data <= 1:
        return None
    bits = narrow.type.width.data
    if not isinstance(lhs.type, IntegerType) or bits >= lhs.type.width.data:
        # spirv.SConvert/UConvert also truncate (a trunci lowered first): comparing
        # their wider source would skip the truncation (difftest seed 7, `i8(255) > 2`)
        return None
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= value <= hi:
        return None
    # an unsigned value from 2**(bits-1) up: IntegerAttr keeps its signed pattern itself
    # (200 : i8 is -56), so it is given as it is
    constant = spirv.ConstantOp.from_int(value, narrow.type)
    return _compare(name, narrow, constant.results[0], [constant])


def _constant_int(value: SSAValue) -> int | None:
    """The value of an integer constant (arith or spirv), interpreted with its sign."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp | spirv.ConstantOp):
        attr = owner.value
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType):
            return attr.value.data
    return None


def _cmpf(op: Operation) -> Built:
    assert isinstance(op, arith.CmpfOp)
    name = _CMPF_NAMES[op.predicate.value.data]
    lhs, rhs = op.lhs, op.rhs
    if name in ("true", "false"):
        return _one(spirv.ConstantOp.from_bool(name == "true"))
    if name in ("ord", "uno"):
        a, b = spirv.IsNanOp(lhs), spirv.IsNanOp(rhs)
        either = spirv.LogicalOrOp(a, b)
        if name == "uno":
            return [a, b, either], either.results[0]
        ordered = spirv.LogicalNotOp(either)
        return [a, b, either, ordered], ordered.results[0]
    return _one(_CMPF[name](lhs, rhs))  # type: ignore[call-arg]


def _remsi(op: Operation) -> Built:
    """a % b truncating (the sign of a): a - (a / b) * b, never OpSRem (see above)."""
    a, b = op.operands
    q = spirv.SDivOp(a, b)
    product = spirv.IMulOp(q, b)
    r = spirv.ISubOp(a, product)
    return [q, product, r], r.results[0]


def _floordivsi(op: Operation) -> Built:
    """a // b rounding to -inf: q - 1 when a % b != 0 and the signs of a % b and b differ
    (the remainder computed as a - q * b, see _remsi)."""
    a, b = op.operands
    zero, one = _const_like(0, a.type), _const_like(1, a.type)
    q = spirv.SDivOp(a, b)
    product = spirv.IMulOp(q, b)
    r = spirv.ISubOp(a, product)
    nonzero = spirv.INotEqualOp(r, zero)
    r_neg, b_neg = spirv.SLessThanOp(r, zero), spirv.SLessThanOp(b, zero)
    differ = spirv.LogicalNotEqualOp(r_neg, b_neg)
    adjust = spirv.LogicalAndOp(nonzero, differ)
    q1 = spirv.ISubOp(q, one)
    result = spirv.SelectOp(adjust, q1, q)
    ops = [zero, one, q, product, r, nonzero, r_neg, b_neg, differ, adjust, q1, result]
    return ops, result.results[0]


def _ext_bool(signed: bool) -> Builder:
    def build(op: Operation) -> Built:
        source, target = op.operands[0], op.results[0].type
        if not _is_bool(source):
            kind = spirv.SConvertOp if signed else spirv.UConvertOp
            return _one(kind(source, target))
        on, off = _const_like(-1 if signed else 1, target), _const_like(0, target)
        select = spirv.SelectOp(source, on, off)
        return [on, off, select], select.results[0]

    return build


def _trunci(op: Operation) -> Built:
    source, target = op.operands[0], op.results[0].type
    if target != i1:
        return _one(spirv.SConvertOp(source, target))
    one, zero = _const_like(1, source.type), _const_like(0, source.type)
    low = spirv.BitwiseAndOp(source, one)
    bit = spirv.INotEqualOp(low, zero)
    return [one, zero, low, bit], bit.results[0]


def _to_float(signed: bool) -> Builder:
    def build(op: Operation) -> Built:
        source, target = op.operands[0], op.results[0].type
        if not _is_bool(source):
            kind = spirv.ConvertSToFOp if signed else spirv.ConvertUToFOp
            return _one(kind(source, target))
        on, off = _const_like(-1.0 if signed else 1.0, target), _const_like(0.0, target)
        select = spirv.SelectOp(source, on, off)
        return [on, off, select], select.results[0]

    return build


def _transcendental(kind: type[Operation]) -> Builder:
    """GLSL.std.450 functions defined for 16/32-bit floats only: an f64 one is refused
    (ti-expand-f64-math expands those it can beforehand), never narrowed to f32."""

    def build(op: Operation) -> Built:
        if isinstance(op.results[0].type, Float64Type):
            raise PassFailedAt(
                op,
                f"f64 '{op.name}' is not supported on Vulkan: GLSL.std.450 has no f64 "
                "version and computing it in f32 would lose precision (f64 exp, log, "
                "log2, pow, tanh, sin, cos, tan and atan2 are supported; use f32 or the "
                "cpu arch)",
            )
        return _one(kind(*op.operands))  # type: ignore[call-arg]

    return build


def _log10(op: Operation) -> Built:
    ops, log = _transcendental(spirv.LogOp)(op)
    scale = _const_like(0.4342944819032518, op.results[0].type)
    product = spirv.FMulOp(log, scale)
    return [*ops, scale, product], product.results[0]


def _rsqrt(op: Operation) -> Built:
    return _one(spirv.InverseSqrtOp(op.operands[0]))


_LOWERINGS: dict[type[Operation], Builder] = {
    arith.ConstantOp: _constant,
    arith.AddiOp: _binary(spirv.IAddOp),
    arith.SubiOp: _binary(spirv.ISubOp),
    arith.MuliOp: _binary(spirv.IMulOp),
    arith.DivSIOp: _binary(spirv.SDivOp),
    arith.DivUIOp: _binary(spirv.UDivOp),
    arith.RemSIOp: _remsi,
    arith.RemUIOp: _binary(spirv.UModOp),
    arith.FloorDivSIOp: _floordivsi,
    arith.AddfOp: _binary(spirv.FAddOp),
    arith.SubfOp: _binary(spirv.FSubOp),
    arith.MulfOp: _binary(spirv.FMulOp),
    arith.DivfOp: _binary(spirv.FDivOp),
    arith.NegfOp: _unary(spirv.FNegateOp),
    arith.AndIOp: _bitwise(spirv.BitwiseAndOp, spirv.LogicalAndOp),
    arith.OrIOp: _bitwise(spirv.BitwiseOrOp, spirv.LogicalOrOp),
    arith.XOrIOp: _bitwise(spirv.BitwiseXorOp, spirv.LogicalNotEqualOp),
    arith.ShLIOp: _shift_left,
    arith.ShRSIOp: _binary(spirv.ShiftRightArithmeticOp),
    arith.ShRUIOp: _binary(spirv.ShiftRightLogicalOp),
    arith.CmpiOp: _cmpi,
    arith.CmpfOp: _cmpf,
    arith.SelectOp: lambda op: _one(spirv.SelectOp(*op.operands)),
    arith.SIToFPOp: _to_float(True),
    arith.UIToFPOp: _to_float(False),
    arith.FPToSIOp: _convert(spirv.ConvertFToSOp),
    arith.FPToUIOp: _convert(spirv.ConvertFToUOp),
    arith.ExtSIOp: _ext_bool(True),
    arith.ExtUIOp: _ext_bool(False),
    arith.TruncIOp: _trunci,
    arith.ExtFOp: _convert(spirv.FConvertOp),
    arith.TruncFOp: _convert(spirv.FConvertOp),
    arith.BitcastOp: _convert(spirv.BitcastOp),
    arith.MaxSIOp: _min_max(spirv.SMaxOp, True, spirv.LogicalAndOp),
    arith.MinSIOp: _min_max(spirv.SMinOp, True, spirv.LogicalOrOp),
    arith.MaxUIOp: _min_max(spirv.UMaxOp, False, spirv.LogicalOrOp),
    arith.MinUIOp: _min_max(spirv.UMinOp, False, spirv.LogicalAndOp),
    arith.MaximumfOp: _binary(spirv.FMaxOp),
    arith.MinimumfOp: _binary(spirv.FMinOp),
    arith.MaxnumfOp: _binary(spirv.FMaxOp),
    arith.MinnumfOp: _binary(spirv.FMinOp),
    math.SqrtOp: _unary(spirv.SqrtOp),
    math.RsqrtOp: _rsqrt,
    math.AbsFOp: _unary(spirv.FAbsOp),
    math.AbsIOp: _absi,
    math.FloorOp: _unary(spirv.FloorOp),
    math.CeilOp: _unary(spirv.CeilOp),
    math.RoundOp: _unary(spirv.RoundOp),
    math.RoundEvenOp: _unary(spirv.RoundEvenOp),
    math.TruncOp: _unary(spirv.TruncOp),
    math.FmaOp: lambda op: _one(spirv.FmaOp(*op.operands)),
    math.SinOp: _transcendental(spirv.SinOp),
    math.CosOp: _transcendental(spirv.CosOp),
    math.TanOp: _transcendental(spirv.TanOp),
    math.AsinOp: _transcendental(spirv.AsinOp),
    math.AcosOp: _transcendental(spirv.AcosOp),
    math.AtanOp: _transcendental(spirv.AtanOp),
    math.SinhOp: _transcendental(spirv.SinhOp),
    math.CoshOp: _transcendental(spirv.CoshOp),
    math.TanhOp: _transcendental(spirv.TanhOp),
    math.ExpOp: _transcendental(spirv.ExpOp),
    math.Exp2Op: _transcendental(spirv.Exp2Op),
    math.LogOp: _transcendental(spirv.LogOp),
    math.Log2Op: _transcendental(spirv.Log2Op),
    math.Log10Op: _log10,
    math.PowFOp: _transcendental(spirv.PowOp),
    math.Atan2Op: _transcendental(spirv.Atan2Op),
}
"""How each arith/math op becomes spirv ops: builder(op) -> (new ops, the result)."""


def _touches_index(op: Operation) -> bool:
    return any(isinstance(v.type, IndexType) for v in (*op.operands, *op.results))


class ArithLowering(RewritePattern):
    """
    One arith or math op -> its spirv ops, by the `_LOWERINGS` table.

        %r = arith.remsi %a, %b : i32   ~>   %r = spirv.SRem %a, %b : i32

    Must not fire on index-typed ops or on the constants at the top level of an
    `offload.kernel` (range_for bounds).
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        build = _LOWERINGS.get(type(op))
        if build is None:
            return
        if isinstance(op.parent_op(), offload.KernelOp):
            return  # a range_for bound: the runtime reads it as an arith.constant
        if _touches_index(op):
            return  # ndarray shape arithmetic: convert-offload-to-spirv owns it
        if any(not isinstance(v.type, IntegerType | AnyFloat) for v in op.results):
            return  # vectors and other shapes are not lowered here
        new_ops, result = build(op)
        exact = "no_contraction" in op.attributes  # e.g. from ti-expand-f64-math
        for new_op in new_ops:
            new_op.location = op.location
            if exact and not isinstance(new_op, spirv.ConstantOp):
                new_op.attributes["no_contraction"] = UnitAttr()
        rewriter.replace(op, new_ops, [result])


class ConvertArithToSpirvPass(ModulePass):
    """Lower arith and math ops on scalars to the spirv dialect."""

    name = "convert-arith-to-spirv"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ArithLowering(), apply_recursively=False).rewrite_module(op)
