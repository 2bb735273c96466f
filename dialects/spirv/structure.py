"""
Module structure, globals, constants and memory ops of the `spirv` dialect.

A compute shader, as the Vulkan runtime loads it:

    spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []> {
      spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
      spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
      spirv.func @main() "None" {
        %c0 = spirv.Constant 0 : i32
        %gid = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
        %v = spirv.Load "Input" %gid : vector<3xi32>
        %i = spirv.CompositeExtract %v[0 : i32] : vector<3xi32>
        %buf = spirv.mlir.addressof @buf : !spirv.ptr<...>
        %p = spirv.AccessChain %buf[%c0, %i] : !spirv.ptr<...>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
        ...
        spirv.Return
      }
      spirv.EntryPoint "GLCompute" @main, @gid
      spirv.ExecutionMode @main "LocalSize", 128, 1, 1
    }
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from taichi_xdsl.dialects.op_init import init_op
from taichi_xdsl.dialects.spirv import enums
from taichi_xdsl.dialects.spirv.attributes import (
    AddressingModelAttr,
    ExecutionModeAttr,
    ExecutionModelAttr,
    FunctionControlAttr,
    MemoryModelAttr,
    PointerType,
    VerCapExtAttr,
    is_scalar_type,
    is_vector_type,
)
from taichi_xdsl.dialects.symbols import lookup_symbol
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FlatSymbolRefAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TypeAttribute,
    i1,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    IsolatedFromAbove,
    NoTerminator,
    OptionalSymbolOpInterface,
    Pure,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException


def _type_list(types: Iterable[Attribute]) -> str:
    return ", ".join(str(t) for t in types)


def _verify_in_module_like(op: Operation) -> None:
    parent = op.parent_op()
    if parent is not None and not parent.has_trait(SymbolTable):
        raise VerifyException(f"'{op.name}' op must appear in a module-like op's block")


def constant_int(value: SSAValue) -> int | None:
    """The integer a `spirv.Constant` defines, None for any other value."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


# ---------------------------------------------------------------------------------------
# Module, functions and entry points
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """
    A SPIR-V module: one binary. Its body holds globals, functions, entry points and
    execution modes, in any order (the serializer puts them in the order SPIR-V needs).

    Example:
        spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []> {
          spirv.func @main() "None" { spirv.Return }
          spirv.EntryPoint "GLCompute" @main
          spirv.ExecutionMode @main "LocalSize", 128, 1, 1
        }
    """

    name = "spirv.module"

    addressing_model = prop_def(AddressingModelAttr)
    memory_model = prop_def(MemoryModelAttr)
    vce_triple = opt_prop_def(VerCapExtAttr)
    sym_name = opt_prop_def(SymbolNameConstraint())
    body = region_def("single_block")

    traits = traits_def(
        IsolatedFromAbove(), SymbolTable(), NoTerminator(), OptionalSymbolOpInterface()
    )

    def __init__(
        self,
        ops: Sequence[Operation] = (),
        vce_triple: VerCapExtAttr | None = None,
        *,
        addressing_model: str = "Logical",
        memory_model: str = "GLSL450",
        sym_name: str | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        properties: dict[str, Attribute | None] = {
            "addressing_model": AddressingModelAttr(addressing_model),
            "memory_model": MemoryModelAttr(memory_model),
            "vce_triple": vce_triple,
            "sym_name": StringAttr(sym_name) if sym_name is not None else None,
        }
        super().__init__(
            properties=properties, attributes=attributes, regions=[Region(Block(ops))]
        )

    @property
    def ops(self):
        return self.body.block.ops

    def verify_(self) -> None:
        entry_points: set[tuple[str, str]] = set()
        for op in self.body.block.ops:
            if not op.name.startswith("spirv."):
                raise VerifyException(
                    f"'{self.name}' can only contain spirv.* ops, got {op.name}"
                )
            if isinstance(op, FuncOp) and not op.body.blocks:
                raise VerifyException(
                    f"'{self.name}' cannot contain external functions (@{op.sym_name.data})"
                )
            if isinstance(op, EntryPointOp):
                key = (op.execution_model.data, op.fn.string_value())
                if key in entry_points:
                    raise VerifyException(
                        f"duplicate of a previous EntryPointOp for @{key[1]}"
                    )
                entry_points.add(key)
        for op in self.body.walk():
            if op is not self and not op.name.startswith("spirv."):
                raise VerifyException(
                    f"functions in '{self.name}' can only contain spirv.* ops, got {op.name}"
                )

    def print(self, printer: Printer) -> None:
        if self.sym_name is not None:
            printer.print_string(" ")
            printer.print_symbol_name(self.sym_name.data)
        printer.print_string(f" {self.addressing_model.data} {self.memory_model.data}")
        if self.vce_triple is not None:
            printer.print_string(" requires ")
            printer.print_attribute(self.vce_triple)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_empty_block=False
        )

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        sym_name = parser.parse_optional_symbol_name()
        addressing = AddressingModelAttr(AddressingModelAttr.parse_case(parser))
        memory = MemoryModelAttr(MemoryModelAttr.parse_case(parser))
        vce = None
        if parser.parse_optional_keyword("requires") is not None:
            pos = parser.pos
            vce = parser.parse_attribute()
            if not isinstance(vce, VerCapExtAttr):
                parser.raise_error(
                    f"expected a #spirv.vce triple, got {vce}", pos, parser.pos
                )
        attributes = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls.create(
            properties={
                "addressing_model": addressing,
                "memory_model": memory,
                **({"vce_triple": vce} if vce is not None else {}),
                **({"sym_name": sym_name} if sym_name is not None else {}),
            },
            attributes=attributes.data if attributes is not None else {},
            regions=[region],
        )
        return op


