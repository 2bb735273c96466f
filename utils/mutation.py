"""
Mutation check of the compiler: does the test suite notice when a pass is wrong?

    python -m taichi_xdsl.utils.mutation                       # lowering/, 12 mutants a file
    python -m taichi_xdsl.utils.mutation --files lowering/mem2reg.py --limit 0  # all of them
    python -m taichi_xdsl.utils.mutation --files dialects/offload.py --list      # no runs
    python -m taichi_xdsl.utils.mutation --files lowering/mem2reg.py --lines 106 --limit 0

Each mutant changes one thing in one file of lowering/ or dialects/ (a comparison, a
boolean operator, `all`/`any`, a constant, the order of two call operands, a negated
`if` guard, a dropped call statement), in a copy of the checkout under a temporary
folder: the checkout itself is never written. The mutant then runs the fast tests that
concern its file, cheapest first, and stops at the first failure:

1. the lit tests that name one of the file's passes (or a pipeline holding one), with
   lit's per-test timeout;
2. a targeted pytest subset (`PYTEST_FILES`), `-x`, with pytest-timeout.

A mutant that no test fails SURVIVED: a missing test, or dead code, or (rarely) an
equivalent mutant. The report gives the kill rate per file and every survivor (file,
line, change), and `--json` writes them. Mutants are sampled (`--limit` per file,
`--seed`) because each costs a few seconds of both cores.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# End-to-end tests run after the lit tests of a file, by the file's directory or name
# (first match): small files that exercise the passes on both archs, chosen per pass so
# that a mutant costs a minute, not ten, of a shared machine (test_lowering_regressions.py
# holds the end-to-end tests written for survivors).
PYTEST_FILES: list[tuple[str, list[str]]] = [
    ("lowering/convert_offload_to_llvm.py", ["test_offload_to_llvm.py", "test_reductions.py"]),
    ("lowering/spirv_textures.py", ["test_textures.py"]),
    ("lowering/spirv_simt.py", ["test_simt.py", "test_vulkan_backend.py"]),
    ("lowering/convert_arith_to_spirv.py", ["test_vulkan_backend.py", "test_lowering_regressions.py"]),
    ("lowering/convert_offload_to_spirv.py", ["test_vulkan_backend.py", "test_reductions.py"]),
    ("lowering/convert_taichi_to_spirv.py", ["test_vulkan_backend.py", "test_lowering_regressions.py"]),
    ("lowering/convert_", ["test_offload_to_llvm.py", "test_lowering_regressions.py"]),
    ("lowering/spirv_", ["test_vulkan_backend.py", "test_reductions.py"]),
    ("lowering/serial_simt.py", ["test_simt.py"]),
    ("lowering/auto_diff", ["test_autodiff.py", "test_adstack.py"]),  # reverse and forward
    ("lowering/adstack.py", ["test_adstack.py", "test_autodiff.py"]),
    ("lowering/expand_f64_math.py", ["test_f64_math.py"]),
    ("lowering/lower_sparse.py", ["test_sparse.py", "test_reductions.py"]),
    ("lowering/", ["test_reductions.py", "test_lowering_regressions.py", "test_e2e_programs.py"]),
    ("dialects/spirv", ["test_spirv_serializer.py", "test_vulkan_backend.py"]),
    ("dialects/symbols.py", ["test_dialect_symbols.py"]),
    ("dialects/", ["test_reductions.py", "test_lowering_regressions.py"]),
]

COMPARE_SWAP = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
    ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
OP_TEXT = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
}
BINOP_SWAP = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
    ast.LShift: ast.RShift, ast.RShift: ast.LShift, ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
}


# Calls whose two operands swapped only raise a TypeError: no test is needed to see it.
NO_SWAP = {"isinstance", "issubclass", "getattr", "hasattr", "setattr", "super"}
# Calls of a commutative operation: their operands swapped mean the same (an equivalent
# mutant, never a missing test). Python's min/max; the IR builders of expand_f64_math
# (`add`, `mul`, `both`, `either`; `two_sum` and `two_prod` return the exact error of a
# sum or product, which does not depend on the order); the ops that build commutative
# arithmetic, bitwise and logical operations.
COMMUTATIVE = {
    "min", "max", "add", "mul", "both", "either", "two_sum", "two_prod",
    "AddfOp", "AddiOp", "MulfOp", "MuliOp", "AndIOp", "OrIOp", "XOrIOp",
    "IAddOp", "IMulOp", "FAddOp", "FMulOp", "BitwiseAndOp", "BitwiseOrOp",
    "BitwiseXorOp", "LogicalAndOp", "LogicalOrOp", "IEqualOp", "INotEqualOp",
    "FOrdEqualOp", "FUnordNotEqualOp", "LogicalEqualOp", "LogicalNotEqualOp",
}  # fmt: skip


def _callee(func: ast.expr) -> str | None:
    """`f` of `f(...)` and of `x.f(...)`."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


