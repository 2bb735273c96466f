"""Inclusive prefix sums in our kernels (the three-phase scan)."""

from __future__ import annotations

from typing import Any

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

_CHUNK = 256  # elements a thread scans; enough chunks for a GPU, few enough for the host


@ti.kernel
def _chunk_sums(a: ti.template(), first: ti.i32, n: ti.i32, sums: ti.template()):
    for c in range((n + _CHUNK - 1) // _CHUNK):
        s = ti.cast(0, a.dtype)
        for k in range(c * _CHUNK, ti.min((c + 1) * _CHUNK, n)):
            s += a[first + k]
        sums[c] = s


@ti.kernel
def _exclusive_scan_serial(sums: ti.template(), n: ti.i32):
    acc = ti.cast(0, sums.dtype)
    ti.loop_config(serialize=True)
    for c in range(n):
        s = sums[c]
        sums[c] = acc
        acc += s


@ti.kernel
def _rescan_chunks(a: ti.template(), first: ti.i32, n: ti.i32, sums: ti.template()):
    for c in range((n + _CHUNK - 1) // _CHUNK):
        acc = sums[c]
        for k in range(c * _CHUNK, ti.min((c + 1) * _CHUNK, n)):
            acc += a[first + k]
            a[first + k] = acc


def inclusive_scan(a: Any, first: int, n: int, sums: Any) -> None:
    """a[first : first+n] <- its inclusive prefix sums; `sums` holds a slot per chunk."""
    chunks = (n + _CHUNK - 1) // _CHUNK
    _chunk_sums(a, first, n, sums)
    _exclusive_scan_serial(sums, chunks)
    _rescan_chunks(a, first, n, sums)


def chunk_slots(n: int) -> int:
    return max(1, (n + _CHUNK - 1) // _CHUNK)


class PrefixSumExecutor:
    """In-place inclusive prefix sum of 1-D fields of `length` elements (Taichi's API):
    `PrefixSumExecutor(n).run(arr)`."""

    def __init__(self, length: int):
        if length <= 0:
            raise TaichiError(f"PrefixSumExecutor: length must be positive, got {length}")
        self.length = length
        self._sums: dict[Any, Any] = {}

    def run(self, arr: Any) -> None:
        if not isinstance(arr, ti.Field) or len(arr.shape) != 1:
            raise TaichiError("PrefixSumExecutor.run expects a 1-D scalar field")
        if arr.shape[0] != self.length:
            raise TaichiError(
                f"PrefixSumExecutor({self.length}).run: the field has {arr.shape[0]} elements"
            )
        if arr.dtype not in (ti.i32, ti.u32, ti.i64, ti.u64, ti.f32, ti.f64):
            raise TaichiError(f"PrefixSumExecutor: unsupported dtype {arr.dtype}")
        sums = self._sums.get(arr.dtype)
        if sums is None:
            sums = self._sums[arr.dtype] = ti.field(arr.dtype, shape=chunk_slots(self.length))
        first = (getattr(arr, "index_offset", None) or (0,))[0]  # ti.field(offset=)
        inclusive_scan(arr, first, self.length, sums)