@irdl_op_definition
class FuncOp(IRDLOperation):
    """
    A SPIR-V function; its arguments are the entry block's arguments. The string after
    the signature is the function control mask.

    Example:
        spirv.func @add(%a: i32, %b: i32) -> i32 "Inline|Pure" {
          %s = spirv.IAdd %a, %b : i32
          spirv.ReturnValue %s : i32
        }
    """

    name = "spirv.func"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    function_control = prop_def(FunctionControlAttr, default_value=FunctionControlAttr())
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def()

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    def __init__(
        self,
        name: str,
        function_type: FunctionType | tuple[Sequence[Attribute], Sequence[Attribute]],
        body: Region | None = None,
        function_control: str | FunctionControlAttr = "None",
        attributes: dict[str, Attribute] | None = None,
    ):
        """
        Build a function; without `body`, an entry block with one argument per input.
        """
        if not isinstance(function_type, FunctionType):
            function_type = FunctionType.from_lists(*function_type)
        if body is None:
            body = Region(Block(arg_types=function_type.inputs))
        if isinstance(function_control, str):
            function_control = FunctionControlAttr(function_control)
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": function_type,
                "function_control": function_control,
            },
            attributes=attributes,
            regions=[body],
        )

    @property
    def entry_block(self) -> Block:
        return self.body.blocks.first  # type: ignore[return-value]

    def verify_(self) -> None:
        _verify_in_module_like(self)
        outputs = self.function_type.outputs.data
        if len(outputs) > 1:
            raise VerifyException(f"'{self.name}' cannot have more than one result")
        if self.body.blocks:
            arg_types = tuple(arg.type for arg in self.body.blocks.first.args)  # type: ignore[union-attr]
            if arg_types != self.function_type.inputs.data:
                raise VerifyException(
                    f"'{self.name}' @{self.sym_name.data} has arguments of types "
                    f"({_type_list(arg_types)}) but its signature says {self.function_type}"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        if self.body.blocks:
            printer.print_list(self.body.blocks.first.args, printer.print_block_argument)  # type: ignore[union-attr]
        else:
            printer.print_list(self.function_type.inputs, printer.print_attribute)
        printer.print_string(")")
        outputs = self.function_type.outputs.data
        if len(outputs) == 1:
            printer.print_string(" -> ")
            printer.print_attribute(outputs[0])
        elif outputs:
            printer.print_string(f" -> ({_type_list(outputs)})")
        printer.print_string(f' "{self.function_control.text}"')
        printer.print_op_attributes(self.attributes, print_keyword=True)
        if self.body.blocks:
            printer.print_string(" ")
            printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name = parser.parse_symbol_name().data

        def parse_input() -> Parser.Argument | Attribute:
            arg = parser.parse_optional_argument()
            return arg if arg is not None else parser.parse_type()

        inputs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_input)
        args = [a for a in inputs if isinstance(a, Parser.Argument)]
        if args and len(args) != len(inputs):
            parser.raise_error("expected all arguments to be named or all unnamed")
        input_types = [a.type if isinstance(a, Parser.Argument) else a for a in inputs]
        outputs: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            parsed = parser.parse_optional_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
            outputs = parsed if parsed is not None else [parser.parse_type()]
        pos = parser.pos
        text = parser.parse_optional_str_literal()
        if text is None:
            parser.raise_error("expected function_control attribute specified as string")
        control = FunctionControlAttr.new(FunctionControlAttr.flags_of(text, parser, pos))
        attributes = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_optional_region(args if args else None)
        if region is None:
            region = Region()
        return cls(
            name,
            FunctionType.from_lists(input_types, outputs),
            region,
            control,
            attributes.data if attributes is not None else None,
        )


