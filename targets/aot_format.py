"""
The on-disk format of AOT modules, shared by the exporter (frontends/python/lang/aot.py) and
the loaders (targets/llvm/aot_loader.py). Imports nothing but the standard library.

A module is a flat set of files, as Taichi 1.7's Vulkan modules:

    __content__      one line per entry: `kernel:<name>`, `field:<name>`, `cgraph:<name>`
    __version__      the Taichi release whose layout this follows, `1.7.4` (as Taichi writes
                     its own version there; taichi-xdsl's own format is named in metadata.json)
    metadata.json    fields, kernels (args, rets, tasks), required_caps, root_buffer_size
    graphs.json      compiled graphs: dispatches in order, symbolic arguments
    <kernel>.o       (arch x64) one relocatable object per kernel, all its tasks
    <task>.spv       (arch vulkan) one SPIR-V module per task

saved either as a folder or as a `.tcm`: the same files in an uncompressed zip, sorted by
name, every entry dated 1980-01-01 00:00:00 with fixed permissions, so that the bytes
depend on nothing but the files. JSON is written with sorted keys and a fixed layout.

    files = {"metadata.json": b"...", "saxpy.o": b"..."}
    write_folder(files, "out/")         # or write_tcm(files, "out.tcm")
    files = read_module_files("out.tcm")  # AotFormatError if corrupt, truncated, foreign
"""

from __future__ import annotations

import enum
import hashlib
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

from taichi_xdsl.utils.errors import TaichiError
from taichi_xdsl.utils.spirv_abi import TEXTURE_FORMATS

FORMAT_VERSION = "1.7.4"
"""What `__version__` holds: the Taichi release whose module layout this follows, written
as Taichi writes `ti.__version__` there (no newline)."""
READABLE_VERSIONS = (FORMAT_VERSION, "1.7.0")
"""`__version__` values the loaders read (1.7.0: modules written before 1.7.4 was named)."""

CONTENT_FILE = "__content__"
VERSION_FILE = "__version__"
METADATA_FILE = "metadata.json"
GRAPHS_FILE = "graphs.json"
REQUIRED_FILES = (CONTENT_FILE, VERSION_FILE, METADATA_FILE, GRAPHS_FILE)

ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""The timestamp of every .tcm entry (the earliest a zip can hold)."""

MAX_MODULE_BYTES = 1 << 31

MAX_EXTENT = 1 << 31
"""Bound of every extent, index and small count in metadata.json."""
MAX_NDIM = 16
MAX_SMALL_BUFFER = 1 << 24
"""Bound of a kernel's argument, return, global-temporary and thread-local blocks."""
MAX_ROOT_BUFFER = 1 << 40

INTEGRITY_KEY = "integrity"
"""metadata.json's entry of SHA-256 digests: `files` (every other file by name) and
`metadata` (metadata.json itself, as `dumps` writes it without this entry)."""


class AotFormatError(TaichiError):
    """An AOT module that is corrupt, truncated, foreign or of another version."""


class ArgKind(enum.IntEnum):
    """Kinds of graph and kernel arguments (Taichi's `ti.graph.ArgKind`)."""

    SCALAR = 0
    NDARRAY = 1
    MATRIX = 2
    TEXTURE = 3
    RWTEXTURE = 4


def dumps(value: Any) -> bytes:
    """Canonical JSON: sorted keys, fixed separators, ASCII, a final newline."""
    text = json.dumps(value, sort_keys=True, indent=1, separators=(",", ": "))
    return (text + "\n").encode("ascii")


def content_lines(metadata: dict[str, Any], graphs: dict[str, Any]) -> bytes:
    """The `__content__` file of a module: its entries by kind, then name."""
    entries = [f"field:{f['name']}" for f in metadata.get("fields", [])]
    entries += [f"kernel:{k['name']}" for k in metadata.get("kernels", [])]
    entries += [f"cgraph:{name}" for name in graphs]
    return ("\n".join(sorted(entries)) + "\n").encode("ascii")


