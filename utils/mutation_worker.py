"""
The in-process runner of `utils/mutation.py`: a worker that pays the imports once and
forks for every mutant.

    python -m taichi_xdsl.utils.mutation_worker   # started by mutation.py, one per --jobs

The worker runs with PYTHONPATH on a copy of the checkout (its own copy: two workers
never share one) and imports xDSL, `filecheck` and every module of the package once.
For each mutant (one JSON line on stdin) it writes the mutated file into its copy, then
forks a child that re-imports the mutated module and the modules that import it at
module level, and runs the lit tests of the mutant's file there:

- each RUN line is read as lit's internal shell reads it (`|`, `&&`, `not`, `env`,
  `2>&1`, `> file`, lit's substitutions and `REQUIRES: spirv-tools`);
- `ti-opt`, `filecheck` and `%python` (a script, `-m module` or `-c code`) run in a
  process forked from the child: the same code as `python -m ...`, without the interpreter
  start and the imports (a second of CPU each); anything else (`spirv-val`, `rm`)
  runs as a subprocess;
- every stage gets `cpu_seconds` of CPU (RLIMIT_CPU) and ten times that in wall time
  (SIGALRM), as before, so a mutant that spins is a `timeout`.

The pytest stage (for the mutants that every lit test lets through) runs as a subprocess
on the worker's copy, as before. The answer is one JSON line on the worker's stdout:
{"outcome": "killed-lit" | "killed-pytest" | "timeout" | "survived", "output": ...}.
"""

from __future__ import annotations

import ast
import importlib
import io
import json
import os
import pkgutil
import re
import resource
import runpy
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path

WALL_FACTOR = 10  # a stage may run this many times its CPU limit in wall time
TIMEOUT_SIGNALS = {signal.SIGXCPU, signal.SIGKILL, signal.SIGALRM}


# -- preloading and re-importing -----------------------------------------------------------


def preload(package: str = "taichi_xdsl") -> None:
    """Import every module of the package (tests and examples aside) and the tools."""
    import filecheck.main  # noqa: F401
    import xdsl.xdsl_opt_main  # noqa: F401

    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        name = info.name
        if any(part in name.split(".") for part in ("test", "examples", "bench")):
            continue
        if name.endswith("__main__"):
            continue
        try:
            importlib.import_module(name)
        except Exception:  # an optional dependency missing: imported on use, as before
            pass


def _module_level_imports(module_name: str, path: str, in_functions: bool = False) -> set[str]:
    """The modules that `path` imports outside its functions (or anywhere), each
    `from a import b` as both `a` and `a.b` (b may be a module)."""
    tree = ast.parse(Path(path).read_text())
    package = module_name if path.endswith("__init__.py") else module_name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            if not in_functions:
                return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph(package: str = "taichi_xdsl") -> dict[str, set[str]]:
    """For each loaded module of the package, the modules it imports at module level."""
    graph: dict[str, set[str]] = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if (name == package or name.startswith(package + ".")) and path and path.endswith(".py"):
            graph[name] = _module_level_imports(name, path)
    return graph


def importers_of(target: str, graph: dict[str, set[str]]) -> list[str]:
    """`target` and every module of `graph` that imports it, transitively."""
    chosen = {target}
    changed = True
    while changed:
        changed = False
        for name, imports in graph.items():
            if name not in chosen and imports & chosen:
                chosen.add(name)
                changed = True
    return sorted(chosen)


def reimport(names: list[str]) -> None:
    """Forget `names` and import them again from the (mutated) files."""
    for name in names:
        sys.modules.pop(name, None)
    importlib.invalidate_caches()
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # the mutant breaks the import: each test meets it as it would
            sys.modules.pop(name, None)


# -- which lines each test runs (the baseline's coverage) ---------------------------------

TRACED: set[tuple[str, int]] = set()  # (file relative to the copy, line)
_TRACED_MODULES = ("taichi_xdsl.lowering.", "taichi_xdsl.dialects.")


def start_trace(root: Path, parts: tuple[str, ...] = ("lowering", "dialects")) -> None:
    """Record every line that runs in root/lowering and root/dialects, in every thread."""
    prefixes = tuple(f"{root}/{part}/" for part in parts)
    cut = len(str(root)) + 1

    def local(frame, event, arg):
        if event == "line":
            TRACED.add((frame.f_code.co_filename[cut:], frame.f_lineno))
        return local

    def call(frame, event, arg):
        if frame.f_code.co_filename.startswith(prefixes):
            TRACED.add((frame.f_code.co_filename[cut:], frame.f_lineno))
            return local
        return None

    threading.settrace(call)
    sys.settrace(call)


