"""
Located diagnostics: every error points at a file, a line and the offending source.

    kernel.mlir:8:3: error: 'taichi.element_ptr' indexes a 1-d memref<?xf32> with 2 indices
      %p = taichi.element_ptr %x[%c0, %c0] : memref<?xf32> -> memref<f32>
      ^

Ops parsed by `LocatingParser` carry a `FileLineColLoc` of their first token, so a
verifier or pass failure found later can still name its source position.
"""

from __future__ import annotations

import linecache
from pathlib import Path

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, PassFailedException, VerifyException


class LocatingParser(Parser):
    """xDSL's parser, recording where each op starts unless it names its own `loc(...)`."""

    line_offset: int = 0
    """Lines before this input in its file (a chunk of `--split-input-file`)."""

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        op = super().parse_operation()
        if not isinstance(op.location, FileLineColLoc):
            where = span.get_location()
            op.location = FileLineColLoc(
                StringAttr(where.file), IntAttr(where.line + self.line_offset), IntAttr(where.col)
            )
        return op


def format_at(location: object, message: str) -> str:
    """`file:line:col: error: message`, then the source line and a caret when known."""
    if not isinstance(location, FileLineColLoc):
        return f"error: {message}"
    filename = location.filename.data
    line, column = location.line.data, location.column.data
    text = f"{filename}:{line}:{column}: error: {message}"
    source = linecache.getline(filename, line) if Path(filename).is_file() else ""
    if source:
        text += f"\n{source.rstrip()}\n{' ' * max(column - 1, 0)}^"
    return text


class LocatedDiagnostic(DiagnosticException):
    """A diagnostic whose message already names its source position."""


class PassFailedAt(PassFailedException, LocatedDiagnostic):
    """
    A pass rejecting its input at `op`: the message names the op's source position.

        raise PassFailedAt(op, "ti-offload cannot run a struct_for over an ndarray")
    """

    def __init__(self, op: Operation, message: str):
        super().__init__(format_at(op.location, message))


def verify_located(module: ModuleOp) -> None:
    """
    Verify `module` op by op, outermost first; the first failure becomes a
    LocatedDiagnostic naming the op's source position.
    """
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as error:
            message = str(error).removeprefix("Operation does not verify: ")
            raise LocatedDiagnostic(format_at(op.location, message)) from None
