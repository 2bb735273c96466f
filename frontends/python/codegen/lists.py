"""
Python lists built in a kernel: `[a, b]` and `[F[c][j] for j in range(3)]`.

A list in a kernel is a compile-time list of values. As in Taichi, each element is also a
variable: `verts[1] = verts[2]` (in a run-time branch too) stores into element 1. The
variable is made when an element is first assigned: its slot is created, holding the
element's value, where the list was built, so a branch that does not run leaves the
element as it was:

    verts = [a, b]            # %a, %b
    if c:
        verts[0] = b          # taichi.if: store %b -> slot0
    x = verts[0]              # slot0 (alloca + store %a right after the list was built)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from taichi_xdsl.utils.errors import TaichiSyntaxError
from xdsl.ir import Block, Operation

from .emitter import Value
from .values import Place, describe
from .vectors import Vec, VecPlace, new_vec_local

if TYPE_CHECKING:
    from .visitor import KernelCodegen


class KernelList(list):  # type: ignore[type-arg]
    """A list built in a kernel; an element assigned becomes a variable (see above).
    Reading an element, iterating or concatenating gives the variables' values."""

    def __init__(self, cg: KernelCodegen, items: list[Any]):
        super().__init__(items)
        self.cg = cg
        block = cg.em.block
        assert block is not None
        self.origin: tuple[Block, Operation | None] = (block, block.last_op)

    def _read(self, item: Any) -> Any:
        return self.cg.rvalue(item) if isinstance(item, Place | VecPlace) else item

    def __getitem__(self, index: Any) -> Any:  # type: ignore[override]
        if isinstance(index, slice):
            return [self._read(x) for x in list.__getitem__(self, index)]
        return self._read(list.__getitem__(self, index))

    def __iter__(self) -> Iterator[Any]:
        for item in list.__iter__(self):
            yield self._read(item)

    def __add__(self, other: Any) -> list[Any]:  # type: ignore[override]
        return list(self) + list(other)

    def __radd__(self, other: Any) -> list[Any]:
        return list(other) + list(self)

    def __mul__(self, n: Any) -> list[Any]:  # type: ignore[override]
        return list(self) * n

    __rmul__ = __mul__

    def copy(self) -> list[Any]:
        return list(self)

    def make_variables(self) -> None:
        """Every element that can be a variable becomes one (before a run-time loop
        that assigns elements: a read in the loop must load what the last iteration
        stored, not the value the list was built with)."""
        for index, item in enumerate(list.__iter__(self)):
            if isinstance(item, KernelList):  # a list of lists: `grid[i][j] = v`
                item.make_variables()
            elif isinstance(item, Value | bool | int | float | Vec):
                self.variable(index, None)

    def variable(self, index: Any, node: ast.AST | None) -> Place | VecPlace:
        """The variable of element `index`, made where the list was built."""
        cg = self.cg
        if not isinstance(index, int) or isinstance(index, bool):
            raise cg.error(
                TaichiSyntaxError,
                node,
                "an element of a list in a kernel is assigned with a compile-time index, "
                f"got {describe(index)}",
            )
        if not -len(self) <= index < len(self):
            raise cg.error(
                TaichiSyntaxError,
                node,
                f"list index {index} out of range for a list of {len(self)} in a kernel",
            )
        item = list.__getitem__(self, index)
        if isinstance(item, Place | VecPlace):
            return item
        scratch = Block()
        with cg.em.at(scratch):
            if isinstance(item, Value | bool | int | float):
                place: Place | VecPlace = cg.new_local(None, item)
            elif isinstance(item, Vec):
                place = new_vec_local(cg, None, item)
            else:
                raise cg.error(
                    TaichiSyntaxError,
                    node,
                    f"cannot assign to an element of a list holding {describe(item)}",
                )
        ops = list(scratch.ops)
        for op in ops:
            op.detach()
        block, after = self.origin
        if after is not None:
            block.insert_ops_after(ops, after)
        elif block.first_op is not None:
            block.insert_ops_before(ops, block.first_op)
        else:
            block.add_ops(ops)
        list.__setitem__(self, index % len(self), place)
        return place


def prepare_loop(cg: KernelCodegen, body: list[ast.stmt]) -> None:
    """Before a run-time loop: the lists its body may assign elements of get their
    variables, so every read in the loop loads them: those it assigns into
    (`lst[i] = v`, `lst[i][j] += v`) and those it passes to a call (a ti.func's
    ti.template() parameter is the caller's list)."""
    names: list[ast.expr] = []
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(
                node.ctx, ast.Store
            ):
                root: ast.expr = node
                while isinstance(root, ast.Subscript | ast.Attribute):
                    root = root.value
                names.append(root)
            elif isinstance(node, ast.Call):
                names += [*node.args, *(k.value for k in node.keywords)]
    for name in names:
        if isinstance(name, ast.Name):
            found = cg.find_binding(name.id)
            if found is not None and isinstance(found[1], KernelList):
                found[1].make_variables()
