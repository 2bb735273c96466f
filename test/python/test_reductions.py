"""
Reductions end to end, on cpu and vulkan: every atomic kind (add, sub, min, max, and, or,
xor) on every integer width (signed and unsigned, 8 to 64 bits) and float, from a
parallel loop into a 0-d field, against NumPy.

ti-make-thread-local turns the add/sub, min and max reductions into a per-thread slot
that starts at the kind's identity and is combined into the field once per thread, so
the data sets are chosen to expose a wrong identity or a wrong combine: data at the
type's extremes (a slot that starts one step short of the extreme shows), the field's
starting value beyond every element (the combine must keep it), signed data read as
unsigned, and loops of 0, 1 and many iterations (threads with no iteration combine their
bare identity). Also: the alias that ti-demote-atomics must see through (two reads of
one ndarray argument in one task).
"""

# No `from __future__ import annotations`: the kernels annotate with local dtypes.

from typing import Any

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils import registry
from taichi_xdsl.utils.errors import TaichiCompilationError
from xdsl.parser import Parser

INTEGERS = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")
FLOATS = ("f32", "f64")
KINDS = ("add", "sub", "min", "max", "and", "or", "xor")
FLOAT_KINDS = ("add", "sub", "min", "max")


def _np(dtype: str) -> np.dtype:
    return np.dtype({"i": "int", "u": "uint", "f": "float"}[dtype[0]] + dtype[1:])


def _extremes(dt: np.dtype) -> tuple[Any, Any]:
    if dt.kind == "f":
        return dt.type(-np.inf), dt.type(np.inf)
    info = np.iinfo(dt)
    return dt.type(info.min), dt.type(info.max)


def _identity(kind: str, dt: np.dtype) -> Any:
    lo, hi = _extremes(dt)
    if kind == "min":
        return hi
    if kind == "max":
        return lo
    if kind == "and":
        return np.array(-1).astype(dt)[()]  # every bit set
    return dt.type(0)


def _expected(kind: str, start: Any, data: np.ndarray) -> Any:
    """`start` reduced with every element of `data` (integers wrap, as atomics do)."""
    dt = data.dtype
    if kind in ("add", "sub"):
        total = np.add.reduce(data, dtype=dt, initial=dt.type(0))
        with np.errstate(over="ignore"):
            out = np.array([start], dt) + total if kind == "add" else np.array([start], dt) - total
        return out[0]
    ufunc = {
        "min": np.minimum,
        "max": np.maximum,
        "and": np.bitwise_and,
        "or": np.bitwise_or,
        "xor": np.bitwise_xor,
    }[kind]
    return ufunc.reduce(data, initial=start)


def _data_sets(dt: np.dtype) -> dict[str, np.ndarray]:
    lo, hi = _extremes(dt)
    # Small values, with negatives that an unsigned type reads as large ones; float sums
    # of these are exact in any order.
    with np.errstate(over="ignore"):
        mixed = ((np.arange(1000) * 37) % 97 - 40).astype(dt)
    return {
        "mixed": mixed,
        "one": mixed[:1] if mixed[0] != 0 else mixed[1:2],
        "empty": mixed[:0],
        "all_max": np.full(300, hi, dt),
        "all_min": np.full(300, lo, dt),
    }


def _kernel(dtype: Any, kinds: tuple[str, ...], places: dict[str, Any]) -> Any:
    @ti.kernel
    def reduce_all(x: ti.types.ndarray(dtype=dtype, ndim=1)):
        for i in range(x.shape[0]):
            v = x[i]
            ti.atomic_add(places["add"][None], v)
            ti.atomic_sub(places["sub"][None], v)
            ti.atomic_min(places["min"][None], v)
            ti.atomic_max(places["max"][None], v)
            if ti.static("and" in kinds):
                ti.atomic_and(places["and"][None], v)
                ti.atomic_or(places["or"][None], v)
                ti.atomic_xor(places["xor"][None], v)

    return reduce_all


