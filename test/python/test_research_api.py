"""
A compiler researcher's workflow from Python, on cpu and vulkan: the pipeline changed by
ti.init(passes=...) and @ti.kernel(passes=...), kernel IR at any stage (get_ir,
dump_ir), IR compiled back (ti.compile_ir), ti-opt --from-python, pass statistics.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiCompilationError


def _register_two_to_three() -> None:
    """A pass that turns `x * 2.0` into `x * 3.0` (a visible, deliberate change)."""
    from xdsl.context import Context
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import FloatAttr, ModuleOp
    from xdsl.passes import ModulePass

    @dataclass(frozen=True)
    class TwoToThree(ModulePass):
        name = "test-two-to-three"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            for c in op.walk():
                if (
                    isinstance(c, arith.ConstantOp)
                    and isinstance(c.value, FloatAttr)
                    and c.value.value.data == 2.0
                ):
                    c.value = FloatAttr(3.0, c.value.type)

    ti.compiler.register_pass(TwoToThree)


def _double() -> Any:
    @ti.kernel
    def double(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] * 2.0

    return double


def test_init_passes_change_what_runs(arch: Any) -> None:
    _register_two_to_three()
    ti.init(arch=arch, offline_cache=False, passes={"after": {"ti-mem2reg": "test-two-to-three"}})
    x = np.ones(8, np.float32)
    _double()(x)
    np.testing.assert_allclose(x, 3.0)
    ti.init(arch=arch, offline_cache=False)
    x = np.ones(8, np.float32)
    _double()(x)
    np.testing.assert_allclose(x, 2.0)


def test_kernel_passes_apply_to_that_kernel_only(arch: Any) -> None:
    _register_two_to_three()
    ti.init(arch=arch, offline_cache=False)

    @ti.kernel(passes={"before": {"ti-offload": "test-two-to-three"}})
    def edited(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] * 2.0

    x, y = np.ones(4, np.float32), np.ones(4, np.float32)
    edited(x)
    _double()(y)
    np.testing.assert_allclose(x, 3.0)
    np.testing.assert_allclose(y, 2.0)


def test_offline_cache_keeps_pipelines_apart(tmp_path: Path) -> None:
    _register_two_to_three()
    for passes, want in ((None, 2.0), ({"after": {"cse": "test-two-to-three"}}, 3.0), (None, 2.0)):
        ti.init(
            arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path), passes=passes
        )
        x = np.ones(4, np.float32)
        _double()(x)
        np.testing.assert_allclose(x, want)


def test_bad_passes_fail_at_init(arch: Any) -> None:
    with pytest.raises(ValueError, match="has no pass 'no-such-pass'"):
        ti.init(arch=arch, passes={"after": {"no-such-pass": "cse"}})
    with pytest.raises(ValueError, match="unknown key"):
        ti.init(arch=arch, passes={"afterr": {}})


def test_a_broken_pass_is_named_with_the_python_line(arch: Any) -> None:
    from xdsl.context import Context
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    @dataclass(frozen=True)
    class StoreTheAddress(ModulePass):
        name = "test-store-the-address"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            for store in op.walk():
                if isinstance(store, memref.StoreOp):
                    store.operands = (store.memref, store.memref, *store.indices)
                    return

    ti.compiler.register_pass(StoreTheAddress)
    ti.init(arch=arch, offline_cache=False, passes={"after": {"ti-offload": "test-store-the-address"}})
    with pytest.raises(TaichiCompilationError) as info:
        _double()(np.ones(4, np.float32))
    message = str(info.value)
    assert "pass 'test-store-the-address' left invalid IR" in message
    # the first store after ti-offload keeps x.shape[0] for the loop: its line is named
    assert f"{Path(__file__).name}:" in message and "range(x.shape[0])" in message


def test_get_ir_at_each_stage(arch: Any) -> None:
    ti.init(arch=arch, offline_cache=False)
    k = _double()
    x = np.ones(4, np.float32)
    last = ti.compiler.pipeline(arch).stages[-1].name
    assert "taichi.kernel @double" in str(k.get_ir(x))
    assert "offload.range_for" in str(k.get_ir(x, stage="offload"))
    assert "taichi.range_for" in str(k.get_ir(x, stage="ti-mem2reg"))
    final = str(k.get_ir(x, stage=last))
    assert ("llvm.func" if last == "llvm" else "spirv.module") in final
    assert "ti.launch_plans" in final
    with pytest.raises(ValueError, match="neither a stage"):
        k.get_ir(x, stage="nope")


def test_dump_ir_then_compile_ir_every_stage(arch: Any, tmp_path: Path) -> None:
    ti.init(arch=arch, offline_cache=False, dump_ir=str(tmp_path))
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def scaled_sum(x: ti.types.ndarray(dtype=ti.f32, ndim=1), a: ti.f32) -> ti.f32:
        s = 0.0
        for i in range(x.shape[0]):
            total[None] += a * x[i]
            s += x[i]
        return s

    x = np.arange(16, dtype=np.float32)
    assert scaled_sum(x, 2.0) == 120.0
    scaled_sum.get_ir(x, 2.0, stage="ti-mem2reg")  # a query: leaves the dumps alone
    assert "offload.kernel" in (tmp_path / "scaled_sum.offload.mlir").read_text()
    last = ti.compiler.pipeline(arch).stages[-1].name
    for stage in ("taichi", "offload", last):
        path = tmp_path / f"scaled_sum.{stage}.mlir"
        assert path.is_file(), sorted(p.name for p in tmp_path.iterdir())
        # ti-opt reads every dump back
        done = subprocess.run(
            [sys.executable, "-m", "taichi_xdsl.utils.ti_opt", str(path)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        ti.init(arch=arch, offline_cache=False)
        total = ti.field(ti.f32, shape=())
        kernel = ti.compile_ir(path)
        assert kernel.stage == ("final" if stage == last else stage)
        assert kernel(x, 3.0) == 120.0
        assert total[None] == 360.0


def test_compile_ir_errors(arch: Any, tmp_path: Path) -> None:
    ti.init(arch=arch, offline_cache=False)
    with pytest.raises(TaichiCompilationError, match="kernels in the IR: a, b"):
        ti.compile_ir(
            "taichi.kernel @a() {\n  taichi.return\n}\ntaichi.kernel @b() {\n  taichi.return\n}\n"
        )
    bad = tmp_path / "bad.mlir"
    bad.write_text("taichi.kernel @a() {\n  taichi.bogus\n}\n")
    with pytest.raises(TaichiCompilationError, match=r"bad\.mlir:\d+:\d+\n.*\n.*\^\nOperation taichi.bogus"):
        ti.compile_ir(bad)
    fields = "taichi.field @f : memref<4xf32> offset 0\ntaichi.kernel @a() {\n  taichi.return\n}\n"
    with pytest.raises(TaichiCompilationError, match="uses 16 bytes of fields"):
        ti.compile_ir(fields)


def test_ti_opt_from_python(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text(
        "import numpy as np\n"
        "import taichi_xdsl as ti\n"
        "ti.init(arch=ti.cpu)\n"
        "@ti.kernel\n"
        "def called(x: ti.types.ndarray()):\n"
        "    for i in range(x.shape[0]):\n"
        "        x[i] = x[i] * 2\n"
        "@ti.kernel\n"
        "def uncalled(n: ti.i32) -> ti.i32:\n"
        "    return n + 1\n"
        "@ti.kernel\n"
        "def templated(a: ti.template()):\n"
        "    pass\n"
        "called(np.ones(3, np.int64))\n"
        "print('the program ran')\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "taichi_xdsl.utils.ti_opt", "--from-python", str(program)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "taichi.kernel @called(%x: memref<?xi64>)" in done.stdout
    assert "taichi.kernel @uncalled(%n: i32) -> i32" in done.stdout
    assert "templated" not in done.stdout and "'templated'" in done.stderr
    assert "the program ran" in done.stderr  # its prints stay out of the IR
    again = subprocess.run(
        [sys.executable, "-m", "taichi_xdsl.utils.ti_opt", "-p", "ti-to-offload"],
        input=done.stdout,
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    assert "offload.kernel @called" in again.stdout


def test_print_ir_and_statistics_from_init(arch: Any, capfd: pytest.CaptureFixture[str]) -> None:
    ti.init(arch=arch, offline_cache=False, print_ir=True, print_pass_statistics=True)
    _double()(np.ones(4, np.float32))
    out = capfd.readouterr().out
    assert "ModuleOp(" not in out
    assert "IR Dump After ti-offload (double)" in out
    assert "pass statistics of double" in out and "offload.range_for +1" in out


def test_print_ir_dumps_parse_back(arch: Any, capfd: pytest.CaptureFixture[str]) -> None:
    """Every IR dump of `ti.init(print_ir=True)` is MLIR that ti-opt reads as it is."""
    from xdsl.parser import Parser

    from taichi_xdsl.utils import registry

    ti.init(arch=arch, offline_cache=False, print_ir=True)
    _double()(np.ones(4, np.float32))
    out = capfd.readouterr().out
    blocks = out.split("// -----// ")[1:]
    dumps = [b.split("\n", 1) for b in blocks if "LLVM IR" not in b.split("\n", 1)[0]]
    assert len(dumps) > 5
    for title, text in dumps:
        module = Parser(registry.make_context(), text).parse_module()
        assert module.ops.first is not None, title
