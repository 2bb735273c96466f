"""
`print` in kernels, formatted as Taichi formats it: values, vectors and matrices (`[[1.0,
2.0], ...]`), f-strings and `str.format` with printf-style specs, `sep=` and `end=`.

    print(f"x = {x:.2f}", i, end="")   ->  taichi.print "x = {:.2f} {}" %x, %i : f32, i32
                                                        {end = ""}

A spec is a printf conversion (`.2f`, `.10d`, `e`, `- #0.3lli`): the length modifier is
dropped (the backends add what the value's width needs), a spec without a conversion
takes the value's (`f` for floats, `d`/`u` for signed/unsigned integers), and a
conversion that does not fit the value's type is a TaichiTypeError, as in Taichi.
Python constants print as Python prints them, or, given a spec, as values of their
literal type.
"""

from __future__ import annotations

import ast
import re
import string
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiSyntaxError, TaichiTypeError
from taichi_xdsl.utils.print_format import ASSERT_VALUES
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue

from ..lang import dtypes
from .emitter import Value
from .values import describe, is_python
from .vectors import Vec

if TYPE_CHECKING:
    from .visitor import KernelCodegen

_SPEC = re.compile(
    r"(?P<flags>[-+ #0]*\d*(?:\.\d*)?)(?:hh|h|ll|l|L|q|j|z|t)?(?P<conv>[diuoxXeEfFgGaA]?)"
)
_FLOAT_CONVERSIONS = frozenset("eEfFgG")
_SIGNED_CONVERSIONS = frozenset("dioxX")
_UNSIGNED_CONVERSIONS = frozenset("uoxX")


def emit_print(cg: KernelCodegen, node: ast.Call) -> None:
    """`print(a, "b", f"{c:.2f}", "{}".format(d), sep=..., end=...)` -> taichi.print."""
    sep, end = " ", "\n"
    for kw in node.keywords:
        value = cg.eval(kw.value)
        if kw.arg in ("sep", "end") and isinstance(value, str):
            sep, end = (value, end) if kw.arg == "sep" else (sep, value)
        else:
            raise cg.error(
                TaichiSyntaxError,
                node,
                f"print(..., {kw.arg}=...) is not supported in kernels"
                + (" (it takes a string)" if kw.arg in ("sep", "end") else ""),
            )
    pieces: list[str] = []
    values: list[SSAValue] = []
    for arg in node.args:
        if isinstance(arg, ast.JoinedStr):
            pieces.append(_format_joined(cg, arg, values))
        elif _is_str_format(arg):
            pieces.append(_format_str_format(cg, arg, values))  # type: ignore[arg-type]
        else:
            pieces.append(_format_one(cg, cg.eval(arg), values, arg, None))
    cg.em.emit(taichi.PrintOp(sep.join(pieces), values, end=end))


def _format_one(
    cg: KernelCodegen, x: Any, values: list[SSAValue], node: ast.AST, spec: str | None
) -> str:
    """The format text of `x`, appending the values it prints to `values`."""
    if is_python(x) and not isinstance(x, tuple | list):
        if spec is None or isinstance(x, str):
            return format(x, spec or "")
        x = cg.em.value(x)  # a number with a printf spec: a value of its literal type
    if isinstance(x, Value):
        hole = "{}" if spec is None else "{:" + _printf_spec(cg, x, spec, node) + "}"
        if x.dtype.is_unsigned and x.dtype.bits < 64:
            # The IR is signless and prints integers as signed: widen an unsigned
            # value (zero-extended) so that 4294967295 does not print as -1.
            x = cg.em.cast(x, dtypes.i64)
        values.append(x.ssa)
        return hole
    v = x if isinstance(x, Vec) else cg.as_vec(x) if not is_python(x) else None
    if v is not None:
        rows = [v.row(i) for i in range(v.n)] if len(v.shape) == 2 else v.elems
        return "[" + ", ".join(_format_one(cg, e, values, node, spec) for e in rows) + "]"
    if isinstance(x, tuple | list):  # Taichi prints tuples and lists alike: [1, 2]
        return "[" + ", ".join(_format_one(cg, e, values, node, spec) for e in x) + "]"
    raise cg.error(TaichiTypeError, node, f"cannot print {describe(x)} in a kernel")


