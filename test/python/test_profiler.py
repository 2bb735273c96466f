"""
ti.profiler: the kernel profiler records every launch (count, min/avg/max, trace) once
`ti.init(kernel_profiler=True)`, warns as Taichi does when it is off, and starts empty
with each ti.init; the scoped profiler lists each compile's passes. No test here compares
one time with another: only that the records are the launches made.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import taichi_xdsl as ti
from conftest import init_arch


def _program_with_two_kernels(arch: Any) -> tuple[Any, Any, Any]:
    init_arch(arch, kernel_profiler=True)
    x = ti.field(ti.f32, 4096)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * 2.0

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for i in x:
            s += x[i]
        return s

    return x, fill, total


def test_counts_every_launch_and_its_times(arch: Any, capsys: pytest.CaptureFixture) -> None:
    _, fill, total = _program_with_two_kernels(arch)
    for _ in range(3):
        fill()
    assert total() == sum(i * 2.0 for i in range(4096))

    r = ti.profiler.query_kernel_profiler_info(fill.__name__)
    assert r.counter == 3
    assert 0.0 < r.min <= r.avg <= r.max
    assert ti.profiler.query_kernel_profiler_info("total").counter == 1
    assert ti.profiler.query_kernel_profiler_info("no_such_kernel").counter == 0
    seconds = ti.profiler.get_kernel_profiler_total_time()
    assert seconds > 0.0

    ti.profiler.print_kernel_profiler_info()
    out = capsys.readouterr().out
    assert re.search(r"\s3x \|.*\] fill$", out, re.M), out
    assert re.search(r"\s1x \|.*\] total$", out, re.M), out
    assert "number of results: 2" in out

    ti.profiler.print_kernel_profiler_info("trace")
    trace = capsys.readouterr().out
    assert [line.rsplit(" ", 1)[1] for line in trace.splitlines() if line.startswith("[ ") and "ms ]" in line] == [
        "fill", "fill", "fill", "total"
    ]
    assert "Number of records:   4" in trace
    ti.reset()


def test_clear_and_a_new_init_forget_the_launches(arch: Any) -> None:
    _, fill, _ = _program_with_two_kernels(arch)
    fill()
    ti.profiler.clear_kernel_profiler_info()
    assert ti.profiler.query_kernel_profiler_info("fill").counter == 0
    fill()
    assert ti.profiler.query_kernel_profiler_info("fill").counter == 1
    _, fill2, _ = _program_with_two_kernels(arch)
    assert ti.profiler.query_kernel_profiler_info("fill").counter == 0
    assert ti.profiler.get_kernel_profiler_total_time() == 0.0
    ti.reset()


def test_off_warns_as_taichi_does_and_records_nothing(arch: Any) -> None:
    init_arch(arch)
    x = ti.field(ti.i32, 8)

    @ti.kernel
    def k():
        x[0] = 1

    k()
    with pytest.warns(UserWarning, match=r"kernel_profiler = True"):
        assert ti.profiler.query_kernel_profiler_info("k") is None
    with pytest.warns(UserWarning, match=r"kernel_profiler = True"):
        ti.profiler.print_kernel_profiler_info()
    ti.reset()


def test_other_toolkits_and_metrics_are_refused_with_a_warning(arch: Any) -> None:
    init_arch(arch, kernel_profiler=True)
    assert ti.profiler.set_kernel_profiler_toolkit("default") is True
    with pytest.warns(UserWarning, match="cupti"):
        assert ti.profiler.set_kernel_profiler_toolkit("cupti") is False
    with pytest.warns(UserWarning, match="CUPTI"):
        with ti.profiler.collect_kernel_profiler_metrics():
            pass
    ti.reset()


def test_scoped_profiler_lists_each_compile_and_its_passes(
    arch: Any, capsys: pytest.CaptureFixture
) -> None:
    init_arch(arch, offline_cache=False)
    ti.profiler.clear_scoped_profiler_info()
    x = ti.field(ti.i32, 8)

    @ti.kernel
    def k():
        for i in x:
            x[i] = i

    k()
    ti.profiler.print_scoped_profiler_info()
    out = capsys.readouterr().out
    assert re.search(r"ms compile k", out), out
    assert "ti-offload" in out
    assert "in 1 compile(s)" in out
    ti.profiler.clear_scoped_profiler_info()
    ti.profiler.print_scoped_profiler_info()
    assert "in 0 compile(s)" in capsys.readouterr().out
    ti.reset()
