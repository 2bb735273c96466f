"""
The Vulkan backend end to end: hand-written taichi-dialect kernels through `ti-to-spirv`,
the serializer, the Vulkan runtime (lavapipe in CI) and VulkanBackend, against NumPy.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from taichi_xdsl.targets.vulkan import vulkan_available

AVAILABLE, REASON = vulkan_available()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=f"no Vulkan device: {REASON}")

from taichi_xdsl.utils import registry
from taichi_xdsl.utils.errors import TaichiCompilationError, TaichiTypeError
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser


def parse(source: str) -> ModuleOp:
    return Parser(registry.make_context(), source).parse_module()


@pytest.fixture(scope="module")
def backend():
    from taichi_xdsl.targets.vulkan.backend import VulkanBackend

    return VulkanBackend()


@pytest.fixture(scope="module")
def cas_backend(backend):
    """The same device, code generated for caps without float atomics: CAS loops."""
    from taichi_xdsl.targets.vulkan.backend import VulkanBackend

    caps = {k: v for k, v in backend.caps.items() if "atomic_float" not in k}
    return VulkanBackend(caps=caps, runtime=backend.runtime)


SAXPY = (Path(__file__).parents[1] / "Inputs" / "saxpy.mlir").read_text()


@pytest.mark.parametrize("n", [0, 3, 100_000])
def test_saxpy_over_ndarrays(backend, n: int):
    kernel = backend.compile(parse(SAXPY), "saxpy")
    assert [t.kind for t in kernel.plan.tasks] == ["serial", "range_for"]
    assert kernel.plan.tasks[1].end is None  # the bound is a global temporary
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    assert kernel.launch(None, (2.0, x, y)) == ()
    np.testing.assert_allclose(y, 2 * x + 1)  # updated in place, as on CPU
    with pytest.raises(TaichiTypeError):
        kernel.launch(None, (2.0, x, y.astype(np.float64)))


SUM = """
taichi.field @x : memref<64x64xf32> offset 0
taichi.field @total : memref<f32> offset 16384

taichi.kernel @sum() {
  %x = taichi.get_field @x : memref<64x64xf32>
  %t = taichi.get_field @total : memref<f32>
  taichi.struct_for (%i, %j) in %x : memref<64x64xf32> {
    %p = taichi.element_ptr %x[%i, %j] : memref<64x64xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %tp, %v : memref<f32>
    taichi.yield
  }
  taichi.return
}
"""


@pytest.mark.parametrize("which", ["native", "cas"])
def test_sum_reduction_with_float_atomics(backend, cas_backend, which: str):
    chosen = backend if which == "native" else cas_backend
    if which == "native" and not backend.caps.get("spirv_has_atomic_float_add"):
        pytest.skip("the device has no float atomic add")
    kernel = chosen.compile(parse(SUM), "sum")
    has_native = any(b"SPV_EXT_shader_atomic_float_add" in b for b in kernel.binaries)
    assert has_native == (which == "native")
    root = np.zeros(16384 + 4, dtype=np.uint8)
    values = (np.arange(64 * 64) % 7).astype(np.float32)
    root[:16384].view(np.float32)[:] = values
    chosen.root_changed_on_host()
    for launch in (1, 2):
        kernel.launch(root, ())
        chosen.read_root(root)
        assert root[16384:].view(np.float32)[0] == launch * values.sum()


STENCIL = """
taichi.field @a : memref<64x64xf32> offset 0
taichi.field @b : memref<64x64xf32> offset 16384