def stop_trace() -> dict[str, list[int]]:
    """End the trace of start_trace; the lines it recorded, by file (then forgotten)."""
    sys.settrace(None)
    threading.settrace(None)  # pyright: ignore[reportArgumentType]
    lines: dict[str, set[int]] = {}
    for name, line in TRACED:
        lines.setdefault(name, set()).add(line)
    TRACED.clear()
    return {name: sorted(found) for name, found in sorted(lines.items())}


def write_trace(folder: Path) -> None:
    sys.settrace(None)
    lines = sorted(TRACED)
    (folder / f"trace-{os.getpid()}.json").write_text(json.dumps(lines))


def trace_process() -> None:
    """In a Python subprocess of a traced test (sitecustomize.py of the worker's folder)."""
    import atexit

    folder = Path(os.environ["TI_MUTATION_TRACE_DIR"])
    start_trace(Path(os.environ["TI_MUTATION_COPY"]))
    atexit.register(write_trace, folder)


def read_traces(folder: Path) -> dict[str, list[int]]:
    """The lines of every trace file in `folder`, by file; the files are removed."""
    lines: dict[str, set[int]] = {}
    for path in folder.glob("trace-*.json"):
        for name, line in json.loads(path.read_text()):
            lines.setdefault(name, set()).add(line)
        path.unlink()
    return {name: sorted(found) for name, found in lines.items()}


SITECUSTOMIZE = """\
import os
if os.environ.get("TI_MUTATION_TRACE_DIR"):
    from taichi_xdsl.utils.mutation_worker import trace_process
    trace_process()
"""


# -- lit's RUN lines -----------------------------------------------------------------------


def run_lines(test: Path) -> tuple[list[str], list[str]]:
    """The RUN lines of a lit test (continuations joined) and its REQUIRES features."""
    lines: list[str] = []
    requires: list[str] = []
    for line in test.read_text().splitlines():
        if found := re.search(r"\bRUN:(.*)$", line):
            text = found.group(1).strip()
            if lines and lines[-1].endswith("\\"):
                lines[-1] = lines[-1][:-1].rstrip() + " " + text
            else:
                lines.append(text)
        elif found := re.search(r"\bREQUIRES:(.*)$", line):
            requires += [f.strip() for f in found.group(1).split(",") if f.strip()]
    return lines, requires


def substitute(line: str, test: Path, tmp: Path) -> str:
    """lit's substitutions (test/lit.cfg.py), ti-opt and filecheck left as tool names."""
    line = line.replace("%s", str(test)).replace("%S", str(test.parent))
    return line.replace("%t", str(tmp / (test.name + ".tmp")))  # %python: run_stage


