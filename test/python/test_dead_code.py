"""
lowering/dead_code.py: canonicalize and dce with a cheaper liveness sweep give the IR
that xDSL's own passes give, on the IR of real kernels at the points where the
pipelines run them; our pipelines and ti-opt run ours, xdsl-opt's universe keeps xDSL's.
"""

from __future__ import annotations

import pytest
import taichi_xdsl as ti
from taichi_xdsl.frontends.python.lang.program import get_program
from taichi_xdsl.utils import registry
from taichi_xdsl.utils.pass_runner import print_ir_text


def _kernels():
    n = 64
    x = ti.field(ti.f32, shape=n)
    g = ti.field(ti.f32, shape=(n, n))
    pos = ti.Vector.field(3, ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def reduce() -> ti.f32:
        s = 0.0
        for i in x:
            s += x[i] * 2
        return s

    @ti.kernel
    def stencil():
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            g[i, j] = 0.25 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1])

    @ti.kernel
    def nbody():
        for i in pos:
            acc = ti.Vector([0.0, 0.0, 0.0])
            for j in range(n):
                d = pos[j] - pos[i]
                acc += d / (d.dot(d) + 1e-2)
            unused = acc.norm()  # noqa: F841 - dead code for the passes
            pos[i] += acc * 0.01

    @ti.kernel
    def scatter():
        for i in x:
            total[None] += x[i]
            if x[i] > 0:
                g[int(x[i]) % n, 0] += 1.0

    return [reduce, stencil, nbody, scatter]


def _modules_at(stop: str):
    prog = get_program()
    backend = prog.backend
    for kernel in _kernels():
        kernel._resolve_params(prog)
        module = kernel.build_module(prog, (), f"k_{kernel.__name__}")
        yield backend.lower(module, f"k_{kernel.__name__}", stop)


def _apply(pass_type, module):
    from xdsl.context import Context

    module = module.clone()
    pass_type().apply(Context(), module)
    return print_ir_text(module)


@pytest.mark.parametrize("stop", ["ti-mem2reg", "ti-fold-sqrt-compare"])
def test_canonicalize_gives_xdsl_s_ir(arch, stop):  # arch: cpu, vulkan (conftest)
    from xdsl.transforms.canonicalize import CanonicalizePass as Xdsl

    from taichi_xdsl.lowering.dead_code import CanonicalizePass

    ti.init(arch=arch, offline_cache=False)
    for module in _modules_at(stop):  # right before each run of canonicalize
        assert _apply(CanonicalizePass, module) == _apply(Xdsl, module)
    ti.reset()


def test_dce_gives_xdsl_s_ir():
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination as Xdsl

    from taichi_xdsl.lowering.dead_code import DeadCodeEliminationPass

    ti.init(arch=ti.cpu, offline_cache=False)
    for stop in ("reconcile-unrealized-casts", "ti-offload", "ti-scalarize"):
        for module in _modules_at(stop):
            ours = _apply(DeadCodeEliminationPass, module)
            assert ours == _apply(Xdsl, module)
    ti.reset()


def test_pipelines_run_ours_and_the_xdsl_universe_keeps_xdsl_s():
    from taichi_xdsl.lowering.dead_code import CanonicalizePass, DeadCodeEliminationPass

    factories = registry.pass_factories()
    assert factories["canonicalize"]() is CanonicalizePass
    assert factories["dce"]() is DeadCodeEliminationPass
    universe = registry.UNIVERSE.all_passes
    assert "canonicalize" not in universe and "dce" not in universe


@pytest.mark.parametrize("stop", ["ti-mem2reg", "ti-offload", "lowered accesses", "final"])
def test_the_dead_op_check_answers_as_xdsl_s(arch, stop):
    """Ours asks less (type verdicts, nested effects up to the first that matters), and
    must answer as xDSL's for every op, nested ones included, at each stage ("lowered
    accesses": after ti-lower-access on cpu, convert-offload-to-spirv on Vulkan)."""
    from xdsl.transforms import dead_code_elimination as xdsl_dce

    from taichi_xdsl.lowering.dead_code import is_trivially_dead, would_be_trivially_dead

    ti.init(arch=arch, offline_cache=False)
    target = "vulkan" if arch == ti.vulkan else "cpu"
    if stop == "lowered accesses":
        stop = {"cpu": "ti-lower-access", "vulkan": "convert-offload-to-spirv"}[target]
    checked = dead = 0
    final = {"cpu": "llvm", "vulkan": "spirv"}[target]
    for module in _modules_at(final if stop == "final" else stop):
        for op in module.walk():
            expected = xdsl_dce.would_be_trivially_dead(op)
            assert would_be_trivially_dead(op) == expected, op.name
            assert is_trivially_dead(op) == xdsl_dce.is_trivially_dead(op), op.name
            checked += 1
            dead += expected
    assert checked > 100 and 0 < dead < checked
    ti.reset()


def test_the_dead_op_check_asks_xdsl_about_unregistered_ops():
    """An unregistered op's traits are not its type's: ours defers to xDSL's answer."""
    from xdsl.dialects.builtin import UnregisteredOp
    from xdsl.parser import Parser
    from xdsl.transforms import dead_code_elimination as xdsl_dce

    from taichi_xdsl.lowering.dead_code import is_trivially_dead, would_be_trivially_dead

    ctx = registry.make_context(("func", "arith"))
    ctx.allow_unregistered = True
    module = Parser(
        ctx,
        """
        func.func @f(%a: i32) -> i32 {
          %u = "my.unknown"(%a) : (i32) -> i32
          %v = "my.unknown"() : () -> i32
          "my.effect"(%u) : (i32) -> ()
          %s = arith.addi %a, %a : i32
          func.return %v : i32
        }
        """,
    ).parse_module()
    ops = list(module.walk())
    assert sum(isinstance(op, UnregisteredOp) for op in ops) == 3
    for op in ops:
        assert would_be_trivially_dead(op) == xdsl_dce.would_be_trivially_dead(op), op.name
        assert is_trivially_dead(op) == xdsl_dce.is_trivially_dead(op), op.name
