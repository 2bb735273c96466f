"""
`ti.FieldsBuilder`: a layout tree of its own, built like `ti.root` and finalized into an
`SNodeTree` (Taichi's way of adding fields after kernels ran, and of dropping them).

    fb = ti.FieldsBuilder()
    fb.dense(ti.i, 5).place(x)
    tree = fb.finalize()      # x is usable from here on
    tree.destroy()            # x may no longer be used; destroying twice is an error

taichi-xdsl keeps every field in the program's root buffer, so a builder's fields are
placed as ti.root's are; `destroy()` ends the tree's use (its storage is reclaimed by
`ti.reset()` / the next `ti.init()`).
"""

from __future__ import annotations

from typing import Any

from taichi_xdsl.utils.errors import TaichiRuntimeError

from .field import _Root


class SNodeTree:
    """What `FieldsBuilder.finalize()` returns."""

    def __init__(self, tree_id: int):
        self.id = tree_id
        self.destroyed = False

    def destroy(self) -> None:
        if self.destroyed:
            raise TaichiRuntimeError(f"SNode tree {self.id} has been destroyed")
        self.destroyed = True


class FieldsBuilder:
    """A root to build a layout on (`dense`, `place`, ... as on `ti.root`)."""

    _trees = 0

    def __init__(self) -> None:
        self._root = _Root()
        self.finalized = False

    def __getattr__(self, name: str) -> Any:  # dense, pointer, place, lazy_grad, ...
        if self.__dict__.get("finalized"):
            raise TaichiRuntimeError("this FieldsBuilder is finalized; make a new one")
        return getattr(self.__dict__["_root"], name)

    def finalize(self, raise_warning: bool = True) -> SNodeTree:
        """End the building; the fields placed are usable in kernels and Python."""
        if self.finalized:
            raise TaichiRuntimeError("FieldsBuilder.finalize() was called already")
        self.finalized = True
        FieldsBuilder._trees += 1
        return SNodeTree(FieldsBuilder._trees)


__all__ = ["FieldsBuilder", "SNodeTree"]