@dataclass
class Mutant:
    file: str  # relative to the checkout
    line: int
    kind: str
    before: str
    after: str
    start: int  # character offsets of the replaced text in the file
    end: int
    outcome: str = ""  # killed-lit, killed-pytest, timeout, survived
    seconds: float = 0.0  # wall
    cpu: float = 0.0  # CPU seconds of its test processes
    note: str = ""  # "no test runs it": survived without a run (baseline coverage)
    why: str = ""  # the first line of the failure that killed it (the test and RUN line)

    def apply(self, source: str) -> str:
        return source[: self.start] + self.after + source[self.end :]


def _offsets(source: str) -> list[int]:
    starts, at = [0], 0
    for line in source.splitlines(keepends=True):
        at += len(line)
        starts.append(at)
    return starts


def mutants_of(path: Path) -> list[Mutant]:
    """Every mutant of one file, in source order."""
    source = path.read_text()
    tree = ast.parse(source)
    lines = _offsets(source)
    rel = str(path.relative_to(ROOT))
    # Docstrings, type annotations and `assert`s document or check; they are not mutated.
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert | ast.AnnAssign):
            skip.update(id(n) for n in ast.walk(node.annotation if isinstance(node, ast.AnnAssign) else node))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
                if arg.annotation is not None:
                    skip.update(id(n) for n in ast.walk(arg.annotation))
            if node.returns is not None:
                skip.update(id(n) for n in ast.walk(node.returns))
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                skip.add(id(body[0].value))

    out: list[Mutant] = []

    def span(node: ast.AST) -> tuple[int, int]:
        return (
            lines[node.lineno - 1] + node.col_offset,  # pyright: ignore
            lines[node.end_lineno - 1] + node.end_col_offset,  # pyright: ignore
        )

    def add(node: ast.AST, kind: str, start: int, end: int, after: str) -> None:
        out.append(
            Mutant(rel, node.lineno, kind, source[start:end], after, start, end)  # pyright: ignore
        )

    def between(left: ast.AST, right: ast.AST, text: str) -> tuple[int, int] | None:
        """The offsets of operator `text` between two operands."""
        lo, hi = span(left)[1], span(right)[0]
        found = re.search(r"(?<![=!<>])" + re.escape(text) + r"(?![=<>])", source[lo:hi])
        if found is None:
            return None
        return lo + found.start(), lo + found.end()

    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                new = COMPARE_SWAP.get(type(op))
                where = between(left, right, OP_TEXT[type(op)]) if new else None
                if new and where:
                    add(node, "compare", *where, OP_TEXT[new])
                left = right
        elif isinstance(node, ast.BoolOp):
            text = "and" if isinstance(node.op, ast.And) else "or"
            where = between(node.values[0], node.values[1], text)
            if where:
                add(node, "boolop", *where, "or" if text == "and" else "and")
        elif isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAP:
            where = between(node.left, node.right, OP_TEXT[type(node.op)])
            if where:
                add(node, "arith", *where, OP_TEXT[BINOP_SWAP[type(node.op)]])
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start, end = span(node)
            add(node, "not", start, end, source[slice(*span(node.operand))])
        elif isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            start, end = span(node)
            if isinstance(node.value, bool):
                add(node, "constant", start, end, str(not node.value))
            else:
                add(node, "constant", start, end, str(node.value + 1))
                if node.value not in (0, 1):
                    add(node, "constant", start, end, "0")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("all", "any"):
                start, end = span(func)
                add(node, "all/any", start, end, "any" if func.id == "all" else "all")
            args = node.args
            if (
                len(args) == 2
                and not (isinstance(func, ast.Name) and func.id in NO_SWAP)
                and _callee(func) not in COMMUTATIVE
                and not any(isinstance(a, ast.Starred) for a in args)
                and ast.dump(args[0]) != ast.dump(args[1])
            ):
                (s0, e0), (s1, e1) = span(args[0]), span(args[1])
                text = source[s0:e1]
                swapped = source[s1:e1] + source[e0:s1] + source[s0:e0]
                if "\n" not in text:
                    out.append(
                        Mutant(rel, node.lineno, "operands", text, swapped, s0, e1)
                    )
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            start, end = span(node.test)
            add(node, "guard", start, end, f"not ({source[start:end]})")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            start, end = span(node)
            add(node, "drop-call", start, end, "pass")
    out.sort(key=lambda m: (m.start, m.kind, m.after))
    return out


