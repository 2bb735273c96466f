"""
The programs the AOT tests export (imported by test_aot_*.py, and run as a script by them
to build modules in fresh processes):

    python aot_example.py module cpu out.tcm [run]   # fields + kernels + a graph
    python aot_example.py julia cpu out.tcm [run]    # seed 003's julia kernel
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import taichi_xdsl as ti

N = 16


def build_module(arch: Any, run_first: bool = False, caps: Any = None) -> tuple[Any, dict]:
    """A module with two fields, four kernels (one returns a value, one is a template
    instance) and a two-kernel graph; with `run_first` every kernel runs before export.
    Returns the module and what the JIT computed (for the loaded module to reproduce)."""
    x = ti.field(ti.f32, shape=(N,))
    counter = ti.field(ti.i32, shape=())

    @ti.kernel
    def fill(a: ti.types.ndarray(dtype=ti.f32, ndim=1), s: ti.f32):
        for i in a:
            a[i] = i * s

    @ti.kernel
    def to_field(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in x:
            x[i] = a[i] + 1.0
        counter[None] += 1

    @ti.kernel
    def total(a: ti.types.ndarray(dtype=ti.f32, ndim=1)) -> ti.f32:
        t = 0.0
        for i in a:
            t += a[i]
        return t

    @ti.kernel
    def mix(n: ti.u32, k: ti.i64) -> ti.u32:
        return n * ti.u32(3) + ti.u32(k)

    @ti.kernel
    def scale_field(f: ti.template(), s: ti.f32):
        for i in f:
            f[i] = f[i] * s

    arg_a = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", dtype=ti.f32, ndim=1)
    arg_s = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.f32)
    builder = ti.graph.GraphBuilder()
    builder.dispatch(fill, arg_a, arg_s)
    builder.dispatch(to_field, arg_a)
    graph = builder.compile()

    jit: dict[str, Any] = {}
    if run_first:
        a = np.zeros(N, np.float32)
        fill(a, 0.5)
        jit["total"] = total(a)
        jit["mix"] = mix(4000000000, 7)
        graph.run({"a": a, "s": 2.0})
        scale_field(x, 3.0)
        jit["x"] = x.to_numpy()
        jit["counter"] = counter[None]
        jit["a"] = a.copy()
        x.fill(0)
        counter[None] = 0

    m = ti.aot.Module(arch, caps=caps)
    m.add_field("x", x)
    m.add_field("counter", counter)
    m.add_kernel(fill)
    m.add_kernel(total)
    m.add_kernel(mix)
    with m.add_kernel_template(scale_field) as kt:
        kt.instantiate(f=x)
    m.add_graph("step", graph)
    return m, jit


def julia_module(arch: Any, run_first: bool) -> Any:
    """Seed 003: archived with and without running it first."""
    if run_first:

        @ti.kernel
        def paint(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):  # takes the JIT name first
            for i in a:
                a[i] = 1.0

        paint(np.zeros(4, np.float32))

    @ti.kernel
    def paint(pixels: ti.types.ndarray(dtype=ti.f32, ndim=2), n: ti.u32, t: ti.f32):
        for i, j in pixels:
            c = ti.Vector([-0.8, ti.cos(t) * 0.2])
            z = ti.Vector([i / n - 1, j / n - 0.5]) * 2
            iterations = 0
            while z.norm() < 20 and iterations < 50:
                z = ti.Vector([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2]) + c
                iterations += 1
            pixels[i, j] = 1 - iterations * 0.02

    n = 32
    pixels = ti.ndarray(shape=(n * 2, n), dtype=ti.f32)
    if run_first:
        for t in range(3):
            paint(pixels, n, t * 0.03)
    mod = ti.aot.Module(arch)
    mod.add_kernel(paint, template_args={"pixels": pixels})
    return mod


if __name__ == "__main__":
    what, arch_name, out = sys.argv[1:4]
    run = len(sys.argv) > 4 and sys.argv[4] == "run"
    ti.init(arch=ti.cpu, offline_cache=False)
    arch = getattr(ti, arch_name)
    module = julia_module(arch, run) if what == "julia" else build_module(arch, run)[0]
    module.archive(out)