def _printf_spec(cg: KernelCodegen, x: Value, spec: str, node: ast.AST) -> str:
    """Taichi's spec (`.2f`, `.10`, `- #0.233lli`) as a hole's printf spec for `x`."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"format spec '{spec}' is not a printf-style spec (flags, width, .precision, "
            "conversion) that a kernel's print understands",
        )
    conv = m.group("conv")
    dt = x.dtype
    allowed = (
        _FLOAT_CONVERSIONS
        if dt.is_float
        else _UNSIGNED_CONVERSIONS
        if dt.is_unsigned
        else _SIGNED_CONVERSIONS
    )
    if conv and conv not in allowed:
        raise cg.error(TaichiTypeError, node, f"'{spec}' doesn't match '{dt}'.")
    if not conv:
        conv = "f" if dt.is_float else "u" if dt.is_unsigned else "d"
    if conv == "i" or (conv == "u" and dt.bits < 64):
        conv = "d"  # narrower unsigned values are printed widened to i64
    return m.group("flags") + conv


def _format_joined(cg: KernelCodegen, node: ast.JoinedStr, values: list[SSAValue]) -> str:
    text = ""
    for part in node.values:
        if isinstance(part, ast.FormattedValue):
            spec = _static_spec(cg, part)
            x = cg.eval(part.value)
            if is_python(x) and part.conversion in (ord("r"), ord("a")):
                x = repr(x)
            text += _format_one(cg, x, values, part, spec)
        else:
            text += str(part.value)  # type: ignore[attr-defined]
    return text


def _static_spec(cg: KernelCodegen, part: ast.FormattedValue) -> str | None:
    if part.format_spec is None:
        return None
    spec = cg.eval(part.format_spec)
    if not isinstance(spec, str):
        raise cg.error(TaichiSyntaxError, part, "a format spec must be known at compile time")
    return spec


def _is_str_format(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    )


def _format_str_format(cg: KernelCodegen, node: ast.Call, values: list[SSAValue]) -> str:
    """`"{} {1:.2f} {name}".format(a, b, name=c)`: automatic and explicit positions
    (both in one string, each counted on its own), keywords, specs."""
    assert isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Constant)
    fmt: str = node.func.value.value
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        raise cg.error(TaichiSyntaxError, node, "*args / **kwargs in str.format()")
    args = [cg.eval(a) for a in node.args]
    kwargs = {k.arg: cg.eval(k.value) for k in node.keywords}
    fields = list(string.Formatter().parse(fmt))
    auto = sum(1 for _, name, _, _ in fields if name == "")
    explicit = [int(name) for _, name, _, _ in fields if name is not None and name.isdigit()]
    expected = max([auto, *(i + 1 for i in explicit)])
    if expected != len(args):
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"Expected {expected} positional argument(s), but received {len(args)} instead.",
        )
    used = {name for _, name, _, _ in fields if name}
    for key in kwargs:
        if key not in used:
            raise cg.error(TaichiSyntaxError, node, f"Keyword '{key}' not used.")
    text, next_auto = "", 0
    for literal, name, spec, conversion in fields:
        text += literal
        if name is None:
            continue
        if name == "":
            x, next_auto = args[next_auto], next_auto + 1
        elif name.isdigit():
            x = args[int(name)]
        elif name in kwargs:
            x = kwargs[name]
        else:
            raise cg.error(TaichiSyntaxError, node, f"Keyword '{name}' not found.")
        if is_python(x) and conversion in ("r", "a"):
            x = repr(x)
        text += _format_one(cg, x, values, node, spec or None)
    return text


_PERCENT_SPEC = re.compile(r"%(?P<spec>[-+ #0]*\d*(?:\.\d*)?)(?:hh|h|ll|l|L|q|j|z|t)?(?P<conv>[diouxXeEfFgGsr%])")


def assert_message(cg: KernelCodegen, node: ast.expr) -> tuple[str, list[SSAValue]]:
    """
    The message of `assert cond, msg` as taichi.assert takes it: a string known at
    compile time, or a format with holes and the run-time values that fill them, from
    `"x[%d] = %f" % (i, x[i])`, an f-string or `"...".format(...)`, rendered as print
    renders them. The values become i32 / f32 (utils/print_format.ASSERT_VALUES of them
    at most).
    """
    values: list[SSAValue] = []
    if isinstance(node, ast.JoinedStr):
        text = _format_joined(cg, node, values)
    elif _is_str_format(node):
        text = _format_str_format(cg, node, values)  # type: ignore[arg-type]
    elif (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
    ):
        text = _format_percent(cg, node.left.value, cg.eval(node.right), values, node)
    else:
        message = cg.eval(node)
        if not isinstance(message, str):
            raise cg.error(
                TaichiSyntaxError,
                node,
                f"an assert message must be a string, not {describe(message)}",
            )
        return message, []
    if len(values) > ASSERT_VALUES:
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"an assert message formats at most {ASSERT_VALUES} run-time values, "
            f"got {len(values)}",
        )
    return text, [_as_word(cg, v) for v in values]


def _format_percent(
    cg: KernelCodegen, fmt: str, args: Any, values: list[SSAValue], node: ast.AST
) -> str:
    """`fmt % args` with printf conversions: constants formatted now, run-time values
    as holes."""
    items = list(args) if isinstance(args, tuple) else [args]
    text, position, used = "", 0, 0
    for m in _PERCENT_SPEC.finditer(fmt):
        text += fmt[position : m.start()]
        position = m.end()
        if m.group("conv") == "%":
            text += "%"
            continue
        if used >= len(items):
            raise cg.error(TaichiTypeError, node, "not enough arguments for format string")
        x, used = items[used], used + 1
        conv = m.group("conv")
        if is_python(x):
            text += m.group(0) % x
            continue
        spec = m.group("spec") + ("" if conv in "sr" else "d" if conv in "iu" else conv)
        text += _format_one(cg, x, values, node, spec or None)
    if used != len(items):
        raise cg.error(
            TaichiTypeError, node, "not all arguments converted during string formatting"
        )
    return text + fmt[position:]


def _as_word(cg: KernelCodegen, v: SSAValue) -> SSAValue:
    """A formatted value as an i32 or f32 (the error record's words)."""
    t = v.type
    if isinstance(t, IntegerType):
        bits = t.width.data
        dt = {1: dtypes.u1, 8: dtypes.i8, 16: dtypes.i16, 32: dtypes.i32, 64: dtypes.i64}[bits]
        return cg.em.cast(Value(v, dt), dtypes.i32).ssa
    dt = {16: dtypes.f16, 32: dtypes.f32, 64: dtypes.f64}[t.bitwidth]  # type: ignore[attr-defined]
    return cg.em.cast(Value(v, dt), dtypes.f32).ssa
