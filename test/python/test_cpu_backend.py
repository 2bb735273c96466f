"""
The CPU backend end to end: hand-written taichi-dialect kernels through `ti-to-offload`,
the launch plan, `ti-offload-to-llvm`, the translator, the JIT and the runtime, checked
against NumPy.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from taichi_xdsl.targets.llvm.backend import CpuBackend, CpuKernel
from taichi_xdsl.utils.pipelines import pipeline
from taichi_xdsl.targets.llvm.runtime import Bound, NdarrayArg, ScalarArg, adaptive_grain
from taichi_xdsl.utils import registry
from taichi_xdsl.utils.errors import (
    TaichiAssertionError,
    TaichiCompilationError,
    TaichiIndexError,
    TaichiTypeError,
)


def parse(source: str) -> ModuleOp:
    return Parser(registry.make_context(), source).parse_module()


def compile_kernel(source: str, name: str, **options: object) -> CpuKernel:
    return CpuBackend(**options).compile(parse(source), name)  # pyright: ignore


SAXPY = (Path(__file__).parents[1] / "Inputs" / "saxpy.mlir").read_text()


@pytest.mark.parametrize("n", [0, 3, 100_000])
def test_saxpy(n: int):
    kernel = compile_kernel(SAXPY, "saxpy", num_threads=4)
    plan = kernel.plan
    assert plan.args == (ScalarArg("f32"), NdarrayArg("f32", 1), NdarrayArg("f32", 1))
    assert [task.kind for task in plan.tasks] == ["serial", "range_for"]
    assert plan.tasks[1].begin == Bound(0)
    assert plan.tasks[1].end == Bound(gtmp_offset=0)
    assert plan.gtmp_bytes == 4
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    assert kernel.launch(None, (2.0, x, y)) == ()
    np.testing.assert_allclose(y, 2 * x + 1)
    with pytest.raises(TaichiTypeError):
        kernel.launch(None, (2.0, x, y.astype(np.float64)))


def test_saxpy_is_vectorised():
    """O3 + fast math: the loop multiplies and adds packed singles (mulps, vfmadd...ps)."""
    assembly = compile_kernel(SAXPY, "saxpy").jit_module.assembly()
    assert re.search(r"\b\w*(mul|add)\w*ps\b", assembly), assembly


FIELDS = """
taichi.field @x : memref<4x8xf32> offset 0
taichi.field @n : memref<i32> offset 128

// x[i, j] = i * 10 + j over the flattened 32 indices, then n[None] = 32 (serial).
taichi.kernel @fill() {
  %x = taichi.get_field @x : memref<4x8xf32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 32 : i32
  %eight = arith.constant 8 : i32
  %ten = arith.constant 10 : i32
  taichi.range_for %k = %lo to %hi : i32 {
    %i = arith.divsi %k, %eight : i32
    %j = arith.remsi %k, %eight : i32
    %i10 = arith.muli %i, %ten : i32
    %v = arith.addi %i10, %j : i32
    %f = arith.sitofp %v : i32 to f32
    %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
    memref.store %f, %p[] : memref<f32>
    taichi.yield
  }
  %n = taichi.get_field @n : memref<i32>
  %np = taichi.element_ptr %n[] : memref<i32> -> memref<i32>
  memref.store %hi, %np[] : memref<i32>
  taichi.return
}

// Sums x into total and counts the elements: reductions into 0-d fields.
taichi.field @total : memref<f32> offset 132
taichi.field @count : memref<i32> offset 136

taichi.kernel @sum() {
  %x = taichi.get_field @x : memref<4x8xf32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 32 : i32
  %eight = arith.constant 8 : i32
  taichi.range_for %k = %lo to %hi : i32 {
    %i = arith.divsi %k, %eight : i32
    %j = arith.remsi %k, %eight : i32
    %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %tp, %v : memref<f32>
    %c = taichi.get_field @count : memref<i32>
    %cp = taichi.element_ptr %c[] : memref<i32> -> memref<i32>
    %one = arith.constant 1 : i32
    %old2 = taichi.atomic_add %cp, %one : memref<i32>
    taichi.yield
  }
  taichi.return
}
"""

EXPECTED_X = np.arange(4)[:, None] * 10 + np.arange(8)[None, :]


def test_fields_in_the_root_buffer():
    root = np.zeros(140, dtype=np.uint8)
    compile_kernel(FIELDS, "fill").launch(root, ())
    np.testing.assert_array_equal(root[:128].view(np.float32).reshape(4, 8), EXPECTED_X)
    assert root[128:132].view(np.int32)[0] == 32


def test_reduction_into_fields():
    root = np.zeros(140, dtype=np.uint8)
    root[:128].view(np.float32)[:] = EXPECTED_X.ravel()
    kernel = compile_kernel(FIELDS, "sum")
    for launch in (1, 2):
        kernel.launch(root, ())
        assert root[132:136].view(np.float32)[0] == launch * EXPECTED_X.sum()
        assert root[136:140].view(np.int32)[0] == launch * 32


REDUCE = """
taichi.field @total : memref<f64> offset 0

