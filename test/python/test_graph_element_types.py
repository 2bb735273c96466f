"""
ti.graph Args whose dtype is a vector or matrix type, on every arch: ndarrays of
vectors (`ti.math.vec2`), MATRIX Args for vector/matrix kernel parameters, and the
checks Taichi makes when such a graph is built and run.
"""

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def test_vector_ndarray_arg_runs():
    @ti.kernel
    def swap(a: ti.types.ndarray(dtype=ti.math.vec2, ndim=1), s: ti.f32):
        for i in a:
            a[i] = ti.Vector([a[i][1], a[i][0]]) * s

    g = ti.graph.GraphBuilder()
    g.dispatch(
        swap,
        ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", ti.math.vec2, ndim=1),
        ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.f32),
    )
    graph = g.compile()
    a = ti.Vector.ndarray(2, ti.f32, shape=3)
    a.from_numpy(np.arange(6, dtype=np.float32).reshape(3, 2))
    graph.run({"a": a, "s": 2.0})
    graph.run({"a": a, "s": 0.5})
    assert a.to_numpy().tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    graph.run({"a": a, "s": 3.0})
    assert a.to_numpy().tolist() == [[3.0, 0.0], [9.0, 6.0], [15.0, 12.0]]


def test_matrix_ndarray_arg_with_unannotated_dtype():
    """An ndarray(ndim=1) parameter takes whatever element type the Arg names."""

    @ti.kernel
    def trace(m: ti.types.ndarray(ndim=1), out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in m:
            out[i] = m[i][0, 0] + m[i][1, 1] + m[i][0, 1] * 10

    g = ti.graph.GraphBuilder()
    g.dispatch(
        trace,
        ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "m", ti.types.matrix(2, 2, ti.i32), ndim=1),
        ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "out", ti.i32, ndim=1),
    )
    graph = g.compile()
    m = ti.Matrix.ndarray(2, 2, ti.i32, shape=2)
    m.from_numpy(np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], dtype=np.int32))
    out = ti.ndarray(ti.i32, shape=2)
    graph.run({"m": m, "out": out})
    assert out.to_numpy().tolist() == [25, 73]


@pytest.mark.parametrize("dt", [ti.u8, ti.i16, ti.i64, ti.f32])
def test_matrix_arg(dt):
    """A MATRIX Arg: a value of its size fills it row by row (a Vector of 6 numbers
    fills a 3x2 matrix, as in Taichi)."""

    @ti.kernel
    def weigh(m: ti.types.matrix(3, 2, dt), res: ti.types.ndarray(dtype=dt, ndim=1)):
        res[0] = m[0, 0] + m[0, 1] * 2 + m[1, 0] * 3 + m[2, 1] * 4

    g = ti.graph.GraphBuilder()
    g.dispatch(
        weigh,
        ti.graph.Arg(ti.graph.ArgKind.MATRIX, "m", ti.types.matrix(3, 2, dt)),
        ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "res", dt, ndim=1),
    )
    graph = g.compile()
    res = ti.ndarray(dt, shape=1)
    graph.run({"m": ti.Matrix([[1, 2], [3, 4], [5, 6]], dt), "res": res})
    assert res.to_numpy()[0] == 1 + 2 * 2 + 3 * 3 + 6 * 4
    graph.run({"m": ti.Vector([6, 5, 4, 3, 2, 1], dt), "res": res})
    assert res.to_numpy()[0] == 6 + 5 * 2 + 4 * 3 + 1 * 4
    with pytest.raises(
        RuntimeError, match="argument m with size=6 but got a matrix with size=4"
    ):
        graph.run({"m": ti.Vector([1, 2, 3, 4], dt), "res": res})


def test_vector_arg_dispatch_checks():
    @ti.kernel
    def first(v: ti.types.vector(3, ti.i32), a: ti.types.ndarray(dtype=ti.math.vec2, ndim=1)):
        a[0][0] = v[0]

    a = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", ti.math.vec2, ndim=1)
    g = ti.graph.GraphBuilder()
    with pytest.raises(
        ti.TaichiCompilationError,
        match=r"Arg v's dtype VectorType\[2, i32\] doesn't match kernel's annotated dtype",
    ):
        g.dispatch(first, ti.graph.Arg(ti.graph.ArgKind.MATRIX, "v", ti.types.vector(2, ti.i32)), a)
    v = ti.graph.Arg(ti.graph.ArgKind.MATRIX, "v", ti.types.vector(3, ti.i32))
    for wrong in (ti.math.vec3, ti.f32):
        with pytest.raises(
            ti.TaichiCompilationError, match="doesn't match kernel's annotated dtype=VectorType"
        ):
            g.dispatch(first, v, ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "b", wrong, ndim=1))
    with pytest.raises(RuntimeError, match="SCALAR must specify a scalar type"):
        ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.math.vec2)


def test_run_checks_ndarrays_against_their_args():
    """run() rejects an ndarray of another ndim, dtype or element shape than its Arg
    (RuntimeError, Taichi's "Dispatch node is compiled for ..."), before any launch."""

    @ti.kernel
    def fill(a: ti.types.ndarray(ndim=1)):
        for i in a:
            a[i] = 2.5

    g = ti.graph.GraphBuilder()
    g.dispatch(fill, ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", ti.f32, ndim=1))
    graph = g.compile()
    cases = [
        (ti.ndarray(ti.f32, shape=(2, 2)), "field_dim=1 but got an ndarray with field_dim=2"),
        (ti.ndarray(ti.i32, shape=4), "dtype=f32 but got an ndarray with dtype=i32"),
        (ti.Vector.ndarray(2, ti.f32, shape=4), r"element_shape=\(\) but got an ndarray with element_shape=\(2,\)"),  # fmt: skip
        (np.zeros(4, np.int32), "dtype=f32 but got an ndarray with dtype=i32"),
    ]
    for value, message in cases:
        with pytest.raises(RuntimeError, match="Dispatch node is compiled for argument a with " + message):
            graph.run({"a": value})
    for value, _ in cases:
        assert not np.any(value.to_numpy() if hasattr(value, "to_numpy") else value)
    ok = ti.ndarray(ti.f32, shape=3)
    graph.run({"a": ok})
    assert ok.to_numpy().tolist() == [2.5] * 3
