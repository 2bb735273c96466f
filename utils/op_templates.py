"""
Parse each shape of op once: ops whose source line repeats, SSA names aside, are built
from a template of the first one instead of going through xDSL's parser again.

    %46 = arith.addi %i, %45 : i32        parsed by xDSL, learnt as a template
    %51 = arith.addi %48, %47 : i32       the same masked line:  \0 = arith.addi \0, \0 : i32
                                          built from the template (~20 us instead of ~400)

Large IR repeats a few hundred op shapes thousands of times, and xDSL spends most of its
time on each op in its declarative-format interpreter, type parsing and attribute
construction and verification: all of them a function of the op's text once its SSA
names are masked, of its operands' types, and of the token after it. A template keeps
what xDSL's parser made of the first op of a shape (class, result types, properties,
attributes, location, which name is which operand) and is used only when all of these
are the same:

- the rest of the line from the op's first token, with each `%name` masked;
- the token after the line (a `%`, a `}`, the end of input, or the same bare
  identifier): xDSL's op parsers decide where an op ends from the token after it;
- the dialect stack (how an unqualified op name resolves);
- the types of the operands' values.

Anything else goes to xDSL's parser, which also gives every error: a forward or
undefined operand, a type mismatch, a redefined result, a line holding `#` (tuple
results `%x#1`, attribute aliases) or more than one op. An op becomes a template only if
it has no regions and no successors, ends on its line, its names map one to one onto
its results (in order) and its operands, it holds no state beyond what
`Operation.create` sets, and its parse left no trace in the parser beyond its results
(a first `dense_resource<key>` declares the resource).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import repeat

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Attribute, Operation, OpResult, SSAValue, SSAValues, Use
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRTokenKind

# MLIR's `%` suffix-id, as xDSL's lexer reads it (digits alone, or a name).
_SSA_NAME = re.compile(r"%(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)")
# What xDSL's lexer skips between tokens.
_SKIPPED = re.compile(r"((//[^\n]*(\n)?)|(\s+))*", re.ASCII)
_BARE_IDENT = re.compile(r"[a-zA-Z_][a-zA-Z0-9_$.]*")

_UNKNOWN = object()
"""A result's name hint from the op's construction that its (valid) name overwrote."""


@dataclass(frozen=True)
class _Template:
    op_type: type[Operation]
    result_types: tuple[Attribute, ...]
    operand_names: tuple[int, ...]
    """For each operand, the index of its name among the line's operand names."""
    operand_types: tuple[Attribute, ...]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    location: Attribute
    own_location: bool
    """Whether the line names its location (`loc(...)`); else the parser gives one."""
    construction_hints: tuple[object, ...]


@dataclass
class Pending:
    """An op about to be parsed by xDSL: what its template would be keyed by."""

    key: tuple[str, str, tuple[str, ...]]
    names: list[str]
    end_of_line: int
    lookahead_at: int
    resources: int
    """How many dialect resources the parser had seen (`dense_resource<key>` declares one)."""


