"""
ti-add-serial-forms: give each parallel loop that updates shared data with atomics a
second form without them, for the CPU runtime to run when one thread does the whole
range.

An atomic read-modify-write on x86 is a locked instruction (a compare-and-swap loop for
floats): mpm88's particle-to-grid scatter, 27 float atomics a particle, runs 4.4x longer
than the same loop with plain loads and stores (0.71 vs 0.16 ms on one core). Where
ti-demote-atomics cannot prove that no other iteration touches a place, the atomic is
needed only while other threads run the same loop. A launch whose range runs on the
calling thread alone (one thread, a range of one chunk, or a loop that the runtime has
measured to be faster serial than parallel with its atomics: targets/llvm/runtime.py)
can run a copy of the task whose atomics are demoted, as an `offload.serial` task's are.

    offload.range_for %p = %lo to %hi : i32 {         offload.range_for %p = %lo to %hi : i32 {
      %old = taichi.atomic_add %g, %w : memref<f32>     %old = taichi.atomic_add %g, %w ...
    }                                         ~>      }
                                                      offload.range_for %p = %lo to %hi : i32 {
                                                        %old = memref.load %g[] : memref<f32>
                                                        %new = arith.addf %old, %w : f32
                                                        memref.store %new, %g[] : memref<f32>
                                                      } {serial_form}

Only atomics in the loop's body count: a reduction's epilogue combines once per chunk.
The copy demotes every atomic it holds (epilogue included: one call runs the whole
range). Atomics inside a real function that the task calls stay atomic in both forms.
CPU only: the Vulkan runtime has no serial launch of a range_for.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from taichi_xdsl.dialects import offload, taichi
from taichi_xdsl.lowering.demote_atomics import demoted


def needs_serial_form(task: offload.TaskOp) -> bool:
    """A range_for (not itself a serial form) whose body holds an atomic."""
    return (
        isinstance(task, offload.RangeForTask)
        and task.serial_form is None
        and any(isinstance(op, taichi.AtomicOp) for op in task.body.walk())
    )


def serial_form(task: offload.RangeForTask) -> offload.RangeForTask:
    """A copy of `task` marked `serial_form`, with its atomics demoted."""
    copy = task.clone()
    copy.properties["serial_form"] = UnitAttr()
    for op in [op for op in copy.walk() if isinstance(op, taichi.AtomicOp)]:
        new_ops = demoted(op)
        Rewriter.replace_op(op, new_ops, [new_ops[0].results[0]])
    return copy


class AddSerialFormsPass(ModulePass):
    """Follow each range_for task whose body holds atomics by its serial form."""

    name = "ti-add-serial-forms"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, offload.KernelOp)]:
            tasks = kernel.tasks
            for index, task in enumerate(tasks):
                has_form = index + 1 < len(tasks) and _is_serial_form(tasks[index + 1])
                if needs_serial_form(task) and not has_form:
                    assert isinstance(task, offload.RangeForTask)
                    Rewriter.insert_op(serial_form(task), InsertPoint.after(task))


def _is_serial_form(task: offload.TaskOp) -> bool:
    return isinstance(task, offload.RangeForTask) and task.serial_form is not None
