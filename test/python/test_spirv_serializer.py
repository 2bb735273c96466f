"""
The SPIR-V serializer: a compute shader built with the dialect's Python API serializes
deterministically, spirv-val accepts it, and the pure-Python text form is exactly what
`spirv-dis --raw-id` prints (so `spirv-as` reads it back to the same words).

The spirv-tools checks are skipped, with the reason shown, when the tools are absent.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from taichi_xdsl.dialects import spirv
from taichi_xdsl.targets.spirv.instructions import float_number, integer_number
from taichi_xdsl.targets.spirv.serializer import disassemble_text, serialize
from taichi_xdsl.utils.registry import make_context
from xdsl.dialects.builtin import ModuleOp, VectorType, f32, i32
from xdsl.ir import Block, Region

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "test"


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} not on PATH (install spirv-tools to run this check)")
    return path


def _f32_buffer() -> spirv.PointerType:
    array = spirv.RuntimeArrayType(f32, stride=4)
    return spirv.PointerType(
        spirv.StructType([array], offsets=[0], decorations=["Block"]), "StorageBuffer"
    )


def build_saxpy() -> spirv.ModuleOp:
    """
    `y[i] = a * x[i] + y[i]` for i in [0, n) as a grid-stride loop, a and n read from a
    push-constant block, built op by op with the Python API.
    """
    uvec3_in = spirv.PointerType(VectorType(i32, [3]), "Input")
    gid = spirv.GlobalVariableOp("gid", uvec3_in, built_in="GlobalInvocationId")
    nwg = spirv.GlobalVariableOp("nwg", uvec3_in, built_in="NumWorkgroups")
    x = spirv.GlobalVariableOp("x", _f32_buffer(), descriptor_set=0, binding=0)
    y = spirv.GlobalVariableOp("y", _f32_buffer(), descriptor_set=0, binding=1)
    params = spirv.StructType([f32, i32], offsets=[0, 4], decorations=["Block"])
    args = spirv.GlobalVariableOp("args", spirv.PointerType(params, "PushConstant"))

    c0, c1 = spirv.ConstantOp.from_int(0), spirv.ConstantOp.from_int(1)
    block_dim = spirv.ConstantOp.from_int(128)
    gid_v = spirv.LoadOp(spirv.AddressOfOp(gid))
    nwg_v = spirv.LoadOp(spirv.AddressOfOp(nwg))
    begin = spirv.CompositeExtractOp(gid_v, [0])
    groups = spirv.CompositeExtractOp(nwg_v, [0])
    stride = spirv.IMulOp(groups, block_dim)
    args_p = spirv.AddressOfOp(args)
    a = spirv.LoadOp(spirv.AccessChainOp(args_p, [c0]))
    n = spirv.LoadOp(spirv.AccessChainOp(args_p, [c1]))
    x_p, y_p = spirv.AddressOfOp(x), spirv.AddressOfOp(y)
    prologue = [c0, c1, block_dim, gid_v.ptr.owner, gid_v, nwg_v.ptr.owner, nwg_v, begin]
    prologue += [groups, stride, args_p, a.ptr.owner, a, n.ptr.owner, n, x_p, y_p]

    header, body = Block(arg_types=[i32]), Block()
    continue_block, merge = Block(), Block([spirv.MergeOp()])
    i = header.args[0]
    in_range = spirv.SLessThanOp(i, n)
    header.add_ops([in_range, spirv.BranchConditionalOp(in_range, body, merge)])
    xi_p = spirv.AccessChainOp(x_p, [c0, i])
    yi_p = spirv.AccessChainOp(y_p, [c0, i])
    xi, yi = spirv.LoadOp(xi_p), spirv.LoadOp(yi_p)
    ax = spirv.FMulOp(a, xi)
    r = spirv.FAddOp(ax, yi)
    body.add_ops([xi_p, yi_p, xi, yi, ax, r, spirv.StoreOp(yi_p, r)])
    body.add_op(spirv.BranchOp(continue_block))
    step = spirv.IAddOp(i, stride)
    continue_block.add_ops([step, spirv.BranchOp(header, step)])
    entry = Block([spirv.BranchOp(header, begin)])
    loop = spirv.LoopOp(Region([entry, header, body, continue_block, merge]))

    main = spirv.FuncOp(
        "main", ([], []), Region(Block([*prologue, loop, spirv.ReturnOp()]))
    )
    vce = spirv.VerCapExtAttr("v1.3", ["Shader"], ["SPV_KHR_storage_buffer_storage_class"])
    return spirv.ModuleOp(
        [
            gid,
            nwg,
            x,
            y,
            args,
            main,
            spirv.EntryPointOp("GLCompute", "main", ["gid", "nwg"]),
            spirv.ExecutionModeOp("main", "LocalSize", [128, 1, 1]),
        ],
        vce,
    )


def test_builder_module_verifies_and_prints():
    module = build_saxpy()
    module.verify()
    text = str(module)
    assert 'spirv.EntryPoint "GLCompute" @main, @gid, @nwg' in text
    assert "spirv.AccessChain" in text and "-> !spirv.ptr<f32, StorageBuffer>" in text


def test_header_and_determinism():
    data = serialize(build_saxpy())
    magic, version, generator, bound, schema = struct.unpack("<5I", data[:20])
    assert (magic, version, generator, schema) == (0x07230203, 0x00010300, 0, 0)
    assert len(data) % 4 == 0 and bound > 1
    # The same input gives the same bytes, whether rebuilt or serialized twice (the
    # serializer leaves no state in the module).
    module = build_saxpy()
    assert serialize(module) == data
    assert serialize(module) == data
    # And different input, different bytes: the comparison above can fail.
    assert serialize(module, debug_names=False) != data


def test_debug_names_are_optional():
    with_names = disassemble_text(build_saxpy())
    without = disassemble_text(build_saxpy(), debug_names=False)
    assert "OpName %" in with_names and "OpName" not in without
    assert len(serialize(build_saxpy(), debug_names=False)) < len(serialize(build_saxpy()))


def test_spirv_val_accepts_builder_module(tmp_path: Path):
    spirv_val = _tool("spirv-val")
    path = tmp_path / "saxpy.spv"
    path.write_bytes(serialize(build_saxpy()))
    result = subprocess.run(
        [spirv_val, "--target-env", "vulkan1.1", str(path)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr + disassemble_text(build_saxpy())


def _parse(path: Path) -> ModuleOp:
    from xdsl.parser import Parser

    return Parser(make_context(), path.read_text(), str(path)).parse_module()


@pytest.mark.parametrize(
    "source",
    [
        "targets/spirv-val-saxpy.mlir",
        "targets/spirv-val-control-flow.mlir",
        "targets/spirv-asm.mlir",
        "dialects/spirv/ops.mlir",
    ],
)
def test_text_matches_spirv_dis(source: str, tmp_path: Path):
    """The pure-Python text is exactly spirv-dis's, over every op the dialect has."""
    spirv_dis = _tool("spirv-dis")
    module = _parse(TESTS / source)
    for spirv_module in [op for op in module.walk() if isinstance(op, spirv.ModuleOp)]:
        if not spirv_module.body.block.ops:
            continue
        path = tmp_path / "module.spv"
        path.write_bytes(serialize(spirv_module))
        expected = subprocess.run(
            [spirv_dis, "--raw-id", str(path)], capture_output=True, text=True, check=True
        ).stdout
        assert disassemble_text(spirv_module) == expected


