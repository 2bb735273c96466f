"""
The AOT module format: GfxRuntime140 round trips (return values and texture arguments
included), and clear errors for corrupt, truncated, foreign and mismatched modules.
"""

from __future__ import annotations

import copy
import json
import sys
import zipfile
from pathlib import Path

import pytest
import taichi_xdsl as ti
from taichi_xdsl.targets import aot_format as fmt

sys.path.insert(0, str(Path(__file__).parent))
from aot_example import build_module

AotFormatError = fmt.AotFormatError


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ti.init(arch=ti.cpu, offline_cache=False)
    module, _ = build_module(ti.cpu)
    root = tmp_path_factory.mktemp("aot")
    module.save(root / "m")
    module.archive(root / "m.tcm")
    ti.reset()
    return root


def test_gfx_runtime_round_trip(saved: Path):
    for path in (saved / "m", saved / "m.tcm"):
        rt = ti.aot.GfxRuntime140.from_module(path)
        meta = json.loads((saved / "m" / "metadata.json").read_text())
        graphs = json.loads((saved / "m" / "graphs.json").read_text())
        assert rt.to_metadata_json() == meta
        assert rt.to_graphs_json() == graphs
        again = ti.aot.GfxRuntime140(rt.to_metadata_json(), rt.to_graphs_json())
        assert (
            fmt.dumps(again.to_metadata_json())
            == (saved / "m" / "metadata.json").read_bytes()
        )
        assert (
            fmt.dumps(again.to_graphs_json()) == (saved / "m" / "graphs.json").read_bytes()
        )
    kernels = {k["name"]: k for k in rt.to_metadata_json()["kernels"]}
    assert kernels["total"]["ctx_attribs"]["ret_attribs_vec_"] == [
        {"dtype": "f32", "index": 0}
    ]


TEXTURE_KERNEL = {
    "name": "taichi_add",
    "ctx_attribs": {
        "arg_attribs_vec_": [
            {"index": 0, "name": "in_ten", "kind": "RWTEXTURE", "ptype": 4, "dtype": "u8",
             "ndim": 1, "num_channels": 4, "lod": 0},
            {"index": 1, "name": "out_ten", "kind": "TEXTURE", "ptype": 3, "dtype": "u8",
             "ndim": 1, "num_channels": 4, "lod": 0},
            {"index": 2, "name": "nsize", "kind": "SCALAR", "ptype": 0, "dtype": "i32"},
        ],
        "ret_attribs_vec_": [{"index": 0, "dtype": "f32"}, {"index": 1, "dtype": "u32"}],
        "args_bytes": 40,
        "rets_bytes": 16,
    },
    "tasks_attribs": [
        {"name": "taichi_add__task0", "task_type": "serial", "block_dim": None,
         "spirv": "taichi_add__task0.spv"},
        {"name": "taichi_add__task1", "task_type": "range_for", "block_dim": 128,
         "spirv": "taichi_add__task1.spv", "last_group": True,
         "range_for_attribs": {"begin": {"dtype": "i32", "value": 0},
                               "end": {"dtype": "i32", "gtmp_offset": 0}}},
    ],
    "gtmp_bytes": 4,
    "thread_local_bytes": 0,
}  # fmt: skip


def texture_metadata() -> tuple[dict, dict]:
    meta = {
        "format": "taichi-xdsl",
        "arch": "vulkan",
        "required_caps": {"spirv_version": 66304, "spirv_has_int8": 1},
        "compile_options": {},
        "root_buffer_size": 0,
        "fields": [],
        "kernels": [copy.deepcopy(TEXTURE_KERNEL)],
    }
    graphs = {
        "g": {
            "args": [
                {"name": "in_ten", "tag": "RWTEXTURE", "dtype": "u8", "ndim": 1,
                 "element_shape": [], "num_channels": 4, "shape": [128]},
                {"name": "nsize", "tag": "SCALAR", "dtype": "i32", "ndim": 0,
                 "element_shape": [], "num_channels": 0, "shape": []},
                {"name": "out_ten", "tag": "TEXTURE", "dtype": "u8", "ndim": 1,
                 "element_shape": [], "num_channels": 4, "shape": [128]},
            ],
            "dispatches": [
                {"kernel_name": "taichi_add", "symbolic_args": ["in_ten", "out_ten", "nsize"]}
            ],
        }
    }  # fmt: skip
    return meta, graphs


