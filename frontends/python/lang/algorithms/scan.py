"""
Inclusive prefix sums in our kernels (the three-phase scan), over 1-D ndarrays: the
kernels compile once per dtype (and come from the offline cache after that), not once
per field and size. A field is scanned through an ndarray copy.
"""

from __future__ import annotations

from typing import Any

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

_CHUNK = 256  # elements a thread scans; enough chunks for a GPU, few enough for the host


@ti.kernel
def _chunk_sums(a: ti.types.ndarray(ndim=1), n: ti.i32, sums: ti.types.ndarray(ndim=1)):
    for c in range((n + _CHUNK - 1) // _CHUNK):
        s = ti.cast(0, a.dtype)
        for k in range(c * _CHUNK, ti.min((c + 1) * _CHUNK, n)):
            s += a[k]
        sums[c] = s


@ti.kernel
def _exclusive_scan_serial(sums: ti.types.ndarray(ndim=1), n: ti.i32):
    acc = ti.cast(0, sums.dtype)
    ti.loop_config(serialize=True)
    for c in range(n):
        s = sums[c]
        sums[c] = acc
        acc += s


@ti.kernel
def _rescan_chunks(a: ti.types.ndarray(ndim=1), n: ti.i32, sums: ti.types.ndarray(ndim=1)):
    for c in range((n + _CHUNK - 1) // _CHUNK):
        acc = sums[c]
        for k in range(c * _CHUNK, ti.min((c + 1) * _CHUNK, n)):
            acc += a[k]
            a[k] = acc


@ti.kernel
def _field_to_array(f: ti.template(), first: ti.i32, a: ti.types.ndarray(ndim=1)):
    for i in range(a.shape[0]):
        a[i] = f[first + i]


@ti.kernel
def _array_to_field(a: ti.types.ndarray(ndim=1), f: ti.template(), first: ti.i32):
    for i in range(a.shape[0]):
        f[first + i] = a[i]


def inclusive_scan(a: Any, n: int, sums: Any) -> None:
    """a[:n] (an ndarray) <- its inclusive prefix sums; `sums` holds a slot per chunk."""
    chunks = (n + _CHUNK - 1) // _CHUNK
    _chunk_sums(a, n, sums)
    _exclusive_scan_serial(sums, chunks)
    _rescan_chunks(a, n, sums)


def chunk_slots(n: int) -> int:
    return max(1, (n + _CHUNK - 1) // _CHUNK)


class PrefixSumExecutor:
    """In-place inclusive prefix sum of 1-D fields or ndarrays of `length` elements
    (Taichi's API): `PrefixSumExecutor(n).run(arr)`."""

    def __init__(self, length: int):
        if length <= 0:
            raise TaichiError(f"PrefixSumExecutor: length must be positive, got {length}")
        self.length = length
        self._arrays: dict[Any, Any] = {}

    def run(self, arr: Any) -> None:
        is_field = isinstance(arr, ti.Field)
        if not (is_field or isinstance(arr, ti.Ndarray)) or len(arr.shape) != 1:
            raise TaichiError("PrefixSumExecutor.run expects a 1-D scalar field or ndarray")
        if getattr(arr, "element_shape", ()) not in ((), None):
            raise TaichiError("PrefixSumExecutor.run expects scalar elements")
        if arr.shape[0] != self.length:
            raise TaichiError(
                f"PrefixSumExecutor({self.length}).run: the field has {arr.shape[0]} elements"
            )
        if arr.dtype not in (ti.i32, ti.u32, ti.i64, ti.u64, ti.f32, ti.f64):
            raise TaichiError(f"PrefixSumExecutor: unsupported dtype {arr.dtype}")
        arrays = self._arrays.get(arr.dtype)
        if arrays is None:  # a copy of a field's values, and a slot per chunk
            arrays = self._arrays[arr.dtype] = (
                ti.ndarray(arr.dtype, self.length) if is_field else None,
                ti.ndarray(arr.dtype, chunk_slots(self.length)),
            )
        copy, sums = arrays
        if not is_field:
            inclusive_scan(arr, self.length, sums)
            return
        first = (getattr(arr, "index_offset", None) or (0,))[0]  # ti.field(offset=)
        _field_to_array(arr, first, copy)
        inclusive_scan(copy, self.length, sums)
        _array_to_field(copy, arr, first)
