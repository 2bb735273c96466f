"""The enums Taichi programs and tests name (`ti.Layout`, `ti.lang.enums`)."""

from __future__ import annotations

import enum


class AutodiffMode(enum.Enum):
    """How a kernel launch takes part in autodiff: `Kernel.autodiff_mode` is VALIDATION
    while a `ti.ad.Tape(validation=True)` records it, NONE otherwise."""

    NONE = 0
    VALIDATION = 1
    FORWARD = 2
    REVERSE = 3


class SNodeGradType(enum.Enum):
    """What a place SNode holds: a primal field, its gradient (adjoint), its dual, or
    the adjoint checkbit of the global data access rule."""

    PRIMAL = 0
    ADJOINT = 1
    DUAL = 2
    ADJOINT_CHECKBIT = 3


class Layout(enum.Enum):
    """
    How a Vector/Matrix field's members sit in memory (`layout=` of ti.Vector.field and
    ti.Matrix.field): AOS, each element's members together (the default), or SOA, one
    array per member. taichi-xdsl stores AOS either way, as it stores every field
    row-major whatever its `order`: the values a program reads and writes are the same,
    only the addresses differ.
    """

    AOS = 0
    SOA = 1


__all__ = ["AutodiffMode", "Layout", "SNodeGradType"]
