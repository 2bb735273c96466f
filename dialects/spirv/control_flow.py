"""
Structured control flow of the `spirv` dialect, as in MLIR: a selection or a loop is an
op whose region holds the construct's blocks, its merge block last.

    spirv.mlir.selection {                    spirv.mlir.loop {
      spirv.BranchConditional %c, ^then, ^m     spirv.Branch ^header
    ^then:                                    ^header:
      ...                                       ...
      spirv.Branch ^m                           spirv.BranchConditional %c, ^body, ^merge
    ^m:                                       ^body:
      spirv.mlir.merge                          ...
    }                                           spirv.Branch ^continue
                                              ^continue:
                                                ...
                                                spirv.Branch ^header
                                              ^merge:
                                                spirv.mlir.merge
                                              }

The serializer turns the selection into OpSelectionMerge before the header's branch, the
loop into OpLoopMerge in its header block, and continues the enclosing block's remaining
ops in the merge block.
"""

from __future__ import annotations

from collections.abc import Sequence

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.spirv.attributes import LoopControlAttr, SelectionControlAttr
from taichi_xdsl.dialects.spirv.structure import FuncOp
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, IntegerType, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    successor_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, ReturnLike
from xdsl.utils.exceptions import VerifyException


def _enclosing_function(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while (
        parent is not None and not isinstance(parent, FuncOp) and parent.name != "func.func"
    ):
        parent = parent.parent_op()
    return parent


def _function_results(function: Operation) -> tuple[Attribute, ...]:
    function_type = function.properties.get("function_type")
    outputs = getattr(function_type, "outputs", None)
    return tuple(outputs.data) if outputs is not None else ()


@irdl_op_definition
class BranchOp(IRDLOperation):
    """
    An unconditional branch, with values for the target block's arguments.

    Example: `spirv.Branch ^bb1(%x : i32)`
    """

    name = "spirv.Branch"

    targetOperands = var_operand_def()
    target = successor_def()

    traits = traits_def(IsTerminator())

    assembly_format = (
        "$target (`(` $targetOperands^ `:` type($targetOperands) `)`)? attr-dict"
    )

    def __init__(self, target: Block, *operands: SSAValue | Operation):
        super().__init__(operands=[operands], successors=[target])

    def verify_(self) -> None:
        _verify_successor_operands(self, self.target, self.targetOperands)


def _verify_successor_operands(
    op: Operation, target: Block, operands: Sequence[SSAValue]
) -> None:
    expected = tuple(arg.type for arg in target.args)
    got = tuple(value.type for value in operands)
    if expected != got:
        raise VerifyException(
            f"'{op.name}' passes ({', '.join(map(str, got))}) to a block expecting "
            f"({', '.join(map(str, expected))})"
        )


@irdl_op_definition
class BranchConditionalOp(IRDLOperation):
    """
    A two-way branch on an i1, with optional branch weights (true, false).

    Example:
        spirv.BranchConditional %c, ^then, ^else
        spirv.BranchConditional %c [5, 10], ^a(%x : i32), ^b
    """

    name = "spirv.BranchConditional"

    condition = operand_def(IntegerType)
    trueTargetOperands = var_operand_def()
    falseTargetOperands = var_operand_def()
    branch_weights = opt_prop_def(ArrayAttr[IntegerAttr])
    trueTarget = successor_def()
    falseTarget = successor_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(IsTerminator())

    def __init__(
        self,
        condition: SSAValue | Operation,
        true_target: Block,
        false_target: Block,
        true_operands: Sequence[SSAValue | Operation] = (),
        false_operands: Sequence[SSAValue | Operation] = (),
        branch_weights: tuple[int, int] | None = None,
    ):
        super().__init__(
            operands=[condition, true_operands, false_operands],
            successors=[true_target, false_target],
            properties={
                "branch_weights": ArrayAttr(IntegerAttr(w, i32) for w in branch_weights)
                if branch_weights is not None
                else None
            },
        )

    def verify_(self) -> None:
        condition_type = self.condition.type
        assert isinstance(condition_type, IntegerType)
        if condition_type.width.data != 1:
            raise VerifyException(
                f"'{self.name}' condition must be an i1, got {condition_type}"
            )
        if self.branch_weights is not None:
            weights = [w.value.data for w in self.branch_weights]
            if len(weights) != 2:
                raise VerifyException("must have exactly two branch weights")
            if weights == [0, 0]:
                raise VerifyException("branch weights cannot both be zero")
        _verify_successor_operands(self, self.trueTarget, self.trueTargetOperands)
        _verify_successor_operands(self, self.falseTarget, self.falseTargetOperands)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.condition)
        if self.branch_weights is not None:
            weights = ", ".join(str(w.value.data) for w in self.branch_weights)
            printer.print_string(f" [{weights}]")
        for target, operands in (
            (self.trueTarget, self.trueTargetOperands),
            (self.falseTarget, self.falseTargetOperands),
        ):
            printer.print_string(", ")
            printer.print_block_name(target)
            if operands:
                printer.print_string("(")
                printer.print_list(operands, printer.print_operand)
                printer.print_string(" : ")
                printer.print_list((o.type for o in operands), printer.print_attribute)
                printer.print_string(")")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> BranchConditionalOp:
        condition = parser.parse_operand(IntegerType(1))
        weights = None
        if parser.parse_optional_punctuation("[") is not None:
            first = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            second = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation("]")
            weights = (first, second)
        parser.parse_punctuation(",")
        true_target, true_operands = _parse_successor_with_operands(parser)
        parser.parse_punctuation(",")
        false_target, false_operands = _parse_successor_with_operands(parser)
        op = cls(
            condition, true_target, false_target, true_operands, false_operands, weights
        )
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


