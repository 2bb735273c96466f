"""
AOT modules saved as folders, corrupted in many ways: every corruption is an
AotFormatError naming the module and the file, found before any code runs; never a
crash and never wrong numbers. metadata.json carries the SHA-256 of every file.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.targets import aot_format as fmt

sys.path.insert(0, str(Path(__file__).parent))
from aot_example import N, build_module

AotFormatError = fmt.AotFormatError


@pytest.fixture
def saved(arch: Any, tmp_path: Path) -> Path:
    ti.init(arch=arch, offline_cache=False)
    module, _ = build_module(arch)
    module.save(tmp_path / "m")
    ti.reset()
    return tmp_path / "m"


def write_raw(files: dict[str, bytes], folder: Path) -> Path:
    """Write `files` as they are (fmt.write_folder would seal them again)."""
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def runs_correctly(path: Path) -> None:
    """The module loads and `fill` computes what it should."""
    module = ti.aot.load(path)
    a = np.zeros(N, dtype=np.float32)
    module.kernels["fill"](a, 3.0)
    if hasattr(module, "sync"):
        module.sync()
    np.testing.assert_array_equal(a, np.arange(N, dtype=np.float32) * 3)


def code_files(files: dict[str, bytes]) -> list[str]:
    return sorted(n for n in files if n.endswith((".o", ".spv")))


def test_metadata_names_every_file_digest(saved: Path):
    files = fmt.read_module_files(saved)
    meta = json.loads(files["metadata.json"])
    digests = meta["integrity"]["files"]
    assert sorted(digests) == sorted(n for n in files if n != "metadata.json")
    runs_correctly(saved)


@pytest.mark.parametrize("how", ["flip", "truncate", "empty", "append", "zero_tail"])
def test_corrupt_code_file_is_named(saved: Path, tmp_path: Path, how: str):
    files = fmt.read_module_files(saved)
    rng = random.Random(how)
    for name in code_files(files):
        data = bytearray(files[name])
        if how == "flip":
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif how == "truncate":
            data = data[: rng.randrange(1, len(data))]
        elif how == "empty":
            data = bytearray()
        elif how == "append":
            data += b"\x00\x01"
        else:
            data[len(data) // 2 :] = bytes(len(data) - len(data) // 2)
        broken = write_raw({**files, name: bytes(data)}, tmp_path / f"{how}-{name}")
        with pytest.raises(AotFormatError, match=rf"'{broken}'.*'{name}' is corrupt"):
            ti.aot.load(broken)


@pytest.mark.parametrize("name", ["graphs.json", "__content__"])
def test_corrupt_listing_files_are_named(saved: Path, tmp_path: Path, name: str):
    files = fmt.read_module_files(saved)
    data = files[name].replace(b"a", b"b", 1)
    broken = write_raw({**files, name: data}, tmp_path / "broken")
    with pytest.raises(AotFormatError, match=f"'{name}' is corrupt"):
        ti.aot.load(broken)


def test_metadata_number_changed(saved: Path, tmp_path: Path):
    # A digit changed in metadata.json (root_buffer_size) parses as valid JSON: the
    # module's own digest finds it.
    files = fmt.read_module_files(saved)
    meta = json.loads(files["metadata.json"])
    meta["root_buffer_size"] += 4
    broken = write_raw({**files, "metadata.json": fmt.dumps(meta)}, tmp_path / "broken")
    with pytest.raises(AotFormatError, match=rf"'{broken}': metadata.json is corrupt"):
        ti.aot.load(broken)


def test_metadata_truncated_or_without_digests(saved: Path, tmp_path: Path):
    files = fmt.read_module_files(saved)
    data = files["metadata.json"]
    broken = write_raw({**files, "metadata.json": data[: len(data) // 2]}, tmp_path / "t")
    with pytest.raises(AotFormatError, match="metadata.json is corrupt"):
        ti.aot.load(broken)
    meta = json.loads(data)
    del meta["integrity"]
    old = write_raw({**files, "metadata.json": fmt.dumps(meta)}, tmp_path / "old")
    with pytest.raises(AotFormatError, match="no valid 'integrity' digests"):
        ti.aot.load(old)


def test_missing_file_is_named(saved: Path, tmp_path: Path):
    files = fmt.read_module_files(saved)
    for name in [*code_files(files), "graphs.json"]:
        rest = {k: v for k, v in files.items() if k != name}
        broken = write_raw(rest, tmp_path / f"no-{name}")
        with pytest.raises(AotFormatError, match=f"'{name}'.* missing|{name}"):
            ti.aot.load(broken)


def test_stray_file_is_ignored(saved: Path, tmp_path: Path):
    files = fmt.read_module_files(saved)
    module = write_raw({**files, "README.txt": b"notes"}, tmp_path / "stray")
    runs_correctly(module)


def _leaves(value: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(value, dict):
        return [p for k in value for p in _leaves(value[k], (*path, k))] or [path]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))] or [path]
    return [path]


def _set(value: Any, path: tuple, new: Any) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = new


_BAD_VALUES = [None, "x", -1, 1 << 70, 2.5, [], {}, True]


def test_malformed_fields_resealed(saved: Path, tmp_path: Path):
    # Every field of metadata.json and graphs.json set to a value of the wrong type or
    # range, the module sealed again (as a deliberate edit would): loading either fails
    # with an AotFormatError or gives a module that still loads, never another error.
    files = fmt.read_module_files(saved)
    rng = random.Random(0)
    for name in ("metadata.json", "graphs.json"):
        original = json.loads(files[name])
        leaves = [p for p in _leaves(original) if p and p[0] != "integrity"]
        for i, path in enumerate(leaves):
            edited = json.loads(files[name])
            _set(edited, path, rng.choice(_BAD_VALUES))
            folder = tmp_path / f"{name}-{i}"
            fmt.write_folder({**files, name: fmt.dumps(edited)}, folder)
            try:
                ti.aot.load(folder)
            except AotFormatError:
                pass
