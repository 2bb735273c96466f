"""
The offline cache's first-level key (frontends/python/lang/source_key.py): a second process
with a warm cache runs a kernel without importing xDSL, and any change of what the key
covers (the kernel's source, a ti.func's source, a global constant, a field's shape, a
template argument) misses and recompiles, never reusing stale code. A kernel that names
an object the key cannot describe falls back to the IR key (correct, through xDSL).

Each run is a fresh Python process on a script written to a temporary directory.
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

SCRIPT = textwrap.dedent(
    """
    import json, sys
    options = json.loads(sys.argv[1])
    import taichi_xdsl as ti
    # Other work may edit the compiler's sources while the test runs: pin their hashes.
    from taichi_xdsl.utils import cache_keys
    cache_keys.fingerprint_sources = lambda root, dirs: "pinned"
    cache_keys.stat_fingerprint = lambda root, dirs: "pinned"
    ti.init(arch=getattr(ti, options["arch"]), offline_cache_file_path=options["path"])

    class Params:
        scale = PARAM

    P = Params()
    C = CONST
    x = ti.field(ti.f32, shape=(SHAPE, 64))

    @ti.func
    def twice(v):
        return v * FACTOR

    @ti.kernel
    def fill(k: ti.template(), a: ti.f32):
        for i, j in x:
            x[i, j] = twice(a) + C * k + i + TERM

    @ti.kernel
    def fill_object(a: ti.f32):
        for i, j in x:
            x[i, j] = a * P.scale + j

    if options["object"]:
        fill_object(1.0)
    else:
        fill(options["k"], 1.0)
    from taichi_xdsl.frontends.python.lang import program
    backend = program.get_program()._backend
    print(json.dumps({
        "xdsl": "xdsl" in sys.modules,
        "hits": backend.cache_hits,
        "misses": backend.cache_misses,
        "x": x.to_numpy().tolist(),
    }))
    """
)

DEFAULTS = {"PARAM": "2.0", "CONST": "1", "SHAPE": "8", "FACTOR": "2", "TERM": "0"}


def run(
    path: Path, *, k: int = 3, object: bool = False, arch: str = "cpu", **edits: str
) -> dict:
    """Run the script (with `edits` to its source) on `arch` in a fresh process."""
    source = SCRIPT
    for name, value in {**DEFAULTS, **edits}.items():
        source = source.replace(name, value)
    script = path / "kernels.py"
    script.write_text(source)
    env = dict(os.environ)
    env.pop("TI_OFFLINE_CACHE", None)
    options = {"path": str(path / "cache"), "k": k, "object": object, "arch": arch}
    done = subprocess.run(
        [sys.executable, str(script), json.dumps(options)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def expected(k: int = 3, **edits: str) -> list[list[float]]:
    parts = {**DEFAULTS, **edits}
    rows, factor = int(parts["SHAPE"]), float(parts["FACTOR"])
    const, term = float(parts["CONST"]), float(parts["TERM"])
    return [[factor + const * k + i + term] * 64 for i in range(rows)]


def test_warm_hit_needs_no_xdsl(arch, tmp_path: Path) -> None:
    name = "vulkan" if arch is ti.vulkan else "cpu"
    cold = run(tmp_path, arch=name)
    assert cold["xdsl"] and (cold["hits"], cold["misses"]) == (0, 1)
    assert cold["x"] == expected()
    warm = run(tmp_path, arch=name)
    assert not warm["xdsl"], "a source-key hit must not import xDSL"
    assert (warm["hits"], warm["misses"]) == (1, 0)
    assert warm["x"] == expected()


@pytest.mark.parametrize(
    "change",
    [
        {"TERM": "5"},  # the kernel's source
        {"FACTOR": "3"},  # a ti.func's source
        {"CONST": "4"},  # a global constant the kernel reads
        {"SHAPE": "16"},  # a field's shape
        {"k": 4},  # a template argument
    ],
    ids=["kernel_source", "func_source", "global_constant", "field_shape", "template"],
)
def test_change_misses_then_hits(tmp_path: Path, change: dict) -> None:
    run(tmp_path)
    changed = run(tmp_path, **change)
    assert changed["xdsl"], "a changed kernel must go through the compiler"
    assert changed["x"] == expected(**change)
    again = run(tmp_path, **change)
    assert not again["xdsl"] and again["hits"] == 1
    assert again["x"] == expected(**change)
    original = run(tmp_path)  # the first entry still hits
    assert not original["xdsl"] and original["x"] == expected()


@pytest.mark.vulkan_only("the Vulkan backend's source key (cpu: the test above)")
@pytest.mark.parametrize(
    "change",
    [{"TERM": "5"}, {"FACTOR": "3"}, {"SHAPE": "16"}, {"k": 4}],
    ids=["kernel_source", "func_source", "field_shape", "template"],
)
def test_vulkan_change_misses_then_hits(arch, tmp_path: Path, change: dict) -> None:
    """As on CPU: a changed kernel goes through the compiler, the original still hits."""
    run(tmp_path, arch="vulkan")
    changed = run(tmp_path, arch="vulkan", **change)
    assert changed["xdsl"] and changed["x"] == expected(**change)
    again = run(tmp_path, arch="vulkan", **change)
    assert not again["xdsl"] and again["hits"] == 1 and again["x"] == expected(**change)
    original = run(tmp_path, arch="vulkan")
    assert not original["xdsl"] and original["x"] == expected()


def test_unkeyable_object_falls_back_to_ir_key(tmp_path: Path) -> None:
    first = run(tmp_path, object=True)
    assert first["x"][1][2] == 1.0 * 2.0 + 2
    second = run(tmp_path, object=True)
    assert second["xdsl"] and second["hits"] == 1  # the IR key hit, through xDSL
    changed = run(tmp_path, object=True, PARAM="5.0")
    assert changed["x"][1][2] == 1.0 * 5.0 + 2


def test_field_offset_is_part_of_the_key(arch, tmp_path: Path) -> None:
    """Two programs whose fields differ only in `offset=` must not share code: the same
    kernel over a field starting at -8 and over one starting at 0 (across ti.reset, with
    one offline cache) fills each field with its own indices."""
    for start in (-8, 0, 3, -8):
        ti.init(arch=arch, offline_cache=True, offline_cache_file_path=str(tmp_path))
        x = ti.field(ti.i32, shape=16, offset=start)

        @ti.kernel
        def fill(f: ti.template()):
            for i in f:
                f[i] = i * 10

        fill(x)
        assert x.to_numpy().tolist() == (np.arange(start, start + 16) * 10).tolist()
        assert x[start] == start * 10
        ti.reset()
