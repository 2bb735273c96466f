"""
The `taichi` dialect: a Taichi kernel as the Python frontend emits it.

Structured and typed, close to Taichi's frontend IR:

    taichi.field @x : memref<1024xf32> offset 0
    taichi.kernel @scale(%a: f32) {
      %x = taichi.get_field @x : memref<1024xf32>
      %lo = arith.constant 0 : i32
      %hi = arith.constant 1024 : i32
      taichi.range_for %i = %lo to %hi {
        %p = taichi.element_ptr %x[%i] : memref<1024xf32> -> memref<f32>
        %v = memref.load %p[] : memref<f32>
        %w = arith.mulf %v, %a : f32
        memref.store %w, %p[] : memref<f32>
        taichi.yield
      }
      taichi.return
    }

Conventions:
- Scalars are builtin types (i1, i8..i64 signless, f16, f32, f64); the frontend picks the
  signed or unsigned arith op, as Taichi's type rules say.
- A place that holds one scalar (a local variable, a field or ndarray element, a global
  temporary) is a 0-d `memref<T>`, read and written with `memref.load` / `memref.store`.
  Locals are `memref.alloca`; global places come from `taichi.element_ptr`.
- A field is a module-level `taichi.field` symbol with a static shape; an ndarray is a
  kernel argument of dynamic shape (`memref<?x?xf32>`), its shape read with `memref.dim`.
- Loops and branches are structured ops whose bodies end in `taichi.yield`,
  `taichi.break` or `taichi.continue`; they carry no SSA values (locals live in slots).
  Only the outermost loops of a kernel run in parallel; `serialize` keeps one serial.
- arith and math ops compute inside kernels.
"""

from __future__ import annotations

import re
from abc import ABC
from collections.abc import Iterable, Sequence
from typing import ClassVar

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.symbols import lookup_symbol
from taichi_xdsl.utils.print_format import ASSERT_VALUES, INT_CONVERSIONS, PRINT_HOLE
from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    AnyFloatConstr,
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    SignlessIntegerConstraint,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    EqAttrConstraint,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_attr_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryAllocEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

IndexLike = base(IndexType) | SignlessIntegerConstraint
Scalar = AnyFloatConstr | SignlessIntegerConstraint


def _types(types: Iterable[Attribute]) -> str:
    return ", ".join(str(t) for t in types)


def _scalar_slot(op: Operation, value: SSAValue, what: str) -> MemRefType:
    """Check that `value` is a 0-d memref (one scalar place) and return its type."""
    memref_type = value.type
    if not isa(memref_type, MemRefType) or memref_type.get_num_dims() != 0:
        raise VerifyException(
            f"'{op.name}' expects {what} to be a 0-d memref, got {memref_type}"
        )
    return memref_type


def _verify_body_terminator(op: Operation, region: Region, region_name: str) -> None:
    block = region.block
    last = block.last_op
    if not isinstance(last, YieldOp | BreakOp | ContinueOp):
        raise VerifyException(
            f"'{op.name}' expects its {region_name} to end in taichi.yield, taichi.break "
            f"or taichi.continue, got {'nothing' if last is None else last.name}"
        )


# ---------------------------------------------------------------------------------------
# Kernels, fields and access
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class KernelOp(IRDLOperation):
    """
    A Taichi kernel (`@ti.kernel`): its arguments are the block arguments of the body.

    Scalars are passed by value, ndarrays as dynamic-shape memrefs. Fields are not
    arguments: the body names them with `taichi.get_field`.

    Example:
        taichi.kernel @add(%x: memref<?xf32>, %d: f32) -> f32 {
          ...
          taichi.return %s : f32
        }
    """

    name = "taichi.kernel"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    def __init__(
        self,
        name: str,
        function_type: FunctionType,
        body: Region,
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_type": function_type},
            attributes=attributes,
            regions=[body],
        )

    def verify_(self) -> None:
        arg_types = tuple(arg.type for arg in self.body.block.args)
        if arg_types != tuple(self.function_type.inputs.data):
            raise VerifyException(
                f"'{self.name}' @{self.sym_name.data} has arguments of types "
                f"({_types(arg_types)}) but its signature says {self.function_type}"
            )
        if not isinstance(self.body.block.last_op, ReturnOp):
            raise VerifyException(f"'{self.name}' body must end in taichi.return")

    def print(self, printer: Printer):
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=("sym_name", "function_type", "arg_attrs", "res_attrs"),
            print_empty_outputs=False,
        )

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        name, inputs, outputs, region, extra_attrs, arg_attrs, res_attrs = (
            parse_func_op_like(
                parser,
                reserved_attr_names=("sym_name", "function_type", "arg_attrs", "res_attrs"),
            )
        )
        if region is None:
            parser.raise_error("'taichi.kernel' needs a body")
        kernel = cls(
            name,
            FunctionType.from_lists(inputs, outputs),
            region,
            extra_attrs.data if extra_attrs is not None else None,
        )
        if arg_attrs is not None:
            kernel.arg_attrs = arg_attrs
        if res_attrs is not None:
            kernel.res_attrs = res_attrs
        return kernel


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """
    Return from a kernel: Taichi's kernel return values (`-> ti.f32`).

    Example: `taichi.return %s : f32`
    """

    name = "taichi.return"
    values = var_operand_def()
    assembly_format = "attr-dict ($values^ `:` type($values))?"
    traits = traits_def(IsTerminator(), HasParent(KernelOp))

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        kernel = self.parent_op()
        assert isinstance(kernel, KernelOp)
        expected = tuple(kernel.function_type.outputs.data)
        got = tuple(value.type for value in self.values)
        if expected != got:
            raise VerifyException(
                f"'{self.name}' returns ({_types(got)}) but @{kernel.sym_name.data} "
                f"declares ({_types(expected)})"
            )


@irdl_op_definition
class FieldOp(IRDLOperation):
    """
    A dense field placed in the root buffer (`ti.field(ti.f32, shape=(4, 8))`).

    `offset` is the byte offset of its first element in the root buffer; elements are
    stored row-major.

    Example: `taichi.field @x : memref<4x8xf32> offset 0`
    """

    name = "taichi.field"
    sym_name = prop_def(SymbolNameConstraint())
    type = prop_def(MemRefType)
    offset = prop_def(IntegerAttr[I64])
    assembly_format = "$sym_name `:` $type `offset` $offset attr-dict"
    traits = traits_def(SymbolOpInterface())

    def __init__(self, name: str, field_type: MemRefType, offset: int):
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "type": field_type,
                "offset": IntegerAttr(offset, i64),
            }
        )

    def verify_(self) -> None:
        if any(dim < 0 for dim in self.type.get_shape()):
            raise VerifyException(
                f"'{self.name}' @{self.sym_name.data} needs a static shape, got {self.type}"
            )
        if self.offset.value.data < 0:
            raise VerifyException(
                f"'{self.name}' @{self.sym_name.data} has a negative offset "
                f"{self.offset.value.data}"
            )


@irdl_op_definition
class GetFieldOp(IRDLOperation):
    """
    The field named by a symbol, as a value: what `x` means inside a kernel.

    Example: `%x = taichi.get_field @x : memref<4x8xf32>`
    """

    name = "taichi.get_field"
    field = prop_def(SymbolRefAttr)
    result = result_def(MemRefType)
    assembly_format = "$field attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, field: str, field_type: MemRefType):
        super().__init__(
            properties={"field": SymbolRefAttr(field)}, result_types=[field_type]
        )

    def verify_(self) -> None:
        declared = lookup_symbol(self, self.field)
        if declared is None:
            return  # a kernel verified on its own, without its module
        if not isinstance(declared, FieldOp):
            raise VerifyException(
                f"'{self.name}' expects @{self.field.root_reference.data} to be a "
                f"taichi.field, got {declared.name}"
            )
        if declared.type != self.result.type:
            raise VerifyException(
                f"'{self.name}' reads @{self.field.root_reference.data} as "
                f"{self.result.type}, but it is declared {declared.type}"
            )


