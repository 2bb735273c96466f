"""
CPU AOT modules end to end: export (without running, or after running), save/archive,
reload through GfxRuntime140 and ti.aot.load, run standalone in a fresh process that
imports no compiler, and get the JIT's results; deterministic bytes; declared caps.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.targets import aot_format

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from aot_example import N, build_module, julia_module


def run_python(code: str, cwd: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TI_OFFLINE_CACHE": "0"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture
def program():
    ti.init(arch=ti.cpu, offline_cache=False)
    yield
    ti.reset()


STANDALONE = """
    import json, sys
    import numpy as np
    import taichi_xdsl as ti
    mod = ti.aot.load(sys.argv[1] if len(sys.argv) > 1 else {path!r})
    out = {{}}
    a = np.zeros({n}, np.float32)
    mod.get_kernel("fill")(a, 0.5)
    out["total"] = mod.get_kernel("total")(a)
    out["mix"] = mod.get_kernel("mix")(n=4000000000, k=7)
    mod.get_graph("step").run({{"a": a, "s": 2.0}})
    mod.get_kernel("scale_field__f_x")(3.0)
    out["x"] = mod.get_field("x").tolist()
    out["counter"] = int(mod.get_field("counter"))
    out["a"] = a.tolist()
    out["bad_modules"] = sorted(
        m for m in sys.modules
        if m.split(".")[0] == "xdsl"
        or m.startswith(("taichi_xdsl.frontends", "taichi_xdsl.lowering", "taichi_xdsl.dialects"))
    )
    print(json.dumps(out))