@irdl_op_definition
class EntryPointOp(IRDLOperation):
    """
    Declare `@fn` an entry point of the given execution model; the symbols after it are
    the global variables its interface uses (SPIR-V 1.3: the Input/Output ones; 1.4+:
    every global it touches).

    Example: `spirv.EntryPoint "GLCompute" @main, @gid, @nwg`
    """

    name = "spirv.EntryPoint"

    execution_model = prop_def(ExecutionModelAttr)
    fn = prop_def(FlatSymbolRefAttr)
    interface = prop_def(ArrayAttr[SymbolRefAttr], default_value=ArrayAttr(()))

    def __init__(
        self,
        execution_model: str,
        fn: str,
        interface: Iterable[str] = (),
    ):
        super().__init__(
            properties={
                "execution_model": ExecutionModelAttr(execution_model),
                "fn": SymbolRefAttr(fn),
                "interface": ArrayAttr(SymbolRefAttr(name) for name in interface),
            }
        )

    def verify_(self) -> None:
        _verify_in_module_like(self)
        function = lookup_symbol(self, self.fn)
        if not isinstance(function, FuncOp):
            parent = self.parent_op()
            raise VerifyException(
                f"function '{self.fn.string_value()}' not found in "
                f"'{parent.name if parent else 'its module'}'"
            )
        for symbol in self.interface:
            if not isinstance(lookup_symbol(self, symbol), GlobalVariableOp):
                raise VerifyException(
                    f"interface entry '{symbol.string_value()}' of @{self.fn.string_value()} "
                    "is not a spirv.GlobalVariable"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(f' "{self.execution_model.data}" ')
        printer.print_attribute(self.fn)
        for symbol in self.interface:
            printer.print_string(", ")
            printer.print_attribute(symbol)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> EntryPointOp:
        pos = parser.pos
        model = parser.parse_str_literal()
        if model not in enums.EXECUTION_MODEL:
            parser.raise_error(
                f"'spirv.EntryPoint' invalid execution_model attribute specification: "
                f'"{model}"',
                pos,
                parser.pos,
            )
        pos = parser.pos
        fn = parser.parse_optional_symbol_name()
        if fn is None:
            parser.raise_error("invalid kind of attribute specified", pos)
        interface: list[str] = []
        while parser.parse_optional_punctuation(",") is not None:
            interface.append(parser.parse_symbol_name().data)
        op = cls(model, fn.data, interface)
        attributes = parser.parse_optional_attr_dict()
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class ExecutionModeOp(IRDLOperation):
    """
    An execution mode of an entry point, with its literal operands.

    Example: `spirv.ExecutionMode @main "LocalSize", 128, 1, 1`
    """

    name = "spirv.ExecutionMode"

    fn = prop_def(FlatSymbolRefAttr)
    execution_mode = prop_def(ExecutionModeAttr)
    values = prop_def(ArrayAttr[IntegerAttr], default_value=ArrayAttr(()))

    def __init__(self, fn: str, execution_mode: str, values: Iterable[int] = ()):
        super().__init__(
            properties={
                "fn": SymbolRefAttr(fn),
                "execution_mode": ExecutionModeAttr(execution_mode),
                "values": ArrayAttr(IntegerAttr(v, i32) for v in values),
            }
        )

    @property
    def literal_values(self) -> tuple[int, ...]:
        return tuple(v.value.data for v in self.values)

    def verify_(self) -> None:
        _verify_in_module_like(self)
        expected = enums.EXECUTION_MODE_OPERANDS.get(self.execution_mode.data, 0)
        if len(self.values.data) != expected:
            raise VerifyException(
                f"execution mode '{self.execution_mode.data}' takes {expected} values, "
                f"got {len(self.values.data)}"
            )
        if not isinstance(lookup_symbol(self, self.fn), FuncOp):
            raise VerifyException(f"function '{self.fn.string_value()}' not found")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.fn)
        printer.print_string(f' "{self.execution_mode.data}"')
        for value in self.literal_values:
            printer.print_string(f", {value}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ExecutionModeOp:
        fn = parser.parse_symbol_name().data
        pos = parser.pos
        mode = parser.parse_str_literal()
        if mode not in enums.EXECUTION_MODE:
            parser.raise_error(
                "'spirv.ExecutionMode' invalid execution_mode attribute specification: "
                f'"{mode}"',
                pos,
                parser.pos,
            )
        values: list[int] = []
        while parser.parse_optional_punctuation(",") is not None:
            values.append(parser.parse_integer(allow_boolean=False))
        op = cls(fn, mode, values)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


# ---------------------------------------------------------------------------------------
# Global variables and addresses
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class GlobalVariableOp(IRDLOperation):
    """
    A module-scope variable: a buffer bound to `bind(descriptor_set, binding)`, a
    built-in input, or a Workgroup/Private/PushConstant variable. Functions take its
    address with `spirv.mlir.addressof`.

    Example:
        spirv.GlobalVariable @buf bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
        spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
    """

    name = "spirv.GlobalVariable"

    sym_name = prop_def(SymbolNameConstraint())
    type = prop_def(TypeAttribute)
    initializer = opt_prop_def(FlatSymbolRefAttr)
    descriptor_set = opt_prop_def(IntegerAttr)
    binding = opt_prop_def(IntegerAttr)
    built_in = opt_prop_def(StringAttr)

    traits = traits_def(SymbolOpInterface())

    def __init__(
        self,
        name: str,
        type: PointerType,
        *,
        descriptor_set: int | None = None,
        binding: int | None = None,
        built_in: str | None = None,
        initializer: str | None = None,
    ):
        properties: dict[str, Attribute | None] = {
            "sym_name": StringAttr(name),
            "type": type,
            "descriptor_set": IntegerAttr(descriptor_set, i32)
            if descriptor_set is not None
            else None,
            "binding": IntegerAttr(binding, i32) if binding is not None else None,
            "built_in": StringAttr(built_in) if built_in is not None else None,
            "initializer": SymbolRefAttr(initializer) if initializer is not None else None,
        }
        super().__init__(properties=properties)

    @property
    def pointer_type(self) -> PointerType:
        assert isinstance(self.type, PointerType)
        return self.type

    def verify_(self) -> None:
        _verify_in_module_like(self)
        if not isinstance(self.type, PointerType):
            raise VerifyException(
                f"'{self.name}' expects a !spirv.ptr type, got {self.type}"
            )
        storage = self.type.storage_class.data
        if storage in ("Generic", "Function"):
            raise VerifyException(f"storage class cannot be '{storage}'")
        if self.built_in is not None and self.built_in.data not in enums.BUILT_IN:
            raise VerifyException(
                f"unknown built_in '{self.built_in.data}', expected one of "
                f"{', '.join(enums.BUILT_IN)}"
            )
        if (self.binding is None) != (self.descriptor_set is None):
            raise VerifyException(
                f"'{self.name}' @{self.sym_name.data} needs both binding and descriptor_set"
            )
        if self.initializer is not None:
            target = lookup_symbol(self, self.initializer)
            if not isinstance(target, GlobalVariableOp):
                raise VerifyException(
                    "op initializer must be result of a spirv.GlobalVariable op"
                )
            if target.type != self.type.pointee_type:
                raise VerifyException(
                    f"'{self.name}' @{self.sym_name.data} holds {self.type.pointee_type}, but "
                    f"its initializer @{target.sym_name.data} is a {target.type}"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        if self.initializer is not None:
            printer.print_string(f" initializer(@{self.initializer.string_value()})")
        if self.descriptor_set is not None and self.binding is not None:
            printer.print_string(
                f" bind({self.descriptor_set.value.data}, {self.binding.value.data})"
            )
        if self.built_in is not None:
            printer.print_string(f' built_in("{self.built_in.data}")')
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.type)

    @classmethod
    def parse(cls, parser: Parser) -> GlobalVariableOp:
        properties: dict[str, Attribute] = {"sym_name": parser.parse_symbol_name()}
        if parser.parse_optional_keyword("initializer") is not None:
            with parser.in_parens():
                properties["initializer"] = SymbolRefAttr(parser.parse_symbol_name())
        if parser.parse_optional_keyword("bind") is not None:
            with parser.in_parens():
                properties["descriptor_set"] = IntegerAttr(parser.parse_integer(), i32)
                parser.parse_punctuation(",")
                properties["binding"] = IntegerAttr(parser.parse_integer(), i32)
        if parser.parse_optional_keyword("built_in") is not None:
            with parser.in_parens():
                properties["built_in"] = StringAttr(parser.parse_str_literal())
        attributes = dict(parser.parse_optional_attr_dict())
        # MLIR accepts the decorations as attributes too: {built_in = "..."}.
        for key in ("built_in", "binding", "descriptor_set"):
            if key in attributes:
                properties[key] = attributes.pop(key)
        parser.parse_punctuation(":")
        pos = parser.pos
        type_ = parser.parse_type()
        if not isinstance(type_, PointerType):
            parser.raise_error("expected spirv.ptr type", pos, parser.pos)
        properties["type"] = type_
        return cls.create(properties=properties, attributes=attributes)


@irdl_op_definition
class AddressOfOp(IRDLOperation):
    """
    The address of a `spirv.GlobalVariable`.

    Example: `%p = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>`
    """

    name = "spirv.mlir.addressof"

    variable = prop_def(FlatSymbolRefAttr)
    pointer = result_def(PointerType)

    traits = traits_def(Pure())

    assembly_format = "$variable attr-dict `:` type($pointer)"

    def __init__(self, variable: str | GlobalVariableOp, type: PointerType | None = None):
        if isinstance(variable, GlobalVariableOp):
            type = variable.pointer_type if type is None else type
            variable = variable.sym_name.data
        if type is None:
            raise ValueError("AddressOfOp needs the variable op or its pointer type")
        init_op(
            self,
            properties={"variable": SymbolRefAttr(variable)}, result_types=[type]
        )

    def verify_(self) -> None:
        target = lookup_symbol(self, self.variable)
        if target is None and self.parent_op() is None:
            return
        if not isinstance(target, GlobalVariableOp):
            raise VerifyException("expected spirv.GlobalVariable symbol")
        if target.type != self.pointer.type:
            raise VerifyException(
                "result type mismatch with the referenced global variable's type: "
                f"{self.pointer.type} vs {target.type}"
            )


# ---------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _integer_attr(kind: type, value: int, type: IntegerType) -> IntegerAttr:
    """`IntegerAttr(value, type)`, made once (18 us each: it checks the value's range);
    attributes are immutable, so constants share them. `kind` (int or bool) keeps
    `True` and `1`, equal as keys, apart."""
    return IntegerAttr(value, type)


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """
    A scalar or vector constant. The serializer hoists constants to module scope and
    emits each distinct (type, value) once.

    Example:
        %t = spirv.Constant true
        %c = spirv.Constant 42 : i32
        %f = spirv.Constant 5.000000e-01 : f32
        %v = spirv.Constant dense<[2, 3]> : vector<2xi32>
    """

    name = "spirv.Constant"

    value = prop_def(IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr)
    constant = result_def()

    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr):
        init_op(self, properties={"value": value}, result_types=[value.get_type()])

    @staticmethod
    def from_int(value: int, type: IntegerType = i32) -> ConstantOp:
        """`spirv.Constant value : type` for an integer type (i1 gives true/false)."""
        return ConstantOp(_integer_attr(value.__class__, value, type))

    @staticmethod
    def from_float(value: float, type: Attribute) -> ConstantOp:
        """`spirv.Constant value : type` for f16, f32 or f64."""
        return ConstantOp(FloatAttr(value, type))  # type: ignore[arg-type]

    @staticmethod
    def from_bool(value: bool) -> ConstantOp:
        """`spirv.Constant true` / `false`."""
        return ConstantOp(_integer_attr(int, int(value), i1))

    def verify_(self) -> None:
        value_type = self.value.get_type()
        if value_type != self.constant.type:
            raise VerifyException(
                f"result or element type ('{self.constant.type}') does not match value type "
                f"('{value_type}')"
            )
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            if not is_vector_type(value_type):
                raise VerifyException(
                    f"'{self.name}' dense values must have a SPIR-V vector type, got {value_type}"
                )
        elif not is_scalar_type(value_type):
            raise VerifyException(
                f"'{self.name}' expects a scalar or vector type, got {value_type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr):
            parser.raise_error(f"cannot have attribute: {value}", pos, parser.pos)
        op = cls(value)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


# ---------------------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class FunctionCallOp(IRDLOperation):
    """
    Call a `spirv.func` of the same module.

    Example: `%r = spirv.FunctionCall @f(%a, %b) : (i32, i32) -> i32`
    """

    name = "spirv.FunctionCall"

    callee = prop_def(FlatSymbolRefAttr)
    arguments = var_operand_def()
    return_value = var_result_def()

    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $return_value)"

    def __init__(
        self,
        callee: str,
        arguments: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute] = (),
    ):
        super().__init__(
            operands=[arguments],
            result_types=[result_types],
            properties={"callee": SymbolRefAttr(callee)},
        )

    def verify_(self) -> None:
        if len(self.return_value) > 1:
            raise VerifyException(
                f"result group starting at #0 requires 0 or 1 element, but found "
                f"{len(self.return_value)}"
            )
        callee = lookup_symbol(self, self.callee)
        if callee is None:
            raise VerifyException(
                f"op callee function '{self.callee.string_value()}' not found in nearest "
                "symbol table"
            )
        if not isinstance(callee, FuncOp):
            raise VerifyException(f"'{self.callee.string_value()}' is not a spirv.func")
        inputs = callee.function_type.inputs.data
        if len(inputs) != len(self.arguments):
            raise VerifyException(
                f"has incorrect number of operands for callee: expected {len(inputs)}, "
                f"but provided {len(self.arguments)}"
            )
        for index, (expected, argument) in enumerate(zip(inputs, self.arguments)):
            if argument.type != expected:
                raise VerifyException(
                    f"operand type mismatch: expected operand type '{expected}', but "
                    f"provided '{argument.type}' for operand number {index}"
                )
        outputs = callee.function_type.outputs.data
        if len(outputs) != len(self.return_value):
            raise VerifyException(
                f"has incorrect number of results has for callee: expected {len(outputs)}, "
                f"but provided {len(self.return_value)}"
            )
        if outputs and outputs[0] != self.return_value[0].type:
            raise VerifyException(
                f"result type mismatch: expected '{outputs[0]}', but provided "
                f"'{self.return_value[0].type}'"
            )