// b[i, j] = mean of a's four neighbours, on the interior.
taichi.kernel @stencil() {
  %a = taichi.get_field @a : memref<64x64xf32>
  %b = taichi.get_field @b : memref<64x64xf32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 3844 : i32
  %w = arith.constant 62 : i32
  %one = arith.constant 1 : i32
  %q = arith.constant 0.25 : f32
  taichi.range_for %k = %lo to %hi : i32 {
    %i0 = arith.divsi %k, %w : i32
    %j0 = arith.remsi %k, %w : i32
    %i = arith.addi %i0, %one : i32
    %j = arith.addi %j0, %one : i32
    %im = arith.subi %i, %one : i32
    %ip = arith.addi %i, %one : i32
    %jm = arith.subi %j, %one : i32
    %jp = arith.addi %j, %one : i32
    %p1 = taichi.element_ptr %a[%im, %j] : memref<64x64xf32> -> memref<f32>
    %p2 = taichi.element_ptr %a[%ip, %j] : memref<64x64xf32> -> memref<f32>
    %p3 = taichi.element_ptr %a[%i, %jm] : memref<64x64xf32> -> memref<f32>
    %p4 = taichi.element_ptr %a[%i, %jp] : memref<64x64xf32> -> memref<f32>
    %v1 = memref.load %p1[] : memref<f32>
    %v2 = memref.load %p2[] : memref<f32>
    %v3 = memref.load %p3[] : memref<f32>
    %v4 = memref.load %p4[] : memref<f32>
    %s1 = arith.addf %v1, %v2 : f32
    %s2 = arith.addf %v3, %v4 : f32
    %s = arith.addf %s1, %s2 : f32
    %m = arith.mulf %s, %q : f32
    %pb = taichi.element_ptr %b[%i, %j] : memref<64x64xf32> -> memref<f32>
    memref.store %m, %pb[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
"""


def test_2d_stencil_on_fields(backend):
    kernel = backend.compile(parse(STENCIL), "stencil")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    root = np.zeros(2 * 16384, dtype=np.uint8)
    root[:16384].view(np.float32)[:] = a.ravel()
    backend.root_changed_on_host()
    waits = backend.runtime.stats.waits
    kernel.launch(root, ())
    kernel.launch(root, ())
    assert backend.runtime.stats.waits == waits  # recorded, not waited for
    backend.read_root(root)
    b = root[16384:].view(np.float32).reshape(64, 64)
    expected = np.zeros_like(a)
    expected[1:-1, 1:-1] = (
        (a[:-2, 1:-1] + a[2:, 1:-1]) + (a[1:-1, :-2] + a[1:-1, 2:])
    ) * 0.25
    np.testing.assert_allclose(b, expected, rtol=1e-6, atol=1e-7)


RETURNS = """
taichi.kernel @mix(%a: i32, %b: f64, %c: i64, %d: i1) -> (i32, f64, i64, i1) {
  %one = arith.constant 1 : i32
  %a1 = arith.addi %a, %one : i32
  %b2 = arith.mulf %b, %b : f64
  %cc = arith.muli %c, %c : i64
  %true = arith.constant true
  %nd = arith.xori %d, %true : i1
  taichi.return %a1, %b2, %cc, %nd : i32, f64, i64, i1
}
"""


def test_serial_kernel_with_return_values(backend):
    if not (backend.caps.get("spirv_has_int64") and backend.caps.get("spirv_has_float64")):
        pytest.skip("the device lacks 64-bit types")
    kernel = backend.compile(parse(RETURNS), "mix")
    assert [t.kind for t in kernel.plan.tasks] == ["serial"]
    assert kernel.launch(None, (41, 1.5, 3_000_000, 0)) == (42, 2.25, 9_000_000_000_000, 1)
    assert kernel.launch(None, (-1, 2, -2, 1)) == (0, 4.0, 4, 0)


def test_64_bit_types_need_their_caps(backend):
    from taichi_xdsl.targets.vulkan.backend import VulkanBackend

    narrow = VulkanBackend(caps={}, runtime=backend.runtime)
    with pytest.raises(TaichiCompilationError, match="spirv_has_int64"):
        narrow.compile(parse(RETURNS), "mix")


BIG = """
taichi.field @big : memref<8500000xi32> offset 0

taichi.kernel @iota() {
  %big = taichi.get_field @big : memref<8500000xi32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8500000 : i32
  %three = arith.constant 3 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    %p = taichi.element_ptr %big[%i] : memref<8500000xi32> -> memref<i32>
    %v = arith.muli %i, %three : i32
    memref.store %v, %p[] : memref<i32>
    taichi.yield
  }
  taichi.return
}
"""


def test_constant_range_past_the_workgroup_limit(backend):
    """8.5M > 65535 * 128 elements: Taichi 1.7 fails here on lavapipe; a grid-stride
    loop needs no more groups than the device allows."""
    n = 8_500_000
    assert n > 65535 * 128
    kernel = backend.compile(parse(BIG), "iota")
    max_groups = backend.runtime.caps.max_compute_work_group_count[0]
    assert kernel._groups(kernel.plan.tasks[0], kernel.pipelines[0]) <= max_groups
    root = np.zeros(4 * n, dtype=np.uint8)
    backend.root_changed_on_host()
    kernel.launch(root, ())
    backend.read_root(root)
    values = root.view(np.int32)
    assert values[0] == 0 and values[-1] == 3 * (n - 1)
    np.testing.assert_array_equal(values, np.arange(n, dtype=np.int32) * 3)


CONTROL = """
// Collatz steps (a serial while with break), skipping multiples of 7 (a continue in
// the parallel body) and counting odd steps with a continue in an inner range_for.
taichi.kernel @collatz(%x: memref<?xi32>, %y: memref<?xi32>, %z: memref<?xi32>) {
  %lo = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xi32>
  %ni = arith.index_cast %n : index to i32
  taichi.range_for %i = %lo to %ni : i32 {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %seven = arith.constant 7 : i32
    %px = taichi.element_ptr %x[%i] : memref<?xi32> -> memref<i32>
    %x0 = memref.load %px[] : memref<i32>
    %m7 = arith.remsi %x0, %seven : i32
    %skip = arith.cmpi eq, %m7, %zero : i32
    taichi.if %skip {
      taichi.continue
    }
    %v = memref.alloca() : memref<i32>
    %steps = memref.alloca() : memref<i32>
    memref.store %x0, %v[] : memref<i32>
    memref.store %zero, %steps[] : memref<i32>
    taichi.while {
      %cur = memref.load %v[] : memref<i32>
      %done = arith.cmpi sle, %cur, %one : i32
      taichi.if %done {
        taichi.break
      }
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
    %odd = memref.alloca() : memref<i32>
    memref.store %zero, %odd[] : memref<i32>
    taichi.range_for %k = %zero to %x0 : i32 {
      %kr = arith.remsi %k, %two : i32
      %ke = arith.cmpi eq, %kr, %zero : i32
      taichi.if %ke {
        taichi.continue
      }
      %o = memref.load %odd[] : memref<i32>
      %o1 = arith.addi %o, %one : i32
      memref.store %o1, %odd[] : memref<i32>
      taichi.yield
    }
    %pz = taichi.element_ptr %z[%i] : memref<?xi32> -> memref<i32>
    %of = memref.load %odd[] : memref<i32>
    memref.store %of, %pz[] : memref<i32>
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


def test_control_flow_with_break_and_continue(backend):
    kernel = backend.compile(parse(CONTROL), "collatz")
    x = np.arange(1, 1001, dtype=np.int32)
    y = np.full_like(x, -1)
    z = np.full_like(x, -1)
    kernel.launch(None, (x, y, z))
    skipped = x % 7 == 0
    assert (y[skipped] == -1).all() and (z[skipped] == -1).all()
    assert y[~skipped].tolist() == [_collatz(int(v)) for v in x[~skipped]]
    assert z[~skipped].tolist() == [int(v) // 2 for v in x[~skipped]]


PRINT = """
taichi.kernel @hello(%a: i32, %b: f32, %c: f64) {
  taichi.print "a = {} b = {} c = {}" %a, %b, %c : i32, f32, f64
  %lo = arith.constant 0 : i32
  %hi = arith.constant 3 : i32
  taichi.range_for %i = %lo to %hi : i32 {
    taichi.print "i = {}" %i : i32
    taichi.yield
  }
  taichi.return
}
"""


def test_print_through_the_print_buffer(backend, capfd: pytest.CaptureFixture[str]):
    kernel = backend.compile(parse(PRINT), "hello")
    kernel.launch(None, (7, 0.5, -1.25))
    out = capfd.readouterr().out.splitlines()
    assert out[0] == "a = 7 b = 0.500000 c = -1.250000000000"  # the CPU's printf formats
    assert sorted(out[1:]) == ["i = 0", "i = 1", "i = 2"]
    kernel.launch(None, (8, 1.5, 2.0))  # the buffer was reset
    assert capfd.readouterr().out.splitlines()[0] == "a = 8 b = 1.500000 c = 2.000000000000"


def test_launch_batches_until_the_host_reads(backend):
    kernel = backend.compile(parse(STENCIL), "stencil")
    root = np.zeros(2 * 16384, dtype=np.uint8)
    backend.root_changed_on_host()
    kernel.launch(root, ())
    start = time.perf_counter()
    waits = backend.runtime.stats.waits
    for _ in range(20):
        kernel.launch(root, ())
    assert backend.runtime.stats.waits == waits
    backend.sync()
    assert backend.runtime.stats.waits > waits
    assert time.perf_counter() - start < 30