def check_file_name(name: str) -> str:
    """A module file name: flat, no path separators, no dot-files but the fixed ones."""
    if (
        not name
        or name in (".", "..")
        or "/" in name
        or "\\" in name
        or "\x00" in name
        or (name.startswith(".") and name not in REQUIRED_FILES)
    ):
        raise AotFormatError(f"AOT module: bad file name {name!r}")
    return name


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def seal(files: dict[str, bytes]) -> dict[str, bytes]:
    """
    `files` with metadata.json carrying the SHA-256 of every other file and of itself,
    so that a loader finds any corrupted or truncated file before it runs any code.
    Files whose metadata.json is not a JSON object are returned as they are.
    """
    if METADATA_FILE not in files:
        return dict(files)
    try:
        metadata = json.loads(files[METADATA_FILE].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return dict(files)
    if not isinstance(metadata, dict):
        return dict(files)
    metadata.pop(INTEGRITY_KEY, None)
    metadata[INTEGRITY_KEY] = {
        "files": {
            name: _sha256(data)
            for name, data in sorted(files.items())
            if name != METADATA_FILE
        },
        "metadata": _sha256(dumps(metadata_without_integrity(metadata))),
    }
    return {**files, METADATA_FILE: dumps(metadata)}


def metadata_without_integrity(metadata: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in metadata.items() if key != INTEGRITY_KEY}


def check_integrity(
    files: dict[str, bytes], metadata: dict[str, Any], source: Any
) -> dict[str, bytes]:
    """
    The files metadata.json's digests name, each checked; files it does not name (a
    stray file in the folder) are left out. Raises AotFormatError naming the bad file.
    """
    integrity = metadata.get(INTEGRITY_KEY)
    digests = integrity.get("files") if isinstance(integrity, dict) else None
    own = integrity.get("metadata") if isinstance(integrity, dict) else None
    if not isinstance(digests, dict) or not isinstance(own, str) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in digests.items()
    ):
        raise AotFormatError(
            f"AOT module '{source}': metadata.json has no valid '{INTEGRITY_KEY}' digests "
            "(corrupt, or written by an older taichi-xdsl: export it again)"
        )
    if _sha256(dumps(metadata_without_integrity(metadata))) != own:
        raise AotFormatError(
            f"AOT module '{source}': metadata.json is corrupt (its SHA-256 digest does "
            "not match)"
        )
    checked = {METADATA_FILE: files[METADATA_FILE]}
    for name, digest in sorted(digests.items()):
        if name not in files:
            raise AotFormatError(
                f"AOT module '{source}': '{name}' is missing (a truncated module?)"
            )
        if _sha256(files[name]) != digest:
            raise AotFormatError(
                f"AOT module '{source}': '{name}' is corrupt or truncated (its SHA-256 "
                "digest differs from the one in metadata.json)"
            )
        checked[name] = files[name]
    return checked


def write_folder(files: dict[str, bytes], path: str | os.PathLike[str]) -> Path:
    """Write `files`, sealed (`seal`), into the folder `path` (created with its parents)."""
    files = seal(files)
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    for name in sorted(files):
        (folder / check_file_name(name)).write_bytes(files[name])
    return folder


