"""
The serial form of a CPU range_for with atomics (ti-add-serial-forms) is lowered and
compiled when the runtime first runs it (targets/llvm/serial_forms.py), not with its
kernel: on one thread, for a range of one chunk, or when SerialOrParallel probes it (its
second launch on several threads). Results are those of the atomics at every launch,
the offline cache keeps the serial forms (their IR, then their object), and AOT modules
carry them compiled, listed in metadata.json.

CPU only: Vulkan has no serial form (test_cpu_atomic_tasks.py checks both archs' sums).
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

N, CELLS = 20_000, 31
"""A range of many chunks (the pool runs it), scattered into a few cells (atomics kept)."""


_FIELDS: dict = {}
"""The fields of the last `_scatter`, by name."""


def _scatter(n: int = N):
    pos = ti.field(ti.i32, shape=n)
    weight = ti.field(ti.f32, shape=n)
    grid = ti.field(ti.f32, shape=CELLS)

    @ti.kernel
    def scatter():
        for c in grid:
            grid[c] = 0
        for p in pos:
            grid[pos[p]] += weight[p]

    rng = np.random.default_rng(5)
    p = rng.integers(0, CELLS, n).astype(np.int32)
    w = rng.integers(-8, 9, n).astype(np.float32) * np.float32(0.25)  # exact sums
    pos.from_numpy(p)
    weight.from_numpy(w)
    want = np.bincount(p, weights=w, minlength=CELLS).astype(np.float32)
    _FIELDS.update(pos=pos, weight=weight, grid=grid)
    return scatter, grid, want


def _compiled(kernel):
    (run,) = kernel._instances.values()
    return run.compiled


def test_serial_forms_compile_when_the_runtime_first_runs_one():
    ti.init(arch=ti.cpu, offline_cache=False, cpu_max_num_threads=2)
    scatter, grid, want = _scatter()
    scatter()  # SerialOrParallel's first launch runs the parallel form
    np.testing.assert_array_equal(grid.to_numpy(), want)
    compiled = _compiled(scatter)
    forms = compiled.serial_forms
    assert forms is not None and not forms.compiled
    assert forms.symbols == (f"{compiled.plan.name}__task1_serial",)
    assert "_serial" not in compiled.llvm_ir
    scatter()  # the second probes the serial form: compiled now
    assert forms.compiled
    for _ in range(8):
        np.testing.assert_array_equal(grid.to_numpy(), want)
        scatter()
    ti.reset()


@pytest.mark.parametrize("threads, n", [(1, N), (2, 300)])
def test_one_thread_or_one_chunk_compiles_the_serial_form_at_the_first_launch(threads, n):
    ti.init(arch=ti.cpu, offline_cache=False, cpu_max_num_threads=threads)
    scatter, grid, want = _scatter(n)
    scatter()
    assert _compiled(scatter).serial_forms.compiled
    np.testing.assert_array_equal(grid.to_numpy(), want)
    ti.reset()


def test_a_kernel_without_atomics_has_no_serial_forms():
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=4096)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * 0.5

    fill()
    assert _compiled(fill).serial_forms is None
    ti.reset()


def test_dumps_name_the_serial_forms_once_compiled(tmp_path: Path):
    ti.init(arch=ti.cpu, offline_cache=False, dump_ir=str(tmp_path), cpu_max_num_threads=2)
    scatter, grid, want = _scatter()
    scatter()
    name = _compiled(scatter).plan.name
    assert not list(tmp_path.glob("*serial_forms*"))
    main_ll = (tmp_path / f"{name}.ll").read_text()
    assert f"@{name}__task1_serial" not in main_ll.replace('"', "")
    scatter()
    serial_ll = (tmp_path / f"{name}.serial_forms.ll").read_text().replace('"', "")
    assert f"define void @{name}__task1_serial(" in serial_ll
    assert f"@{name}__task1(" not in serial_ll
    assert (tmp_path / f"{name}.serial_forms.llvm.mlir").exists()
    np.testing.assert_array_equal(grid.to_numpy(), want)
    ti.reset()


SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import taichi_xdsl as ti
    from taichi_xdsl.utils import cache_keys
    cache_keys.fingerprint_sources = lambda root, dirs: "pinned"  # other work edits them
    cache_keys.stat_fingerprint = lambda root, dirs: "pinned"

    path, launches = sys.argv[1], int(sys.argv[2])
    ti.init(arch=ti.cpu, offline_cache_file_path=path, cpu_max_num_threads=2)
    n, cells = 20000, 31
    pos = ti.field(ti.i32, shape=n)
    weight = ti.field(ti.f32, shape=n)
    grid = ti.field(ti.f32, shape=cells)

    @ti.kernel
    def scatter():
        for c in grid:
            grid[c] = 0
        for p in pos:
            grid[pos[p]] += weight[p]

    p = (np.arange(n) * 7 % cells).astype(np.int32)
    w = (np.arange(n) % 5).astype(np.float32)
    pos.from_numpy(p)
    weight.from_numpy(w)
    ok = True
    for _ in range(launches):
        scatter()
        ok &= bool((grid.to_numpy() == np.bincount(p, weights=w, minlength=cells)).all())
    (run,) = scatter._instances.values()
    forms = run.compiled.serial_forms
    from taichi_xdsl.frontends.python.lang import program
    print(json.dumps({
        "ok": ok,
        "hits": program.get_program()._backend.cache_hits,
        "compiled": forms.compiled,
        "stages": [stage for stage, _ in forms.pass_times],
    }))
    """
)