taichi.kernel @reduce(%x: memref<?xf64>) {
  %lo = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %ni = arith.index_cast %n : index to i32
  taichi.range_for %i = %lo to %ni : i32 {
    %p = taichi.element_ptr %x[%i] : memref<?xf64> -> memref<f64>
    %v = memref.load %p[] : memref<f64>
    %t = taichi.get_field @total : memref<f64>
    %tp = taichi.element_ptr %t[] : memref<f64> -> memref<f64>
    %old = taichi.atomic_add %tp, %v : memref<f64>
    taichi.yield
  }
  taichi.return
}
"""


@pytest.mark.parametrize("num_threads", [1, 4])
def test_parallel_reduction(num_threads: int):
    kernel = compile_kernel(REDUCE, "reduce", num_threads=num_threads)
    assert kernel.plan.thread_local_bytes == 8  # ti-make-thread-local made the sum private
    x = np.arange(1_000_000, dtype=np.float64)
    root = np.zeros(8, dtype=np.uint8)
    kernel.launch(root, (x,))
    assert root.view(np.float64)[0] == pytest.approx(x.sum(), rel=1e-12)


RETURNS = """
taichi.kernel @mix(%a: i32, %b: f64, %c: i64) -> (i32, f64, i64) {
  %one = arith.constant 1 : i32
  %a1 = arith.addi %a, %one : i32
  %b2 = arith.mulf %b, %b : f64
  %cc = arith.muli %c, %c : i64
  taichi.return %a1, %b2, %cc : i32, f64, i64
}
"""


def test_scalar_arguments_and_returns():
    kernel = compile_kernel(RETURNS, "mix")
    assert kernel.plan.returns == ("i32", "f64", "i64")
    assert kernel.launch(None, (41, 1.5, 3_000_000)) == (42, 2.25, 9_000_000_000_000)
    assert kernel.launch(None, (-1, 2, -2)) == (0, 4.0, 4)


CONTROL = """
// Number of Collatz steps of each x[i] into y[i]: a serial while inside a parallel loop.
taichi.kernel @collatz(%x: memref<?xi32>, %y: memref<?xi32>) {
  %lo = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xi32>
  %ni = arith.index_cast %n : index to i32
  taichi.range_for %i = %lo to %ni : i32 {
    %v = memref.alloca() : memref<i32>
    %steps = memref.alloca() : memref<i32>
    %px = taichi.element_ptr %x[%i] : memref<?xi32> -> memref<i32>
    %x0 = memref.load %px[] : memref<i32>
    memref.store %x0, %v[] : memref<i32>
    %zero = arith.constant 0 : i32
    memref.store %zero, %steps[] : memref<i32>
    taichi.while {
      %cur = memref.load %v[] : memref<i32>
      %one = arith.constant 1 : i32
      %done = arith.cmpi sle, %cur, %one : i32
      taichi.if %done {
        taichi.break
      }
      %two = arith.constant 2 : i32
      %r = arith.remsi %cur, %two : i32
      %even = arith.cmpi eq, %r, %zero : i32
      taichi.if %even {
        %h = arith.divsi %cur, %two : i32
        memref.store %h, %v[] : memref<i32>
        taichi.yield
      } else {
        %three = arith.constant 3 : i32
        %t = arith.muli %cur, %three : i32
        %t1 = arith.addi %t, %one : i32
        memref.store %t1, %v[] : memref<i32>
        taichi.yield
      }
      %s = memref.load %steps[] : memref<i32>
      %s1 = arith.addi %s, %one : i32
      memref.store %s1, %steps[] : memref<i32>
      taichi.yield
    }
    %py = taichi.element_ptr %y[%i] : memref<?xi32> -> memref<i32>
    %sf = memref.load %steps[] : memref<i32>
    memref.store %sf, %py[] : memref<i32>
    taichi.yield
  }
  taichi.return
}
"""


def _collatz(v: int) -> int:
    steps = 0
    while v > 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        steps += 1
    return steps


def test_control_flow():
    kernel = compile_kernel(CONTROL, "collatz", num_threads=4)
    x = np.arange(1, 3001, dtype=np.int32)
    y = np.zeros_like(x)
    kernel.launch(None, (x, y))
    assert y.tolist() == [_collatz(int(v)) for v in x]


MATH = """
taichi.kernel @norms(%x: memref<?x2xf32>, %y: memref<?xf32>) {
  %lo = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x2xf32>
  %ni = arith.index_cast %n : index to i32
  taichi.range_for %i = %lo to %ni : i32 {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %pa = taichi.element_ptr %x[%i, %zero] : memref<?x2xf32> -> memref<f32>
    %pb = taichi.element_ptr %x[%i, %one] : memref<?x2xf32> -> memref<f32>
    %a = memref.load %pa[] : memref<f32>
    %b = memref.load %pb[] : memref<f32>
    %aa = arith.mulf %a, %a : f32
    %bb = arith.mulf %b, %b : f32
    %s = arith.addf %aa, %bb : f32
    %r = math.sqrt %s : f32
    %e = math.sin %r : f32
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    memref.store %e, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
"""


def test_math_and_2d_ndarrays():
    kernel = compile_kernel(MATH, "norms", num_threads=2)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5000, 2)).astype(np.float32)
    y = np.zeros(5000, dtype=np.float32)
    kernel.launch(None, (x, y))
    np.testing.assert_allclose(y, np.sin(np.hypot(x[:, 0], x[:, 1])), rtol=1e-5, atol=1e-6)


CHECKED = """
taichi.kernel @gather(%x: memref<?xf32>, %idx: memref<?xi32>, %y: memref<?xf32>) {
  %lo = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %n = memref.dim %idx, %c0 : memref<?xi32>
  %ni = arith.index_cast %n : index to i32
  taichi.range_for %i = %lo to %ni : i32 {
    %pi = taichi.element_ptr %idx[%i] : memref<?xi32> -> memref<i32>
    %j = memref.load %pi[] : memref<i32>
    %px = taichi.element_ptr %x[%j] : memref<?xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    memref.store %v, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}

taichi.kernel @positive(%a: i32) {
  %zero = arith.constant 0 : i32
  %ok = arith.cmpi sgt, %a, %zero : i32
  taichi.assert %ok, "a must be positive"
  taichi.return
}
"""


def test_debug_bounds_check():
    kernel = compile_kernel(CHECKED, "gather", debug=True)
    x = np.arange(10, dtype=np.float32)
    y = np.zeros(3, dtype=np.float32)
    kernel.launch(None, (x, np.array([1, 5, 9], dtype=np.int32), y))
    assert y.tolist() == [1, 5, 9]
    with pytest.raises(TaichiIndexError, match="index 10 .*extent 10"):
        kernel.launch(None, (x, np.array([0, 10, 2], dtype=np.int32), y))
    # The kernel still works after an error.
    kernel.launch(None, (x, np.array([2, 2, 2], dtype=np.int32), y))
    assert y.tolist() == [2, 2, 2]


def test_debug_assert():
    kernel = compile_kernel(CHECKED, "positive", debug=True)
    kernel.launch(None, (1,))
    with pytest.raises(TaichiAssertionError, match="a must be positive"):
        kernel.launch(None, (0,))
    # Without debug, asserts are dropped.
    compile_kernel(CHECKED, "positive").launch(None, (0,))


PRINT = """
taichi.kernel @hello(%a: i32, %b: f32) {
  taichi.print "a = {} b = {}" %a, %b : i32, f32
  taichi.return
}
"""


def test_print(capfd: pytest.CaptureFixture[str]):
    compile_kernel(PRINT, "hello").launch(None, (7, 0.5))
    out = capfd.readouterr().out
    assert "a = 7" in out and "b = 0.5" in out


def test_print_ir_prints_every_pass():
    stream = io.StringIO()
    compile_kernel(SAXPY, "saxpy", print_ir=True, ir_stream=stream)
    text = stream.getvalue()
    assert "Initial IR (saxpy)" in text
    for name in pipeline("cpu").passes:
        assert f"IR Dump After {name} (saxpy)" in text, name
    assert "LLVM IR of saxpy" in text and "define void" in text


def test_compile_leaves_the_module_alone():
    module = parse(SAXPY)
    before = str(module)
    CpuBackend().compile(module, "saxpy")
    assert str(module) == before


def test_missing_kernel():
    with pytest.raises(TaichiCompilationError, match="nope"):
        compile_kernel(SAXPY, "nope")


def test_debug_pipeline_option():
    assert "ti-lower-access{debug=true}" in CpuBackend(debug=True).pipeline().passes
    assert "ti-lower-access" in CpuBackend(debug=False).pipeline().passes


TASKS = """
taichi.field @y : memref<64xi32> offset 0
taichi.field @s : memref<i32> offset 256

// serial (s = 0; bound = 2 * n into a global temporary), range_for y[i] = i * i,
// range_for s += y[i], serial (return s + 1): four tasks run in order.
taichi.kernel @steps(%n: i32) -> i32 {
  %s = taichi.get_field @s : memref<i32>
  %sp = taichi.element_ptr %s[] : memref<i32> -> memref<i32>
  %zero = arith.constant 0 : i32
  memref.store %zero, %sp[] : memref<i32>
  %two = arith.constant 2 : i32
  %hi = arith.muli %n, %two : i32
  %y = taichi.get_field @y : memref<64xi32>
  taichi.range_for %i = %zero to %hi : i32 {
    %p = taichi.element_ptr %y[%i] : memref<64xi32> -> memref<i32>
    %sq = arith.muli %i, %i : i32
    memref.store %sq, %p[] : memref<i32>
    taichi.yield
  }
  taichi.range_for %i = %zero to %hi : i32 {
    %p = taichi.element_ptr %y[%i] : memref<64xi32> -> memref<i32>
    %v = memref.load %p[] : memref<i32>
    %old = taichi.atomic_add %sp, %v : memref<i32>
    taichi.yield
  }
  %total = memref.load %sp[] : memref<i32>
  %one = arith.constant 1 : i32
  %r = arith.addi %total, %one : i32
  taichi.return %r : i32
}

// Every element of a dense 2-d field: a struct_for, demoted to a range_for.
taichi.kernel @iota() {
  %y = taichi.get_field @y : memref<64xi32>
  taichi.struct_for (%i) in %y : memref<64xi32> {
    %p = taichi.element_ptr %y[%i] : memref<64xi32> -> memref<i32>
    %seven = arith.constant 7 : i32
    %v = arith.addi %i, %seven : i32
    memref.store %v, %p[] : memref<i32>
    taichi.yield
  }
  taichi.return
}
"""


@pytest.mark.parametrize("num_threads", [1, 3])
def test_tasks_run_in_order(num_threads: int):
    kernel = compile_kernel(TASKS, "steps", num_threads=num_threads)
    kinds = [task.kind for task in kernel.plan.tasks]
    assert kinds.count("range_for") == 2 and kinds[-1] == "serial"
    root = np.zeros(260, dtype=np.uint8)
    for n in (0, 5, 32):
        (result,) = kernel.launch(root, (n,))
        squares = np.arange(2 * n) ** 2
        assert result == squares.sum() + 1
        assert root[256:260].view(np.int32)[0] == squares.sum()


def test_struct_for():
    kernel = compile_kernel(TASKS, "iota")
    assert [task.kind for task in kernel.plan.tasks] == ["range_for"]
    root = np.zeros(260, dtype=np.uint8)
    kernel.launch(root, ())
    assert root[:256].view(np.int32).tolist() == list(range(7, 71))


def test_pass_failure_names_the_pass():
    source = """
taichi.kernel @bad(%n: i32, %c: i1) {
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    taichi.if %c {
      taichi.break
    }
    taichi.yield
  }
  taichi.return
}
"""
    with pytest.raises(TaichiCompilationError, match="'bad': ti-offload failed: .*break"):
        compile_kernel(source, "bad")


def test_index_cost_counts_inner_loops():
    """The launch plan's index_cost: 1 + trip count x body cost of each outermost inner
    loop (chunking counts it), a loop of run-time bounds counting as _RUNTIME_TRIPS
    iterations; it survives the plan's JSON form."""
    from taichi_xdsl.targets.llvm.backend import _RUNTIME_TRIPS
    from taichi_xdsl.targets.llvm.cache import plan_from_json, plan_to_json

    ti.init(arch=ti.cpu, offline_cache=False)
    n = 64
    u = ti.field(ti.f32, shape=(n, n))
    acc = ti.field(ti.f32, shape=n)

    @ti.kernel
    def rows():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):  # rows of 62 (ti-split-parallel-loop)
            u[i, j] = u[i, j - 1] + 1.0

    @ti.kernel
    def pairs(m: ti.i32):
        for i in range(n):
            s = 0.0
            for j in range(n):
                for k in range(3):
                    s += u[j, k]
            for j in range(m):  # bounds known at run time: a guess
                s += 1.0
            acc[i] = s

    rows()
    pairs(2)
    costs = []
    for kernel in (rows, pairs):
        (run,) = kernel._instances.values()
        plan = run.compiled.plan
        assert plan_from_json(plan_to_json(plan)) == plan
        costs.append([t.index_cost for t in plan.tasks if t.kind == "range_for"])
    assert costs == [[63], [1 + n * (1 + 3) + _RUNTIME_TRIPS]]
    # 64 indices that each loop over a run-time slice (a radix sort's blocks): one a chunk
    assert adaptive_grain(64, 16, index_cost=1 + _RUNTIME_TRIPS) == 1
