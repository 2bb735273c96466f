"""
Compile latency a kernel: cold (an empty offline cache) and warm (a second process on the
cache the first one filled), for ours and, with --taichi-python, for Taichi 1.7.

    python bench/compile_latency.py --archs cpu,vulkan --rounds 3 \\
        [--taichi-python /tmp/tivenv_lead/bin/python] [--markdown] [--json out.json]

Each round is two fresh processes a framework and arch (cold, then warm) on a new cache
directory. A process imports the framework, calls `ti.init`, then calls each kernel of
bench/compile_latency_kernels.py once (small data: the compile dominates) and once more.
It reports the wall time (and the process's CPU time) of each first call less the second:
a kernel's compile, and for a process's first kernel also the imports and the device
set-up it triggers; ours also the backend's `pass_times` of the compile grouped into
`PHASES`. The table gives medians over the rounds; "later kernels" is the median over
the kernels after the first, the cost a kernel once the process has paid its start-up.
On a shared machine, wall times swing with the load; CPU times less so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

KERNELS = HERE / "compile_latency_kernels.py"

PHASES = {
    "frontend + key": None,  # the rest: the frontend, the cache keys, the first launch
    "build passes": ("build pipeline",),
    "xdsl passes": (),  # every stage not named below
    "verify": ("verify",),
    "LLVM (translate, O3, codegen)": ("translate to LLVM IR", "LLVM O3 + codegen"),
    "SPIR-V serialise": ("serialize SPIR-V",),
    "pipelines": ("load pipelines",),
    "cache": ("offline cache key", "offline cache load", "offline cache store",
              "offline cache load (source key)"),
}


def phase_of(stage: str) -> str:
    for phase, stages in PHASES.items():
        if stages and stage in stages:
            return phase
    return "xdsl passes"


def child(framework: str, arch: str, cache: str) -> dict[str, Any]:
    """One process: import, init, each kernel's first and second call."""
    start = time.perf_counter()
    if framework == "taichi":
        import taichi as ti
    else:
        import taichi_xdsl as ti
    out: dict[str, Any] = {"import_s": time.perf_counter() - start, "kernels": []}
    start = time.perf_counter()
    kwargs: dict[str, Any] = {"offline_cache": True, "offline_cache_file_path": cache}
    if framework == "taichi":
        kwargs["log_level"] = ti.WARN
    ti.init(arch=getattr(ti, arch), **kwargs)
    out["init_s"] = time.perf_counter() - start
    namespace: dict[str, Any] = {"ti": ti}
    code = compile(KERNELS.read_text(), str(KERNELS), "exec", dont_inherit=True)
    exec(code, namespace)  # noqa: S102
    ti.sync()
    for name, call in namespace["CALLS"]:
        start, cpu_start = time.perf_counter(), time.process_time()
        call()
        ti.sync()
        first, first_cpu = time.perf_counter() - start, time.process_time() - cpu_start
        phases: dict[str, float] = {}
        if framework == "xdsl":
            from taichi_xdsl.frontends.python.lang import program

            backend = program.get_program()._backend
            for stage, seconds in getattr(backend, "pass_times", []):
                phase = phase_of(stage)
                phases[phase] = phases.get(phase, 0.0) + seconds
        start, cpu_start = time.perf_counter(), time.process_time()
        call()
        ti.sync()
        again, again_cpu = time.perf_counter() - start, time.process_time() - cpu_start
        phases["frontend + key"] = max(0.0, first - again - sum(phases.values()))
        out["kernels"].append({
            "name": name,
            "first_s": first - again,
            "first_cpu_s": first_cpu - again_cpu,
            "phases": phases,
        })
    if framework == "xdsl":
        out["xdsl_imported"] = "xdsl" in sys.modules
        out["llvmlite_imported"] = "llvmlite" in sys.modules
    return out