def _parse_successor_with_operands(parser: Parser) -> tuple[Block, list[SSAValue]]:
    target = parser.parse_successor()
    if parser.parse_optional_punctuation("(") is None:
        return target, []
    operands = [parser.parse_unresolved_operand()]
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    parser.parse_punctuation(":")
    types = [parser.parse_type()]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parser.parse_type())
    parser.parse_punctuation(")")
    if len(types) != len(operands):
        parser.raise_error(f"expected {len(operands)} types, got {len(types)}")
    return target, [
        parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)
    ]


def _merge_block_ok(block: Block) -> bool:
    return isinstance(block.first_op, MergeOp) and block.first_op is block.last_op


def _branch_targets(block: Block) -> tuple[Block, ...]:
    last = block.last_op
    if isinstance(last, BranchOp):
        return (last.target,)
    if isinstance(last, BranchConditionalOp):
        return (last.trueTarget, last.falseTarget)
    return ()


def _print_control(
    printer: Printer, control: SelectionControlAttr | LoopControlAttr
) -> None:
    if control.data:
        printer.print_string(f" control({control.text})")


def _parse_control(parser: Parser, kind: type[SelectionControlAttr | LoopControlAttr]):
    if parser.parse_optional_keyword("control") is None:
        return kind()
    with parser.in_parens():
        return kind.new(kind.parse_flags(parser))


@irdl_op_definition
class SelectionOp(IRDLOperation):
    """
    A structured if (or if/else): the first block is the header, ending in a
    `spirv.BranchConditional`; the last block is the merge block, holding only
    `spirv.mlir.merge`.

    Example:
        spirv.mlir.selection {
          spirv.BranchConditional %c, ^then, ^merge
        ^then:
          spirv.Store "Function" %v, %one : i32
          spirv.Branch ^merge
        ^merge:
          spirv.mlir.merge
        }
    """

    name = "spirv.mlir.selection"

    selection_control = prop_def(SelectionControlAttr, default_value=SelectionControlAttr())
    body = region_def()

    def __init__(self, body: Region, selection_control: str = "None"):
        super().__init__(
            regions=[body],
            properties={"selection_control": SelectionControlAttr(selection_control)},
        )

    @property
    def header_block(self) -> Block:
        return self.body.blocks[0]

    @property
    def merge_block(self) -> Block:
        return self.body.blocks[-1]

    def verify_(self) -> None:
        blocks = list(self.body.blocks)
        if not blocks:
            return
        if len(blocks) < 2:
            raise VerifyException(
                f"'{self.name}' must have a header block and a merge block"
            )
        if not _merge_block_ok(blocks[-1]):
            raise VerifyException(
                "last block must be the merge block with only one 'spirv.mlir.merge' op"
            )
        if blocks[0].args:
            raise VerifyException(f"'{self.name}' header block cannot have arguments")
        if not isinstance(blocks[0].last_op, BranchConditionalOp):
            raise VerifyException(
                f"'{self.name}' header block must end in spirv.BranchConditional"
            )

    def print(self, printer: Printer) -> None:
        _print_control(printer, self.selection_control)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> SelectionOp:
        control = _parse_control(parser, SelectionControlAttr)
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        return cls.create(
            properties={"selection_control": control},
            attributes=attributes.data if attributes is not None else {},
            regions=[body],
        )


