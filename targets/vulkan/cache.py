"""
The Vulkan backend's side of the offline cache (utils/cache.py): what a key is made of,
and a compiled kernel (launch plan + SPIR-V of each task) to and from an entry.

An entry's meta is `{"kernel": name, "plan": plan_to_json(plan), "sizes": [...]}` and its
payload the tasks' SPIR-V binaries one after the other (`sizes` in bytes). A hit skips
every xDSL pass and the serializer: the device builds the pipelines from the binaries.
Its keys are utils/cache_keys.py's (`KEYS.kernel_key`, and `KEYS.source_kernel_key`
computed before the frontend runs, with no xDSL import): the kernel's IR (or the
frontend's source parts), the device (name, vendor, driver), the Taichi caps code is made
for, the pipeline as run (its stages carry the caps, debug, fast_math and NaN options),
and taichi_xdsl's and xDSL's versions with a hash of the compiler's sources (dialects/,
lowering/, targets/spirv/, targets/vulkan/, utils/); each key also carries `spirv=1`.

    key = KEYS.kernel_key(str(module), arch=..., caps=..., config=...)
    link = KEYS.source_kernel_key(parts, arch=..., caps=..., config=...)   # no xDSL
    meta, payload = kernel_to_entry(plan, binaries)
    plan, binaries = kernel_from_entry(meta, payload)     # ValueError if malformed
"""

from __future__ import annotations

from typing import Any

from taichi_xdsl.targets.vulkan.backend import KernelPlan, TaskPlan
from taichi_xdsl.utils.cache_keys import KeyScheme

PLAN_FORMAT = 4
COMPILER_SOURCE_DIRS = ("dialects", "lowering", "targets/spirv", "targets/vulkan", "utils")
KEYS = KeyScheme(COMPILER_SOURCE_DIRS, tags={"spirv": 1})
"""This backend's keys: `KEYS.kernel_key(ir, ...)`, `KEYS.source_kernel_key(parts, ...)`."""


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
                    "last_group": t.last_group,
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
                    bool(t["last_group"]),
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
