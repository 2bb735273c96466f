"""
`spirv.module` -> SPIR-V binary (`serialize`) or its text (`disassemble_text`).

    ti-opt shader.mlir -t spirv > shader.spv       # then: spirv-val shader.spv
    ti-opt shader.mlir -t spirv-asm                # the same module as text

The module is laid out as the spec's section 2.4 requires: capabilities, extensions, the
GLSL.std.450 import (when a `spirv.GL.*` op is used), the memory model, entry points,
execution modes, OpName for functions and globals, decorations, then types, constants and
global variables (each distinct type and constant once, in first-use order), then the
functions. Structured control flow becomes merge instructions and blocks in order:

    spirv.mlir.selection { header; blocks...; ^merge }
      -> OpBranch %header; %header = OpLabel; ...; OpSelectionMerge %merge None;
         OpBranchConditional ...; <blocks>; %merge = OpLabel; <ops after the selection>
    spirv.mlir.loop { entry; ^header; body...; ^continue; ^merge }
      -> OpBranch %header; %header = OpLabel; ...; OpLoopMerge %merge %continue None;
         <terminator>; <body, continue>; %merge = OpLabel; <ops after the loop>

(as MLIR's serializer does, each construct starts a fresh block, so no block ever holds
two merge instructions). Block arguments become OpPhi; `spirv.Variable`s move to the top
of their function's first block; `spirv.Constant`s become module-level constants.

Ids are handed out in a fixed traversal order, so the same module always gives the same
bytes. The text is what `spirv-dis --raw-id` prints for those bytes.

A module without a `#spirv.vce` triple is written as SPIR-V 1.0 with the Shader capability.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from typing import IO

from taichi_xdsl.dialects import spirv
from taichi_xdsl.dialects.spirv import enums
from taichi_xdsl.targets.spirv.instructions import (
    Id,
    Instruction,
    Literal,
    Named,
    Operand,
    String,
    encode_module,
    float_number,
    integer_number,
    module_text,
)
from taichi_xdsl.targets.spirv.opcodes import ATOMIC_OPS, GLSL_STD_450, SIMPLE_OPS
from taichi_xdsl.utils.diagnostics import LocatedDiagnostic, format_at
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue


class SerializationError(LocatedDiagnostic):
    """The module holds something SPIR-V cannot express (or this serializer does not)."""

    def __init__(self, op: Operation, message: str):
        super().__init__(format_at(op.location, f"cannot serialize '{op.name}': {message}"))


def find_spirv_module(op: Operation) -> spirv.ModuleOp:
    """`op` itself if a spirv.module, else the one spirv.module inside it."""
    if isinstance(op, spirv.ModuleOp):
        return op
    modules = [o for o in op.walk() if isinstance(o, spirv.ModuleOp)]
    if len(modules) != 1:
        raise SerializationError(
            op, f"expected exactly one spirv.module inside, found {len(modules)}"
        )
    return modules[0]


def serialize(op: Operation, *, debug_names: bool = True) -> bytes:
    """
    The SPIR-V binary of a `spirv.module` (or of the one inside a `builtin.module`).

    Args:
        op: the spirv.module, or an op holding exactly one.
        debug_names: emit OpName for functions and global variables.

    Raises:
        SerializationError: an op the serializer cannot write.
    """
    writer = _ModuleWriter(find_spirv_module(op), debug_names)
    return encode_module(writer.version, writer.bound, writer.instructions)


def disassemble_text(op: Operation, *, debug_names: bool = True) -> str:
    """The module as `spirv-dis --raw-id` prints the binary `serialize` gives."""
    writer = _ModuleWriter(find_spirv_module(op), debug_names)
    return module_text(writer.version, writer.bound, writer.instructions)


def emit_spirv(module: ModuleOp, stream: IO[str]) -> None:
    """ti-opt target `spirv`: the binary, written to the byte stream under `stream`."""
    data = serialize(module)
    buffer = getattr(stream, "buffer", None)
    if isinstance(stream, io.BufferedIOBase | io.RawIOBase):
        buffer = stream
    if buffer is None:  # a text-only stream (xDSL's StringIO): the bytes go to stdout
        buffer = sys.stdout.buffer
        stream = sys.stdout
    stream.flush()
    buffer.write(data)
    buffer.flush()


emit_spirv.binary_output = True  # type: ignore[attr-defined]


def emit_spirv_asm(module: ModuleOp, stream: IO[str]) -> None:
    """ti-opt target `spirv-asm`: the module as text (pure Python, spirv-dis's format)."""
    stream.write(disassemble_text(module))


class _ModuleWriter:
    """Walks one spirv.module and collects its instructions, section by section."""

    def __init__(self, module: spirv.ModuleOp, debug_names: bool):
        self.module = module
        self.debug_names = debug_names
        self.next_id = 1
        self.capabilities: list[Instruction] = []
        self.extensions: list[Instruction] = []
        self.imports: list[Instruction] = []
        self.memory_model: list[Instruction] = []
        self.entry_points: list[Instruction] = []
        self.execution_modes: list[Instruction] = []
        self.names: list[Instruction] = []
        self.annotations: list[Instruction] = []
        self.globals: list[Instruction] = []
        self.functions: list[Instruction] = []
        self.types: dict[object, int] = {}
        self.constants: dict[object, int] = {}
        self.symbols: dict[str, int] = {}
        self.glsl_import: int | None = None
        self._write()

    # -- ids -----------------------------------------------------------------------------

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    @property
    def bound(self) -> int:
        return self.next_id

    @property
    def version(self) -> int:
        vce = self.module.vce_triple
        return vce.version_word if vce is not None else enums.VERSIONS["v1.0"]

    @property
    def instructions(self) -> list[Instruction]:
        return [
            *self.capabilities,
            *self.extensions,
            *self.imports,
            *self.memory_model,
            *self.entry_points,
            *self.execution_modes,
            *self.names,
            *self.annotations,
            *self.globals,
            *self.functions,
        ]

    # -- module ----------------------------------------------------------------------------

    def _write(self) -> None:
        module = self.module
        vce = module.vce_triple
        capabilities = vce.capability_names if vce is not None else ("Shader",)
        for name in capabilities:
            self.capabilities.append(
                Instruction("OpCapability", operands=[Named(name, enums.CAPABILITY[name])])
            )
        for name in vce.extension_names if vce is not None else ():
            self.extensions.append(Instruction("OpExtension", operands=[String(name)]))
        if any(op.name.startswith("spirv.GL.") for op in module.walk()):
            self.glsl_import = self.new_id()
            self.imports.append(
                Instruction(
                    "OpExtInstImport", None, self.glsl_import, [String("GLSL.std.450")]
                )
            )
        self.memory_model.append(
            Instruction(
                "OpMemoryModel",
                operands=[
                    Named(module.addressing_model.data, module.addressing_model.value),
                    Named(module.memory_model.data, module.memory_model.value),
                ],
            )
        )
        body = list(module.body.block.ops)
        for op in body:  # symbols first: entry points and calls may refer forward
            if isinstance(op, spirv.GlobalVariableOp | spirv.FuncOp):
                self.symbols[op.sym_name.data] = self.new_id()
                if self.debug_names:
                    self.names.append(
                        Instruction(
                            "OpName",
                            operands=[
                                Id(self.symbols[op.sym_name.data]),
                                String(op.sym_name.data),
                            ],
                        )
                    )
        for op in body:
            match op:
                case spirv.GlobalVariableOp():
                    self._global_variable(op)
                case spirv.FuncOp():
                    _FunctionWriter(self, op).write()
                case spirv.EntryPointOp():
                    self._entry_point(op)
                case spirv.ExecutionModeOp():
                    self._execution_mode(op)
                case _:
                    raise SerializationError(op, "not allowed at module level")

    def symbol(self, op: Operation, name: str) -> int:
        if name not in self.symbols:
            raise SerializationError(
                op, f"@{name} is not a function or global of the module"
            )
        return self.symbols[name]

    def _global_variable(self, op: spirv.GlobalVariableOp) -> None:
        pointer = op.pointer_type
        var_id = self.symbols[op.sym_name.data]
        operands: list[Operand] = [
            Named(pointer.storage_class.data, pointer.storage_class.value)
        ]
        if op.initializer is not None:
            operands.append(Id(self.symbol(op, op.initializer.string_value())))
        self.globals.append(
            Instruction("OpVariable", self.type_id(pointer), var_id, operands)
        )
        if op.built_in is not None:
            self.decorate(
                var_id, "BuiltIn", Named(op.built_in.data, enums.BUILT_IN[op.built_in.data])
            )
        if op.descriptor_set is not None:
            self.decorate(var_id, "DescriptorSet", Literal(op.descriptor_set.value.data))
        if op.binding is not None:
            self.decorate(var_id, "Binding", Literal(op.binding.value.data))

    def _entry_point(self, op: spirv.EntryPointOp) -> None:
        name = op.fn.string_value()
        self.entry_points.append(
            Instruction(
                "OpEntryPoint",
                operands=[
                    Named(op.execution_model.data, op.execution_model.value),
                    Id(self.symbol(op, name)),
                    String(name),
                    *(Id(self.symbol(op, s.string_value())) for s in op.interface),
                ],
            )
        )

    def _execution_mode(self, op: spirv.ExecutionModeOp) -> None:
        self.execution_modes.append(
            Instruction(
                "OpExecutionMode",
                operands=[
                    Id(self.symbol(op, op.fn.string_value())),
                    Named(op.execution_mode.data, op.execution_mode.value),
                    *(Literal(v) for v in op.literal_values),
                ],
            )
        )

    # -- decorations, types, constants ---------------------------------------------------

    def decorate(self, target: int, decoration: str, *values: Operand) -> None:
        self.annotations.append(
            Instruction(
                "OpDecorate",
                operands=[
                    Id(target),
                    Named(decoration, enums.DECORATION[decoration]),
                    *values,
                ],
            )
        )

    def _decorate_text(self, target: int, text: str, member: int | None = None) -> None:
        name, _, value = text.partition("=")
        operands: list[Operand] = [Id(target)]
        if member is not None:
            operands.append(Literal(member))
        operands.append(Named(name, enums.DECORATION[name]))
        if value:
            operands.append(Literal(int(value)))
        opcode = "OpDecorate" if member is None else "OpMemberDecorate"
        self.annotations.append(Instruction(opcode, operands=operands))

    def _new_type(self, key: object, name: str, operands: list[Operand]) -> int:
        type_id = self.new_id()
        self.globals.append(Instruction(name, None, type_id, operands))
        self.types[key] = type_id
        return type_id

    def void_type(self) -> int:
        return self.types.get("void") or self._new_type("void", "OpTypeVoid", [])

    def function_type(self, function_type: FunctionType) -> int:
        outputs = function_type.outputs.data
        result = self.type_id(outputs[0]) if outputs else self.void_type()
        params = [self.type_id(t) for t in function_type.inputs.data]
        key = ("function", result, tuple(params))
        if key in self.types:
            return self.types[key]
        return self._new_type(key, "OpTypeFunction", [Id(result), *(Id(p) for p in params)])

    def type_id(self, type_: Attribute) -> int:
        """The id of `type_`, declaring it (and what it is made of) on first use."""
        if type_ in self.types:
            return self.types[type_]
        match type_:
            case IntegerType() if type_.width.data == 1:
                return self._new_type(type_, "OpTypeBool", [])
            case IntegerType():
                signed = type_.signedness.data == Signedness.SIGNED
                return self._new_type(
                    type_, "OpTypeInt", [Literal(type_.width.data), Literal(int(signed))]
                )
            case Float16Type() | Float32Type() | Float64Type():
                return self._new_type(type_, "OpTypeFloat", [Literal(type_.bitwidth)])
            case VectorType():
                element = self.type_id(type_.element_type)
                return self._new_type(
                    type_, "OpTypeVector", [Id(element), Literal(type_.get_shape()[0])]
                )
            case spirv.PointerType():
                pointee = self.type_id(type_.pointee_type)
                storage = type_.storage_class
                return self._new_type(
                    type_,
                    "OpTypePointer",
                    [Named(storage.data, storage.value), Id(pointee)],
                )
            case spirv.RuntimeArrayType():
                element = self.type_id(type_.element_type)
                array_id = self._new_type(type_, "OpTypeRuntimeArray", [Id(element)])
                if type_.stride.data:
                    self.decorate(array_id, "ArrayStride", Literal(type_.stride.data))
                return array_id
            case spirv.ArrayType():
                element = self.type_id(type_.element_type)
                length = self.constant_id(IntegerAttr(type_.size.data, i32))
                array_id = self._new_type(type_, "OpTypeArray", [Id(element), Id(length)])
                if type_.stride.data:
                    self.decorate(array_id, "ArrayStride", Literal(type_.stride.data))
                return array_id
            case spirv.StructType():
                return self._struct_type(type_)
            case spirv.ImageType():
                return self._image_type(type_)
            case spirv.SampledImageType():
                image = self.type_id(type_.image_type)
                return self._new_type(type_, "OpTypeSampledImage", [Id(image)])
            case _:
                raise TypeError(f"no SPIR-V type for {type_}")

    def _image_type(self, type_: spirv.ImageType) -> int:
        """OpTypeImage; dims are printed as spirv-dis prints them (`2D`)."""
        from taichi_xdsl.dialects.spirv import image

        sampled = self.type_id(type_.sampled_type)
        dim = type_.dim.data
        operands: list[Operand] = [
            Id(sampled),
            Named(image.DIM_TEXT.get(dim, dim), image.DIM[dim]),
            Literal(image.DEPTH[type_.depth.data]),
            Literal(image.ARRAYED[type_.arrayed.data]),
            Literal(image.SAMPLING[type_.sampling.data]),
            Literal(image.SAMPLER_USE[type_.sampler_use.data]),
            Named(type_.format.data, image.IMAGE_FORMAT[type_.format.data]),
        ]
        return self._new_type(type_, "OpTypeImage", operands)

    def _struct_type(self, type_: spirv.StructType) -> int:
        members = [self.type_id(t) for t in type_.member_types]
        struct_id = self._new_type(type_, "OpTypeStruct", [Id(m) for m in members])
        for decoration in type_.decoration_names:
            self._decorate_text(struct_id, decoration)
        for index in range(type_.num_members):
            offset = type_.offset_of(index)
            if offset is not None:
                self._decorate_text(struct_id, f"Offset={offset}", index)
            for decoration in type_.decorations_of(index):
                self._decorate_text(struct_id, decoration, index)
        return struct_id

    def constant_id(self, value: Attribute) -> int:
        """The id of a module-level constant (IntegerAttr, FloatAttr or a dense vector)."""
        match value:
            case IntegerAttr():
                return self._scalar_constant(value.type, value.value.data)
            case FloatAttr():
                return self._scalar_constant(value.type, value.value.data)
            case DenseIntOrFPElementsAttr():
                vector_type = value.get_type()
                assert isinstance(vector_type, VectorType)
                elements = [
                    self._scalar_constant(vector_type.element_type, v)
                    for v in value.get_values()
                ]
                key = ("composite", vector_type, tuple(elements))
                if key not in self.constants:
                    constant = self.new_id()
                    self.globals.append(
                        Instruction(
                            "OpConstantComposite",
                            self.type_id(vector_type),
                            constant,
                            [Id(e) for e in elements],
                        )
                    )
                    self.constants[key] = constant
                return self.constants[key]
            case _:
                raise TypeError(f"no SPIR-V constant for {value}")

    def int_constant(self, value: int) -> int:
        """An i32 constant (the scope and memory-semantics operands of atomics)."""
        return self._scalar_constant(i32, value)

    def _scalar_constant(self, type_: Attribute, value: float) -> int:
        if isinstance(type_, IntegerType) and type_.width.data == 1:
            key: object = (type_, bool(value))
            opcode, operands = ("OpConstantTrue" if value else "OpConstantFalse"), []
        elif isinstance(type_, IntegerType):
            signed = type_.signedness.data == Signedness.SIGNED
            number = integer_number(int(value), type_.width.data, signed)
            key, opcode, operands = (type_, number.value_words), "OpConstant", [number]
        else:
            width = type_.bitwidth  # type: ignore[attr-defined]
            number = float_number(float(value), width)
            key, opcode, operands = (type_, number.value_words), "OpConstant", [number]
        if key not in self.constants:
            type_id = self.type_id(type_)
            constant = self.new_id()
            self.globals.append(Instruction(opcode, type_id, constant, list(operands)))
            self.constants[key] = constant
        return self.constants[key]


class _FunctionWriter:
    """Writes one spirv.func: parameters, hoisted variables, blocks, phis."""

    def __init__(self, module: _ModuleWriter, func: spirv.FuncOp):
        self.module = module
        self.func = func
        self.out = module.functions
        self.values: dict[SSAValue, int] = {}
        self.labels: dict[Block, int] = {}
        self.current_label = 0
        self.phis: dict[Block, list[Instruction]] = {}
        self.incoming: dict[Block, list[tuple[list[SSAValue], int]]] = {}

    # -- ids -------------------------------------------------------------------------------

    def value(self, value: SSAValue) -> int:
        # Each value's id is kept on its first use, a constant's and a global's too:
        # both are the same id at every use (the module's), and looking them up again
        # (the constant's words, two isinstance checks against ABCs) was a quarter of
        # the serializer on an unrolled kernel.
        known = self.values.get(value)
        if known is not None:
            return known
        owner = value.owner
        if isinstance(owner, spirv.ConstantOp):
            known = self.module.constant_id(owner.value)
        elif isinstance(owner, spirv.AddressOfOp):
            known = self.module.symbol(owner, owner.variable.string_value())
        else:
            known = self.module.new_id()
        self.values[value] = known
        return known

    def ids(self, values: Iterable[SSAValue]) -> list[Operand]:
        return [Id(self.value(v)) for v in values]

    def label(self, block: Block) -> int:
        if block not in self.labels:
            self.labels[block] = self.module.new_id()
        return self.labels[block]

    def emit(
        self,
        name: str,
        result_type: int | None = None,
        result: int | None = None,
        operands: list[Operand] | None = None,
    ) -> None:
        self.out.append(Instruction(name, result_type, result, operands or []))

    # -- function --------------------------------------------------------------------------

    def write(self) -> None:
        func, module = self.func, self.module
        function_type = func.function_type
        outputs = function_type.outputs.data
        result_type = module.type_id(outputs[0]) if outputs else module.void_type()
        control = func.function_control
        self.emit(
            "OpFunction",
            result_type,
            module.symbols[func.sym_name.data],
            [Named(control.text, control.value), Id(module.function_type(function_type))],
        )
        blocks = list(func.body.blocks)
        for arg in blocks[0].args:
            self.emit("OpFunctionParameter", module.type_id(arg.type), self.value(arg))
        self.start_block(blocks[0], parameters=True)
        for op in func.body.walk():
            if isinstance(op, spirv.VariableOp):
                operands: list[Operand] = [
                    Named("Function", enums.STORAGE_CLASS["Function"])
                ]
                if op.initializer is not None:
                    operands.append(Id(self.value(op.initializer)))
                self.emit(
                    "OpVariable",
                    module.type_id(op.pointer.type),
                    self.value(op.pointer),
                    operands,
                )
        self.emit_ops(blocks[0])
        for block in blocks[1:]:
            self.start_block(block)
            self.emit_ops(block)
        self.emit("OpFunctionEnd")
        for block, phis in self.phis.items():
            for index, phi in enumerate(phis):
                for values, predecessor in self.incoming.get(block, []):
                    phi.operands += [Id(self.value(values[index])), Id(predecessor)]

    def start_block(self, block: Block, parameters: bool = False) -> None:
        """`%label = OpLabel`, then one OpPhi per block argument."""
        self.current_label = self.label(block)
        self.emit("OpLabel", None, self.current_label)
        if parameters:
            return
        phis: list[Instruction] = []
        for arg in block.args:
            phi = Instruction("OpPhi", self.module.type_id(arg.type), self.value(arg))
            self.out.append(phi)
            phis.append(phi)
        if phis:
            self.phis[block] = phis

    def branch_to(self, block: Block, values: Iterable[SSAValue]) -> Operand:
        values = list(values)
        if values or block.args:
            self.incoming.setdefault(block, []).append((values, self.current_label))
        return Id(self.label(block))

    def emit_ops(self, block: Block, merge: Instruction | None = None) -> None:
        """Emit `block`'s ops; `merge` (a header's merge instruction) goes right before
        the terminator, in whichever SPIR-V block is current by then."""
        for op in block.ops:
            if merge is not None and op is block.last_op:
                self.out.append(merge)
            self.emit_op(op)

    # -- ops -------------------------------------------------------------------------------

    def emit_op(self, op: Operation) -> None:
        # Most ops are GLSL or one-to-one instructions; their names are tested first,
        # before the class patterns below (an isinstance against an ABC each), none of
        # which they match.
        if op.name.startswith("spirv.GL."):
            self.glsl_op(op)
        elif op.name in SIMPLE_OPS:
            self.simple_op(op)
        else:
            self.structured_op(op)

    def glsl_op(self, op: Operation) -> None:
        """An extended instruction of GLSL.std.450 (`spirv.GL.Sqrt`: OpExtInst Sqrt)."""
        module = self.module
        name = op.name.removeprefix("spirv.GL.")
        assert module.glsl_import is not None
        self.emit(
            "OpExtInst",
            module.type_id(op.results[0].type),
            self.value(op.results[0]),
            [
                Id(module.glsl_import),
                Named(name, GLSL_STD_450[name]),
                *self.ids(op.operands),
            ],
        )
        self.no_contraction(op)

    def simple_op(self, op: Operation) -> None:
        """An op of SIMPLE_OPS: one instruction, result type and id, operand ids."""
        result = op.results[0]
        self.emit(
            SIMPLE_OPS[op.name],
            self.module.type_id(result.type),
            self.value(result),
            self.ids(op.operands),
        )
        self.no_contraction(op)

    def structured_op(self, op: Operation) -> None:
        """Every other op: control flow, memory, atomics, groups, images."""
        module = self.module
        match op:
            case (
                spirv.ConstantOp()
                | spirv.AddressOfOp()
                | spirv.VariableOp()
                | spirv.MergeOp()
            ):
                pass  # module-level, hoisted, or the end of a construct
            case spirv.SelectionOp():
                self.selection(op)
            case spirv.LoopOp():
                self.loop(op)
            case spirv.BranchOp():
                self.emit(
                    "OpBranch", operands=[self.branch_to(op.target, op.targetOperands)]
                )
            case spirv.BranchConditionalOp():
                operands: list[Operand] = [
                    Id(self.value(op.condition)),
                    self.branch_to(op.trueTarget, op.trueTargetOperands),
                    self.branch_to(op.falseTarget, op.falseTargetOperands),
                ]
                if op.branch_weights is not None:
                    operands += [Literal(w.value.data) for w in op.branch_weights]
                self.emit("OpBranchConditional", operands=operands)
            case spirv.ReturnOp():
                self.emit("OpReturn")
            case spirv.ReturnValueOp():
                self.emit("OpReturnValue", operands=[Id(self.value(op.value))])
            case spirv.UnreachableOp():
                self.emit("OpUnreachable")
            case spirv.LoadOp():
                self.emit(
                    "OpLoad",
                    module.type_id(op.value.type),
                    self.value(op.value),
                    [Id(self.value(op.ptr)), *self.memory_access(op)],
                )
            case spirv.StoreOp():
                self.emit(
                    "OpStore",
                    operands=[
                        Id(self.value(op.ptr)),
                        Id(self.value(op.value)),
                        *self.memory_access(op),
                    ],
                )
            case spirv.CompositeExtractOp():
                self.emit(
                    "OpCompositeExtract",
                    module.type_id(op.component.type),
                    self.value(op.component),
                    [
                        Id(self.value(op.composite)),
                        *(Literal(i.value.data) for i in op.indices),
                    ],
                )
            case spirv.CompositeInsertOp():
                self.emit(
                    "OpCompositeInsert",
                    module.type_id(op.result.type),
                    self.value(op.result),
                    [
                        *self.ids((op.object, op.composite)),
                        *(Literal(i.value.data) for i in op.indices),
                    ],
                )
            case spirv.FunctionCallOp():
                results = op.return_value
                result_type = (
                    module.type_id(results[0].type) if results else module.void_type()
                )
                result = self.value(results[0]) if results else module.new_id()
                callee = Id(module.symbol(op, op.callee.string_value()))
                self.emit(
                    "OpFunctionCall", result_type, result, [callee, *self.ids(op.arguments)]
                )
            case spirv.AtomicCompareExchangeOp():
                self.emit(
                    "OpAtomicCompareExchange",
                    module.type_id(op.result.type),
                    self.value(op.result),
                    [
                        Id(self.value(op.pointer)),
                        Id(module.int_constant(op.memory_scope.value)),
                        Id(module.int_constant(op.equal_semantics.value)),
                        Id(module.int_constant(op.unequal_semantics.value)),
                        *self.ids((op.value, op.comparator)),
                    ],
                )
            case spirv.AtomicUpdateOp():
                self.emit(
                    ATOMIC_OPS[op.name],
                    module.type_id(op.result.type),
                    self.value(op.result),
                    [
                        Id(self.value(op.pointer)),
                        Id(module.int_constant(op.memory_scope.value)),
                        Id(module.int_constant(op.semantics.value)),
                        Id(self.value(op.value)),
                    ],
                )
            case spirv.GroupNonUniformArithmeticOp():
                self.emit(
                    "Op" + op.name.removeprefix("spirv."),
                    module.type_id(op.result.type),
                    self.value(op.result),
                    [
                        Id(module.int_constant(op.execution_scope.value)),
                        Literal(op.group_operation.value),
                        Id(self.value(op.value)),
                    ],
                )
            case spirv.GroupNonUniformIndexedOp() | spirv.GroupNonUniformValueOp():
                self.emit(
                    "Op" + op.name.removeprefix("spirv."),
                    module.type_id(op.result.type),
                    self.value(op.result),
                    [
                        Id(module.int_constant(op.execution_scope.value)),
                        *self.ids(op.operands),
                    ],
                )
            case spirv.GroupNonUniformElectOp():
                self.emit(
                    "OpGroupNonUniformElect",
                    module.type_id(op.result.type),
                    self.value(op.result),
                    [Id(module.int_constant(op.execution_scope.value))],
                )
            case spirv.ControlBarrierOp():
                self.emit(
                    "OpControlBarrier",
                    operands=[
                        Id(module.int_constant(op.execution_scope.value)),
                        Id(module.int_constant(op.memory_scope.value)),
                        Id(module.int_constant(op.memory_semantics.value)),
                    ],
                )
            case spirv.MemoryBarrierOp():
                self.emit(
                    "OpMemoryBarrier",
                    operands=[
                        Id(module.int_constant(op.memory_scope.value)),
                        Id(module.int_constant(op.memory_semantics.value)),
                    ],
                )
            case spirv.ImageFetchOp() | spirv.ImageSampleExplicitLodOp():
                name = (
                    "OpImageFetch"
                    if isinstance(op, spirv.ImageFetchOp)
                    else "OpImageSampleExplicitLod"
                )
                image_operand, coordinate, lod = op.operands
                self.emit(
                    name,
                    module.type_id(op.result.type),
                    self.value(op.result),
                    [
                        *self.ids((image_operand, coordinate)),
                        Named("Lod", 0x2),
                        Id(self.value(lod)),
                    ],
                )
            case spirv.ImageWriteOp():
                self.emit("OpImageWrite", operands=self.ids(op.operands))
            case _:
                raise SerializationError(op, "not a SPIR-V op this serializer knows")

    def no_contraction(self, op: Operation) -> None:
        """An op marked `{no_contraction}` (as in MLIR's SPIR-V dialect) is decorated
        NoContraction: the driver may neither fuse nor reassociate it."""
        if "no_contraction" in op.attributes:
            self.module.decorate(self.value(op.results[0]), "NoContraction")

    def memory_access(self, op: spirv.LoadOp | spirv.StoreOp) -> list[Operand]:
        if op.memory_access is None:
            return []
        operands: list[Operand] = [Named(op.memory_access.text, op.memory_access.value)]
        if op.alignment is not None:
            operands.append(Literal(op.alignment.value.data))
        return operands

    def selection(self, op: spirv.SelectionOp) -> None:
        blocks = list(op.body.blocks)
        if not blocks:
            return
        header, merge = blocks[0], blocks[-1]
        control = op.selection_control
        self.emit("OpBranch", operands=[self.branch_to(header, ())])
        self.start_block(header)
        self.emit_ops(
            header,
            Instruction(
                "OpSelectionMerge",
                operands=[Id(self.label(merge)), Named(control.text, control.value)],
            ),
        )
        for block in blocks[1:-1]:
            self.start_block(block)
            self.emit_ops(block)
        self.start_block(merge)

    def loop(self, op: spirv.LoopOp) -> None:
        blocks = list(op.body.blocks)
        if not blocks:
            return
        entry, header, continue_block, merge = blocks[0], blocks[1], blocks[-2], blocks[-1]
        self.emit_ops(entry)  # its only op: the branch to the header
        self.start_block(header)
        control = op.loop_control
        self.emit_ops(
            header,
            Instruction(
                "OpLoopMerge",
                operands=[
                    Id(self.label(merge)),
                    Id(self.label(continue_block)),
                    Named(control.text, control.value),
                ],
            ),
        )
        for block in blocks[2:-1]:
            self.start_block(block)
            self.emit_ops(block)
        self.start_block(merge)