@pytest.mark.parametrize("dtype", INTEGERS + FLOATS)
def test_every_reduction_kind(program, dtype: str):
    dt = _np(dtype)
    kinds = FLOAT_KINDS if dt.kind == "f" else KINDS
    places = {kind: ti.field(getattr(ti, dtype), shape=()) for kind in kinds}
    kernel = _kernel(getattr(ti, dtype), kinds, places)
    lo, hi = _extremes(dt)
    if program is ti.vulkan and dt.itemsize < 4:
        # Not a device limit: the SPIR-V lowering has no 8- or 16-bit atomics yet, and
        # says so rather than computing something else.
        places["add"][None] = 0  # materialises the fields (compiles nothing)
        with pytest.raises(TaichiCompilationError, match=f"atomics on i{8 * dt.itemsize}"):
            kernel(_data_sets(dt)["mixed"])
        return
    for name, data in _data_sets(dt).items():
        # The field starts at the kind's identity, then beyond every element, where the
        # combine must keep it (min: the type's minimum, and: 0, or: every bit set).
        beyond = {"min": lo, "max": hi, "and": dt.type(0), "or": _identity("and", dt)}
        for start_name, start in (
            ("identity", lambda kind: _identity(kind, dt)),
            ("beyond", lambda kind: beyond.get(kind, dt.type(5))),
        ):
            for kind in kinds:
                places[kind][None] = start(kind)
            kernel(data)
            for kind in kinds:
                want = _expected(kind, start(kind), data)
                got = places[kind][None]
                assert np.array([got]).astype(dt)[0] == want or (
                    np.isnan(want) and np.isnan(got)
                ), f"{dtype} atomic_{kind} over {name} data from {start_name}: {got} != {want}"


def test_unsigned_min_over_a_range(program):
    """The issue's case: a u32 min-reduction over 100..199 is 100 (a slot that starts
    at 0 instead of the maximum makes it 0)."""
    total = ti.field(ti.u32, shape=())
    x = ti.field(ti.u32, shape=100)

    @ti.kernel
    def fill_and_reduce():
        for i in x:
            x[i] = 100 + i
        for i in x:
            ti.atomic_min(total[None], x[i])

    total[None] = 4294967295
    fill_and_reduce()
    assert total[None] == 100


# Two `offload.arg 0` in one range_for read the same ndarray: x[i] of iteration 0 is also
# x[0], which every iteration updates. ti-demote-atomics must keep the atomic on x[i]
# (it once named ndarrays by SSA value and demoted it to a racing load/add/store).
TWO_READS = """
offload.kernel @two_reads : (memref<?xi32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 4096 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = offload.arg 0 : memref<?xi32>
    %b = offload.arg 0 : memref<?xi32>
    %one = arith.constant 1 : i32
    %c0 = arith.constant 0 : i32
    %own = taichi.element_ptr %a[%i] : memref<?xi32> -> memref<i32>
    %0 = taichi.atomic_add %own, %one : memref<i32>
    %first = taichi.element_ptr %b[%c0] : memref<?xi32> -> memref<i32>
    %1 = taichi.atomic_add %first, %one : memref<i32>
  }
}
"""


def _spirv_opcodes(binary: bytes) -> list[int]:
    words = np.frombuffer(binary, np.uint32)
    opcodes, at = [], 5  # after the header
    while at < len(words):
        opcodes.append(int(words[at] & 0xFFFF))
        at += int(words[at] >> 16)
    return opcodes


def _after_ti_offload(arch) -> str:
    """The arch's offload-stage passes after ti-offload (ti-demote-atomics, ...): a
    module given to the JIT at the offload stage starts at the next stage, so a test
    written in the offload dialect runs these itself."""
    from taichi_xdsl.utils.pipelines import pipeline

    passes = pipeline(arch).stage("offload").passes
    return ",".join(passes[passes.index("ti-offload") + 1 :])


