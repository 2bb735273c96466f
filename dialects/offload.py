"""
The `offload` dialect: a kernel split into tasks that a runtime launches in order.

Taichi's offloaded tasks (seed 004): `ti-offload` turns each outermost parallel loop of a
`taichi.kernel` into a `range_for` task and gathers the statements between them into
`serial` tasks. Tasks are isolated from each other: they read kernel arguments with
`offload.arg` and pass values through global temporaries (`offload.global_tmp`), byte
slots of a buffer that lives as long as the launch.

    offload.kernel @fill : (f32, memref<?xf32>) -> () {
      %n = offload.global_tmp 0 : memref<i32>
      offload.serial {
        %x = offload.arg 1 : memref<?xf32>
        ...
        memref.store %len, %n[] : memref<i32>
      }
      %lo = arith.constant 0 : i32
      %hi = memref.load %n[] : memref<i32>
      offload.range_for %i = %lo to %hi : i32 {
        ...
      }
    }

A range_for's bounds are known before its launch: each is an `arith.constant` or a
`memref.load` of a global temporary, both at kernel level.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    I64,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    SignlessIntegerConstraint,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrConstraint,
    IRDLOperation,
    VarConstraint,
    base,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasAncestor,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa


@irdl_op_definition
class KernelOp(IRDLOperation):
    """
    A kernel as a sequence of tasks; its signature is the Taichi kernel's.

    Example:
        offload.kernel @k : (f32) -> (f32) {
          offload.serial {
            %a = offload.arg 0 : f32
            offload.set_return 0, %a : f32
          }
        }
    """

    name = "offload.kernel"
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    body = region_def("single_block")
    assembly_format = "$sym_name `:` $function_type attr-dict-with-keyword $body"
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), NoTerminator())

    def __init__(
        self,
        name: str,
        function_type: FunctionType,
        body: Region | Block,
        attributes: dict[str, Attribute] | None = None,
    ):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_type": function_type},
            attributes=attributes,
            regions=[body],
        )

    @property
    def tasks(self) -> tuple[TaskOp, ...]:
        return tuple(op for op in self.body.block.ops if isinstance(op, TaskOp))

    def bound_offsets(self) -> set[int]:
        """The offsets of the global temporaries that range_for bounds load."""
        offsets: set[int] = set()
        for task in self.tasks:
            if isinstance(task, RangeForTask):
                for bound in (task.lower, task.upper):
                    load = bound.owner
                    if isinstance(load, memref.LoadOp) and isinstance(
                        load.memref.owner, GlobalTmpOp
                    ):
                        offsets.add(load.memref.owner.offset.value.data)
        return offsets

    def verify_(self) -> None:
        if self.body.block.args:
            raise VerifyException(
                f"'{self.name}' body takes no arguments: tasks read them with offload.arg"
            )
        allowed = (TaskOp, GlobalTmpOp, arith.ConstantOp, memref.LoadOp)
        for op in self.body.block.ops:
            if not isinstance(op, allowed):
                raise VerifyException(
                    f"'{self.name}' body holds tasks and their bounds only, got {op.name}"
                )
        previous: TaskOp | None = None
        for task in self.tasks:
            if isinstance(task, RangeForTask) and task.serial_form is not None:
                if not (
                    isinstance(previous, RangeForTask)
                    and previous.serial_form is None
                    and (previous.lower, previous.upper) == (task.lower, task.upper)
                ):
                    raise VerifyException(
                        f"'{self.name}' a serial_form range_for must follow the "
                        "range_for it stands for, with the same bounds"
                    )
            previous = task


class TaskOp(IRDLOperation, ABC):
    """Shared shape of the tasks: one block, isolated, run by the runtime as a unit."""

    body = region_def("single_block")
    traits = traits_def(
        HasParent(KernelOp), IsolatedFromAbove(), NoTerminator(), RecursiveMemoryEffect()
    )


@irdl_op_definition
class SerialTask(TaskOp):
    """
    A task run once, by one thread (statements between parallel loops).

    Example:
        offload.serial {
          %s = offload.global_tmp 0 : memref<f32>
        }
    """

    name = "offload.serial"
    assembly_format = "$body attr-dict"

    def __init__(self, body: Region | Block):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(regions=[body])

    def verify_(self) -> None:
        if self.body.block.args:
            raise VerifyException(f"'{self.name}' body takes no arguments")


def _verify_bound(op: Operation, value: SSAValue, which: str) -> None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        return
    if isinstance(owner, memref.LoadOp) and isinstance(owner.memref.owner, GlobalTmpOp):
        return
    source = owner.name if isinstance(owner, Operation) else "a block argument"
    raise VerifyException(
        f"'{op.name}' {which} bound must be an arith.constant or a memref.load of an "
        f"offload.global_tmp, got a value of {source}"
    )


@irdl_op_definition
class RangeForTask(TaskOp):
    """
    A parallel loop task: the runtime splits [lower, upper) among its threads.

    Each thread runs `prologue` once, then `body` for each index of its share, then
    `epilogue` once. Together with `offload.thread_local` slots this is how a reduction
    accumulates per thread and combines once (Taichi's TLS prologue/epilogue).

    With `serial_form` the task is not one of the kernel's steps but another form of the
    range_for right before it (same bounds), for a launch that runs the whole range on
    one thread: its atomics are plain loads and stores (ti-add-serial-forms). The
    runtime runs one of the two forms.

    Example:
        %lo = arith.constant 0 : i32
        %hi = arith.constant 1024 : i32
        offload.range_for %i = %lo to %hi : i32 {
        } prologue {
          %acc = offload.thread_local 0 : memref<f32>
        } epilogue {
          %acc = offload.thread_local 0 : memref<f32>
        }
    """

    name = "offload.range_for"
    T: ClassVar = VarConstraint("T", base(IndexType) | SignlessIntegerConstraint)
    lower = operand_def(T)
    upper = operand_def(T)
    body = region_def("single_block")
    prologue = region_def()
    epilogue = region_def()
    block_dim = opt_prop_def(IntegerAttr[I64])
    serial_form = opt_prop_def(UnitAttr)

    def __init__(
        self,
        lower: SSAValue | Operation,
        upper: SSAValue | Operation,
        body: Region | Block,
        block_dim: int | None = None,
        prologue: Region | None = None,
        epilogue: Region | None = None,
    ):
        if isinstance(body, Block):
            body = Region(body)
        props = {} if block_dim is None else {"block_dim": IntegerAttr(block_dim, i64)}
        super().__init__(
            operands=[lower, upper],
            regions=[body, prologue or Region(), epilogue or Region()],
            properties=props,
        )

    @property
    def index(self) -> SSAValue:
        return self.body.block.args[0]

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != 1 or args[0].type != self.lower.type:
            raise VerifyException(
                f"'{self.name}' expects one body argument of type {self.lower.type}, "
                f"got ({', '.join(str(arg.type) for arg in args)})"
            )
        for region_name, region in (("prologue", self.prologue), ("epilogue", self.epilogue)):
            if len(region.blocks) > 1 or (region.blocks and region.block.args):
                raise VerifyException(
                    f"'{self.name}' {region_name} must be one block without arguments"
                )
        _verify_bound(self, self.lower, "lower")
        _verify_bound(self, self.upper, "upper")

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
        for keyword, region in (("prologue", self.prologue), ("epilogue", self.epilogue)):
            if region.blocks:
                printer.print_string(f" {keyword} ")
                printer.print_region(region)
        printer.print_op_attributes({**self.properties, **self.attributes})

    @classmethod
    def parse(cls, parser: Parser) -> RangeForTask:
        index = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lower = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        upper = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        index_type = parser.parse_type()
        body = parser.parse_region((index.resolve(index_type),))
        prologue = parser.parse_region() if parser.parse_optional_keyword("prologue") else None
        epilogue = parser.parse_region() if parser.parse_optional_keyword("epilogue") else None
        op = cls(
            parser.resolve_operand(lower, index_type),
            parser.resolve_operand(upper, index_type),
            body,
            prologue=prologue,
            epilogue=epilogue,
        )
        for name, value in parser.parse_optional_attr_dict().items():
            if name in ("block_dim", "serial_form"):
                op.properties[name] = value
            else:
                op.attributes[name] = value
        return op


@irdl_op_definition
class LastGroupOp(IRDLOperation):
    """
    The end of a range_for's epilogue that runs once a launch: in one invocation of the
    workgroup that finishes last, after every workgroup's epilogue before it (its
    combines) has landed. `counter` is the i32 global temporary that counts finished
    workgroups (0 between launches; the workgroup that finishes last resets it).
    ti-fuse-serial-reduction puts a serial task here, so that the launch needs one
    dispatch fewer (Vulkan only: convert-offload-to-spirv lowers it).

    Example:
        offload.range_for %i = %lo to %hi : i32 {
          ...
        } epilogue {
          %n = offload.global_tmp 8 : memref<i32>
          offload.last_group %n : memref<i32> {
            ...
          }
        }
    """

    name = "offload.last_group"
    counter = operand_def(MemRefType)
    body = region_def("single_block")
    traits = traits_def(HasParent(RangeForTask), NoTerminator(), RecursiveMemoryEffect())
    assembly_format = "$counter `:` type($counter) $body attr-dict"

    def __init__(self, counter: SSAValue | Operation, body: Region | Block):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(operands=[counter], regions=[body])

    def verify_(self) -> None:
        parent = self.parent_op()
        if isinstance(parent, RangeForTask) and self.parent_region() is not parent.epilogue:
            raise VerifyException(f"'{self.name}' must be in a range_for's epilogue")
        counter_type = self.counter.type
        assert isa(counter_type, MemRefType)
        if counter_type.get_num_dims() != 0 or counter_type.element_type != i32:
            raise VerifyException(
                f"'{self.name}' counter must be a memref<i32>, got {counter_type}"
            )
        if self.body.block.args:
            raise VerifyException(f"'{self.name}' body takes no arguments")
        if self.next_op is not None:
            raise VerifyException(f"'{self.name}' must be the last op of the epilogue")


@irdl_op_definition
class StructForTask(TaskOp):
    """
    A parallel task over every element index of a field.

    Example:
        offload.struct_for @x : memref<4x8xf32> {
        ^bb0(%i: i32, %j: i32):
        }
    """

    name = "offload.struct_for"
    field = prop_def(SymbolRefAttr)
    field_type = prop_def(MemRefType)
    assembly_format = "$field `:` $field_type $body attr-dict"

    def __init__(self, field: str, field_type: MemRefType, body: Region | Block):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            properties={"field": SymbolRefAttr(field), "field_type": field_type},
            regions=[body],
        )

    def verify_(self) -> None:
        rank = self.field_type.get_num_dims()
        args = self.body.block.args
        if len(args) != rank or any(arg.type != i32 for arg in args):
            raise VerifyException(
                f"'{self.name}' over a {rank}-d field expects {rank} i32 body arguments, "
                f"got ({', '.join(str(arg.type) for arg in args)})"
            )


@irdl_op_definition
class ArgOp(IRDLOperation):
    """
    Read kernel argument `index` inside a task (Taichi's ArgLoadStmt). An ndarray
    argument reads as its memref: pointer and shape.

    Example: `%x = offload.arg 1 : memref<?xf32>`
    """

    name = "offload.arg"
    index = prop_def(IntegerAttr[I64])
    result = result_def()
    assembly_format = "$index attr-dict `:` type($result)"
    traits = traits_def(Pure(), HasAncestor(SerialTask, RangeForTask, StructForTask))

    def __init__(self, index: int, result_type: Attribute):
        super().__init__(
            properties={"index": IntegerAttr(index, i64)}, result_types=[result_type]
        )

    def verify_(self) -> None:
        kernel = _kernel_of(self)
        if kernel is None:
            return
        inputs = kernel.function_type.inputs.data
        index = self.index.value.data
        if not 0 <= index < len(inputs):
            raise VerifyException(
                f"'{self.name}' reads argument {index} of a kernel with {len(inputs)}"
            )
        if inputs[index] != self.result.type:
            raise VerifyException(
                f"'{self.name}' reads argument {index} as {self.result.type}, but the "
                f"kernel declares it {inputs[index]}"
            )


def _kernel_of(op: Operation) -> KernelOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        parent = parent.parent_op()
    return parent


@irdl_op_definition
class GlobalTmpOp(IRDLOperation):
    """
    The global temporary at byte `offset`: a scalar slot that outlives a task, so
    one task can hand a value to the next (or to a range_for's bounds).

    Example: `%n = offload.global_tmp 8 : memref<i32>`
    """

    name = "offload.global_tmp"
    offset = prop_def(IntegerAttr[I64])
    result = result_def(MemRefType)
    assembly_format = "$offset attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, offset: int, element_type: Attribute):
        super().__init__(
            properties={"offset": IntegerAttr(offset, i64)},
            result_types=[MemRefType(element_type, [])],
        )

    def verify_(self) -> None:
        result_type = self.result.type
        assert isa(result_type, MemRefType)
        if result_type.get_num_dims() != 0:
            raise VerifyException(
                f"'{self.name}' expects a 0-d memref result, got {result_type}"
            )
        if self.offset.value.data < 0:
            raise VerifyException(
                f"'{self.name}' has a negative offset {self.offset.value.data}"
            )


@irdl_op_definition
class ThreadLocalOp(IRDLOperation):
    """
    The thread-local slot at byte `offset` of a range_for task: private to the thread
    running a share of the loop, shared by its prologue, body and epilogue.

    Example: `%acc = offload.thread_local 0 : memref<f32>`
    """

    name = "offload.thread_local"
    offset = prop_def(IntegerAttr[I64])
    result = result_def(MemRefType)
    assembly_format = "$offset attr-dict `:` type($result)"
    traits = traits_def(Pure(), HasAncestor(RangeForTask))

    def __init__(self, offset: int, element_type: Attribute):
        super().__init__(
            properties={"offset": IntegerAttr(offset, i64)},
            result_types=[MemRefType(element_type, [])],
        )

    def verify_(self) -> None:
        result_type = self.result.type
        assert isa(result_type, MemRefType)
        if result_type.get_num_dims() != 0:
            raise VerifyException(
                f"'{self.name}' expects a 0-d memref result, got {result_type}"
            )


@irdl_op_definition
class SetReturnOp(IRDLOperation):
    """
    Set the kernel's return value `index` (in a serial task).

    Example: `offload.set_return 0, %s : f32`
    """

    name = "offload.set_return"
    index = prop_def(IntegerAttr[I64])
    value = operand_def()
    assembly_format = "$index `,` $value attr-dict `:` type($value)"
    traits = traits_def(HasAncestor(SerialTask, RangeForTask, StructForTask))

    def __init__(self, index: int, value: SSAValue | Operation):
        super().__init__(
            properties={"index": IntegerAttr(index, i64)}, operands=[value]
        )

    def verify_(self) -> None:
        kernel = _kernel_of(self)
        if kernel is None:
            return
        outputs = kernel.function_type.outputs.data
        index = self.index.value.data
        if not 0 <= index < len(outputs):
            raise VerifyException(
                f"'{self.name}' sets return value {index} of a kernel with "
                f"{len(outputs)}"
            )
        if outputs[index] != self.value.type:
            raise VerifyException(
                f"'{self.name}' returns a {self.value.type} as value {index}, but the "
                f"kernel declares {outputs[index]}"
            )


def _llvm_pointer() -> Attribute:
    from xdsl.dialects.llvm import LLVMPointerType

    return LLVMPointerType()


@dataclass(frozen=True)
class LLVMPointerConstraint(AttrConstraint):
    """
    `!llvm.ptr`, checked by its name: the ops that hold one are made only on the CPU
    path, and a Vulkan compile, which never builds them, need not import xDSL's llvm
    dialect (50-80 ms of a process's first kernel).
    """

    def verify(self, attr: Attribute, constraint_context: Any) -> None:
        if attr.name != "llvm.ptr":
            raise VerifyException(f"{attr} should be of base attribute llvm.ptr")

    def mapping_type_vars(self, type_var_mapping: Mapping[Any, Any]) -> AttrConstraint:
        return self


@irdl_op_definition
class ContextOp(IRDLOperation):
    """
    The RuntimeContext pointer of the running task (utils/abi.py). `ti-lower-access`
    reads buffers through it while tasks are still ops; `convert-offload-to-llvm`
    replaces it with the `%ctx` argument of the task's function. Inside a real
    function (`func.func`) it is the context of the task that called the function.

    Example: `%ctx = offload.context : !llvm.ptr`
    """

    name = "offload.context"
    result = result_def(LLVMPointerConstraint())
    assembly_format = "attr-dict `:` type($result)"
    traits = traits_def(
        Pure(), HasAncestor(SerialTask, RangeForTask, StructForTask, FuncOp)
    )

    def __init__(self):
        super().__init__(result_types=[_llvm_pointer()])


@irdl_op_definition
class ThreadLocalBufferOp(IRDLOperation):
    """
    The start of a range_for task's thread-local buffer, `size` bytes that hold every
    `offload.thread_local` slot of the task (what `ti-lower-access` makes of them).
    `convert-offload-to-llvm` allocates the buffer once per call of the task function.

    Example: `%tls = offload.thread_local_buffer 8 : !llvm.ptr`
    """

    name = "offload.thread_local_buffer"
    size = prop_def(IntegerAttr[I64])
    result = result_def(LLVMPointerConstraint())
    assembly_format = "$size attr-dict `:` type($result)"
    traits = traits_def(Pure(), HasAncestor(RangeForTask))

    def __init__(self, size: int):
        super().__init__(
            properties={"size": IntegerAttr(size, i64)}, result_types=[_llvm_pointer()]
        )

    def verify_(self) -> None:
        if self.size.value.data <= 0:
            raise VerifyException(
                f"'{self.name}' expects a positive size, got {self.size.value.data}"
            )


@irdl_op_definition
class CfgOp(IRDLOperation):
    """
    A task's code as a control-flow graph: blocks joined by `cf.br` / `cf.cond_br`,
    run once from the first block until a block ends in `offload.cfg_exit`. What
    `convert-taichi-to-cf` makes of a task region that holds taichi control flow (the
    task's own region must stay one block); for a range_for task's body, the exit is
    the end of one iteration.

    Example:
        offload.serial {
          offload.cfg {
            cf.cond_br %c, ^then, ^end
          ^then:
            cf.br ^end
          ^end:
            offload.cfg_exit
          }
        }
    """

    name = "offload.cfg"
    body = region_def()
    assembly_format = "$body attr-dict"
    traits = traits_def(
        RecursiveMemoryEffect(), HasAncestor(SerialTask, RangeForTask, StructForTask)
    )

    def __init__(self, body: Region):
        super().__init__(regions=[body])

    def verify_(self) -> None:
        if not self.body.blocks:
            raise VerifyException(f"'{self.name}' needs at least one block")
        if self.body.blocks[0].args:
            raise VerifyException(f"'{self.name}' entry block takes no arguments")


@irdl_op_definition
class CfgExitOp(IRDLOperation):
    """
    The end of an `offload.cfg`: control leaves the graph here.

    Example: `offload.cfg_exit`
    """

    name = "offload.cfg_exit"
    assembly_format = "attr-dict"
    traits = traits_def(IsTerminator(), HasParent(CfgOp))


Offload = Dialect(
    "offload",
    [
        KernelOp,
        SerialTask,
        RangeForTask,
        LastGroupOp,
        StructForTask,
        ArgOp,
        GlobalTmpOp,
        ThreadLocalOp,
        SetReturnOp,
        ContextOp,
        ThreadLocalBufferOp,
        CfgOp,
        CfgExitOp,
    ],
)
