"""
The holes of a kernel `print`'s format (`taichi.print`), shared by the dialect, the LLVM
lowering and the Vulkan host, which renders print records without loading xDSL.

A hole is `{}` (the value's default rendering: `%d`, `%f`, f64 with 12 decimals) or
`{:SPEC}`, SPEC a printf conversion without `%` or length modifier (`.2f`, `08x`, `.10d`).

    PRINT_HOLE.split("x = {:.2f}!")   # ['x = ', '.2', 'f', '!']: text, flags, conversion
"""

from __future__ import annotations

import re

PRINT_HOLE = re.compile(r"\{(?::([-+ #0]*\d*(?:\.\d*)?)([duoxXeEfFgG]))?\}")
"""Group 1: the flags, width and precision; group 2: the conversion (both None in `{}`)."""

INT_CONVERSIONS = frozenset("duoxX")
"""The conversions of integer values; the others (eEfFgG) are of floats."""