def run_child(python: str, framework: str, arch: str, cache: str) -> dict[str, Any]:
    env = dict(os.environ)
    env.pop("TI_OFFLINE_CACHE", None)
    code = [python, str(HERE / "compile_latency.py"), "--child", framework, arch, cache]
    done = subprocess.run(code, capture_output=True, text=True, env=env, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("LATENCY ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{framework} {arch}: {done.stderr[-2000:]}")
    return json.loads(lines[-1][len("LATENCY "):])


def measure(options: argparse.Namespace) -> dict[str, Any]:
    frameworks = [("xdsl", sys.executable)]
    if options.taichi_python:
        frameworks.append(("taichi", options.taichi_python))
    runs: dict[str, Any] = {}
    for arch in options.archs.split(","):
        for framework, python in frameworks:
            rounds = []
            try:
                for _ in range(options.rounds):
                    with tempfile.TemporaryDirectory(prefix="latency-") as cache:
                        cold = run_child(python, framework, arch, cache)
                        warm = run_child(python, framework, arch, cache)
                    rounds.append({"cold": cold, "warm": warm})
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                print(f"{framework}/{arch}: not measured: {error}", file=sys.stderr)
                continue
            runs[f"{framework}/{arch}"] = rounds
    return runs


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.1f}" if values else "-"


def report(runs: dict[str, Any], markdown: bool) -> str:
    lines = []
    for name, rounds in runs.items():
        kernels = [k["name"] for k in rounds[0]["cold"]["kernels"]]
        phases = [p for p in PHASES if any(
            p in k["phases"] for r in rounds for k in r["cold"]["kernels"])]
        header = ["kernel", "cold ms", *phases, "warm ms", "cold CPU ms", "warm CPU ms"]
        rows = []
        for index, kernel in enumerate(kernels):
            cold = [r["cold"]["kernels"][index] for r in rounds]
            warm = [r["warm"]["kernels"][index] for r in rounds]
            rows.append([
                kernel,
                _ms([k["first_s"] for k in cold]),
                *[_ms([k["phases"].get(p, 0.0) for k in cold]) for p in phases],
                _ms([k["first_s"] for k in warm]),
                _ms([k["first_cpu_s"] for k in cold]),
                _ms([k["first_cpu_s"] for k in warm]),
            ])

        def later(kind: str, what: str) -> list[float]:
            return [k[what] for r in rounds for k in r[kind]["kernels"][1:]]

        rows.append([
            "later kernels",
            _ms(later("cold", "first_s")),
            *[""] * len(phases),
            _ms(later("warm", "first_s")),
            _ms(later("cold", "first_cpu_s")),
            _ms(later("warm", "first_cpu_s")),
        ])
        first = rounds[0]
        total_cold = [r["cold"]["import_s"] + r["cold"]["init_s"]
                      + sum(k["first_s"] for k in r["cold"]["kernels"]) for r in rounds]
        total_warm = [r["warm"]["import_s"] + r["warm"]["init_s"]
                      + sum(k["first_s"] for k in r["warm"]["kernels"]) for r in rounds]
        lines.append(
            f"{name}: import {_ms([r['cold']['import_s'] for r in rounds])} ms, init "
            f"{_ms([r['cold']['init_s'] for r in rounds])} ms; import + init + every "
            f"kernel's compile: cold {_ms(total_cold)} ms, warm {_ms(total_warm)} ms"
            + (f"; warm process imported xDSL: {first['warm'].get('xdsl_imported')}, "
               f"llvmlite: {first['warm'].get('llvmlite_imported')}"
               if "xdsl_imported" in first["warm"] else "")
        )
        if markdown:
            lines += ["", "| " + " | ".join(header) + " |",
                      "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(row) + " |" for row in rows]
            lines.append("")
        else:
            width = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
            for row in [header, *rows]:
                lines.append("  ".join(str(c).rjust(w) for c, w in zip(row, width)))
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        result = child(*sys.argv[2:5])
        sys.stdout.flush()
        print("LATENCY " + json.dumps(result), flush=True)
        if sys.argv[2] == "xdsl":
            from taichi_xdsl.utils.cache import flush_all

            flush_all()
        else:
            import taichi

            taichi.reset()  # Taichi writes its offline cache here
        os._exit(0)  # skip interpreter teardown (some runtimes are slow to free devices)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archs", default="cpu")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--taichi-python", default=None)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", default=None)
    options = parser.parse_args()
    runs = measure(options)
    if options.json:
        Path(options.json).write_text(json.dumps(runs, indent=1))
    print(report(runs, options.markdown))


if __name__ == "__main__":
    main()
