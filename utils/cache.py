"""
The offline cache: compiled kernels kept on disk, so that a later process skips the
compiler (Taichi's `offline_cache`).

    cache = OfflineCache("~/.cache/taichi_xdsl/ticache")
    key = cache_key(ir=str(module), arch="x64", caps=..., config=..., compiler=...)
    entry = cache.load(key)                  # CacheEntry(meta, payload) or None
    if entry is None:
        cache.store(key, {"plan": ...}, object_bytes)
    cache.link(source_key, key, "saxpy")     # a cheaper first-level key for the same entry
    ...
    cache.flush()                            # at ti.reset() / ti.init() / exit

Keys are the SHA-256 of named parts (the kernel's IR, which carries its template
signature, field offsets and argument types; the arch and its caps; the compiler options;
the compiler version), so the same inputs give the same key in any process, and changing
any part gives another key (a miss, never a stale hit).

The directory holds, as Taichi's does, one file per compiled kernel and one metadata
file (the formats inside are ours):

- `<key>.tic`, one kernel:
  `b"TIXDSL-CACHE-1\\n" | u64 len(meta) | u64 len(payload) | sha256(meta + payload) | meta | payload`
  where `meta` is UTF-8 JSON and `payload` the compiled code. A file that is short, has
  another magic or a wrong checksum is ignored (a miss) and removed.
- `ticache.tcb`, the index: JSON `{"format": INDEX_FORMAT, "entries": {key: {"kernel",
  "size", "created", "used", "version"}}, "links": {source_key: {"key", "kernel"}}}`;
  `links` map first-level (source) keys to entries. An unreadable index is rebuilt from
  the `.tic` files.

Writes wait for `flush()` (the program's end: `ti.reset()`, the next `ti.init()`, or the
interpreter's exit), as Taichi dumps its cache when a program finishes: a program's own
lookups see its pending entries. Several processes may share one directory without locks:
every file is written to a temporary file in the same directory and renamed over its
final name (`os.replace`, atomic on POSIX and Windows), so a reader sees either no file or
a whole one; a file that disappears between listing and reading is a miss; two processes
flushing at once may lose each other's index updates (costing only misses).

Cleaning, at each flush when the `.tic` files exceed `max_bytes`: policy "lru" removes
`int(cleaning_factor * n)` of the n entries, least recently used first; "fifo" the same,
oldest first; "version" the entries written by another taichi_xdsl version; "never"
nothing. With no entry left the index goes too.

Nothing here imports xDSL or llvmlite.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import struct
import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"TIXDSL-CACHE-1\n"
_HEADER = struct.Struct("<QQ32s")
SUFFIX = ".tic"
INDEX_NAME = "ticache.tcb"
INDEX_FORMAT = "taichi_xdsl-ticache-1"
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
DEFAULT_CLEANING_FACTOR = 0.25
CLEANING_POLICIES = ("lru", "fifo", "version", "never")


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


def _package_version() -> str:
    import taichi_xdsl

    return str(taichi_xdsl.__xdsl_version__)


class OfflineCache:
    """
    A directory of cache entries and their index (see the module docstring).

    Args:
        path: the directory (created by the first flush that has something to write).
        max_bytes: the size bound of all entries together (0 or less: no bound).
        cleaning_policy: "lru", "fifo", "version" or "never".
        cleaning_factor: the part of the entries one cleaning removes (0 <= f <= 1).
        version: the version that "version" cleaning keeps (default: taichi_xdsl's).

    Attributes:
        hits, misses, stores: counters of this object's lookups and stores.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        cleaning_policy: str = "lru",
        cleaning_factor: float = DEFAULT_CLEANING_FACTOR,
        version: str | None = None,
    ):
        if cleaning_policy not in CLEANING_POLICIES:
            raise ValueError(
                f"offline_cache_cleaning_policy must be one of {CLEANING_POLICIES}, "
                f"got {cleaning_policy!r}"
            )
        if not 0.0 <= cleaning_factor <= 1.0:
            raise ValueError(
                f"offline_cache_cleaning_factor must be in [0, 1], got {cleaning_factor}"
            )
        self.path = Path(path).expanduser() if path is not None else default_cache_dir()
        self.max_bytes = int(max_bytes)
        self.cleaning_policy = cleaning_policy
        self.cleaning_factor = float(cleaning_factor)
        self.version = version if version is not None else _package_version()
        self.hits = 0
        self.misses = 0
        self.stores = 0
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[bytes, str]] = {}  # key -> (file bytes, kernel)
        self._used: dict[str, float] = {}  # key -> when this process last loaded it
        self._links: dict[str, dict[str, str]] = {}  # this process's new links
        self._disk_links: dict[str, dict[str, str]] | None = None  # read once
        _open_caches.add(self)

    def file_of(self, key: str) -> Path:
        """The file that holds (or will hold, once flushed) the entry of `key`."""
        return self.path / f"{key}{SUFFIX}"

    @property
    def index_file(self) -> Path:
        return self.path / INDEX_NAME

    # -- reading ---------------------------------------------------------------------

    def load(self, key: str) -> CacheEntry | None:
        """The entry of `key`, or None (absent, unreadable or corrupt: then removed)."""
        with self._lock:
            pending = self._pending.get(key)
        if pending is not None:
            data = pending[0]
        else:
            try:
                with open(self.file_of(key), "rb") as stream:
                    data = stream.read()
            except OSError:
                self.misses += 1
                return None
        entry = _decode(data)
        if entry is None:
            self.misses += 1
            self.discard(key)
            return None
        with self._lock:
            self._used[key] = time.time()
        self.hits += 1
        return entry

    def linked(self, source_key: str) -> tuple[str, str] | None:
        """(entry key, kernel name) that `source_key` was linked to, or None."""
        with self._lock:
            link = self._links.get(source_key)
            if link is None:
                if self._disk_links is None:
                    self._disk_links = _read_index(self.index_file)["links"]
                link = self._disk_links.get(source_key)
        if not isinstance(link, dict):
            return None
        key, kernel = link.get("key"), link.get("kernel")
        if not isinstance(key, str) or not isinstance(kernel, str):
            return None
        return key, kernel

    # -- writing ---------------------------------------------------------------------

    def store(self, key: str, meta: Mapping[str, Any], payload: bytes) -> bool:
        """Keep the entry of `key` for the next flush (and for this process's loads)."""
        data = _encode(meta, payload)
        with self._lock:
            self._pending[key] = (data, str(meta.get("kernel", "")))
            self._used[key] = time.time()
        self.stores += 1
        return True

    def link(self, source_key: str, key: str, kernel: str) -> None:
        """Map the first-level key `source_key` to the entry of `key` (kernel `kernel`)."""
        with self._lock:
            self._links[source_key] = {"key": key, "kernel": kernel}

    def unlink(self, source_key: str) -> None:
        """Forget the mapping of `source_key` (one to a missing or bad entry)."""
        with self._lock:
            self._links.pop(source_key, None)
            if self._disk_links is not None:
                self._disk_links.pop(source_key, None)
            self._links[source_key] = {}  # a tombstone: the flush drops it from the index

    def flush(self) -> bool:
        """
        Write the pending entries and the index, then clean (module docstring). Nothing
        is written (nor the directory made) when there is nothing new and no index yet.
        Returns False when the directory is not writable (the pending entries are kept).
        """
        with self._lock:
            pending = dict(self._pending)
            used = dict(self._used)
            links = dict(self._links)
        has_index = self.index_file.exists()
        if not pending and not has_index and not any(links.values()):
            return True
        now = time.time()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            for key, (data, _) in pending.items():
                _write_atomically(self.file_of(key), data)
        except OSError:
            return False
        index = _read_index(self.index_file)
        entries = index["entries"]
        on_disk = {path.stem: size for _, size, path in self.entries()}
        for key, size in on_disk.items():  # files another process wrote, or an old index
            if key not in entries:
                entries[key] = {"kernel": "", "created": now, "used": now, "version": ""}
            entries[key]["size"] = size
        for key in list(entries):
            if key not in on_disk:
                del entries[key]
        for key, (_, kernel) in pending.items():
            if key in entries:
                entries[key].update(kernel=kernel, created=now, version=self.version)
        for key, when in used.items():
            if key in entries:
                entries[key]["used"] = max(float(entries[key].get("used", 0)), when)
        for source_key, link in links.items():
            if link:
                index["links"][source_key] = link
            else:
                index["links"].pop(source_key, None)
        self._clean(entries)
        index["links"] = {
            s: link for s, link in index["links"].items() if link.get("key") in entries
        }
        try:
            if entries:
                text = json.dumps(index, sort_keys=True, separators=(",", ":"))
                _write_atomically(self.index_file, text.encode())
            else:
                _remove(self.index_file)
        except OSError:
            return False
        with self._lock:
            for key in pending:
                if self._pending.get(key) == pending[key]:
                    del self._pending[key]
            for source_key in links:
                if self._links.get(source_key) == links[source_key]:
                    del self._links[source_key]
            self._used.clear()
            self._disk_links = None
        return True

    # -- size bound ------------------------------------------------------------------

    def entries(self) -> list[tuple[float, int, Path]]:
        """(mtime, size, path) of every entry file on disk, oldest first."""
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
        """Bytes in entry files on disk."""
        return sum(size for _, size, _ in self.entries())

    def _clean(self, entries: dict[str, dict[str, Any]]) -> int:
        """Remove entries (files and index rows) as the policy says when they exceed
        `max_bytes`; the number removed."""
        if self.cleaning_policy == "never" or self.max_bytes <= 0:
            return 0
        if sum(int(e.get("size", 0)) for e in entries.values()) <= self.max_bytes:
            return 0
        if self.cleaning_policy == "version":
            doomed = [k for k, e in entries.items() if e.get("version") != self.version]
        else:
            order = "used" if self.cleaning_policy == "lru" else "created"
            ranked = sorted(entries, key=lambda k: (float(entries[k].get(order, 0)), k))
            doomed = ranked[: int(self.cleaning_factor * len(ranked))]
        for key in doomed:
            _remove(self.file_of(key))
            del entries[key]
        return len(doomed)

    def discard(self, key: str) -> None:
        """Remove the entry of `key` (one that could not be used)."""
        with self._lock:
            self._pending.pop(key, None)
            self._used.pop(key, None)
        _remove(self.file_of(key))

    def clear(self) -> None:
        """Remove every entry and the index (pending ones too)."""
        with self._lock:
            self._pending.clear()
            self._used.clear()
            self._links.clear()
            self._disk_links = None
        for _, _, path in self.entries():
            _remove(path)
        _remove(self.index_file)


_open_caches: weakref.WeakSet[OfflineCache] = weakref.WeakSet()


@atexit.register
def flush_all() -> None:
    """Flush every live cache (at the interpreter's exit)."""
    for cache in list(_open_caches):
        cache.flush()


def _read_index(path: Path) -> dict[str, Any]:
    """The index at `path`, or an empty one (absent, unreadable or of another format)."""
    try:
        data = json.loads(path.read_bytes().decode())
    except (OSError, UnicodeDecodeError, ValueError):
        data = None
    if (
        not isinstance(data, dict)
        or data.get("format") != INDEX_FORMAT
        or not isinstance(data.get("entries"), dict)
        or not isinstance(data.get("links"), dict)
    ):
        return {"format": INDEX_FORMAT, "entries": {}, "links": {}}
    data["entries"] = {k: e for k, e in data["entries"].items() if isinstance(e, dict)}
    data["links"] = {k: v for k, v in data["links"].items() if isinstance(v, dict)}
    return data


def _write_atomically(path: Path, data: bytes) -> None:
    import tempfile  # only a flush needs it (some ms to import)

    fd, temp = tempfile.mkstemp(prefix=f".{path.name[:16]}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(temp, path)
    except OSError:
        _remove(Path(temp))
        raise


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
