"""
ti-fuse-serial-reduction: a serial task that initialises the place a reduction combines
into (a sum; an integer min or max) runs in the reduction's own launch, by its last
workgroup, instead of as a dispatch of its own (Vulkan: one dispatch and one barrier
fewer; on an H100 the serial task of `total[None] = 0.0; for i in ...: total[None] +=
x[i]` cost 4.6 us of a 39 us launch).

The classic "last workgroup" pattern: the range_for's combines that add into a place the
serial task stores add into a hidden global temporary (an accumulator) instead; the
epilogue ends with an `offload.last_group`, which the workgroup that finishes last runs
once (convert-offload-to-spirv: it counts finished workgroups in a hidden i32 global
temporary): the serial task's body, then each accumulator read, reset to 0 and added
into the user's place, as the combine would have added it.

    offload.serial {
      %z = arith.constant 0.0 : f32
      %t = <total[None]>
      memref.store %z, %t[]
      %n = <x.shape[0]>
      memref.store %n, %gtmp0[]
    }
    offload.range_for %i = %c0 to (load %gtmp0) { ... } epilogue {
      %p = <thread-local partial>
      %t = <total[None]>
      taichi.atomic_add %t, %p
    }
      ~>
    offload.serial {                      (bounds only: fold-bounds recomputes them in
      %n = <x.shape[0]>                    the range_for and skips this task)
      memref.store %n, %gtmp0[]
    }
    offload.range_for %i = %c0 to (load %gtmp0) { ... } epilogue {
      %p = <thread-local partial>
      %t = <total[None]>
      %acc = offload.global_tmp 8 : memref<f32>
      taichi.atomic_add %acc, %p
      %count = offload.global_tmp 16 : memref<i32>
      offload.last_group %count : memref<i32> {
        %z = arith.constant 0.0 : f32
        %t2 = <total[None]>
        memref.store %z, %t2[]
        %v = taichi.atomic_add %acc, %zero      (read atomically)
        memref.store %zero, %acc[]              (reset)
        taichi.atomic_add %t, %v
      }
    }

The serial task's stores of range_for bounds (global temporaries that a range_for's
bounds read), when computed from the kernel's arguments alone, stay in a serial task
before the range_for, so the bounds are known before it starts.

Fused only when it provably computes the same results:
- the serial task runs straight-line code of pure ops, address computations, loads and
  stores (no atomics, prints, asserts, returns, loops);
- the range_for (body, prologue, epilogue) touches no place the serial task stores,
  except through the combines being redirected, and writes no place the serial task
  loads ("place": a field, a global temporary; every ndarray counts as one place, as
  two arguments may be the same array);
- each redirected combine is an add of an i32, i64, f32 or f64, or a min or max of an
  i32 or i64, whose result is unused, at the top of the epilogue, into an element of
  constant indices (the same place for every invocation). An integer min or max
  accumulates keys, `value ^ M`, with an unsigned max, M chosen so that the identity's
  key is 0 (a zeroed accumulator) and keys order as the values do (signed max: the sign
  bit; signed min: every other bit, which reverses the order; unsigned min: all bits);
  the last workgroup turns the key back and combines it as the loop did:

      taichi.atomic_min %t, %p : memref<i32>
        ~>  %k = arith.xori %p, 0x7fffffff; taichi.atomic_max unsigned %acc, %k
            last group: %v = arith.xori <read %acc>, 0x7fffffff; taichi.atomic_min %t, %v

  A float min or max is not fused (its identity, +-inf, has no order-keeping key of 0
  that keeps NaN and -0.0 as the float compare treats them);
- the range_for is not known to be empty (a launch of no workgroup would not run the
  serial task).
Accumulators start at 0 (global temporaries are zeroed when a kernel is loaded) and the
last workgroup resets them and the counter, so every launch starts from the same state;
every dispatched workgroup combines its partial (the identity if it had no element), so
the last one never reads an accumulator no group wrote.
Float sums are only reordered (the partials reach the place as one sum), as in every
parallel reduction.
"""

from __future__ import annotations

from dataclasses import dataclass

from taichi_xdsl.dialects import offload, taichi
from taichi_xdsl.lowering.dead_code import region_dce
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
    i32,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

