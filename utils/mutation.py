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
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
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
    ("lowering/convert_arith_to_spirv.py", ["test_vulkan_backend.py", "test_lowering_regressions.py"]),
    ("lowering/convert_offload_to_spirv.py", ["test_vulkan_backend.py", "test_reductions.py"]),
    ("lowering/convert_taichi_to_spirv.py", ["test_vulkan_backend.py", "test_lowering_regressions.py"]),
    ("lowering/convert_", ["test_offload_to_llvm.py", "test_lowering_regressions.py"]),
    ("lowering/spirv_", ["test_vulkan_backend.py", "test_reductions.py"]),
    ("lowering/auto_diff.py", ["test_autodiff.py"]),
    ("lowering/", ["test_reductions.py", "test_lowering_regressions.py", "test_e2e_programs.py"]),
    ("dialects/spirv", ["test_spirv_serializer.py", "test_vulkan_backend.py"]),
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
    seconds: float = 0.0

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


# -- choosing the tests of a file ---------------------------------------------------------


def _pass_names(rel: str) -> set[str]:
    """The registered passes defined in `rel` or in a lowering module importing it."""
    from taichi_xdsl.utils import registry

    module = "taichi_xdsl." + rel.removesuffix(".py").replace("/", ".")
    users = {module}
    changed = True
    while changed:  # modules that import one of `users`, transitively
        changed = False
        for path in sorted((ROOT / "lowering").glob("*.py")):
            name = "taichi_xdsl.lowering." + path.stem
            if name not in users and any(u in path.read_text() for u in users):
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
        if path.suffix not in (".mlir", ".py") or "python" in path.parts or "Inputs" in path.parts:
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


def _copy_checkout(dest: Path) -> Path:
    """The tracked files of the checkout (as they are now) under dest/taichi_xdsl."""
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.split()
    pkg = dest / "taichi_xdsl"
    for name in files:
        src = ROOT / name
        if src.is_file():
            (pkg / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, pkg / name)
    return pkg


LAST_OUTPUT = [""]  # the output of the last failed test command

# On a loaded machine wall time says little (a test that takes 7 CPU seconds can take 70
# wall seconds), so limits count CPU seconds: every process a test command starts may use
# `cpu_seconds` of CPU (RLIMIT_CPU, inherited: each ti-opt or test process has its own),
# and the command may run WALL_FACTOR times that in wall time, for a test that sleeps.
WALL_FACTOR = 10