"""


@pytest.mark.parametrize("form", ["tcm", "folder"])
def test_module_runs_standalone_with_jit_results(program, tmp_path: Path, form: str):
    module, jit = build_module(ti.cpu, run_first=True)
    path = tmp_path / ("m.tcm" if form == "tcm" else "m")
    if form == "tcm":
        module.archive(path)
    else:
        module.save(path)
    out = json.loads(run_python(STANDALONE.format(path=str(path), n=N), tmp_path))
    assert out["bad_modules"] == []
    assert out["total"] == pytest.approx(jit["total"])
    assert out["mix"] == jit["mix"] == (4000000000 * 3 + 7) % 2**32
    np.testing.assert_allclose(out["x"], jit["x"])
    np.testing.assert_allclose(out["a"], jit["a"])
    assert out["counter"] == jit["counter"] == 1


def test_saved_folder_layout(program, tmp_path: Path):
    module, _ = build_module(ti.cpu)
    module.save(tmp_path / "deep" / "m")  # parents created
    folder = tmp_path / "deep" / "m"
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(
        [
            "__content__", "__version__", "graphs.json", "metadata.json", "runtime.o",
            "fill.o", "total.o", "mix.o", "scale_field__f_x.o", "to_field.o",
        ]
    )  # fmt: skip
    assert (folder / "__version__").read_text() == ".".join(map(str, ti.__version__))
    assert (folder / "__content__").read_text().splitlines() == [
        "cgraph:step",
        "field:counter",
        "field:x",
        "kernel:fill",
        "kernel:mix",
        "kernel:scale_field__f_x",
        "kernel:to_field",
        "kernel:total",
    ]
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["arch"] == "x64"
    fields = {f["name"]: f for f in meta["fields"]}
    assert fields["x"]["shape"] == [N] and fields["x"]["dtype"] == "f32"
    assert fields["counter"]["shape"] == [] and fields["counter"]["offset"] % 64 == 0
    kernels = {k["name"]: k for k in meta["kernels"]}
    mix = kernels["mix"]["ctx_attribs"]
    assert [a["dtype"] for a in mix["arg_attribs_vec_"]] == ["u32", "i64"]
    assert mix["ret_attribs_vec_"] == [{"dtype": "u32", "index": 0}]
    # the template argument is baked in: only `s` remains
    scale = kernels["scale_field__f_x"]["ctx_attribs"]["arg_attribs_vec_"]
    assert [a["name"] for a in scale] == ["s"]
    tasks = kernels["fill"]["tasks_attribs"]
    assert [t["name"] for t in tasks] == ["fill__task0", "fill__task1"]
    graphs = json.loads((folder / "graphs.json").read_text())
    assert graphs["step"]["dispatches"] == [
        {"kernel_name": "fill", "symbolic_args": ["a", "s"]},
        {"kernel_name": "to_field", "symbolic_args": ["a"]},
    ]


def test_add_kernel_does_not_run_or_cache(program, tmp_path: Path):
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in a:
            a[i] = 5

    m = ti.aot.Module(ti.cpu)
    m.add_kernel(k)
    assert k._instances == {}  # compiled for the module only, not run, not cached
    m.archive(tmp_path / "k.tcm")
    a = np.zeros(3, np.int32)
    ti.aot.load(tmp_path / "k.tcm").get_kernel("k")(a)
    assert a.tolist() == [5, 5, 5]


def test_kernel_reading_an_ndarray_gradient_is_refused(program):
    # The JIT passes x.grad as a hidden argument (kernel.py); a module could not.
    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in x:
            x[i] += x.grad[i]

    m = ti.aot.Module(ti.cpu)
    with pytest.raises(ti.TaichiError, match=r"reads x\.grad: an AOT module cannot"):
        m.add_kernel(k)


def test_julia_archive_is_identical_run_or_not(tmp_path: Path):
    """Seed 003: the same bytes whether or not the kernel ran before archiving."""
    ti.init(arch=ti.cpu, offline_cache=False)
    julia_module(ti.cpu, run_first=False).archive(tmp_path / "cold.tcm")
    ti.init(arch=ti.cpu, offline_cache=False)
    julia_module(ti.cpu, run_first=True).archive(tmp_path / "warm.tcm")
    ti.reset()
    cold = (tmp_path / "cold.tcm").read_bytes()
    assert cold == (tmp_path / "warm.tcm").read_bytes()
    meta = ti.aot.GfxRuntime140.from_module(tmp_path / "cold.tcm").to_metadata_json()
    assert [k["name"] for k in meta["kernels"]] == ["paint"]  # not paint_1


def test_bytes_identical_across_processes(tmp_path: Path):
    outs = []
    for index, run in enumerate(["", "run"]):
        out = tmp_path / f"m{index}.tcm"
        subprocess.run(
            [sys.executable, str(HERE / "aot_example.py"), "module", "cpu", str(out), run],
            check=True,
            timeout=300,
        )
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_tcm_is_a_stored_zip_with_fixed_dates(program, tmp_path: Path):
    import zipfile

    module, _ = build_module(ti.cpu)
    module.archive(tmp_path / "m.tcm")
    with zipfile.ZipFile(tmp_path / "m.tcm") as z:
        infos = z.infolist()
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.compress_type for i in infos} == {zipfile.ZIP_STORED}
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    with pytest.raises(ti.TaichiError, match="must end with .tcm"):
        module.archive(tmp_path / "m.zip")


def test_declared_cpu_caps(program, tmp_path: Path):
    @ti.kernel
    def axpy(
        x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)
    ):
        for i in x:
            y[i] += 2.0 * x[i]

    base = ti.aot.Module(ti.cpu)
    base.add_kernel(axpy)
    v3 = ti.aot.Module(ti.cpu, caps=["x86-64-v3", "+avx2"])
    v3.add_kernel(axpy)
    meta_base, meta_v3 = base.metadata().to_json(), v3.metadata().to_json()
    assert meta_base["required_caps"] == {
        "cpu.features": "",
        "cpu.name": "x86-64-v2",
        "cpu.triple": "x86_64-unknown-linux-gnu",
    }
    assert meta_v3["required_caps"]["cpu.name"] == "x86-64-v3"
    assert meta_v3["required_caps"]["cpu.features"] == "+avx2"
    assert base.files()["axpy.o"] != v3.files()["axpy.o"]
    with pytest.raises(ti.TaichiError, match="bad feature"):
        ti.aot.Module(ti.cpu, caps={"features": "avx2"})
    with pytest.raises(ti.TaichiError, match="unknown keys"):
        ti.aot.Module(ti.cpu, caps={"gpu": "x"})


def test_loader_refuses_missing_cpu_features(program, tmp_path: Path):
    @ti.kernel
    def one(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in a:
            a[i] = 1.0

    m = ti.aot.Module(ti.cpu, caps=["+nonexistentfeature"])
    m.add_kernel(one)
    files = m.files()
    aot_format.write_folder(files, tmp_path / "m")
    with pytest.raises(ti.aot.AotFormatError, match="lacks: nonexistentfeature"):
        ti.aot.load(tmp_path / "m")


def test_export_as_and_kernel_templates(program, tmp_path: Path):
    a = ti.field(ti.i32, shape=4)
    b = ti.field(ti.i32, shape=4)

    @ti.aot.export_as("set_value")
    @ti.kernel
    def setter(v: ti.i32):
        for i in a:
            a[i] = v

    @ti.kernel
    def copy(src: ti.template(), dst: ti.template()):
        for i in src:
            dst[i] = src[i] * 2

    m = ti.aot.Module(ti.cpu)
    m.add_field("a", a)
    m.add_field("b", b)
    assert m.add_kernel(setter) == "set_value"
    with m.add_kernel_template(copy) as kt:
        assert kt.instantiate(src=a, dst=b) == "copy__dst_b__src_a"
        assert kt.instantiate(src=b, dst=a) == "copy__dst_a__src_b"
    with pytest.raises(ti.TaichiError, match="needs a value in template_args"):
        m.add_kernel(copy)
    m.save(tmp_path / "m")
    mod = ti.aot.load(tmp_path / "m")
    mod.get_kernel("set_value")(3)
    mod.get_kernel("copy__dst_b__src_a")()
    assert mod.get_field("b").tolist() == [6, 6, 6, 6]
    mod.get_kernel("copy__dst_a__src_b")()
    assert mod.get_field("a").tolist() == [12, 12, 12, 12]


def test_recording(program, tmp_path: Path):
    @ti.kernel
    def inc(a: ti.types.ndarray(), d: ti.f32):
        for I in ti.grouped(a):  # any rank (one loop variable needs ti.grouped, as Taichi)
            a[I] += d

    @ti.kernel
    def unused(a: ti.types.ndarray()):
        for i in a:
            a[i] = 0

    x32 = np.zeros(4, np.float32)
    inc(x32, 1.0)  # before recording: not recorded
    ti.aot.start_recording(tmp_path / "rec.yml")
    inc(x32, 1.0)
    inc(x32, 2.0)  # same instance: recorded once
    inc(np.zeros((2, 2), np.float64), 1.0)  # a second instance
    rec = ti.aot.stop_recording()
    text = (tmp_path / "rec.yml").read_text()
    assert text.count("- name: inc") == 2 and "unused" not in text
    assert "dtype: f32, ndim: 1" in text and "dtype: f64, ndim: 2" in text
    m = ti.aot.Module(ti.cpu)
    names = m.add_recording(rec)
    assert names[0] == "inc" and names[1].startswith("inc_") and len(set(names)) == 2
    m.save(tmp_path / "m")
    mod = ti.aot.load(tmp_path / "m")
    y = np.zeros((2, 2), np.float64)
    mod.get_kernel(names[1])(y, 1.5)
    assert y.tolist() == [[1.5, 1.5], [1.5, 1.5]]
    with pytest.raises(ti.TaichiError, match="start_recording"):
        ti.aot.stop_recording()


def test_cli(program, tmp_path: Path):
    module, _ = build_module(ti.cpu)
    module.archive(tmp_path / "m.tcm")
    cli = [sys.executable, "-m", "taichi_xdsl.utils.ti_aot"]
    info = subprocess.run(
        [*cli, "info", str(tmp_path / "m.tcm")], check=False, capture_output=True, text=True
    )
    assert info.returncode == 0, info.stderr
    assert "kernel mix(n: u32, k: i64) -> u32" in info.stdout
    assert "graph step: fill(a, s); to_field(a)" in info.stdout
    np.save(tmp_path / "a.npy", np.zeros(N, np.float32))
    run = subprocess.run(
        [*cli, "run", str(tmp_path / "m.tcm"), "fill", f"a={tmp_path / 'a.npy'}", "s=2"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert np.load(tmp_path / "a.npy").tolist() == [2.0 * i for i in range(N)]
    total = subprocess.run(
        [*cli, "run", str(tmp_path / "m.tcm"), "total", f"a={tmp_path / 'a.npy'}"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert float(total.stdout) == sum(2.0 * i for i in range(N))
    bad = subprocess.run(
        [*cli, "run", str(tmp_path / "m.tcm"), "nope"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "no kernel 'nope'" in bad.stderr
