"""
ti.graph on every arch: a compiled graph gives the results of launching its kernels one
by one. On Vulkan its dispatches are recorded into one command buffer on the first run and
replayed after (targets/vulkan/graph.py), recorded again only when a buffer it binds has
to change.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def _kernels(total: ti.Field):
    @ti.kernel
    def init(a: ti.types.ndarray(dtype=ti.f32, ndim=1), v: ti.f32):
        for i in a:
            a[i] = v + i

    @ti.kernel
    def scale(a: ti.types.ndarray(dtype=ti.f32, ndim=1), b: ti.types.ndarray(dtype=ti.i32, ndim=1), s: ti.i32):  # fmt: skip
        for i in a:
            a[i] *= s
            b[i] = b[i] * 2 + ti.cast(a[i], ti.i32)

    @ti.kernel
    def reduce(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in a:
            total[None] += a[i]

    return init, scale, reduce


def _graph(init, scale, reduce):
    a = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", dtype=ti.f32, ndim=1)
    b = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "b", dtype=ti.i32, ndim=1)
    v = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "v", ti.f32)
    s = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.i32)
    g = ti.graph.GraphBuilder()
    g.dispatch(init, a, v)
    seq = g.create_sequential()
    seq.dispatch(scale, a, b, s)
    seq.dispatch(reduce, a)
    g.append(seq)
    g.dispatch(scale, a, b, s)
    return g.compile()


def test_graph_runs_equal_sequential_launches_and_replay(arch):
    total = ti.field(ti.f32, shape=())
    init, scale, reduce = _kernels(total)
    graph = _graph(init, scale, reduce)
    n = 1000
    a, b = np.zeros(n, np.float32), ti.ndarray(ti.i32, n)
    a2, b2 = np.zeros(n, np.float32), np.zeros(n, np.int32)
    first = None
    for run, (v, s) in enumerate([(1.0, 2), (0.5, 3), (-2.0, 1), (0.0, 2)]):
        total[None] = 0.0
        graph.run({"a": a, "b": b, "v": v, "s": s})
        graph_total = total[None]
        total[None] = 0.0
        init(a2, v)  # the same dispatches, one by one
        scale(a2, b2, s)
        reduce(a2)
        scale(a2, b2, s)
        np.testing.assert_array_equal(a, a2)
        np.testing.assert_array_equal(b.to_numpy(), b2)
        assert total[None] == pytest.approx(graph_total, rel=1e-5)
        if arch is ti.vulkan:
            recorded = graph.recorded
            assert recorded is not None and recorded.replayable
            if first is None:
                first = recorded.recording
            # the command buffer recorded on the first run is the one replayed
            assert recorded.recording is first and first.valid
            assert recorded.recordings == 1 and recorded.replays == run + 1
    if arch is ti.cpu:
        assert graph.recorded is None


def test_graph_records_again_when_a_buffer_changes(arch):
    total = ti.field(ti.f32, shape=())
    init, scale, reduce = _kernels(total)
    graph = _graph(init, scale, reduce)
    for n in (64, 64, 100):  # another size: another ndarray buffer
        a, b = np.zeros(n, np.float32), np.ones(n, np.int32)
        graph.run({"a": a, "b": b, "v": 1.0, "s": 2})
        np.testing.assert_array_equal(a, 4 * (1.0 + np.arange(n)))
        np.testing.assert_array_equal(
            b, 4 + 2 * 2 * (1 + np.arange(n)) + 4 * (1 + np.arange(n))
        )
    grown = ti.field(ti.f32, shape=1 << 16)  # a new field grows the root buffer
    grown.fill(1.0)
    total[None] = 0.0
    a, b = np.zeros(100, np.float32), np.zeros(100, np.int32)
    graph.run({"a": a, "b": b, "v": 0.0, "s": 1})
    assert total[None] == pytest.approx(float(np.arange(100).sum()))
    assert grown.to_numpy().sum() == 1 << 16
    if arch is ti.vulkan:
        assert graph.recorded.recordings == 3 and graph.recorded.replays == 4


def test_graph_with_prints_runs_kernel_by_kernel(arch, capfd):
    @ti.kernel
    def first(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in a:
            a[i] += 1
        print("first", a.shape[0])

    @ti.kernel
    def second(a: ti.types.ndarray(dtype=ti.i32, ndim=1), k: ti.i32):
        print("second", k)
        for i in a:
            a[i] *= k

    arg = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", dtype=ti.i32, ndim=1)
    k = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "k", ti.i32)
    g = ti.graph.GraphBuilder()
    g.dispatch(first, arg)
    g.dispatch(second, arg, k)
    graph = g.compile()
    x = np.arange(5, dtype=np.int32)
    graph.run({"a": x, "k": 3})
    ti.sync()
    assert x.tolist() == [3, 6, 9, 12, 15]
    out = capfd.readouterr().out
    assert out.index("first 5") < out.index("second 3")
    if arch is ti.vulkan:
        assert not graph.recorded.replayable  # print ids are per kernel


@pytest.mark.vulkan_only("loaded CPU graphs call their kernels in order")
def test_loaded_vulkan_graph_replays(tmp_path: Path):

    @ti.kernel
    def fill(a: ti.types.ndarray(dtype=ti.f32, ndim=1), s: ti.f32):
        for i in a:
            a[i] = s * i

    @ti.kernel
    def twice(a: ti.types.ndarray(dtype=ti.f32, ndim=1), n: ti.u32):
        for i in a:
            a[i] += ti.cast(n % ti.u32(7), ti.f32)

    arg_a = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", dtype=ti.f32, ndim=1)
    arg_s = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.f32)
    arg_n = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "n", ti.u32)
    g = ti.graph.GraphBuilder()
    g.dispatch(fill, arg_a, arg_s)
    g.dispatch(twice, arg_a, arg_n)
    m = ti.aot.Module(ti.vulkan)
    m.add_graph("g", g.compile())
    m.archive(tmp_path / "g.tcm")
    loaded = ti.aot.load(tmp_path / "g.tcm").get_graph("g")
    for s, n in [(1.0, 4000000000), (2.0, 3)]:
        a = np.zeros(16, np.float32)
        loaded.run({"a": a, "s": s, "n": n})
        np.testing.assert_array_equal(a, s * np.arange(16) + n % 7)
    assert loaded.recorded.recordings == 1 and loaded.recorded.replays == 2


def test_graph_kernel_reading_and_writing_an_ndarray_gradient(arch):
    # x.grad named in a kernel travels as one more ndarray (kernel.py); a recorded
    # Vulkan graph binds it like any graph argument, uploaded and read back each run.
    @ti.kernel
    def k(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in x:
            x[i] += x.grad[i]
            x.grad[i] = x.grad[i] * 2.0

    sym = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "x", ti.f32, ndim=1)
    builder = ti.graph.GraphBuilder()
    builder.dispatch(k, sym)
    graph = builder.compile()
    a = ti.ndarray(ti.f32, 4, needs_grad=True)
    a.grad.fill(1.0)
    graph.run({"x": a})
    graph.run({"x": a})
    np.testing.assert_array_equal(a.to_numpy(), [3.0] * 4)  # 1 + 2
    np.testing.assert_array_equal(a.grad.to_numpy(), [4.0] * 4)
