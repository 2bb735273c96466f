"""The mutation check's in-process lit runner (utils/mutation_worker.py) and its mutants."""

from __future__ import annotations

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
