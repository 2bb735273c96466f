"""`ti.experimental`: Taichi 1.7's names that graduated, each warning where it went."""

from __future__ import annotations

import warnings
from typing import Any

from .kernel import real_func as _real_func


def real_func(fn: Any) -> Any:
    """`ti.experimental.real_func`: `ti.real_func`, with Taichi's DeprecationWarning."""
    warnings.warn(
        "ti.experimental.real_func is deprecated because it is no longer experimental. "
        "Use ti.real_func instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return _real_func(fn)


__all__ = ["real_func"]