def test_spirv_as_reads_the_text_back(tmp_path: Path):
    """`spirv-as` assembles our text to our words (all but the generator word)."""
    spirv_as = _tool("spirv-as")
    module = build_saxpy()
    source = tmp_path / "saxpy.spvasm"
    source.write_text(disassemble_text(module))
    out = tmp_path / "saxpy.spv"
    subprocess.run(
        [
            spirv_as,
            "--preserve-numeric-ids",
            "--target-env",
            "spv1.3",
            str(source),
            "-o",
            str(out),
        ],
        check=True,
    )
    ours, theirs = serialize(module), out.read_bytes()
    assert ours[:8] == theirs[:8] and ours[12:] == theirs[12:]


def test_ti_opt_spirv_target_writes_the_binary(tmp_path: Path):
    source = TESTS / "targets" / "spirv-val-saxpy.mlir"
    result = subprocess.run(
        [sys.executable, "-m", "taichi_xdsl.utils.ti_opt", str(source), "-t", "spirv"],
        capture_output=True,
        check=True,
    )
    assert result.stdout == serialize(_parse(source))
    out = tmp_path / "saxpy.spv"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "taichi_xdsl.utils.ti_opt",
            str(source),
            "-t",
            "spirv",
            "-o",
            str(out),
        ],
        check=True,
    )
    assert out.read_bytes() == result.stdout