Place = tuple[object, ...]
"""A place memory may be accessed at: ("field", name), ("gtmp", offset), ("ndarray",)
(every ndarray argument: two may be one array), ("local", offset) (a thread-local slot)
or ("alloca", id) (a local variable of the invocation)."""

_ADDRESS_OPS = (
    offload.ArgOp,
    offload.GlobalTmpOp,
    offload.ThreadLocalOp,
    taichi.GetFieldOp,
    taichi.ElementPtrOp,
    memref.DimOp,
)
_MEMORY_OPS = (memref.LoadOp, memref.StoreOp, taichi.AtomicOp, taichi.AtomicCasOp)
_CONTROL_OPS = (
    taichi.IfOp,
    taichi.WhileOp,
    taichi.YieldOp,
    taichi.BreakOp,
    taichi.ContinueOp,
    scf.IfOp,
    scf.ForOp,
    scf.WhileOp,
    scf.YieldOp,
    scf.ConditionOp,
)


def _place(pointer: SSAValue) -> Place | None:
    """The place `pointer` points into, None when it cannot be told."""
    owner = pointer.owner
    while isinstance(owner, taichi.ElementPtrOp):
        owner = owner.base.owner
    if isinstance(owner, taichi.GetFieldOp):
        return ("field", owner.field.root_reference.data)
    if isinstance(owner, offload.GlobalTmpOp):
        return ("gtmp", owner.offset.value.data)
    if isinstance(owner, offload.ArgOp):
        return ("ndarray",)
    if isinstance(owner, offload.ThreadLocalOp):
        return ("local", owner.offset.value.data)
    if isinstance(owner, memref.AllocaOp):
        return ("alloca", id(owner))
    return None


@dataclass
class _Accesses:
    reads: set[Place]
    writes: set[Place]


def _accesses(region: Region, skip: set[Operation]) -> _Accesses | None:
    """The places the ops of `region` (but those in `skip`) read and write; None when an
    op's memory effects cannot be told (a print, a texture, an op of another kind)."""
    found = _Accesses(set(), set())
    for op in region.walk():
        if op in skip:
            continue
        if isinstance(op, _MEMORY_OPS):
            stored = isinstance(op, memref.StoreOp)
            place = _place(op.operands[1] if stored else op.operands[0])
            if place is None:
                return None
            if not isinstance(op, memref.StoreOp):
                found.reads.add(place)
            if not isinstance(op, memref.LoadOp):
                found.writes.add(place)
        elif isinstance(op, _ADDRESS_OPS + _CONTROL_OPS + (memref.AllocaOp,)):
            continue
        elif op.regions or not is_side_effect_free(op):
            return None
    return found


def _straight_line(task: offload.SerialTask) -> bool:
    """The serial task is pure ops, address computations, loads and stores only."""
    for op in task.body.block.ops:
        if isinstance(op, (memref.LoadOp, memref.StoreOp, *_ADDRESS_OPS)):
            continue
        if op.regions or not is_side_effect_free(op):
            return False
    return True


def _from_arguments(value: SSAValue) -> list[Operation] | None:
    """The ops `value` is computed from, in order, when they are pure arithmetic on the
    kernel's arguments and their shapes; else None."""
    needed: set[Operation] = set()
    work = [value]
    while work:
        op = work.pop().owner
        if not isinstance(op, Operation):
            return None
        if op in needed:
            continue
        if not (
            isinstance(op, offload.ArgOp | memref.DimOp)
            or (not op.regions and is_side_effect_free(op))
        ):
            return None
        needed.add(op)
        work.extend(op.operands)
    block = value.owner.parent_block()  # type: ignore[union-attr]
    assert block is not None
    return [op for op in block.ops if op in needed]


def _accumulable(op: Operation) -> bool:
    """A combine an accumulator starting at 0 can take, result unused: an add of an
    i32/i64/f32/f64, a min or max of an i32/i64 (see _key_mask)."""
    if not isinstance(op, taichi.AtomicAddOp | taichi.AtomicMinOp | taichi.AtomicMaxOp):
        return False
    if op.results[0].uses:
        return False
    t = op.value.type
    if isinstance(t, IntegerType):
        return t.width.data in (32, 64)
    return isinstance(op, taichi.AtomicAddOp) and isinstance(t, Float32Type | Float64Type)


