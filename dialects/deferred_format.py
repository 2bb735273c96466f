"""
xDSL's `irdl_op_definition`, with an op's declarative `assembly_format` parsed the first
time an op of that class is printed or parsed instead of when the class is defined.

xDSL turns each `assembly_format` string into a `FormatProgram` in `irdl_op_definition`,
at import. For our dialects that is 35-40% of their import (taichi: 8 of 22 ms CPU for
40 formats; SPIR-V: 16 ms for 89), paid by every process's first kernel although a
compile never prints its IR unless it dumps it or keys the offline cache on it, and
then only the ops it holds. The op class, its `OpDef`, its accessors and its verifier
are xDSL's own; `parse` and `print` run the same `FormatProgram` xDSL would have built,
so the text is the same. Our dialects import this `irdl_op_definition` instead of
xDSL's:

    from taichi_xdsl.dialects.deferred_format import irdl_op_definition

    @irdl_op_definition
    class IAddOp(IRDLOperation):
        name = "spirv.IAdd"
        assembly_format = "operands attr-dict `:` type($result)"

An invalid format is reported on first use rather than at import
(`PyRDLOpDefinitionError`, as xDSL's); test_deferred_format.py builds every format of
our dialects so that a bad one still fails a test.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.irdl import irdl_op_definition as _xdsl_irdl_op_definition
from xdsl.irdl.declarative_assembly_format import FormatProgram
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, PyRDLOpDefinitionError

OpT = TypeVar("OpT", bound=IRDLOperation)

_programs: dict[type[IRDLOperation], FormatProgram] = {}
"""The format program of each op class, built on its first print or parse."""


def format_program(cls: type[IRDLOperation]) -> FormatProgram:
    """The `FormatProgram` of `cls`'s assembly format, built on first call."""
    program = _programs.get(cls)
    if program is None:
        op_def = cls.get_irdl_definition()
        assert op_def.assembly_format is not None, f"{cls.__name__} has no assembly format"
        try:
            program = FormatProgram.from_str(op_def.assembly_format, op_def)
        except ParseError as e:
            raise PyRDLOpDefinitionError(
                f"{op_def.name}: error during the parsing of the assembly format: ", e.args
            ) from e
        _programs[cls] = program
    return program


@classmethod
def _parse_with_format(cls: type[OpT], parser: Parser) -> OpT:
    return format_program(cls).parse(parser, cls)


def _print_with_format(self: IRDLOperation, printer: Printer) -> None:
    format_program(type(self)).print(printer, self)


def irdl_op_definition(cls: type[OpT]) -> type[OpT]:
    """xDSL's `irdl_op_definition`; an `assembly_format` is parsed on first use."""
    assembly_format = cls.assembly_format
    if assembly_format is None:
        return _xdsl_irdl_op_definition(cls)
    if cls.print not in (Operation.print, _print_with_format) or cls.parse.__func__ not in (
        Operation.parse.__func__,
        _parse_with_format.__func__,
    ):
        raise PyRDLOpDefinitionError(  # as xDSL's own check, which sees no format now
            "Cannot define both an assembly format (with the assembly_format "
            "variable) and the print and parse methods."
        )
    cls.assembly_format = None  # xDSL defines everything but the format program
    try:
        _xdsl_irdl_op_definition(cls)
    finally:
        cls.assembly_format = assembly_format
    cls.get_irdl_definition().assembly_format = assembly_format
    cls.parse = _parse_with_format  # pyright: ignore[reportAttributeAccessIssue]
    cls.print = _print_with_format  # pyright: ignore[reportAttributeAccessIssue]
    return cls
