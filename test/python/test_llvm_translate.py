"""
arith / math / cf / func + llvm_ext -> LLVM dialect (the convert-*-to-llvm passes) ->
LLVM IR text (targets/llvm/translate.py) -> llvmlite: parsed, verified, compiled by MCJIT
and run through ctypes, against Python's own arithmetic.
"""

from __future__ import annotations

import ctypes
import math
import threading
from collections.abc import Iterator

import pytest

llvm = pytest.importorskip("llvmlite.binding")

from taichi_xdsl.targets.llvm.translate import to_llvm_ir  # noqa: E402
from taichi_xdsl.utils import registry  # noqa: E402

TO_LLVM = (
    "convert-arith-to-llvm,convert-math-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
    "reconcile-unrealized-casts"
)

SOURCE = """
// sum over i < n of tan(data[i]) * scale, counting the iterations atomically.
func.func @sum_tan(%data: !llvm.ptr, %n: index, %scale: f32, %count: !llvm.ptr) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  cf.br ^header(%c0, %zero : index, f32)
^header(%i: index, %acc: f32):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^exit
^body:
  %i64 = arith.index_cast %i : index to i64
  %p = llvm.getelementptr inbounds %data[%i64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %x = llvm.load %p : !llvm.ptr -> f32
  %t = math.tan %x fastmath<fast> : f32
  %term = arith.mulf %t, %scale fastmath<fast> : f32
  %acc2 = arith.addf %acc, %term fastmath<fast> : f32
  %one = arith.constant 1 : i32
  %old = llvm_ext.atomicrmw add %count, %one monotonic : !llvm.ptr, i32
  %next = arith.addi %i, %c1 : index
  cf.br ^header(%next, %acc2 : index, f32)
^exit:
  func.return %acc : f32
}

// n atomic increments of an i32 and an f32 counter, to be run from several threads.
func.func @add_many(%ints: !llvm.ptr, %floats: !llvm.ptr, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %f1 = arith.constant 1.0 : f32
  cf.br ^loop(%c0 : i32)
^loop(%i: i32):
  %more = arith.cmpi slt, %i, %n : i32
  cf.cond_br %more, ^body, ^exit
^body:
  %a = llvm_ext.atomicrmw add %ints, %c1 monotonic : !llvm.ptr, i32
  %b = llvm_ext.atomicrmw fadd %floats, %f1 monotonic : !llvm.ptr, f32
  %next = arith.addi %i, %c1 : i32
  cf.br ^loop(%next : i32)
^exit:
  func.return
}

// Integer division rounding toward -inf and +inf (expanded by convert-arith-to-llvm).
func.func @floordiv(%a: i32, %b: i32) -> i32 {
  %q = arith.floordivsi %a, %b : i32
  func.return %q : i32
}
func.func @ceildiv(%a: i32, %b: i32) -> i32 {
  %q = arith.ceildivsi %a, %b : i32
  func.return %q : i32
}
func.func @ceildivu(%a: i32, %b: i32) -> i32 {
  %q = arith.ceildivui %a, %b : i32
  func.return %q : i32
}

// Conversions and float helpers: fptoui(uitofp(a) * 0.5) + round(x) + atan2(x, y) etc.
func.func @convert(%a: i32) -> i64 {
  %f = arith.uitofp %a : i32 to f64
  %half = arith.constant 0.5 : f64
  %h = arith.mulf %f, %half : f64
  %u = arith.fptoui %h : f64 to i64
  func.return %u : i64
}
func.func @float_ops(%x: f64, %y: f64) -> f64 {
  %a = math.atan2 %x, %y : f64
  %m = arith.maximumf %a, %y : f64
  %r = math.rsqrt %x : f64
  %s = arith.addf %m, %r : f64
  %c = arith.cmpf olt, %x, %y : f64
  %neg = arith.negf %s : f64
  %res = arith.select %c, %neg, %s : f64
  func.return %res : f64
}
"""


@pytest.fixture(scope="module")
def ir_text() -> str:
    ctx = registry.make_context()
    from xdsl.parser import Parser

    module = Parser(ctx, SOURCE).parse_module()
    registry.build_pipeline(TO_LLVM).apply(ctx, module)
    module.verify()
    return to_llvm_ir(module)


