"""
Vulkan AOT modules: one .spv per task generated for declared caps (no device needed to
export), required_caps read off the SPIR-V, deterministic bytes, and a loader that runs
them standalone (no xDSL, no llvmlite, no frontend) with the JIT's results.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import vulkan_available

sys.path.insert(0, str(Path(__file__).parent))
from aot_example import N, build_module, julia_module

HAVE_VULKAN, WHY = vulkan_available()
needs_device = pytest.mark.skipif(not HAVE_VULKAN, reason=f"no Vulkan device: {WHY}")


@pytest.fixture
def program():
    ti.init(arch=ti.cpu, offline_cache=False)
    yield
    ti.reset()


def test_layout_and_required_caps(program, tmp_path: Path):
    module, _ = build_module(ti.vulkan)
    module.save(tmp_path / "m")
    names = sorted(p.name for p in (tmp_path / "m").iterdir())
    assert "fill__task0.spv" in names and "fill__task1.spv" in names
    assert not any(n.endswith(".o") for n in names)
    meta = json.loads((tmp_path / "m" / "metadata.json").read_text())
    assert meta["arch"] == "vulkan"
    # mix takes an i64: the code needs Int64 (declared by default), nothing else
    assert meta["required_caps"] == {"spirv_has_int64": 1, "spirv_version": 0x10300}
    task = meta["kernels"][0]["tasks_attribs"][0]
    assert task["spirv"] == f"{task['name']}.spv"
    if shutil.which("spirv-val"):
        for name in names:
            if name.endswith(".spv"):
                result = subprocess.run(
                    ["spirv-val", "--target-env", "vulkan1.1", str(tmp_path / "m" / name)],
                    check=False,
                    capture_output=True,
                    text=True,
                )
                assert result.returncode == 0, (name, result.stderr)


def test_required_caps_follow_the_code(program):
    @ti.kernel
    def f32_only(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in a:
            a[i] = a[i] * 2.0

    @ti.kernel
    def uses_f64(a: ti.types.ndarray(dtype=ti.f64, ndim=1)):
        for i in a:
            a[i] = a[i] * 2.0

    small = ti.aot.Module(ti.vulkan, caps=["spirv_has_float64", "spirv_has_int64"])
    small.add_kernel(f32_only)
    caps = small.metadata().to_json()["required_caps"]
    assert caps == {"spirv_version": 0x10300}  # declared more than the code needs
    wide = ti.aot.Module(ti.vulkan, caps={"spirv_has_float64": 1, "spirv_has_int64": 1})
    wide.add_kernel(uses_f64)
    assert wide.metadata().to_json()["required_caps"]["spirv_has_float64"] == 1
    narrow = ti.aot.Module(ti.vulkan, caps=[])
    with pytest.raises(ti.TaichiCompilationError, match="(?i)float64|f64"):
        narrow.add_kernel(uses_f64)


def test_declared_caps_are_device_capability_names(program):
    """ti.DeviceCapability names the caps (strings, as Taichi's); any other name is a
    RuntimeError, never silently ignored."""
    assert ti.DeviceCapability.spirv_has_int8 == "spirv_has_int8"

    @ti.kernel
    def bump(a: ti.types.ndarray(dtype=ti.u8, ndim=1), c: ti.u8):
        for i in a:
            a[i] = i + c

    m = ti.aot.Module(ti.vulkan, caps=[ti.DeviceCapability.spirv_has_int8])
    m.add_kernel(bump)
    assert m.metadata().to_json()["required_caps"]["spirv_has_int8"] == 1
    for caps in (["Never gonna give you up"], {"spirv_has_int7": 1}):
        with pytest.raises(RuntimeError, match="unexpected device capability name"):
            ti.aot.Module(ti.vulkan, caps=caps)


def test_julia_identical_run_or_not(tmp_path: Path):
    ti.init(arch=ti.cpu, offline_cache=False)
    julia_module(ti.vulkan, run_first=False).archive(tmp_path / "cold.tcm")
    ti.init(arch=ti.cpu, offline_cache=False)
    julia_module(ti.vulkan, run_first=True).archive(tmp_path / "warm.tcm")
    ti.reset()
    assert (tmp_path / "cold.tcm").read_bytes() == (tmp_path / "warm.tcm").read_bytes()


@needs_device
def test_bytes_do_not_depend_on_the_live_arch(tmp_path: Path):
    """Built for the declared caps: the same files from a CPU or a Vulkan program."""
    outs = []
    for arch in (ti.cpu, ti.vulkan):
        ti.init(arch=arch, offline_cache=False)
        module, _ = build_module(ti.vulkan, run_first=True)
        outs.append(module.files())
    ti.reset()
    assert outs[0] == outs[1]


@needs_device
@pytest.mark.parametrize("jit_arch", ["cpu", "vulkan"])
def test_runs_standalone_with_jit_results(tmp_path: Path, jit_arch: str):
    ti.init(arch=getattr(ti, jit_arch), offline_cache=False)
    module, jit = build_module(ti.vulkan, run_first=True)
    module.archive(tmp_path / "m.tcm")
    code = textwrap.dedent(
        f"""
        import json, sys
        import numpy as np
        import taichi_xdsl as ti
        mod = ti.aot.load({str(tmp_path / "m.tcm")!r})
        rt = ti.aot.GfxRuntime140.from_module({str(tmp_path / "m.tcm")!r})
        out = {{}}
        a = np.zeros({N}, np.float32)
        mod.get_kernel("fill")(a, 0.5)
        out["total"] = mod.get_kernel("total")(a)
        out["mix"] = mod.get_kernel("mix")(n=4000000000, k=7)
        mod.get_graph("step").run({{"a": a, "s": 2.0}})
        mod.get_kernel("scale_field__f_x")(3.0)
        out["x"] = mod.get_field("x").tolist()
        out["counter"] = int(mod.get_field("counter"))
        out["a"] = a.tolist()
        out["kernels"] = [k["name"] for k in rt.to_metadata_json()["kernels"]]
        out["bad"] = sorted(
            m for m in sys.modules
            if m.split(".")[0] in ("xdsl", "llvmlite")
            or m.startswith(("taichi_xdsl.frontends", "taichi_xdsl.lowering"))
        )
        print(json.dumps(out))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300,
        env={**os.environ, "TI_OFFLINE_CACHE": "0"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["bad"] == []
    assert out["total"] == pytest.approx(jit["total"])
    assert out["mix"] == jit["mix"]
    np.testing.assert_allclose(out["x"], jit["x"])
    np.testing.assert_allclose(out["a"], jit["a"])
    assert out["counter"] == jit["counter"]
    assert "scale_field__f_x" in out["kernels"]
    ti.reset()