def _run(path: Path, launches: int) -> dict:
    script = path / "scatter.py"  # kernels are read from a file
    script.write_text(SCRIPT)
    result = subprocess.run(
        [sys.executable, str(script), str(path / "cache"), str(launches)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "TI_OFFLINE_CACHE": "1"},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_offline_cache_keeps_serial_forms_then_their_code(tmp_path: Path):
    first = _run(tmp_path, 1)  # compiles the kernel; its serial forms never run
    assert first == {"ok": True, "hits": 0, "compiled": False, "stages": []}
    second = _run(tmp_path, 2)  # a hit; the serial forms compile from the entry's IR
    assert second["ok"] and second["hits"] == 1 and second["compiled"]
    assert "parse" in second["stages"] and "LLVM O3 + codegen" in second["stages"]
    third = _run(tmp_path, 2)  # a hit, and their object code is in the cache too
    assert third == {
        "ok": True,
        "hits": 1,
        "compiled": True,
        "stages": ["offline cache load"],
    }


def test_aot_modules_carry_the_serial_forms(tmp_path: Path):
    from taichi_xdsl.targets import aot_format as fmt
    from taichi_xdsl.targets.aot_format import AotFormatError

    ti.init(arch=ti.cpu, offline_cache=False)
    scatter, grid, want = _scatter()
    m = ti.aot.Module(ti.cpu)
    for name, field in _FIELDS.items():
        m.add_field(name, field)
    m.add_kernel(scatter)
    m.save(tmp_path)
    meta = json.loads((tmp_path / "metadata.json").read_text())
    (kernel,) = meta["kernels"]
    forms = [t.get("serial_form") for t in kernel["tasks_attribs"]]
    assert forms == [None, "scatter__task1_serial"]
    data = {name: field.to_numpy() for name, field in _FIELDS.items()}
    ti.reset()
    for threads in (1, 2):  # one thread runs the serial form alone
        loaded = ti.aot.load(tmp_path, num_threads=threads)
        loaded.set_field("pos", data["pos"])
        loaded.set_field("weight", data["weight"])
        run = loaded.get_kernel("scatter")
        for _ in range(4):
            run()
            np.testing.assert_array_equal(loaded.get_field("grid"), want)
    # The loader looks the serial forms up in the kernel's object.
    kernel["tasks_attribs"][1]["serial_form"] = "scatter__task7_serial"
    files = fmt.read_module_files(tmp_path)
    fmt.write_folder(fmt.seal({**files, "metadata.json": fmt.dumps(meta)}), tmp_path / "b")
    with pytest.raises(AotFormatError, match="lacks a task: .*scatter__task7_serial"):
        ti.aot.load(tmp_path / "b")