@pytest.fixture(scope="module")
def engine(ir_text: str) -> Iterator[object]:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(ir_text)
    module.verify()
    target_machine = llvm.Target.from_default_triple().create_target_machine(opt=2)
    engine = llvm.create_mcjit_compiler(module, target_machine)
    engine.finalize_object()
    yield engine


def _function(engine: object, name: str, restype: object, *argtypes: object):
    address = engine.get_function_address(name)  # type: ignore[attr-defined]
    assert address, f"no function {name}"
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


def test_ir_is_plain_llvm(ir_text: str) -> None:
    # The translation of the llvm_ext ops and of the libm call, with fast-math flags.
    assert "atomicrmw add ptr" in ir_text
    assert "atomicrmw fadd ptr" in ir_text
    assert 'call fast float @"tanf"' in ir_text
    assert "phi" in ir_text
    assert "unrealized_conversion_cast" not in ir_text


def test_loop_with_libm_call_and_atomic_counter(engine: object) -> None:
    sum_tan = _function(
        engine,
        "sum_tan",
        ctypes.c_float,
        ctypes.c_void_p,
        ctypes.c_int64,
        ctypes.c_float,
        ctypes.c_void_p,
    )
    values = [0.1 * k for k in range(10)]
    data = (ctypes.c_float * len(values))(*values)
    count = ctypes.c_int32(5)
    result = sum_tan(ctypes.addressof(data), len(values), 2.0, ctypes.addressof(count))
    expected = sum(math.tan(ctypes.c_float(v).value) * 2.0 for v in values)
    assert result == pytest.approx(expected, rel=1e-5)
    assert count.value == 5 + len(values)
    assert sum_tan(ctypes.addressof(data), 0, 2.0, ctypes.addressof(count)) == 0.0


def test_atomics_from_several_threads(engine: object) -> None:
    add_many = _function(
        engine, "add_many", None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32
    )
    ints, floats = ctypes.c_int32(0), ctypes.c_float(0.0)
    n, threads = 100_000, 4
    # ctypes releases the GIL during the call: the threads really race.
    workers = [
        threading.Thread(
            target=add_many, args=(ctypes.addressof(ints), ctypes.addressof(floats), n)
        )
        for _ in range(threads)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert ints.value == n * threads
    assert floats.value == float(n * threads)  # exact: below 2**24


@pytest.mark.parametrize("a", [-7, -6, -1, 0, 1, 6, 7, 2**31 - 1, -(2**31) + 1])
@pytest.mark.parametrize("b", [-3, -2, -1, 1, 2, 3])
def test_rounding_division(engine: object, a: int, b: int) -> None:
    i32 = ctypes.c_int32
    floordiv = _function(engine, "floordiv", i32, i32, i32)
    ceildiv = _function(engine, "ceildiv", i32, i32, i32)
    assert floordiv(a, b) == a // b
    assert ceildiv(a, b) == -((-a) // b)


@pytest.mark.parametrize(("a", "b"), [(0, 3), (1, 3), (3, 3), (4, 3), (2**32 - 1, 2)])
def test_unsigned_ceil_division(engine: object, a: int, b: int) -> None:
    ceildivu = _function(
        engine, "ceildivu", ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32
    )
    assert ceildivu(a, b) == -((-a) // b)


def test_unsigned_conversions(engine: object) -> None:
    convert = _function(engine, "convert", ctypes.c_uint64, ctypes.c_uint32)
    assert convert(2**32 - 1) == (2**32 - 1) // 2  # uitofp: the top bit is not a sign
    assert convert(7) == 3


@pytest.mark.parametrize(("x", "y"), [(0.5, 2.0), (3.0, 0.25), (1.0, 1.0)])
def test_float_ops(engine: object, x: float, y: float) -> None:
    float_ops = _function(
        engine, "float_ops", ctypes.c_double, ctypes.c_double, ctypes.c_double
    )
    s = max(math.atan2(x, y), y) + 1.0 / math.sqrt(x)
    assert float_ops(x, y) == pytest.approx(-s if x < y else s, rel=1e-12)
