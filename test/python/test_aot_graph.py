"""ti.graph on the CPU: building, checking, running by argument name; and loaded graphs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti


@pytest.fixture(autouse=True)
def program():
    ti.init(arch=ti.cpu, offline_cache=False)
    yield
    ti.reset()


def kernels():
    @ti.kernel
    def init(a: ti.types.ndarray(dtype=ti.i32, ndim=1), v: ti.i32):
        for i in a:
            a[i] = v + i

    @ti.kernel
    def double(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in a:
            a[i] *= 2

    @ti.kernel
    def add(
        a: ti.types.ndarray(dtype=ti.i32, ndim=1), b: ti.types.ndarray(dtype=ti.i32, ndim=1)
    ):
        for i in a:
            b[i] += a[i]

    return init, double, add


def test_sequential_graph_runs_in_order(tmp_path: Path):
    init, double, add = kernels()
    a = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", dtype=ti.i32, ndim=1)
    b = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "b", ti.i32, field_dim=1)
    v = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "v", ti.i32)
    g = ti.graph.GraphBuilder()
    g.dispatch(init, a, v)
    seq = g.create_sequential()
    seq.dispatch(double, a)
    seq.dispatch(add, a, b)
    g.append(seq)
    g.dispatch(double, b)
    graph = g.compile()
    x, y = np.zeros(5, np.int32), ti.ndarray(ti.i32, 5)
    graph.run({"a": x, "b": y, "v": 10})
    expect_a = 2 * (10 + np.arange(5))
    assert x.tolist() == expect_a.tolist()
    assert y.to_numpy().tolist() == (2 * expect_a).tolist()

    m = ti.aot.Module(ti.cpu)
    m.add_graph("g", graph)
    m.archive(tmp_path / "g.tcm")
    mod = ti.aot.load(tmp_path / "g.tcm")
    x2, y2 = np.zeros(5, np.int32), ti.ndarray(ti.i32, 5)  # an ndarray object works too
    mod.get_graph("g").run({"a": x2, "b": y2, "v": 10})
    assert x2.tolist() == x.tolist() and y2.to_numpy().tolist() == y.to_numpy().tolist()
    with pytest.raises(ti.TaichiTypeError, match=r"missing argument\(s\) \['v'\]"):
        mod.get_graph("g").run({"a": x2, "b": y2})
    with pytest.raises(ti.TaichiTypeError, match="i32"):
        mod.get_graph("g").run({"a": np.zeros(5, np.float32), "b": y2, "v": 1})


def test_graph_checks_arguments_at_dispatch():
    """As Taichi, an Arg that does not fit its kernel parameter is rejected by
    dispatch() (TaichiCompilationError), before the graph is compiled."""
    init, double, _ = kernels()
    a = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", dtype=ti.i32, ndim=1)
    v = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "v", ti.f32)
    g = ti.graph.GraphBuilder()
    with pytest.raises(
        ti.TaichiCompilationError,
        match=r"Arg v's dtype f32 doesn't match kernel's annotated dtype=i32",
    ):
        g.dispatch(init, a, v)
    with pytest.raises(
        ti.TaichiCompilationError, match="is a scalar parameter, got a NDARRAY Arg"
    ):
        g.dispatch(init, a, a)
    with pytest.raises(
        ti.TaichiCompilationError,
        match="2 from Arg a doesn't match kernel's annotated ndim=1",
    ):
        g.dispatch(double, ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", ti.i32, ndim=2))
    with pytest.raises(
        ti.TaichiCompilationError,
        match="Arg a's dtype f32 doesn't match kernel's annotated dtype=i32",
    ):
        g.dispatch(double, ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", ti.f32, ndim=1))
    with pytest.raises(ti.TaichiError, match="at least one dispatch"):
        g.compile()
    with pytest.raises(ti.TaichiError, match="NDARRAY needs ndim"):
        ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "q", ti.f32)


def test_graph_arg_names_are_unique_across_sequences():
    """Two different Args may not share a name anywhere in one builder (a sequence
    shares its builder's names); the same Arg may be dispatched again."""
    init, double, _ = kernels()
    a = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", dtype=ti.i32, ndim=1)
    g = ti.graph.GraphBuilder()
    g.dispatch(double, a)
    g.dispatch(double, a)
    seq = g.create_sequential()
    with pytest.raises(RuntimeError, match="An arg with name a already exists!"):
        seq.dispatch(init, ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "b", ti.i32, ndim=1),
                     ti.graph.Arg(ti.graph.ArgKind.SCALAR, "a", ti.i32))


def test_textures_and_templates_are_reported():
    @ti.kernel
    def tex(t: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in t:
            t[i] = 1.0

    g = ti.graph.GraphBuilder()
    texture = ti.graph.Arg(
        ti.graph.ArgKind.RWTEXTURE, "t", ndim=1, fmt=ti.Format.rgba8
    )
    with pytest.raises(ti.TaichiTypeError, match="got a RWTEXTURE Arg"):
        g.dispatch(tex, texture)

    f = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill(x: ti.template(), v: ti.f32):
        for i in x:
            x[i] = v

    v = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "v", ti.f32)
    g = ti.graph.GraphBuilder()
    with pytest.raises(ti.TaichiTypeError, match="takes a concrete object"):
        g.dispatch(fill, ti.graph.Arg(ti.graph.ArgKind.SCALAR, "x", ti.f32), v)
    g = ti.graph.GraphBuilder()
    g.dispatch(fill, f, v)  # a template takes the field itself
    g.compile().run({"v": 2.5})
    assert f.to_numpy().tolist() == [2.5] * 4