def body_lines(path: Path) -> set[int]:
    """The lines inside function bodies: code there runs only when a test calls it."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines.update(range(node.body[0].lineno, node.body[-1].end_lineno + 1))  # pyright: ignore
        elif isinstance(node, ast.Lambda):
            lines.update(range(node.body.lineno, node.body.end_lineno + 1))  # pyright: ignore
    return lines


def covering(
    m: Mutant, source: str, tests: list[str], coverage: dict, inside: set[int], key=str
) -> list[str]:
    """
    The tests that run a line of the mutant (the baseline's coverage): a test that never
    runs the mutated code passes as it did. A mutant outside function bodies (run on import:
    a constant, a default, a decorator) is run by every test.
    """
    first = source.count("\n", 0, m.start) + 1
    lines = {m.line, *range(first, first + source.count("\n", m.start, m.end) + 1)}
    if not lines <= inside:
        return tests
    return [t for t in tests if lines & set(coverage.get(key(t), {}).get(m.file, ()))]


# -- choosing the tests of a file ---------------------------------------------------------


def _pass_names(rel: str) -> set[str]:
    """The registered passes defined in `rel` or in a lowering module importing it."""
    from taichi_xdsl.utils import registry

    from taichi_xdsl.utils.mutation_worker import _module_level_imports

    module = "taichi_xdsl." + rel.removesuffix(".py").replace("/", ".")
    users = {module}
    imports = {
        "taichi_xdsl.lowering." + path.stem: _module_level_imports(
            "taichi_xdsl.lowering." + path.stem, str(path), in_functions=True)
        for path in sorted((ROOT / "lowering").glob("*.py"))
    }
    changed = True
    while changed:  # modules that import one of `users`, transitively
        changed = False
        for name, imported in imports.items():
            if name not in users and imported & users:
                users.add(name)
                changed = True
    names = {name for name, target in registry.PASSES.items() if target.split(":")[0] in users}
    if rel == "lowering/taichi_canonicalization.py" or rel.startswith("dialects/"):
        names.add("canonicalize")
    for pipeline, spec in registry.PIPELINES.items():
        expanded = spec
        for _ in range(3):
            for inner, inner_spec in registry.PIPELINES.items():
                expanded = re.sub(rf"\b{re.escape(inner)}\b(?!-)", inner_spec, expanded)
        if any(re.search(rf"(^|,){re.escape(n)}(\{{|,|$)", expanded) for n in list(names)):
            names.add(pipeline)
    return names


def _own_prefixes(rel: str) -> list[str]:
    """Names that the lit tests of `rel`'s own passes start with."""
    from taichi_xdsl.utils import registry

    module = "taichi_xdsl." + rel.removesuffix(".py").replace("/", ".")
    names = [n for n, target in registry.PASSES.items() if target.split(":")[0] == module]
    if rel.startswith("lowering/spirv_"):
        names.append("convert-offload-to-spirv")
    if rel.startswith("lowering/"):
        names.append("ti-" + Path(rel).stem.replace("_", "-"))
    if rel == "lowering/llvm_conversion.py":
        names += ["convert-arith-to-llvm", "convert-math-to-llvm"]
    if rel == "lowering/taichi_canonicalization.py":
        names.append("taichi-canonicalize")
    if rel.startswith("dialects/"):
        names += ["ops", "invalid"]
    return names or ["-"]


def lit_tests(rel: str) -> list[str]:
    """The lit tests (relative to test/) that run one of `rel`'s passes."""
    names = _pass_names(rel)
    dialect = rel.startswith("dialects/")
    chosen = []
    for path in sorted((ROOT / "test").rglob("*")):
        skipped = ("python", "Inputs", "Output")  # Output: what lit runs leave behind
        if path.suffix not in (".mlir", ".py") or any(p in path.parts for p in skipped):
            continue
        if path.name == "lit.cfg.py":
            continue
        text = path.read_text()
        if dialect and "dialects" in path.parts:
            chosen.append(path)
        elif any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) for n in names):
            chosen.append(path)
    return [str(p.relative_to(ROOT / "test")) for p in chosen]