@irdl_op_definition
class ElementPtrOp(IRDLOperation):
    """
    The place of one element of a field or ndarray: `x[i, j]` as an lvalue.

    Example:
        %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
        %v = memref.load %p[] : memref<f32>
    """

    name = "taichi.element_ptr"
    base = operand_def(MemRefType)
    indices = var_operand_def(i32)
    result = result_def(MemRefType)
    assembly_format = (
        "$base `[` $indices `]` attr-dict `:` type($base) `->` type($result)"
    )
    traits = traits_def(Pure())

    def __init__(self, base: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        base_type = SSAValue.get(base).type
        assert isa(base_type, MemRefType)
        super().__init__(
            operands=[base, indices],
            result_types=[MemRefType(base_type.element_type, [])],
        )

    def verify_(self) -> None:
        base_type = self.base.type
        assert isa(base_type, MemRefType)
        if len(self.indices) != base_type.get_num_dims():
            raise VerifyException(
                f"'{self.name}' indexes a {base_type.get_num_dims()}-d {base_type} "
                f"with {len(self.indices)} indices"
            )
        result_type = _scalar_slot(self, self.result, "its result")
        if result_type.element_type != base_type.element_type:
            raise VerifyException(
                f"'{self.name}' expects a memref<{base_type.element_type}> result, "
                f"got {result_type}"
            )


# ---------------------------------------------------------------------------------------
# Structured control flow
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class YieldOp(IRDLOperation):
    """
    The end of a loop iteration or of an `if` branch.

    Example: `taichi.yield`
    """

    name = "taichi.yield"
    assembly_format = "attr-dict"
    traits = traits_def(IsTerminator())


@irdl_op_definition
class BreakOp(IRDLOperation):
    """
    Leave the innermost enclosing `range_for` or `while` (Python's `break`).

    Example: `taichi.if %done { taichi.break } else { taichi.yield }`
    """

    name = "taichi.break"
    assembly_format = "attr-dict"
    traits = traits_def(IsTerminator())

    def verify_(self) -> None:
        _verify_in_serial_loop(self)


@irdl_op_definition
class ContinueOp(IRDLOperation):
    """
    Start the next iteration of the innermost enclosing loop (Python's `continue`).

    Example: `taichi.continue`
    """

    name = "taichi.continue"
    assembly_format = "attr-dict"
    traits = traits_def(IsTerminator())

    def verify_(self) -> None:
        if innermost_loop(self) is None:
            raise VerifyException(f"'{self.name}' must be inside a loop")


# After ti-offload, an outermost parallel loop is an offload task whose body holds the
# loop's ops; a `continue` there ends the task's iteration. Named, not imported: the
# offload dialect builds on this one.
_LOOP_TASKS = ("offload.range_for", "offload.struct_for")


def innermost_loop(op: Operation) -> Operation | None:
    """The loop a `break`/`continue` at `op` refers to (a loop op or a loop task)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        if isinstance(parent, RangeForOp | StructForOp | WhileOp):
            return parent
        if parent.name in _LOOP_TASKS:
            return parent
        parent = parent.parent_op()
    return None


def _verify_in_serial_loop(op: Operation) -> None:
    loop = innermost_loop(op)
    if loop is None:
        raise VerifyException(f"'{op.name}' must be inside a loop")
    if isinstance(loop, StructForOp):
        raise VerifyException(f"'{op.name}' cannot leave a taichi.struct_for")
    if loop.name in _LOOP_TASKS:
        raise VerifyException(f"'{op.name}' cannot leave a parallel {loop.name} task")


class _LoopOp(IRDLOperation, ABC):
    """Shared shape of the counted loops: one block whose arguments are the indices."""

    body = region_def("single_block")
    serialize = opt_prop_def(UnitAttr)
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        _verify_body_terminator(self, self.body, "body")


class RangeForOpHasCanonicalizationPatterns(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from taichi_xdsl.lowering.taichi_canonicalization import EraseEmptyRangeFor

        return (EraseEmptyRangeFor(),)


@irdl_op_definition
class RangeForOp(_LoopOp):
    """
    `for i in range(lo, hi)`: the loop index runs from `lo` up to `hi` (exclusive).

    An outermost range_for runs in parallel unless it has `serialize`
    (`ti.loop_config(serialize=True)`).

    Example:
        taichi.range_for %i = %lo to %hi : i32 {
          taichi.yield
        } {serialize}
    """

    name = "taichi.range_for"
    T: ClassVar = VarConstraint("T", IndexLike)
    lower = operand_def(T)
    upper = operand_def(T)
    traits = traits_def(RecursiveMemoryEffect(), RangeForOpHasCanonicalizationPatterns())

    def __init__(
        self,
        lower: SSAValue | Operation,
        upper: SSAValue | Operation,
        body: Region | Block,
        serialize: bool = False,
    ):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            operands=[lower, upper],
            regions=[body],
            properties={"serialize": UnitAttr()} if serialize else {},
        )

    @property
    def index(self) -> SSAValue:
        return self.body.block.args[0]

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != 1 or args[0].type != self.lower.type:
            raise VerifyException(
                f"'{self.name}' expects one body argument of type {self.lower.type}, "
                f"got ({_types(arg.type for arg in args)})"
            )
        super().verify_()

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.index)
        printer.print_string(" = ")
        printer.print_ssa_value(self.lower)
        printer.print_string(" to ")
        printer.print_ssa_value(self.upper)
        printer.print_string(" : ")
        printer.print_attribute(self.lower.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        _print_loop_properties(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> RangeForOp:
        index = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lower = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        upper = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        index_type = parser.parse_type()
        body = parser.parse_region((index.resolve(index_type),))
        op = cls(
            parser.resolve_operand(lower, index_type),
            parser.resolve_operand(upper, index_type),
            body,
        )
        _parse_loop_properties(parser, op)
        return op


def _print_loop_properties(printer: Printer, op: Operation) -> None:
    printer.print_op_attributes({**op.properties, **op.attributes})


def _parse_loop_properties(parser: Parser, op: Operation) -> None:
    attrs = parser.parse_optional_attr_dict()
    for name, value in attrs.items():
        if name in type(op).get_irdl_definition().properties:
            op.properties[name] = value
        else:
            op.attributes[name] = value


@irdl_op_definition
class StructForOp(_LoopOp):
    """
    `for i, j in x`: visit every element index of a field or ndarray.

    Example:
        taichi.struct_for (%i, %j) in %x : memref<4x8xf32> {
          taichi.yield
        }
    """

    name = "taichi.struct_for"
    container = operand_def(MemRefType)

    def __init__(self, container: SSAValue | Operation, body: Region | Block):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(operands=[container], regions=[body])

    @property
    def indices(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args)

    def verify_(self) -> None:
        container_type = self.container.type
        assert isa(container_type, MemRefType)
        args = self.body.block.args
        if len(args) != container_type.get_num_dims() or any(
            arg.type != i32 for arg in args
        ):
            raise VerifyException(
                f"'{self.name}' over a {container_type.get_num_dims()}-d container "
                f"expects that many i32 body arguments, got ({_types(a.type for a in args)})"
            )
        super().verify_()

    def print(self, printer: Printer):
        printer.print_string(" (")
        printer.print_list(self.body.block.args, printer.print_ssa_value)
        printer.print_string(") in ")
        printer.print_ssa_value(self.container)
        printer.print_string(" : ")
        printer.print_attribute(self.container.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        _print_loop_properties(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> StructForOp:
        indices = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        parser.parse_keyword("in")
        container = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        container_type = parser.parse_type()
        body = parser.parse_region(tuple(index.resolve(i32) for index in indices))
        op = cls(parser.resolve_operand(container, container_type), body)
        _parse_loop_properties(parser, op)
        return op


@irdl_op_definition
class WhileOp(IRDLOperation):
    """
    `while cond: body`: repeat the body until it runs `taichi.break`.

    The frontend evaluates the condition at the top of the body and breaks when it is
    false, as Taichi's frontend does.

    Example:
        taichi.while {
          %go = memref.load %flag[] : memref<i1>
          %stop = arith.xori %go, %true : i1
          taichi.if %stop {
            taichi.break
          }
          taichi.yield
        }
    """

    name = "taichi.while"
    body = region_def("single_block")
    assembly_format = "$body attr-dict"
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, body: Region | Block):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(regions=[body])

    def verify_(self) -> None:
        if self.body.block.args:
            raise VerifyException(f"'{self.name}' body takes no arguments")
        _verify_body_terminator(self, self.body, "body")


class IfOpHasCanonicalizationPatterns(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from taichi_xdsl.lowering.taichi_canonicalization import (
            EraseEmptyIf,
            InlineConstantIf,
        )

        return (InlineConstantIf(), EraseEmptyIf())


@irdl_op_definition
class IfOp(IRDLOperation):
    """
    `if c: ... else: ...`; the else region may be empty.

    Example:
        taichi.if %c {
          taichi.yield
        } else {
          taichi.yield
        }
    """

    name = "taichi.if"
    cond = operand_def(IntegerType(1))
    then_region = region_def("single_block")
    else_region = region_def()
    assembly_format = "$cond $then_region (`else` $else_region^)? attr-dict"
    traits = traits_def(RecursiveMemoryEffect(), IfOpHasCanonicalizationPatterns())

    def __init__(
        self,
        cond: SSAValue | Operation,
        then_region: Region | Block,
        else_region: Region | Block | None = None,
    ):
        regions = [
            Region(r) if isinstance(r, Block) else (r if r is not None else Region())
            for r in (then_region, else_region)
        ]
        super().__init__(operands=[cond], regions=regions)

    def verify_(self) -> None:
        _verify_body_terminator(self, self.then_region, "then region")
        if self.else_region.blocks:
            if len(self.else_region.blocks) != 1:
                raise VerifyException(f"'{self.name}' else region must have one block")
            _verify_body_terminator(self, self.else_region, "else region")


# ---------------------------------------------------------------------------------------
# Atomics
# ---------------------------------------------------------------------------------------


class AtomicOp(IRDLOperation, ABC):
    """Shared shape of `ti.atomic_*`: update a scalar place, return its old value."""

    T: ClassVar = VarConstraint("T", Scalar)
    dest = operand_def(MemRefType.constr(T))
    value = operand_def(T)
    old = result_def(T)
    assembly_format = "$dest `,` $value attr-dict `:` type($dest)"

    def __init__(self, dest: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(operands=[dest, value], result_types=[SSAValue.get(value).type])

    def verify_(self) -> None:
        dest_type = _scalar_slot(self, self.dest, "its destination")
        if dest_type.element_type != self.value.type:
            raise VerifyException(
                f"'{self.name}' stores a {self.value.type} into {dest_type}"
            )


class IntegerAtomicOp(AtomicOp, ABC):
    """Bitwise atomics: integers only."""

    T: ClassVar = VarConstraint("T", SignlessIntegerConstraint)
    dest = operand_def(MemRefType.constr(T))
    value = operand_def(T)
    old = result_def(T)


@irdl_op_definition
class AtomicAddOp(AtomicOp):
    """
    `ti.atomic_add(x[i], v)`, and `x[i] += v` in a parallel loop.

    Example: `%old = taichi.atomic_add %p, %v : memref<f32>`
    """

    name = "taichi.atomic_add"


@irdl_op_definition
class AtomicSubOp(AtomicOp):
    """
    `ti.atomic_sub(x[i], v)`, and `x[i] -= v` in a parallel loop.

    Example: `%old = taichi.atomic_sub %p, %v : memref<i32>`
    """

    name = "taichi.atomic_sub"


@irdl_op_definition
class AtomicMulOp(AtomicOp):
    """
    `ti.atomic_mul(x[i], v)`. No target has a native atomic multiply: the backends
    lower it to a compare-and-swap loop.

    Example: `%old = taichi.atomic_mul %p, %v : memref<f32>`
    """

    name = "taichi.atomic_mul"


class _SignedAtomicOp(AtomicOp, ABC):
    """min/max compare integers as signed unless marked `unsigned`."""

    unsigned = opt_prop_def(UnitAttr)
    assembly_format = "(`unsigned` $unsigned^)? $dest `,` $value attr-dict `:` type($dest)"


@irdl_op_definition
class AtomicMinOp(_SignedAtomicOp):
    """
    `ti.atomic_min(x[i], v)`, and `x[i] = ti.min(x[i], v)` reductions.

    Example: `%old = taichi.atomic_min %p, %v : memref<f32>`
    """

    name = "taichi.atomic_min"


@irdl_op_definition
class AtomicMaxOp(_SignedAtomicOp):
    """
    `ti.atomic_max(x[i], v)`.

    Example: `%old = taichi.atomic_max unsigned %p, %v : memref<i32>`
    """

    name = "taichi.atomic_max"


@irdl_op_definition
class AtomicAndOp(IntegerAtomicOp):
    """
    `ti.atomic_and(x[i], v)`, and `x[i] &= v` in a parallel loop.

    Example: `%old = taichi.atomic_and %p, %v : memref<i32>`
    """

    name = "taichi.atomic_and"


@irdl_op_definition
class AtomicOrOp(IntegerAtomicOp):
    """
    `ti.atomic_or(x[i], v)`, and `x[i] |= v` in a parallel loop.

    Example: `%old = taichi.atomic_or %p, %v : memref<i32>`
    """

    name = "taichi.atomic_or"


@irdl_op_definition
class AtomicXorOp(IntegerAtomicOp):
    """
    `ti.atomic_xor(x[i], v)`, and `x[i] ^= v` in a parallel loop.

    Example: `%old = taichi.atomic_xor %p, %v : memref<i32>`
    """

    name = "taichi.atomic_xor"


# ---------------------------------------------------------------------------------------
# The SNode tree
# ---------------------------------------------------------------------------------------

SNODE_KINDS = ("root", "dense", "pointer", "bitmasked", "dynamic")
SPARSE_SNODE_KINDS = ("pointer", "bitmasked", "dynamic")
SNODE_TREES = "taichi.snode_trees"
"""The module attribute (an array of `#taichi.snode<root ...>`) holding a program's
trees with sparse levels; passes read it (ti-lower-sparse), never the frontend's
Python objects."""


@irdl_attr_definition
class SNodeAttr(ParametrizedAttribute):
    """
    One level of an SNode tree and the levels below it, as data: its kind, its extents
    along its axes (Taichi's `ti.ij` is axes [0, 1]), a dynamic level's chunk size, the
    hidden field holding its cell words (a pointer's block words, a bitmasked mask, a
    dynamic level's lengths), the hidden field of a pointer/bitmasked level's cell list
    (the active cells a struct-for generates: taichi.list_*), the fields placed
    directly under it and its children.

    Models `ti.root.pointer(ti.ij, 4).dense(ti.ij, 2).place(x)`.

    Example:
        `#taichi.snode<root [] axes [] children [#taichi.snode<pointer [4, 4]
        axes [0, 1] mask @m cells @l children [#taichi.snode<dense [2, 2] axes [0, 1]
        places [@x]>]>]>`
    """

    name = "taichi.snode"

    kind: StringAttr
    extents: ArrayAttr[IntAttr]
    axes: ArrayAttr[IntAttr]
    chunk_size: IntAttr
    mask: ArrayAttr[SymbolRefAttr]
    places: ArrayAttr[SymbolRefAttr]
    children: ArrayAttr[Attribute]
    cells: ArrayAttr[SymbolRefAttr]

    def __init__(
        self,
        kind: str,
        extents: Sequence[int],
        axes: Sequence[int],
        *,
        chunk_size: int = 0,
        mask: str | None = None,
        places: Sequence[str] = (),
        children: Sequence[SNodeAttr] = (),
        cells: str | None = None,
    ):
        super().__init__(
            StringAttr(kind),
            ArrayAttr([IntAttr(e) for e in extents]),
            ArrayAttr([IntAttr(a) for a in axes]),
            IntAttr(chunk_size),
            ArrayAttr([SymbolRefAttr(mask)] if mask is not None else []),
            ArrayAttr([SymbolRefAttr(name) for name in places]),
            ArrayAttr(list(children)),
            ArrayAttr([SymbolRefAttr(cells)] if cells is not None else []),
        )

    @property
    def mask_symbol(self) -> str | None:
        return self.mask.data[0].root_reference.data if self.mask.data else None

    @property
    def cells_symbol(self) -> str | None:
        return self.cells.data[0].root_reference.data if self.cells.data else None

    def walk(self) -> Iterable[SNodeAttr]:
        """This level and every level below it, parents first."""
        yield self
        for child in self.children.data:
            assert isinstance(child, SNodeAttr)
            yield from child.walk()

    def verify(self) -> None:
        kind = self.kind.data
        what = f"#taichi.snode<{kind}>"
        if kind not in SNODE_KINDS:
            raise VerifyException(f"an SNode is one of {', '.join(SNODE_KINDS)}, got '{kind}'")
        extents = [e.data for e in self.extents.data]
        axes = [a.data for a in self.axes.data]
        if len(extents) != len(axes):
            raise VerifyException(f"{what} has {len(extents)} extents for {len(axes)} axes")
        if any(e <= 0 for e in extents) or any(a < 0 for a in axes) or len(set(axes)) != len(axes):
            raise VerifyException(f"{what} expects positive extents on distinct axes, got {extents} on {axes}")
        if (kind == "root") != (not axes):
            raise VerifyException(f"{what}: only the root has no axes")
        chunk = self.chunk_size.data
        if kind == "dynamic":
            if len(axes) != 1 or not 0 < chunk <= extents[0]:
                raise VerifyException(f"{what} expects one axis and a chunk size in 1..{extents}, got {chunk}")
        elif chunk:
            raise VerifyException(f"{what} has a chunk size, which only dynamic SNodes have")
        if (kind in SPARSE_SNODE_KINDS) != bool(self.mask.data):
            raise VerifyException(f"{what}: pointer, bitmasked and dynamic SNodes (only) have a mask field")
        if self.cells.data and kind not in ("pointer", "bitmasked"):
            raise VerifyException(f"{what}: only pointer and bitmasked SNodes have a cell list")
        for child in self.children.data:
            if not isinstance(child, SNodeAttr) or child.kind.data == "root":
                raise VerifyException(f"{what} expects #taichi.snode children below the root, got {child}")
            if kind == "dynamic":
                raise VerifyException(f"{what}: a dynamic SNode only has fields placed under it")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def ints() -> list[int]:
            return parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
            )

        def symbols() -> list[SymbolRefAttr]:
            return parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: SymbolRefAttr(parser.parse_symbol_name())
            )

        with parser.in_angle_brackets():
            kind = parser.parse_identifier()
            extents = ints()
            parser.parse_keyword("axes")
            axes = ints()
            chunk = parser.parse_integer() if parser.parse_optional_keyword("chunk") else 0
            mask = [SymbolRefAttr(parser.parse_symbol_name())] if parser.parse_optional_keyword("mask") else []
            cells = [SymbolRefAttr(parser.parse_symbol_name())] if parser.parse_optional_keyword("cells") else []
            places = symbols() if parser.parse_optional_keyword("places") else []
            children = (
                parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_attribute)
                if parser.parse_optional_keyword("children")
                else []
            )
        return (
            StringAttr(kind),
            ArrayAttr([IntAttr(e) for e in extents]),
            ArrayAttr([IntAttr(a) for a in axes]),
            IntAttr(chunk),
            ArrayAttr(mask),
            ArrayAttr(places),
            ArrayAttr(children),
            ArrayAttr(cells),
        )

    def print_parameters(self, printer: Printer) -> None:
        def ints(values: ArrayAttr[IntAttr]) -> str:
            return "[" + ", ".join(str(v.data) for v in values.data) + "]"

        printer.print_string(f"<{self.kind.data} {ints(self.extents)} axes {ints(self.axes)}")
        if self.chunk_size.data:
            printer.print_string(f" chunk {self.chunk_size.data}")
        if self.mask.data:
            printer.print_string(" mask ")
            printer.print_attribute(self.mask.data[0])
        if self.cells.data:
            printer.print_string(" cells ")
            printer.print_attribute(self.cells.data[0])
        if self.places.data:
            printer.print_string(" places [")
            printer.print_list(self.places.data, printer.print_attribute)
            printer.print_string("]")
        if self.children.data:
            printer.print_string(" children [")
            printer.print_list(self.children.data, printer.print_attribute)
            printer.print_string("]")
        printer.print_string(">")


# ---------------------------------------------------------------------------------------
# Sparse SNodes: the activity of a cell
# ---------------------------------------------------------------------------------------
#
# A pointer or bitmasked SNode keeps one i32 word per cell in a hidden field (its *mask*:
# 0 free, 1 active, 2 released: deactivated, storage not yet zeroed); a dynamic SNode one
# i32 length per list. These ops name what a kernel does to a cell; ti-lower-sparse
# turns them into loads, stores and atomics on the words (frontends/python/lang/snode.py
# describes the layout).


class _CellOp(IRDLOperation, ABC):
    """Shared shape: a cell `%mask[%i, ...]` of a mask or length field."""

    mask = operand_def(MemRefType.constr(i32))
    indices = var_operand_def(i32)

    def verify_(self) -> None:
        mask_type = self.mask.type
        assert isa(mask_type, MemRefType)
        if len(self.indices) != mask_type.get_num_dims():
            raise VerifyException(
                f"'{self.name}' names a cell of a {mask_type.get_num_dims()}-d "
                f"{mask_type} with {len(self.indices)} indices"
            )


@irdl_op_definition
class ActivateOp(_CellOp):
    """
    `ti.activate(snode, I)`, and what a write under a pointer/bitmasked SNode does to
    the cells above the element: the cell becomes active.

    Example: `taichi.activate %mask[%i, %j] : memref<4x4xi32>`
    """

    name = "taichi.activate"
    assembly_format = "$mask `[` $indices `]` attr-dict `:` type($mask)"
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, mask: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        super().__init__(operands=[mask, indices])


@irdl_op_definition
class DeactivateOp(_CellOp):
    """
    `ti.deactivate(snode, I)` on a bitmasked SNode (the cell's data stays, as in
    Taichi) or a dynamic one (the length becomes 0). A pointer cell is deactivated by
    an atomic on its block word and `taichi.pool_release` (codegen/sparse.py).

    Example: `taichi.deactivate %mask[%i] : memref<4xi32>`
    """

    name = "taichi.deactivate"
    assembly_format = "$mask `[` $indices `]` attr-dict `:` type($mask)"
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, mask: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        super().__init__(operands=[mask, indices])


@irdl_op_definition
class IsActiveOp(_CellOp):
    """
    `ti.is_active(snode, I)` (and the test of a struct-for over a sparse SNode).

    Example: `%on = taichi.is_active %mask[%i] : memref<4xi32>`
    """

    name = "taichi.is_active"
    result = result_def(IntegerType(1))
    assembly_format = "$mask `[` $indices `]` attr-dict `:` type($mask)"
    traits = traits_def(MemoryReadEffect())

    def __init__(self, mask: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        super().__init__(operands=[mask, indices], result_types=[IntegerType(1)])


class _ListOp(_CellOp, ABC):
    """A dynamic SNode's list `%lengths[%i, ...]`, which holds up to `capacity` cells."""

    capacity = prop_def(IntegerAttr[I64])
    result = result_def(i32)
    assembly_format = (
        "$mask `[` $indices `]` `capacity` $capacity attr-dict `:` type($mask)"
    )

    def __init__(
        self,
        lengths: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        capacity: int,
    ):
        super().__init__(
            operands=[lengths, indices],
            properties={"capacity": IntegerAttr(capacity, i64)},
            result_types=[i32],
        )

    def verify_(self) -> None:
        super().verify_()
        if self.capacity.value.data <= 0:
            raise VerifyException(
                f"'{self.name}' expects a positive capacity, got {self.capacity.value.data}"
            )


@irdl_op_definition
class AppendOp(_ListOp):
    """
    Claim the next cell of a dynamic list (atomically); the result is the old length
    (`ti.append`'s value). The caller stores the value there when it is below the
    capacity; the length counts every claim.

    Example: `%old = taichi.append %len[%i] capacity 8 : memref<4xi32>`
    """

    name = "taichi.append"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class LengthOp(_ListOp):
    """
    `ti.length(snode, I)`: the number of cells of a dynamic list (at most `capacity`).

    Example: `%n = taichi.length %len[%i] capacity 8 : memref<4xi32>`
    """

    name = "taichi.length"
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class AtomicCasOp(IRDLOperation):
    """
    Compare-and-swap: store `new` into the i32 or i64 place when it holds `expected`;
    the result is the value it held before (the swap happened when that equals
    `expected`). A pointer SNode's activation uses it: of several invocations that
    allocate a block for the same empty cell, one wins. A write of a quantized field
    (codegen/quant.py) swaps the word its bits share with other fields.

    Example: `%old = taichi.atomic_cas %p, %expected, %new : memref<i32>`
    """

    name = "taichi.atomic_cas"
    T: ClassVar = VarConstraint("T", EqAttrConstraint(i32) | EqAttrConstraint(i64))
    dest = operand_def(MemRefType.constr(T))
    expected = operand_def(T)
    new = operand_def(T)
    old = result_def(T)
    assembly_format = "$dest `,` $expected `,` $new attr-dict `:` type($dest)"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, dest: SSAValue | Operation, expected: SSAValue | Operation, new: SSAValue | Operation):
        super().__init__(operands=[dest, expected, new], result_types=[SSAValue.get(new).type])

    def verify_(self) -> None:
        _scalar_slot(self, self.dest, "its destination")


class _PoolOp(IRDLOperation, ABC):
    """Shared shape: a pointer SNode's pool, `%state` (memref<4xi32>: allocated,
    free_top, released, exhausted) and one of its block lists (memref<Nxi32>)."""

    state = operand_def(MemRefType.constr(i32))
    blocks = operand_def(MemRefType.constr(i32))

    def verify_(self) -> None:
        state = self.state.type
        blocks = self.blocks.type
        assert isa(state, MemRefType) and isa(blocks, MemRefType)
        if state.get_shape() != (4,):
            raise VerifyException(f"'{self.name}' expects a memref<4xi32> pool state, got {state}")
        if blocks.get_num_dims() != 1:
            raise VerifyException(f"'{self.name}' expects a 1-d block list, got {blocks}")


@irdl_op_definition
class PoolAllocOp(_PoolOp):
    """
    A zeroed block of a pointer SNode's pool: popped from the free list `%free`
    (its capacity is the pool's), else the next never-used block (2 + allocated);
    an exhausted pool gives the sink block 1 and sets the exhausted word, which the
    host reports.

    Example: `%b = taichi.pool_alloc %state, %free : memref<4xi32>, memref<64xi32>`
    """

    name = "taichi.pool_alloc"
    block = result_def(i32)
    assembly_format = "$state `,` $blocks attr-dict `:` type($state) `,` type($blocks)"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, state: SSAValue | Operation, free: SSAValue | Operation):
        super().__init__(operands=[state, free], result_types=[i32])


@irdl_op_definition
class PoolReleaseOp(_PoolOp):
    """
    Give a block no cell refers to any more back to its pool: it goes on the release
    list `%release`, which the gc loop after the statement zeroes and frees.

    Example: `taichi.pool_release %state, %release, %b : memref<4xi32>, memref<64xi32>`
    """

    name = "taichi.pool_release"
    state = operand_def(MemRefType.constr(i32))
    blocks = operand_def(MemRefType.constr(i32))
    block = operand_def(i32)
    assembly_format = (
        "$state `,` $blocks `,` $block attr-dict `:` type($state) `,` type($blocks)"
    )
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, state: SSAValue | Operation, release: SSAValue | Operation, block: SSAValue | Operation):
        super().__init__(operands=[state, release, block])


