"""
The Vulkan backend's side of the offline cache (utils/cache.py): what a key is made of,
and a compiled kernel (launch plan + SPIR-V of each task) to and from an entry.

An entry's meta is `{"kernel": name, "plan": plan_to_json(plan), "sizes": [...]}` and its
payload the tasks' SPIR-V binaries one after the other (`sizes` in bytes). A hit skips
every xDSL pass and the serializer: the device builds the pipelines from the binaries.
The key (`kernel_key`) is the SHA-256 of

- `ir`: the kernel's module as the frontend built it;
- `arch` and `caps`: the device (name, vendor, driver) and the Taichi caps code is made for;
- `config`: the pipeline as run (its stages carry the caps, debug, fast_math and NaN
  options) and, when it is edited, the plugins' fingerprint;
- `compiler`: taichi_xdsl's and xDSL's versions and a hash of the compiler's sources
  (dialects/, lowering/, targets/spirv/, targets/vulkan/, utils/).

A first-level key (`source_kernel_key`), as on CPU (targets/llvm/cache.py), is computed
before the frontend runs from the kernel's source, the values it names, its template
signature and the field layout (frontends/python/lang/source_key.py), with the same arch,
caps and config and `light_compiler_version` (no xDSL import; the frontend's sources are
fingerprinted too). It links to the IR-keyed entry in the cache's index, so that a fresh
process with a warm cache neither builds the kernel's module nor imports xDSL.

    key = kernel_key(str(module), arch=..., caps=..., config=...)
    link = source_kernel_key(parts, arch=..., caps=..., config=...)   # no xDSL
    meta, payload = kernel_to_entry(plan, binaries)
    plan, binaries = kernel_from_entry(meta, payload)     # ValueError if malformed
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from taichi_xdsl.targets.vulkan.backend import KernelPlan, TaskPlan
from taichi_xdsl.utils.cache import cache_key, installed_xdsl_version, stat_fingerprint

PLAN_FORMAT = 3
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
COMPILER_SOURCE_DIRS = ("dialects", "lowering", "targets/spirv", "targets/vulkan", "utils")
SOURCE_KEY_DIRS = (*COMPILER_SOURCE_DIRS, "frontends")
"""The sources a first-level (source) key depends on: the compiler's and the frontend's."""


@cache
def compiler_version() -> str:
    """taichi_xdsl's and xDSL's versions and the compiler sources' hash (once a process)."""
    import taichi_xdsl
    from taichi_xdsl.targets.llvm.cache import _xdsl_version, fingerprint_sources

    sources = fingerprint_sources(_PACKAGE_ROOT, COMPILER_SOURCE_DIRS)
    return f"taichi_xdsl={taichi_xdsl.__xdsl_version__};xdsl={_xdsl_version()};sources={sources}"


def kernel_key(ir: str, *, arch: str, caps: str, config: str) -> str:
    """The cache key of one kernel instance (see the module docstring)."""
    return cache_key(
        ir=ir, arch=arch, caps=caps, config=config, compiler=compiler_version(), spirv=1
    )


@cache
def light_compiler_version() -> str:
    """
    The versions behind a source key, found without importing xDSL: taichi_xdsl, xDSL
    (its dist-info folder) and `stat_fingerprint` of the compiler's and the frontend's
    sources.
    """
    import taichi_xdsl

    sources = stat_fingerprint(_PACKAGE_ROOT, SOURCE_KEY_DIRS)
    return (
        f"taichi_xdsl={taichi_xdsl.__xdsl_version__};xdsl={installed_xdsl_version()};"
        f"sources={sources}"
    )


def source_kernel_key(parts: dict[str, str], *, arch: str, caps: str, config: str) -> str:
    """
    The first-level key of a kernel instance: `parts` from the frontend
    (frontends/python/lang/source_key.py) with the backend's arch, caps, options and
    `light_compiler_version`. The cache's index links it to the IR-keyed entry.
    """
    return cache_key(
        **{f"src_{name}": value for name, value in parts.items()},
        arch=arch,
        caps=caps,
        config=config,
        compiler=light_compiler_version(),
        level="source",
        spirv=1,
    )


def kernel_to_entry(plan: KernelPlan, binaries: list[bytes]) -> tuple[dict[str, Any], bytes]:
    """A compiled kernel as an entry's (meta, payload)."""
    meta = {
        "kernel": plan.name,
        "sizes": [len(b) for b in binaries],
        "plan": {
            "format": PLAN_FORMAT,
            "name": plan.name,
            "args": [[dtype, rank] for dtype, rank in plan.args],
            "returns": list(plan.returns),
            "tasks": [
                {
                    "symbol": t.symbol,
                    "kind": t.kind,
                    "begin": t.begin,
                    "end": t.end,
                    "combines": t.combines,
                    "skip": t.skip,
                    "begin_at": t.begin_at,
                    "end_at": t.end_at,
                }
                for t in plan.tasks
            ],
            "gtmp_bytes": plan.gtmp_bytes,
            "prints": [[i, f, list(kinds)] for i, (f, kinds) in plan.prints.items()],
            "asserts": [[i, message] for i, message in plan.asserts.items()],
            "root_segments": plan.root_segments,
        },
    }
    return meta, b"".join(binaries)


def kernel_from_entry(meta: dict[str, Any], payload: bytes) -> tuple[KernelPlan, list[bytes]]:
    """
    The plan and SPIR-V binaries of an entry of `kernel_to_entry`.

    Raises:
        ValueError: not an entry of this format.
    """
    try:
        data = meta["plan"]
        if data["format"] != PLAN_FORMAT:
            raise ValueError(f"plan format {data['format']}, expected {PLAN_FORMAT}")
        sizes = [int(s) for s in meta["sizes"]]
        if sum(sizes) != len(payload) or len(sizes) != len(data["tasks"]):
            raise ValueError("the SPIR-V sizes do not match the payload")
        binaries, start = [], 0
        for size in sizes:
            binaries.append(payload[start : start + size])
            start += size
        plan = KernelPlan(
            str(data["name"]),
            tuple((str(d), None if r is None else int(r)) for d, r in data["args"]),
            tuple(str(r) for r in data["returns"]),
            tuple(
                TaskPlan(
                    str(t["symbol"]),
                    str(t["kind"]),
                    t["begin"],
                    t["end"],
                    bool(t["combines"]),
                    bool(t["skip"]),
                    t["begin_at"],
                    t["end_at"],
                )
                for t in data["tasks"]
            ),
            int(data["gtmp_bytes"]),
            {int(i): (str(f), tuple(kinds)) for i, f, kinds in data["prints"]},
            {int(i): str(message) for i, message in data["asserts"]},
            int(data["root_segments"]),
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"malformed Vulkan cache entry: {error}") from None
    return plan, binaries