def pytest_files(rel: str) -> list[str]:
    for prefix, files in PYTEST_FILES:
        if rel.startswith(prefix):
            return files
    return []


# -- running ------------------------------------------------------------------------------


def _checkout_files() -> list[str]:
    """The tracked (and untracked, not ignored) files of the checkout, relative to ROOT."""
    try:
        return subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):  # a copy of the tree without .git
        skip = ("Output", "__pycache__", "build")
        return sorted(
            str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
            if not any(part.startswith(".") or part in skip or part.endswith(".egg-info")
                       for part in p.relative_to(ROOT).parts)
        )


def _copy_checkout(dest: Path) -> Path:
    """The files of the checkout (as they are now) under dest/taichi_xdsl."""
    pkg = dest / "taichi_xdsl"
    for name in _checkout_files():
        src = ROOT / name
        if src.is_file():
            (pkg / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, pkg / name)
    return pkg


class Worker:
    """One `mutation_worker` process on its own copy of the checkout (one per --jobs)."""

    def __init__(self, work: Path, wait: bool = True):
        work.mkdir(parents=True)
        self.pkg = _copy_checkout(work)
        (work / "tmp").mkdir()
        env = dict(os.environ)
        env.update(
            # the copy, ahead of the editable install (and of any PYTHONPATH dependencies)
            PYTHONPATH=os.pathsep.join(filter(None, [str(work), os.environ.get("PYTHONPATH")])),
            TI_MUTATION_COPY=str(self.pkg),
            TI_OFFLINE_CACHE="0",
            XDG_CACHE_HOME=str(work / "cache"),
            TMPDIR=str(work / "tmp"),
            PYTHONUNBUFFERED="1",
            OPENBLAS_NUM_THREADS="1",  # the worker forks: no BLAS threads in it
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", "taichi_xdsl.utils.mutation_worker"],
            cwd=self.pkg, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, start_new_session=True,
        )
        self.imported: dict[str, list[int]] = {}
        if wait:
            self.wait_ready()

    def wait_ready(self) -> None:
        """Wait for the worker's imports (workers started together import at once)."""
        ready = self.process.stdout.readline()  # pyright: ignore
        if not ready:
            raise RuntimeError("the mutation worker did not start (run it by hand to see why)")
        # the lines of lowering/ and dialects/ that ran when the worker imported them
        self.imported = json.loads(ready)["imported"]

    def ask(self, job: dict) -> dict:
        message = {k: v for k, v in job.items() if k != "mutant"}
        self.process.stdin.write(json.dumps(message) + "\n")  # pyright: ignore
        self.process.stdin.flush()  # pyright: ignore
        answer = self.process.stdout.readline()  # pyright: ignore
        if not answer:
            return {"outcome": "error", "output": "the worker died"}
        return json.loads(answer)

    def close(self) -> None:
        """End the worker and whatever mutant it is running (its process group)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


def run_jobs(workers: list[Worker], jobs: list[dict], done, start_by: float = float("inf"),
             end_by: float = float("inf")) -> None:
    """
    Hand the jobs to the workers, one at a time each; done(job, answer) as each ends. No
    job starts after `start_by` (time.monotonic()); at `end_by` the workers still busy are
    stopped and their jobs dropped (neither done nor recorded: a resumed run does them).
    """
    STOP.clear()
    pending = queue.Queue()
    for job in jobs:
        pending.put(job)

    def serve(worker: Worker) -> None:
        while time.monotonic() < start_by and not STOP.is_set():
            try:
                job = pending.get_nowait()
            except queue.Empty:
                return
            start = time.perf_counter()
            answer = worker.ask(job)
            answer["seconds"] = round(time.perf_counter() - start, 1)
            with LOCK:
                if STOP.is_set():  # its worker was stopped under it: no outcome
                    return
                done(job, answer)

    threads = [threading.Thread(target=serve, args=(w,), daemon=True) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, end_by - time.monotonic()) if end_by < float("inf") else None)
    if any(thread.is_alive() for thread in threads):
        with LOCK:
            STOP.set()
        for worker in workers:
            worker.close()


LOCK = threading.Lock()
STOP = threading.Event()  # set when the run is being stopped: answers after it are dropped


def _key(m: dict | Mutant) -> tuple:
    d = asdict(m) if isinstance(m, Mutant) else m
    return (d["file"], d["start"], d["end"], d["after"])


KILLS = ("killed-lit", "killed-pytest", "timeout")


def report(results: list[Mutant], files: list[str]) -> None:
    print("\nfile                                   killed / mutants  (lit / pytest / timeout)")
    total = killed = 0
    for rel in files:
        mine = [m for m in results if m.file == rel and m.outcome in (*KILLS, "survived")]
        if not mine:
            continue
        k = sum(m.outcome in KILLS for m in mine)
        how = [sum(m.outcome == o for m in mine) for o in ("killed-lit", "killed-pytest", "timeout")]
        total, killed = total + len(mine), killed + k
        print(f"{rel:40} {k:4} / {len(mine):4}  {100 * k / len(mine):5.1f}%  {how}")
    if total:
        print(f"{'all':40} {killed:4} / {total:4}  {100 * killed / total:5.1f}%")
        cpu = sum(m.cpu for m in results)
        print(f"CPU: {cpu / 60:.1f} min in all, {cpu / len(results):.1f} s a mutant")
    for m in results:
        if m.outcome == "survived":
            print(f"SURVIVED {m.file}:{m.line} {m.kind}: {m.before!r} -> {m.after!r}"
                  + (f" ({m.note})" if m.note else ""))
        elif m.outcome not in KILLS:  # the runner failed: neither killed nor survived
            print(f"{m.outcome.upper()} {m.file}:{m.line} {m.kind}: {m.before!r} -> {m.after!r}")


def load_results(paths: list[str]) -> list[Mutant]:
    """The mutants of --json files (one JSON object a line)."""
    out: dict[tuple, Mutant] = {}
    for path in paths:
        if not Path(path).exists():
            continue
        for line in Path(path).read_text().splitlines():
            if line.strip():
                data = json.loads(line)
                out[_key(data)] = Mutant(**data)
    return list(out.values())


TRACE_FACTOR = 5


def _baseline(workers: list[Worker], lit: list[str], pytest: list[str], common: dict,
              end_by: float = float("inf")):
    """
    Run every test that a mutant may run once, unmutated, and record the lines of
    lowering/ and dialects/ that each runs (a mutant then runs only the tests that run its
    line), and the CPU seconds of each pytest file ("cpu:NAME"). None, with the failures
    printed, if one fails: every mutant would count as killed. The pytest files (the
    longest) go first, the lit tests split over the workers.
    """
    # the trace slows the tests a few times: the baseline's limits are larger
    traced = {"test_timeout": TRACE_FACTOR * common["test_timeout"],
              "mutant_timeout": TRACE_FACTOR * common["mutant_timeout"],
              "file": "", "own_prefixes": ["-"], "trace": True}
    baseline = [{**traced, "lit": [], "pytest": [name]} for name in pytest] + [
        {**traced, "lit": lit[i :: len(workers)], "pytest": []} for i in range(len(workers))
    ]
    failed: list[str] = []
    coverage: dict = {}
    begun = time.perf_counter()

    def baseline_done(job: dict, answer: dict) -> None:
        coverage.update(answer.get("coverage", {}))
        if job["pytest"]:  # the CPU seconds of the file, traced (a mutant's limit)
            coverage["cpu:" + job["pytest"][0]] = answer.get("cpu", 0)
        if answer["outcome"] != "survived":
            failed.append(answer["output"])

    run_jobs(workers, [job for job in baseline if job["lit"] or job["pytest"]], baseline_done,
             end_by=end_by)
    if STOP.is_set():
        print("the baseline did not end within --stop-after: no mutant ran")
        return None
    if failed:
        print("the unmutated tests fail:\n" + "\n".join(failed))
        return None
    print(f"baseline passes: {len(lit)} lit tests, pytest {' '.join(pytest)} "
          f"({time.perf_counter() - begun:.0f} s)", flush=True)
    return coverage


def _pytest_limit(files: list[str], coverage: dict, least: int) -> int:
    """A mutant's CPU seconds for its pytest files: `least`, or twice what they took in the
    (traced, so slower) baseline where that is more: a slow file is not a timeout."""
    return max(least, round(2 * sum(coverage.get("cpu:" + f, 0) for f in files)))


def _fingerprint(tests: list) -> str:
    """A digest of the checkout's files and the tests chosen: a saved baseline is used again
    only for the same."""
    digest = hashlib.sha256(json.dumps(tests).encode())
    for name in _checkout_files():
        path = ROOT / name
        if path.is_file() and path.suffix != ".md":  # the prose runs no test
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _saved_coverage(path: str | None, fingerprint: str) -> dict | None:
    if not path or not Path(path).exists():
        return None
    saved = json.loads(Path(path).read_text())
    return saved["coverage"] if saved.get("fingerprint") == fingerprint else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    parser.add_argument("--files", nargs="*", help="files to mutate (default: lowering/*.py)")
    parser.add_argument("--limit", type=int, default=12,
                        help="mutants sampled per file; 0: every mutant (default 12)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--lines", type=int, nargs="*",
                        help="only the mutants on these lines (a survivor, rechecked)")
    parser.add_argument("--no-pytest", action="store_true", help="lit tests only")
    parser.add_argument("--jobs", "-j", type=int, default=1,
                        help="mutants run at once, each in its own worker and copy (default 1)")
    parser.add_argument("--shard", default="1/1",
                        help="K/N: run every N-th mutant from the K-th (hosts split a run)")
    parser.add_argument("--test-timeout", type=int, default=60,
                        help="CPU seconds per test process (wall: 10x)")
    parser.add_argument("--mutant-timeout", type=int, default=600,
                        help="CPU seconds of a mutant's pytest process (wall: 10x)")
    parser.add_argument("--json", help="append every mutant and its outcome here, a line each; "
                        "mutants already in the file are not run again (a run resumes)")
    parser.add_argument("--recheck", action="store_true",
                        help="run the survivors in --json again (after --no-pytest, or new tests)")
    parser.add_argument("--stop-after", type=float, metavar="SECONDS",
                        help="end the run by then (wall, from its start): no mutant starts in "
                        "the last minute, one still running at the end is left for the next "
                        "run (with --json, which resumes)")
    parser.add_argument("--baseline", metavar="JSON",
                        help="keep the baseline's coverage here and use it again while the "
                        "checkout and the tests are the same (a resumed run skips the baseline)")
    parser.add_argument("--report", nargs="*", metavar="JSON",
                        help="print the table of earlier --json files (shards), run nothing")
    args = parser.parse_args(argv)

    files = args.files or sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "lowering").glob("*.py")
        if p.name != "__init__.py"
    )
    if args.report:
        results = load_results(args.report)
        report(results, sorted({m.file for m in results}))
        return 0
    rng = random.Random(args.seed)
    plan: list[tuple[str, list[Mutant]]] = []
    shard, shards = (int(x) for x in args.shard.split("/"))
    begun = time.monotonic()
    end_by = begun + args.stop_after if args.stop_after else float("inf")
    done = {  # a runner error is run again
        _key(m) for m in (load_results([args.json]) if args.json else [])
        if m.outcome != "error" and not (args.recheck and m.outcome == "survived")
    }
    current: set[tuple] = set()  # the mutants of the files as they are now
    for rel in files:
        every = mutants_of(ROOT / rel)
        if args.lines:
            every = [m for m in every if m.line in args.lines]
        chosen = every if args.limit <= 0 or len(every) <= args.limit else sorted(
            rng.sample(every, args.limit), key=lambda m: m.start
        )
        chosen = [m for i, m in enumerate(chosen) if i % shards == shard - 1]
        current.update(_key(m) for m in chosen)
        todo = [m for m in chosen if _key(m) not in done]
        plan.append((rel, todo))
        print(f"{rel}: {len(todo)} of {len(every)} mutants"
              + (f" ({len(chosen) - len(todo)} done before)" if len(todo) < len(chosen) else ""),
              flush=True)
    if args.list:
        for rel, chosen in plan:
            for m in chosen:
                print(f"{m.file}:{m.line} {m.kind}: {m.before!r} -> {m.after!r}")
        return 0

    tests = {rel: (lit_tests(rel), [] if args.no_pytest else pytest_files(rel)) for rel, _ in plan}
    common = {"test_timeout": args.test_timeout, "mutant_timeout": args.mutant_timeout}
    # A stopped run (SIGTERM) still ends its workers and removes its copies.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    work = Path(tempfile.mkdtemp(prefix="ti-mutation-"))
    workers: list[Worker] = []
    try:
        workers = [Worker(work / f"job{i}", wait=False) for i in range(max(1, args.jobs))]
        for worker in workers:
            worker.wait_ready()
        every_lit = sorted({t for lit, _ in tests.values() for t in lit})
        every_pytest = sorted({t for _, pytest in tests.values() for t in pytest})
        fingerprint = _fingerprint([every_lit, every_pytest])
        coverage = _saved_coverage(args.baseline, fingerprint)
        if coverage is None:
            coverage = _baseline(workers, every_lit, every_pytest, common, end_by)
            if coverage is None:
                return 1
            if args.baseline:
                Path(args.baseline).write_text(
                    json.dumps({"fingerprint": fingerprint, "coverage": coverage}))
        else:
            print(f"baseline: the coverage of {args.baseline} (same checkout and tests)",
                  flush=True)

        jobs, unrun = [], []
        for rel, chosen in plan:
            lit, pytest = tests[rel]
            # a function called on import (a table built from it) runs in every test
            inside = body_lines(ROOT / rel) - set(workers[0].imported.get(rel, ()))
            source = (ROOT / rel).read_text()
            for m in chosen:
                job = {**common, "file": m.file, "start": m.start, "end": m.end,
                       "after": m.after, "number": len(jobs) + 1,
                       "lit": covering(m, source, lit, coverage, inside),
                       "pytest": covering(m, source, pytest, coverage, inside,
                                            lambda f: "pytest:" + f),
                       "own_prefixes": _own_prefixes(rel), "mutant": m}
                job["mutant_timeout"] = _pytest_limit(job["pytest"], coverage, args.mutant_timeout)
                if job["lit"] or job["pytest"]:
                    jobs.append(job)
                else:
                    unrun.append(job)
        results: list[Mutant] = []
        sink = open(args.json, "a") if args.json else None
        started = time.perf_counter()

        def done_one(job: dict, answer: dict) -> None:
            m = job["mutant"]
            m.outcome, m.seconds, m.cpu = answer["outcome"], answer["seconds"], answer.get("cpu", 0)
            m.note = answer.get("note", "")
            if m.outcome in KILLS:
                m.why = answer.get("output", "").strip().partition("\n")[0][:300]
            results.append(m)
            print(f"   {m.outcome:14} {m.file}:{m.line} {m.kind}: "
                  f"{m.before!r} -> {m.after!r} ({m.seconds}s, {m.cpu} CPU s)", flush=True)
            if m.outcome == "error":
                print(answer["output"], flush=True)
            if sink is not None:
                sink.write(json.dumps(asdict(m)) + "\n")
                sink.flush()

        for job in unrun:
            done_one(job, {"outcome": "survived", "seconds": 0, "note": "no test runs it"})
        run_jobs(workers, jobs, done_one, start_by=end_by - 60, end_by=end_by)
        if len(results) < len(jobs) + len(unrun):
            print(f"\nstopped by --stop-after {args.stop_after:.0f}: "
                  f"{len(jobs) + len(unrun) - len(results)} mutants left for the next run",
                  flush=True)
        if sink is not None:
            sink.close()
        minutes = (time.perf_counter() - started) / 60
        if results:
            print(f"\n{len(results)} mutants in {minutes:.1f} min: "
                  f"{len(results) / max(minutes, 1e-9):.1f} mutants/minute with {len(workers)} jobs")
    finally:
        with LOCK:
            STOP.set()  # a worker ended here is no mutant's outcome
        for worker in workers:
            worker.close()
        shutil.rmtree(work, ignore_errors=True)
    # --json may hold mutants of an older version of a file: only today's are counted
    every = [m for m in load_results([args.json]) if _key(m) in current] if args.json else results
    report(every, [rel for rel, _ in plan])
    return 0


if __name__ == "__main__":
    sys.exit(main())
