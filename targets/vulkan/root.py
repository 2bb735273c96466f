"""
The device copy of a program's root buffer: one device buffer per root segment
(utils/spirv_abi.py), and which byte ranges the host holds newest.

A storage-buffer binding holds at most maxStorageBufferRange bytes (128 MiB on
lavapipe), so a root of more is kept as segments of `segment_bytes`: segment k holds the
host root's bytes [k*S, (k+1)*S) in a buffer of its own. Kernels bind the segments they
name (their plan's `root_segments`).

    root = DeviceRoot(runtime, segment_bytes)
    buffers = root.for_launch(np_root, 2)   # uploads what the host wrote; 2 segments
    root.launched()                         # the device may have written any of it
    root.read(np_root, lo, hi)              # bytes [lo, hi) of the host root up to date
    root.host_wrote(lo, hi)                 # upload them before the next launch
    root.zero(np_root, starts, sizes)       # zero byte ranges on both sides, no download

Host access is by range, so a Python-scope access of one field moves that field's
bytes, not the whole root (a sparse program's pools may take hundreds of MiB, and the
pool checks after each launch read a few words). Before a range is downloaded, the
ranges the host wrote that overlap it are uploaded, so a download never loses a host
write; they stay
marked until the next launch uploads them again (the host may still write through a
view it took before the download).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_MIN_BYTES = 16
FEW_RANGES = 64
"""Up to this many byte ranges are zeroed one slice (or fill) each; more, through one
index of their bytes."""


class DeviceRoot:
    """The segments of one root on the device, and its host/device freshness."""

    def __init__(self, runtime: Any, segment_bytes: int):
        self.runtime = runtime
        self.segment_bytes = segment_bytes
        self.buffers: list[Any] = []
        self._array: np.ndarray | None = None
        self._dirty: list[tuple[int, int]] = []
        """Host byte ranges written since they were last uploaded."""
        self._fresh: list[tuple[int, int]] = []
        """Host byte ranges downloaded since the last launch (the host has them newest)."""
        self.device_newer = False
        """A launch may have written the root since the host last read all of it."""
        self.launches = 0
        """Launches recorded so far (a reader can tell whether any came since it read)."""

    def segments(self, nbytes: int) -> list[tuple[int, int]]:
        """The (start, end) host bytes of each segment of a root of `nbytes` bytes."""
        size = self.segment_bytes or max(nbytes, 1)
        return [(lo, min(lo + size, nbytes)) for lo in range(0, max(nbytes, 1), size)]

    # -- launches ------------------------------------------------------------------------

    def for_launch(self, root: np.ndarray, count: int) -> list[Any]:
        """The first `count` segment buffers of `root`, after uploading what the host
        wrote (all of it the first time a root array is seen)."""
        if root is not self._array:
            self._replace(root)
        self._upload_dirty()
        self._dirty.clear()
        if count > len(self.buffers):
            raise ValueError(
                f"a kernel binds {count} root segments, the root has {len(self.buffers)}"
            )
        return self.buffers[:count]

    def launched(self) -> None:
        """A launch was recorded: any byte of the root may be newer on the device."""
        self.device_newer = True
        self.launches += 1
        self._fresh.clear()

    def _replace(self, root: np.ndarray) -> None:
        """A new host root (the program grew it, old bytes at the same offsets): bring
        the old device bytes over, then lay the segments out for its size."""
        rt = self.runtime
        old = self._array
        if old is not None and self.device_newer:
            # What the host wrote since the last launch went into the new root already
            # (the dirty ranges): the device's older bytes must not overwrite it.
            shared = min(old.nbytes, root.nbytes)
            written = [
                (lo, min(hi, shared), root[lo : min(hi, shared)].copy())
                for lo, hi in _merged(self._dirty)
                if lo < shared
            ]
            self.read(root, 0, shared, _through=old)
            for lo, hi, data in written:
                root[lo:hi] = data
        spans = self.segments(root.nbytes)
        for k, (lo, hi) in enumerate(spans):
            nbytes = max(_MIN_BYTES, hi - lo)
            if k < len(self.buffers) and self.buffers[k].nbytes == nbytes:
                continue
            if k < len(self.buffers):
                rt.release(self.buffers[k])
                self.buffers[k] = rt.allocate(nbytes)
            else:
                self.buffers.append(rt.allocate(nbytes))
        for extra in self.buffers[len(spans) :]:
            rt.release(extra)
        del self.buffers[len(spans) :]
        self._array = root
        self._dirty = [(0, root.nbytes)]
        self._fresh = [(0, root.nbytes)]
        self.device_newer = False

    # -- host access -----------------------------------------------------------------------

    def read(
        self, root: np.ndarray, lo: int = 0, hi: int | None = None, *, _through: Any = None
    ) -> None:
        """Bring bytes [lo, hi) of the host root (`hi` None: the end) up to date with
        the device; waits for the launched work."""
        source = _through if _through is not None else self._array
        if source is None or not self.device_newer:
            return
        hi = min(source.nbytes if hi is None else hi, source.nbytes, root.nbytes)
        if lo >= hi or _covered(self._fresh, lo, hi):
            return
        self._upload_dirty(lo, hi)
        for k, (start, end) in enumerate(self.segments(source.nbytes)):
            a, b = max(lo, start), min(hi, end)
            if a < b:
                self.runtime.download(self.buffers[k], root[a:b], offset=a - start)
        if _through is None:
            self._fresh.append((lo, hi))
            if (lo, hi) == (0, source.nbytes):
                self.device_newer = False

    def host_wrote(self, lo: int = 0, hi: int | None = None) -> None:
        """The host may have written bytes [lo, hi): upload them before the next
        launch."""
        if self._array is None:
            return
        hi = self._array.nbytes if hi is None else min(hi, self._array.nbytes)
        if lo < hi and (lo, hi) not in self._dirty:
            self._dirty.append((lo, hi))

    def zero(self, root: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> None:
        """Zero the byte ranges [starts[i], starts[i] + sizes[i]) (sorted, disjoint) on
        the host and the device alike, without a download (a sparse pool clearing the
        blocks it freed): in the device's mapped memory when it is host-visible and
        idle (lavapipe), else by recorded fills."""
        starts = np.asarray(starts, dtype=np.int64)
        sizes = np.asarray(sizes, dtype=np.int64)
        if len(starts) <= FEW_RANGES:  # a few long runs: slices
            for a, n in zip(starts.tolist(), sizes.tolist()):
                self._zero_slice(root, a, a + n)
            return
        index = np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))
        root[index] = 0
        if root is not self._array:
            return
        for k, (start, end) in enumerate(self.segments(root.nbytes)):
            lo, hi = np.searchsorted(index, [start, end])
            if lo == hi or self.runtime.zero_bytes(self.buffers[k], index[lo:hi] - start):
                continue
            first = np.searchsorted(starts + sizes, start, side="right")
            last = np.searchsorted(starts, end)
            for a, n in zip(starts[first:last].tolist(), sizes[first:last].tolist()):
                a, b = max(a, start), min(a + n, end)
                if (a - start) % 4 or (b - a) % 4:
                    self.runtime.upload(self.buffers[k], root[a:b], offset=a - start)
                else:
                    self.runtime.fill(self.buffers[k], 0, offset=a - start, nbytes=b - a)

    def _zero_slice(self, root: np.ndarray, lo: int, hi: int) -> None:
        root[lo:hi] = 0
        if root is not self._array:
            return
        for k, (start, end) in enumerate(self.segments(root.nbytes)):
            a, b = max(lo, start), min(hi, end)
            if a >= b or self.runtime.zero_bytes(self.buffers[k], slice(a - start, b - start)):
                continue
            if (a - start) % 4 or (b - a) % 4:
                self.runtime.upload(self.buffers[k], root[a:b], offset=a - start)
            else:
                self.runtime.fill(self.buffers[k], 0, offset=a - start, nbytes=b - a)

    def _upload_dirty(self, within_lo: int = 0, within_hi: int | None = None) -> None:
        """Upload the ranges the host wrote that overlap [within_lo, within_hi)."""
        root = self._array
        if root is None or not self._dirty:
            return
        spans = self.segments(root.nbytes)
        within_end = root.nbytes if within_hi is None else within_hi
        for lo, hi in _merged(self._dirty):
            if hi <= within_lo or lo >= within_end:
                continue
            for k, (start, end) in enumerate(spans):
                a, b = max(lo, start), min(hi, end)
                if a < b:
                    self.runtime.upload(self.buffers[k], root[a:b], offset=a - start)


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`ranges` sorted, overlapping and touching ones joined."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _covered(ranges: list[tuple[int, int]], lo: int, hi: int) -> bool:
    """Whether [lo, hi) lies inside the union of `ranges`."""
    for a, b in _merged(ranges):
        if a <= lo and hi <= b:
            return True
    return False
