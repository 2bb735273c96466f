"""The mutation check's in-process lit runner (utils/mutation_worker.py) and its mutants."""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

from taichi_xdsl.utils import mutation, mutation_worker as worker

PASSING = """\
// RUN: ti-opt %s -p canonicalize | filecheck %s
// RUN: not ti-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=ERR
func.func @f(%a: i32) -> i32 {
  %z = arith.constant 0 : i32
  %0 = arith.addi %a, %z : i32
  func.return %0 : i32
}
// CHECK:     func.func @f(%[[A:.*]]: i32) -> i32 {
// CHECK-NEXT:  func.return %[[A]] : i32
// ERR: no-such-pass
"""


def test_parse_reads_lits_shell():
    [[first, second]] = worker.parse("not ti-opt x.mlir -p 'a{b=\"c+d\"}' 2>&1 | filecheck x.mlir")
    assert first["argv"] == ["ti-opt", "x.mlir", "-p", 'a{b="c+d"}']
    assert first["not"] == 1 and first["merge"] and second["argv"] == ["filecheck", "x.mlir"]
    [[make], [run]] = worker.parse("rm -rf /t && env COLUMNS=9 ti-opt --help > /t/o")
    assert make["argv"] == ["rm", "-rf", "/t"]
    assert run["env"] == {"COLUMNS": "9"} and run["argv"] == ["ti-opt", "--help"]
    assert run["out"] == "/t/o"


def test_run_test_passes_and_fails_as_lit_would(tmp_path):
    test = tmp_path / "t.mlir"
    test.write_text(PASSING)
    assert worker.run_test(test, tmp_path, 60) == ("pass", "")
    # canonicalize no longer folds x + 0: the CHECK-NEXT fails
    test.write_text(PASSING.replace("-p canonicalize", "-p cse"))
    outcome, output = worker.run_test(test, tmp_path, 60)
    assert outcome == "fail" and "func.return %0" in output  # FileCheck's report
    # `not` of a command that succeeds fails the line
    test.write_text(PASSING.replace("not ti-opt %s -p no-such-pass", "not ti-opt %s"))
    assert worker.run_test(test, tmp_path, 60)[0] == "fail"


def test_a_stage_that_spins_is_a_timeout(tmp_path):
    test = tmp_path / "t.py"
    test.write_text("# RUN: %python -c 'while True: pass'\n")
    assert worker.run_test(test, tmp_path, 1)[0] == "timeout"


def test_importers_of_follows_module_level_imports_only():
    graph = {"p.a": set(), "p.b": {"p.a"}, "p.c": {"p.b"}, "p.d": set()}
    assert worker.importers_of("p.a", graph) == ["p.a", "p.b", "p.c"]
    source = Path(worker.__file__).read_text()
    imports = worker._module_level_imports("taichi_xdsl.utils.mutation_worker", worker.__file__)
    assert "runpy" in imports and "taichi_xdsl.utils.ti_opt" not in imports  # imported in a def
    assert "from taichi_xdsl.utils.ti_opt import main" in source


def test_mutants_of_a_file_apply_cleanly(tmp_path):
    path = Path(mutation.ROOT) / "lowering" / "mem2reg.py"
    source = path.read_text()
    every = mutation.mutants_of(path)
    assert len(every) > 20
    for m in every:
        assert source[m.start : m.end] == m.before
        compile(m.apply(source), str(path), "exec")  # each mutant is valid Python


def test_operands_of_commutative_calls_are_not_swapped(tmp_path, monkeypatch):
    """Swapping the operands of `max`, `b.add` or `arith.AddfOp` means the same: an
    equivalent mutant. A non-commutative call (`sub`, `SDivOp`) is still swapped."""
    path = tmp_path / "m.py"
    path.write_text(
        "def f(b, arith, x, y):\n"
        "    s = b.add(x, y)\n"
        "    m = max(x, y)\n"
        "    o = arith.AddfOp(x, y)\n"
        "    d = b.sub(x, y)\n"
        "    q = arith.DivSIOp(x, y)\n"
        "    return s, m, o, d, q\n"
    )
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    swapped = {m.line for m in mutation.mutants_of(path) if m.kind == "operands"}
    assert swapped == {5, 6}


def test_covering_keeps_the_tests_that_run_the_line(tmp_path):
    path = tmp_path / "m.py"
    source = "LIMIT = 3\n\n\ndef f(x):\n    if x > LIMIT:\n        return 1\n    return 0\n"
    path.write_text(source)
    inside = mutation.body_lines(path)
    assert inside == {5, 6, 7}
    coverage = {"a.mlir": {"m.py": [5, 7]}, "b.mlir": {"m.py": [7]}, "c.mlir": {}}
    tests = ["a.mlir", "b.mlir", "c.mlir"]

    def mutant(before: str, after: str) -> mutation.Mutant:
        start = source.index(before)
        line = source.count("\n", 0, start) + 1
        return mutation.Mutant("m.py", line, "k", before, after, start, start + len(before))

    assert mutation.covering(mutant(">", ">="), source, tests, coverage, inside) == ["a.mlir"]
    assert mutation.covering(mutant("return 1", "pass"), source, tests, coverage, inside) == []
    # on import: every test runs it
    assert mutation.covering(mutant("3", "4"), source, tests, coverage, inside) == tests