def parse(line: str) -> list[list[dict]]:
    """A RUN line as `&&`-separated pipelines of stages {argv, not, env, merge, out}."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|&<>")
    lexer.whitespace_split = True
    tokens = list(lexer)
    sequence: list[list[dict]] = [[]]
    stage: dict = {"argv": [], "not": 0, "env": {}, "merge": False, "out": None}
    i = 0

    def close() -> None:
        nonlocal stage
        sequence[-1].append(stage)
        stage = {"argv": [], "not": 0, "env": {}, "merge": False, "out": None}

    while i < len(tokens):
        token = tokens[i]
        if token == "|":
            close()
        elif token == "&&":
            close()
            sequence.append([])
        elif token == "2" and tokens[i + 1 : i + 3] == [">&", "1"]:
            stage["merge"] = True
            i += 2
        elif token == ">":
            stage["out"] = tokens[i + 1]
            i += 1
        elif token in ("|&", "||", ";", "<", ">>", "&"):
            raise ValueError(f"RUN line not understood: {line}")
        elif not stage["argv"] and token == "not":
            stage["not"] += 1
        elif not stage["argv"] and token == "env":
            i += 1
            while i < len(tokens) and re.fullmatch(r"\w+=.*", tokens[i]):
                key, value = tokens[i].split("=", 1)
                stage["env"][key] = value
                i += 1
            continue
        else:
            stage["argv"].append(token)
        i += 1
    close()
    return sequence


def _limit(cpu_seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))


def _in_process(argv: list[str]) -> int:
    """Run one tool in this (forked) process, as `python -m tool argv` would."""
    tool, args = argv[0], argv[1:]
    if tool == "ti-opt":
        from taichi_xdsl.utils.ti_opt import main

        return main(args)
    if tool == "filecheck":
        from filecheck.main import main

        main(["filecheck", "--enable-var-scope", *args])
        return 0
    assert tool == "%python"
    if args[0] == "-m":
        sys.argv = [args[1], *args[2:]]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    elif args[0] == "-c":
        sys.argv = ["-c", *args[2:]]
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = list(args)
        sys.path.insert(0, str(Path(args[0]).parent))
        runpy.run_path(args[0], run_name="__main__")
    return 0


def run_stage(
    stage: dict, stdin: bytes, tmp: Path, cpu_seconds: int
) -> tuple[int, bytes, bytes, bool]:
    """(status, stdout, stderr, timed out) of one stage of a pipeline (stderr is in
    stdout under `2>&1`)."""
    argv = stage["argv"]
    env = dict(os.environ, **stage["env"])
    if argv[0] not in ("ti-opt", "filecheck", "%python"):
        try:
            result = subprocess.run(
                argv, input=stdin, env=env, capture_output=True,
                timeout=WALL_FACTOR * cpu_seconds, preexec_fn=lambda: _limit(cpu_seconds),
            )
        except subprocess.TimeoutExpired:
            return 1, b"", b"", True
        except OSError as error:
            return 127, b"", str(error).encode(), False
        if -result.returncode in TIMEOUT_SIGNALS:
            return 1, b"", b"", True
        out = result.stdout + (result.stderr if stage["merge"] else b"")
        return result.returncode, out, (b"" if stage["merge"] else result.stderr), False

    files = [tempfile.TemporaryFile(dir=tmp) for _ in range(3)]
    files[0].write(stdin)
    files[0].seek(0)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the stage
        code = 1
        try:
            os.dup2(files[0].fileno(), 0)
            os.dup2(files[1].fileno(), 1)
            os.dup2(files[1 if stage["merge"] else 2].fileno(), 2)
            sys.stdin = io.TextIOWrapper(open(0, "rb", closefd=False))
            sys.stdout = io.TextIOWrapper(open(1, "wb", buffering=0, closefd=False),
                                          write_through=True)
            sys.stderr = io.TextIOWrapper(open(2, "wb", buffering=0, closefd=False),
                                          write_through=True)
            os.environ.update(stage["env"])
            if "TI_MUTATION_TRACE_DIR" in os.environ:
                start_trace(Path(os.environ["TI_MUTATION_COPY"]))
            _limit(cpu_seconds)
            signal.alarm(WALL_FACTOR * cpu_seconds)
            try:
                code = _in_process(argv)
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            if "TI_MUTATION_TRACE_DIR" in os.environ:
                write_trace(Path(os.environ["TI_MUTATION_TRACE_DIR"]))
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    files[1].seek(0)
    out = files[1].read()
    if not stage["merge"]:
        files[2].seek(0)
        err = files[2].read()
    else:
        err = b""
    for f in files:
        f.close()
    if os.WIFSIGNALED(status):
        return 1, out, err, os.WTERMSIG(status) in TIMEOUT_SIGNALS
    return os.WEXITSTATUS(status), out, err, False


def run_test(test: Path, tmp: Path, cpu_seconds: int) -> tuple[str, str]:
    """("pass" | "fail" | "timeout", output) of one lit test, every RUN line in turn."""
    lines, requires = run_lines(test)
    if "spirv-tools" in requires and not shutil.which("spirv-val"):
        return "pass", ""  # lit: UNSUPPORTED
    for line in lines:
        for pipeline in parse(substitute(line, test, tmp)):
            data, failed, errors = b"", False, b""
            for stage in pipeline:
                code, data, err, timed_out = run_stage(stage, data, tmp, cpu_seconds)
                if timed_out:
                    return "timeout", f"{line}: timeout"
                if stage["not"] % 2:
                    code = 0 if code else 1
                if stage["out"] is not None:
                    Path(stage["out"]).write_bytes(data)
                    data = b""
                if code:
                    failed, errors = True, errors + err  # lit's pipefail
            if failed:
                text = (data + errors).decode(errors="replace")[-3000:]
                return "fail", f"{test}: {line}\n{text}"
    return "pass", ""


# -- the worker ----------------------------------------------------------------------------


def _pytest(pkg: Path, job: dict, trace: Path | None) -> tuple[str, str]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
           "-p", "no:xdist", f"--timeout={WALL_FACTOR * job['test_timeout']}",
           *[str(pkg / "test" / "python" / f) for f in job["pytest"]]]
    env = dict(os.environ)
    if trace is not None:
        env["TI_MUTATION_TRACE_DIR"] = str(trace)
    seconds = job["mutant_timeout"]
    try:
        result = subprocess.run(
            cmd, cwd=pkg, env=env, capture_output=True, text=True,
            timeout=WALL_FACTOR * seconds, preexec_fn=lambda: _limit(seconds),
        )
    except subprocess.TimeoutExpired:
        return "timeout", ""
    if -result.returncode in TIMEOUT_SIGNALS:
        return "timeout", ""
    output = result.stdout[-3000:] + result.stderr[-3000:]
    return ("pass" if result.returncode == 0 else "fail"), output


GRAPH: dict[str, set[str]] = {}


def run_mutant(pkg: Path, job: dict) -> dict:
    """
    Apply one mutant in the copy `pkg`, run its tests, put the file back. A job without a
    mutant (`after` None) is a baseline: with `trace`, the answer holds the lines that
    each test ran ("coverage": {test: {file: [line, ...]}}, pytest files as "pytest:NAME").
    """
    path = pkg / job["file"] if job["file"] else None
    original = path.read_text() if path is not None else None
    stamp = path.stat().st_mtime_ns if path is not None else 0
    coverage: dict[str, dict[str, list[int]]] = {}
    try:
        module = None
        if path is not None:
            source = original[: job["start"]] + job["after"] + original[job["end"] :]
            path.write_text(source)
            # A .pyc is valid for a source of the same size and mtime: each mutant gets its
            # own mtime, so none runs another's bytecode.
            os.utime(path, ns=(stamp, stamp + job["number"] * 10**9))
            module = "taichi_xdsl." + job["file"].removesuffix(".py").removesuffix("/__init__")
            module = module.replace("/", ".")
        outcome, output = "pass", ""
        if job["lit"]:
            outcome, output, coverage = _lit_in_child(pkg, job, module)
        if outcome == "pass" and job["pytest"]:
            trace = Path(tempfile.mkdtemp(prefix="trace-")) if job.get("trace") else None
            outcome, output = _pytest(pkg, job, trace)
            if trace is not None:
                coverage["pytest:" + " ".join(job["pytest"])] = read_traces(trace)
                shutil.rmtree(trace, ignore_errors=True)
            outcome = {"pass": "survived", "fail": "killed-pytest"}.get(outcome, outcome)
        else:
            outcome = {"pass": "survived", "fail": "killed-lit"}.get(outcome, outcome)
        return {"outcome": outcome, "output": output, "coverage": coverage}
    finally:
        if path is not None:
            path.write_text(original)  # pyright: ignore
            os.utime(path, ns=(stamp, stamp))


def _lit_in_child(pkg: Path, job: dict, module: str | None) -> tuple[str, str, dict]:
    """Run the lit tests of a mutant in a forked child of this (clean) worker."""
    tmp = Path(tempfile.mkdtemp(prefix="lit-"))
    report = tmp / "report.json"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            if module is not None:
                reimport(importers_of(module, GRAPH))
            result, coverage = ("pass", ""), {}
            own = [t for t in job["lit"] if Path(t).stem.startswith(tuple(job["own_prefixes"]))]
            for test in own + [t for t in job["lit"] if t not in own]:
                if job.get("trace"):
                    trace = tmp / "trace"
                    trace.mkdir(exist_ok=True)
                    os.environ["TI_MUTATION_TRACE_DIR"] = str(trace)
                result = run_test(pkg / "test" / test, tmp, job["test_timeout"])
                if job.get("trace"):
                    coverage[test] = read_traces(tmp / "trace")
                if result[0] != "pass":
                    break
            report.write_text(json.dumps([*result, coverage]))
            code = 0
        except BaseException:
            report.write_text(json.dumps(["fail", traceback.format_exc(), {}]))
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    try:
        outcome, output, coverage = json.loads(report.read_text())
    except (OSError, ValueError):
        outcome, output, coverage = "fail", f"the test child ended with status {status}", {}
    shutil.rmtree(tmp, ignore_errors=True)
    return outcome, output, coverage


def main() -> int:
    pkg = Path(os.environ["TI_MUTATION_COPY"])
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # what the package prints on import goes to stderr, not to the protocol
    sys.stdout = sys.stderr
    # The lines that run on import (module code, and the functions it calls: tables built
    # at import) run in every test: a mutant there is run by every test, whatever the
    # tests' traces say (they start after the imports).
    loaded = [name for name in sys.modules if name.startswith(_TRACED_MODULES)]
    start_trace(pkg)
    reimport(loaded)  # none, unless an import of the worker's own pulled one in
    preload()
    imported = stop_trace()
    GRAPH.update(import_graph())  # once: the children inherit it
    import taichi_xdsl

    (pkg.parent / "sitecustomize.py").write_text(SITECUSTOMIZE)  # traces Python subprocesses
    if Path(taichi_xdsl.__file__).resolve().parent != pkg.resolve():
        print(f"the worker imports {taichi_xdsl.__file__}, not the copy {pkg}", file=sys.stderr)
        return 1
    protocol.write(json.dumps({"ready": True, "imported": imported}) + "\n")
    for line in sys.stdin:
        job = json.loads(line)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            answer = run_mutant(pkg, job)
        except Exception:
            answer = {"outcome": "error", "output": traceback.format_exc()}
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # the CPU seconds of the mutant's processes (a 16-core host runs 16 such at once)
        answer["cpu"] = round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1)
        protocol.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
