"""
AOT modules on every arch: kernels that take ndarrays of vectors/matrices (the
metadata names the field ndim and the element shape, the loaded kernel gives the
JIT's results and refuses an array of another element shape); which fields a module
takes (dense ones, nested or side by side).
"""

from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def test_vector_and_matrix_ndarrays_round_trip(tmp_path: Path):
    @ti.kernel
    def place(arr: ti.types.ndarray(dtype=ti.math.vec2, ndim=2), s: ti.f32):
        for I in ti.grouped(arr):
            arr[I] = [I[0] * s, I[1] + s]

    @ti.kernel
    def square(m: ti.types.ndarray(ndim=1)):
        for i in m:
            m[i] = m[i] @ m[i]

    module = ti.aot.Module()
    module.add_kernel(place)  # the annotation is enough
    module.add_kernel(square, template_args={"m": ti.Matrix.ndarray(2, 2, ti.i32, shape=3)})
    module.save(tmp_path)
    loaded = ti.aot.load(tmp_path)
    args = {a.name: a for a in loaded.get_kernel("place").attrs.args}
    assert (args["arr"].ndim, args["arr"].element_shape, args["arr"].dtype) == (2, (2,), "f32")
    args = {a.name: a for a in loaded.get_kernel("square").attrs.args}
    assert (args["m"].ndim, args["m"].element_shape, args["m"].dtype) == (1, (2, 2), "i32")

    a = np.zeros((3, 2, 2), np.float32)
    loaded.get_kernel("place")(a, 2.0)
    jit = ti.Vector.ndarray(2, ti.f32, shape=(3, 2))
    place(jit, 2.0)
    assert a.tolist() == jit.to_numpy().tolist()
    assert a[2, 1].tolist() == [4.0, 3.0]

    b = np.arange(12, dtype=np.int32).reshape(3, 2, 2)
    want = b @ b
    loaded.get_kernel("square")(b)
    assert b.tolist() == want.tolist()
    with pytest.raises(ti.TaichiTypeError, match=r"elements of shape \(2,\), got an array of shape \(3, 2, 3\)"):
        loaded.get_kernel("place")(np.zeros((3, 2, 3), np.float32), 1.0)


def test_vector_ndarray_graph_round_trip(tmp_path: Path):
    @ti.kernel
    def norm2(v: ti.types.ndarray(dtype=ti.math.vec3, ndim=1), out: ti.types.ndarray(dtype=ti.f32, ndim=1)):  # fmt: skip
        for i in v:
            out[i] = v[i].dot(v[i])

    g = ti.graph.GraphBuilder()
    g.dispatch(
        norm2,
        ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "v", ti.math.vec3, ndim=1),
        ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "out", ti.f32, ndim=1),
    )
    module = ti.aot.Module()
    module.add_graph("g", g.compile())
    module.save(tmp_path)
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.zeros(2, np.float32)
    ti.aot.load(tmp_path).get_graph("g").run({"v": v, "out": out})
    assert out.tolist() == [5.0, 50.0]


def test_dense_fields_side_by_side_and_nested(tmp_path: Path):
    """Fields side by side under one dense node, or under nested dense nodes (which
    Taichi's AOT refuses), load with their values (sparse ones: test_sparse.py)."""
    x, y, z = ti.field(ti.f32), ti.field(ti.f32), ti.field(ti.i32)
    ti.root.dense(ti.i, 4).place(x, y)
    ti.root.dense(ti.ij, 2).dense(ti.ij, 2).place(z)

    @ti.kernel
    def init():
        for i in x:
            x[i] = i
            y[i] = 10 + i
        for i, j in z:
            z[i, j] = i * 10 + j

    module = ti.aot.Module()
    for name, f in (("x", x), ("y", y), ("z", z)):
        module.add_field(name, f)
    module.add_kernel(init)
    module.save(tmp_path)
    loaded = ti.aot.load(tmp_path)
    loaded.get_kernel("init")()
    assert loaded.get_field("x").tolist() == [0, 1, 2, 3]
    assert loaded.get_field("y").tolist() == [10, 11, 12, 13]
    assert loaded.get_field("z").tolist() == [[i * 10 + j for j in range(4)] for i in range(4)]


def test_matrix_parameters_round_trip(tmp_path: Path):
    """A vector/matrix parameter is one MATRIX argument in the metadata; the loaded
    kernel and graph take a ti.Matrix (or nested lists) and give the JIT's results."""

    @ti.kernel
    def weigh(m: ti.types.matrix(2, 3, ti.i32), s: ti.f32, out: ti.types.ndarray(dtype=ti.f32, ndim=1)):  # fmt: skip
        out[0] = m[0, 1] * 10 + m[1, 2] + s

    @ti.kernel
    def shift(v: ti.types.vector(3, ti.u32), out: ti.types.ndarray(dtype=ti.u32, ndim=1)):
        for i in range(3):
            out[i] = v[i] + 1

    g = ti.graph.GraphBuilder()
    g.dispatch(
        shift,
        ti.graph.Arg(ti.graph.ArgKind.MATRIX, "v", ti.types.vector(3, ti.u32)),
        ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "out", ti.u32, ndim=1),
    )
    module = ti.aot.Module()
    module.add_kernel(weigh)
    module.add_graph("shift", g.compile())
    module.save(tmp_path)
    loaded = ti.aot.load(tmp_path)
    (m,) = [a for a in loaded.get_kernel("weigh").attrs.args if a.name == "m"]
    assert (m.kind.name, m.dtype, m.element_shape) == ("MATRIX", "i32", (2, 3))

    out, jit = np.zeros(1, np.float32), np.zeros(1, np.float32)
    matrix = ti.Matrix([[1, 2, 3], [4, 5, 6]], ti.i32)
    loaded.get_kernel("weigh")(matrix, 0.5, out)
    weigh(matrix, 0.5, jit)
    assert out.tolist() == jit.tolist() == [26.5]
    loaded.get_kernel("weigh")([[0, -1, 0], [0, 0, 7]], 0.0, out)
    assert out.tolist() == [-3.0]
    with pytest.raises(ti.TaichiTypeError, match=r"is a \(2, 3\) matrix, got \(4,\)"):
        loaded.get_kernel("weigh")([1, 2, 3, 4], 0.0, out)

    small = np.zeros(3, np.uint32)
    top = 2**32 - 1
    loaded.get_graph("shift").run({"v": ti.Vector([1, top - 1, top], ti.u32), "out": small})
    assert small.tolist() == [2, top, 0]


def test_module_at_opt_level_zero_gives_the_same_results(tmp_path: Path, arch):
    """A program at opt_level=0 exports its kernels compiled without the optional passes
    (as its JIT runs them): the loaded kernel reduces as the optimised one does."""

    @ti.kernel
    def total(arr: ti.types.ndarray(dtype=ti.i32, ndim=1), out: ti.types.ndarray(ti.i32, 1)):
        for i in arr:
            out[0] += arr[i] * 3  # the reduction ti-make-thread-local rewrites

    a = np.arange(100, dtype=np.int32)
    for level in (0, 1):
        ti.init(arch=arch, opt_level=level, offline_cache=False)
        module = ti.aot.Module()
        module.add_kernel(total)
        module.save(tmp_path / str(level))
        out = np.zeros(1, np.int32)
        ti.aot.load(tmp_path / str(level)).get_kernel("total")(a, out)
        assert out[0] == 3 * a.sum()
