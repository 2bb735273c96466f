"""The ti-opt mutation fuzzer (utils/fuzz_ti_opt.py): its parts, and a short run."""

from __future__ import annotations

import random

from taichi_xdsl.utils import fuzz_ti_opt as fuzz


def test_passes_of_reads_ti_opt_and_xdsl_opt_run_lines():
    text = "// RUN: xdsl-opt %s -p canonicalize | filecheck %s\n// RUN: ti-opt %s -p 'a{x=1},b'\n"
    assert fuzz.passes_of(text) == ["canonicalize", "a{x=1},b"]
    assert fuzz.passes_of("func.func @f() {}") == [""]


def test_mutate_is_seeded():
    text = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  func.return %0 : i32\n}\n"
    a = [fuzz.mutate(text, random.Random(f"1:{i}")) for i in range(20)]
    b = [fuzz.mutate(text, random.Random(f"1:{i}")) for i in range(20)]
    assert a == b and len(set(a)) > 10


def test_classify():
    assert fuzz.classify(None, "") == "hang"
    assert fuzz.classify(-11, "") == "crash"
    assert fuzz.classify(0, "") == "ok"
    assert fuzz.classify(1, "f.mlir:3:5: error: bad") == "located"
    assert fuzz.classify(1, "ti-opt: error: bad") == "unlocated"
    assert fuzz.classify(2, "ti-opt: internal error: KeyError") == "internal"
    assert fuzz.classify(1, "ti-opt: error: Unrecognized passes: ['x']") == "no-pass"
    assert fuzz.classify(1, "ti-opt: error in pass 'apply-eqsat-pdl' (x): mlir-opt is not available") == "no-pass"


def test_short_run_has_no_internal_error(tmp_path, capsys):
    (tmp_path / "t.mlir").write_text(
        "// RUN: ti-opt %s -p canonicalize\n"
        "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n"
        "  func.return %0 : i32\n}\n"
    )
    assert fuzz.main(["--runs", "6", "--seed", "3", str(tmp_path)]) == 0
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert "6 runs" in summary and "internal 0" in summary and "hang 0" in summary