def _key_mask(op: taichi.AtomicOp) -> int | None:
    """
    For an integer min or max, the mask M such that key = value ^ M orders values as an
    unsigned max orders keys and the identity's key is 0 (a zeroed accumulator):
    signed max: the sign bit (INT_MIN -> 0); signed min: all bits but the sign
    (INT_MAX -> 0, order reversed); unsigned max: 0; unsigned min: all bits (UINT_MAX
    -> 0, order reversed). None for an add (the accumulator holds the sum itself).
    """
    if isinstance(op, taichi.AtomicAddOp):
        return None
    assert isinstance(op, taichi.AtomicMinOp | taichi.AtomicMaxOp)
    width = op.value.type.width.data  # type: ignore[attr-defined]
    sign = 1 << (width - 1)
    if op.unsigned is not None:
        return 0 if isinstance(op, taichi.AtomicMaxOp) else -1
    return -sign if isinstance(op, taichi.AtomicMaxOp) else sign - 1


def _uniform_address(pointer: SSAValue) -> bool:
    """The same element for every invocation: constant indices all the way down."""
    owner = pointer.owner
    while isinstance(owner, taichi.ElementPtrOp):
        if not all(isinstance(i.owner, arith.ConstantOp) for i in owner.indices):
            return False
        owner = owner.base.owner
    return isinstance(owner, taichi.GetFieldOp | offload.ArgOp)


def _xor_mask(value: SSAValue, mask: int) -> list[Operation]:
    """`value ^ mask` (no op for a mask of 0): the ops, the result last."""
    if mask == 0:
        return []
    value_type = value.type
    assert isinstance(value_type, IntegerType)
    constant = arith.ConstantOp(IntegerAttr(mask, value_type), value_type)
    return [constant, arith.XOrIOp(value, constant)]


def _known_empty(task: offload.RangeForTask) -> bool:
    lo, hi = task.lower.owner, task.upper.owner
    if isinstance(lo, arith.ConstantOp) and isinstance(hi, arith.ConstantOp):
        assert isinstance(lo.value, IntegerAttr) and isinstance(hi.value, IntegerAttr)
        return hi.value.value.data <= lo.value.value.data
    return False