@irdl_op_definition
class LoopOp(IRDLOperation):
    """
    A structured loop. Blocks, in order: an entry block holding only a `spirv.Branch` to
    the header; the header; the body blocks; the continue block (second to last, the only
    other block branching back to the header); the merge block (last, only
    `spirv.mlir.merge`).

    Example:
        spirv.mlir.loop {
          spirv.Branch ^header(%zero : i32)
        ^header(%i: i32):
          %lt = spirv.SLessThan %i, %n : i32
          spirv.BranchConditional %lt, ^body, ^merge
        ^body:
          spirv.Branch ^continue
        ^continue:
          %next = spirv.IAdd %i, %one : i32
          spirv.Branch ^header(%next : i32)
        ^merge:
          spirv.mlir.merge
        }
    """

    name = "spirv.mlir.loop"

    loop_control = prop_def(LoopControlAttr, default_value=LoopControlAttr())
    body = region_def()

    def __init__(self, body: Region, loop_control: str = "None"):
        super().__init__(
            regions=[body], properties={"loop_control": LoopControlAttr(loop_control)}
        )

    @property
    def entry_block(self) -> Block:
        return self.body.blocks[0]

    @property
    def header_block(self) -> Block:
        return self.body.blocks[1]

    @property
    def continue_block(self) -> Block:
        return self.body.blocks[-2]

    @property
    def merge_block(self) -> Block:
        return self.body.blocks[-1]

    def verify_(self) -> None:
        blocks = list(self.body.blocks)
        if not blocks:
            return
        if not _merge_block_ok(blocks[-1]):
            raise VerifyException(
                "last block must be the merge block with only one 'spirv.mlir.merge' op"
            )
        if len(blocks) < 2:
            raise VerifyException(
                "must have an entry block branching to the loop header block"
            )
        if len(blocks) < 3:
            raise VerifyException(
                "must have a loop header block branched from the entry block"
            )
        entry, header = blocks[0], blocks[1]
        entry_branch = entry.last_op
        if (
            not isinstance(entry_branch, BranchOp)
            or entry_branch is not entry.first_op
            or entry_branch.target is not header
        ):
            raise VerifyException(
                "entry block must only have one 'spirv.Branch' op to the second block"
            )
        if entry.args:
            raise VerifyException(f"'{self.name}' entry block cannot have arguments")
        if len(blocks) < 4:
            raise VerifyException(
                "requires a loop continue block branching to the loop header block"
            )
        continue_block = blocks[-2]
        if header not in _branch_targets(continue_block):
            raise VerifyException(
                "second to last block must be the loop continue block that branches to "
                "the loop header block"
            )
        if any(isinstance(op, SelectionOp | LoopOp) for op in header.ops):
            # The back edge must reach the block holding OpLoopMerge; a construct nested
            # in the header would move OpLoopMerge to that construct's merge block.
            raise VerifyException(
                f"'{self.name}' header block cannot hold a nested spirv.mlir.selection or "
                "spirv.mlir.loop; move it into the loop body"
            )
        for block in blocks[1:-2]:
            if header in _branch_targets(block):
                raise VerifyException(
                    "can only have the entry and loop continue block branching to the "
                    "loop header block"
                )

    def print(self, printer: Printer) -> None:
        _print_control(printer, self.loop_control)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        control = _parse_control(parser, LoopControlAttr)
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        return cls.create(
            properties={"loop_control": control},
            attributes=attributes.data if attributes is not None else {},
            regions=[body],
        )


@irdl_op_definition
class MergeOp(IRDLOperation):
    """
    Ends the merge block of a `spirv.mlir.selection` or `spirv.mlir.loop`: control
    continues after the construct.

    Example: `spirv.mlir.merge`
    """

    name = "spirv.mlir.merge"

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        parent = self.parent_op()
        if parent is None:
            return
        if not isinstance(parent, SelectionOp | LoopOp):
            raise VerifyException(
                "expected parent op to be 'spirv.mlir.selection' or 'spirv.mlir.loop'"
            )
        if self.parent_block() is not parent.body.blocks[-1]:
            raise VerifyException(
                "can only be used in the last block of 'spirv.mlir.selection' or "
                "'spirv.mlir.loop'"
            )


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """
    Return from a function that returns nothing.

    Example: `spirv.Return`
    """

    name = "spirv.Return"

    traits = traits_def(IsTerminator(), ReturnLike())

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        function = _enclosing_function(self)
        if function is None:
            if self.parent_op() is not None:
                raise VerifyException("op must appear in a function-like op's block")
            return
        if _function_results(function):
            raise VerifyException("cannot be used in functions returning value")


@irdl_op_definition
class ReturnValueOp(IRDLOperation):
    """
    Return a value from a function.

    Example: `spirv.ReturnValue %s : i32`
    """

    name = "spirv.ReturnValue"

    value = operand_def()

    traits = traits_def(IsTerminator(), ReturnLike())

    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation):
        super().__init__(operands=[value])

    def verify_(self) -> None:
        function = _enclosing_function(self)
        if function is None:
            if self.parent_op() is not None:
                raise VerifyException("op must appear in a function-like op's block")
            return
        results = _function_results(function)
        if len(results) != 1:
            raise VerifyException(
                f"op returns 1 value but enclosing function requires {len(results)} results"
            )
        if results[0] != self.value.type:
            raise VerifyException(
                f"return value's type ('{self.value.type}') mismatch with function's result "
                f"type ('{results[0]}')"
            )


@irdl_op_definition
class UnreachableOp(IRDLOperation):
    """
    Control never reaches this point.

    Example: `spirv.Unreachable`
    """

    name = "spirv.Unreachable"

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()