@pytest.mark.parametrize(
    ("value", "width", "text"),
    [
        (0.5, 32, "0.5"),
        (1.0, 32, "1"),
        (-2.0, 32, "-2"),
        (0.1, 32, "0.100000001"),
        (1e10, 32, "1e+10"),
        (-0.0, 32, "-0"),
        (float("inf"), 32, "0x1p+128"),
        (float("nan"), 32, "0x1.8p+128"),
        (1e-45, 32, "0x1p-149"),
        (0.1, 64, "0.10000000000000001"),
        (0.5, 16, "0x1p-1"),
        (65504.0, 16, "0x1.ffcp+15"),
    ],
)
def test_float_literals_print_as_spirv_dis(value: float, width: int, text: str):
    assert float_number(value, width).text() == text


def test_integer_literals():
    assert integer_number(-1, 32, signed=True).words() == [0xFFFFFFFF]
    assert integer_number(-1, 32, signed=False).text() == "4294967295"
    # Narrower than a word: sign-extended when signed, zero-extended otherwise.
    assert integer_number(-3, 16, signed=True).words() == [0xFFFFFFFD]
    assert integer_number(-3, 16, signed=False).words() == [0xFFFD]
    assert integer_number(5_000_000_000, 64, signed=False).words() == [0x2A05F200, 1]


def test_every_op_has_an_encoding():
    """Each op of the dialect is written by the serializer: by table or by its own case."""
    from taichi_xdsl.targets.spirv.opcodes import ATOMIC_OPS, GLSL_STD_450, SIMPLE_OPS

    by_hand = {
        "spirv.module", "spirv.func", "spirv.EntryPoint", "spirv.ExecutionMode",
        "spirv.GlobalVariable", "spirv.mlir.addressof", "spirv.Constant", "spirv.Variable",
        "spirv.Load", "spirv.Store", "spirv.CompositeExtract", "spirv.CompositeInsert",
        "spirv.FunctionCall", "spirv.mlir.selection", "spirv.mlir.loop", "spirv.mlir.merge",
        "spirv.Branch", "spirv.BranchConditional", "spirv.Return", "spirv.ReturnValue",
        "spirv.Unreachable", "spirv.AtomicCompareExchange", "spirv.ControlBarrier",
        "spirv.MemoryBarrier", "spirv.ImageFetch", "spirv.ImageSampleExplicitLod",
        "spirv.ImageWrite", "spirv.GroupNonUniformFAdd", "spirv.GroupNonUniformIAdd",
        "spirv.GroupNonUniformElect",
        *(group_op.name for group_op in spirv.GROUP_OPS),  # by the two group cases
    }  # fmt: skip
    for op in spirv.SPIRV.operations:
        gl = op.name.removeprefix("spirv.GL.")
        assert (
            op.name in by_hand
            or op.name in SIMPLE_OPS
            or op.name in ATOMIC_OPS
            or gl in GLSL_STD_450
        ), op.name
