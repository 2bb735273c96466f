"""
Python-scope methods of fields and ndarrays that Taichi also accepts inside kernels,
written in the kernel language itself (each a ti.func, inlined where it is called):
`x.fill(v)` in a kernel is a loop over x's elements (a parallel one at the kernel's top
level), as in Taichi.
"""

from __future__ import annotations

from . import ops
from .kernel import func
from .types import template


@func
def fill(x: template(), value: template()):
    """Every element of x set to value (a scalar is broadcast over vector elements)."""
    for I in ops.grouped(x):
        x[I] = value
