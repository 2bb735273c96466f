"""
Mutation fuzzing of `ti-opt`: every `.mlir` file under the given folders (by default
the project's test/), mutated in seeded ways, run through ti-opt with the passes of the
file's RUN line, each run under a timeout. Every outcome is classified:

    ok           exit status 0
    located      exit status 1 and a diagnostic naming `file:line:col`
    unlocated    exit status 1 and a diagnostic without a position
    internal     an internal error (exit status 2) or a Python traceback
    no-pass      the RUN line names a pass this xDSL does not have, or one that needs
                 MLIR's mlir-opt where it is not installed (not a test)
    hang         past the timeout (CPU seconds of the run; wall time capped at 10x)
    crash        the process died (a signal)

    python -m taichi_xdsl.utils.fuzz_ti_opt --runs 5000 --seed 0 --timeout 10 \\
        --save /tmp/fuzz-failures test/

Runs happen in a worker process that imports ti-opt once (starting Python per run would
cost more than the runs); a run past the timeout kills the worker and starts another.
Failing inputs (all but ok/located) are written to `--save` for reduction into tests.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

_LOCATED = re.compile(r"[^\s:]+:\d+:\d+(: error:|\n)")
_RUN_PASSES = re.compile(r"RUN:.*?(?:ti|xdsl)-opt\b.*?-p[ =]('([^']*)'|\"([^\"]*)\"|(\S+))")

_TYPES = ["f16", "f32", "f64", "i1", "i8", "i32", "i64", "index", "memref<?xf32>",
          "vector<4xf32>", "!llvm.ptr", "memref<4x4xi32>", "tensor<2xf32>"]
_NUMBERS = ["0", "-1", "65536", "0x12345ff", "1e400", "2147483648", "-9223372036854775809",
            "0.5", "nan", "18446744073709551616", "1.0e-400"]
_SNIPPETS = ['"', "{", "}", "(", ")", "<", ">", "[", "]", "^bb1:", "%0", "@x", ":", ",",
             "loc(", "#", "!", "->", "= ", "\\", "\x00", "\xff", "//", "\n"]


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits of `text`: lines, tokens, SSA names, types, numbers."""
    for _ in range(rng.randint(1, 3)):
        text = rng.choice(_MUTATIONS)(text, rng)
    return text


def _lines(text, rng, edit):
    lines = text.split("\n")
    if lines:
        edit(lines, rng.randrange(len(lines)), rng)
    return "\n".join(lines)


def _delete_line(text, rng):
    return _lines(text, rng, lambda ls, i, r: ls.pop(i))


def _duplicate_line(text, rng):
    return _lines(text, rng, lambda ls, i, r: ls.insert(i, ls[i]))


def _swap_lines(text, rng):
    def swap(ls, i, r):
        j = r.randrange(len(ls))
        ls[i], ls[j] = ls[j], ls[i]

    return _lines(text, rng, swap)


