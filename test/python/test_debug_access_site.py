"""
Debug mode (`ti.init(debug=True)`): an out-of-bounds access names where it is, as the
other kernel errors do: `File "...", line L, column C, in k:`, its source line and a
caret under the access, after the dimension, index and extent. The site travels with the compiled kernel (the
CPU's site text in the kernel's code, Vulkan's in the kernel's message table), so a
kernel loaded from the offline cache by a later process still names it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import taichi_xdsl as ti

from conftest import init_arch

HERE = Path(__file__).resolve()


def _line_of(source: str) -> int:
    """The line of this file that is `source` (unique here)."""
    lines = HERE.read_text().splitlines()
    assert lines.count(source) == 1, source
    return lines.index(source) + 1


def _expect_site(error: BaseException, line: int, source: str, column: int) -> None:
    message = str(error)
    assert f'File "{HERE}", line {line}, column {column}, in k:' in message, message
    assert f"\n{source}\n{' ' * (column - 1)}^" in message, message


@pytest.fixture
def debug(arch: Any):
    init_arch(arch, debug=True, offline_cache=False)
    yield arch
    ti.reset()


def test_field_1d_names_the_access(debug):
    x = ti.field(ti.i32, 4)

    @ti.kernel
    def k(i: ti.i32):
        x[i] = 11

    line = _line_of("        x[i] = 11")
    with pytest.raises(ti.TaichiIndexError) as info:
        k(7)
    assert "index 7 out of bounds for dimension 0 of extent 4" in str(info.value)
    _expect_site(info.value, line, "        x[i] = 11", 9)


def test_field_2d_names_the_access_and_the_dimension(debug):
    x = ti.field(ti.f32, shape=(4, 8))

    @ti.kernel
    def k(i: ti.i32, j: ti.i32) -> ti.f32:
        s = 0.0
        s += x[i, j] * 2.0
        return s

    line = _line_of("        s += x[i, j] * 2.0")
    with pytest.raises(ti.TaichiIndexError) as info:
        k(1, 9)
    assert "index 9 out of bounds for dimension 1 of extent 8" in str(info.value)
    _expect_site(info.value, line, "        s += x[i, j] * 2.0", 14)
    with pytest.raises(ti.TaichiIndexError) as info:
        k(-1, 9)  # the first bad index: dimension 0
    assert "index -1 out of bounds for dimension 0 of extent 4" in str(info.value)
    _expect_site(info.value, line, "        s += x[i, j] * 2.0", 14)
    assert k(3, 7) == 0.0  # the program still works


def test_ndarray_names_the_access(debug):
    a = ti.ndarray(ti.i32, (3, 5))

    @ti.kernel
    def k(a: ti.types.ndarray(), i: ti.i32, j: ti.i32):
        a[i, j] += 1

    line = _line_of("        a[i, j] += 1")
    with pytest.raises(ti.TaichiIndexError) as info:
        k(a, 3, 0)
    assert "index 3 out of bounds for dimension 0 of extent 3" in str(info.value)
    _expect_site(info.value, line, "        a[i, j] += 1", 9)


def test_two_accesses_name_their_own_lines(debug):
    x = ti.field(ti.i32, 4)
    y = ti.field(ti.i32, 2)

    @ti.kernel
    def k(i: ti.i32):
        x[i] = 3
        y[i] = 4

    with pytest.raises(ti.TaichiIndexError) as info:
        k(3)  # in x, not in y
    _expect_site(info.value, _line_of("        y[i] = 4"), "        y[i] = 4", 9)
    with pytest.raises(ti.TaichiIndexError) as info:
        k(5)  # x's check comes first
    _expect_site(info.value, _line_of("        x[i] = 3"), "        x[i] = 3", 9)


CACHED = textwrap.dedent(
    """
    import json, sys
    import taichi_xdsl as ti

    options = json.loads(sys.argv[1])
    ti.init(arch=getattr(ti, options["arch"]), debug=True,
            offline_cache_file_path=options["path"])
    x = ti.field(ti.i32, 4)

    @ti.kernel
    def k(i: ti.i32):
        x[i] = 1

    try:
        k(7)
        message = ""
    except ti.TaichiIndexError as e:
        message = str(e)
    from taichi_xdsl.frontends.python.lang import program
    backend = program.get_program()._backend
    print(json.dumps({"message": message, "hits": backend.cache_hits}))
    """
)


def test_cached_kernel_still_names_the_access(arch: Any, tmp_path: Path):
    """A second process loads `k` from the offline cache: the error still names it."""
    script = tmp_path / "cached_kernel.py"
    script.write_text(CACHED)
    options = {"arch": "vulkan" if arch is ti.vulkan else "cpu", "path": str(tmp_path / "c")}
    env = dict(os.environ)
    env.pop("TI_OFFLINE_CACHE", None)
    results = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, str(script), json.dumps(options)],
            capture_output=True, text=True, env=env, timeout=300, check=False,
        )
        assert done.returncode == 0, done.stderr
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert results[0]["hits"] == 0 and results[1]["hits"] >= 1, results
    line = CACHED.splitlines().index("    x[i] = 1") + 1
    for result in results:
        message = result["message"]
        assert "index 7 out of bounds for dimension 0 of extent 4" in message, message
        expected = f'File "{script}", line {line}, column 5, in k:\n    x[i] = 1\n    ^'
        assert expected in message, message


def test_aot_loaded_kernel_still_names_the_access(arch: Any, tmp_path: Path):
    """A kernel saved by ti.aot in debug mode and loaded back checks its accesses and
    names them (CPU: the site text is in the object code; Vulkan: in the module's
    `asserts` table of the kernel)."""
    init_arch(arch, debug=True, offline_cache=False)

    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.i32, ndim=1), i: ti.i32):
        a[i] = 5

    module = ti.aot.Module()
    module.add_kernel(k)
    module.save(tmp_path)
    ti.reset()
    loaded = ti.aot.load(tmp_path)
    a = np.zeros(3, np.int32)
    loaded.get_kernel("k")(a, 2)
    assert a.tolist() == [0, 0, 5]
    with pytest.raises(ti.TaichiIndexError) as info:
        loaded.get_kernel("k")(a, 9)
    assert "index 9 out of bounds for dimension 0 of extent 3" in str(info.value)
    _expect_site(info.value, _line_of("        a[i] = 5"), "        a[i] = 5", 9)
    assert a.tolist() == [0, 0, 5]  # the bad write was skipped


def test_many_dimensions_name_the_right_one(debug):
    """The dimension shares its word of the record with the site: an index of a
    field of 18 dimensions is reported as dimension 17 (not 1), at its own line."""
    x = ti.field(ti.i32, (1,) * 17 + (2,))

    @ti.kernel
    def k(i: ti.i32):
        x[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, i] = 1

    with pytest.raises(ti.TaichiIndexError) as info:
        k(5)
    assert "index 5 out of bounds for dimension 17 of extent 2" in str(info.value)
    source = "        x[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, i] = 1"
    _expect_site(info.value, _line_of(source), source, 9)


def test_access_in_a_ti_func_names_the_func_and_the_kernel(debug):
    """An access inside a ti.func was reported `in k:`, the kernel, for a line of the
    function: it names the function and the kernel that called it."""
    x = ti.field(ti.i32, 4)

    @ti.func
    def get(i):
        return x[i]

    @ti.func
    def get_twice(i):
        return get(i) + get(i)

    @ti.kernel
    def k(i: ti.i32) -> ti.i32:
        return get_twice(i)

    line = _line_of("        return x[i]")
    with pytest.raises(ti.TaichiIndexError) as info:
        k(9)
    message = str(info.value)
    assert (
        f'File "{HERE}", line {line}, column 16, in get (called from kernel k):' in message
    ), message
    assert "\n        return x[i]\n               ^" in message, message


def test_runtime_checks_in_a_ti_func_name_the_func_and_the_kernel(debug, capfd):
    """Division by zero and overflow (debug mode) inside a ti.func name the function
    and the kernel too."""
    out = ti.field(ti.i32, 2)

    @ti.func
    def ratio(a, b):
        return a // b

    @ti.func
    def product(a, b):
        return a * b

    @ti.kernel
    def k(a: ti.i32, b: ti.i32):
        out[0] = ratio(a, b)
        out[1] = product(a, a)

    with pytest.raises(ti.TaichiAssertionError) as info:
        k(7, 0)
    message = str(info.value)
    line = _line_of("        return a // b")
    assert f'line {line}, in ratio (called from kernel k):' in message, message
    capfd.readouterr()
    k(1 << 20, 1)
    ti.sync()
    printed = capfd.readouterr().out
    line = _line_of("        return a * b")
    assert "Multiplication overflow detected in File" in printed, printed
    assert f'line {line}, in product (called from kernel k):' in printed, printed
