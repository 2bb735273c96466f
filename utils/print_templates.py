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
from xdsl.ir import Operation, SSAValue
from xdsl.printer import Printer


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
    replayed: int = field(default=0, init=False)
    """How many ops were printed from a template."""

    def print_op(self, op: Operation) -> None:
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
            or any(operand not in self._ssa_values for operand in op.operands)
        ):
            return super().print_op(op)
        kept = [*[operand.type for operand in op.operands], *op.result_types]
        kept += op.properties.values()
        kept += op.attributes.values()
        key = (op_type, len(op.operands), tuple(map(id, kept)), tuple(op.properties),
               tuple(op.attributes))
        template = self._templates.get(key)
        self._print_results(op)
        if template is None:
            self.print_string(op.name)
            self._print_and_learn(op, key, kept)
        else:
            # one string: what print_ssa_value prints for a value that has its name
            operands, names = op.operands, self._ssa_values
            text = [op.name]
            for piece in template[0]:
                text.append(piece if piece.__class__ is str else "%" + names[operands[piece]])
            self.print_string("".join(text))
            self.replayed += 1
        if self.print_debuginfo:
            self.print_string(" ")
            self.print_attribute(op.location)

    def _print_and_learn(self, op: Operation, key: tuple, kept: list) -> None:
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
