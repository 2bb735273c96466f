"""
Located diagnostics: every error points at a file, a line and the offending source.

    kernel.mlir:8:3: error: 'taichi.element_ptr' indexes a 1-d memref<?xf32> with 2 indices
      %p = taichi.element_ptr %x[%c0, %c0] : memref<?xf32> -> memref<f32>
      ^

Ops parsed by `LocatingParser` carry a `FileLineColLoc` of their first token, so a
verifier or pass failure found later can still name its source position.
"""

from __future__ import annotations

import bisect
import gc
import linecache
import re
from collections.abc import Sequence
from pathlib import Path

from taichi_xdsl.dialects.symbols import cached_symbol_tables
from taichi_xdsl.utils.op_templates import OpTemplates, Pending
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.ir import Block, BlockArgument, OpResult
from xdsl.parser import Parser
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind
from xdsl.utils.exceptions import (
    DiagnosticException,
    ParseError,
    PassFailedException,
    VerifyException,
)

# xDSL's string-literal pattern nests `+` inside `*`, so an unclosed literal followed by a
# few dozen characters backtracks exponentially; this unrolled form matches the same
# literals in linear time.
_STRING_LITERAL = re.compile(r'"[^"\\\n\v\f]*(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})[^"\\\n\v\f]*)*"')

# A builtin parametrized type whose text alone decides what xDSL parses it to: one of
# these keywords, then `<...>` nested at most twice, holding no string, no alias, no
# dialect type or attribute, no function type or affine map.
_PLAIN_TYPE = re.compile(
    r"(?:memref|vector|tensor|complex|tuple)<[\w?,. \[\]:]*(?:<[\w?,. \[\]:]*>[\w?,. \[\]:]*)*>"
)


class LocatingParser(Parser):
    """
    xDSL's parser, recording where each op starts unless it names its own `loc(...)`,
    and turning every fault of xDSL's parser on malformed input (an exception other than
    a ParseError) into a ParseError at the token where it happened.
    """

    line_offset: int = 0
    """Lines before this input in its file (a chunk of `--split-input-file`)."""

    def __init__(self, ctx, input: str, name: str = "<unknown>"):
        # On the class: xDSL's parser lexes the first token while it is constructed (an
        # unclosed literal there hung before an instance attribute could take effect).
        MLIRLexer._unescaped_characters_regex = _STRING_LITERAL
        super().__init__(ctx, input, name)
        self._newlines = [m.start() for m in re.finditer("\n", input)]
        self._filename = StringAttr(name)
        self._templates = OpTemplates(self.lexer.input.content)
        self._types: dict[object, object] = {}
        """Each type parsed, by value: equal types read twice are one object."""
        self._plain_types: dict[str, object] = {}
        """The types parsed from `_PLAIN_TYPE` texts, by text."""

    def parse_optional_type(self):
        """
        xDSL's, each type made once per value (the IRDL checks and print templates,
        keyed by identity, then see one type where the input repeats one), and a
        `_PLAIN_TYPE` text parsed once (the ten memref arguments of each kernel).
        """
        token = self._current_token
        plain = None
        if token.kind is MLIRTokenKind.BARE_IDENT:
            plain = _PLAIN_TYPE.match(self.lexer.input.content, token.span.start)
            if plain is not None:
                parsed = self._plain_types.get(plain.group())
                if parsed is not None:
                    self._resume_from(plain.end())
                    return parsed
        parsed = super().parse_optional_type()
        if parsed is None:
            return None
        try:
            parsed = self._types.setdefault(parsed, parsed)
        except TypeError:  # an unhashable type
            return parsed
        if plain is not None and self._previous_token_end() == plain.end():
            self._plain_types[plain.group()] = parsed
        return parsed

    def _previous_token_end(self) -> int:
        """Where the text xDSL consumed ends: the current token's start, spaces aside."""
        text = self.lexer.input.content
        end = self._current_token.span.start
        while end and text[end - 1].isspace():
            end -= 1
        return end

    def _location_of(self, position: int) -> FileLineColLoc:
        """The location of `position` in O(log n) (xDSL counts newlines from the start)."""
        line = bisect.bisect_left(self._newlines, position)
        line_start = self._newlines[line - 1] + 1 if line else 0
        # Built field by field: verifying three attributes made here from a StringAttr
        # and two ints was a sixth of the time to parse a large file.
        location = FileLineColLoc.__new__(FileLineColLoc)
        object.__setattr__(location, "filename", self._filename)
        object.__setattr__(location, "line", _int_attr(line + 1 + self.line_offset))
        object.__setattr__(location, "column", _int_attr(position - line_start + 1))
        return location

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        built = self._templates.build(self)  # an op (located), a Pending, or None
        if built is not None and built.__class__ is not Pending:
            return built
        try:
            op = super().parse_operation()
        except (ParseError, LocatedDiagnostic, RecursionError):
            raise
        except DiagnosticException as error:  # a constructor's check, e.g. an int's range
            raise LocatedDiagnostic(format_at(self._location_of(span.start), str(error))) from None
        except Exception as error:  # a fault in xDSL on malformed input
            message = f"malformed operation ({type(error).__name__}: {error})"
            raise ParseError(span, message) from None
        if built is not None:
            self._templates.learn(self, built, op)
        if not isinstance(op.location, FileLineColLoc):
            op.location = self._location_of(span.start)
        return op

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        # The parse makes millions of objects and frees almost none: the cycle
        # collector's passes over them were two fifths of the time to parse a large file.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError:
            # xDSL reports values used but never defined at the end of the input: name
            # the first use instead.
            for name, values in self.forward_ssa_references.items():
                for value in values.values():
                    for use in value.uses:
                        location = use.operation.location
                        if isinstance(location, FileLineColLoc):
                            message = f"use of undefined value '%{name}'"
                            raise LocatedDiagnostic(format_at(location, message)) from None
            raise
        finally:
            if collecting:
                gc.enable()

    def _parse_block(self) -> Block:
        # xDSL forgets a block's definition once a forward reference to it is resolved,
        # so a third `^bb1:` label fails with a KeyError instead of a diagnostic.
        token = self._current_token
        name = token.text[1:]
        if name in self.blocks and name not in self.forward_block_references:
            raise ParseError(token.span, f"re-declaration of block '{name}'")
        block = super()._parse_block()
        self.blocks[name] = (block, token.span)
        return block


