"""
Offload IR -> `ti-offload-to-llvm` -> LLVM IR -> llvmlite JIT, then each task called
through ctypes as the CPU task ABI says (utils/abi.py), against NumPy: ndarray and field
accesses, global temporaries, thread-local reductions split over threads, atomics,
return values, and the debug-mode error record.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

pytest.importorskip("llvmlite.binding")

from taichi_xdsl.targets.llvm.jit import compile_ir  # noqa: E402
from taichi_xdsl.targets.llvm.translate import to_llvm_ir  # noqa: E402
from taichi_xdsl.utils import abi, registry  # noqa: E402

TASK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32)
DEBUG_PIPELINE = registry.PIPELINES["ti-offload-to-llvm"].replace(
    "ti-lower-access", "ti-lower-access{debug=true}"
)


class Launch:
    """A RuntimeContext and the buffers it points at."""

    def __init__(self, root: np.ndarray | None = None, args: bytes = b""):
        self.root = root if root is not None else np.zeros(8, np.uint8)
        self.gtmps = np.zeros(64, np.uint8)
        self.returns = np.zeros(32, np.uint8)
        self.args = np.frombuffer(args + bytes(8), np.uint8).copy()
        self.error = np.zeros(abi.ERROR_RECORD_BYTES // 8, np.int64)
        buffers = (self.root, self.gtmps, self.returns, self.args, self.error)
        self.context = (ctypes.c_uint64 * (abi.CTX_BYTES // 8))(
            *(buffer.ctypes.data for buffer in buffers)
        )

    def run(
        self, jit, kernel: str, task: int, begin: int = 0, end: int = 1, threads: int = 1
    ):
        """Run a task over [begin, end), split into `threads` chunks run at once."""
        function = TASK(jit.address(abi.task_symbol(kernel, task)))
        bounds = np.linspace(begin, end, threads + 1).astype(int)
        workers = [
            threading.Thread(
                target=function, args=(ctypes.addressof(self.context), int(lo), int(hi))
            )
            for lo, hi in zip(bounds[:-1], bounds[1:])
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()


def compile_offload(source: str, pipeline: str = "ti-offload-to-llvm", name: str = ""):
    """`source` compiled through `pipeline`; with a file `name`, its ops carry their
    locations in it (as ti-opt reads a file)."""
    ctx = registry.make_context()
    from xdsl.parser import Parser

    from taichi_xdsl.utils.diagnostics import LocatingParser

    parser = LocatingParser(ctx, source, name) if name else Parser(ctx, source)
    module = parser.parse_module()
    registry.build_pipeline(pipeline).apply(ctx, module)
    module.verify()
    return compile_ir(to_llvm_ir(module))


def ndarray_words(*arrays: np.ndarray) -> bytes:
    words: list[int] = []
    for array in arrays:
        words += [array.ctypes.data, *array.shape]
    return np.array(words, np.uint64).tobytes()


SAXPY = """
offload.kernel @saxpy : (f32, memref<?xf32>, memref<?xf32>) -> () {
  offload.serial {
    %x = offload.arg 1 : memref<?xf32>
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %hi = arith.index_cast %n : index to i32
    %t = offload.global_tmp 0 : memref<i32>
    memref.store %hi, %t[] : memref<i32>
  }
  %lo = arith.constant 0 : i32
  %t = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %t[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.arg 0 : f32
    %x = offload.arg 1 : memref<?xf32>
    %y = offload.arg 2 : memref<?xf32>
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    %vx = memref.load %px[] : memref<f32>
    %vy = memref.load %py[] : memref<f32>
    %m = arith.mulf %a, %vx : f32
    %s = arith.addf %m, %vy : f32
    memref.store %s, %py[] : memref<f32>
  }
}
"""


def test_saxpy_on_ndarrays():
    jit = compile_offload(SAXPY)
    x = np.random.rand(1001).astype(np.float32)
    y = np.random.rand(1001).astype(np.float32)
    expected = 2.5 * x + y
    launch = Launch(args=np.float32(2.5).tobytes() + bytes(4) + ndarray_words(x, y))
    launch.run(jit, "saxpy", 0)
    n = int(launch.gtmps[:4].view(np.int32)[0])
    assert n == 1001
    launch.run(jit, "saxpy", 1, 0, n, threads=4)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


REDUCTION = """
taichi.field @total : memref<f32> offset 0
taichi.field @hits : memref<i32> offset 4
offload.kernel @reduce : (memref<?x?xf32>) -> (f32, i32) {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 64 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.arg 0 : memref<?x?xf32>
    %c1 = arith.constant 1 : i32
    %p = taichi.element_ptr %a[%i, %c1] : memref<?x?xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %acc = offload.thread_local 0 : memref<f32>
    %old = memref.load %acc[] : memref<f32>
    %new = arith.addf %old, %v : f32
    memref.store %new, %acc[] : memref<f32>
    %zero = arith.constant 0.5 : f32
    %big = arith.cmpf ogt, %v, %zero : f32
    taichi.if %big {
      %h = taichi.get_field @hits : memref<i32>
      %hp = taichi.element_ptr %h[] : memref<i32> -> memref<i32>
      %one = arith.constant 1 : i32
      %o = taichi.atomic_add %hp, %one : memref<i32>
      taichi.yield
    }
  } prologue {
    %acc = offload.thread_local 0 : memref<f32>
    %z = arith.constant 0.0 : f32
    memref.store %z, %acc[] : memref<f32>
  } epilogue {
    %acc = offload.thread_local 0 : memref<f32>
    %v = memref.load %acc[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %o = taichi.atomic_add %t, %v : memref<f32>
  }
  offload.serial {
    %t = taichi.get_field @total : memref<f32>
    %v = memref.load %t[] : memref<f32>
    offload.set_return 0, %v : f32
    %h = taichi.get_field @hits : memref<i32>
    %hp = taichi.element_ptr %h[] : memref<i32> -> memref<i32>
    %n = memref.load %hp[] : memref<i32>
    offload.set_return 1, %n : i32
  }
}
"""


def test_reduction_with_thread_locals_and_returns():
    jit = compile_offload(REDUCTION)
    a = np.random.rand(64, 3).astype(np.float32)
    launch = Launch(root=np.zeros(8, np.uint8), args=ndarray_words(a))
    launch.run(jit, "reduce", 0, 0, 64, threads=4)
    launch.run(jit, "reduce", 1)
    total = launch.returns[:4].view(np.float32)[0]
    hits = launch.returns[8:12].view(np.int32)[0]
    assert total == pytest.approx(a[:, 1].sum(), rel=1e-5)
    assert hits == int((a[:, 1] > 0.5).sum())


STENCIL = """
taichi.field @u : memref<8x8xf32> offset 0
taichi.field @v : memref<8x8xf32> offset 256
offload.kernel @stencil : () -> () {
  %lo = arith.constant 1 : i32
  %hi = arith.constant 7 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %one = arith.constant 1 : i32
    %seven = arith.constant 7 : i32
    %u = taichi.get_field @u : memref<8x8xf32>
    %v = taichi.get_field @v : memref<8x8xf32>
    taichi.range_for %j = %one to %seven : i32 {
      %im = arith.subi %i, %one : i32
      %ip = arith.addi %i, %one : i32
      %jm = arith.subi %j, %one : i32
      %p0 = taichi.element_ptr %u[%im, %j] : memref<8x8xf32> -> memref<f32>
      %p1 = taichi.element_ptr %u[%ip, %j] : memref<8x8xf32> -> memref<f32>
      %p2 = taichi.element_ptr %u[%i, %jm] : memref<8x8xf32> -> memref<f32>
      %a0 = memref.load %p0[] : memref<f32>
      %a1 = memref.load %p1[] : memref<f32>
      %a2 = memref.load %p2[] : memref<f32>
      %s = arith.addf %a0, %a1 : f32
      %t = arith.addf %s, %a2 : f32
      %q = taichi.element_ptr %v[%i, %j] : memref<8x8xf32> -> memref<f32>
      memref.store %t, %q[] : memref<f32>
      taichi.yield
    }
  }
}
"""


def test_field_stencil():
    jit = compile_offload(STENCIL)
    u = np.random.rand(8, 8).astype(np.float32)
    root = np.zeros(512, np.uint8)
    root[:256] = u.view(np.uint8).ravel()
    Launch(root=root).run(jit, "stencil", 0, 1, 7, threads=3)
    expected = np.zeros((8, 8), np.float32)
    expected[1:7, 1:7] = u[0:6, 1:7] + u[2:8, 1:7] + u[1:7, 0:6]
    np.testing.assert_allclose(root[256:].view(np.float32).reshape(8, 8), expected)


CHECKED = """
offload.kernel @checked : (memref<?xi32>, i32) -> i32 {
  offload.serial {
    %a = offload.arg 0 : memref<?xi32>
    %i = offload.arg 1 : i32
    %p = taichi.element_ptr %a[%i] : memref<?xi32> -> memref<i32>
    %v = memref.load %p[] : memref<i32>
    offload.set_return 0, %v : i32
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi sge, %v, %zero : i32
    taichi.assert %ok, "a[i] must not be negative"
  }
}
"""


@pytest.mark.parametrize("index", [-1, 4])
def test_debug_index_out_of_bounds(index: int):
    jit = compile_offload(CHECKED, DEBUG_PIPELINE)
    a = np.array([1, 2, 3, 4], np.int32)
    launch = Launch(args=ndarray_words(a) + np.int64(index).tobytes())
    launch.run(jit, "checked", 0)
    assert list(launch.error) == [abi.ERROR_INDEX_OUT_OF_BOUNDS, 0, index, 4]
    assert launch.returns[:4].view(np.int32)[0] == 0  # the load was skipped


def test_debug_index_out_of_bounds_names_its_site():
    """With a location, the record's first word is the address of the access's
    `file:line:column` text shifted left 8, or'ed with the dimension."""
    jit = compile_offload(CHECKED, DEBUG_PIPELINE, name="checked.mlir")
    a = np.array([1, 2, 3, 4], np.int32)
    launch = Launch(args=ndarray_words(a) + np.int64(4).tobytes())
    launch.run(jit, "checked", 0)
    first = int(launch.error[1])
    assert first & 255 == 0 and first >> 8
    line = CHECKED.splitlines().index(
        "    %p = taichi.element_ptr %a[%i] : memref<?xi32> -> memref<i32>"
    ) + 1
    assert ctypes.string_at(first >> 8) == f"checked.mlir:{line}:5".encode()
    assert list(launch.error[2:]) == [4, 4]


def test_debug_assert_writes_its_message():
    jit = compile_offload(CHECKED, DEBUG_PIPELINE)
    a = np.array([1, -2, 3, 4], np.int32)
    launch = Launch(args=ndarray_words(a) + np.int64(1).tobytes())
    launch.run(jit, "checked", 0)
    assert launch.error[0] == abi.ERROR_ASSERTION
    assert ctypes.string_at(int(launch.error[1])) == b"a[i] must not be negative"


def test_without_debug_nothing_is_checked():
    jit = compile_offload(CHECKED)
    a = np.array([1, -2, 3, 4], np.int32)
    launch = Launch(args=ndarray_words(a) + np.int64(1).tobytes())
    launch.run(jit, "checked", 0)
    assert list(launch.error) == [0, 0, 0, 0]
    assert launch.returns[:4].view(np.int32)[0] == -2
