"""
Where a cold program's start-up goes: `import taichi_xdsl`, `ti.init`, a first kernel and
a second one, each phase's CPU time and the CPU time of the modules it imported (each
module's own time, less the modules it imported in turn), grouped by package.

    python bench/startup_probe.py --arch cpu [--modules 15] [--preimport]

Each module's time is measured by wrapping its loader's `exec_module`, in the program's
own run (a compile runs with the cycle collector off, so its imports do too), unlike
`python -X importtime`, which misses the modules imported by `importlib.import_module`
(the registry's passes and everything they import). `--preimport` imports, before the
first kernel, every module a first kernel of a separate process imported: what the
first kernel then costs beyond the second is its one-time work that is not an import.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import importlib.abc
import subprocess
import sys
import time
from typing import Any

_own: dict[str, float] = {}
"""CPU seconds of each imported module, less its nested imports."""
_nested = [0.0]


class _TimedImports(importlib.abc.MetaPathFinder):
    """Finds a module as the finders after it do, and times its loader's exec_module."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        # a loader class (builtin, frozen modules) serves every module: leave it alone
        if loader is None or isinstance(loader, type) or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            _nested.append(0.0)
            start = time.process_time()
            try:
                run(module)
            finally:
                spent = time.process_time() - start
                _own[name] = spent - _nested.pop()
                _nested[-1] += spent

        loader.exec_module = exec_module
        return spec


def group(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "taichi_xdsl" and len(parts) > 1:
        return {"dialects": "ours: dialects", "lowering": "ours: passes"}.get(
            parts[1], "ours: frontend" if parts[1] == "frontends" else "ours: targets, utils"
        )
    if parts[0] == "xdsl" and len(parts) > 2 and parts[1] == "dialects" and parts[2] != "utils":
        return f"xDSL's {parts[2]} dialect"
    if parts[0] == "xdsl":
        return "xDSL: ir, irdl, parser, printer, passes, utils"
    if parts[0] in ("numpy", "llvmlite", "vulkan", "taichi_xdsl"):
        return parts[0]
    return "stdlib, others"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="cpu")
    parser.add_argument("--modules", type=int, default=12, help="largest modules listed")
    parser.add_argument("--preimport", action="store_true")
    parser.add_argument("--list-first-kernel-modules", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.preimport:
        listed = subprocess.run(
            [sys.executable, __file__, "--arch", options.arch, "--list-first-kernel-modules"],
            capture_output=True, text=True, check=True,
        ).stdout.split()
    sys.meta_path.insert(0, _TimedImports())
    phases: list[tuple[str, float, dict[str, float]]] = []

    def phase(name: str, work: Any) -> Any:
        before = set(_own)
        start = time.process_time()
        result = work()
        spent = time.process_time() - start
        phases.append((name, spent, {m: s for m, s in _own.items() if m not in before}))
        return result

    ti = phase("import taichi_xdsl", lambda: importlib.import_module("taichi_xdsl"))
    phase("ti.init", lambda: ti.init(arch=getattr(ti, options.arch), offline_cache=False))
    if options.preimport:
        phase("preimport", lambda: [importlib.import_module(m) for m in listed])
    x = phase("a field", lambda: ti.field(ti.f32, shape=8))

    def define() -> tuple[Any, Any]:
        @ti.kernel
        def first() -> None:
            for i in x:
                x[i] = i

        @ti.kernel
        def second() -> None:
            for i in x:
                x[i] += i

        return first, second

    first, second = phase("two @ti.kernel definitions", define)
    before_kernel = set(sys.modules)
    phase("first kernel", lambda: (first(), ti.sync()))
    if options.list_first_kernel_modules:
        print("\n".join(m for m in sys.modules if m not in before_kernel))
        return
    phase("second kernel", lambda: (second(), ti.sync()))
    for name, spent, imported in phases:
        imports = sum(imported.values())
        print(f"{name}: {spent * 1000:.1f} ms CPU, imports {imports * 1000:.1f} ms "
              f"({len(imported)} modules)")
        if imported:
            groups: collections.Counter[str] = collections.Counter()
            for module, seconds in imported.items():
                groups[group(module)] += seconds
            for label, seconds in groups.most_common():
                print(f"  {seconds * 1000:7.1f}  {label}")
            largest = sorted(imported.items(), key=lambda item: -item[1])[: options.modules]
            print("  largest: " + ", ".join(f"{m} {s * 1000:.1f}" for m, s in largest))


if __name__ == "__main__":
    main()