class OpTemplates:
    """The templates of one parse (names and positions refer to its input)."""

    def __init__(self, text: str):
        self._text = text
        self._table: dict[tuple[str, str, tuple[str, ...]], _Template] = {}
        self._plain_fields: dict[type[Operation], frozenset[str]] = {}
        self.built = 0
        """How many ops were built from a template."""

    def build(self, parser) -> Operation | Pending | None:
        """
        The op at the parser's current token, built from a template and located by the
        parser's `_location_of` unless its line names a location (the parser then
        stands on the token after it); else what to learn from xDSL's parse of it
        (`Pending`), or None when the line cannot be a template.
        """
        text = self._text
        start = parser._current_token.span.start
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        line = text[start:end]
        if "#" in line or "\0" in line:
            return None
        lookahead_at = _SKIPPED.match(text, end).end()
        if lookahead_at == len(text):
            lookahead = ""
        else:
            char = text[lookahead_at]
            if char == "%" or char == "}":
                lookahead = char
            elif char.isascii() and (char.isalpha() or char == "_"):
                lookahead = _BARE_IDENT.match(text, lookahead_at).group()
            else:
                return None
        names = _SSA_NAME.findall(line)
        key = (_SSA_NAME.sub("\0", line), lookahead, tuple(parser._parser_state.dialect_stack))
        template = self._table.get(key)
        if template is None:
            return Pending(key, names, end, lookahead_at, len(parser.dialect_resources))
        op = self._instantiate(parser, template, names, start)
        if op is None:
            return None
        self._advance(parser, lookahead, lookahead_at, end)
        self.built += 1
        return op

    def _advance(self, parser, lookahead: str, at: int, end_of_line: int) -> None:
        """
        Stand the parser on the token after the op's line, as `_resume_from(end_of_line)`
        does, making the token here for the kinds a template can be followed by.
        """
        lexer = parser.lexer
        if lookahead == "}":
            kind, end = MLIRTokenKind.R_BRACE, at + 1
        elif lookahead == "%":
            match = _SSA_NAME.match(self._text, at)
            if match is None:  # a lexing error: xDSL's lexer reports it
                parser._resume_from(end_of_line)
                return
            kind, end = MLIRTokenKind.PERCENT_IDENT, match.end()
        elif lookahead:
            kind, end = MLIRTokenKind.BARE_IDENT, at + len(lookahead)
        else:
            parser._resume_from(end_of_line)
            return
        lexer.pos = end
        parser._parser_state.current_token = Token(kind, Span(at, end, lexer.input))

    def _instantiate(
        self, parser, template: _Template, names: list[str], start: int
    ) -> Operation | None:
        values = parser.ssa_values
        n_results = len(template.result_types)
        operand_names = names[n_results:]
        operands = []
        for index, type in zip(template.operand_names, template.operand_types):
            value = values.get(operand_names[index][1:])
            if value is None or len(value) != 1:
                return None  # undefined or a forward reference: xDSL's parser
            value = value[0]
            if value.type is not type and value.type != type:
                return None  # xDSL's parser gives the error
            operands.append(value)
        result_names = [name[1:] for name in names[:n_results]]
        if len(set(result_names)) != n_results:
            return None
        for name, hint in zip(result_names, template.construction_hints):
            if name in values or name in parser.forward_ssa_references:
                return None
            if hint is _UNKNOWN and not SSAValue.is_valid_name(name):
                return None
        location = template.location if template.own_location else parser._location_of(start)
        op = _make(template, operands, location)
        span = Span(0, 0, parser.lexer.input)  # never reported: no error is left
        for result, name, hint in zip(op.results, result_names, template.construction_hints):
            if hint is not None and hint is not _UNKNOWN:
                result.name_hint = hint
            parser._register_ssa_definition(name, (result,), span)
        return op

    def learn(self, parser, pending: Pending, op: Operation) -> None:
        """Keep `op`, just parsed by xDSL from `pending`'s line, as a template if it can be."""
        if op.regions or op.successors:
            return
        if len(parser.dialect_resources) != pending.resources:
            return  # its parse declared a resource: a side effect a template would skip
        if parser._current_token.span.start != pending.lookahead_at:
            return  # the op did not end on its line
        if frozenset(vars(op)) != self._fields_of(type(op)):
            return
        values = parser.ssa_values
        n_results = len(op.results)
        names = pending.names
        if len(names) != n_results + len(op.operands):
            return
        hints = []
        for result, name in zip(op.results, names):
            defined = values.get(name[1:])
            if defined is None or len(defined) != 1 or defined[0] is not result:
                return
            hints.append(_UNKNOWN if SSAValue.is_valid_name(name[1:]) else result.name_hint)
        index_of: dict[int, int] = {}
        for index, name in enumerate(names[n_results:]):
            defined = values.get(name[1:])
            if defined is None or len(defined) != 1 or id(defined[0]) in index_of:
                return
            index_of[id(defined[0])] = index
        operand_names = tuple(index_of.get(id(operand), -1) for operand in op.operands)
        if -1 in operand_names or len(set(operand_names)) != len(operand_names):
            return
        self._table[pending.key] = _Template(
            op_type=type(op),
            result_types=tuple(op.result_types),
            operand_names=operand_names,
            operand_types=tuple(operand.type for operand in op.operands),
            properties=dict(op.properties),
            attributes=dict(op.attributes),
            location=op.location,
            own_location=isinstance(op.location, FileLineColLoc),
            construction_hints=tuple(hints),
        )

    def _fields_of(self, op_type: type[Operation]) -> frozenset[str]:
        """
        The fields `Operation.create` sets on a bare op of this class; none (no
        template) when `_make` would not make the same op.
        """
        fields = self._plain_fields.get(op_type)
        if fields is None:
            try:
                fields = frozenset(vars(op_type.create()))
            except Exception:  # noqa: BLE001 - an op class that cannot be made bare
                fields = frozenset()
            if not _makes_what_create_makes(op_type):
                fields = frozenset()
            self._plain_fields[op_type] = fields
        return fields


_MADE_FIELDS = ("_operands", "_operand_uses", "results", "properties", "attributes",
                "location", "_successors", "_successor_uses", "regions")


def _make(template: _Template, operands: list[SSAValue], location: Attribute) -> Operation:
    """
    `template.op_type.create(operands=..., result_types=..., properties=..., ...)` with
    the template's values, made field by field: what `Operation.__init__` sets for an
    op without successors or regions whose properties are complete (the template's
    came from a parsed op, defaults filled in), less its generic argument handling.
    """
    op_type = template.op_type
    op = op_type.__new__(op_type)
    uses = tuple(map(Use, repeat(op, len(operands)), range(len(operands))))
    for value, use in zip(operands, uses):
        value.add_use(use)
    types = template.result_types
    fields = op.__dict__
    fields["_operands"] = SSAValues(operands)
    fields["_operand_uses"] = uses
    fields["results"] = SSAValues(map(OpResult, types, repeat(op, len(types)), range(len(types))))
    fields["properties"] = dict(template.properties)
    fields["attributes"] = dict(template.attributes)
    fields["location"] = location
    fields["_successors"] = ()
    fields["_successor_uses"] = ()
    fields["regions"] = ()
    return op


def _makes_what_create_makes(op_type: type[Operation]) -> bool:
    """
    Whether `_make` gives what `create` gives for this class: the same fields, of the
    same kinds, none of them a descriptor of the class (which `create` would go
    through), and no `__init__`-time work beyond `Operation`'s and IRDL's defaults.
    """
    for klass in op_type.__mro__:
        if klass is Operation:
            break
        if any(name in vars(klass) for name in (*_MADE_FIELDS, "__post_init__", "create")):
            if klass.__module__ != "xdsl.irdl.operations":  # IRDLOperation's defaults
                return False
    try:
        created = op_type.create()
    except Exception:  # noqa: BLE001 - an op class that cannot be made bare
        return False
    template = _Template(op_type, (), (), (), dict(created.properties), {},
                         created.location, False, ())
    made = _make(template, [], created.location)
    if vars(made).keys() != vars(created).keys():
        return False
    return all(type(vars(made)[name]) is type(vars(created)[name]) for name in _MADE_FIELDS)