def test_round_trip_textures_and_returns():
    meta, graphs = texture_metadata()
    rt = ti.aot.GfxRuntime140(copy.deepcopy(meta), copy.deepcopy(graphs))
    assert rt.to_metadata_json() == meta
    assert rt.to_graphs_json() == graphs


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m, g: m.pop("format"), "'format' is missing"),
        (lambda m, g: m["kernels"][0]["ctx_attribs"]["arg_attribs_vec_"][0].update(kind="X"),
         "unknown argument kind 'X'"),
        (lambda m, g: m["kernels"][0]["ctx_attribs"]["arg_attribs_vec_"][1].update(index=5),
         "indices must be 0..n-1"),
        (lambda m, g: m["kernels"][0]["ctx_attribs"]["ret_attribs_vec_"][0].update(dtype="f128"),
         "unknown dtype 'f128'"),
        (lambda m, g: m["kernels"][0]["tasks_attribs"][1]["range_for_attribs"]["end"].update(value=3),
         "exactly one of"),
        (lambda m, g: g["g"]["dispatches"][0].update(kernel_name="nope"),
         "dispatches unknown kernel 'nope'"),
        (lambda m, g: g["g"]["dispatches"][0]["symbolic_args"].append("zz"),
         "unknown graph argument 'zz'"),
        (lambda m, g: m.update(root_buffer_size="big"), "root_buffer_size: expected int"),
        (lambda m, g: m["kernels"][0]["tasks_attribs"][1].update(last_group=1),
         "last_group: expected bool"),
    ],
)  # fmt: skip
def test_bad_metadata_is_named(edit, message):
    meta, graphs = texture_metadata()
    edit(meta, graphs)
    with pytest.raises(AotFormatError, match=message):
        ti.aot.GfxRuntime140(meta, graphs)


def test_truncated_archive(saved: Path, tmp_path: Path):
    data = (saved / "m.tcm").read_bytes()
    (tmp_path / "t.tcm").write_bytes(data[: len(data) // 2])
    with pytest.raises(AotFormatError, match="corrupt or truncated"):
        ti.aot.load(tmp_path / "t.tcm")


def test_corrupt_archive_entry(saved: Path, tmp_path: Path):
    data = bytearray((saved / "m.tcm").read_bytes())
    at = data.index(b"\x7fELF") + 200  # inside an object: the CRC no longer matches
    data[at] ^= 0xFF
    (tmp_path / "c.tcm").write_bytes(bytes(data))
    with pytest.raises(AotFormatError, match="(?i)crc|corrupt"):
        ti.aot.load(tmp_path / "c.tcm")


def test_corrupt_object_in_folder(saved: Path, tmp_path: Path):
    files = fmt.read_module_files(saved / "m")
    files["fill.o"] = b"not an object at all"
    fmt.write_folder(files, tmp_path / "m")
    with pytest.raises(AotFormatError, match="fill.o is not an ELF object"):
        ti.aot.load(tmp_path / "m")


def test_missing_object(saved: Path, tmp_path: Path):
    files = fmt.read_module_files(saved / "m")
    del files["total.o"]
    fmt.write_folder(files, tmp_path / "m")
    with pytest.raises(AotFormatError, match="names 'total.o', which is missing"):
        ti.aot.load(tmp_path / "m")


def test_foreign_modules(saved: Path, tmp_path: Path):
    with zipfile.ZipFile(tmp_path / "other.tcm", "w") as z:
        z.writestr("metadata.json", "{}")
    with pytest.raises(AotFormatError, match="not a taichi-xdsl module, missing"):
        ti.aot.load(tmp_path / "other.tcm")
    files = fmt.read_module_files(saved / "m")
    files["metadata.json"] = json.dumps({"kernels": [], "fields": []}).encode()
    fmt.write_folder(files, tmp_path / "taichi17")
    with pytest.raises(AotFormatError, match="another Taichi implementation"):
        ti.aot.load(tmp_path / "taichi17")
    files = fmt.read_module_files(saved / "m")
    files["__version__"] = b"1.6.0\n"
    fmt.write_folder(files, tmp_path / "old")
    with pytest.raises(AotFormatError, match="__version__ is '1.6.0'"):
        ti.aot.load(tmp_path / "old")
    files = fmt.read_module_files(saved / "m")
    files["graphs.json"] = b"{not json"
    fmt.write_folder(files, tmp_path / "badjson")
    with pytest.raises(AotFormatError, match="graphs.json is corrupt"):
        ti.aot.load(tmp_path / "badjson")
    with pytest.raises(AotFormatError, match="no such folder"):
        ti.aot.load(tmp_path / "nothing.tcm")


def test_unsafe_names_in_archive(tmp_path: Path):
    with zipfile.ZipFile(tmp_path / "evil.tcm", "w") as z:
        z.writestr("../evil.o", b"x")
    with pytest.raises(AotFormatError, match="bad file name"):
        ti.aot.load(tmp_path / "evil.tcm")
