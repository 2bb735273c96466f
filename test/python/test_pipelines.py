"""
One pipeline definition per arch (utils/pipelines.py), read by ti-opt, the JIT backends
and AOT export; program edits to it (PipelineEdits); the pass runner's research hooks
(IR text ti-opt reads back, dumps, statistics, a pass that breaks the IR named).
"""

from __future__ import annotations

import io
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from taichi_xdsl.frontends.python.lang.program import get_program
from taichi_xdsl.utils import registry
from taichi_xdsl.utils.errors import TaichiCompilationError
from taichi_xdsl.utils.pipelines import (
    OPTIONAL_PASSES,
    PipelineEdits,
    expand,
    named_pipelines,
    pipeline,
    split_spec,
)

# saxpy in the taichi dialect: the one copy (test/Inputs/saxpy.mlir).
SAXPY = (Path(__file__).parents[1] / "Inputs" / "saxpy.mlir").read_text()


def parse(source: str) -> Any:
    from taichi_xdsl.utils.diagnostics import LocatingParser

    return LocatingParser(registry.make_context(), source, "saxpy.mlir").parse_module()


def backend(arch: Any, **options: Any) -> Any:
    if pipeline(arch).arch == "cpu":
        from taichi_xdsl.targets.llvm.backend import CpuBackend

        return CpuBackend(**options)
    from taichi_xdsl.targets.vulkan.backend import VulkanBackend

    return VulkanBackend(**options)


def run_saxpy(kernel: Any) -> np.ndarray:
    x = np.arange(8, dtype=np.float32)
    y = np.ones(8, dtype=np.float32)
    kernel.launch(None, (2.0, x, y))
    if hasattr(kernel, "backend"):
        kernel.backend.sync()
    return y


# -- the definition ---------------------------------------------------------------------


def test_registry_pipelines_are_the_arch_stages() -> None:
    assert registry.PIPELINES == named_pipelines()
    for arch in ("cpu", "vulkan"):
        p = pipeline(arch)
        assert expand(p.name) == list(p.passes)
        for stage in p.stages:
            assert registry.PIPELINES[stage.pipeline] == stage.spec
    assert pipeline("cpu").stage("offload").pipeline == "ti-to-offload-cpu"
    assert pipeline("vulkan").stages[-1].name == "spirv"


def test_pipeline_by_arch_object_and_alias() -> None:
    import taichi_xdsl as ti

    assert ti.compiler.pipeline(ti.cpu) is pipeline("cpu")
    assert ti.compiler.pipeline(ti.vulkan).name == "ti-to-spirv"
    assert pipeline("x64") is pipeline("cpu")
    with pytest.raises(ValueError, match="no pipeline for arch 'metal'"):
        pipeline("metal")


