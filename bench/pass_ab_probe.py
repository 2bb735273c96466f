"""
Session 9's pass changes, each measured in one process on the same IR (docs/compile-
latency.md, "Session 9"): CPU ms (min of REPS runs on clones, each side twice) of

- the passes whose walkers ask whether an op is dead, with xDSL's checks
  (`xdsl.transforms.dead_code_elimination`) and with ours (lowering/dead_code.py);
- on Vulkan, ti-spirv-hoist, ti-fast-reciprocal and the serializer of another tree
  (`--base DIR`: a `git archive --prefix=taichi_xdsl/` of it, its files loaded as
  modules of their own beside this tree's) and of this one.

    python bench/pass_ab_probe.py vulkan nbody 5 --base /tmp/base
    python bench/pass_ab_probe.py cpu substep 3

With `--tail` (Vulkan), instead: this tree's convert-offload-to-spirv and the passes after
it, the final verify and the serializer, timed on the kernel's offload-stage IR, and the
ops of the final module (run it under another tree's PYTHONPATH to compare).

KERNEL: a kernel of bench/compile_latency_kernels.py or `substep` (bench/cases/mpm88.py).
"""

from __future__ import annotations

import gc
import importlib.util
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DEAD_CHECKED = (
    "ti-lower-sparse", "ti-scalarize", "ti-mem2reg", "canonicalize", "ti-offload",
    "ti-serial-simt", "convert-taichi-to-cf", "convert-offload-to-llvm",
    "convert-arith-to-llvm", "convert-math-to-llvm", "convert-cf-to-llvm", "dce",
    "convert-taichi-to-spirv", "convert-offload-to-spirv",
)  # fmt: skip


def _captured(arch: str, name: str) -> list[tuple[list[str], Any, Any]]:
    """Each stage's pass list, input module and context of one cold compile of `name`."""
    sys.path.insert(0, str(HERE))
    import compile_probe
    import taichi_xdsl as ti
    from taichi_xdsl.utils import pass_runner

    ti.init(arch=getattr(ti, arch), offline_cache=False)
    with tempfile.TemporaryDirectory() as folder:
        m = compile_probe.load(HERE / "compile_latency_kernels.py", "kernels", Path(folder))
        mpm = compile_probe.load(HERE / "cases" / "mpm88.py", "mpm88_case", Path(folder))
    m.fill(0.5)
    ti.sync()
    captured = []
    run = pass_runner.PassRunner.run

    def capture(self, ctx, module, passes, kernel_name, **options):  # noqa: ANN001
        captured.append((list(passes), module.clone(), ctx))
        return run(self, ctx, module, passes, kernel_name, **options)

    pass_runner.PassRunner.run = capture  # type: ignore[method-assign]
    args = eval(compile_probe.ARGS.get(name, "()"))  # noqa: S307 - the probe's table
    (mpm.substep if name == "substep" else getattr(m, name))(*args)
    ti.sync()
    pass_runner.PassRunner.run = run  # type: ignore[method-assign]
    return captured


