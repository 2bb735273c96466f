"""
End-to-end: `@ti.real_func` as a real call on CPU (codegen/real_funcs.py): recursion
(binary split, deep linear, mutual), early returns, template arguments (one function per
instantiation), fields written inside the function, calls from parallel loops, the
offline cache, and autodiff. On Vulkan real functions are inlined (SPIR-V forbids
recursion): the same results for every call that does not recurse, and a recursive one
is refused by name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def _function_names(module) -> list[str]:
    return [op.sym_name.data for op in module.ops if op.name == "func.func"]


def test_recursive_binary_split_sum_over_a_field(arch):
    @ti.real_func
    def split_sum(f: ti.template(), lo: ti.i32, hi: ti.i32) -> ti.i32:
        if lo == hi:
            return f[lo]
        mid = (lo + hi) // 2
        return split_sum(f, lo, mid) + split_sum(f, mid + 1, hi)

    f = ti.field(ti.i32, shape=100)
    f.from_numpy(np.arange(100, dtype=np.int32) * 3)

    @ti.kernel
    def total(lo: ti.i32, hi: ti.i32) -> ti.i32:
        return split_sum(f, lo, hi)

    if arch is ti.vulkan:
        with pytest.raises(ti.TaichiCompilationError) as info:
            total(0, 99)
        message = str(info.value)
        assert "'split_sum' calls itself: recursion needs a cpu arch" in message
        assert "test_real_func.py" in message  # names the file and line of the call
        return
    assert total(0, 99) == 3 * 99 * 50
    assert total(10, 10) == 30
    assert total(5, 8) == 3 * (5 + 6 + 7 + 8)


@pytest.mark.cpu_only("recursion needs a real call; Vulkan refuses it (tested above)")
def test_deep_linear_recursion_on_the_kernel_and_worker_threads(arch):
    @ti.real_func
    def sum_to(n: ti.i32) -> ti.i32:
        if n == 0:
            return 0
        return sum_to(n - 1) + n

    @ti.kernel
    def serial(n: ti.i32) -> ti.i32:
        return sum_to(n)

    out = ti.field(ti.i32, shape=32)

    @ti.kernel
    def parallel(depth: ti.i32):
        for i in range(32):
            out[i] = sum_to(depth + i)

    assert serial(100) == 5050
    assert serial(0) == 0
    parallel(3000)
    want = [(3000 + i) * (3001 + i) // 2 for i in range(32)]
    assert out.to_numpy().tolist() == want


@pytest.mark.cpu_only("recursion needs a real call; Vulkan refuses it (tested above)")
def test_mutual_recursion(arch):
    @ti.real_func
    def is_even(n: ti.i32) -> ti.i32:
        r = 1
        if n > 0:
            r = is_odd(n - 1)
        return r

    @ti.real_func
    def is_odd(n: ti.i32) -> ti.i32:
        r = 0
        if n > 0:
            r = is_even(n - 1)
        return r

    @ti.kernel
    def even(n: ti.i32) -> ti.i32:
        return is_even(n)

    assert [even(n) for n in (0, 1, 7, 10, 51)] == [1, 0, 0, 1, 0]


def test_early_returns_and_field_writes_inside_the_function(arch):
    x = ti.field(ti.i32, shape=())
    log = ti.field(ti.i32, shape=8)

    @ti.real_func
    def step(val: ti.i32, slot: ti.i32) -> ti.i32:
        log[slot] = val
        if x[None] > 10:
            if x[None] > 20:
                return 1
            x[None] += 1
        x[None] += val
        return 0

    @ti.kernel
    def run() -> ti.types.vector(3, ti.i32):
        return ti.Vector([step(15, 0), step(10, 1), step(100, 2)])

    x[None] = 0
    assert run().to_list() == [0, 0, 1]
    assert x[None] == 26
    assert log.to_numpy()[:3].tolist() == [15, 10, 100]


def test_void_real_function_called_from_a_parallel_loop(arch):
    y = ti.field(ti.f32, shape=64)

    @ti.real_func
    def put(i: ti.i32, scale: ti.f32):
        if i % 2 == 1:
            return  # an early return of a void function
        y[i] = i * scale

    @ti.kernel
    def fill(scale: ti.f32):
        for i in range(64):
            put(i, scale)

    fill(0.5)
    want = np.array([i * 0.5 if i % 2 == 0 else 0 for i in range(64)], dtype=np.float32)
    np.testing.assert_array_equal(y.to_numpy(), want)


def test_template_arguments_give_one_function_per_instantiation(arch):
    a = ti.field(ti.i32, shape=4)
    b = ti.field(ti.i32, shape=4)

    @ti.real_func
    def bump(f: ti.template(), k: ti.template(), i: ti.i32) -> ti.i32:
        f[i] += k
        return f[i]

    @ti.kernel
    def run() -> ti.types.vector(4, ti.i32):
        return ti.Vector([bump(a, 1, 0), bump(a, 1, 0), bump(b, 5, 3), bump(a, 7, 2)])

    assert run().to_list() == [1, 2, 5, 7]
    assert a.to_numpy().tolist() == [2, 0, 7, 0]
    assert b.to_numpy().tolist() == [0, 0, 0, 5]
    names = _function_names(run.get_ir())
    if arch is ti.vulkan:
        assert names == []  # inlined
    else:  # (a, 1), (b, 5), (a, 7): three instantiations, called four times
        assert len(names) == 3 and all("bump" in n for n in names)


def test_arguments_are_converted_to_the_parameter_types(arch):
    @ti.real_func
    def halve(v: ti.f32) -> ti.i32:
        return v / 2  # the f32 result becomes the declared i32

    @ti.kernel
    def k(n: ti.i32) -> ti.i32:
        return halve(n) + halve(7)

    assert k(9) == 4 + 3

    @ti.real_func
    def sub(a: ti.i32, b: ti.i32) -> ti.i32:
        return a - b

    @ti.kernel
    def keywords() -> ti.types.vector(3, ti.i32):  # one function, whatever the order
        return ti.Vector([sub(a=10, b=3), sub(b=3, a=10), sub(10, b=3)])

    assert keywords().to_list() == [7, 7, 7]


def test_autodiff_inlines_real_functions(arch):
    """A differentiated kernel inlines its real functions: the gradient of a real call
    is that of its body; a recursive real function there is refused by name."""
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.real_func
    def cube(v: ti.f32) -> ti.f32:
        return v * v * v

    @ti.kernel
    def compute():
        for i in x:
            loss[None] += cube(x[i])

    x.from_numpy(np.array([0, 1, 2, 3], dtype=np.float32))
    with ti.ad.Tape(loss):
        compute()
    assert loss[None] == 36
    np.testing.assert_allclose(x.grad.to_numpy(), [0, 3, 12, 27])

    @ti.real_func
    def power(v: ti.f32, n: ti.i32) -> ti.f32:
        r = 1.0
        if n > 0:
            r = v * power(v, n - 1)
        return r

    @ti.kernel
    def compute_power():
        for i in x:
            loss[None] += power(x[i], 2)

    with pytest.raises(ti.TaichiCompilationError, match="'power' calls itself"):
        with ti.ad.Tape(loss):
            compute_power()


_CACHE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import taichi_xdsl as ti
    from taichi_xdsl.utils import cache_keys
    cache_keys.fingerprint_sources = lambda root, dirs: "pinned"
    cache_keys.stat_fingerprint = lambda root, dirs: "pinned"
    ti.init(arch=ti.cpu, offline_cache_file_path=sys.argv[1])

    @ti.real_func
    def total(lo: ti.i32, hi: ti.i32) -> ti.i32:
        if lo == hi:
            return lo * WEIGHT
        mid = (lo + hi) // 2
        return total(lo, mid) + total(mid + 1, hi)

    @ti.kernel
    def run() -> ti.i32:
        return total(0, 99)

    value = run()
    from taichi_xdsl.frontends.python.lang import program
    backend = program.get_program()._backend
    print(json.dumps({"value": value, "hits": backend.cache_hits}))
    """
)