def test_compiler_api_loads_no_xdsl() -> None:
    code = (
        "import sys, taichi_xdsl as ti\n"
        "p = ti.compiler.pipeline(ti.cpu)\n"
        "assert p.spec.startswith('ti-lower-sparse,ti-scalarize,'), p.spec\n"
        "assert not any(m == 'xdsl' or m.startswith('xdsl.') for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_plugins_are_scanned_only_for_unknown_passes(monkeypatch) -> None:
    """build_pipeline reads the installed packages' entry points only when its spec names
    a pass the registry lacks, and a plugin never replaces a pass the registry has."""
    from xdsl.passes import ModulePass

    class Counted(ModulePass):
        name = "counted-plugin"

        def apply(self, ctx: Any, op: Any) -> None:
            pass

    class NotCse(ModulePass):
        name = "cse"

        def apply(self, ctx: Any, op: Any) -> None:
            raise AssertionError("a plugin replaced cse")

    scans = []

    def plugins() -> dict[str, Any]:
        scans.append(1)
        return {"counted-plugin": lambda: Counted, "cse": lambda: NotCse}

    monkeypatch.setattr(registry, "_plugin_pass_factories", plugins)
    registry._all_pass_factories.cache_clear()
    try:
        registry.build_pipeline("cse,canonicalize")
        assert scans == []
        built = registry.build_pipeline("cse,counted-plugin")
        assert scans == [1]
        assert [type(q).__name__ for q in built.passes][1] == "Counted"
        assert type(built.passes[0]).__name__ != "NotCse"
        assert registry.pass_factories()["cse"]() is not NotCse
    finally:
        registry._all_pass_factories.cache_clear()


def test_a_pipeline_of_known_frozen_passes_is_built_once() -> None:
    """build_pipeline builds the passes of a spec once when the registry has them all and
    each is hashable (a frozen dataclass of immutable options keeps nothing between
    runs): a later build shares them, with its own callback. A pass registered again
    under its name is used from then on, and one with a mutable option is built anew
    each time."""
    from dataclasses import dataclass, field

    from xdsl.passes import ModulePass

    spec = "cse,ti-scalarize,canonicalize"
    first, second = registry.build_pipeline(spec), registry.build_pipeline(spec, print)
    assert [type(q).name for q in first.passes] == ["cse", "ti-scalarize", "canonicalize"]
    assert all(a is b for a, b in zip(first.passes, second.passes, strict=True))
    assert second.callback is print and first.callback is None

    @dataclass(frozen=True)
    class Shared(ModulePass):
        name = "test-shared-pass"

        def apply(self, ctx: Any, op: Any) -> None:
            pass

    @dataclass(frozen=True)
    class Replacement(ModulePass):
        name = "test-shared-pass"

        def apply(self, ctx: Any, op: Any) -> None:
            pass

    @dataclass(frozen=True)
    class Mutable(ModulePass):
        name = "test-mutable-pass"
        seen: list[str] = field(default_factory=list)

        def apply(self, ctx: Any, op: Any) -> None:
            self.seen.append(op.name)

    registry.register_pass(Shared)
    assert type(registry.build_pipeline("test-shared-pass").passes[0]) is Shared
    registry.register_pass(Replacement)
    assert type(registry.build_pipeline("test-shared-pass").passes[0]) is Replacement
    registry.register_pass(Mutable)
    built = [registry.build_pipeline("test-mutable-pass").passes[0] for _ in range(2)]
    assert type(built[0]) is Mutable and built[0] is not built[1]


def test_a_compile_loads_only_its_own_target(arch: Any, tmp_path: Path) -> None:
    """
    A kernel's compile imports the dialects and passes its pipeline names: the CPU one
    not the SPIR-V dialect, the Vulkan one neither llvmlite nor xDSL's llvm dialect, and
    neither scans the installed packages for pass plugins (importlib.metadata: ~60 ms of
    a process's first kernel). A program that uses no autodiff, linear algebra, AOT or
    GUI loads none of them (the autodiff passes 11 ms, linalg 37 ms and SciPy ~200 ms,
    aot 10 ms, PIL).
    """
    unused_features = (
        "taichi_xdsl.lowering.auto_diff",
        "taichi_xdsl.frontends.python.lang.autodiff",
        "taichi_xdsl.frontends.python.lang.linalg",
        "scipy",
        "taichi_xdsl.frontends.python.lang.aot",
        "taichi_xdsl.frontends.python.lang.gui",
        "PIL",
    )
    if pipeline(arch).arch == "cpu":
        unwanted = ("taichi_xdsl.dialects.spirv", "importlib.metadata", *unused_features)
    else:
        unwanted = ("llvmlite", "xdsl.dialects.llvm", "importlib.metadata", *unused_features)
    script = tmp_path / "one_kernel.py"
    script.write_text(
        "import sys, taichi_xdsl as ti\n"
        f"ti.init(arch=ti.{arch.name}, offline_cache=False)\n"
        "x = ti.field(ti.f32, shape=4)\n"
        "@ti.kernel\n"
        "def k():\n"
        "    for i in x:\n"
        "        x[i] = i\n"
        "k()\n"
        "assert x.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]\n"
        f"loaded = [m for m in {unwanted!r} if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, str(script)], check=True)


def test_a_compile_prints_no_ir_unless_dumped_or_cached(arch: Any, tmp_path: Path) -> None:
    """
    Without dump_ir and the offline cache (whose key is the printed module), a compile
    never prints IR, so none of our ops' assembly formats is parsed (they are parsed on
    first print, dialects/deferred_format.py: a process's first kernel does not pay
    for them), and no stray `str(module)` costs a compile its printing.
    """
    script = tmp_path / "no_print.py"
    script.write_text(
        "import taichi_xdsl as ti\n"
        "from taichi_xdsl.dialects import deferred_format\n"
        f"ti.init(arch=ti.{arch.name}, offline_cache=False)\n"
        "x = ti.field(ti.f32, shape=8)\n"
        "total = ti.field(ti.f32, shape=())\n"
        "@ti.kernel\n"
        "def k(n: ti.i32) -> ti.f32:\n"
        "    for i in x:\n"
        "        j = 0\n"
        "        while j < n:\n"
        "            j += 1\n"
        "        x[i] = ti.sin(i * 0.5) if i % 2 == 0 else j\n"
        "        total[None] += x[i]\n"
        "    return total[None]\n"
        "print(k(3))\n"
        "print(sorted(c.name for c in deferred_format._programs))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], check=True, capture_output=True, text=True
    )
    value, formats = done.stdout.splitlines()
    expected = sum(math.sin(i * 0.5) if i % 2 == 0 else 3 for i in range(8))
    assert abs(float(value) - expected) < 1e-4
    assert formats == "[]"


@pytest.mark.parametrize("debug", [False, True])
def test_a_compile_verifies_the_module_once_outside_debug(
    arch: Any, debug: bool, tmp_path: Path
) -> None:
    """
    A cold compile verifies the whole module once, after the pipeline's last stage (a
    verify is a tenth of a large kernel's compile); in debug mode also the frontend's
    module and the offload stage's, so that the message names who broke the IR.
    """
    script = tmp_path / "verifies.py"
    script.write_text(
        "import taichi_xdsl as ti\n"
        "from xdsl.dialects.builtin import ModuleOp\n"
        f"ti.init(arch=ti.{arch.name}, offline_cache=False, debug={debug})\n"
        "x = ti.field(ti.f32, shape=4)\n"
        "@ti.kernel\n"
        "def k():\n"
        "    for i in x:\n"
        "        x[i] = i\n"
        "calls = []\n"
        "verify = ModuleOp.verify\n"
        "ModuleOp.verify = lambda self: (calls.append(1), verify(self))[1]\n"
        "k()\n"
        "assert x.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]\n"
        "print(len(calls))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], check=True, capture_output=True, text=True
    )
    count = int(done.stdout.split()[-1])
    assert count == 3 if debug else count == 1


def test_a_kernel_s_compile_lowers_the_frontend_s_module_in_place(arch: Any) -> None:
    """The frontend builds a module for each compile and hands it over (`in_place`):
    no copy of it is made (1-4% of a later kernel's compile); a caller that keeps its
    module gets it back unchanged."""
    import taichi_xdsl as ti
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Operation

    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def k():
        for i in x:
            x[i] = i

    clones: list[str] = []
    clone = Operation.clone

    def counted(self: Operation, *args: Any, **kwargs: Any) -> Any:
        if isinstance(self, ModuleOp):
            clones.append(self.name)
        return clone(self, *args, **kwargs)

    Operation.clone = counted  # type: ignore[method-assign]
    try:
        k()
    finally:
        Operation.clone = clone  # type: ignore[method-assign]
    assert x.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert clones == []
    prog = get_program()
    k._resolve_params(prog)
    module = k.build_module(prog, (), "kept")
    before = str(module)
    prog.backend.compile(module, "kept")
    assert str(module) == before
    ti.reset()


def test_backends_run_the_definition(arch: Any) -> None:
    """The JIT's passes are the definition's, plus the backend's own options."""
    jit = backend(arch).pipeline()
    bases = [q.split("{")[0] for q in jit.passes]
    assert bases == list(pipeline(arch).passes)


def test_opt_level_zero_leaves_out_the_optional_passes(arch: Any) -> None:
    """opt_level=0 runs the definition without its optimisation passes (each arch has
    some), and the kernel computes what the optimised one does."""
    full = [q.split("{")[0] for q in backend(arch).pipeline().passes]
    bare = [q.split("{")[0] for q in backend(arch, opt_level=0).pipeline().passes]
    assert bare == [q for q in full if q not in OPTIONAL_PASSES]
    assert len(bare) < len(full)
    results = [
        run_saxpy(backend(arch, opt_level=level).compile(parse(SAXPY), "saxpy"))
        for level in (0, 1)
    ]
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], 2.0 * np.arange(8) + 1)


