"""
The memory pages under the root buffer: a lazy CPU root (an mmap, so that sparse pools
take memory only where written) asks for transparent huge pages under its dense fields
of 4 MiB or more, as NumPy does for its arrays, and not under pools or the hidden arrays
of sparse SNodes; the layout and the values stay what they were.
"""

import mmap
import os
import re

import numpy as np
import pytest

import taichi_xdsl as ti
from taichi_xdsl.frontends.python.lang import program as program_module

THP = "/sys/kernel/mm/transparent_hugepage/enabled"


def vma_flags(address: int) -> list[str]:
    """The VmFlags of this process's mapping that holds `address` (/proc/self/smaps)."""
    inside = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            header = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", line)
            if header:
                inside = int(header[1], 16) <= address < int(header[2], 16)
            elif inside and line.startswith("VmFlags:"):
                return line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


def sparse_program(n: int) -> tuple[ti.Field, ti.Field]:
    """A dense f32 field of n x n (n * n * 4 bytes) beside a pointer SNode's pool."""
    dense = ti.field(ti.f32, shape=(n, n))
    sparse = ti.field(ti.f32)
    ti.root.pointer(ti.i, 64).dense(ti.i, 256).place(sparse)

    @ti.kernel
    def fill():
        for i, j in dense:
            dense[i, j] = i * 0.5 + j
        for k in range(17):
            sparse[k * 1000] = k * 2000.0

    fill()
    return dense, sparse


@pytest.mark.cpu_only("a CPU root's host pages; Vulkan's root is a device buffer")
@pytest.mark.skipif(not os.path.exists(THP), reason="no transparent huge pages here")
def test_lazy_root_asks_huge_pages_for_dense_fields_only(arch, monkeypatch):
    monkeypatch.setattr(program_module, "LAZY_ROOT_BYTES", 1 << 20)
    ti.init(arch=arch, offline_cache=False)
    dense, sparse = sparse_program(2048)  # 16 MiB
    prog = program_module.get_program()
    root = prog.root
    assert root is not None
    assert isinstance(prog._root_storage.base.obj, mmap.mmap), "the root is not lazy"
    base = root.ctypes.data
    middle = base + dense.offset + dense.nbytes // 2
    assert "hg" in vma_flags(middle)
    pool_arrays = [f for f in prog.fields if f.pool_owner is not None or f.hidden]
    assert pool_arrays
    for f in pool_arrays:
        assert "hg" not in vma_flags(base + f.offset), f.name
    # the values are where they were
    i, j = np.meshgrid(np.arange(2048), np.arange(2048), indexing="ij")
    np.testing.assert_array_equal(dense.to_numpy(), (i * 0.5 + j).astype(np.float32))
    assert sparse[3000] == 6000.0 and sparse[3001] == 0.0


@pytest.mark.cpu_only("a CPU root's host pages; Vulkan's root is a device buffer")
@pytest.mark.skipif(not os.path.exists(THP), reason="no transparent huge pages here")
def test_small_dense_fields_and_fields_placed_later_in_a_lazy_root(arch, monkeypatch):
    monkeypatch.setattr(program_module, "LAZY_ROOT_BYTES", 1 << 20)
    ti.init(arch=arch, offline_cache=False)
    small = ti.field(ti.f32, shape=1 << 18)  # 1 MiB: below NumPy's 4 MiB, left alone
    big = ti.field(ti.f32, shape=(2048, 2048))
    small.fill(1.0)  # the root exists from here on
    later = ti.field(ti.f32, shape=(2048, 2048))  # placed after: grows the root
    later.fill(3.0)
    base = program_module.get_program().root.ctypes.data
    assert "hg" not in vma_flags(base + small.offset + small.nbytes // 2)
    assert "hg" in vma_flags(base + big.offset + big.nbytes // 2)
    assert "hg" in vma_flags(base + later.offset + later.nbytes // 2)
    assert small.to_numpy().sum() == 1 << 18 and later.to_numpy()[5, 7] == 3.0


@pytest.mark.usefixtures("program")
def test_dense_field_beside_a_pool_keeps_its_values():
    """The same program on either arch: the advice changes no offset and no value."""
    dense, sparse = sparse_program(1024)
    i, j = np.meshgrid(np.arange(1024), np.arange(1024), indexing="ij")
    np.testing.assert_array_equal(dense.to_numpy(), (i * 0.5 + j).astype(np.float32))
    values = sparse.to_numpy()
    expected = np.zeros(64 * 256, np.float32)
    expected[::1000] = np.arange(0, 64 * 256, 1000) * 2.0
    np.testing.assert_array_equal(values, expected)


def test_large_fields_sit_no_power_of_two_apart(arch):
    """On CPU, fields of 64 KiB or more are staggered in the root (Program._staggered):
    two 2^k-byte fields packed end to end would sit an exact power of two apart and
    share cache sets in a loop that reads one and writes the other (a 2048^2 stencil
    ran 2.5x slower). Vulkan keeps the packed layout. Values are unchanged either way."""
    ti.init(arch=arch)
    n = 512
    u = ti.field(ti.f32, shape=(n, n))
    v = ti.field(ti.f32, shape=(n, n))
    w = ti.field(ti.f32, shape=(n, n))
    small = ti.field(ti.i32, shape=16)

    @ti.kernel
    def step():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            v[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
            w[i, j] = v[i, j] - u[i, j]
        for k in small:
            small[k] = k

    data = (np.arange(n * n, dtype=np.float32).reshape(n, n) % 7).astype(np.float32)
    u.from_numpy(data)
    step()
    want = np.zeros_like(data)
    want[1:-1, 1:-1] = data[:-2, 1:-1] + data[2:, 1:-1] + data[1:-1, :-2] + data[1:-1, 2:]
    np.testing.assert_array_equal(v.to_numpy(), want)
    np.testing.assert_array_equal(w.to_numpy()[1:-1, 1:-1], (want - data)[1:-1, 1:-1])
    assert list(small.to_numpy()) == list(range(16))
    offsets = [f.offset for f in (u, v, w)]
    gaps = [b - a for a, b in zip(offsets, offsets[1:])]
    if arch is ti.cpu:
        assert all(gap % 4096 != 0 for gap in gaps), gaps
    else:
        assert gaps == [n * n * 4, n * n * 4]
