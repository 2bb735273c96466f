"""
The CPU task ABI: how compiled tasks see a launch, shared by the lowering passes (which
emit code that follows it) and the CPU runtime (which builds launches that follow it).

Every task of an `offload.kernel @k` becomes one LLVM function

    void @k__task<N>(ptr %ctx, i32 %begin, i32 %end)

where N is the task's position in the kernel. A serial task ignores begin/end (the runtime
passes 0, 1). A range_for task runs its prologue, then the body for every index in
[begin, end), then its epilogue; the runtime calls it once per chunk of the range, from
several threads at once. A struct_for task is lowered to a range_for over the flattened
index space before it reaches LLVM.

`%ctx` points at a RuntimeContext, a struct of pointers and sizes (all 8 bytes):

    offset  0: ptr  root buffer (fields; `taichi.field ... offset N` is a byte offset)
    offset  8: ptr  global temporaries buffer (`offload.global_tmp N` is a byte offset)
    offset 16: ptr  return values (8 bytes a value, value i at 8*i, native layout)
    offset 24: ptr  argument buffer (see ARG_SLOT_BYTES)
    offset 32: ptr  error record (debug mode checks; see ERROR_* below)

Arguments are packed in the argument buffer in kernel-argument order: a scalar takes
8 bytes (the value in its native layout at the start of the slot); an ndarray of rank r
takes 8 + 8*r bytes: its data pointer, then its shape as r little-endian i64.

Thread-local slots (`offload.thread_local N`) are bytes of a per-call stack buffer of
`thread_local_bytes(kernel)` bytes that the task function allocates itself.

Debug-mode errors: a task that finds an out-of-bounds index writes an error record and
skips the access. The record is 4 little-endian i64: code, the access's site and
which index position (site << 8 | dimension; the site is the address of its
`file:line:column` text, utils/errors.py SITE_SHIFT), the bad index, the extent; the
first writer wins (code 0 means no error).
"""

from __future__ import annotations

CTX_ROOT = 0
CTX_GLOBAL_TMPS = 8
CTX_RETURNS = 16
CTX_ARGS = 24
CTX_ERROR = 32
CTX_BYTES = 40

RETURN_SLOT_BYTES = 8
SCALAR_ARG_BYTES = 8

ERROR_NONE = 0
ERROR_INDEX_OUT_OF_BOUNDS = 1
ERROR_ASSERTION = 2
ERROR_RECORD_BYTES = 32


NUMPY_KINDS: dict[str, tuple[str, int]] = {
    "i1": ("biu", 1),
    "i8": ("iub", 1),
    "i16": ("iu", 2),
    "i32": ("iu", 4),
    "i64": ("iu", 8),
    "f16": ("f", 2),
    "f32": ("f", 4),
    "f64": ("f", 8),
}
"""
The numpy dtype kinds and item size an array may have to bind to an ndarray argument of
each IR element type (the IR is signless: i32 takes int32 and uint32). Every backend
checks ndarray arguments against this table.
"""


def scalar_fits(dtype: str, value: object) -> bool:
    """
    Whether `value` may be passed to a scalar kernel argument of `dtype` ("i32", "f64",
    ...), the one rule of every arch (as Taichi's): a float argument takes any Python or
    NumPy number, an integer argument only integers (2.7 is a TaichiTypeError, never
    rounded).
    """
    import numpy as np

    if dtype.startswith("f"):
        return isinstance(value, int | float | np.integer | np.floating)
    return isinstance(value, int | np.integer)


def task_symbol(kernel_name: str, task_index: int) -> str:
    """The LLVM function name of task `task_index` of kernel `kernel_name`."""
    return f"{kernel_name}__task{task_index}"


def serial_form_symbol(kernel_name: str, task_index: int) -> str:
    """The LLVM function name of the serial form of task `task_index` (a range_for that
    ti-add-serial-forms gave a form without atomics)."""
    return f"{task_symbol(kernel_name, task_index)}_serial"


def ndarray_arg_bytes(rank: int) -> int:
    """Bytes an ndarray argument of rank `rank` takes in the argument buffer."""
    return 8 + 8 * rank


def arg_offsets(ranks: list[int | None]) -> list[int]:
    """
    Byte offsets of each argument in the argument buffer; `ranks[i]` is None for a
    scalar argument and the ndarray's rank otherwise.
    """
    offsets: list[int] = []
    offset = 0
    for rank in ranks:
        offsets.append(offset)
        offset += SCALAR_ARG_BYTES if rank is None else ndarray_arg_bytes(rank)
    return offsets