def _cached_run(path: Path, weight: int) -> dict:
    script = path / "real_func_kernel.py"
    script.write_text(_CACHE_SCRIPT.replace("WEIGHT", str(weight)))
    env = dict(os.environ)
    env.pop("TI_OFFLINE_CACHE", None)
    done = subprocess.run(
        [sys.executable, str(script), str(path / "cache")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.cpu_only("the offline cache of CPU kernels; recursion needs a real call")
def test_offline_cache_keys_the_real_functions_source(arch, tmp_path: Path):
    """A kernel calling a recursive real function is cached and reloads; an edit of
    the function's source alone misses (never stale code)."""
    assert _cached_run(tmp_path, 1) == {"value": 4950, "hits": 0}
    assert _cached_run(tmp_path, 1) == {"value": 4950, "hits": 1}
    assert _cached_run(tmp_path, 2) == {"value": 9900, "hits": 0}
    assert _cached_run(tmp_path, 2) == {"value": 9900, "hits": 1}


def test_a_called_function_sharing_the_loops_elements_keeps_atomics(arch):
    """Each iteration adds to its own x[i] and, through a real call, to x[i + n/2]: the
    loop's own `x[i] += 1` must stay atomic (ti-demote-atomics), and so must a reduction
    the callee also touches (ti-make-thread-local)."""
    n = 1024
    x = ti.field(ti.i32, shape=n)
    s = ti.field(ti.i32, shape=())

    @ti.real_func
    def bump(j: ti.i32):
        x[j] += 1
        s[None] += 2

    @ti.kernel
    def run():
        for i in range(n):
            for _ in range(100):
                x[i] += 1
                s[None] += 1
                bump((i + n // 2) % n)

    run()
    assert (x.to_numpy() == 200).all()
    assert s[None] == 3 * 100 * n


def test_random_numbers_inside_a_real_function(arch):
    """A real function that draws ti.random numbers is inlined (the kernel's random
    state is its own); a recursive one is refused by name."""

    @ti.real_func
    def draw() -> ti.f32:
        return ti.random()

    @ti.kernel
    def k() -> ti.f32:
        return draw() + draw()

    values = [k() for _ in range(4)]
    assert all(0.0 <= v < 2.0 for v in values) and len(set(values)) > 1

    @ti.real_func
    def walk(n: ti.i32) -> ti.f32:
        r = 0.0
        if n > 0:
            r = ti.random() + walk(n - 1)
        return r

    @ti.kernel
    def k2() -> ti.f32:
        return walk(3)

    with pytest.raises(ti.TaichiCompilationError, match="'walk' calls itself"):
        k2()


def test_tuples_of_fields_and_data_oriented_objects_as_template_arguments(arch):
    """A template argument `(a, b)` built in the kernel is told apart by its items (each
    call builds a new tuple); a data-oriented object's real methods are specialised on
    the object."""
    a = ti.field(ti.i32, shape=4)
    b = ti.field(ti.i32, shape=4)

    @ti.real_func
    def pair_sum(fs: ti.template(), i: ti.i32) -> ti.i32:
        return fs[0][i] + fs[1][i]

    @ti.kernel
    def k(i: ti.i32) -> ti.i32:
        return pair_sum((a, b), i) * 100 + pair_sum((b, b), i) * 10 + pair_sum((a, a), i)

    a.fill(1)
    b.fill(2)
    assert k(1) == 300 + 40 + 2

    @ti.data_oriented
    class Counter:
        def __init__(self, start):
            self.cells = ti.field(ti.i32, shape=3)
            self.cells.fill(start)

        @ti.real_func
        def take(self, i: ti.i32) -> ti.i32:
            self.cells[i] += 1
            return self.cells[i]

        @ti.kernel
        def run(self, other: ti.template()) -> ti.i32:
            return self.take(0) * 100 + other.take(2)

    first, second = Counter(10), Counter(50)
    assert first.run(second) == 11 * 100 + 51
    assert first.cells.to_numpy().tolist() == [11, 10, 10]
    assert second.cells.to_numpy().tolist() == [50, 50, 51]


def test_vector_and_matrix_parameters(arch):
    """Vectors and matrices are passed as their elements (a scalar fills one); a
    parameter the body assigns into is the function's own copy."""

    @ti.real_func
    def weigh(m: ti.math.mat2, v: ti.math.vec2) -> ti.f32:
        return (m @ v).sum()

    @ti.kernel
    def k() -> ti.f32:
        return weigh(ti.math.mat2(1, 2, 3, 4), ti.math.vec2(5, 6)) + weigh(1.0, ti.math.vec2(1, 0))

    assert k() == (5 + 12 + 15 + 24) + 2

    if arch is ti.vulkan:
        return  # the recursive part: Vulkan refuses recursion (tested above)

    @ti.real_func
    def walk(v: ti.math.vec3, n: ti.i32) -> ti.f32:
        r = 0.0
        if n > 0:
            v[0] += 1.0
            r = v.norm_sqr() + walk(v, n - 1)
        return r

    @ti.kernel
    def k2() -> ti.f32:
        v = ti.Vector([0.0, 1.0, 2.0])
        total = walk(v, 3)
        return total + v[0]  # the caller's v is unchanged

    assert k2() == (1 + 1 + 4) + (4 + 1 + 4) + (9 + 1 + 4)


def test_identical_calls_each_run(arch):
    """Two identical calls of a function that writes a field both run (cse and dce
    never merge or drop a call)."""
    x = ti.field(ti.i32, shape=())

    @ti.real_func
    def inc() -> ti.i32:
        x[None] += 1
        return x[None]

    @ti.real_func
    def touch():
        x[None] += 1000

    @ti.kernel
    def k() -> ti.i32:
        touch()
        touch()
        return inc() * 100 + inc() * 10

    assert k() == 2001 * 100 + 2002 * 10
    assert x[None] == 2002


def test_vector_and_matrix_returns(arch):
    @ti.real_func
    def rows() -> ti.math.mat2:
        return ti.math.mat2(1, 2, 3, 4)

    @ti.kernel
    def k() -> ti.math.mat2:
        return rows() + rows().transpose()

    assert k().to_list() == [[2, 5], [5, 8]]

    if arch is ti.vulkan:
        return  # the recursive part: Vulkan refuses recursion (tested above)

    @ti.real_func
    def fib_pair(n: ti.i32) -> ti.types.vector(2, ti.i64):
        r = ti.Vector([0, 1], dt=ti.i64)
        if n > 0:
            p = fib_pair(n - 1)
            r = ti.Vector([p[1], p[0] + p[1]], dt=ti.i64)
        return r

    @ti.kernel
    def fib(n: ti.i32) -> ti.i64:
        return fib_pair(n)[0]

    assert [fib(n) for n in (0, 1, 10, 50)] == [0, 1, 55, 12586269025]
