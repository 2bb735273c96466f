"""
The offline cache: compiled kernels kept on disk, so that a second process skips the
compiler (Taichi's `offline_cache`).

    cache = OfflineCache("~/.cache/taichi_xdsl/ticache")
    key = cache_key(ir=str(module), arch="x64", caps=..., config=..., compiler=...)
    entry = cache.load(key)                  # CacheEntry(meta, payload) or None
    if entry is None:
        cache.store(key, {"plan": ...}, object_bytes)

Keys are the SHA-256 of named parts (the kernel's IR, which carries its template
signature, field offsets and argument types; the arch and its caps; the compiler options;
the compiler version), so the same inputs give the same key in any process, and changing
any part gives another key (a miss, never a stale hit).

One entry is one file `<key>.tic`:

    b"TIXDSL-CACHE-1\\n" | u64 len(meta) | u64 len(payload) | sha256(meta + payload) | meta | payload

where `meta` is UTF-8 JSON and `payload` the compiled code. A file that is short, has
another magic or a wrong checksum is ignored (a miss) and removed.

Several processes may share one directory without locks: an entry is written to a
temporary file in the same directory and renamed over its final name (`os.replace`,
atomic on POSIX and Windows), so a reader sees either no file or a whole one; a file that
disappears between listing and reading is a miss.

Size bound: after each store, when the files exceed `max_bytes`, the least recently used
ones (a hit touches the file's mtime) are removed until `cleaning_factor` of the bound is
free again (policy "lru"); "fifo" orders by creation instead of use; "never" keeps all.

Nothing here imports xDSL or llvmlite.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"TIXDSL-CACHE-1\n"
_HEADER = struct.Struct("<QQ32s")
SUFFIX = ".tic"
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
DEFAULT_CLEANING_FACTOR = 0.25
CLEANING_POLICIES = ("lru", "fifo", "never")


def default_cache_dir() -> Path:
    """`$TI_OFFLINE_CACHE_FILE_PATH`, else `$XDG_CACHE_HOME/taichi_xdsl/ticache`."""
    env = os.environ.get("TI_OFFLINE_CACHE_FILE_PATH")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return Path(base).expanduser() / "taichi_xdsl" / "ticache"


def cache_key(**parts: object) -> str:
    """
    The hex SHA-256 of named key parts, in sorted order of their names; each value is
    written as its `repr` (strings and bytes as themselves), length-prefixed, so that no
    two different part sets hash the same bytes.

        cache_key(ir="taichi.kernel @k ...", arch="x64")  -> "3f5c..."
    """
    digest = hashlib.sha256()
    for name in sorted(parts):
        value = parts[name]
        if isinstance(value, bytes):
            data = value
        elif isinstance(value, str):
            data = value.encode()
        else:
            data = repr(value).encode()
        digest.update(f"{name}:{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """One cached kernel: JSON metadata and the compiled code."""

    meta: dict[str, Any]
    payload: bytes


class OfflineCache:
    """
    A directory of cache entries (see the module docstring).

    Args:
        path: the directory (created on first store).
        max_bytes: the size bound of all entries together (0 or less: no bound).
        cleaning_policy: "lru", "fifo" or "never".
        cleaning_factor: the part of `max_bytes` freed by one cleaning (0 < f <= 1).

    Attributes:
        hits, misses, stores: counters of this object's lookups and writes.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        cleaning_policy: str = "lru",
        cleaning_factor: float = DEFAULT_CLEANING_FACTOR,
    ):
        if cleaning_policy not in CLEANING_POLICIES:
            raise ValueError(
                f"offline_cache_cleaning_policy must be one of {CLEANING_POLICIES}, "
                f"got {cleaning_policy!r}"
            )
        if not 0.0 < cleaning_factor <= 1.0:
            raise ValueError(
                f"offline_cache_cleaning_factor must be in (0, 1], got {cleaning_factor}"
            )
        self.path = Path(path).expanduser() if path is not None else default_cache_dir()
        self.max_bytes = int(max_bytes)
        self.cleaning_policy = cleaning_policy
        self.cleaning_factor = float(cleaning_factor)
        self.hits = 0
        self.misses = 0
        self.stores = 0

    def file_of(self, key: str) -> Path:
        """The file that holds (or would hold) the entry of `key`."""
        return self.path / f"{key}{SUFFIX}"

    # -- reading ---------------------------------------------------------------------

    def load(self, key: str) -> CacheEntry | None:
        """The entry of `key`, or None (absent, unreadable or corrupt: then removed)."""
        path = self.file_of(key)
        try:
            with open(path, "rb") as stream:
                data = stream.read()
        except OSError:
            self.misses += 1
            return None
        entry = _decode(data)
        if entry is None:
            self.misses += 1
            _remove(path)
            return None
        if self.cleaning_policy == "lru":
            try:
                os.utime(path)  # most recently used
            except OSError:
                pass
        self.hits += 1
        return entry

    # -- writing ---------------------------------------------------------------------

    def store(self, key: str, meta: Mapping[str, Any], payload: bytes) -> bool:
        """
        Write the entry of `key` atomically, then clean if over the size bound.
        Returns False (and leaves the cache as it was) when the directory is not writable.
        """
        import tempfile  # only a store needs it (some ms to import)

        data = _encode(meta, payload)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(
                prefix=f".{key[:16]}-", suffix=".tmp", dir=self.path
            )
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
            os.replace(temp, self.file_of(key))
        except OSError:
            _remove(Path(temp))
            return False
        self.stores += 1
        self.clean()
        return True

    # -- size bound ------------------------------------------------------------------

    def entries(self) -> list[tuple[float, int, Path]]:
        """(mtime, size, path) of every entry file, oldest first."""
        found = []
        try:
            with os.scandir(self.path) as scan:
                for item in scan:
                    if not item.name.endswith(SUFFIX):
                        continue
                    try:
                        info = item.stat()
                    except OSError:
                        continue  # removed by another process
                    found.append((info.st_mtime, info.st_size, Path(item.path)))
        except OSError:
            return []
        found.sort(key=lambda e: (e[0], e[2].name))
        return found

    def size(self) -> int:
        """Bytes in entry files."""
        return sum(size for _, size, _ in self.entries())

    def clean(self) -> int:
        """
        Remove the oldest entries (by use for "lru", by creation for "fifo") while the
        entries exceed `max_bytes`, down to `(1 - cleaning_factor) * max_bytes`.
        Returns the number of files removed.
        """
        if self.cleaning_policy == "never" or self.max_bytes <= 0:
            return 0
        found = self.entries()
        total = sum(size for _, size, _ in found)
        if total <= self.max_bytes:
            return 0
        target = self.max_bytes * (1.0 - self.cleaning_factor)
        removed = 0
        for _, size, path in found:
            if total <= target:
                break
            if _remove(path):
                removed += 1
            total -= size
        return removed

    def discard(self, key: str) -> None:
        """Remove the entry of `key` (one that could not be used)."""
        _remove(self.file_of(key))

    def clear(self) -> None:
        """Remove every entry."""
        for _, _, path in self.entries():
            _remove(path)


def _encode(meta: Mapping[str, Any], payload: bytes) -> bytes:
    meta_bytes = json.dumps(meta, sort_keys=True, separators=(",", ":")).encode()
    checksum = hashlib.sha256(meta_bytes + payload).digest()
    header = _HEADER.pack(len(meta_bytes), len(payload), checksum)
    return b"".join((MAGIC, header, meta_bytes, payload))


def _decode(data: bytes) -> CacheEntry | None:
    start = len(MAGIC) + _HEADER.size
    if len(data) < start or not data.startswith(MAGIC):
        return None
    meta_len, payload_len, checksum = _HEADER.unpack_from(data, len(MAGIC))
    if len(data) != start + meta_len + payload_len:
        return None
    body = data[start:]
    if hashlib.sha256(body).digest() != checksum:
        return None
    try:
        meta = json.loads(body[:meta_len].decode())
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(meta, dict):
        return None
    return CacheEntry(meta, bytes(body[meta_len:]))


def _remove(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except OSError:
        return False