def _run(cmd: list[str], cwd: Path, env: dict[str, str], cpu_seconds: int) -> str:
    import resource
    import signal

    def limit_cpu() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))

    try:
        result = subprocess.run(
            cmd, cwd=cwd, env=env, capture_output=True, text=True,
            timeout=WALL_FACTOR * cpu_seconds, preexec_fn=limit_cpu,
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    if result.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "timeout"
    if result.returncode != 0:
        LAST_OUTPUT[0] = result.stdout[-3000:] + result.stderr[-3000:]
    return "pass" if result.returncode == 0 else "fail"


def run_tests(pkg: Path, env: dict[str, str], lit: list[str], pytest: list[str], args) -> str:
    """'survived', or how the tests killed the mutant."""
    # The file's own pass tests first: most mutants die there, in a few seconds.
    own = [t for t in lit if Path(t).stem.startswith(tuple(args.own_prefixes))]
    for stage in (own, [t for t in lit if t not in own]):
        if not stage:
            continue
        outcome = _run(
            [sys.executable, "-c", "from lit.main import main; main()", "-q",
             "--max-failures=1", f"--timeout={WALL_FACTOR * args.test_timeout}",
             *[str(pkg / "test" / t) for t in stage]],
            pkg, env, args.test_timeout,
        )
        if outcome != "pass":
            return "timeout" if outcome == "timeout" else "killed-lit"
    if pytest:
        outcome = _run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
             "-p", "no:xdist", f"--timeout={WALL_FACTOR * args.test_timeout}",
             *[str(pkg / "test" / "python" / t) for t in pytest]],
            pkg, env, args.mutant_timeout,
        )
        if outcome != "pass":
            return "timeout" if outcome == "timeout" else "killed-pytest"
    return "survived"


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
    parser.add_argument("--test-timeout", type=int, default=60,
                        help="CPU seconds per test process (wall: 10x)")
    parser.add_argument("--mutant-timeout", type=int, default=600,
                        help="CPU seconds of a mutant's pytest process (wall: 10x)")
    parser.add_argument("--json", help="write every mutant and its outcome here")
    args = parser.parse_args(argv)

    files = args.files or sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "lowering").glob("*.py")
        if p.name != "__init__.py"
    )
    rng = random.Random(args.seed)
    plan: list[tuple[str, list[Mutant]]] = []
    for rel in files:
        every = mutants_of(ROOT / rel)
        if args.lines:
            every = [m for m in every if m.line in args.lines]
        chosen = every if args.limit <= 0 or len(every) <= args.limit else sorted(
            rng.sample(every, args.limit), key=lambda m: m.start
        )
        plan.append((rel, chosen))
        print(f"{rel}: {len(chosen)} of {len(every)} mutants", flush=True)
    if args.list:
        for rel, chosen in plan:
            for m in chosen:
                print(f"{m.file}:{m.line} {m.kind}: {m.before!r} -> {m.after!r}")
        return 0

    work = Path(tempfile.mkdtemp(prefix="ti-mutation-"))
    try:
        pkg = _copy_checkout(work)
        env = dict(os.environ)
        env.update(
            PYTHONPATH=str(work),  # the copy, ahead of the editable install
            TI_OFFLINE_CACHE="0",
            XDG_CACHE_HOME=str(work / "cache"),
        )
        tests = {
            rel: (lit_tests(rel), [] if args.no_pytest else pytest_files(rel))
            for rel, _ in plan
        }
        # Once, unmutated: every test that a mutant will run must pass.
        every_lit = sorted({t for lit, _ in tests.values() for t in lit})
        every_pytest = sorted({t for _, pytest in tests.values() for t in pytest})
        args.own_prefixes = ["-"]
        if run_tests(pkg, env, every_lit, every_pytest, args) != "survived":
            print(f"the unmutated tests fail:\n{LAST_OUTPUT[0]}")
            return 1
        results: list[Mutant] = []
        for rel, chosen in plan:
            lit, pytest = tests[rel]
            print(f"== {rel}: lit {len(lit)} files, pytest {' '.join(pytest) or '-'}", flush=True)
            original = (pkg / rel).read_text()
            stamp = (pkg / rel).stat().st_mtime_ns
            args.own_prefixes = _own_prefixes(rel)
            for number, m in enumerate(chosen, 1):
                # A .pyc is valid for a source of the same size and mtime: each mutant
                # gets its own mtime, so none runs another's bytecode.
                (pkg / rel).write_text(m.apply(original))
                os.utime(pkg / rel, ns=(stamp, stamp + number * 10**9))
                start = time.perf_counter()
                try:
                    m.outcome = run_tests(pkg, env, lit, pytest, args)
                finally:
                    (pkg / rel).write_text(original)
                    os.utime(pkg / rel, ns=(stamp, stamp))
                m.seconds = round(time.perf_counter() - start, 1)
                results.append(m)
                print(f"   {m.outcome:14} {m.file}:{m.line} {m.kind}: "
                      f"{m.before!r} -> {m.after!r} ({m.seconds}s)", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("\nfile                                   killed / mutants")
    total = killed = 0
    for rel, _ in plan:
        mine = [m for m in results if m.file == rel]
        if not mine:
            continue
        k = sum(m.outcome != "survived" for m in mine)
        total, killed = total + len(mine), killed + k
        print(f"{rel:40} {k:3} / {len(mine):3}  {100 * k / len(mine):5.1f}%")
    if total:
        print(f"{'all':40} {killed:3} / {total:3}  {100 * killed / total:5.1f}%")
    survivors = [m for m in results if m.outcome == "survived"]
    for m in survivors:
        print(f"SURVIVED {m.file}:{m.line} {m.kind}: {m.before!r} -> {m.after!r}")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(m) for m in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
