"""
Group counts computed on the device (targets/vulkan/group_count.py): the shader itself,
and range_for tasks whose bounds a task before them stores (a struct-for over a dynamic
SNode's length, over a list generated from pointer cells), which on a CPU device are
dispatched indirectly over exactly the groups their bounds need. Every element must be
visited once, for any length, on both archs.
"""

from __future__ import annotations

import numpy as np
import pytest
import taichi_xdsl as ti
from vulkan_shaders import assemble, spirv_tools_missing

pytestmark = pytest.mark.usefixtures("program")


def test_assembly_is_the_shipped_binary() -> None:
    missing = spirv_tools_missing()
    if missing:
        pytest.skip(missing)
    from taichi_xdsl.targets.vulkan.group_count import ASSEMBLY, SPIRV

    assert assemble(ASSEMBLY) == SPIRV  # spirv-val clean too (assemble validates)


@pytest.mark.vulkan_only("the count pass is a Vulkan dispatch")
def test_counts(arch) -> None:
    from taichi_xdsl.frontends.python.lang import program as _program
    from taichi_xdsl.targets.vulkan.group_count import COUNT_BYTES, GroupCounter

    rt = _program.get_program().backend.runtime
    bounds = rt.allocate(16)
    rt.upload(bounds, np.array([5, 10005, -3, 0], np.int32))
    cases = [  # (begin, end, local, cap) -> groups
        ((0, None), (None, 4), 256, 65535, 40),  # 0 .. 10005
        ((None, 0), (None, 4), 256, 65535, 40),  # 5 .. 10005: 10000 / 256 -> 40
        ((0, None), (256, None), 256, 65535, 1),  # exactly one group
        ((0, None), (257, None), 256, 65535, 2),
        ((0, None), (None, 8), 128, 65535, 0),  # end -3: empty
        ((None, 4), (None, 0), 64, 65535, 0),  # begin past end: empty
        ((0, None), (None, 4), 32, 7, 7),  # capped
    ]
    counts = rt.allocate(COUNT_BYTES * len(cases))
    counter = GroupCounter(rt)
    for slot, (begin, end, local, cap, _) in enumerate(cases):
        counter.record(bounds, counts, slot, begin, end, local, cap)
    got = rt.download(counts, np.empty((len(cases), 3), np.int32))
    want = np.array([[g, 1, 1] for *_, g in cases], np.int32)
    np.testing.assert_array_equal(got, want)
    rt.release(bounds)
    rt.release(counts)


def _counted(kernel) -> dict[int, int]:
    (instance,) = kernel._instances.values()
    return getattr(instance.compiled, "_count_slots", {})


@pytest.mark.parametrize("n", [0, 1, 255, 256, 257, 5000])
def test_struct_for_over_a_list_length(arch, n: int) -> None:
    x = ti.field(ti.i32)
    ti.root.dynamic(ti.i, 1 << 16, chunk_size=1024).place(x)
    visits = ti.field(ti.i32, shape=1 << 16)

    @ti.kernel
    def fill(n: ti.i32):
        ti.loop_config(serialize=True)  # element i holds 3 i (parallel appends: any order)
        for i in range(n):
            ti.append(x.parent(), [], i * 3)

    @ti.kernel
    def visit():
        ti.loop_config(block_dim=64)
        for i in x:
            ti.atomic_add(visits[i], 1 + x[i])

    fill(n)
    visit()
    want = np.zeros(1 << 16, np.int32)
    want[:n] = 1 + 3 * np.arange(n)
    np.testing.assert_array_equal(visits.to_numpy(), want)
    from taichi_xdsl.frontends.python.lang import program as _program

    if getattr(_program.get_program().backend, "count_on_device", False):
        assert _counted(visit)  # the loop over the length is counted on the device


@pytest.mark.parametrize("active", [0, 1, 7, 64])
def test_struct_for_over_generated_lists(arch, active: int) -> None:
    x = ti.field(ti.f32)
    ti.root.pointer(ti.ij, 8).pointer(ti.ij, 4).dense(ti.ij, 2).place(x)

    @ti.kernel
    def activate(cells: ti.types.ndarray()):
        for k in range(cells.shape[0]):
            x[cells[k, 0], cells[k, 1]] = 1.0

    @ti.kernel
    def bump():
        for i, j in x:
            x[i, j] += i * 64 + j

    rng = np.random.default_rng(active)
    cells = rng.choice(64 * 64, size=active, replace=False)
    ij = np.stack([cells // 64, cells % 64], axis=1).astype(np.int32)
    if active:
        activate(ij)
    bump()
    got = x.to_numpy()
    # every element of an active 2x2 block is visited once: 0 + i * 64 + j where the
    # block was activated by a write elsewhere in it, 1 + ... at the written element
    want = np.zeros((64, 64), np.float32)
    for i, j in ij:
        bi, bj = i // 2 * 2, j // 2 * 2
        for a in range(bi, bi + 2):
            for b in range(bj, bj + 2):
                want[a, b] = a * 64 + b
    for i, j in ij:
        want[i, j] += 1.0
    np.testing.assert_array_equal(got, want)
    from taichi_xdsl.frontends.python.lang import program as _program

    if getattr(_program.get_program().backend, "count_on_device", False):
        assert len(_counted(bump)) >= 2  # the second level's list and the loop over it


@pytest.mark.parametrize("n", [0, 1, 300, 70000])
def test_range_over_a_bound_read_from_a_field(arch, n: int) -> None:
    count = ti.field(ti.i32, shape=())
    out = ti.field(ti.i32, shape=80000)

    @ti.kernel
    def mark(start: ti.i32):
        for i in range(start, count[None]):  # bounds stored by the serial task before
            out[i] += i + 1

    count[None] = n
    mark(0)
    mark(n // 2)  # a bound from the argument, the other from the field
    want = np.zeros(80000, np.int32)
    want[:n] = np.arange(1, n + 1)
    want[n // 2 : n] *= 2
    np.testing.assert_array_equal(out.to_numpy(), want)
    from taichi_xdsl.frontends.python.lang import program as _program

    if getattr(_program.get_program().backend, "count_on_device", False):
        assert _counted(mark)