def tcm_bytes(files: dict[str, bytes]) -> bytes:
    """The `.tcm` archive of `files`, sealed: stored (uncompressed), sorted, fixed dates."""
    files = seal(files)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(check_file_name(name), date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3  # unix, whatever the host
            info.external_attr = 0o100644 << 16
            archive.writestr(info, files[name])
    return buffer.getvalue()


def write_tcm(files: dict[str, bytes], path: str | os.PathLike[str]) -> Path:
    """Write `files` as the archive `path`, which must end in `.tcm`."""
    target = Path(path)
    if target.suffix != ".tcm":
        raise AotFormatError(f"an AOT archive must end with .tcm, got '{target}'")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(tcm_bytes(files))
    return target


def read_module_files(path: str | os.PathLike[str]) -> dict[str, bytes]:
    """
    The files of the module at `path` (a folder or a .tcm), checked: the fixed files are
    there, `__version__` is ours, the JSON parses, every file metadata names exists.

    Raises:
        AotFormatError: what is wrong, naming the module and the file.
    """
    source = Path(path)
    if source.is_dir():
        files = {
            entry.name: entry.read_bytes()
            for entry in sorted(source.iterdir())
            if entry.is_file()
        }
    elif source.is_file():
        files = _read_tcm(source)
    else:
        raise AotFormatError(f"AOT module '{source}': no such folder or .tcm file")
    missing = [name for name in REQUIRED_FILES if name not in files]
    if missing:
        raise AotFormatError(
            f"AOT module '{source}': not a taichi-xdsl module, missing {', '.join(missing)}"
        )
    version = files[VERSION_FILE].decode("ascii", "replace").strip()
    if version not in READABLE_VERSIONS:
        raise AotFormatError(
            f"AOT module '{source}': __version__ is '{version}', this loader reads "
            f"'{FORMAT_VERSION}'"
        )
    metadata = parse_json(files, METADATA_FILE, source)
    if not isinstance(metadata, dict) or metadata.get("format") != "taichi-xdsl":
        raise AotFormatError(
            f"AOT module '{source}': metadata.json is not a taichi-xdsl module "
            "(a module of another Taichi implementation?)"
        )
    files = check_integrity(files, metadata, source)
    for name in referenced_files(metadata):
        if name not in files:
            raise AotFormatError(
                f"AOT module '{source}': metadata.json names '{name}', which is missing "
                "(a truncated module?)"
            )
    parse_json(files, GRAPHS_FILE, source)
    return files


def parse_json(files: dict[str, bytes], name: str, source: Any) -> Any:
    try:
        return json.loads(files[name].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AotFormatError(f"AOT module '{source}': {name} is corrupt: {error}") from None


def referenced_files(metadata: dict[str, Any]) -> list[str]:
    """The code files metadata.json names (objects, SPIR-V)."""
    names: list[str] = []
    for kernel in metadata.get("kernels", []):
        if not isinstance(kernel, dict):
            continue
        if isinstance(kernel.get("object"), str):
            names.append(kernel["object"])
        for task in kernel.get("tasks_attribs", []):
            if isinstance(task, dict) and isinstance(task.get("spirv"), str):
                names.append(task["spirv"])
    return names


def _read_tcm(path: Path) -> dict[str, bytes]:
    if path.stat().st_size > MAX_MODULE_BYTES:
        raise AotFormatError(f"AOT module '{path}': larger than 2 GiB")
    try:
        with zipfile.ZipFile(path) as archive:
            files: dict[str, bytes] = {}
            for info in archive.infolist():
                name = check_file_name(info.filename)
                if name in files:
                    raise AotFormatError(f"AOT module '{path}': '{name}' appears twice")
                files[name] = archive.read(info)
            return files
    except zipfile.BadZipFile as error:
        raise AotFormatError(
            f"AOT module '{path}': not a .tcm archive (corrupt or truncated zip: {error})"
        ) from None
    except (zipfile.LargeZipFile, EOFError, OSError, ValueError) as error:
        raise AotFormatError(f"AOT module '{path}': unreadable archive: {error}") from None


# -- metadata.json and graphs.json, typed -------------------------------------------------

SCALAR_DTYPES = (
    "u1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64",
)  # fmt: skip
"""Taichi's primitive type names, as module files write them."""

IR_DTYPE = {"u1": "i1", "u8": "i8", "u16": "i16", "u32": "i32", "u64": "i64"}
"""The signless IR type of an unsigned Taichi type (others are their own)."""

NUMPY_DTYPE = {
    "u1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f16": "float16", "f32": "float32", "f64": "float64",
}  # fmt: skip


def ir_dtype(dtype: str) -> str:
    """The IR (launch plan) type of a Taichi type name: `u32` -> `i32`."""
    return IR_DTYPE.get(dtype, dtype)


class _Reader:
    """Pulls typed values out of parsed JSON, naming the path of a bad one."""

    def __init__(self, value: Any, where: str):
        if not isinstance(value, dict):
            raise AotFormatError(f"{where}: expected an object, got {type(value).__name__}")
        self.value = value
        self.where = where

    def get(self, key: str, kind: Any, default: Any = ..., allow_none: bool = False) -> Any:
        if key not in self.value:
            if default is ...:
                raise AotFormatError(f"{self.where}: '{key}' is missing")
            return default
        item = self.value[key]
        if item is None and allow_none:
            return None
        if not isinstance(item, kind) or (kind is int and isinstance(item, bool)):
            raise AotFormatError(
                f"{self.where}.{key}: expected {getattr(kind, '__name__', kind)}, "
                f"got {item!r}"
            )
        return item

    def natural(self, key: str, limit: int, default: Any = ...) -> int:
        """A non-negative int below `limit` (sizes, offsets, ranks, counts)."""
        item = self.get(key, int, default)
        if not 0 <= item < limit:
            raise AotFormatError(f"{self.where}.{key}: {item} is outside [0, {limit})")
        return item

    def dtype(self, key: str) -> str:
        name = self.get(key, str)
        if name not in SCALAR_DTYPES:
            raise AotFormatError(f"{self.where}.{key}: unknown dtype '{name}'")
        return name

    def ints(self, key: str, default: Any = ...) -> list[int]:
        items = self.get(key, list, default)
        if items is None or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < MAX_EXTENT
            for i in items
        ):
            raise AotFormatError(f"{self.where}.{key}: expected non-negative integers")
        return list(items)

    def objects(self, key: str) -> list[Any]:
        return list(self.get(key, list))


def _kind(reader: _Reader, key: str = "kind") -> ArgKind:
    name = reader.get(key, str)
    try:
        return ArgKind[name]
    except KeyError:
        raise AotFormatError(
            f"{reader.where}.{key}: unknown argument kind '{name}'"
        ) from None


def _texture_format(dtype: str, num_channels: int) -> str:
    """The texture format of `num_channels` channels of `dtype` (u8/u16: normalized),
    or "" when there is none."""
    storage = {"u8": "unorm8", "u16": "unorm16"}.get(dtype, dtype)
    for name, (_, _, channels, stored) in TEXTURE_FORMATS.items():
        if (channels, stored) == (num_channels, storage):
            return name
    return ""


class ArgAttributes:
    """
    One kernel parameter. SCALAR: dtype. NDARRAY: dtype, ndim, element_shape. MATRIX
    (a vector/matrix parameter): dtype, element_shape. TEXTURE / RWTEXTURE: ndim (1-3);
    an RWTEXTURE also its channel dtype and num_channels, which name its format (`fmt`:
    u8 x 4 is rgba8; every supported format has its own pair); a TEXTURE is read as f32
    channels.
    """

    def __init__(
        self,
        index: int,
        name: str,
        kind: ArgKind,
        dtype: str,
        ndim: int = 0,
        element_shape: tuple[int, ...] = (),
        num_channels: int = 0,
        lod: int = 0,
        fmt: str = "",
    ):
        self.index, self.name, self.kind, self.dtype = index, name, kind, dtype
        self.ndim, self.element_shape = ndim, tuple(element_shape)
        self.num_channels, self.lod, self.fmt = num_channels, lod, fmt

    @property
    def rank(self) -> int:
        """An NDARRAY's dimensions as launched: its ndim, then its element's (a (4, 4)
        ndarray of vec2 is a 3-d array of shape (4, 4, 2))."""
        return self.ndim + len(self.element_shape)

    def launch_args(self) -> list[tuple[str, int | None]]:
        """
        The launch plan arguments this parameter takes, as (IR dtype, rank or None):
        one per component for a MATRIX (`(f32, None)` x 6 for a 3x2 matrix),
        `("texture", ndim)` / `("rw_texture.<fmt>", ndim)` for textures.
        """
        dtype = ir_dtype(self.dtype)
        match self.kind:
            case ArgKind.SCALAR:
                return [(dtype, None)]
            case ArgKind.NDARRAY:
                return [(dtype, self.rank)]
            case ArgKind.MATRIX:
                count = 1
                for extent in self.element_shape:
                    count *= extent
                return [(dtype, None)] * count
            case ArgKind.TEXTURE:
                return [("texture", self.ndim)]
            case ArgKind.RWTEXTURE:
                return [(f"rw_texture.{self.fmt}", self.ndim)]
        raise AotFormatError(f"argument '{self.name}': unknown kind {self.kind}")

    @classmethod
    def from_json(cls, value: Any, where: str) -> ArgAttributes:
        r = _Reader(value, where)
        kind = _kind(r)
        dtype, num_channels = r.dtype("dtype"), r.natural("num_channels", 5, 0)
        fmt = ""
        if kind is ArgKind.RWTEXTURE:
            fmt = _texture_format(dtype, num_channels)
            if fmt not in TEXTURE_FORMATS:
                raise AotFormatError(
                    f"{where}: no texture format {fmt!r} ({num_channels} x {dtype})"
                )
        return cls(
            r.natural("index", MAX_EXTENT),
            r.get("name", str),
            kind,
            dtype,
            r.natural("ndim", MAX_NDIM + 1, 0),
            tuple(r.ints("element_shape", [])),
            num_channels,
            r.natural("lod", 32, 0),
            fmt,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "name": self.name,
            "kind": self.kind.name,
            "ptype": int(self.kind),
            "dtype": self.dtype,
        }
        if self.kind is not ArgKind.SCALAR:
            out["ndim"] = self.ndim
        if self.kind in (ArgKind.NDARRAY, ArgKind.MATRIX):
            out["element_shape"] = list(self.element_shape)
        if self.kind in (ArgKind.TEXTURE, ArgKind.RWTEXTURE):
            out["num_channels"] = self.num_channels
            out["lod"] = self.lod
        return out


class Bound:
    """A range_for bound: a constant `value` or the global temporary at `gtmp_offset`."""

    def __init__(
        self, dtype: str, value: int | None = None, gtmp_offset: int | None = None
    ):
        self.dtype, self.value, self.gtmp_offset = dtype, value, gtmp_offset

    @classmethod
    def from_json(cls, value: Any, where: str) -> Bound:
        r = _Reader(value, where)
        constant = r.get("value", int, None)
        offset = r.natural("gtmp_offset", MAX_SMALL_BUFFER, None) if "gtmp_offset" in r.value else None
        if (constant is None) == (offset is None):
            raise AotFormatError(f"{where}: needs exactly one of 'value', 'gtmp_offset'")
        dtype = r.get("dtype", str)
        if dtype not in ("i32", "i64"):
            raise AotFormatError(f"{where}.dtype: a loop bound is i32 or i64, got '{dtype}'")
        bits = int(dtype[1:])
        if constant is not None and not -(1 << (bits - 1)) <= constant < 1 << (bits - 1):
            raise AotFormatError(f"{where}.value: {constant} does not fit {dtype}")
        if offset is not None and offset % (bits // 8):
            raise AotFormatError(f"{where}.gtmp_offset: {offset} is not {dtype}-aligned")
        return cls(dtype, constant, offset)

    def to_json(self) -> dict[str, Any]:
        if self.value is not None:
            return {"dtype": self.dtype, "value": self.value}
        return {"dtype": self.dtype, "gtmp_offset": self.gtmp_offset}


def _block_dim(r: _Reader) -> int | None:
    block_dim = r.get("block_dim", int, None, allow_none=True)
    if block_dim is not None and not 0 < block_dim <= 1 << 16:
        raise AotFormatError(f"{r.where}.block_dim: {block_dim} is outside [1, 65536]")
    return block_dim


class TaskAttributes:
    """One task: its symbol (in the kernel's object) or SPIR-V file, kind and bounds."""

    def __init__(
        self,
        name: str,
        task_type: str,
        begin: Bound | None = None,
        end: Bound | None = None,
        block_dim: int | None = None,
        spirv: str | None = None,
        last_group: bool = False,
    ):
        self.name, self.task_type = name, task_type
        self.begin, self.end, self.block_dim, self.spirv = begin, end, block_dim, spirv
        self.last_group = last_group
        """A range_for whose last workgroup runs a fused serial task: it must be
        dispatched with at least one workgroup (ti-fuse-serial-reduction)."""

    @classmethod
    def from_json(cls, value: Any, where: str) -> TaskAttributes:
        r = _Reader(value, where)
        task_type = r.get("task_type", str)
        if task_type not in ("serial", "range_for", "struct_for"):
            raise AotFormatError(f"{where}.task_type: unknown task type '{task_type}'")
        begin = end = None
        if task_type != "serial":
            rf = _Reader(r.get("range_for_attribs", dict), f"{where}.range_for_attribs")
            begin = Bound.from_json(rf.get("begin", dict), f"{rf.where}.begin")
            end = Bound.from_json(rf.get("end", dict), f"{rf.where}.end")
        return cls(
            r.get("name", str),
            task_type,
            begin,
            end,
            _block_dim(r),
            r.get("spirv", str, None),
            r.get("last_group", bool, False),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "task_type": self.task_type,
            "block_dim": self.block_dim,
        }
        if self.begin is not None and self.end is not None:
            out["range_for_attribs"] = {
                "begin": self.begin.to_json(),
                "end": self.end.to_json(),
            }
        if self.spirv is not None:
            out["spirv"] = self.spirv
        if self.last_group:
            out["last_group"] = True
        return out


class KernelAttributes:
    """A kernel: parameters, return types, tasks in order, buffer sizes, code file."""

    def __init__(
        self,
        name: str,
        args: list[ArgAttributes],
        rets: list[str],
        tasks: list[TaskAttributes],
        gtmp_bytes: int = 0,
        thread_local_bytes: int = 0,
        object_file: str | None = None,
        args_bytes: int = 0,
        rets_bytes: int = 0,
        prints: list[tuple[int, str, tuple[str, ...]]] | None = None,
        asserts: list[tuple[int, str]] | None = None,
    ):
        self.name, self.args, self.rets, self.tasks = name, args, rets, tasks
        self.gtmp_bytes, self.thread_local_bytes = gtmp_bytes, thread_local_bytes
        self.object_file, self.args_bytes, self.rets_bytes = (
            object_file,
            args_bytes,
            rets_bytes,
        )
        self.prints = prints
        self.asserts = asserts
        """Vulkan, debug mode: the kernel's `ti.asserts` table (id -> assert message or
        access site), which the error record names."""

    @classmethod
    def from_json(cls, value: Any, where: str) -> KernelAttributes:
        r = _Reader(value, where)
        name = r.get("name", str)
        where = f"kernels[{name}]"
        ctx = _Reader(r.get("ctx_attribs", dict), f"{where}.ctx_attribs")
        args = [
            ArgAttributes.from_json(a, f"{ctx.where}.arg_attribs_vec_[{i}]")
            for i, a in enumerate(ctx.objects("arg_attribs_vec_"))
        ]
        if [a.index for a in args] != list(range(len(args))):
            raise AotFormatError(f"{ctx.where}.arg_attribs_vec_: indices must be 0..n-1")
        rets = []
        for i, ret in enumerate(ctx.objects("ret_attribs_vec_")):
            rr = _Reader(ret, f"{ctx.where}.ret_attribs_vec_[{i}]")
            if rr.get("index", int) != i:
                raise AotFormatError(f"{rr.where}.index: expected {i}")
            rets.append(rr.dtype("dtype"))
        tasks = [
            TaskAttributes.from_json(t, f"{where}.tasks_attribs[{i}]")
            for i, t in enumerate(r.objects("tasks_attribs"))
        ]
        prints = None
        if "prints" in r.value:
            prints = []
            for i, item in enumerate(r.objects("prints")):
                pr = _Reader(item, f"{where}.prints[{i}]")
                kinds = pr.get("kinds", list)
                if not all(isinstance(k, str) for k in kinds):
                    raise AotFormatError(f"{pr.where}.kinds: expected type names")
                prints.append((pr.get("id", int), pr.get("format", str), tuple(kinds)))
        asserts = None
        if "asserts" in r.value:
            asserts = []
            for i, item in enumerate(r.objects("asserts")):
                ar = _Reader(item, f"{where}.asserts[{i}]")
                asserts.append((ar.get("id", int), ar.get("message", str)))
        kernel = cls(
            name,
            args,
            rets,
            tasks,
            r.natural("gtmp_bytes", MAX_SMALL_BUFFER, 0),
            r.natural("thread_local_bytes", MAX_SMALL_BUFFER, 0),
            r.get("object", str, None),
            ctx.natural("args_bytes", MAX_SMALL_BUFFER, 0),
            ctx.natural("rets_bytes", MAX_SMALL_BUFFER, 0),
            prints,
            asserts,
        )
        for i, task in enumerate(tasks):
            for bound in (task.begin, task.end):
                if bound is not None and bound.gtmp_offset is not None and (
                    bound.gtmp_offset + int(bound.dtype[1:]) // 8 > kernel.gtmp_bytes
                ):
                    raise AotFormatError(
                        f"{where}.tasks_attribs[{i}]: a bound at gtmp_offset "
                        f"{bound.gtmp_offset} lies outside gtmp_bytes {kernel.gtmp_bytes}"
                    )
        return kernel

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "ctx_attribs": {
                "arg_attribs_vec_": [a.to_json() for a in self.args],
                "ret_attribs_vec_": [
                    {"index": i, "dtype": d} for i, d in enumerate(self.rets)
                ],
                "args_bytes": self.args_bytes,
                "rets_bytes": self.rets_bytes,
            },
            "tasks_attribs": [t.to_json() for t in self.tasks],
            "gtmp_bytes": self.gtmp_bytes,
            "thread_local_bytes": self.thread_local_bytes,
        }
        if self.object_file is not None:
            out["object"] = self.object_file
        if self.prints is not None:
            out["prints"] = [
                {"id": i, "format": f, "kinds": list(k)} for i, f, k in self.prints
            ]
        if self.asserts is not None:
            out["asserts"] = [{"id": i, "message": m} for i, m in self.asserts]
        return out


class FieldAttributes:
    """A field of the module's root buffer: name, dtype, shape, byte offset."""

    def __init__(self, name: str, dtype: str, shape: tuple[int, ...], offset: int):
        self.name, self.dtype, self.shape, self.offset = name, dtype, tuple(shape), offset

    @classmethod
    def from_json(cls, value: Any, where: str) -> FieldAttributes:
        r = _Reader(value, where)
        return cls(
            r.get("name", str),
            r.dtype("dtype"),
            tuple(r.ints("shape")),
            r.natural("offset", MAX_ROOT_BUFFER),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dtype": self.dtype,
            "shape": list(self.shape),
            "offset": self.offset,
            "is_scalar": True,
            "element_shape": [],
        }


class ModuleMetadata:
    """metadata.json: arch, required caps, root buffer, fields and kernels by name."""

    def __init__(
        self,
        arch: str,
        required_caps: dict[str, Any],
        root_buffer_size: int,
        fields: list[FieldAttributes],
        kernels: list[KernelAttributes],
        compile_options: dict[str, Any] | None = None,
        integrity: dict[str, Any] | None = None,
    ):
        self.integrity = integrity
        self.arch, self.required_caps = arch, dict(required_caps)
        self.root_buffer_size = root_buffer_size
        self.fields = sorted(fields, key=lambda f: f.name)
        self.kernels = sorted(kernels, key=lambda k: k.name)
        self.compile_options = dict(compile_options or {})

    @classmethod
    def from_json(cls, value: Any) -> ModuleMetadata:
        r = _Reader(value, "metadata.json")
        if r.get("format", str) != "taichi-xdsl":
            raise AotFormatError("metadata.json: not a taichi-xdsl module")
        caps = r.get("required_caps", dict)
        for key, cap in caps.items():
            if not isinstance(cap, str | int) or isinstance(cap, bool):
                raise AotFormatError(
                    f"metadata.json.required_caps.{key}: bad value {cap!r}"
                )
        fields = [
            FieldAttributes.from_json(f, f"metadata.json.fields[{i}]")
            for i, f in enumerate(r.objects("fields"))
        ]
        kernels = [
            KernelAttributes.from_json(k, f"metadata.json.kernels[{i}]")
            for i, k in enumerate(r.objects("kernels"))
        ]
        meta = cls(
            r.get("arch", str),
            caps,
            r.natural("root_buffer_size", MAX_ROOT_BUFFER),
            fields,
            kernels,
            r.get("compile_options", dict, {}),
            r.get(INTEGRITY_KEY, dict, None),
        )
        for f in meta.fields:
            nbytes = _prod(f.shape) * _itemsize(f.dtype)
            if f.offset + nbytes > meta.root_buffer_size:
                raise AotFormatError(
                    f"metadata.json: field '{f.name}' lies outside the root buffer"
                )
        return meta

    def kernel(self, name: str) -> KernelAttributes:
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "taichi-xdsl",
            "arch": self.arch,
            "required_caps": self.required_caps,
            "compile_options": self.compile_options,
            "root_buffer_size": self.root_buffer_size,
            "fields": [f.to_json() for f in self.fields],
            "kernels": [k.to_json() for k in self.kernels],
        } | ({INTEGRITY_KEY: self.integrity} if self.integrity is not None else {})