_INT_ATTRS: dict[int, IntAttr] = {}


def _int_attr(value: int) -> IntAttr:
    """
    IntAttr(value) for a line or column number, made once per value (attributes are
    immutable values) and without verifying that a Python int is an int: each op of a
    large file has a line number of its own.
    """
    attr = _INT_ATTRS.get(value)
    if attr is None:
        attr = IntAttr.__new__(IntAttr)
        object.__setattr__(attr, "data", value)
        if len(_INT_ATTRS) < 1 << 20:
            _INT_ATTRS[value] = attr
    return attr


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


class PassOptionError(ValueError):
    """
    A pass option out of its range, raised when the pass is built (in its
    `__post_init__`), so that ti-opt points at the option in the `-p` text:

        raise PassOptionError("ad_stack_size", "ti-auto-diff: ad_stack_size must be >= 0")
    """

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


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
    with cached_symbol_tables():
        for op in module.walk():
            try:
                _verify_op(op)
            except VerifyException as error:
                message = str(error).removeprefix("Operation does not verify: ")
                location = _location_for(op, message)
                if not isinstance(op.location, FileLineColLoc) and not isinstance(op, ModuleOp):
                    message += f" (in a `{op.name}` without a location, inside this op)"
                raise LocatedDiagnostic(format_at(location, message)) from None
            except Exception as error:  # noqa: BLE001 - a verifier raising the wrong type
                # xDSL's scf.for verifier raises a bare Exception ("Block arguments with
                # wrong type"): still a rejection of this op, not an internal error.
                message = f"'{op.name}' does not verify: {error}"
                location = _location_for(op, message)
                raise LocatedDiagnostic(format_at(location, message)) from None


def _verify_op(op: Operation) -> None:
    """
    `op.verify(verify_nested_ops=False)`. For an op with no successors, not last in
    its block and whose operands are all live values, xDSL's generic checks (erased
    operands, successors, terminators) have nothing to check: only its `verify_` runs,
    and on a failure xDSL's `verify` runs again to raise its own error.
    """
    if op._successors or type(op).verify is not Operation.verify:
        return op.verify(verify_nested_ops=False)
    parent = op.parent
    if parent is not None and parent.last_op is op:
        return op.verify(verify_nested_ops=False)
    for operand in op._operands:
        if operand.__class__ is not OpResult and operand.__class__ is not BlockArgument:
            return op.verify(verify_nested_ops=False)
    try:
        op.verify_()
    except Exception:
        op.verify(verify_nested_ops=False)
        raise
    return None


def _location_for(op: Operation, message: str) -> object:
    """
    Where to report a fault of `op`: its own location or, for an op the parser made up
    (the implicit module), the symbol a redefinition names or else its first located op.
    """
    if message.startswith("Operation using value defined out of its IsolatedFromAbove"):
        # name the use, not the isolated op around it
        for inner in op.walk():
            for operand in inner.operands:
                owner = operand.owner
                parent = owner.parent_op() if isinstance(owner, Block) else owner
                if parent is not None and not op.is_ancestor(parent):
                    if isinstance(inner.location, FileLineColLoc):
                        return inner.location
    if isinstance(op.location, FileLineColLoc):
        return op.location
    for ancestor in _ancestors(op):  # an op a pass made: the located op around it
        if isinstance(ancestor.location, FileLineColLoc):
            return ancestor.location
    redefined = re.search(r'Redefinition of symbol "([^"]*)"', message)
    first = None
    seen = False
    for inner in op.walk():
        if inner is op or not isinstance(inner.location, FileLineColLoc):
            continue
        first = first or inner.location
        name = inner.attributes.get("sym_name") or inner.properties.get("sym_name")
        if redefined and isinstance(name, StringAttr) and name.data == redefined.group(1):
            if seen:
                return inner.location
            seen = True
    return first or op.location


