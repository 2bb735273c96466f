"""
Print each shape of op once: xDSL's printer, replaying the text its declarative assembly
format printed for an earlier op of the same shape, with this op's operand names.

    %46 = arith.addi %i, %45 : i32      printed by the format, kept as  ` `, 0, `, `, 1, ` : i32`
    %51 = arith.addi %48, %47 : i32     replayed: names printed by `print_ssa_value`

What a declarative format prints for an op without regions or successors is a function
of the op's class, its operand count, the identity of its operand types, result types,
properties and attributes (values are immutable; the parser's templates share them),
and of its operands' names. A shape is replayed only when every operand already has a
name (otherwise printing it names it: the printer's state would move), and becomes a
template only if its text is one line, each name it printed is a distinct operand, and
printing it recorded no dialect resource. Results, the op name and the location are
printed by xDSL's code for every op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from io import StringIO

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsTerminator

from taichi_xdsl.utils.diagnostics import LocatedDiagnostic, format_at

class PrintFailedAt(LocatedDiagnostic):
    """
    xDSL's printer failing on an op its verifier let through (llvm.func with a
    `visibility_` past 2 asserts in print): the message names the op's source position.
    """

    def __init__(self, op: Operation, message: str):
        super().__init__(format_at(op.location, message))


_LEARN = object()
"""The first op of a replayable shape: printed by its format, its text kept."""


def _is_declarative(op_type: type[Operation]) -> bool:
    printer = getattr(op_type, "print", None)
    return (
        getattr(printer, "__name__", "") == "print_with_format"
        and getattr(printer, "__module__", "") == "xdsl.irdl.operations"
    )


@dataclass(eq=False, repr=False)
class TemplatePrinter(Printer):
    """xDSL's Printer, printing a declarative-format op of a known shape from its template."""

    _templates: dict[tuple, tuple] = field(default_factory=dict, init=False)
    _declarative: dict[type, bool] = field(default_factory=dict, init=False)
    _printed_names: list | None = field(default=None, init=False)
    _learning: tuple = field(default=(), init=False)
    replayed: int = field(default=0, init=False)
    """How many ops were printed from a template."""
    failed_op: Operation | None = field(default=None, init=False)
    """The op whose printing raised, if one did (ti-opt reports the error at it)."""

    def print_op(self, op: Operation) -> None:
        replayed = self._replayed_text(op)
        if replayed is None:
            try:
                return super().print_op(op)
            except Exception:  # xDSL's printer refusing an op: the innermost one is kept
                if self.failed_op is None:
                    self.failed_op = op
                raise
        self._print_results(op)
        if replayed is _LEARN:
            self.print_string(op.name)
            self._print_and_learn(op)
        else:
            self.print_string(replayed)
        if self.print_debuginfo:
            self.print_string(" ")
            self.print_attribute(op.location)

    def print_block(
        self, block: Block, print_block_args: bool = True, print_block_terminator: bool = True
    ) -> None:
        """
        xDSL's print_block, each op of a known shape written as one string: the new line,
        its indentation, its results (named as `print_ssa_value` names them) and its text.
        """
        stream = self.stream
        if print_block_args or self.print_debuginfo or stream is None:
            return super().print_block(block, print_block_args, print_block_terminator)
        with self.indented():
            indentation = "\n" + " " * (self._indent * self.indent_num_spaces)
            for op in block.ops:
                if not print_block_terminator and op.has_trait(
                    IsTerminator, value_if_unregistered=False
                ):
                    continue
                replayed = None if self._next_line_callback else self._replayed_text(op)
                if replayed is None or replayed is _LEARN:
                    self._print_new_line()
                    self.print_op(op)
                    continue
                results = op.results
                if results:
                    names = [self._result_name(result) for result in results]
                    replayed = "%" + ", %".join(names) + " = " + replayed
                stream.write(indentation + replayed)
                self._current_line += 1
                self._current_column = len(indentation) - 1 + len(replayed)

    def _result_name(self, value: SSAValue) -> str:
        """The name `print_ssa_value` gives `value`, without printing it."""
        name = self._ssa_values.get(value)
        if name is not None:
            return name
        hint = value.name_hint
        if hint:
            names = self._ssa_names[-1]
            number = names.get(hint, 0)
            name = f"{hint}_{number}" if number != 0 else hint
            names[hint] = number + 1
        else:
            name = self._get_new_valid_name_id()
        self._ssa_values[value] = name
        return name

    def _replayed_text(self, op: Operation):
        """
        What the format would print after the op's results: its name and the replayed
        text of its shape; `_LEARN` for the first op of a replayable shape; None for an
        op printed by xDSL's code.
        """
        op_type = type(op)
        declarative = self._declarative.get(op_type)
        if declarative is None:
            declarative = self._declarative[op_type] = _is_declarative(op_type)
        if (
            not declarative
            or self.print_generic_format
            or op.regions
            or op.successors
            or isinstance(op, UnregisteredOp)
            or op in self.diagnostic.op_messages
        ):
            return None
        operands, names = op.operands, self._ssa_values
        for operand in operands:
            if operand not in names:
                return None
        kept = [*[operand.type for operand in operands], *op.result_types]
        kept += op.properties.values()
        kept += op.attributes.values()
        key = (op_type, len(operands), tuple(map(id, kept)), tuple(op.properties),
               tuple(op.attributes))
        template = self._templates.get(key)
        if template is None:
            self._learning = (key, kept)
            return _LEARN
        text = [op.name]
        for piece in template[0]:
            text.append(piece if piece.__class__ is str else "%" + names[operands[piece]])
        self.replayed += 1
        return "".join(text)

    def _print_and_learn(self, op: Operation) -> None:
        key, kept = self._learning
        stream, buffer = self.stream, StringIO()
        resources = sum(len(handles) for handles in self._dialect_resources.values())
        self.stream, self._printed_names = buffer, []
        try:
            op.print(self)
        finally:  # what was printed goes out, even before a fault of the format's printer
            self.stream, printed_names = stream, self._printed_names
            self._printed_names = None
            text = buffer.getvalue()
            self.stream.write(text)
        if "\n" in text:
            return
        if resources != sum(len(handles) for handles in self._dialect_resources.values()):
            return
        index_of = {id(operand): i for i, operand in enumerate(op.operands)}
        if len(index_of) != len(op.operands):
            return  # an operand twice: which name is which?
        pieces: list[str | int] = []
        at = 0
        for start, end, value in printed_names:
            index = index_of.get(id(value))
            if index is None or index in pieces[1::2]:
                return
            pieces += [text[at:start], index]
            at = end
        pieces.append(text[at:])
        self._templates[key] = (tuple(piece for piece in pieces if piece != ""), kept)

    def print_ssa_value(self, value: SSAValue) -> str:
        names = self._printed_names
        if names is None:
            return super().print_ssa_value(value)
        start = self.stream.tell()
        name = super().print_ssa_value(value)
        names.append((start, self.stream.tell(), value))
        return name