def test_a_function_called_on_import_is_run_by_every_test(tmp_path):
    # expand_f64_math builds its constants on import (_split, _pio2_parts): the tests'
    # traces start after the imports, so without the import's own trace every mutant of
    # those functions "survived" with no test run.
    (tmp_path / "lowering").mkdir()
    path = tmp_path / "lowering" / "m.py"
    source = ("def table(n):\n    return [i * i for i in range(n)]\n\n\n"
              "def later(x):\n    return x + 1\n\n\nSQUARES = table(4)\n")
    path.write_text(source)
    outer = sys.gettrace()
    try:
        worker.start_trace(tmp_path)
        runpy.run_path(str(path))
        imported = worker.stop_trace()
    finally:
        sys.settrace(outer)
    assert 2 in imported["lowering/m.py"] and 6 not in imported["lowering/m.py"]
    inside = mutation.body_lines(path) - set(imported["lowering/m.py"])
    tests, coverage = ["a.mlir", "b.mlir"], {"a.mlir": {}, "b.mlir": {"lowering/m.py": [6]}}

    def mutant(before: str, after: str) -> mutation.Mutant:
        start = source.index(before)
        line = source.count("\n", 0, start) + 1
        return mutation.Mutant("lowering/m.py", line, "k", before, after, start,
                               start + len(before))

    assert mutation.covering(mutant("i * i", "i + i"), source, tests, coverage, inside) == tests
    assert mutation.covering(mutant("x + 1", "x - 1"), source, tests, coverage, inside) == [
        "b.mlir"]


def test_the_worker_reports_the_lines_its_imports_ran(tmp_path):
    rel = "lowering/expand_f64_math.py"
    source = (mutation.ROOT / rel).read_text().splitlines()
    split = 1 + next(i for i, t in enumerate(source) if "bits &= ~((1 << zero_bits)" in t)
    tanh = 1 + next(i for i, t in enumerate(source) if "small = b.cmp(\"olt\", a, b.c(0.55))" in t)
    one = mutation.Worker(tmp_path / "job")
    try:
        assert split in one.imported[rel]  # _split builds ln 2's parts on import
        assert tanh not in one.imported[rel]  # _tanh runs when a kernel needs it
    finally:
        one.close()


def test_every_pass_has_existing_end_to_end_files():
    for path in sorted((mutation.ROOT / "lowering").glob("*.py")):
        files = mutation.pytest_files(f"lowering/{path.name}")
        assert files and all((mutation.ROOT / "test" / "python" / f).exists() for f in files)
    assert mutation.pytest_files("lowering/expand_f64_math.py") == ["test_f64_math.py"]
    assert "test_autodiff.py" in mutation.pytest_files("lowering/auto_diff_forward.py")
    # the first prefix that matches wins: none may hide a later one
    prefixes = [prefix for prefix, _ in mutation.PYTEST_FILES]
    for i, prefix in enumerate(prefixes):
        assert not any(prefix.startswith(earlier) for earlier in prefixes[:i]), prefix


class _Sleeper:
    """A stand-in for mutation.Worker: each job takes `seconds`."""

    def __init__(self, seconds: float):
        self.seconds, self.closed = seconds, False

    def ask(self, job: dict) -> dict:
        time.sleep(self.seconds)
        return {"outcome": "survived" if not self.closed else "error"}

    def close(self) -> None:
        self.closed = True


def test_run_jobs_starts_nothing_late_and_drops_what_it_stops():
    done = []
    now = time.monotonic()
    mutation.run_jobs([_Sleeper(0.2)], [{"n": i} for i in range(20)],
                      lambda job, answer: done.append(job["n"]), start_by=now + 0.5)
    assert 1 <= len(done) <= 4 and done == list(range(len(done)))  # then it stopped
    done.clear()
    slow = _Sleeper(30)
    begun = time.monotonic()
    mutation.run_jobs([slow, _Sleeper(0.1)], [{"n": i} for i in range(3)],
                      lambda job, answer: done.append(job["n"]), end_by=begun + 1)
    # the fast worker did the other two; the slow one's job is neither done nor an error
    assert time.monotonic() - begun < 5 and slow.closed and sorted(done) == [1, 2]


def test_a_slow_pytest_file_gets_more_than_the_least_cpu():
    coverage = {"cpu:a.py": 100.0, "cpu:b.py": 10.0}
    assert mutation._pytest_limit(["a.py"], coverage, 120) == 200
    assert mutation._pytest_limit(["b.py"], coverage, 120) == 120
    assert mutation._pytest_limit([], coverage, 120) == 120


def test_a_dialect_is_tested_through_the_passes_that_build_its_ops():
    # lower_access builds llvm_ext.atomicrmw and cmpxchg; it imports the dialect as
    # `from taichi_xdsl.dialects import llvm_ext`, which a search for the module's dotted
    # name missed: the builders' mutants survived with "no test runs it"
    chosen = mutation.lit_tests("dialects/llvm_ext.py")
    assert "lowering/ti-lower-access.mlir" in chosen
    assert "dialects/llvm_ext/invalid.mlir" in chosen
