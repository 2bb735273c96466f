"""
Shared pytest fixtures: end-to-end tests run on every arch taichi-xdsl has.

A test that requests `arch` (directly, or through `program` / a file's autouse fixture)
runs once per arch, `[cpu]` and `[vulkan]`; the Vulkan variant is skipped, with the
reason, where `vulkan_available()` finds no device (lavapipe in CI). A test marked
`@pytest.mark.cpu_only("why")` runs on the CPU alone, one marked
`@pytest.mark.vulkan_only("why")` on Vulkan alone; the reason is part of the test.

    pytestmark = pytest.mark.usefixtures("program")   # every test of the file, both archs

    def test_x(arch):                                  # an arch-specific size or option
        ti.init(arch=arch, debug=True)
        n = 1 << 12 if arch is ti.vulkan else 1 << 20
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

# Tests never write into the user's home: the offline cache (on by default, as for users)
# and every other cache under $XDG_CACHE_HOME (Mesa's shader cache) go to a directory of
# this process (each xdist worker has its own), removed at exit. Set before taichi_xdsl
# or a Vulkan driver is loaded; subprocesses of tests inherit it.
_CACHE_ROOT = tempfile.mkdtemp(prefix="taichi_xdsl-tests-")
atexit.register(shutil.rmtree, _CACHE_ROOT, ignore_errors=True)
os.environ["XDG_CACHE_HOME"] = _CACHE_ROOT
os.environ["TI_OFFLINE_CACHE_FILE_PATH"] = os.path.join(_CACHE_ROOT, "ticache")

import taichi_xdsl as ti  # noqa: E402

ARCHS = ("cpu", "vulkan")


@cache
def vulkan_status() -> tuple[bool, str]:
    """(available, reason) of the Vulkan backend, asked once per session."""
    from taichi_xdsl.targets.vulkan import vulkan_available

    return vulkan_available()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cpu_only(reason): an end-to-end test about CPU-only behaviour; "
        "runs on arch=cpu alone",
    )
    config.addinivalue_line(
        "markers",
        "vulkan_only(reason): an end-to-end test about Vulkan-only behaviour; "
        "runs on arch=vulkan alone",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `arch` over ARCHS, or over the one arch of a `cpu_only` /
    `vulkan_only` test."""
    if "arch" not in metafunc.fixturenames:
        return
    archs = ARCHS
    for only in ("cpu", "vulkan"):
        marker = metafunc.definition.get_closest_marker(f"{only}_only")
        if marker is None:
            continue
        if not (marker.args or marker.kwargs.get("reason")):
            raise pytest.UsageError(
                f"{metafunc.definition.nodeid}: {only}_only needs a reason"
            )
        archs = (only,)
    metafunc.parametrize("arch", archs, indirect=True, scope="function")


@pytest.fixture
def arch(request: pytest.FixtureRequest) -> Any:
    """The arch of this test variant (`ti.cpu` or `ti.vulkan`); Vulkan is skipped,
    with the reason, where no device is usable."""
    name = getattr(request, "param", "cpu")
    if name == "vulkan":
        ok, reason = vulkan_status()
        if not ok:
            pytest.skip(f"no Vulkan device: {reason}")
        return ti.vulkan
    return ti.cpu


def init_arch(arch: Any, **options: Any) -> None:
    """`ti.init` on `arch` with `options` (the helper for tests that need options)."""
    ti.init(arch=arch, **options)


@pytest.fixture
def program(arch: Any) -> Iterator[Any]:
    """A fresh program on `arch` for the test; synced and dropped after it."""
    init_arch(arch)
    yield arch
    from taichi_xdsl.frontends.python.lang import program as _program

    current = _program._current
    ti.sync()
    ti.reset()
    backend = current._backend if current is not None else None
    if arch is ti.vulkan and backend is not None:
        # A Vulkan variant that re-initialised on the CPU would pass without testing
        # anything on Vulkan.
        assert type(backend).__name__ == "VulkanBackend", type(backend).__name__


@pytest.fixture
def few_groups(program: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """
    At most two workgroups a Vulkan launch of this test. A launch otherwise gets as many
    as cover its range (lavapipe caps them at 65535, not 4096 as on a GPU), so the
    unrolled grid-stride loop of convert-offload-to-spirv, which runs while UNROLL
    iterations an invocation are left, would not run at a test's sizes.
    """
    if program is ti.vulkan:
        import dataclasses

        from taichi_xdsl.frontends.python.lang import program as _program

        runtime = _program.get_program().backend.runtime
        capped = dataclasses.replace(runtime.caps, max_compute_work_group_count=(2, 1, 1))
        monkeypatch.setattr(runtime, "caps", capped)
    return program