def _gtmp_end(kernel: offload.KernelOp) -> int:
    """The first byte past every global temporary of `kernel`."""
    end = 0
    for op in kernel.walk():
        if isinstance(op, offload.GlobalTmpOp):
            element = op.result.type.element_type  # type: ignore[attr-defined]
            width = getattr(element, "bitwidth", None) or element.width.data
            end = max(end, op.offset.value.data + max(4, width // 8))
    return end


def _fuse(
    kernel: offload.KernelOp, serial: offload.SerialTask, loop: offload.RangeForTask
) -> bool:
    """Fuse `serial` into `loop` (the task right after it) when the module docstring's
    conditions hold; returns whether it did."""
    if loop.serial_form is not None or not loop.epilogue.blocks or _known_empty(loop):
        return False
    epilogue = loop.epilogue.block
    if any(isinstance(op, offload.LastGroupOp) for op in epilogue.ops):
        return False
    if not _straight_line(serial):
        return False
    bounds = kernel.bound_offsets()
    kept: list[memref.StoreOp] = []  # bound stores: stay in a serial task
    for op in serial.body.block.ops:
        tmp = op.memref.owner if isinstance(op, memref.StoreOp) else None
        if isinstance(tmp, offload.GlobalTmpOp):
            if tmp.offset.value.data in bounds:
                if _from_arguments(op.value) is None:
                    return False
                kept.append(op)
    mine = _accesses(serial.body, set(kept))
    if mine is None or any(("gtmp", offset) in mine.writes for offset in bounds):
        return False  # a bound stored again, after the store that would stay
    combines = [
        op
        for op in epilogue.ops
        if isinstance(op, taichi.AtomicOp) and _place(op.dest) in mine.writes
    ]
    if not combines or not all(
        _accumulable(op) and _uniform_address(op.dest) for op in combines
    ):
        return False
    theirs = _accesses(loop.body, set()), _accesses(loop.prologue, set())
    rest = _accesses(loop.epilogue, set(combines))
    if rest is None or any(a is None for a in theirs):
        return False
    touched = rest.reads | rest.writes
    written = rest.writes | {p for op in combines if (p := _place(op.dest))}
    for a in theirs:
        assert a is not None
        touched |= a.reads | a.writes
        written |= a.writes
    if mine.writes & touched or mine.reads & written:
        return False
    _rewrite(kernel, serial, loop, kept, combines)
    return True


def _rewrite(
    kernel: offload.KernelOp,
    serial: offload.SerialTask,
    loop: offload.RangeForTask,
    kept: list[memref.StoreOp],
    combines: list[taichi.AtomicOp],
) -> None:
    epilogue = loop.epilogue.block
    base = -(-_gtmp_end(kernel) // 8) * 8
    # 1. the bound stores stay, with what they are computed from, in a serial task
    if kept:
        bounds = Block()
        mapping: dict[SSAValue, SSAValue] = {}
        for store in kept:
            slice_ = _from_arguments(store.value)
            assert slice_ is not None
            for op in [*slice_, store.memref.owner, store]:
                assert isinstance(op, Operation)
                bounds.add_op(op.clone(value_mapper=mapping))
        Rewriter.insert_op(offload.SerialTask(bounds), InsertPoint.before(serial))
    for store in kept:
        store.detach()
        store.erase()
    # 2. the serial body moves into the last workgroup's part of the epilogue
    body = Block()
    for op in list(serial.body.block.ops):
        op.detach()
        body.add_op(op)
    serial.detach()
    serial.erase()
    # 3. each combine adds into its accumulator; the last workgroup folds it in
    for number, combine in enumerate(combines):
        value_type = combine.value.type
        acc = offload.GlobalTmpOp(base + 8 * number, value_type)
        target = combine.dest
        mask = _key_mask(combine)
        if mask is None:  # a sum: the accumulator takes the same add
            Rewriter.insert_op(acc, InsertPoint.before(combine))
            combine.operands = [acc.result, combine.value]
        else:  # a min or max: an unsigned max of keys
            encode = _xor_mask(combine.value, mask)
            key = encode[-1].results[0] if encode else combine.value
            keyed = taichi.AtomicMaxOp(acc, key)
            keyed.unsigned = UnitAttr()
            Rewriter.insert_op([acc, *encode, keyed], InsertPoint.before(combine))
            combine.detach()
        zero_attr = (
            IntegerAttr(0, value_type)
            if isinstance(value_type, IntegerType)
            else FloatAttr(0.0, value_type)  # type: ignore[arg-type]
        )
        zero = arith.ConstantOp(zero_attr, value_type)
        again = offload.GlobalTmpOp(base + 8 * number, value_type)
        total = taichi.AtomicAddOp(again, zero)  # read it atomically
        reset = memref.StoreOp.get(zero, again, [])
        body.add_ops([zero, again, total, reset])
        if mask is None:
            body.add_op(taichi.AtomicAddOp(target, total))
            continue
        decode = _xor_mask(total.results[0], mask)
        combine.operands = [target, decode[-1].results[0] if decode else total.results[0]]
        body.add_ops([*decode, combine])
    counter = offload.GlobalTmpOp(base + 8 * len(combines), i32)
    epilogue.add_ops([counter, offload.LastGroupOp(counter, body)])
    region_dce(loop.epilogue)


@dataclass(frozen=True)
class FuseSerialReductionPass(ModulePass):
    """
    A serial task right before a range_for whose epilogue combines (adds; integer min
    and max) into a place the serial task stores runs in that range_for's last
    workgroup (`offload.last_group`), when that provably computes the same results
    (see the module docstring). Vulkan only: convert-offload-to-spirv lowers
    `offload.last_group`; the CPU pipeline does not run this pass.
    """

    name = "ti-fuse-serial-reduction"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.body.block.ops if isinstance(k, offload.KernelOp)]:
            index = 0
            while True:
                tasks = list(kernel.tasks)
                if index + 1 >= len(tasks):
                    break
                serial, loop = tasks[index], tasks[index + 1]
                index += 1
                if isinstance(serial, offload.SerialTask) and isinstance(
                    loop, offload.RangeForTask
                ):
                    if _fuse(kernel, serial, loop):
                        index = 0  # the task list changed: look again from the start
