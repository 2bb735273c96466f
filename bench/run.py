"""
taichi-xdsl side by side with Taichi 1.7, Numba (CPU) and Triton (GPU).

    python -m bench                          # every case, every framework found, cpu (+vulkan)
    python bench/run.py --cases saxpy,stencil --rounds 5 --markdown
    python -m bench --rivals-python /tmp/rivals/bin/python --archs cpu,vulkan

Each case is written once in the Taichi API (bench/cases/<case>.py) and run with `ti`
bound to `taichi_xdsl` (ours) or `taichi` (Taichi); bench/numba_cases.py has the same
work for Numba (@njit(parallel=True), prange). Every measurement is a fresh process
(bench/worker.py) under the Python that has the framework: ours under this interpreter,
Taichi and Numba under --rivals-python (default: /tmp/rivals/bin/python when it exists,
else this interpreter). Rounds alternate the frameworks (the order rotates each round),
and the figures are medians over rounds of each process's median. On a GPU machine,
bench/triton_cases.py (Triton + torch, under --triton-python) is the reference for our
Vulkan figures on the same GPU.

Printed per case and arch:
- steady state: time a call (launch: a call of the tiny kernel), ratios ours / rival
  (below 1: ours is faster);
- GB/s for the memory-bound cases (bytes a call / time), and its share of the copy
  bandwidth measured in the same run (CPU: numpy copyto on every core; GPU: torch's
  copy_ on the CUDA device where torch has one, else vkCmdCopyBuffer), copying the same
  64 MiB. Bytes count what the memory bus carries (worker.bus_bytes): every array read
  once; an array written twice on CPU (the write-allocate read of the line, then the
  write) and once on the GPU (NVIDIA writes whole sectors unread). An f32 element: copy
  12 bytes on CPU and 8 on the GPU, saxpy 12 on both (y is read anyway), the reduction 4,
  the stencil 12 a point on CPU and 8 on the GPU;
- first call in a fresh process (compile + run, offline cache off) and its ratio;
- a check of ours (max relative error of a result sample): against the exact answer
  where the case gives one (the reduction), else against the closest rival.
Then the compile-side figures: `import taichi_xdsl`, and the first call of each kernel
in a second process with a warm offline cache (minus its steady-state run time).

A case that fails (a feature missing, a device absent) prints "n/a (reason)".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORKER = HERE / "worker.py"
CASES = (
    "saxpy", "reduce", "julia", "nbody", "stencil", "mpm88", "launch", "copy",
    "svd3", "sort", "poisson", "cg", "sparse",
)
MEMORY_BOUND = ("saxpy", "reduce", "stencil", "copy")
FRAMEWORKS = ("xdsl", "taichi", "taichi-cuda", "numba", "triton")
DEFAULT_RIVALS_PYTHON = "/tmp/rivals/bin/python"
NAMES = {
    "xdsl": "ours",
    "taichi": "Taichi",
    "taichi-cuda": "Taichi-CUDA",
    "numba": "Numba",
    "triton": "Triton",
    "copyref": "copy",
}


def _runs_on(framework: str, arch: str) -> bool:
    """Numba is a CPU rival; Triton and Taichi's CUDA backend the GPU references (held
    against our Vulkan figures)."""
    if framework == "numba":
        return arch == "cpu"
    if framework in ("triton", "taichi-cuda"):
        return arch != "cpu"
    return True


def _python_has(python: str, module: str) -> bool:
    done = subprocess.run(
        [python, "-c", f"import {module}"], capture_output=True, timeout=120, check=False
    )
    return done.returncode == 0


def _worker(python: str, spec: dict[str, Any], timeout: float) -> dict[str, Any]:
    env = dict(os.environ)
    env.setdefault("TI_LOG_LEVEL", "warn")
    try:
        done = subprocess.run(
            [python, str(WORKER), json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
            cwd=HERE.parent,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("BENCH-RESULT "):
            return json.loads(line[len("BENCH-RESULT ") :])
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
    return {"error": f"worker exited {done.returncode}: {tail[0][:300]}"}


class Results:
    """Per (case, framework, arch): the worker results of every round."""

    def __init__(self) -> None:
        self.runs: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)

    def add(self, case: str, framework: str, arch: str, result: dict[str, Any]) -> None:
        self.runs[(case, framework, arch)].append(result)

    def ok(self, case: str, framework: str, arch: str) -> list[dict[str, Any]]:
        return [r for r in self.runs.get((case, framework, arch), []) if "error" not in r]

    def error(self, case: str, framework: str, arch: str) -> str | None:
        runs = self.runs.get((case, framework, arch), [])
        if not runs:
            return "not run"
        if self.ok(case, framework, arch):
            return None
        return runs[0]["error"]

    def steady(self, case: str, framework: str, arch: str) -> float | None:
        runs = self.ok(case, framework, arch)
        if not runs:
            return None
        return statistics.median(statistics.median(r["steady_s"]) for r in runs)

    def first(self, case: str, framework: str, arch: str) -> float | None:
        runs = self.ok(case, framework, arch)
        return statistics.median(r["first_s"] for r in runs) if runs else None

    def bytes(self, case: str, framework: str, arch: str) -> int | None:
        runs = self.ok(case, framework, arch)
        return runs[0].get("bytes") if runs else None

    def expected(self, case: str, framework: str, arch: str) -> list[float] | None:
        runs = self.ok(case, framework, arch)
        return runs[0].get("expected") if runs else None

    def check(self, case: str, framework: str, arch: str) -> list[float] | None:
        runs = self.ok(case, framework, arch)
        return runs[0].get("check") if runs else None


def _rel_error(a: list[float], b: list[float]) -> float:
    if len(a) != len(b) or not a:
        return float("inf")
    scale = max(max(abs(x) for x in b), 1e-30)
    return max(abs(x - y) for x, y in zip(a, b)) / scale


def _fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _fmt_ratio(ours: float | None, rival: float | None) -> str:
    if ours is None or rival is None:
        return "n/a"
    return f"{ours / rival:.2f}"


def _short(error: str | None) -> str:
    if not error:
        return ""
    error = error.replace("|", "/").replace("\n", " ")
    for marker in ("Error: ", "Exception: "):
        if marker in error:
            error = error.split(marker, 1)[1]
            break
    return error[:90]


def run_all(options: argparse.Namespace) -> dict[str, Any]:
    ours_python = sys.executable
    rivals_python = options.rivals_python
    available: dict[str, str | None] = {}
    pythons = {
        "xdsl": ours_python,
        "taichi": rivals_python,
        "taichi-cuda": rivals_python,
        "numba": rivals_python,
        "triton": options.triton_python,
    }
    module_of = {
        "xdsl": "taichi_xdsl",
        "taichi": "taichi",
        "taichi-cuda": "taichi",
        "numba": "numba",
        "triton": "triton",
    }
    for framework in options.frameworks:
        python = pythons[framework]
        available[framework] = (
            python if python and _python_has(python, module_of[framework]) else None
        )
    archs = list(options.archs)
    if "vulkan" in archs:
        done = subprocess.run(
            [
                ours_python,
                "-c",
                (
                    "from taichi_xdsl.targets.vulkan import vulkan_available as v;"
                    "ok, why = v(); print(why); raise SystemExit(0 if ok else 1)"
                ),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        vulkan_device = done.stdout.strip()
        if done.returncode != 0:
            print(f"vulkan: not available ({vulkan_device or done.stderr.strip()[-200:]})")
            archs.remove("vulkan")
        else:
            print(f"vulkan: {vulkan_device}")
    results = Results()
    spec_base = {
        "samples": options.samples,
        "min_sample_s": options.min_sample_s,
        "threads": options.threads,
        "cache": "off",
    }
    frameworks = [f for f in options.frameworks if available.get(f)]
    for framework in options.frameworks:
        if not available.get(framework):
            print(f"{NAMES[framework]}: not installed (skipped)")
    started = time.perf_counter()
    for round_index in range(options.rounds):
        order = (
            frameworks[round_index % len(frameworks) :]
            + frameworks[: round_index % len(frameworks)]
        )
        for arch in archs:
            results.add(
                "copy-ref",
                "copyref",
                arch,
                _worker(
                    ours_python,
                    {**spec_base, "framework": "copyref", "arch": arch, "case": "copy"},
                    options.timeout,
                ),
            )
        for case in options.cases:
            for arch in archs:
                for framework in order:
                    if not _runs_on(framework, arch):
                        continue
                    spec = {**spec_base, "framework": framework, "arch": arch, "case": case}
                    result = _worker(available[framework], spec, options.timeout)
                    results.add(case, framework, arch, result)
                    if options.verbose:
                        what = (
                            _fmt_time(statistics.median(result["steady_s"]))
                            if "steady_s" in result
                            else result.get("error", "")[:120]
                        )
                        print(
                            f"  round {round_index}: {case:8s} {arch:6s} {framework:7s} {what}",
                            flush=True,
                        )
        print(
            f"round {round_index + 1}/{options.rounds} done "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    compile_side = measure_compile_side(options, available, archs, results)
    return {
        "results": results,
        "archs": archs,
        "frameworks": frameworks,
        "available": available,
        "compile": compile_side,
    }


def measure_compile_side(
    options: argparse.Namespace,
    available: dict[str, str | None],
    archs: list[str],
    results: Results,
) -> dict[str, Any]:
    """`import taichi_xdsl` time, and warm-offline-cache first calls (a second process)."""
    out: dict[str, Any] = {"import": {}, "warm": {}, "preload": []}
    imports = {"xdsl": "taichi_xdsl", "taichi": "taichi"}
    for framework, module in imports.items():
        python = available.get(framework)
        if not python:
            continue
        times = []
        for _ in range(options.import_rounds):
            code = f"import time; t = time.perf_counter(); import {module}; "
            code += "print(time.perf_counter() - t)"
            done = subprocess.run(
                [python, "-c", code],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            try:
                times.append(float(done.stdout.strip().splitlines()[-1]))
            except (ValueError, IndexError):
                break
        if times:
            out["import"][framework] = statistics.median(times)
    if options.no_warm:
        return out
    for framework in ("xdsl", "taichi"):
        python = available.get(framework)
        if not python:
            continue
        for arch in archs:
            for case in options.cases:
                if results.error(case, framework, arch):
                    continue
                directory = tempfile.mkdtemp(prefix=f"bench-cache-{framework}-")
                try:
                    spec = {
                        "samples": 1,
                        "min_sample_s": 0.0,
                        "threads": options.threads,
                        "cache": directory,
                        "framework": framework,
                        "arch": arch,
                        "case": case,
                    }
                    fill = _worker(python, spec, options.timeout)
                    warm = [
                        _worker(python, spec, options.timeout)
                        for _ in range(options.warm_rounds)
                    ]
                    preloaded = []
                    if framework == "xdsl":
                        spec["preload"] = True
                        preloaded = [
                            _worker(python, spec, options.timeout)
                            for _ in range(options.warm_rounds)
                        ]
                finally:
                    shutil.rmtree(directory, ignore_errors=True)
                warm = [w for w in warm if "error" not in w]
                if "error" in fill or not warm:
                    continue
                first = statistics.median(w["first_s"] for w in warm)
                steady = results.steady(case, framework, arch) or 0.0
                calls = warm[0].get("calls", 1)
                out["warm"][(case, framework, arch)] = (
                    first,
                    max(0.0, first - steady * calls),
                )
                preloaded = [w for w in preloaded if "error" not in w]
                if preloaded:
                    first = statistics.median(w["first_s"] for w in preloaded)
                    key = (case, "xdsl-preloaded", arch)
                    out["warm"][key] = (first, max(0.0, first - steady * calls))
                    out["preload"] += [w["preload_s"] for w in preloaded]
    return out


def report(data: dict[str, Any], markdown: bool) -> str:
    results: Results = data["results"]
    lines: list[str] = []
    for arch in data["archs"]:
        rivals = [
            f
            for f in ("taichi", "taichi-cuda", "numba", "triton")
            if f in data["frameworks"] and _runs_on(f, arch)
        ]
        copy_time = results.steady("copy-ref", "copyref", arch)
        copy_runs = results.ok("copy-ref", "copyref", arch)
        copy_bw = None
        if copy_time and copy_runs:
            copy_bw = copy_runs[0]["bytes"] / copy_time / 1e9
            lines.append(
                f"{arch}: copy bandwidth {copy_bw:.1f} GB/s ({copy_runs[0].get('what', '')}), "
                "measured in this run"
            )
            if markdown:
                lines.append("")
        header = ["case", "ours"] + [NAMES[r] for r in rivals]
        header += [f"ours/{NAMES[r]}" for r in rivals]
        header += ["GB/s ours (% copy)"] + [f"GB/s {NAMES[r]}" for r in rivals]
        header += ["1st call ours"] + [f"1st {NAMES[r]}" for r in rivals]
        header += [f"1st ours/{NAMES[r]}" for r in rivals] + ["check"]
        rows = []
        notes = []
        for case in data["cases"]:
            ours = results.steady(case, "xdsl", arch)
            row = [f"{case} ({arch})" if markdown else case, _fmt_time(ours)]
            row += [_fmt_time(results.steady(case, r, arch)) for r in rivals]
            row += [_fmt_ratio(ours, results.steady(case, r, arch)) for r in rivals]
            for framework in ["xdsl", *rivals]:
                time_ = results.steady(case, framework, arch)
                nbytes = results.bytes(case, framework, arch)
                if case in MEMORY_BOUND and time_ and nbytes:
                    bw = nbytes / time_ / 1e9
                    share = (
                        f" ({bw / copy_bw:.0%})" if copy_bw and framework == "xdsl" else ""
                    )
                    row.append(f"{bw:.1f}{share}")
                else:
                    row.append("-")
            first = results.first(case, "xdsl", arch)
            row.append(_fmt_time(first))
            row += [_fmt_time(results.first(case, r, arch)) for r in rivals]
            row += [_fmt_ratio(first, results.first(case, r, arch)) for r in rivals]
            # Against the closest rival: the rivals differ among themselves where f32
            # rounding depends on the summation order (the reduction).
            ours_check = results.check(case, "xdsl", arch)
            references = [results.check(case, r, arch) for r in rivals]
            exact = results.expected(case, "xdsl", arch)
            if exact:  # the case knows the exact answer: hold ours against that alone
                references = [exact]
            errors = [
                _rel_error(ours_check, ref) for ref in references if ref and ours_check
            ]
            if not errors:
                row.append("-")
            else:
                row.append("ok" if min(errors) < 1e-3 else f"DIFF {min(errors):.1e}")
            for framework in ["xdsl", *rivals]:
                error = results.error(case, framework, arch)
                if error:
                    notes.append(
                        f"{case} ({arch}), {NAMES[framework]}: n/a ({_short(error)})"
                    )
            rows.append(row)
        lines += _table(header, rows, markdown)
        lines += notes
        lines.append("")
    compile_side = data["compile"]
    for framework, seconds in compile_side["import"].items():
        lines.append(
            f"import {'taichi_xdsl' if framework == 'xdsl' else 'taichi'}: "
            f"{seconds * 1e3:.1f} ms (median of fresh processes)"
        )
    warm = compile_side["warm"]
    if warm:
        lines.append("")
        lines.append(
            "warm offline cache, a second process: first call (and first call "
            "minus one steady-state call)"
        )
        if compile_side["preload"]:
            lines.append(
                "ours, compiler preloaded: the same after loading what a process pays "
                "once (xDSL, the frontend's dialects, llvmlite: "
                f"{statistics.median(compile_side['preload']) * 1e3:.0f} ms median)"
            )
        columns = [
            (f, a)
            for f in ("xdsl", "xdsl-preloaded", "taichi")
            for a in data["archs"]
            if any(k[1] == f and k[2] == a for k in warm)
        ]
        label = {"xdsl": "ours", "xdsl-preloaded": "ours, compiler preloaded"}
        header = ["case"] + [f"{label.get(f, NAMES.get(f))} ({a})" for f, a in columns]
        rows = []
        for case in data["cases"]:
            row = [case]
            for framework, arch in columns:
                value = warm.get((case, framework, arch))
                row.append(
                    "n/a"
                    if value is None
                    else f"{_fmt_time(value[0])} ({_fmt_time(value[1])})"
                )
            rows.append(row)
        lines += _table(header, rows, markdown)
    return "\n".join(lines)


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(row) + " |" for row in rows]
        return out
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*header)] + [fmt.format(*row) for row in rows]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="taichi-xdsl vs Taichi and Numba")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    parser.add_argument("--archs", default="cpu,vulkan")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=7, help="samples a process")
    parser.add_argument("--min-sample-s", type=float, default=0.05)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--import-rounds", type=int, default=5)
    parser.add_argument("--warm-rounds", type=int, default=2)
    parser.add_argument(
        "--no-warm", action="store_true", help="skip the offline-cache runs"
    )
    parser.add_argument(
        "--rivals-python",
        default=DEFAULT_RIVALS_PYTHON
        if Path(DEFAULT_RIVALS_PYTHON).exists()
        else sys.executable,
    )
    parser.add_argument(
        "--triton-python",
        default=sys.executable,
        help="a Python with triton and torch (CUDA), for the GPU reference",
    )
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", default=None, help="also write the raw results here")
    parser.add_argument(
        "--report",
        nargs="+",
        default=None,
        metavar="JSON",
        help="print the tables of --json files (bench/results/) instead of running; "
        "several files (e.g. ours and the rivals, run on one machine) print as one",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    options = parser.parse_args(argv)
    options.cases = [c for c in options.cases.split(",") if c]
    options.frameworks = [f for f in options.frameworks.split(",") if f]
    options.archs = [a for a in options.archs.split(",") if a]
    if options.report:
        raws = [json.loads(Path(path).read_text()) for path in options.report]
        print(report(from_json(merge_json(raws)), options.markdown))
        return
    unknown = set(options.cases) - set(CASES)
    if unknown:
        parser.error(f"unknown case(s) {sorted(unknown)}; cases: {', '.join(CASES)}")
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"cpus: {len(os.sched_getaffinity(0))}, rivals python: {options.rivals_python}")
    data = run_all(options)
    data["cases"] = options.cases
    print()
    print(report(data, options.markdown))
    if options.json:
        Path(options.json).write_text(json.dumps(to_json(data, options), indent=1))


CHECK_SAMPLE = 64
"""Result values kept per run in the JSON (enough for the check column)."""


def to_json(data: dict[str, Any], options: argparse.Namespace) -> dict[str, Any]:
    """The raw results, enough for `--report` to print the same tables again."""
    results: Results = data["results"]
    runs = {}
    for key, values in results.runs.items():
        runs["|".join(key)] = [
            {
                k: (v[:CHECK_SAMPLE] if k in ("check", "expected") else v)
                for k, v in run.items()
            }
            for run in values
        ]
    warm = {"|".join(k): v for k, v in data["compile"]["warm"].items()}
    return {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "cpus": len(os.sched_getaffinity(0)),
        "cases": data["cases"],
        "archs": data["archs"],
        "frameworks": data["frameworks"],
        "runs": runs,
        "import": data["compile"]["import"],
        "warm": warm,
        "preload": data["compile"]["preload"],
    }


def merge_json(raws: list[dict[str, Any]]) -> dict[str, Any]:
    """Several --json files as one: their runs side by side (a key measured in two
    files keeps the runs of both), cases, archs and frameworks in first-seen order."""
    if len(raws) == 1:
        return raws[0]
    merged: dict[str, Any] = {"runs": {}, "import": {}, "warm": {}, "preload": []}
    for name in ("cases", "archs", "frameworks"):
        merged[name] = list(dict.fromkeys(x for raw in raws for x in raw.get(name) or []))
    for raw in raws:
        for key, runs in raw["runs"].items():
            merged["runs"].setdefault(key, []).extend(runs)
        merged["import"].update(raw.get("import", {}))
        merged["warm"].update(raw.get("warm", {}))
        merged["preload"].extend(raw.get("preload") or [])
    merged["command"] = " + ".join(raw.get("command", "?") for raw in raws)
    return merged


def from_json(raw: dict[str, Any]) -> dict[str, Any]:
    """The inverse of to_json (files written before it kept fewer keys: inferred)."""
    results = Results()
    for key, values in raw["runs"].items():
        case, framework, arch = key.split("|")
        for run in values:
            results.add(case, framework, arch, run)
    keys = [k.split("|") for k in raw["runs"]]
    cases = raw.get("cases") or [c for c in CASES if any(k[0] == c for k in keys)]
    archs = raw.get("archs") or sorted({k[2] for k in keys if k[1] != "copyref"})
    frameworks = raw.get("frameworks") or [
        f for f in FRAMEWORKS if any(k[1] == f for k in keys)
    ]
    warm = {tuple(k.split("|")): tuple(v) for k, v in raw.get("warm", {}).items()}
    return {
        "results": results,
        "cases": cases,
        "archs": archs,
        "frameworks": frameworks,
        "compile": {
            "import": raw.get("import", {}),
            "warm": warm,
            "preload": raw.get("preload", []),
        },
    }


if __name__ == "__main__":
    main()
