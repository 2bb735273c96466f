"""
SPIR-V instructions as the serializer builds them, and their two renderings: binary words
and the text `spirv-dis --raw-id` prints (so the pure-Python disassembly matches the
tool's, and `spirv-as --preserve-numeric-ids` assembles it back to the same words).

    Instruction("OpIAdd", result_type=4, result=9, operands=[Id(7), Id(8)])
    -> words [0x00050080, 4, 9, 7, 8]; text "          %9 = OpIAdd %4 %7 %8"
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

from taichi_xdsl.targets.spirv.opcodes import OPCODES

MAGIC = 0x07230203
GENERATOR = 0
"""Generator word of the header: 0, the tool id left unregistered ("Khronos; 0")."""


@dataclass(frozen=True)
class Id:
    """A reference to a result id: `%7`."""

    value: int

    def words(self) -> list[int]:
        return [self.value]

    def text(self) -> str:
        return f"%{self.value}"


@dataclass(frozen=True)
class Literal:
    """A one-word literal integer (a width, a member index, a decoration value)."""

    value: int

    def words(self) -> list[int]:
        return [self.value & 0xFFFFFFFF]

    def text(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class String:
    """A literal string: UTF-8, NUL-terminated, padded to whole words."""

    value: str

    def words(self) -> list[int]:
        data = self.value.encode() + b"\0"
        data += b"\0" * (-len(data) % 4)
        return list(struct.unpack(f"<{len(data) // 4}I", data))

    def text(self) -> str:
        escaped = self.value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'


@dataclass(frozen=True)
class Named:
    """An enumerant, a bit mask or an extended instruction: written as its number,
    printed as its name (`StorageBuffer`, `Volatile|Aligned`, `Sqrt`)."""

    name: str
    value: int

    def words(self) -> list[int]:
        return [self.value]

    def text(self) -> str:
        return self.name


@dataclass(frozen=True)
class Number:
    """The value of an OpConstant: one or two words, and its text form."""

    value_words: tuple[int, ...]
    value_text: str

    def words(self) -> list[int]:
        return list(self.value_words)

    def text(self) -> str:
        return self.value_text


Operand = Id | Literal | String | Named | Number


@dataclass
class Instruction:
    """One instruction: its name (`OpIAdd`), optional result type and result ids, and
    its remaining operands in binary order."""

    name: str
    result_type: int | None = None
    result: int | None = None
    operands: list[Operand] = field(default_factory=list)

    def words(self) -> list[int]:
        body: list[int] = []
        if self.result_type is not None:
            body.append(self.result_type)
        if self.result is not None:
            body.append(self.result)
        for operand in self.operands:
            body.extend(operand.words())
        count = len(body) + 1
        if count > 0xFFFF:
            raise ValueError(f"{self.name} has {count} words, more than SPIR-V allows")
        return [(count << 16) | OPCODES[self.name], *body]

    def text(self) -> str:
        parts = [self.name]
        if self.result_type is not None:
            parts.append(f"%{self.result_type}")
        parts.extend(operand.text() for operand in self.operands)
        line = " ".join(parts)
        if self.result is None:
            return " " * 15 + line
        return f"{'%' + str(self.result):>12} = {line}"


def encode_module(version: int, bound: int, instructions: list[Instruction]) -> bytes:
    """The module's bytes: the five header words, then every instruction's words."""
    words = [MAGIC, version, GENERATOR, bound, 0]
    for instruction in instructions:
        words.extend(instruction.words())
    return struct.pack(f"<{len(words)}I", *words)


def module_text(version: int, bound: int, instructions: list[Instruction]) -> str:
    """The module as `spirv-dis --raw-id` prints it."""
    lines = [
        "; SPIR-V",
        f"; Version: {version >> 16}.{(version >> 8) & 0xFF}",
        f"; Generator: Khronos; {GENERATOR & 0xFFFF}",
        f"; Bound: {bound}",
        "; Schema: 0",
    ]
    lines.extend(instruction.text() for instruction in instructions)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# Constant values
# ---------------------------------------------------------------------------------------


def integer_number(value: int, width: int, signed: bool) -> Number:
    """An integer literal of `width` bits; narrower than 32 bits it is sign-extended
    (signed types) or zero-extended (others), as the spec requires."""
    bits = value & ((1 << width) - 1)
    shown = bits - (1 << width) if signed and bits >> (width - 1) else bits
    if width <= 32:
        word = shown & 0xFFFFFFFF if signed else bits
        return Number((word,), str(shown))
    return Number((bits & 0xFFFFFFFF, bits >> 32), str(shown))


_FLOAT_FORMATS = {
    16: ("<e", "<H", 10, 15),
    32: ("<f", "<I", 23, 127),
    64: ("<d", "<Q", 52, 1023),
}


def float_number(value: float, width: int) -> Number:
    """A float literal of `width` bits, printed as spirv-dis does: shortest round-trip
    decimal (max_digits10) for normal values, hexadecimal for f16, subnormals, inf, NaN."""
    pack, unpack, fraction_bits, bias = _FLOAT_FORMATS[width]
    (bits,) = struct.unpack(unpack, struct.pack(pack, value))
    words = (bits,) if width <= 32 else (bits & 0xFFFFFFFF, bits >> 32)
    exponent_field = (bits >> fraction_bits) & ((2 * bias) + 1)
    is_zero = bits & ((1 << (width - 1)) - 1) == 0
    if width != 16 and (is_zero or 0 < exponent_field <= 2 * bias):
        (rounded,) = struct.unpack(pack, struct.pack(pack, value))
        digits = 9 if width == 32 else 17
        return Number(words, f"{rounded:.{digits}g}" if math.isfinite(rounded) else "0")
    return Number(words, _hex_float(bits, width, fraction_bits, bias))


def _hex_float(bits: int, width: int, fraction_bits: int, bias: int) -> str:
    sign = "-" if bits >> (width - 1) else ""
    exponent_field = (bits >> fraction_bits) & ((2 * bias) + 1)
    fraction = bits & ((1 << fraction_bits) - 1)
    if exponent_field == 0 and fraction == 0:
        return f"{sign}0x0p+0"
    if exponent_field == 0:  # subnormal: normalise
        exponent = 1 - bias
        while not fraction >> fraction_bits:
            fraction <<= 1
            exponent -= 1
        fraction &= (1 << fraction_bits) - 1
    else:
        exponent = exponent_field - bias
    pad = -fraction_bits % 4
    digits = f"{fraction << pad:0{(fraction_bits + pad) // 4}x}".rstrip("0")
    mantissa = f"0x1.{digits}" if digits else "0x1"
    return f"{sign}{mantissa}p{exponent:+d}"