# A cell list: the active cells of one sparse level, as a struct-for over a sparse SNode
# generates them (Taichi's list generation, taichi/transforms/offload.cpp's listgen
# tasks). A list is an i32 field `%list` of 1 + (the level's cell count) words: word 0
# counts the entries, word 1 + k holds entry k (a cell index, flattened over the level's
# cell space). ti-lower-sparse turns these ops into loads, stores and atomics.


class _CellListOp(IRDLOperation, ABC):
    """Shared shape: a cell list `%list` (memref<Nxi32>, N >= 1)."""

    cell_list = operand_def(MemRefType.constr(i32))

    def verify_(self) -> None:
        list_type = self.cell_list.type
        assert isa(list_type, MemRefType)
        shape = list_type.get_shape()
        if len(shape) != 1 or shape[0] < 1:
            raise VerifyException(
                f"'{self.name}' expects a cell list memref<Nxi32> with N >= 1, got {list_type}"
            )


@irdl_op_definition
class ListClearOp(_CellListOp):
    """
    Empty a cell list (before a list generation fills it).

    Example: `taichi.list_clear %list : memref<17xi32>`
    """

    name = "taichi.list_clear"
    assembly_format = "$cell_list attr-dict `:` type($cell_list)"
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, cell_list: SSAValue | Operation):
        super().__init__(operands=[cell_list])


