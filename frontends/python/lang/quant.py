"""
`ti.types.quant`: Taichi's quantized types, `int(bits, signed, compute)`,
`fixed(bits, signed, max_value, compute, scale)` and `float(exp, frac, signed, compute)`.

A quantized type is `bits` bits of a word that several fields share
(`ti.BitpackedFields`, lang/bitpacked.py) or one of the equal slots of a word
(`SNode.quant_array`). Kernels compute with its `compute` type: a quantized int reads
as a default_ip (signed) / default_up (unsigned) integer, a fixed-point number as a
default_fp float (`bits * scale`).

Conversions, as Taichi 1.7.4 does them (checked against it):
- int store: the value cast to the compute type (floats truncate), its low `bits`
  kept (out-of-range values wrap);
- fixed store: `v * (1/scale)` in the compute type, plus 0.5 away from zero, truncated
  to an integer, its low `bits` kept (1.9999 in an 8-bit signed fixed of max_value 2
  wraps to -2.0, as in Taichi);
- a read sign-extends a signed type's bits (zero-extends an unsigned one), times
  `scale` for a fixed-point type.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import dtypes
from .dtypes import DataType


class QuantType:
    """A quantized type: `bits` bits, `signed` or not, computed with `compute`."""

    bits: int
    signed: bool
    compute: DataType

    @property
    def mask(self) -> builtins.int:
        return (1 << self.bits) - 1

    def key(self) -> str:
        """Everything the code that reads and writes it depends on."""
        return f"{self!r}:{self.compute}:{getattr(self, 'scale', '')}"

    def to_bits(self, values: np.ndarray) -> np.ndarray:
        """Python scope: the stored bits (uint64) of compute-type values."""
        raise NotImplementedError

    def from_bits(self, bits: np.ndarray) -> np.ndarray:
        """Python scope: the compute-type values of stored bits (uint64)."""
        raise NotImplementedError

    def _signed_int(self, bits: np.ndarray) -> np.ndarray:
        """The bits as an int64 (sign-extended for a signed type)."""
        v = bits.astype(np.int64)
        if self.signed:
            top = np.int64(1) << np.int64(self.bits - 1)
            v = np.where(v & top, v - (np.int64(1) << np.int64(self.bits)), v)
        return v


class QuantInt(QuantType):
    def __init__(self, bits: builtins.int, signed: bool, compute: DataType):
        _check_bits(bits, "quant.int")
        self.bits, self.signed, self.compute = bits, signed, compute

    def to_bits(self, values: np.ndarray) -> np.ndarray:
        v = np.asarray(values)
        if v.dtype.kind == "f":  # a float stored into an integer: truncated
            v = np.trunc(v)
        return (v.astype(np.int64).astype(np.uint64)) & np.uint64(self.mask)

    def from_bits(self, bits: np.ndarray) -> np.ndarray:
        return self._signed_int(bits).astype(self.compute.np_dtype)

    def __repr__(self) -> str:
        return f"q{'i' if self.signed else 'u'}{self.bits}"


class QuantFixed(QuantType):
    def __init__(
        self, bits: builtins.int, signed: bool, scale: builtins.float, compute: DataType
    ):
        _check_bits(bits, "quant.fixed")
        if not compute.is_float:
            raise TypeError(f"quant.fixed computes with a float type, got {compute}")
        self.bits, self.signed, self.scale, self.compute = bits, signed, scale, compute

    def to_bits(self, values: np.ndarray) -> np.ndarray:
        ft = self.compute.np_dtype.type
        v = np.asarray(values).astype(ft) * ft(1.0 / self.scale)
        v = v + np.where(v >= 0, ft(0.5), ft(-0.5))
        return np.trunc(v).astype(np.int64).astype(np.uint64) & np.uint64(self.mask)

    def from_bits(self, bits: np.ndarray) -> np.ndarray:
        ft = self.compute.np_dtype.type
        return self._signed_int(bits).astype(ft) * ft(self.scale)

    def __repr__(self) -> str:
        digits = f"q{'i' if self.signed else 'u'}{self.bits}"
        return f"qfx(d={digits} c={self.compute} s={self.scale})"


class QuantFloat(QuantType):
    """
    A float of `exp` exponent bits and `frac` bits of digits (the top one the sign when
    signed), computed as an f32. Its `exp + frac` bits hold the exponent in the low `exp`
    bits and the digits above, as Taichi lays them out.

    A store (as Taichi 1.7.4 does it): the f32's bits plus half a step of the kept
    digits (rounding to nearest, a carry into the exponent), the f32 exponent less
    `exponent_offset` (0 when the f32 exponent is 0), clamped at 0; the digits are
    zeroed when that exponent is 0 (flush to zero). An exponent past its bits spills
    into the digits above it, as in Taichi. A read rebuilds the f32: the exponent plus
    the offset (none when 0 and `exp` < 8), the digits as the top fraction bits.
    """

    def __init__(
        self, exp: builtins.int, frac: builtins.int, signed: bool, compute: DataType
    ):
        if not isinstance(exp, builtins.int) or not 1 <= exp <= 8:
            raise ValueError(f"quant.float: exp must be an int in 1..8, got {exp!r}")
        _check_bits(frac, "quant.float frac")
        if compute is not dtypes.f32:
            raise TypeError(f"quant.float computes with f32 in taichi-xdsl, got {compute}")
        if frac - builtins.int(signed) < 1 or frac - builtins.int(signed) > 23:
            raise ValueError(f"quant.float: frac must leave 1..23 digit bits, got {frac}")
        self.exp, self.frac, self.signed, self.compute = exp, frac, signed, compute
        self.bits = exp + frac
        self.digit_bits = frac - builtins.int(signed)
        self.exponent_offset = 128 - (1 << (exp - 1))

    def to_bits(self, values: np.ndarray) -> np.ndarray:
        e, d = self.exp, self.digit_bits
        b = np.asarray(values, np.float32).view(np.uint32).astype(np.int64)
        if d < 23:
            b = (b + (1 << (22 - d))) & 0xFFFFFFFF
        exponent = (b >> 23) & 0xFF
        digits = (b >> (23 - d)) & ((1 << d) - 1)
        if self.signed:
            digits |= (b >> 31) << d
        exponent = np.maximum(
            exponent - np.where(exponent != 0, self.exponent_offset, 0), 0
        )
        digits = np.where(exponent != 0, digits, 0)
        return (exponent | (digits << e)).astype(np.uint64) & np.uint64(self.mask)

    def from_bits(self, bits: np.ndarray) -> np.ndarray:
        e, d = self.exp, self.digit_bits
        raw = np.asarray(bits).astype(np.int64)
        exponent = raw & ((1 << e) - 1)
        digits = ((raw >> e) & ((1 << self.frac) - 1)) << (23 - d)
        offset = np.where((exponent != 0) | (e >= 8), self.exponent_offset, 0)
        f32 = ((exponent + offset) << 23) | (digits & ((1 << 23) - 1))
        if self.signed:
            f32 |= (digits & (1 << 23)) << 8
        return (f32 & 0xFFFFFFFF).astype(np.uint32).view(np.float32)

    # -- with an exponent shared by several floats (ti.BitpackedFields.place(...,
    # shared_exponent=True)): the digits carry their leading 1, the exponent is that
    # of the largest float, as Taichi 1.7.4 stores them --------------------------------

    def shared_digits(self, f32: np.ndarray, top: np.ndarray) -> np.ndarray:
        """The digits (with the sign bit) of f32 values under the f32 exponent `top`."""
        b = np.asarray(f32, np.float32).view(np.uint32).astype(np.int64)
        own = (b >> 23) & 0xFF
        m = (b & ((1 << 23) - 1)) | (1 << 23)
        m = m >> np.minimum(top - own, 31)
        shift = 24 - self.digit_bits
        m = np.minimum(m + (1 << (shift - 1)), (1 << 24) - 1) >> shift
        if self.signed:
            m |= (b >> 31) << self.digit_bits
        return m

    def shared_value(self, exponent: np.ndarray, raw: np.ndarray) -> np.ndarray:
        """The f32 of stored digits `raw` (frac bits) under the stored `exponent`."""
        d = self.digit_bits
        raw = np.asarray(raw, np.int64)
        exponent = np.asarray(exponent, np.int64)
        digits = raw
        sign = np.zeros_like(raw)
        if self.signed:
            sign = raw & (1 << d)
            digits = (raw ^ sign) << 1
            sign = sign << (31 - d)
        lz = np.where(digits == 0, 32, 31 - np.floor(np.log2(np.maximum(digits, 1))))
        extra = (31 - d) - lz.astype(np.int64)
        offset = np.where((exponent != 0) | (self.exp >= 8), self.exponent_offset, 0)
        offset = offset + extra + (0 if self.signed else 1)
        digits = _shl(digits, (23 - d) - extra)
        f32 = ((exponent + offset) << 23) | (digits & ((1 << 23) - 1))
        f32 = np.where((exponent == 0) | (raw == 0), 0, f32) | sign
        return (f32 & 0xFFFFFFFF).astype(np.uint32).view(np.float32)

    def __repr__(self) -> str:
        return f"qfl(e={self.exp} f={self.frac} signed={self.signed} c={self.compute})"


def _shl(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """x << n of int64 arrays, n >= 0 (a negative n shifts right)."""
    return np.where(n >= 0, x << np.maximum(n, 0), x >> np.maximum(-n, 0))


def _check_bits(bits: Any, what: str) -> None:
    if not isinstance(bits, builtins.int) or not 1 <= bits <= 32:
        raise ValueError(f"{what}: bits must be an int in 1..32, got {bits!r}")


def _config() -> Any:
    from . import program

    return program.get_program().config


def _cook(dt: Any) -> DataType:
    cfg = _config()
    return dtypes.cook_dtype(dt, cfg.default_ip, cfg.default_fp)


def int(bits: builtins.int, signed: bool = True, compute: Any = None) -> QuantInt:
    """A quantized integer of `bits` bits, computed with `compute` (default_ip when
    signed, default_up when not)."""
    if compute is None:
        cfg = _config()
        compute = (
            cfg.default_ip
            if signed
            else (dtypes.u64 if cfg.default_ip.bits == 64 else dtypes.u32)
        )
    return QuantInt(bits, signed, _cook(compute))


def fixed(
    bits: builtins.int,
    signed: bool = True,
    max_value: builtins.float = 1.0,
    compute: Any = None,
    scale: builtins.float | None = None,
) -> QuantFixed:
    """A fixed-point number of `bits` bits: `scale` per step (by default `max_value`
    over 2**(bits-1) signed, 2**bits unsigned), computed with `compute` (default_fp)."""
    if scale is None:
        scale = max_value / 2 ** (bits - 1) if signed else max_value / 2**bits
    return QuantFixed(
        bits, signed, builtins.float(scale), _cook(compute or _config().default_fp)
    )


def float(
    exp: builtins.int, frac: builtins.int, signed: bool = True, compute: Any = None
) -> QuantFloat:
    """A quantized float of `exp` exponent and `frac` fraction bits."""
    return QuantFloat(exp, frac, signed, _cook(compute or _config().default_fp))


__all__ = ["fixed", "float", "int"]
