"""
Direct calls: a kernel whose call the CPU runtime can run natively is called without a
Python frame.

`tiny(k)` on a `Kernel` runs `Kernel.__call__` (hooks, program, key, instance lookup),
then the instance's launcher: two Python frames, some 0.2 us of a 0.3 us launch on the
16-core host (docs/cpu-speed/launch.md). A kernel of scalar parameters alone, whose one
instance runs on the native launcher (targets/llvm/native_launch.py) unwrapped (no
kernel profiler, no sparse pools), is *armed*: the object's class becomes a subclass of
its own whose `__call__` is the instance's DirectCall builtin. That builtin converts the
arguments, runs the tasks and returns the results itself, as long as nothing that
`Kernel.__call__` looks at has changed since it was armed; a keyword or an argument of
another type goes to `Kernel.__call__` (the general path), and every call after a change
to `Kernel._direct_fallback`, the general path followed by arming the kernel again where
it may.

What changes a call's meaning bumps one epoch word (`invalidate`), which every armed
kernel compares with its own before running:
- a hook set or cleared: ti.ad.Tape, ti.ad.FwdMode, ti.aot.start_recording (kernel.py's
  `set_hook`);
- the root buffer moved or grew (program.py's `_grow`);
- another program (ti.init, ti.reset): `program_changed` also gives every armed kernel
  its class back, so no old program's buffers stay held.
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable
from typing import Any

_epoch = (ctypes.c_int64 * 1)(1)
"""The epoch word; never 0, the epoch of a direct record not armed yet."""
epoch = 1
"""The epoch word's value, as a Python int (cheaper to read than the word)."""

_armed: weakref.WeakSet[Any] = weakref.WeakSet()


def invalidate() -> None:
    """A call may mean something else from now on: armed kernels take the general path
    until armed again."""
    global epoch
    epoch += 1
    _epoch[0] = epoch


def program_changed() -> None:
    """Another program (or none): every armed kernel becomes a plain kernel again."""
    invalidate()
    for kernel in list(_armed):
        if "_direct" in type(kernel).__dict__:  # (not given its class back already)
            kernel.__class__ = type(kernel).__base__
    _armed.clear()


def arm(
    kernel: Any,
    compiled: Any,
    fallback: Callable[..., Any],
    general: Callable[..., Any],
    root: object,
) -> None:
    """
    Let `kernel`'s calls run `compiled` (a CPU runtime kernel with `direct_call`) on
    `root` directly, declining to `fallback` or `general` (bound to `kernel`), until the
    next `invalidate`. Nothing happens where `compiled` has no direct entry; else
    `kernel._direct_epoch` is the epoch it was armed at.
    """
    cls = type(kernel)
    direct = cls.__dict__.get("_direct")
    if direct is None or direct.compiled is not compiled:
        entry = compiled.direct_call(ctypes.addressof(_epoch), fallback, general)
        if entry is None:
            return
        base = cls.__base__ if "_direct" in cls.__dict__ else cls
        cls = type(
            base.__name__,
            (base,),
            {
                "__call__": entry.call,
                "__module__": base.__module__,
                "__qualname__": base.__qualname__,
                "_direct": _Armed(compiled, entry),
            },
        )
        kernel.__class__ = cls
        _armed.add(kernel)
        direct = cls.__dict__["_direct"]
    direct.entry.arm(epoch, root)
    kernel._direct_epoch = epoch


class _Armed:
    """What an armed kernel's class holds: the compiled instance and its DirectCall."""

    __slots__ = ("compiled", "entry")

    def __init__(self, compiled: Any, entry: Any):
        self.compiled = compiled
        self.entry = entry
