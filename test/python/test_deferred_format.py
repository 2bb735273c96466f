"""dialects/deferred_format.py: our ops' assembly formats are parsed on first print or
parse, not at import; the text printed and parsed is what xDSL's eager definition
gives, and a bad format or a format beside custom print/parse still fails."""

from __future__ import annotations

import inspect
import io
import subprocess
import sys
import textwrap
from typing import ClassVar

import pytest

from taichi_xdsl.dialects import deferred_format, llvm_ext, offload, spirv, taichi
from taichi_xdsl.dialects.deferred_format import format_program, irdl_op_definition
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import Builtin, IntegerAttr, ModuleOp, i32
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition as xdsl_irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import PyRDLOpDefinitionError


def _our_ops_with_a_format() -> list[type[IRDLOperation]]:
    dialects = [taichi.Taichi, offload.Offload, llvm_ext.LLVMExt, spirv.SPIRV]
    ops = [op for d in dialects for op in d.operations]
    return [op for op in ops if op.get_irdl_definition().assembly_format is not None]


def test_every_format_of_our_dialects_builds() -> None:
    """A format is no longer checked at import: build each one here, so that a bad
    format in any of our dialects still fails a test."""
    ops = _our_ops_with_a_format()
    assert len(ops) > 100
    for op in ops:
        assert format_program(op) is format_program(op)  # built once a class


def test_importing_our_dialects_parses_none_of_their_formats() -> None:
    """In a fresh process, count the formats parsed while our dialects import (xDSL's
    own dialects, imported on the way, parse theirs as usual)."""
    code = textwrap.dedent(
        """
        from xdsl.irdl.declarative_assembly_format import FormatProgram
        parsed = []
        eager = FormatProgram.from_str
        def counting(text, op_def):
            parsed.append(op_def.name)
            return eager(text, op_def)
        FormatProgram.from_str = counting
        from taichi_xdsl.dialects import llvm_ext, offload, spirv, taichi
        ours = ("taichi.", "offload.", "spirv.", "llvm_ext.")
        print(len(parsed) > 0, [n for n in parsed if n.startswith(ours)])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "True []"


class _AddBase(IRDLOperation):
    T: ClassVar = VarConstraint("T", base(type(i32)))
    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(T)
    flag = opt_prop_def(IntegerAttr)
    assembly_format = "$lhs `,` $rhs (`flag` $flag^)? attr-dict `:` type($res)"


@xdsl_irdl_op_definition
class EagerAddOp(_AddBase):
    name = "t.add"


@irdl_op_definition
class DeferredAddOp(_AddBase):
    name = "t.add"


def _print(op: IRDLOperation) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_op(op)
    return stream.getvalue()


def _module(cls: type[IRDLOperation], flag: IntegerAttr | None) -> ModuleOp:
    const = arith.ConstantOp(IntegerAttr(1, i32))
    (c,) = const.results
    properties = {"flag": flag} if flag is not None else {}
    return ModuleOp([const, cls.create(operands=[c, c], result_types=[i32], properties=properties)])


@pytest.mark.parametrize("flag", [None, IntegerAttr(3, i32)])
def test_the_deferred_format_prints_and_parses_as_xdsl_s(flag: IntegerAttr | None) -> None:
    eager, deferred = (_print(_module(cls, flag)) for cls in (EagerAddOp, DeferredAddOp))
    assert eager == deferred
    assert "= t.add %" in deferred  # the custom form, not the generic one
    for cls in (EagerAddOp, DeferredAddOp):
        ctx = Context()
        for dialect in (Builtin, arith.Arith, Dialect("t", [cls])):
            ctx.load_dialect(dialect)
        parsed = Parser(ctx, deferred).parse_module()
        assert _print(parsed) == deferred
        (op,) = [o for o in parsed.walk() if isinstance(o, cls)]
        assert op.flag == flag


def test_a_bad_format_fails_on_first_use() -> None:
    @irdl_op_definition
    class BadOp(IRDLOperation):
        name = "t.bad"
        res = result_def(i32)
        assembly_format = "$nothing attr-dict"

    op = BadOp.create(result_types=[i32])
    with pytest.raises(PyRDLOpDefinitionError, match="t.bad"):
        _print(op)


def test_a_format_beside_custom_print_is_refused_as_by_xdsl() -> None:
    with pytest.raises(PyRDLOpDefinitionError, match="both an assembly format"):

        @irdl_op_definition
        class BothOp(IRDLOperation):
            name = "t.both"
            assembly_format = "attr-dict"

            def print(self, printer: Printer) -> None:
                printer.print_string("x")


def test_our_dialects_define_ops_with_the_deferred_decorator() -> None:
    """A dialect module that imported xDSL's decorator again would parse its formats at
    import: every op class with a format has the deferred print."""
    for op in _our_ops_with_a_format():
        assert op.print is deferred_format._print_with_format, op.__name__
        assert inspect.ismethod(op.parse)
