"""
The holes of a kernel `print`'s format (`taichi.print`), shared by the dialect, the LLVM
lowering and the Vulkan host, which renders print records without loading xDSL.

A hole is `{}` (the value's default rendering: `%d`, `%f`, f64 with 12 decimals) or
`{:SPEC}`, SPEC a printf conversion without `%` or length modifier (`.2f`, `08x`, `.10d`).

    PRINT_HOLE.split("x = {:.2f}!")   # ['x = ', '.2', 'f', '!']: text, flags, conversion

A `taichi.assert` message with values uses the same holes; the host receives it as
`assert_message(format, kinds)` and the values' 32-bit words, and renders it with
`render_assert`.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence

PRINT_HOLE = re.compile(r"\{(?::([-+ #0]*\d*(?:\.\d*)?)([duoxXeEfFgG]))?\}")
"""Group 1: the flags, width and precision; group 2: the conversion (both None in `{}`)."""

INT_CONVERSIONS = frozenset("duoxX")
"""The conversions of integer values; the others (eEfFgG) are of floats."""


ASSERT_VALUES = 2
"""At most this many run-time values in an assert's message: the error record's free
words (utils/abi.py, utils/spirv_abi.py), each an i32 or the bits of an f32."""

_KINDS_MARK = "\x1f"


def render_print(fmt: str, kinds: Sequence[str], words: Sequence[int]) -> str:
    """One print record as the CPU's printf writes it: each hole `{}` in its type's
    default rendering, `{:SPEC}` with that printf spec. `words` are the values' 32-bit
    words (two, low first, for an i64 or f64)."""
    values: list[int | float] = []
    position = 0
    for kind in kinds:
        width = 2 if kind in ("i64", "f64") else 1
        raw = struct.pack(f"<{width}I", *(int(w) & 0xFFFFFFFF for w in words[position : position + width]))
        position += width
        code = {"i64": "<q", "f64": "<d", "f32": "<f"}.get(kind, "<i")
        values.append(struct.unpack(code, raw)[0])
    pieces = PRINT_HOLE.split(fmt)
    out = pieces[0]
    for k, (value, kind) in enumerate(zip(values, kinds)):
        flags, conversion = pieces[3 * k + 1], pieces[3 * k + 2]
        if not conversion:
            text = "%.12f" % value if kind == "f64" else "%f" % value if kind == "f32" else str(value)
        else:
            if conversion in "uoxX" and isinstance(value, int) and value < 0:
                value += 1 << (64 if kind == "i64" else 32)  # printf reads the bits unsigned
            text = f"%{flags or ''}{conversion}" % value
        out += text + pieces[3 * k + 3]
    return out


def assert_message(fmt: str, kinds: Sequence[str]) -> str:
    """The text the host gets for an assert's message: `fmt` itself without values, else
    the values' kinds ("i32"/"f32") ahead of it, for render_assert."""
    if not kinds:
        return fmt
    return _KINDS_MARK + ",".join(kinds) + _KINDS_MARK + fmt


def render_assert(message: str, words: Sequence[int]) -> str:
    """A failed assert's message (assert_message's text) with its values' words."""
    if not message.startswith(_KINDS_MARK):
        return message
    _, kinds, fmt = message.split(_KINDS_MARK, 2)
    return render_print(fmt, kinds.split(","), words)
