"""
The differential tester (utils/difftest.py) on a fixed range of seeds, on cpu and on
vulkan, and the bugs it found, each as a minimal program checked against Taichi's answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils import difftest

# A fixed range that runs in well under a minute per arch on the project's VM; the long
# run is `python -m taichi_xdsl.utils.difftest --seeds 0:10000` (README, Testing).
SEEDS = range(0, 16)
# Seeds past the range that once failed, each with why: 3144 passes a Python int to a
# ti.func that shifts it past i32 (`p1 << 23`): a compile error before ti.func arguments
# were typed as Taichi types them.
REGRESSION_SEEDS = (3144,)


@pytest.mark.timeout(600)  # 17 programs, each compiled: past the suite's 120 s when loaded
def test_seed_range(arch, tmp_path):
    name = "vulkan" if arch is ti.vulkan else "cpu"
    difftest.init(ti, name)
    outcomes = [difftest.check(ti, seed, name, str(tmp_path))
                for seed in (*SEEDS, *REGRESSION_SEEDS)]
    bad = [o for o in outcomes if o.kind in ("mismatch", "error")]
    assert not bad, "\n".join(f"seed {o.seed}: {o.kind}: {o.detail}" for o in bad)
    assert sum(o.kind == "ok" for o in outcomes) >= len(SEEDS) // 5


def test_generator_is_deterministic():
    assert difftest.source(difftest.generate(5)) == difftest.source(difftest.generate(5))
    assert difftest.source(difftest.generate(5)) != difftest.source(difftest.generate(6))


def test_reference_follows_taichi_rules():
    assert difftest.promote("i32", "u32") == "u32"
    assert difftest.promote("i64", "u32") == "i64"
    assert difftest.promote("i64", "f32") == "f32"
    assert difftest.wrap(2**31, "i32") == -(2**31)
    assert difftest.wrap(-3, "u32") == 2**32 - 3
    assert difftest.promote("u8", "i16") == "i16"
    assert difftest.promote("i64", "u64") == "u64"
    assert difftest.wrap(300, "u8") == 44 and difftest.wrap(200, "i8") == -56

    def outputs(expr):
        p = difftest.generate(0)
        p.funcs, p.body = [], [("out", expr[1], "nd", 0, expr)]
        return difftest.reference(p)[f"out_{expr[1]}"][0, 0]

    def i32(v):
        return ("const", "i32", v)

    def arg(t):  # a run-time value: the scalar argument s_i
        return ("cast", t, ("arg", "i32", "s_i"))

    assert outputs(("bin", "i32", "//", i32(-7), i32(2))) == -4  # floor, not truncation
    # by zero: our defined result (lowering/guard_int_division.py), never skipped
    zero = ("bin", "i32", "-", arg("i32"), arg("i32"))
    assert outputs(("bin", "i32", "//", i32(7), zero)) == 0
    assert outputs(("bin", "i32", "//", i32(-7), zero)) == -1
    assert outputs(("bin", "i32", "%", i32(-7), zero)) == -7
    u_zero = ("bin", "u32", "-", arg("u32"), arg("u32"))
    assert outputs(("bin", "u32", "//", ("const", "u32", 7), u_zero)) == 2**32 - 1
    minus_one = ("bin", "i32", "-", zero, i32(1))
    assert outputs(("bin", "i32", "//", i32(-(2**31)), minus_one)) == -(2**31)
    assert outputs(("bin", "i32", "%", i32(-(2**31)), minus_one)) == 0
    with pytest.raises(difftest.Rejected):  # Python folds `7 // 0` itself: a compile error
        outputs(("bin", "i32", "//", i32(7), ("bin", "i32", "-", i32(3), i32(3))))


def test_known_issues_are_skipped_with_their_reason(monkeypatch):
    monkeypatch.setitem(difftest.KNOWN_ISSUES, "some-bug", ("issue 13: a bug", ("vulkan",)))
    p = difftest.generate(0)
    p.features = {"some-bug"}
    assert difftest.known_issue(p, "vulkan") == "some-bug"
    assert difftest.known_issue(p, "cpu") is None
    p.features = {"no-such-issue"}
    assert difftest.known_issue(p, "vulkan") is None
    for reason, archs in difftest.KNOWN_ISSUES.values():
        assert "issue 13" in reason and archs


def test_nearly_every_seed_is_a_test():
    # a rejected attempt (a tie, an out-of-range cast) is replaced by the seed's next one
    cases = [difftest.accepted(s) for s in range(40)]
    assert all(c is not None for c in cases)
    covered = set().union(*(difftest.coverage(p) for p, _ in cases))
    for item in ("ti.func with statements", "vectors", "atomic on ndarray i32",
                 "atomic (old value)", "field output", "type:u64", "type:i8", "cast to u16",
                 "loop:struct"):
        assert item in covered, item


def test_reducer_shrinks_while_the_failure_holds():
    # A stand-in failure: "the program has a `%`". The reducer keeps only what it needs.
    seed = next(s for s in range(100) if "%" in repr(difftest.generate(s).body)
                and len(difftest.source(difftest.generate(s))) > 1500)
    p = difftest.generate(seed)

    def has_mod(c: difftest.Program) -> bool:
        return "'%'" in repr(c.body)

    small = difftest.reduce(p, has_mod)
    assert has_mod(small)
    assert len(difftest.source(small)) < len(difftest.source(p)) // 2
    assert difftest._well_formed(small)


# --------------------------------------------------------------------------- bugs found


@pytest.mark.usefixtures("program")
def test_cast_of_a_literal_is_a_typed_constant():
    # difftest seeds 225, 245, 269: `ti.cast(<literal>, T)` folded to an untyped Python
    # number, so arithmetic on it neither wrapped in T nor promoted as T (Taichi's
    # answers below: a typed constant). It gave 2147483648 and 13421772800.
    o = ti.field(ti.i64, shape=5)

    @ti.kernel
    def k():
        o[0] = ti.cast(2147483647, ti.i32) + 1
        o[1] = ti.cast(100, ti.u32) << ti.cast(27, ti.u32)
        o[2] = ti.cast(300, ti.u8)
        o[3] = ti.cast(-2.7, ti.i32)
        o[4] = ti.cast(ti.cast(-3, ti.i64), ti.u32)

    k()
    assert o.to_numpy().tolist() == [-(2**31), 536870912, 44, -2, 4294967293]


@pytest.mark.usefixtures("program")
def test_widened_int_compared_with_a_constant():
    # difftest seed 7: on lavapipe `i64(a[i]) < i64(255)` was false for a[i] = 5 (the
    # driver's bug, Taichi 1.7.4 on lavapipe too); convert-arith-to-spirv compares in i32.
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.i32, ndim=1), o: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i in range(a.shape[0]):
            o[i, 0] = ti.cast(a[i], ti.i64) < ti.i64(255)
            o[i, 1] = ti.i64(-1) > ti.cast(a[i], ti.i64)
            o[i, 2] = ti.cast(a[i], ti.i64) < ti.i64(5000000000)
            o[i, 3] = ti.cast(ti.cast(a[i], ti.u32), ti.u64) < ti.u64(4294967295)

    a = np.array([5, 300, -3, -1], np.int32)
    o = np.zeros((4, 4), np.int32)
    k(a, o)
    assert o.tolist() == [[1, 0, 1, 1], [0, 0, 1, 1], [1, 1, 1, 1], [1, 0, 1, 0]]


@pytest.mark.usefixtures("program")
def test_floordiv_mod_of_typed_constants_floor_as_at_run_time():
    # Taichi 1.7.4 folds `//` and `%` of typed constants with C's truncating rule
    # (-3, -1) while run-time values floor (-4, 1): its bug (difftest TAICHI_BUGS). Ours
    # floors in both cases.
    @ti.kernel
    def k(a: ti.i32) -> ti.types.vector(4, ti.i32):
        return ti.Vector([ti.i32(-7) // ti.i32(2), ti.i32(-7) % ti.i32(2), a // 2, a % 2])

    assert list(k(-7)) == [-4, 1, -4, 1]


@pytest.mark.usefixtures("program")
def test_mod_of_a_local_holding_a_constant_floors():
    # difftest seed 1035 under Taichi: it folds `v % 1000` of a constant local with C's
    # rule (-648); its run-time rule, and ours, floor (352).
    @ti.kernel
    def k(a: ti.i32) -> ti.types.vector(2, ti.i32):
        v = ti.cast(-2147483647 - 1, ti.i32)
        return ti.Vector([v % 1000, (v + a) // 1000])

    assert list(k(0)) == [352, -2147484]


@pytest.mark.usefixtures("program")
def test_comparison_of_comparisons():
    # difftest seed 2269: on vulkan `(a == 3) < (a > 0)` failed to compile (an ordered
    # SPIR-V compare of bools); bools are compared as 0/1.
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.i32, ndim=1), o: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i in range(a.shape[0]):
            o[i, 0] = (a[i] == 3) < (a[i] > 0)
            o[i, 1] = (a[i] == 3) >= (a[i] > 0)

    a = np.array([3, 5, -1, 0], np.int32)
    o = np.zeros((4, 2), np.int32)
    k(a, o)
    assert o.tolist() == [[0, 1], [1, 0], [0, 1], [0, 1]]


@pytest.mark.usefixtures("program")
def test_compare_of_a_truncated_int():
    # difftest seed 7 (widened generator): on vulkan `ti.cast(a, ti.i8) > ti.i8(2)` was
    # true for a = 255 (the compare read the untruncated i32); i16 and u8 alike.
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.i32, ndim=1), o: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i in range(a.shape[0]):
            o[i, 0] = ti.cast(a[i], ti.i8) > ti.i8(2)
            o[i, 1] = ti.cast(a[i], ti.i16) < ti.i16(0)
            o[i, 2] = ti.cast(a[i], ti.u8) > ti.u8(200)
            o[i, 3] = ti.i8(2) < ti.cast(a[i], ti.i8)

    a = np.array([255, 128, 127, 65535, 40000], np.int32)
    o = np.zeros((5, 4), np.int32)
    k(a, o)
    assert o.tolist() == [[0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 1]]


def test_pool_counts_timeouts_and_resumes(tmp_path):
    # A program past --timeout is an outcome of its own and its worker is replaced; the
    # JSON summary has the counts, and --resume runs only what it lacks.
    path = str(tmp_path / "run.json")
    summary = difftest.run_pool(range(0, 2), ["cpu"], jobs=1, timeout=0.01, time_limit=None,
                                json_path=path, resume=None)
    data = json.loads(Path(path).read_text())
    assert data["complete"] and data["per_arch"]["cpu"]["programs_run"] == 2
    assert data["per_arch"]["cpu"]["timeout"] == 2
    assert [f["seed"] for f in data["failures"]] == [0, 1]
    again = difftest.run_pool(range(0, 2), ["cpu"], jobs=1, timeout=0.01, time_limit=None,
                              json_path=None, resume=path)
    assert len(again.outcomes) == len(summary.outcomes) == 2


@pytest.mark.usefixtures("program")
def test_python_number_passed_to_a_func_is_a_typed_value():
    # difftest H100 run 2 (seeds 3664, 4558, 7286, 9068): a Python int given to a ti.func
    # stayed a Python number inside it, so `(0 - 1) - (-p)` with p = -2**31 folded out of
    # i32 (a compile error) and `p + p` with p = 2**31 - 1 gave 4294967294. Taichi copies
    # every argument into a variable of its literal type (default_ip, default_fp): the
    # answers below are Taichi 1.7.4's.
    @ti.func
    def negate_twice(p):
        return ti.cast((0 - 1) - (-p), ti.i32)

    @ti.func
    def double(p):
        return p + p

    @ti.func
    def half(p):
        return p / 2

    @ti.kernel
    def k() -> ti.types.vector(3, ti.i64):
        return ti.Vector([negate_twice(-2147483647 - 1), ti.cast(double(2147483647), ti.i64),
                          ti.cast(half(3) * 2, ti.i64)])

    assert list(k()) == [2147483647, -2, 3]