class GraphArg:
    """A symbolic graph argument (Taichi's `ti.graph.Arg`), as graphs.json holds it."""

    def __init__(
        self,
        name: str,
        kind: ArgKind,
        dtype: str | None,
        ndim: int = 0,
        element_shape: tuple[int, ...] = (),
        num_channels: int = 0,
        shape: tuple[int, ...] = (),
    ):
        self.name, self.kind, self.dtype, self.ndim = name, kind, dtype, ndim
        self.element_shape, self.num_channels = tuple(element_shape), num_channels
        self.shape = tuple(shape)

    @classmethod
    def from_json(cls, value: Any, where: str) -> GraphArg:
        r = _Reader(value, where)
        dtype = r.get("dtype", str, None, allow_none=True)
        if dtype is not None and dtype not in SCALAR_DTYPES:
            raise AotFormatError(f"{where}.dtype: unknown dtype '{dtype}'")
        return cls(
            r.get("name", str),
            _kind(r, "tag"),
            dtype,
            r.natural("ndim", MAX_NDIM + 1, 0),
            tuple(r.ints("element_shape", [])),
            r.natural("num_channels", 5, 0),
            tuple(r.ints("shape", [])),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tag": self.kind.name,
            "dtype": self.dtype,
            "ndim": self.ndim,
            "element_shape": list(self.element_shape),
            "num_channels": self.num_channels,
            "shape": list(self.shape),
        }


