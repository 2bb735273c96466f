"""
Taichi's exception types, shared by the frontend, the compiler and the runtimes.

Frontend errors carry the kernel's file, line and source line in their message:

    TaichiSyntaxError: kernel.py:12: unsupported syntax 'lambda'
        y = lambda t: t
            ^
"""

from __future__ import annotations


class TaichiError(Exception):
    """Base of every error taichi-xdsl raises on purpose."""


class TaichiCompilationError(TaichiError):
    """A kernel could not be compiled."""


class TaichiSyntaxError(TaichiCompilationError, SyntaxError):
    """Python syntax that a Taichi kernel does not support."""


class TaichiTypeError(TaichiCompilationError, TypeError):
    """An operation on types that Taichi's rules reject."""


class TaichiNameError(TaichiCompilationError, NameError):
    """A name a kernel uses is not defined."""


class TaichiRuntimeError(TaichiError, RuntimeError):
    """A kernel failed while running."""


class TaichiRuntimeTypeError(TaichiRuntimeError, TypeError):
    """A kernel argument cannot be converted into its parameter's type (a float passed
    for an i32, a number for an ndarray), as Taichi's error of that name."""


class TaichiIndexError(TaichiRuntimeError, IndexError):
    """A field or ndarray index out of bounds (checked under `ti.init(debug=True)`)."""


class TaichiAssertionError(TaichiRuntimeError, AssertionError):
    """An `assert` in a kernel failed (checked under `ti.init(debug=True)`)."""


class TaichiIndexAssertionError(TaichiIndexError, TaichiAssertionError):
    """An index error that Taichi reports as a failed assertion: an out-of-bound access
    found by a kernel's debug checks ("Out of bound access ..."), or a field indexed
    with too few or too many indices ("Slicing is not supported on ti.field")."""
