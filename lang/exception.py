"""`ti.lang.exception`: Taichi's exception classes."""

from taichi_xdsl.utils.errors import (
    TaichiAssertionError,
    TaichiCompilationError,
    TaichiError,
    TaichiIndexError,
    TaichiNameError,
    TaichiRuntimeError,
    TaichiSyntaxError,
    TaichiTypeError,
)

__all__ = [
    "TaichiAssertionError",
    "TaichiCompilationError",
    "TaichiError",
    "TaichiIndexError",
    "TaichiNameError",
    "TaichiRuntimeError",
    "TaichiSyntaxError",
    "TaichiTypeError",
]