class GraphAttributes:
    """A compiled graph: its arguments and its dispatches (kernel + argument names)."""

    def __init__(
        self, name: str, args: list[GraphArg], dispatches: list[tuple[str, list[str]]]
    ):
        self.name = name
        self.args = sorted(args, key=lambda a: a.name)
        self.dispatches = dispatches

    @classmethod
    def from_json(cls, name: str, value: Any) -> GraphAttributes:
        where = f"graphs.json[{name}]"
        r = _Reader(value, where)
        args = [
            GraphArg.from_json(a, f"{where}.args[{i}]")
            for i, a in enumerate(r.objects("args"))
        ]
        known = {a.name for a in args}
        dispatches = []
        for i, d in enumerate(r.objects("dispatches")):
            dr = _Reader(d, f"{where}.dispatches[{i}]")
            names = dr.get("symbolic_args", list)
            for arg in names:
                if not isinstance(arg, str) or arg not in known:
                    raise AotFormatError(f"{dr.where}: unknown graph argument {arg!r}")
            dispatches.append((dr.get("kernel_name", str), list(names)))
        return cls(name, args, dispatches)

    def to_json(self) -> dict[str, Any]:
        return {
            "args": [a.to_json() for a in self.args],
            "dispatches": [
                {"kernel_name": k, "symbolic_args": list(names)}
                for k, names in self.dispatches
            ],
        }


def parse_graphs(value: Any) -> list[GraphAttributes]:
    """graphs.json -> graphs sorted by name."""
    if not isinstance(value, dict):
        raise AotFormatError("graphs.json: expected an object of graphs by name")
    return [GraphAttributes.from_json(name, value[name]) for name in sorted(value)]


def graphs_json(graphs: list[GraphAttributes]) -> dict[str, Any]:
    return {g.name: g.to_json() for g in sorted(graphs, key=lambda g: g.name)}


def _prod(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _itemsize(dtype: str) -> int:
    return 1 if dtype in ("u1", "i8", "u8") else int(dtype[1:]) // 8