def _ancestors(op: Operation):
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()


def decode_source(data: bytes | str, filename: str) -> str:
    """`data` as text, or a LocatedDiagnostic naming the file and the first bad byte."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise LocatedDiagnostic(
            f"{filename}:{line}:{column}: error: not UTF-8 text (byte "
            f"0x{data[error.start]:02x}); is this a binary file?"
        ) from None


def _dominator_tree(region) -> tuple[Block, dict[int, list[Block]], list[Block]]:
    """
    The entry block, each reachable block's children in the dominator tree (Cooper,
    Harvey and Kennedy's algorithm), and the unreachable blocks of a CFG region.
    """
    entry = region.blocks.first
    rpo: list[Block] = []
    seen = {id(entry)}
    stack = [(entry, iter(_successors(entry)))]
    while stack:
        block, successors = stack[-1]
        for successor in successors:
            if id(successor) not in seen:
                seen.add(id(successor))
                stack.append((successor, iter(_successors(successor))))
                break
        else:
            stack.pop()
            rpo.append(block)
    rpo.reverse()
    number = {id(block): i for i, block in enumerate(rpo)}
    predecessors: dict[int, list[int]] = {id(block): [] for block in rpo}
    for block in rpo:
        for successor in _successors(block):
            predecessors[id(successor)].append(number[id(block)])
    idom = {0: 0}
    changed = True
    while changed:
        changed = False
        for i, block in enumerate(rpo[1:], 1):
            new = None
            for pred in predecessors[id(block)]:
                if pred not in idom:
                    continue
                if new is None:
                    new = pred
                    continue
                x, y = pred, new
                while x != y:
                    while x > y:
                        x = idom[x]
                    while y > x:
                        y = idom[y]
                new = x
            if new is not None and idom.get(i) != new:
                idom[i] = new
                changed = True
    children: dict[int, list[Block]] = {}
    for i, block in enumerate(rpo[1:], 1):
        children.setdefault(id(rpo[idom[i]]), []).append(block)
    unreachable = [block for block in region.blocks if id(block) not in seen]
    return entry, children, unreachable


def _successors(block: Block) -> Sequence[Block]:
    last = block.last_op
    return last.successors if last is not None else ()


def verify_dominance(module: ModuleOp) -> None:
    """
    Check that every operand is defined before its use, as MLIR's verifier does and
    xDSL's does not: `%m = arith.mulf %a, %m` would otherwise reach the passes (and
    ti-scalarize would loop forever on it). One walk in dominator-tree order keeps the
    set of values in scope, so the check is linear however deep the nesting. The
    first fault is a LocatedDiagnostic.
    """
    visible: set[int] = set()

    def visit_region(region, graph: bool) -> None:
        if region.blocks.first is None:
            return
        if graph or region.blocks.first is region.blocks.last:
            for block in region.blocks:
                visit_block(block, {}, graph, check=True)
            return
        entry, children, unreachable = _dominator_tree(region)
        visit_block(entry, children, graph, check=True)
        for block in unreachable:  # MLIR checks no dominance in unreachable code
            visit_block(block, children, graph, check=False)

    def visit_block(block: Block, children, graph: bool, check: bool) -> None:
        added = [id(arg) for arg in block.args]
        if graph:  # a graph region (the module body): every value is in scope
            added += [id(result) for op in block.ops for result in op.results]
        visible.update(added)
        for op in block.ops:
            if check:
                for number, operand in enumerate(op.operands):
                    if id(operand) not in visible and isinstance(
                        operand, OpResult | BlockArgument
                    ):
                        _raise_not_dominated(op, number, operand)
            for region in op.regions:
                visit_region(region, isinstance(op, ModuleOp))
            for result in op.results:
                visible.add(id(result))
                added.append(id(result))
        for child in children.get(id(block), ()):
            visit_block(child, children, graph, check)
        visible.difference_update(added)

    visit_region(module.body, graph=True)


def _raise_not_dominated(user: Operation, number: int, operand) -> None:
    message = f"operand #{number} of '{user.name}' does not dominate this use"
    text = format_at(user.location, message)
    definer = operand.op if isinstance(operand, OpResult) else None
    if definer is not None and isinstance(definer.location, FileLineColLoc):
        note = format_at(definer.location, "operand defined here")
        text += "\n" + note.replace(": error: ", ": note: ", 1)
    raise LocatedDiagnostic(text)