def _replace_in(text, rng, pattern, choices):
    matches = list(re.finditer(pattern, text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[: m.start()] + rng.choice(choices(text)) + text[m.end():]


def _rename_ssa(text, rng):
    return _replace_in(text, rng, r"%[\w.$-]+", lambda t: re.findall(r"%[\w.$-]+", t))


def _change_type(text, rng):
    return _replace_in(text, rng, r"\b(f16|f32|f64|i1|i8|i16|i32|i64|index)\b",
                       lambda t: _TYPES)


def _change_number(text, rng):
    return _replace_in(text, rng, r"(?<![\w%#@^])-?\d+(\.\d+)?", lambda t: _NUMBERS)


def _change_symbol(text, rng):
    return _replace_in(text, rng, r"@[\w.$-]+", lambda t: re.findall(r"@[\w.$-]+", t))


def _insert_snippet(text, rng):
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(_SNIPPETS) + text[i:]


def _delete_span(text, rng):
    if not text:
        return text
    i = rng.randrange(len(text))
    return text[:i] + text[i + rng.randint(1, 40):]


def _truncate(text, rng):
    return text[: rng.randrange(len(text) + 1)]


def _nest(text, rng):
    """Wrap a random op line in many `scf.execute_region`-like nested regions."""
    depth = rng.choice([50, 200, 1000])
    return text + "\nfunc.func @deep() {\n" + "scf.execute_region {\n" * depth + \
        "scf.yield\n}\n" * depth + "func.return\n}\n"


_MUTATIONS = [_delete_line, _duplicate_line, _swap_lines, _rename_ssa, _rename_ssa,
              _change_type, _change_number, _change_symbol, _insert_snippet, _delete_span,
              _truncate, _nest]


def passes_of(text: str) -> list[str]:
    """The `-p` pipelines of the file's RUN lines (none: parse, verify, print)."""
    found = []
    for m in _RUN_PASSES.finditer(text):
        found.append(m.group(2) or m.group(3) or m.group(4))
    return found or [""]


def classify(returncode: int | None, stderr: str) -> str:
    if returncode is None:
        return "hang"
    if returncode < 0:
        return "crash"
    if returncode == 0:
        return "ok"
    if "Unrecognized passes" in stderr or "mlir-opt is not available" in stderr:
        # an xDSL test of a pass this xDSL version does not have, or of one that runs
        # MLIR's mlir-opt (apply-eqsat-pdl), which this machine does not have
        return "no-pass"
    if "Traceback" in stderr or "internal error" in stderr or returncode != 1:
        return "internal"
    return "located" if _LOCATED.search(stderr) else "unlocated"


def _worker(jobs, results) -> None:
    from taichi_xdsl.utils import ti_opt

    sys.stdout = open(os.devnull, "w")
    while True:
        job = jobs.get()
        if job is None:
            return
        path, passes = job
        args = [path] + (["-p", passes] if passes else [])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                rc = ti_opt.main(args)
            except BaseException as error:  # noqa: BLE001 - the fuzzer records it
                print(f"Traceback: {type(error).__name__}: {error}", file=err)
                rc = 2
        results.put((rc, err.getvalue()))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` (Linux /proc), 0 where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class Runner:
    """ti-opt in a worker process, restarted when a run hangs or crashes it."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.ctx = multiprocessing.get_context("spawn")
        self.process = None

    def _start(self):
        self.jobs, self.results = self.ctx.Queue(), self.ctx.Queue()
        self.process = self.ctx.Process(target=_worker, args=(self.jobs, self.results))
        self.process.start()

    def run(self, path: str, passes: str) -> tuple[int | None, str]:
        if self.process is None or not self.process.is_alive():
            self._start()
        self.jobs.put((path, passes))
        # The timeout counts the worker's CPU time: on a shared, loaded machine wall time
        # says more about the neighbours than about ti-opt (wall time is capped at 10x).
        cpu_start = _cpu_seconds(self.process.pid)
        wall_deadline = time.monotonic() + 10 * self.timeout
        while True:
            try:
                return self.results.get(timeout=0.2)
            except Exception:  # queue.Empty
                if not self.process.is_alive():
                    code = self.process.exitcode
                    self.process = None
                    return (code if code and code < 0 else -1), "worker died"
                cpu = _cpu_seconds(self.process.pid) - cpu_start
                if cpu > self.timeout or time.monotonic() > wall_deadline:
                    self.process.kill()
                    self.process.join()
                    self.process = None
                    return None, ""

    def close(self):
        if self.process is not None and self.process.is_alive():
            self.jobs.put(None)
            self.process.join(5)
            if self.process.is_alive():
                self.process.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", default=[str(Path(__file__).parents[1] / "test")])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--save", help="folder for the inputs that did not end ok/located")
    args = parser.parse_args(argv)

    files = sorted(p for root in args.roots for p in Path(root).rglob("*.mlir"))
    # A file whose passes come from a --pass-plugin cannot be run without its plugin.
    files = [p for p in files if "Output" not in p.parts and "--pass-plugin" not in p.read_text(errors="replace")]
    sources = [(p, p.read_text(errors="replace")) for p in files]
    if not sources:
        print("no .mlir files found", file=sys.stderr)
        return 1
    save = Path(args.save) if args.save else None
    if save:
        save.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    runner = Runner(args.timeout)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for run in range(args.runs):
                rng = random.Random(f"{args.seed}:{run}")
                path, text = rng.choice(sources)
                # lit's %p is the test file's folder (apply-pdl{pdl_file="%p/x.mlir"})
                passes = rng.choice(passes_of(text)).replace("%p", str(path.parent))
                # The RUN lines are comments: drop them so no mutation touches them.
                body = "\n".join(
                    "" if line.lstrip().startswith("//") else line for line in text.split("\n")
                )
                case = Path(tmp) / f"{path.stem}-{run}.mlir"
                case.write_text(mutate(body, rng), errors="replace")
                returncode, stderr = runner.run(str(case), passes)
                kind = classify(returncode, stderr)
                counts[kind] += 1
                if kind not in ("ok", "located", "no-pass"):
                    first = stderr.strip().splitlines()[:1]
                    print(f"[{run}] {kind}: {path.name} -p '{passes}': {first}", flush=True)
                    if save:
                        (save / f"{kind}-{args.seed}-{run}.mlir").write_text(
                            f"// ti-opt -p '{passes}'\n" + case.read_text()
                        )
        finally:
            runner.close()
    elapsed = time.monotonic() - start
    print(f"{args.runs} runs, seed {args.seed}, {len(sources)} files, {elapsed:.0f} s: "
          + ", ".join(f"{k} {counts[k]}" for k in
                      ("ok", "located", "unlocated", "internal", "hang", "crash", "no-pass")))
    return 0 if counts["unlocated"] + counts["internal"] + counts["hang"] + counts["crash"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
