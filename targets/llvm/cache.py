"""
The CPU backend's side of the offline cache (utils/cache.py): what a key is made of, and a
launch plan to and from JSON.

An entry holds the kernel's launch plan (JSON metadata) and its relocatable object code
(`jit.compile_object`), loaded with `jit.load_object` on a hit: no xDSL pass, no LLVM
optimisation. Its keys are utils/cache_keys.py's (`KEYS.kernel_key`, and
`KEYS.source_kernel_key` computed before the frontend runs, with no xDSL import): the
kernel's IR (or the frontend's source parts), the LLVM triple, CPU name and features,
the options and pipeline as run, and the versions of taichi_xdsl, xDSL, llvmlite and
LLVM with a hash of the compiler's sources (dialects/, lowering/, targets/llvm/, utils/),
so that editing a pass invalidates what it compiled.
"""

from __future__ import annotations

from typing import Any

from taichi_xdsl.targets.llvm.runtime import (
    ArgSpec,
    Bound,
    LaunchPlan,
    NdarrayArg,
    ScalarArg,
    TaskSpec,
)
from taichi_xdsl.utils.cache_keys import KeyScheme

PLAN_FORMAT = 1
COMPILER_SOURCE_DIRS = ("dialects", "lowering", "targets/llvm", "utils")


def _llvm_versions() -> str:
    import llvmlite
    from llvmlite import binding

    llvm_version = ".".join(map(str, binding.llvm_version_info))
    return f"llvmlite={llvmlite.__version__};llvm={llvm_version};"


KEYS = KeyScheme(COMPILER_SOURCE_DIRS, tools=_llvm_versions)
"""This backend's keys: `KEYS.kernel_key(ir, ...)`, `KEYS.source_kernel_key(parts, ...)`."""


# -- launch plans as JSON ------------------------------------------------------------------


def plan_to_json(plan: LaunchPlan) -> dict[str, Any]:
    """A launch plan as plain JSON data (`plan_from_json` reverses it)."""
    return {
        "format": PLAN_FORMAT,
        "name": plan.name,
        "args": [_arg_to_json(arg) for arg in plan.args],
        "returns": list(plan.returns),
        "tasks": [_task_to_json(task) for task in plan.tasks],
        "gtmp_bytes": plan.gtmp_bytes,
        "thread_local_bytes": plan.thread_local_bytes,
    }


def plan_from_json(data: dict[str, Any]) -> LaunchPlan:
    """
    The launch plan of `plan_to_json` data.

    Raises:
        ValueError: not a launch plan of this format.
    """
    try:
        if data["format"] != PLAN_FORMAT:
            raise ValueError(f"launch plan format {data['format']}, expected {PLAN_FORMAT}")
        return LaunchPlan(
            name=str(data["name"]),
            args=tuple(_arg_from_json(arg) for arg in data["args"]),
            returns=tuple(str(r) for r in data["returns"]),
            tasks=tuple(_task_from_json(task) for task in data["tasks"]),
            gtmp_bytes=int(data["gtmp_bytes"]),
            thread_local_bytes=int(data["thread_local_bytes"]),
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"malformed launch plan: {error}") from None


def _arg_to_json(arg: ArgSpec) -> dict[str, Any]:
    if isinstance(arg, NdarrayArg):
        return {"kind": "ndarray", "dtype": arg.dtype, "ndim": arg.ndim}
    return {"kind": "scalar", "dtype": arg.dtype}


def _arg_from_json(data: dict[str, Any]) -> ArgSpec:
    if data["kind"] == "ndarray":
        return NdarrayArg(str(data["dtype"]), int(data["ndim"]))
    if data["kind"] == "scalar":
        return ScalarArg(str(data["dtype"]))
    raise ValueError(f"unknown argument kind {data['kind']!r}")


def _bound_to_json(bound: Bound | None) -> dict[str, Any] | None:
    if bound is None:
        return None
    return {"value": bound.value, "gtmp_offset": bound.gtmp_offset, "dtype": bound.dtype}


def _bound_from_json(data: dict[str, Any] | None) -> Bound | None:
    if data is None:
        return None
    return Bound(value=data["value"], gtmp_offset=data["gtmp_offset"], dtype=data["dtype"])


def _task_to_json(task: TaskSpec) -> dict[str, Any]:
    return {
        "symbol": task.symbol,
        "kind": task.kind,
        "begin": _bound_to_json(task.begin),
        "end": _bound_to_json(task.end),
        "block_dim": task.block_dim,
        "index_cost": task.index_cost,
        "serial_symbol": task.serial_symbol,
    }


def _task_from_json(data: dict[str, Any]) -> TaskSpec:
    kind = data["kind"]
    if kind not in ("serial", "range_for"):
        raise ValueError(f"unknown task kind {kind!r}")
    return TaskSpec(
        symbol=str(data["symbol"]),
        kind=kind,
        begin=_bound_from_json(data["begin"]),
        end=_bound_from_json(data["end"]),
        block_dim=data["block_dim"],
        index_cost=int(data.get("index_cost", 1)),
        serial_symbol=data.get("serial_symbol"),
    )