@irdl_op_definition
class ListAppendOp(_CellListOp):
    """
    Append `cell` to a cell list; parallel appends claim distinct entries (atomically),
    in no particular order.

    Example: `taichi.list_append %list, %cell : memref<17xi32>`
    """

    name = "taichi.list_append"
    cell_list = operand_def(MemRefType.constr(i32))
    cell = operand_def(i32)
    assembly_format = "$cell_list `,` $cell attr-dict `:` type($cell_list)"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, cell_list: SSAValue | Operation, cell: SSAValue | Operation):
        super().__init__(operands=[cell_list, cell])


@irdl_op_definition
class ListLengthOp(_CellListOp):
    """
    The number of entries of a cell list.

    Example: `%n = taichi.list_length %list : memref<17xi32>`
    """

    name = "taichi.list_length"
    result = result_def(i32)
    assembly_format = "$cell_list attr-dict `:` type($cell_list)"
    traits = traits_def(MemoryReadEffect())

    def __init__(self, cell_list: SSAValue | Operation):
        super().__init__(operands=[cell_list], result_types=[i32])


@irdl_op_definition
class ListGetOp(_CellListOp):
    """
    Entry `index` of a cell list (0 <= index < its length): a flattened cell index.

    Example: `%cell = taichi.list_get %list[%k] : memref<17xi32>`
    """

    name = "taichi.list_get"
    cell_list = operand_def(MemRefType.constr(i32))
    index = operand_def(i32)
    result = result_def(i32)
    assembly_format = "$cell_list `[` $index `]` attr-dict `:` type($cell_list)"
    traits = traits_def(MemoryReadEffect())

    def __init__(self, cell_list: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(operands=[cell_list, index], result_types=[i32])


LIST_OPS = (ListClearOp, ListAppendOp, ListLengthOp, ListGetOp)


# ---------------------------------------------------------------------------------------
# Print and assert
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class PrintOp(IRDLOperation):
    """
    `print(...)` in a kernel: `format` holds the text with one hole per value, `{}`
    (the value's default rendering) or `{:SPEC}` with a printf conversion spec (no `%`,
    no length modifier: the backends add what the value's width needs). `end` is what
    follows the text, a newline unless given (`print(..., end="")`).

    Example: `taichi.print "i = {}, x = {:.2f}" %i, %v : i32, f32`
             `taichi.print "{:08x}" %i : i32 {end = ""}`
    """

    name = "taichi.print"
    format = prop_def(StringAttr)
    end = opt_prop_def(StringAttr)
    values = var_operand_def(Scalar)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$format ($values^ `:` type($values))? attr-dict"

    def __init__(
        self,
        format: str,
        values: Sequence[SSAValue | Operation] = (),
        end: str | None = None,
    ):
        properties: dict[str, Attribute] = {"format": StringAttr(format)}
        if end is not None and end != "\n":
            properties["end"] = StringAttr(end)
        super().__init__(properties=properties, operands=[values])

    @property
    def end_text(self) -> str:
        """What follows the formatted text (a newline by default)."""
        return "\n" if self.end is None else self.end.data

    def verify_(self) -> None:
        holes = PRINT_HOLE.findall(self.format.data)
        if len(holes) != len(self.values):
            raise VerifyException(
                f"'{self.name}' format has {len(holes)} '{{}}' for {len(self.values)} values"
            )
        for (_, conversion), value in zip(holes, self.values):
            if not conversion:
                continue
            is_int = isinstance(value.type, IntegerType)
            if is_int != (conversion in INT_CONVERSIONS):
                raise VerifyException(
                    f"'{self.name}' conversion '{conversion}' does not fit a {value.type}"
                )


@irdl_op_definition
class AssertOp(IRDLOperation):
    """
    `assert cond, "message"` in a kernel, checked when `ti.init(debug=True)`; an
    `always` assert is checked in every mode (a run-time error the compiler itself
    guards against, such as an adstack overflow).

    A message with `values` is a format with one hole per value, as taichi.print's
    (`{}` or `{:SPEC}`), rendered by the host when the assert fails; the values are
    i32 or f32, at most ASSERT_VALUES of them (the error record's free words).

    Example: `taichi.assert %ok, "x must be positive"`,
    `taichi.assert %fits, "adstack overflow" always`,
    `taichi.assert %ok, "x[{}] = {:.2f}"(%i, %x : i32, f32)`
    """

    name = "taichi.assert"
    cond = operand_def(IntegerType(1))
    values = var_operand_def(Scalar)
    message = prop_def(StringAttr)
    always = opt_prop_def(UnitAttr)
    assembly_format = (
        "$cond `,` $message (`(` $values^ `:` type($values) `)`)? (`always` $always^)? attr-dict"
    )

    def __init__(
        self,
        cond: SSAValue | Operation,
        message: str,
        always: bool = False,
        values: Sequence[SSAValue | Operation] = (),
    ):
        properties: dict[str, Attribute] = {"message": StringAttr(message)}
        if always:
            properties["always"] = UnitAttr()
        super().__init__(operands=[cond, values], properties=properties)

    def verify_(self) -> None:
        if not self.values:
            return
        if len(self.values) > ASSERT_VALUES:
            raise VerifyException(
                f"'{self.name}' formats at most {ASSERT_VALUES} values, got {len(self.values)}"
            )
        holes = PRINT_HOLE.findall(self.message.data)
        if len(holes) != len(self.values):
            raise VerifyException(
                f"'{self.name}' message has {len(holes)} '{{}}' for {len(self.values)} values"
            )
        for (_, conversion), value in zip(holes, self.values):
            if value.type not in (i32, f32):
                raise VerifyException(f"'{self.name}' formats i32 and f32 values, got {value.type}")
            if conversion and isinstance(value.type, IntegerType) != (conversion in INT_CONVERSIONS):
                raise VerifyException(
                    f"'{self.name}' conversion '{conversion}' does not fit a {value.type}"
                )

# ---------------------------------------------------------------------------------------
# Subgroups and workgroups (ti.simt)
# ---------------------------------------------------------------------------------------
#
# A subgroup is the set of invocations a GPU runs in lockstep (a Vulkan subgroup); the
# ops combine the values of its *active* invocations. On CPU threads every invocation is
# a subgroup (and a workgroup) of one: ti-serial-simt gives each op that meaning.

SUBGROUP_REDUCTIONS = ("add", "mul", "min", "max", "and", "or", "xor")
SUBGROUP_SCANS = ("reduce", "inclusive", "exclusive")
SUBGROUP_SHUFFLES = ("index", "xor", "up", "down", "broadcast")
SUBGROUP_VOTES = ("all", "any", "all_equal")
SIMT_IDS = ("elect", "invocation_id", "group_size", "thread_idx", "global_thread_idx")
BARRIER_SCOPES = ("subgroup", "workgroup", "device")


def _check_choice(op: Operation, what: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise VerifyException(
            f"'{op.name}' {what} must be one of {', '.join(choices)}, got '{value}'"
        )


def _parse_keyword(parser: Parser, what: str) -> StringAttr:
    return StringAttr(parser.parse_identifier(f"Expected {what}"))


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """
    `ti.simt.subgroup.{reduce,inclusive,exclusive}_{add,mul,min,max,and,or,xor}(v)`: the
    combination of `v` over the subgroup's active invocations (`reduce`), over those up to
    and including this one (`inclusive`), or before it (`exclusive`; the identity in the
    first). min/max compare integers as signed unless marked `unsigned`.

    Example: `%s = taichi.subgroup_reduce add inclusive %v : f32`
    """

    name = "taichi.subgroup_reduce"
    T: ClassVar = VarConstraint("T", Scalar)
    value = operand_def(T)
    result = result_def(T)
    kind = prop_def(StringAttr)
    mode = prop_def(StringAttr)
    unsigned = opt_prop_def(UnitAttr)

    def __init__(
        self, kind: str, mode: str, value: SSAValue | Operation, unsigned: bool = False
    ):
        super().__init__(
            operands=[value],
            result_types=[SSAValue.get(value).type],
            properties={
                "kind": StringAttr(kind),
                "mode": StringAttr(mode),
                "unsigned": UnitAttr() if unsigned else None,
            },
        )

    def verify_(self) -> None:
        _check_choice(self, "kind", self.kind.data, SUBGROUP_REDUCTIONS)
        _check_choice(self, "mode", self.mode.data, SUBGROUP_SCANS)
        if self.kind.data in ("and", "or", "xor") and not isinstance(
            self.value.type, IntegerType
        ):
            raise VerifyException(
                f"'{self.name}' {self.kind.data} combines integers, got {self.value.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} {self.mode.data} ")
        if self.unsigned is not None:
            printer.print_string("unsigned ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupReduceOp:
        kind = _parse_keyword(parser, "a reduction kind")
        mode = _parse_keyword(parser, "reduce, inclusive or exclusive")
        unsigned = parser.parse_optional_keyword("unsigned") is not None
        value = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        op = cls(kind.data, mode.data, parser.resolve_operand(value, type_), unsigned)
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class SubgroupShuffleOp(IRDLOperation):
    """
    `ti.simt.subgroup.shuffle(v, i)` and its kin: `v` as the invocation chosen by `kind`
    holds it: `index` (invocation `i`), `xor` (this invocation's id xor `i`), `up` (id -
    `i`), `down` (id + `i`), `broadcast` (invocation `i`, the same `i` in every
    invocation). Undefined where that invocation is inactive or out of the subgroup.

    Example: `%r = taichi.subgroup_shuffle down %v, %i : f32`
    """

    name = "taichi.subgroup_shuffle"
    T: ClassVar = VarConstraint("T", Scalar)
    value = operand_def(T)
    index = operand_def(i32)
    result = result_def(T)
    kind = prop_def(StringAttr)

    def __init__(self, kind: str, value: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(
            operands=[value, index],
            result_types=[SSAValue.get(value).type],
            properties={"kind": StringAttr(kind)},
        )

    def verify_(self) -> None:
        _check_choice(self, "kind", self.kind.data, SUBGROUP_SHUFFLES)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.index)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupShuffleOp:
        kind = _parse_keyword(parser, "a shuffle kind")
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        index = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        op = cls(
            kind.data,
            parser.resolve_operand(value, type_),
            parser.resolve_operand(index, i32),
        )
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class SubgroupBroadcastFirstOp(IRDLOperation):
    """
    `ti.simt.subgroup.broadcast_first(v)`: `v` of the subgroup's lowest active invocation.

    Example: `%r = taichi.subgroup_broadcast_first %v : i32`
    """

    name = "taichi.subgroup_broadcast_first"
    T: ClassVar = VarConstraint("T", Scalar)
    value = operand_def(T)
    result = result_def(T)
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation):
        super().__init__(operands=[value], result_types=[SSAValue.get(value).type])


@irdl_op_definition
class SubgroupVoteOp(IRDLOperation):
    """
    `ti.simt.subgroup.{all_true,any_true,all_equal}(v)`: 1 if `v` is non-zero in every
    (`all`) or some (`any`) active invocation, or the same in all (`all_equal`); else 0.

    Example: `%r = taichi.subgroup_vote any %c : i32`
    """

    name = "taichi.subgroup_vote"
    value = operand_def(Scalar)
    result = result_def(i32)
    kind = prop_def(StringAttr)

    def __init__(self, kind: str, value: SSAValue | Operation):
        super().__init__(
            operands=[value], result_types=[i32], properties={"kind": StringAttr(kind)}
        )

    def verify_(self) -> None:
        _check_choice(self, "kind", self.kind.data, SUBGROUP_VOTES)
        if self.kind.data != "all_equal" and not isinstance(self.value.type, IntegerType):
            raise VerifyException(
                f"'{self.name}' {self.kind.data} tests an integer, got {self.value.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupVoteOp:
        kind = _parse_keyword(parser, "all, any or all_equal")
        value = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        op = cls(kind.data, parser.resolve_operand(value, type_))
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class SimtIdOp(IRDLOperation):
    """
    Where this invocation is: `elect` (1 in the subgroup's lowest active invocation, else
    0), `invocation_id` and `group_size` (within the subgroup), `thread_idx` (within the
    workgroup) and `global_thread_idx` (within the dispatch).

    Example: `%id = taichi.simt_id invocation_id : i32`
    """

    name = "taichi.simt_id"
    result = result_def(i32)
    kind = prop_def(StringAttr)

    def __init__(self, kind: str):
        super().__init__(result_types=[i32], properties={"kind": StringAttr(kind)})

    def verify_(self) -> None:
        _check_choice(self, "kind", self.kind.data, SIMT_IDS)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : i32")

    @classmethod
    def parse(cls, parser: Parser) -> SimtIdOp:
        kind = _parse_keyword(parser, "which id")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_type()
        op = cls(kind.data)
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """
    Wait until every invocation of the scope gets here, then make their memory writes
    visible to each other (`ti.simt.block.sync()`: workgroup, `subgroup.barrier()`:
    subgroup). With `memory_only`, only order this invocation's accesses
    (`block.mem_sync()`, `subgroup.memory_barrier()`, `grid.memfence()`: device).

    Example: `taichi.barrier workgroup` / `taichi.barrier device memory_only`
    """

    name = "taichi.barrier"
    scope = prop_def(StringAttr)
    memory_only = opt_prop_def(UnitAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, scope: str, memory_only: bool = False):
        super().__init__(
            properties={
                "scope": StringAttr(scope),
                "memory_only": UnitAttr() if memory_only else None,
            }
        )

    def verify_(self) -> None:
        _check_choice(self, "scope", self.scope.data, BARRIER_SCOPES)
        if self.scope.data == "device" and self.memory_only is None:
            raise VerifyException(
                f"'{self.name}' cannot wait for the whole device: only memory_only"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.scope.data}")
        if self.memory_only is not None:
            printer.print_string(" memory_only")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        scope = _parse_keyword(parser, "subgroup, workgroup or device")
        memory_only = parser.parse_optional_keyword("memory_only") is not None
        op = cls(scope.data, memory_only)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


@irdl_op_definition
class SharedArrayOp(IRDLOperation):
    """
    `ti.simt.block.SharedArray(shape, dtype)`: an array in the workgroup's shared memory,
    one per workgroup, which every invocation of the workgroup reads and writes (after
    `taichi.barrier workgroup`, each sees the others' writes). `id` tells the arrays of a
    kernel apart.

    Example: `%s = taichi.shared_array 0 : memref<128xf32>`
    """

    name = "taichi.shared_array"
    result = result_def(MemRefType)
    id = prop_def(IntegerAttr)

    def __init__(self, id: int, type_: MemRefType):
        super().__init__(result_types=[type_], properties={"id": IntegerAttr(id, i64)})

    def verify_(self) -> None:
        type_ = self.result.type
        assert isinstance(type_, MemRefType)
        if not type_.get_shape() or any(d <= 0 for d in type_.get_shape()):
            raise VerifyException(
                f"'{self.name}' needs a static shape of positive extents, got {type_}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.id.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> SharedArrayOp:
        id = parser.parse_integer()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        if not isinstance(type_, MemRefType):
            parser.raise_error(f"'taichi.shared_array' makes a memref, got {type_}")
        op = cls(id, type_)
        op.attributes.update(attributes)
        return op


SIMT_OPS = (
    SharedArrayOp,
    SubgroupReduceOp,
    SubgroupShuffleOp,
    SubgroupBroadcastFirstOp,
    SubgroupVoteOp,
    SimtIdOp,
    BarrierOp,
)


# ---------------------------------------------------------------------------------------
# Textures
# ---------------------------------------------------------------------------------------

TEXTURE_ACCESS = ("sampled", "rw")


@irdl_attr_definition
class TextureType(ParametrizedAttribute, TypeAttribute):
    """
    A texture kernel argument: `ti.types.texture(num_dimensions=2)` is
    `!taichi.texture<2, sampled>` (read with fetch / sample_lod, any format), and
    `ti.types.rw_texture(num_dimensions=2, fmt=ti.Format.rgba8)` is
    `!taichi.texture<2, rw, rgba8>` (load / store; the format is part of the type, as
    a storage image's format is part of its SPIR-V type). Texels are read and written
    as four f32 channels.

    Example: `taichi.kernel @k(%t: !taichi.texture<2, rw, r32f>) { ... }`
    """

    name = "taichi.texture"

    num_dimensions: IntAttr
    access: StringAttr
    format: StringAttr
    """Taichi's ti.Format name (`rgba8`, `r32f`, ...); empty for a sampled texture."""

    def __init__(self, num_dimensions: int, access: str = "sampled", format: str = ""):
        super().__init__(IntAttr(num_dimensions), StringAttr(access), StringAttr(format))

    @property
    def ndim(self) -> int:
        return self.num_dimensions.data

    @property
    def is_rw(self) -> bool:
        return self.access.data == "rw"

    def verify(self) -> None:
        if self.ndim not in (1, 2, 3):
            raise VerifyException(f"textures have 1, 2 or 3 dimensions, got {self.ndim}")
        if self.access.data not in TEXTURE_ACCESS:
            raise VerifyException(
                f"texture access must be 'sampled' or 'rw', got '{self.access.data}'"
            )
        if self.is_rw != bool(self.format.data):
            raise VerifyException("an rw texture names its format; a sampled one does not")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            ndim = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(",")
            access = parser.parse_identifier(" (sampled or rw)")
            fmt = ""
            if parser.parse_optional_punctuation(",") is not None:
                fmt = parser.parse_identifier(" (texel format)")
        return (IntAttr(ndim), StringAttr(access), StringAttr(fmt))

    def print_parameters(self, printer: Printer) -> None:
        fmt = f", {self.format.data}" if self.format.data else ""
        printer.print_string(f"<{self.ndim}, {self.access.data}{fmt}>")


def _verify_texture_access(
    op: Operation, texture: SSAValue, coords: Sequence[SSAValue], rw: bool
) -> None:
    t = texture.type
    assert isinstance(t, TextureType)
    if t.is_rw != rw:
        want = "an rw" if rw else "a sampled"
        raise VerifyException(f"'{op.name}' expects {want} texture, got {t}")
    if len(coords) != t.ndim:
        raise VerifyException(
            f"'{op.name}' indexes a {t.ndim}-d texture with {len(coords)} coordinates"
        )


class _TexelReadOp(IRDLOperation, ABC):
    """Shared shape of the reads: coordinates in, four f32 channels (r, g, b, a) out."""

    r = result_def(f32)
    g = result_def(f32)
    b = result_def(f32)
    a = result_def(f32)
    traits = traits_def(MemoryReadEffect())

    @property
    def channels(self) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
        return (self.r, self.g, self.b, self.a)


@irdl_op_definition
class TextureFetchOp(_TexelReadOp):
    """
    `tex.fetch(ti.Vector([i, j]), lod)`: the texel at integer coordinates of mip level
    `lod` of a sampled texture (no filtering).

    Example:
        %r, %g, %b, %a = taichi.texture_fetch %t[%i, %j] lod %l : !taichi.texture<2, sampled>
    """

    name = "taichi.texture_fetch"
    texture = operand_def(TextureType)
    coords = var_operand_def(i32)
    lod = operand_def(i32)
    assembly_format = "$texture `[` $coords `]` `lod` $lod attr-dict `:` type($texture)"

    def __init__(
        self,
        texture: SSAValue | Operation,
        coords: Sequence[SSAValue | Operation],
        lod: SSAValue | Operation,
    ):
        super().__init__(operands=[texture, coords, lod], result_types=[f32] * 4)

    def verify_(self) -> None:
        _verify_texture_access(self, self.texture, self.coords, rw=False)


@irdl_op_definition
class TextureSampleLodOp(_TexelReadOp):
    """
    `tex.sample_lod(uv, lod)`: the filtered (bilinear) value at normalized coordinates
    `uv` in [0, 1] of mip level `lod` of a sampled texture.

    Example:
        %r, %g, %b, %a = taichi.texture_sample_lod %t[%u, %v] lod %l : !taichi.texture<2, sampled>
    """

    name = "taichi.texture_sample_lod"
    texture = operand_def(TextureType)
    coords = var_operand_def(f32)
    lod = operand_def(f32)
    assembly_format = "$texture `[` $coords `]` `lod` $lod attr-dict `:` type($texture)"

    def __init__(
        self,
        texture: SSAValue | Operation,
        coords: Sequence[SSAValue | Operation],
        lod: SSAValue | Operation,
    ):
        super().__init__(operands=[texture, coords, lod], result_types=[f32] * 4)

    def verify_(self) -> None:
        _verify_texture_access(self, self.texture, self.coords, rw=False)


@irdl_op_definition
class TextureLoadOp(_TexelReadOp):
    """
    `rw.load(ti.Vector([i, j]))`: the texel at integer coordinates of an rw texture,
    converted from its format to four f32 (missing channels read 0, alpha 1).

    Example:
        %r, %g, %b, %a = taichi.texture_load %t[%i, %j] : !taichi.texture<2, rw, rgba8>
    """

    name = "taichi.texture_load"
    texture = operand_def(TextureType)
    coords = var_operand_def(i32)
    assembly_format = "$texture `[` $coords `]` attr-dict `:` type($texture)"

    def __init__(
        self, texture: SSAValue | Operation, coords: Sequence[SSAValue | Operation]
    ):
        super().__init__(operands=[texture, coords], result_types=[f32] * 4)

    def verify_(self) -> None:
        _verify_texture_access(self, self.texture, self.coords, rw=True)


@irdl_op_definition
class TextureStoreOp(IRDLOperation):
    """
    `rw.store(ti.Vector([i, j]), ti.Vector([r, g, b, a]))`: write a texel of an rw
    texture (converted to its format; channels it lacks are dropped).

    Example:
        taichi.texture_store %t[%i, %j], %r, %g, %b, %a : !taichi.texture<2, rw, rgba8>
    """

    name = "taichi.texture_store"
    texture = operand_def(TextureType)
    coords = var_operand_def(i32)
    r = operand_def(f32)
    g = operand_def(f32)
    b = operand_def(f32)
    a = operand_def(f32)
    assembly_format = (
        "$texture `[` $coords `]` `,` $r `,` $g `,` $b `,` $a attr-dict `:` type($texture)"
    )
    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        texture: SSAValue | Operation,
        coords: Sequence[SSAValue | Operation],
        channels: Sequence[SSAValue | Operation],
    ):
        assert len(channels) == 4
        super().__init__(operands=[texture, coords, *channels])

    @property
    def channels(self) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
        return (self.r, self.g, self.b, self.a)

    def verify_(self) -> None:
        _verify_texture_access(self, self.texture, self.coords, rw=True)


@irdl_op_definition
class TextureDimOp(IRDLOperation):
    """
    Extent `axis` of a texture argument, as i32 (`rw.shape[axis]`, and the bounds of a
    struct-for over an rw texture).

    Example: `%w = taichi.texture_dim %t, 0 : !taichi.texture<2, rw, rgba8>`
    """

    name = "taichi.texture_dim"
    texture = operand_def(TextureType)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(i32)
    assembly_format = "$texture `,` $axis attr-dict `:` type($texture)"
    traits = traits_def(Pure())

    def __init__(self, texture: SSAValue | Operation, axis: int):
        super().__init__(
            operands=[texture],
            properties={"axis": IntegerAttr(axis, i64)},
            result_types=[i32],
        )

    def verify_(self) -> None:
        t = self.texture.type
        assert isinstance(t, TextureType)
        if not 0 <= self.axis.value.data < t.ndim:
            raise VerifyException(
                f"'{self.name}' reads axis {self.axis.value.data} of a {t.ndim}-d texture"
            )


# ---------------------------------------------------------------------------------------
# The adstack (reverse-mode autodiff)
# ---------------------------------------------------------------------------------------
#
# A bounded LIFO stack of scalars private to one invocation, as Taichi's AdStack*Stmt:
# ti-auto-diff pushes the values a serial loop carries from one iteration to the next as
# its forward replay runs, and pops them as the reverse sweep walks the iterations
# backwards (linear in the trip count, where recomputing each iteration's state from the
# loop's entry would be quadratic). Adjoints need no stack of their own here: a local's
# adjoint is one running sum in a slot, which the reverse sweep visits in order.


@irdl_attr_definition
class AdStackType(ParametrizedAttribute, TypeAttribute):
    """
    A stack of at most `max_size` values of a scalar type.

    Example: `!taichi.adstack<f32, 16>`
    """

    name = "taichi.adstack"

    element_type: Attribute
    max_size: IntAttr

    def __init__(self, element_type: Attribute, max_size: int):
        super().__init__(element_type, IntAttr(max_size))

    @property
    def size(self) -> int:
        return self.max_size.data

    def verify(self) -> None:
        if not isinstance(self.element_type, IntegerType | AnyFloat):
            raise VerifyException(
                f"an adstack holds scalars, got {self.element_type}"
            )
        if self.size <= 0:
            raise VerifyException(f"an adstack holds at least one value, got {self.size}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            element = parser.parse_type()
            parser.parse_punctuation(",")
            size = parser.parse_integer(allow_boolean=False)
        return (element, IntAttr(size))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element_type)
        printer.print_string(f", {self.size}>")


@irdl_op_definition
class AdStackAllocaOp(IRDLOperation):
    """
    A new, empty stack (each time control reaches the op: in a loop body, one per
    iteration).

    Example: `%s = taichi.adstack_alloca : !taichi.adstack<f32, 16>`
    """

    name = "taichi.adstack_alloca"
    stack = result_def(AdStackType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($stack)"

    def __init__(self, element_type: Attribute, max_size: int):
        super().__init__(result_types=[AdStackType(element_type, max_size)])


@irdl_op_definition
class AdStackPushOp(IRDLOperation):
    """
    Push `value`; `fits` is false when the stack already held `max_size` values. Then
    the value is dropped but still counted (pops stay balanced, tops read the last value
    kept): the caller reports the overflow, never a silent wrong value.

    Example: `%fits = taichi.adstack_push %s, %v : !taichi.adstack<f32, 16>`
    """

    name = "taichi.adstack_push"
    stack = operand_def(AdStackType)
    value = operand_def(Scalar)
    fits = result_def(IntegerType(1))
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, stack: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(operands=[stack, value], result_types=[IntegerType(1)])

    def verify_(self) -> None:
        t = self.stack.type
        assert isinstance(t, AdStackType)
        if self.value.type != t.element_type:
            raise VerifyException(
                f"'{self.name}' pushes a {self.value.type} onto a stack of "
                f"{t.element_type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> AdStackPushOp:
        stack = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        element = t.element_type if isinstance(t, AdStackType) else t
        stack_v, value_v = parser.resolve_operands(
            [stack, value], [t, element], parser.pos
        )
        op = cls(stack_v, value_v)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.stack)
        printer.print_string(", ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.stack.type)


@irdl_op_definition
class AdStackPopOp(IRDLOperation):
    """
    Drop the top value.

    Example: `taichi.adstack_pop %s : !taichi.adstack<f32, 16>`
    """

    name = "taichi.adstack_pop"
    stack = operand_def(AdStackType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$stack attr-dict `:` type($stack)"

    def __init__(self, stack: SSAValue | Operation):
        super().__init__(operands=[stack])


@irdl_op_definition
class AdStackLoadTopOp(IRDLOperation):
    """
    The top value (the last pushed and not popped).

    Example: `%v = taichi.adstack_load_top %s : !taichi.adstack<f32, 16> -> f32`
    """

    name = "taichi.adstack_load_top"
    stack = operand_def(AdStackType)
    value = result_def(Scalar)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$stack attr-dict `:` type($stack) `->` type($value)"

    def __init__(self, stack: SSAValue | Operation):
        t = SSAValue.get(stack).type
        assert isinstance(t, AdStackType)
        super().__init__(operands=[stack], result_types=[t.element_type])

    def verify_(self) -> None:
        t = self.stack.type
        assert isinstance(t, AdStackType)
        if self.value.type != t.element_type:
            raise VerifyException(
                f"'{self.name}' reads a {self.value.type} from a stack of {t.element_type}"
            )


ADSTACK_OPS = (AdStackAllocaOp, AdStackPushOp, AdStackPopOp, AdStackLoadTopOp)


Taichi = Dialect(
    "taichi",
    [
        KernelOp,
        ReturnOp,
        FieldOp,
        GetFieldOp,
        ElementPtrOp,
        YieldOp,
        BreakOp,
        ContinueOp,
        RangeForOp,
        StructForOp,
        WhileOp,
        IfOp,
        AtomicAddOp,
        AtomicSubOp,
        AtomicMulOp,
        AtomicMinOp,
        AtomicMaxOp,
        AtomicAndOp,
        AtomicOrOp,
        AtomicXorOp,
        ActivateOp,
        DeactivateOp,
        IsActiveOp,
        AppendOp,
        LengthOp,
        AtomicCasOp,
        PoolAllocOp,
        PoolReleaseOp,
        *LIST_OPS,
        PrintOp,
        AssertOp,
        TextureFetchOp,
        TextureSampleLodOp,
        TextureLoadOp,
        TextureStoreOp,
        TextureDimOp,
        *SIMT_OPS,
        *ADSTACK_OPS,
    ],
    [TextureType, AdStackType, SNodeAttr],
)


