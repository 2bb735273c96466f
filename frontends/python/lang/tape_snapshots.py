"""
Snapshots that let ti.ad.Tape differentiate a kernel that overwrites a field it read.

The adjoint of such a kernel (`restore` on it: lowering/auto_diff_restore.py) must see
the field as the kernel saw it. When the tape records the kernel, before the launch, the
part of the field the kernel writes (its `box`) is copied into an ndarray on the
program's arch; in the backward pass the tape swaps it in before the adjoint runs, so
the fields go back through the states the forward pass left them in, and once every
adjoint ran it swaps each back in call order, leaving the fields as the forward pass did.

    with ti.ad.Tape(loss):
        clamp(t)          # box x[t, :]: saved = x[t, :] (device-side copy), then the launch
    # backward: swap(x[t, :], saved); clamp's adjoint; ...; then swap back, free `saved`
"""


import functools
from typing import Any

from taichi_xdsl.utils.errors import TaichiRuntimeError

from .field import Field

WHOLE = "*"  # as lowering/auto_diff_restore.py's (lang never imports the lowering)


@functools.cache
def _kernels(ndim: int) -> tuple[Any, Any]:
    """The (save, swap) kernels for fields of `ndim` dimensions."""
    import taichi_xdsl as ti

    @ti.kernel
    def save(
        x: ti.template(), saved: ti.types.ndarray(), start: ti.types.vector(ndim, ti.i32)
    ):
        for I in ti.grouped(saved):
            saved[I] = x[start + I]

    @ti.kernel
    def swap(
        x: ti.template(), saved: ti.types.ndarray(), start: ti.types.vector(ndim, ti.i32)
    ):
        for I in ti.grouped(saved):
            held = x[start + I]
            x[start + I] = saved[I]
            saved[I] = held

    return save, swap


def _index(text: str, params: list[Any], args: tuple[Any, ...]) -> int | None:
    """The value of a box dimension ("7", "%t", "%t+1") for these arguments; None for
    WHOLE or a name that is no scalar parameter."""
    if text == WHOLE:
        return None
    if not text.startswith("%"):
        return int(text)
    name, sign, offset = text[1:], 1, 0
    for mark in "+-":
        if mark in name:
            name, rest = name.split(mark, 1)
            sign, offset = (1 if mark == "+" else -1), int(rest)
    for p, a in zip(params, args):
        if p.name == name and p.kind == "scalar":
            return int(a) + sign * offset
    return None


class Snapshot:
    """The part of a field a kernel is about to write, as it was before the launch."""

    __slots__ = ("field", "saved", "start")

    def __init__(
        self, field: Field, box: tuple[str, ...], params: list[Any], args: tuple[Any, ...]
    ):
        if field.pool_owner is not None:
            raise TaichiRuntimeError(
                f"ti.ad.Tape: {field} is sparse: a kernel that overwrites it after reading "
                "it cannot be differentiated (global data access rule)"
            )
        self.field = field
        ndim = len(field.shape)
        start: list[int] = []
        extent: list[int] = []
        for d in range(ndim):
            value = _index(box[d], params, args)
            if value is None or not 0 <= value < field.shape[d]:
                start.append(0)
                extent.append(field.shape[d])
            else:
                start.append(value)
                extent.append(1)
        self.start = tuple(s + o for s, o in zip(start, field.index_offset or (0,) * ndim))
        if ndim == 0:
            self.saved: Any = field.to_numpy()
            return
        self.saved = _ndarray(field, tuple(extent))
        save, _ = _kernels(ndim)
        save(field, self.saved, self._start())

    def swap(self) -> None:
        """Exchange the field's box with the saved values."""
        if not self.field.shape:
            held = self.field.to_numpy()
            self.field.from_numpy(self.saved)
            self.saved = held
            return
        _, swap = _kernels(len(self.field.shape))
        swap(self.field, self.saved, self._start())

    def _start(self) -> Any:
        from .matrix import Vector

        return Vector(list(self.start))


def _ndarray(field: Field, shape: tuple[int, ...]) -> Any:
    from .matrix import Matrix, Vector
    from .ndarray import ndarray

    element = field.element_shape
    if not element:
        return ndarray(field.dtype, shape)
    if len(element) == 1:
        return Vector.ndarray(element[0], field.dtype, shape)
    return Matrix.ndarray(element[0], element[1], field.dtype, shape)
