"""
A pass, measured: run bench cases with the arch's pipeline as it is and with a change to
it, in alternating fresh processes (bench/worker.py), and print the speed ratio.

    python -m bench.passes --cases saxpy,stencil --drop ti-split-parallel-loop
    python -m bench.passes --cases saxpy --archs cpu,vulkan \\
        --plugin examples/tutorial/strength_reduce.py --after ti-mem2reg=ti-strength-reduce
    python -m bench.passes --case-file my_case.py --passes '{"replace": {"cse": "my-cse"}}'

The change is what `ti.init(passes=...)` takes (utils/pipelines.py PipelineEdits), from
`--passes JSON` and/or `--before/--after/--replace PASS=SPEC` and `--drop PASS`; pass
plugins (`--plugin file.py`, repeatable) are registered in both runs. A case is a file
of bench/cases/ (or `--case-file`): kernels plus `step()` and `result()`. Figures are
medians over rounds of each process's median; the ratio is edited / baseline (below 1:
the change makes the case faster); `check` compares the results of the two pipelines
(max relative error, which should be ~0 for a pass that keeps semantics).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def parse_edits(options: argparse.Namespace) -> dict[str, Any]:
    """The `passes=` dict of the command line's options."""
    edits: dict[str, Any] = json.loads(options.passes) if options.passes else {}
    for key in ("before", "after", "replace"):
        for item in getattr(options, key) or ():
            name, sep, spec = item.partition("=")
            if not sep:
                raise SystemExit(f"--{key} takes PASS=SPEC, got {item!r}")
            edits.setdefault(key, {})[name] = spec
    if options.drop:
        edits.setdefault("drop", []).extend(options.drop)
    if not edits:
        raise SystemExit("no pipeline change given (--passes, --before, --after, --replace, --drop)")
    return edits


def measure(options: argparse.Namespace, edits: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (case, arch): baseline and edited medians, ratio, check."""
    from bench.run import _rel_error, _worker

    cases: list[tuple[str, str | None]] = [
        (Path(f).stem, str(Path(f).resolve())) for f in options.case_file or ()
    ]
    cases += [(c, None) for c in options.cases.split(",") if c] if options.cases else []
    plugins = [str(Path(p).resolve()) for p in options.plugin or ()]
    rows = []
    for case, case_file in cases:
        for arch in options.archs.split(","):
            runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "edited": []}
            for round_ in range(options.rounds):
                order = ("baseline", "edited") if round_ % 2 == 0 else ("edited", "baseline")
                for which in order:
                    spec = {
                        "framework": "xdsl",
                        "arch": arch,
                        "case": case,
                        "samples": options.samples,
                        "min_sample_s": options.min_sample_s,
                        "cache": "off",
                        "threads": options.threads,
                        "pass_plugins": plugins,
                    }
                    if case_file is not None:
                        spec["case_file"] = case_file
                    if which == "edited":
                        spec["passes"] = edits
                    runs[which].append(_worker(sys.executable, spec, options.timeout))
            row: dict[str, Any] = {"case": case, "arch": arch}
            for which, results in runs.items():
                errors = [r["error"] for r in results if "error" in r]
                if errors:
                    row["error"] = f"{which}: {errors[0]}"
                    break
                row[which] = statistics.median(
                    statistics.median(r["steady_s"]) for r in results
                )
                row[f"{which}_check"] = results[0]["check"]
            if "error" not in row:
                row["ratio"] = row["edited"] / row["baseline"]
                row["check"] = _rel_error(row["edited_check"], row["baseline_check"])
            rows.append(row)
    return rows


def report(rows: list[dict[str, Any]], edits: dict[str, Any]) -> str:
    from bench.run import _fmt_time

    lines = [
        f"pipeline change: {json.dumps(edits, sort_keys=True)}",
        "| case | arch | baseline | edited | edited/baseline | check (max rel. error) |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['case']} | {row['arch']} | n/a ({row['error'][:120]}) | | | |")
            continue
        lines.append(
            f"| {row['case']} | {row['arch']} | {_fmt_time(row['baseline'])} | "
            f"{_fmt_time(row['edited'])} | {row['ratio']:.3f} | {row['check']:.2e} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="speed of bench cases with and without a pipeline change"
    )
    parser.add_argument("--cases", default="", help="bench/cases names, comma-separated")
    parser.add_argument("--case-file", action="append", help="a case file of your own")
    parser.add_argument("--archs", default="cpu")
    parser.add_argument("--passes", default=None, help="ti.init(passes=...) as JSON")
    parser.add_argument("--before", action="append", metavar="PASS=SPEC")
    parser.add_argument("--after", action="append", metavar="PASS=SPEC")
    parser.add_argument("--replace", action="append", metavar="PASS=SPEC")
    parser.add_argument("--drop", action="append", metavar="PASS")
    parser.add_argument("--plugin", action="append", metavar="FILE.py")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--min-sample-s", type=float, default=0.05)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--json", default=None, help="also write the rows here")
    options = parser.parse_args(argv)
    if not options.cases and not options.case_file:
        parser.error("give --cases and/or --case-file")
    edits = parse_edits(options)
    rows = measure(options, edits)
    print(report(rows, edits))
    if options.json:
        Path(options.json).write_text(json.dumps(rows, indent=1))
    return 1 if any("error" in row for row in rows) else 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    sys.exit(main())