def test_two_reads_of_one_ndarray_keep_their_atomics(arch):
    ctx = registry.make_context()
    module = Parser(ctx, TWO_READS).parse_module()
    spec = _after_ti_offload(arch)
    assert "ti-demote-atomics" in spec
    registry.build_pipeline(spec).apply(ctx, module)
    if arch is ti.vulkan:
        from taichi_xdsl.targets.vulkan.backend import UNROLL, VulkanBackend

        kernel = VulkanBackend().compile(module, "two_reads")
        atomics = sum(_spirv_opcodes(b).count(234) for b in kernel.binaries)  # OpAtomicIAdd
        # The straight-line body is also in the loop that runs UNROLL iterations at a
        # time (convert-offload-to-spirv{unroll}): each copy keeps both atomics.
        assert atomics in (2, 2 * (1 + UNROLL))
    else:
        from taichi_xdsl.targets.llvm.backend import CpuBackend

        kernel = CpuBackend().compile(module, "two_reads")
        atomics = kernel.llvm_ir.count("atomicrmw add")
        assert atomics == 2
    for _ in range(5):  # a lost update needs the race to strike: try a few times
        x = np.zeros(4096, np.int32)
        kernel.launch(None, (x,))
        if arch is ti.vulkan:
            kernel.backend.sync()
        assert x[0] == 4097 and (x[1:] == 1).all()


def test_reduction_place_read_at_an_unknown_index(program):
    """h[0] += 1 may not go through a thread-local slot while the same loop reads h[j]
    at an index known only at run time: with j = 0 every iteration must see at least
    its own increment (a slot would leave h[0] at 0 until after the loop)."""
    h = ti.field(ti.i32, shape=8)
    out = ti.field(ti.i32, shape=256)

    @ti.kernel
    def count_and_read(j: ti.i32):
        for i in range(256):
            h[0] += 1
            out[i] = h[j]

    count_and_read(0)
    assert h[0] == 256
    seen = out.to_numpy()
    assert (seen >= 1).all() and (seen <= 256).all(), seen
    # At constant, different indices h[3] cannot be h[5]: the sum is exact either way.
    h.fill(0)

    @ti.kernel
    def count_and_read_other():
        for i in range(256):
            h[3] += 2
            out[i] = h[5]

    count_and_read_other()
    assert h[3] == 512 and (out.to_numpy() == 0).all()


@pytest.mark.parametrize("dtype", ("i32", "u32", "i64", "u64", "f32", "f64"))
def test_add_min_max_over_many_workgroups(program, dtype: str):
    """Sums, minima and maxima of 2^20 + 3 elements: on Vulkan hundreds of workgroups,
    each combining its subgroups' partials through Workgroup memory before its one
    atomic (lowering/spirv_reduce.py; lavapipe has more subgroups a workgroup than lanes
    a subgroup, so the fold loops). The extremes sit in the last, partly filled
    workgroup and in the first; float data are small integers, so every order of the
    float sum is exact."""
    dt = _np(dtype)
    n = (1 << 20) + 3
    rng = np.random.default_rng(18)
    if dt.kind == "f":
        data = rng.integers(-8, 9, size=n).astype(dt)
    else:
        info = np.iinfo(dt)
        data = rng.integers(info.min // 4, info.max // 4, size=n, dtype=dt)
    lo, hi = _extremes(dt)
    if dt.kind != "f":
        data[-1], data[-2], data[5] = hi, lo, hi
    else:
        data[-1], data[-2] = 20, -20
    places = {kind: ti.field(getattr(ti, dtype), shape=()) for kind in ("add", "min", "max")}

    @ti.kernel
    def reduce_three(x: ti.types.ndarray(dtype=getattr(ti, dtype), ndim=1)):
        for i in range(x.shape[0]):
            ti.atomic_add(places["add"][None], x[i])
            ti.atomic_min(places["min"][None], x[i])
            ti.atomic_max(places["max"][None], x[i])

    for kind in places:
        places[kind][None] = _identity(kind, dt)
    reduce_three(data)
    for kind in places:
        want = _expected(kind, _identity(kind, dt), data)
        assert places[kind][None] == want, f"{dtype} {kind}: {places[kind][None]} != {want}"
    if program is ti.vulkan:
        (compiled,) = [i.compiled for i in reduce_three._instances.values()]
        if compiled.backend.combines_per_workgroup:
            opcodes = [op for b in compiled.binaries for op in _spirv_opcodes(b)]
            assert opcodes.count(224) == 3  # OpControlBarrier: one a combined reduction