def _optimised_constructs(arch: Any, opt_level: int) -> dict[str, Any]:
    """Kernels each optional pass rewrites: a reduction into one place
    (ti-make-thread-local), a 2-d loop with a long last dimension
    (ti-split-parallel-loop), a short constant inner loop over locals (ti-unroll-loops,
    ti-mem2reg), an atomic on a local whose old value is used; their results."""
    import taichi_xdsl as ti

    ti.init(arch=arch, opt_level=opt_level, offline_cache=False)
    x = ti.field(ti.i32, shape=(8, 64))
    total = ti.field(ti.i32, shape=())
    low = ti.field(ti.i32, shape=())
    high = ti.field(ti.f32, shape=())
    rows = ti.field(ti.f32, shape=8)

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = (i * 7 + j * 13) % 29 - 11

    @ti.kernel
    def reduce():
        low[None] = 1000
        high[None] = -1000.0
        for i, j in x:
            total[None] += x[i, j]
            ti.atomic_min(low[None], x[i, j])
            ti.atomic_max(high[None], ti.cast(x[i, j], ti.f32) * 0.5)

    @ti.kernel
    def per_row():
        for i in range(8):
            acc = 0.0
            count = 0
            for j in range(10):
                v = x[i, j]
                if v > 0:
                    acc += v
                old = ti.atomic_add(count, 2)
                acc += old * 0.25
            rows[i] = acc + count

    fill()
    reduce()
    per_row()
    return {
        "x": x.to_numpy(),
        "total": total[None],
        "low": low[None],
        "high": high[None],
        "rows": rows.to_numpy(),
    }


