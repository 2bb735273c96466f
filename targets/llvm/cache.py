"""
The CPU backend's side of the offline cache (utils/cache.py): what a key is made of, and a
launch plan to and from JSON.

An entry holds the kernel's launch plan (JSON metadata) and its relocatable object code
(`jit.compile_object`), loaded with `jit.load_object` on a hit: no xDSL pass, no LLVM
optimisation. The key (`kernel_key`) is the SHA-256 of

- `ir`: the kernel's module as the frontend built it (fields with their offsets and types,
  the taichi.kernel with its argument and return types; template arguments are baked in);
- `arch` and `caps`: the LLVM triple, CPU name and CPU features the code is built for;
- `config`: debug, fast_math, opt_level and the two pass pipelines, as run;
- `compiler`: the versions of taichi_xdsl, xDSL, llvmlite and LLVM, plus a hash of the
  compiler's own sources (dialects/, lowering/, targets/llvm/, utils/), so that editing a
  pass invalidates what it compiled.

A first-level key (`source_kernel_key`) is computed before the frontend runs, from the
kernel's source, the values it names, its template signature and the field layout
(frontends/python/lang/source_key.py), with the same arch, caps and config and
`light_compiler_version` (no xDSL import; the frontend's sources are fingerprinted too).
It is a link in the cache's index (OfflineCache.link), not an entry: a fresh process that
finds it loads the IR-keyed entry without importing xDSL.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from taichi_xdsl.targets.llvm.runtime import (
    ArgSpec,
    Bound,
    LaunchPlan,
    NdarrayArg,
    ScalarArg,
    TaskSpec,
)
from taichi_xdsl.utils.cache import cache_key, installed_xdsl_version, stat_fingerprint

PLAN_FORMAT = 1
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
COMPILER_SOURCE_DIRS = ("dialects", "lowering", "targets/llvm", "utils")


def fingerprint_sources(root: Path, dirs: tuple[str, ...] = COMPILER_SOURCE_DIRS) -> str:
    """SHA-256 of the Python sources under `root`/`dirs` (relative paths and contents)."""
    digest = hashlib.sha256()
    for name in dirs:
        for path in sorted((root / name).rglob("*.py")):
            data = path.read_bytes()
            relative = path.relative_to(root).as_posix().encode()
            digest.update(b"%d:%s:%d:" % (len(relative), relative, len(data)))
            digest.update(data)
    return digest.hexdigest()


@cache
def source_fingerprint() -> str:
    """`fingerprint_sources` of this installation's compiler, once per process."""
    return fingerprint_sources(_PACKAGE_ROOT)


@cache
def compiler_version() -> str:
    """
    Versions of everything that turns IR into machine code, and the sources' hash (once a
    process: none of them changes while it runs).
    """
    import llvmlite
    import taichi_xdsl
    from llvmlite import binding

    llvm_version = ".".join(map(str, binding.llvm_version_info))
    return (
        f"taichi_xdsl={taichi_xdsl.__xdsl_version__};xdsl={_xdsl_version()};"
        f"llvmlite={llvmlite.__version__};llvm={llvm_version};"
        f"sources={source_fingerprint()}"
    )


def _xdsl_version() -> str:
    """
    xDSL's version from its installed dist-info folder's name (xdsl.__version__ goes
    through importlib.metadata, some 20 ms), else from xdsl.__version__.
    """
    import xdsl

    site = Path(xdsl.__file__).resolve().parents[1]
    found = sorted(site.glob("xdsl-*.dist-info"))
    if len(found) == 1:
        return found[0].name[len("xdsl-") : -len(".dist-info")]
    return str(xdsl.__version__)


SOURCE_KEY_DIRS = (*COMPILER_SOURCE_DIRS, "frontends")
"""The sources a first-level (source) key depends on: the compiler's and the frontend's."""


@cache
def light_compiler_version() -> str:
    """
    The versions behind a source key, found without importing xDSL: taichi_xdsl,
    xDSL (its dist-info folder), llvmlite and LLVM, and `stat_fingerprint` of the
    compiler's and the frontend's sources.
    """
    import llvmlite
    import taichi_xdsl
    from llvmlite import binding

    xdsl_version = installed_xdsl_version()
    llvm_version = ".".join(map(str, binding.llvm_version_info))
    return (
        f"taichi_xdsl={taichi_xdsl.__xdsl_version__};xdsl={xdsl_version};"
        f"llvmlite={llvmlite.__version__};llvm={llvm_version};"
        f"sources={stat_fingerprint(_PACKAGE_ROOT, SOURCE_KEY_DIRS)}"
    )


def source_kernel_key(parts: dict[str, str], *, arch: str, caps: str, config: str) -> str:
    """
    The first-level key of a kernel instance: `parts` from the frontend
    (frontends/python/lang/source_key.py) with the backend's arch, caps, options and
    `light_compiler_version`. Its entry maps to the IR-keyed entry (`{"ir_key": ...}`).
    """
    return cache_key(
        **{f"src_{name}": value for name, value in parts.items()},
        arch=arch,
        caps=caps,
        config=config,
        compiler=light_compiler_version(),
        level="source",
    )


def kernel_key(ir: str, *, arch: str, caps: str, config: str) -> str:
    """The cache key of one kernel instance (see the module docstring)."""
    return cache_key(
        ir=ir, arch=arch, caps=caps, config=config, compiler=compiler_version()
    )


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
    )
