"""
ti-offload: split each `taichi.kernel` into the tasks the runtime launches in order.

Only the outermost loops of a Taichi kernel run in parallel. Like Taichi's offload pass
(taichi/transforms/offload.cpp; seed 004 walks through it), each outermost `range_for`
without `serialize` becomes an `offload.range_for` task, an outermost `struct_for` over a
field an `offload.struct_for` task, and each run of other statements between them an
`offload.serial` task (empty ones are dropped). `taichi.return %v` becomes
`offload.set_return 0, %v` in the last serial task.

Tasks are isolated from each other, so every value a task uses from outside gets in:
- a kernel argument: `offload.arg N` inside the task;
- a cheap pure value (arith.constant, taichi.get_field, memref.dim of an argument, an
  index_cast or element_ptr of those): cloned into the task. Like Taichi, ndarray shapes
  are re-read in each task instead of going through memory;
- a pure pointer (taichi.element_ptr) from another task: cloned, its operands imported;
- any other scalar computed in an earlier task: through a global temporary, stored right
  after its definition in the producer task and loaded at the top of the consumer;
- a kernel-level alloca (a local variable) used by one serial task only moves into it;
  otherwise (several tasks, or a parallel loop) it becomes a global temporary, as in
  Taichi.
A range_for task's bounds are known before its launch: a constant is cloned to kernel
level; any other bound (from a kernel argument, x.shape[0] + 1, ...) is stored by the
serial task before it and loaded at kernel level.

    taichi.kernel @saxpy(%a: f32, %x: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %d = memref.dim %x, %c0 : memref<?xf32>
      %n = arith.index_cast %d : index to i32
      %lo = arith.constant 0 : i32
      taichi.range_for %i = %lo to %n : i32 { ... (uses %a, %x) ; taichi.yield }
      taichi.return
    }
    ~>
    offload.kernel @saxpy : (f32, memref<?xf32>) -> () {
      offload.serial {
        %x = offload.arg 1 : memref<?xf32>
        %c0 = arith.constant 0 : index
        %d = memref.dim %x, %c0 : memref<?xf32>
        %n = arith.index_cast %d : index to i32
        %g = offload.global_tmp 0 : memref<i32>
        memref.store %n, %g[] : memref<i32>
      }
      %g = offload.global_tmp 0 : memref<i32>
      %hi = memref.load %g[] : memref<i32>
      %lo = arith.constant 0 : i32
      offload.range_for %i = %lo to %hi : i32 {
        %a = offload.arg 0 : f32
        %x = offload.arg 1 : memref<?xf32>
        ...
      }
    }

Global temporaries get byte offsets in order of first use, each aligned to its size.

A real function of the module (`func.func`, a ti.real_func called for real) stays
outside the tasks, as it is; its calls (`func.call`) are ordinary ops of the tasks they
fall in (never cloned: a call may write fields), their results carried across tasks like
any other scalar.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.utils.hints import isa

from taichi_xdsl.dialects import offload, taichi
from taichi_xdsl.lowering.dead_code import region_dce
from taichi_xdsl.utils.diagnostics import PassFailedAt

_CLONEABLE = (
    arith.ConstantOp,
    taichi.GetFieldOp,
    memref.DimOp,
    arith.IndexCastOp,
    taichi.ElementPtrOp,
)
"""Ops whose results are recomputed in each task that needs them (when their operands
are kernel arguments or such results too)."""

_Segment = list[Operation] | taichi.RangeForOp | taichi.StructForOp
"""A serial run of top-level statements, or one parallel loop."""


def byte_size(element_type: Attribute) -> int:
    """Bytes a scalar of `element_type` takes in a global temporary."""
    if isinstance(element_type, IntegerType):
        return max(1, (element_type.width.data + 7) // 8)
    if isinstance(element_type, AnyFloat):
        return element_type.bitwidth // 8
    assert isinstance(element_type, IndexType)
    return 8


def _is_parallel_loop(op: Operation) -> bool:
    return isinstance(op, taichi.RangeForOp | taichi.StructForOp) and op.serialize is None


def _is_scalar(value: SSAValue) -> bool:
    return isinstance(value.type, IntegerType | AnyFloat | IndexType)


def _check_no_break(loop: taichi.RangeForOp | taichi.StructForOp) -> None:
    """A parallel loop cannot be left early: reject a `break` that targets it."""
    for op in loop.walk():
        if isinstance(op, taichi.BreakOp) and taichi.innermost_loop(op) is loop:
            raise PassFailedAt(
                op, "ti-offload: 'break' cannot leave a parallel loop (serialize it)"
            )


class _KernelOffloader:
    """The state of offloading one kernel: its tasks and global temporaries."""

    def __init__(self, kernel: taichi.KernelOp):
        self.kernel = kernel
        self.block = kernel.body.block
        self.body = Block()
        # Cloneable ops and kernel-level allocas, in program order.
        self.floating: dict[Operation, None] = {}
        self.anchor: dict[offload.TaskOp, Operation | None] = {}
        self.imported: dict[tuple[offload.TaskOp, SSAValue], SSAValue] = {}
        self.offsets: dict[SSAValue, int] = {}
        self.stored: set[SSAValue] = set()
        self.end = 0

    # -- planning ---------------------------------------------------------------------

    def segments(self) -> list[_Segment]:
        """Serial runs and parallel loops, in order; a (maybe empty) serial run before
        each loop, where the loop's bounds can be computed."""
        segments: list[_Segment] = []
        serial: list[Operation] = []
        for op in list(self.block.ops):
            if isinstance(op, taichi.ReturnOp):
                for index, value in enumerate(op.values):
                    serial.append(set_return := offload.SetReturnOp(index, value))
                    set_return.location = op.location
                Rewriter.erase_op(op)
            elif self._is_floating(op):
                self.floating[op] = None
            elif _is_parallel_loop(op):
                assert isinstance(op, taichi.RangeForOp | taichi.StructForOp)
                _check_no_break(op)
                segments += [serial, op]
                serial = []
            else:
                serial.append(op)
        return [*segments, serial]

    def _is_floating(self, op: Operation) -> bool:
        if isinstance(op, memref.AllocaOp):
            return True
        return isinstance(op, _CLONEABLE) and all(
            (isinstance(v, BlockArgument) and v.block is self.block)
            or v.owner in self.floating
            for v in op.operands
        )

    def home_of_allocas(self, segments: list[_Segment]) -> dict[int, list[Operation]]:
        """The kernel-level allocas that only one serial run uses, by run."""
        segment_of = {
            op: index
            for index, segment in enumerate(segments)
            for op in (segment if isinstance(segment, list) else [segment])
        }
        homes: dict[int, list[Operation]] = {}
        for alloca in self.floating:
            if not isinstance(alloca, memref.AllocaOp):
                continue
            users = set[int]()
            for use in alloca.memref.uses:
                top: Operation | None = use.operation
                while top is not None and top not in segment_of:
                    top = top.parent_op()
                users.add(-1 if top is None else segment_of[top])
            if len(users) == 1 and isinstance(segments[index := users.pop()], list):
                homes.setdefault(index, []).append(alloca)
        return homes

    # -- building tasks ---------------------------------------------------------------

    def run(self) -> offload.KernelOp:
        segments = self.segments()
        homes = self.home_of_allocas(segments)
        for alloca in (a for allocas in homes.values() for a in allocas):
            del self.floating[alloca]
        tasks: list[offload.TaskOp] = []
        for index, segment in enumerate(segments):
            if isinstance(segment, list):
                ops = homes.get(index, []) + segment
                task = self._serial_task(ops)
            else:
                task = self._loop_task(segment, tasks[-1])
            tasks.append(task)
            self._import_operands(task)
        for task in tasks:
            if isinstance(task, offload.SerialTask):
                region_dce(task.body)  # values every consumer recomputes
                if task.body.block.is_empty:
                    Rewriter.erase_op(task)
        for op in reversed(list(self.block.ops)):
            Rewriter.erase_op(op)  # floating ops, all of them cloned where used
        kernel = offload.KernelOp(
            self.kernel.sym_name.data,
            self.kernel.function_type,
            self.body,
            dict(self.kernel.attributes),
        )
        kernel.location = self.kernel.location
        return kernel

    def _serial_task(self, ops: list[Operation]) -> offload.SerialTask:
        block = Block()
        for op in ops:
            if op.parent is not None:
                op.detach()
            block.add_op(op)
        task = offload.SerialTask(block)
        task.location = ops[0].location if ops else self.kernel.location
        return self._add_task(task)

    def _loop_task(
        self, loop: taichi.RangeForOp | taichi.StructForOp, before: offload.TaskOp
    ) -> offload.TaskOp:
        body = loop.detach_region(loop.body)
        terminator = body.block.last_op
        assert isinstance(terminator, taichi.YieldOp | taichi.ContinueOp)
        Rewriter.erase_op(terminator)  # the end of an iteration, implicit in a task
        if isinstance(loop, taichi.StructForOp):
            field = loop.container.owner
            if not isinstance(field, taichi.GetFieldOp):
                raise PassFailedAt(
                    loop,
                    "ti-offload: a struct_for over an ndarray needs "
                    "ti-demote-dense-struct-for first",
                )
            container_type = loop.container.type
            assert isa(container_type, MemRefType)
            task = offload.StructForTask(
                field.field.root_reference.data, container_type, body
            )
        else:
            assert isinstance(before, offload.SerialTask)
            lower = self._bound(loop.lower, before)
            upper = self._bound(loop.upper, before)
            block_dim = loop.attributes.get("block_dim")
            task = offload.RangeForTask(
                lower,
                upper,
                body,
                block_dim=block_dim.value.data if isa(block_dim, IntegerAttr) else None,
            )
        task.location = loop.location
        Rewriter.erase_op(loop)
        return self._add_task(task)

    def _add_task(self, task: offload.TaskOp) -> offload.TaskOp:
        self.body.add_op(task)
        self.anchor[task] = task.body.block.first_op
        return task

    def _bound(self, value: SSAValue, producer: offload.SerialTask) -> SSAValue:
        """A range_for bound at kernel level: a constant, or a global temporary's load."""
        if isinstance(value.owner, arith.ConstantOp):
            self.body.add_op(constant := value.owner.clone())
            return constant.result
        self._store(value, producer)
        tmp = self._tmp(value, value.type)
        load = memref.LoadOp.get(tmp, [])
        load.res.name_hint = value.name_hint
        for op in (tmp, load):
            op.location = self._location(value)
            self.body.add_op(op)
        return load.res

    # -- crossing task boundaries -------------------------------------------------------

    def _import_operands(self, task: offload.TaskOp) -> None:
        for op in list(task.walk())[1:]:
            for index, value in enumerate(op.operands):
                if not task.is_ancestor(value.owner):
                    op.operands[index] = self._import(value, task)

    def _import(self, value: SSAValue, task: offload.TaskOp) -> SSAValue:
        """`value`, defined outside `task`, as a value inside it."""
        key = (task, value)
        if key not in self.imported:
            self.imported[key] = self._materialize(value, task)
        return self.imported[key]

    def _materialize(self, value: SSAValue, task: offload.TaskOp) -> SSAValue:
        owner = value.owner
        if isinstance(value, BlockArgument):
            return self._insert(task, offload.ArgOp(value.index, value.type), value).result
        assert isinstance(owner, Operation)
        if isinstance(owner, memref.AllocaOp):
            return self._insert(task, self._local_tmp(value), value).result
        if owner in self.floating or (is_side_effect_free(owner) and not _is_scalar(value)):
            clone = owner.clone()
            clone.operands = [self._import(operand, task) for operand in owner.operands]
            return self._insert(task, clone, value).results[value.index]
        if _is_scalar(value):
            self._store(value, None)
            tmp = self._insert(task, self._tmp(value, value.type), value)
            return self._insert(task, memref.LoadOp.get(tmp, []), value).res
        raise PassFailedAt(
            owner, f"ti-offload: a {value.type} computed in one task cannot reach another"
        )

    def _store(self, value: SSAValue, producer: offload.SerialTask | None) -> None:
        """Store `value` into its global temporary once: right after its definition, or
        (a floating value) at the end of the serial task `producer`."""
        if value in self.stored:
            return
        self.stored.add(value)
        tmp = self._tmp(value, value.type)
        owner = value.owner
        if isinstance(owner, Operation) and owner not in self.floating:
            ops = [tmp, memref.StoreOp.get(value, tmp, [])]
            Rewriter.insert_op(ops, InsertPoint.after(owner))
        else:
            assert producer is not None
            ops = [tmp, memref.StoreOp.get(self._import(value, producer), tmp, [])]
            Rewriter.insert_op(ops, InsertPoint.at_end(producer.body.block))
        for op in ops:
            op.location = self._location(value)

    def _local_tmp(self, slot: SSAValue) -> offload.GlobalTmpOp:
        """The global temporary standing in for the kernel-level alloca `slot`."""
        slot_type = slot.type
        assert isa(slot_type, MemRefType)
        if slot_type.get_num_dims() != 0:
            raise PassFailedAt(
                slot.owner,  # pyright: ignore[reportArgumentType]
                f"ti-offload: the local {slot_type} is used by several tasks or a "
                "parallel loop; only scalar locals can become global temporaries",
            )
        return self._tmp(slot, slot_type.element_type)

    def _tmp(self, key: SSAValue, element_type: Attribute) -> offload.GlobalTmpOp:
        """The global temporary of `key` (a value or a local slot); the first request
        takes the next offset aligned to the element's size."""
        if key not in self.offsets:
            size = byte_size(element_type)
            self.offsets[key] = -(-self.end // size) * size
            self.end = self.offsets[key] + size
        return offload.GlobalTmpOp(self.offsets[key], element_type)

    def _insert(self, task: offload.TaskOp, op: Operation, origin: SSAValue) -> Operation:
        op.location = self._location(origin)
        if isinstance(op, offload.ArgOp | memref.LoadOp):
            op.results[0].name_hint = origin.name_hint  # %x stays %x inside the task
        anchor = self.anchor[task]
        if anchor is None:
            task.body.block.add_op(op)
        else:
            task.body.block.insert_op_before(op, anchor)
        return op

    def _location(self, value: SSAValue) -> Attribute:
        owner = value.owner
        return owner.location if isinstance(owner, Operation) else self.kernel.location


class OffloadPass(ModulePass):
    """
    Split every taichi.kernel into serial, range_for and struct_for tasks.

    A kernel is rewritten as a whole (which ops share a task depends on the whole body),
    so the pass replaces each kernel directly instead of through a pattern walker.
    """

    name = "ti-offload"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.body.block.ops if isinstance(k, taichi.KernelOp)]:
            Rewriter.replace_op(kernel, _KernelOffloader(kernel).run())
