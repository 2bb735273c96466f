"""
`ti.sparse`: sparse grids of structs (Taichi's `ti.sparse.grid` / `ti.sparse.usage`).

    grid = ti.sparse.grid({"pos": ti.math.vec2, "mass": ti.f32}, shape=(10, 10))
    grid[0, 0].mass = 1.0          # activates cell (0, 0)
    ti.sparse.usage(grid)          # 0.01: the fraction of active cells
"""

from __future__ import annotations

from typing import Any

from taichi_xdsl.utils.errors import TaichiError

from .field import Axis, root
from .struct import Struct, StructField


def grid(field_dict: dict[str, Any], shape: tuple[int, ...]) -> StructField:
    """A 2-d or 3-d struct field with one member per `field_dict` item, each element a
    cell of a bitmasked SNode (written cells become active)."""
    if len(shape) not in (2, 3):
        raise TaichiError("ti.sparse.grid: only 2-d and 3-d sparse grids are supported")
    x = Struct.field(field_dict)
    root.bitmasked(Axis(*range(len(shape))), tuple(shape)).place(x)
    return x


def usage(x: StructField | Any) -> float:
    """The fraction of the grid's cells that are active, in [0, 1]."""
    from .snode import active_elements

    first = x.leaf() if isinstance(x, StructField) else x
    active = active_elements(first)
    if active is None:
        return 1.0
    return float(active.sum()) / active.size