def _fastest(apply: Callable[[Any, Any], Any], ctx: Any, module: Any, reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        clone = module.clone()
        gc.collect()
        gc.disable()
        start = time.thread_time()
        apply(ctx, clone)
        best = min(best, time.thread_time() - start)
        gc.enable()
    return best * 1e3


def main() -> None:
    arch, name, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    base = sys.argv[sys.argv.index("--base") + 1] if "--base" in sys.argv else None
    from taichi_xdsl.lowering import dead_code, pattern_dispatch
    from taichi_xdsl.utils import registry
    from xdsl.transforms import dead_code_elimination as xdsl_dce

    captured = _captured(arch, name)
    if "--tail" in sys.argv:
        _tail(name, captured, reps)
        return
    inputs: dict[str, tuple[Any, Any, str | None]] = {}
    for passes, module, ctx in captured:
        for spec in passes:  # the input of a pass's last run
            inputs[spec.split("{")[0]] = (module.clone(), ctx, spec)
            registry.build_pipeline(spec).apply(ctx, module)
        inputs["end"] = (module, ctx, None)

    def pipeline(spec: str) -> Callable[[Any, Any], Any]:
        built = registry.build_pipeline(spec)
        return built.apply

    def xdsl_checks(apply: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        def run(ctx: Any, module: Any) -> None:
            ours = (pattern_dispatch.is_trivially_dead, dead_code.would_be_trivially_dead)
            pattern_dispatch.is_trivially_dead = xdsl_dce.is_trivially_dead
            dead_code.would_be_trivially_dead = xdsl_dce.would_be_trivially_dead
            try:
                apply(ctx, module)
            finally:
                pattern_dispatch.is_trivially_dead, dead_code.would_be_trivially_dead = ours

        return run

    rows: list[tuple[str, Callable[[Any, Any], Any], Callable[[Any, Any], Any], str]] = [
        (f"{p} (dead-op checks: xDSL's -> ours)", xdsl_checks(pipeline(inputs[p][2])),
         pipeline(inputs[p][2]), p)
        for p in DEAD_CHECKED if p in inputs
    ]  # fmt: skip
    if arch == "vulkan" and base is not None:
        from taichi_xdsl.dialects import spirv
        from taichi_xdsl.lowering import fast_reciprocal, spirv_hoist
        from taichi_xdsl.targets.spirv import serializer

        def other(relative: str) -> Any:
            path = Path(base) / "taichi_xdsl" / relative
            spec = importlib.util.spec_from_file_location(f"base_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module

        def serialize(where: Any) -> Callable[[Any, Any], Any]:
            return lambda ctx, m: [
                where.serialize(op) for op in m.body.block.ops if isinstance(op, spirv.ModuleOp)
            ]

        old_hoist = other("lowering/spirv_hoist.py")
        old_reciprocal = other("lowering/fast_reciprocal.py")
        rows += [
            ("ti-spirv-hoist", lambda c, m: old_hoist.HoistPass().apply(c, m),
             lambda c, m: spirv_hoist.HoistPass().apply(c, m), "ti-spirv-hoist"),
            ("ti-fast-reciprocal", lambda c, m: old_reciprocal.FastReciprocalPass().apply(c, m),
             lambda c, m: fast_reciprocal.FastReciprocalPass().apply(c, m),
             "ti-fast-reciprocal"),
            ("serialize", serialize(other("targets/spirv/serializer.py")),
             serialize(serializer), "end"),
        ]  # fmt: skip
    for label, before, after, key in rows:
        module, ctx, _ = inputs[key]
        old = min(_fastest(before, ctx, module, reps) for _ in range(2))
        new = min(_fastest(after, ctx, module, reps) for _ in range(2))
        print(f"{label:60s} {old:8.2f} -> {new:8.2f}")


def _tail(name: str, captured: list[tuple[list[str], Any, Any]], reps: int) -> None:
    from taichi_xdsl.dialects import spirv
    from taichi_xdsl.targets.spirv.serializer import serialize
    from taichi_xdsl.utils import registry

    passes, module, ctx = captured[-1]
    first = [p.split("{")[0] for p in passes].index("convert-offload-to-spirv")
    registry.build_pipeline(",".join(passes[:first])).apply(ctx, module)
    tail = registry.build_pipeline(",".join(passes[first:]))
    best = [float("inf")] * 3
    final = module
    for _ in range(reps):
        final = module.clone()
        gc.collect()
        gc.disable()
        marks = [time.thread_time()]
        tail.apply(ctx, final)
        marks.append(time.thread_time())
        final.verify()
        marks.append(time.thread_time())
        for op in final.body.block.ops:
            if isinstance(op, spirv.ModuleOp):
                serialize(op)
        marks.append(time.thread_time())
        gc.enable()
        best = [min(b, (marks[k + 1] - marks[k]) * 1e3) for k, b in enumerate(best)]
    ops = sum(1 for _ in final.walk())
    print(
        f"{name}: passes {best[0]:.1f}, verify {best[1]:.1f}, serialize {best[2]:.1f}, "
        f"together {sum(best):.1f} ms CPU; {ops} ops in the final module"
    )


if __name__ == "__main__":
    main()