def test_opt_level_zero_computes_what_opt_level_one_does(arch: Any) -> None:
    """The optional passes are optional: each result is the same without them, and
    both are right."""
    bare = _optimised_constructs(arch, 0)
    optimised = _optimised_constructs(arch, 1)
    i, j = np.meshgrid(np.arange(8), np.arange(64), indexing="ij")
    x = (i * 7 + j * 13) % 29 - 11
    head = x[:, :10]
    olds = sum(2 * k * 0.25 for k in range(10))  # count's old values, a quarter each
    rows = np.where(head > 0, head, 0).sum(axis=1) + olds + 20
    for got in (bare, optimised):
        np.testing.assert_array_equal(got["x"], x)
        assert got["total"] == x.sum()
        assert got["low"] == x.min()
        assert got["high"] == x.max() * 0.5
        np.testing.assert_allclose(got["rows"], rows, rtol=1e-6)


def test_split_spec_keeps_options() -> None:
    assert split_spec('a{x=1,y="p,q"}, b ,c{}') == ['a{x=1,y="p,q"}', "b", "c{}"]


# -- edits ------------------------------------------------------------------------------


def test_edits_insert_replace_drop_and_stages() -> None:
    p = pipeline("cpu")
    edits = PipelineEdits.parse(
        {
            "before": {"ti-offload": "b1"},
            "after": {"ti-offload": "a1{opt=1},a2"},
            "replace": {"ti-mem2reg": "m"},
            "drop": ["ti-split-parallel-loop"],
        }
    )
    assert edits is not None
    offload = edits.apply(p).stage("offload").passes
    assert offload[:3] == ("ti-lower-sparse", "ti-scalarize", "m")
    assert "ti-split-parallel-loop" not in offload
    at = offload.index("ti-offload")
    assert offload[at - 1 : at + 3] == ("b1", "ti-offload", "a1{opt=1}", "a2")
    # every occurrence of a pass run twice
    twice = PipelineEdits.parse({"after": {"cse": "x"}}).apply(p)  # type: ignore[union-attr]
    assert twice.passes.count("x") == 2
    whole = PipelineEdits.parse({"stages": {"llvm": "ti-offload-to-llvm,dce"}})
    assert whole.apply(p).stage("llvm").passes[-2:] == ("dce", "dce")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        ({"after": {"no-such-pass": "x"}}, ValueError, "no pass 'no-such-pass'; its passes: ti-lower-sparse,ti-scalarize"),
        ({"drop": ["nope"]}, ValueError, "no pass 'nope'"),
        ({"stages": {"ptx": "x"}}, ValueError, "no stage 'ptx'"),
        ({"insert": {}}, ValueError, "unknown key"),
        ("ti-scalarize", TypeError, "takes a dict"),
        ({"after": {"cse": 3}}, TypeError, "pass-spec string"),
    ],
)
def test_bad_edits_are_named(value: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        edits = PipelineEdits.parse(value)
        assert edits is not None
        edits.apply(pipeline("cpu"))


def _register_test_passes() -> None:
    from xdsl.context import Context
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    @dataclass(frozen=True)
    class SwapAddf(ModulePass):
        name = "test-swap-addf"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            for add in op.walk():
                if isinstance(add, arith.AddfOp):
                    add.operands = (add.rhs, add.lhs)

    @dataclass(frozen=True)
    class BreakIR(ModulePass):
        """Leaves a store of an f32 into an i32 memref: invalid IR."""

        name = "test-break-ir"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            from xdsl.dialects import memref

            for store in op.walk():
                if isinstance(store, memref.StoreOp):
                    store.operands = (store.memref, store.memref, *store.indices)
                    return

    registry.register_pass(SwapAddf)
    registry.register_pass(BreakIR)


def test_edited_pipeline_runs_a_registered_pass(arch: Any) -> None:
    _register_test_passes()
    edits = PipelineEdits.parse({"after": {"ti-offload": "test-swap-addf"}})
    stream = io.StringIO()
    b = backend(arch, passes=edits, print_ir=True, ir_stream=stream)
    kernel = b.compile(parse(SAXPY), "saxpy")
    assert "IR Dump After test-swap-addf (saxpy)" in stream.getvalue()
    np.testing.assert_allclose(run_saxpy(kernel), 2 * np.arange(8) + 1)


def test_a_pass_that_breaks_the_ir_is_named_with_a_location(arch: Any) -> None:
    _register_test_passes()
    edits = PipelineEdits.parse({"after": {"ti-mem2reg": "test-break-ir"}})
    with pytest.raises(TaichiCompilationError) as info:
        backend(arch, passes=edits).compile(parse(SAXPY), "saxpy")
    message = str(info.value)
    assert "pass 'test-break-ir' left invalid IR" in message
    assert "saxpy.mlir:" in message  # the op's source position


def test_unknown_pass_in_edits_is_a_compilation_error(arch: Any) -> None:
    edits = PipelineEdits.parse({"after": {"ti-offload": "no-such-pass"}})
    with pytest.raises(TaichiCompilationError, match="no-such-pass"):
        backend(arch, passes=edits).compile(parse(SAXPY), "saxpy")


def test_offline_cache_key_includes_the_pipeline(tmp_path: Path) -> None:
    from taichi_xdsl.targets.llvm.backend import CpuBackend
    from taichi_xdsl.utils.cache import OfflineCache

    cache = OfflineCache(str(tmp_path))
    module = parse(SAXPY)
    plain = CpuBackend(offline_cache=cache).cache_key(module)
    edited = CpuBackend(
        offline_cache=cache, passes=PipelineEdits.parse({"drop": ["ti-split-parallel-loop"]})
    ).cache_key(module)
    per_kernel = CpuBackend(offline_cache=cache).cache_key(
        module, passes=PipelineEdits.parse({"after": {"cse": "dce"}})
    )
    assert len({plain, edited, per_kernel}) == 3


# -- IR out and back in -----------------------------------------------------------------


def test_print_ir_is_text_ti_opt_reads(arch: Any, tmp_path: Path) -> None:
    stream = io.StringIO()
    backend(arch, print_ir=True, ir_stream=stream).compile(parse(SAXPY), "saxpy")
    text = stream.getvalue()
    assert "ModuleOp(" not in text
    dump = text.split("// -----// IR Dump After ti-offload (saxpy) //----- //\n")[1]
    dump = dump.split("// -----//")[0]
    path = tmp_path / "after-offload.mlir"
    path.write_text(dump)
    done = subprocess.run(
        [sys.executable, "-m", "taichi_xdsl.utils.ti_opt", str(path), "-p", "ti-demote-atomics"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "offload.kernel @saxpy" in done.stdout


def test_dump_ir_and_compile_every_stage_back(arch: Any, tmp_path: Path) -> None:
    """Each stage's dump compiles and runs again, giving the same answer."""
    b = backend(arch, dump_ir=str(tmp_path))
    b.compile(parse(SAXPY), "saxpy")
    last = pipeline(arch).stages[-1].name
    names = sorted(p.name for p in tmp_path.iterdir())
    assert {f"saxpy.{s}.mlir" for s in ("taichi", "offload", last)} <= set(names)
    for stage in ("taichi", "offload", last):
        text = (tmp_path / f"saxpy.{stage}.mlir").read_text()
        kernel = backend(arch).compile(parse(text), "saxpy")
        np.testing.assert_allclose(run_saxpy(kernel), 2 * np.arange(8) + 1)


def test_lower_stops_at_a_stage_or_pass(arch: Any) -> None:
    b = backend(arch)
    assert "offload.kernel" in str(b.lower(parse(SAXPY), "saxpy", "ti-offload"))
    assert "taichi.kernel" in str(b.lower(parse(SAXPY), "saxpy", "taichi"))
    with pytest.raises(ValueError, match="neither a stage"):
        b.lower(parse(SAXPY), "saxpy", "no-such-pass")


def test_missing_kernel_is_named(arch: Any) -> None:
    with pytest.raises(TaichiCompilationError, match="no kernel 'nope' in the module"):
        backend(arch).compile(parse(SAXPY), "nope")


def test_pass_statistics(arch: Any) -> None:
    from taichi_xdsl.utils.pass_runner import format_pass_statistics

    stream = io.StringIO()
    b = backend(arch, print_pass_statistics=True, ir_stream=stream)
    b.compile(parse(SAXPY), "saxpy")
    stats = {s.name: s for s in b.runner.statistics}
    assert stats["ti-offload"].delta.get("offload.range_for") == 1
    assert stats["ti-offload"].delta.get("taichi.range_for") == -1
    for s in b.runner.statistics:
        assert s.after - s.before == sum(s.delta.values())
    text = stream.getvalue()
    assert "pass statistics of saxpy" in text and "offload.range_for +1" in text
    report = format_pass_statistics(b.runner.statistics, "t").splitlines()
    assert len(report) == 2 + len(b.runner.statistics)


def test_offline_cache_key_follows_plugin_source(tmp_path: Path) -> None:
    """Editing a plugin pass's file changes the key: no stale code from its old version."""
    from taichi_xdsl.targets.llvm.backend import CpuBackend
    from taichi_xdsl.utils.cache import OfflineCache

    plugin = tmp_path / "plugin.py"
    source = (
        "from dataclasses import dataclass\n"
        "from xdsl.passes import ModulePass\n"
        "@dataclass(frozen=True)\n"
        "class P(ModulePass):\n"
        "    name = 'test-fingerprinted'\n"
        "    def apply(self, ctx, op):\n"
        "        pass\n"
    )
    edits = PipelineEdits.parse({"after": {"cse": "test-fingerprinted"}})
    keys = []
    for version in ("", "# version 2\n"):
        plugin.write_text(version + source)
        for pass_type in registry.load_pass_plugin(plugin).values():
            registry.register_pass(pass_type)
        backend = CpuBackend(offline_cache=OfflineCache(str(tmp_path / "c")), passes=edits)
        keys.append(backend.cache_key(parse(SAXPY)))
    assert keys[0] != keys[1]
