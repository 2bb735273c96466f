"""
Vulkan code for AOT modules: a kernel's module -> launch plan + one SPIR-V binary per
task, generated for declared caps without any device (the passes of VulkanBackend).

    caps = declared_caps(["spirv_has_int64"])             # or None: spirv_abi.DEFAULT_CAPS
    kernel = lower_kernel(module, "saxpy", caps)          # VulkanAotKernel
    required_caps(kernel.binaries)                        # what the code really uses

`required_caps` reads the OpCapability instructions of the binaries (and their SPIR-V
version), so metadata.json lists exactly what the code needs, whatever was declared.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from taichi_xdsl.targets.aot_format import AotFormatError
from taichi_xdsl.utils import spirv_abi
from taichi_xdsl.utils.errors import TaichiCompilationError, TaichiRuntimeError

_OP_CAPABILITY = 17
_BASELINE_CAPABILITIES = {1}  # Shader
_CAPABILITY_NAMES = {
    9: "spirv_has_float16",
    10: "spirv_has_float64",
    11: "spirv_has_int64",
    12: "spirv_has_atomic_int64",
    22: "spirv_has_int16",
    39: "spirv_has_int8",
    4433: "spirv_has_int16",  # StorageBuffer16BitAccess (int16 or float16 buffers)
    4448: "spirv_has_int8",  # StorageBuffer8BitAccess
    4441: "spirv_has_variable_ptr",  # VariablePointersStorageBuffer
    4442: "spirv_has_variable_ptr",  # VariablePointers
    6033: "spirv_has_atomic_float_add",
    6034: "spirv_has_atomic_float64_add",
    6095: "spirv_has_atomic_float16_add",
    5616: "spirv_has_atomic_float_minmax",
}
"""SPIR-V Capability operand -> Taichi DeviceCapability name."""


def declared_caps(caps: Any) -> dict[str, int]:
    """
    `ti.aot.Module(ti.vulkan, caps=...)`: None, a list of names, or {name: value}.

    Raises:
        TaichiRuntimeError: a name that is not a device capability (ti.DeviceCapability).
    """
    if caps is None:
        return dict(spirv_abi.DEFAULT_CAPS)
    if isinstance(caps, dict):
        out = {}
        for name, value in caps.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise AotFormatError(f"Vulkan caps: {name} must be an int, got {value!r}")
            out[_cap_name(name)] = value
        return out
    if isinstance(caps, list | tuple | set):
        return {_cap_name(name): 1 for name in caps}
    raise AotFormatError(f"Vulkan caps must be a dict or a list of names, got {caps!r}")


def _cap_name(name: Any) -> str:
    text = str(name)
    if text not in spirv_abi.DEVICE_CAPABILITIES:
        raise TaichiRuntimeError(
            f"unexpected device capability name: {text!r} (see ti.DeviceCapability)"
        )
    return text


def required_caps(binaries: Sequence[bytes]) -> dict[str, int]:
    """The Taichi caps that the SPIR-V `binaries` declare they use, and their version."""
    caps: dict[str, int] = {}
    version = 0x10000
    for binary in binaries:
        if len(binary) < 20 or len(binary) % 4:
            raise TaichiCompilationError("not a SPIR-V binary")
        words = struct.unpack(f"<{len(binary) // 4}I", binary)
        if words[0] != 0x07230203:
            raise TaichiCompilationError("not a little-endian SPIR-V binary")
        version = max(version, words[1])
        position = 5
        while position < len(words):
            count, opcode = words[position] >> 16, words[position] & 0xFFFF
            if count == 0:
                raise TaichiCompilationError("corrupt SPIR-V: an instruction of 0 words")
            if opcode == _OP_CAPABILITY:
                capability = words[position + 1]
                if capability not in _BASELINE_CAPABILITIES:
                    name = _CAPABILITY_NAMES.get(
                        capability, f"spirv_capability_{capability}"
                    )
                    caps[name] = 1
            position += count
    caps["spirv_version"] = version
    return caps


@dataclass
class VulkanAotKernel:
    """One kernel for a Vulkan module: its plan (backend.KernelPlan), bounds, binaries."""

    plan: Any
    gtmp_bounds: dict[tuple[int, str], int]  # (task, "begin"/"end") -> gtmp byte offset
    binaries: list[bytes]
    prints: list[tuple[int, str, tuple[str, ...]]]
    asserts: list[tuple[int, str]]
    """Debug mode: the `ti.asserts` table (message id -> assert message or access site)."""


def lower_kernel(
    module: Any,
    kernel_name: str,
    caps: dict[str, int],
    *,
    passes: Any = None,
    optimize: bool = True,
    debug: bool = False,
) -> VulkanAotKernel:
    """
    `taichi.kernel @kernel_name` of `module` (left unchanged) -> plan and SPIR-V per task,
    through VulkanBackend's pipeline (utils/pipelines.py) with `caps` and the program's
    PipelineEdits `passes`; `optimize=False` (opt_level 0) leaves out the optional
    passes; `debug` (ti.init(debug=True)) bounds-checks accesses and checks asserts.

    Raises:
        TaichiCompilationError: a pass rejected the kernel.
    """
    from taichi_xdsl.dialects import offload, spirv
    from taichi_xdsl.targets.spirv.serializer import serialize
    from taichi_xdsl.targets.vulkan.backend import lower, vulkan_pipeline
    from taichi_xdsl.utils.pass_runner import PassRunner
    from xdsl.dialects import memref

    bounds: dict[tuple[int, str], int] = {}

    def read_bounds(kernel: Any) -> None:
        for index, task in enumerate(kernel.tasks):
            if isinstance(task, offload.RangeForTask):
                for side, value in (("begin", task.lower), ("end", task.upper)):
                    owner = value.owner
                    if isinstance(owner, memref.LoadOp) and isinstance(
                        owner.memref.owner, offload.GlobalTmpOp
                    ):
                        bounds[(index, side)] = owner.memref.owner.offset.value.data

    module = module.clone()
    p = vulkan_pipeline(caps, debug=debug, optimize=optimize, passes=passes)
    plan = lower(PassRunner(), module, kernel_name, p, on_offload=read_bounds)
    assert plan is not None
    binaries: dict[int, bytes] = {}
    prints: list[tuple[int, str, tuple[str, ...]]] = []
    asserts: list[tuple[int, str]] = []
    for op in module.body.block.ops:
        if not isinstance(op, spirv.ModuleOp):
            continue
        if op.attributes["ti.kernel"].data != kernel_name:  # type: ignore[union-attr]
            continue
        binaries[op.attributes["ti.task"].value.data] = serialize(op)  # type: ignore[union-attr]
        for spec in op.attributes.get("ti.prints", ()):  # type: ignore[union-attr]
            texts = [s.data for s in spec.data]  # type: ignore[union-attr]
            prints.append((int(texts[0]), texts[1], tuple(texts[2:])))
        for spec in op.attributes.get("ti.asserts", ()):  # type: ignore[union-attr]
            ident, message = (a.data for a in spec.data)  # type: ignore[union-attr]
            asserts.append((int(ident), message))
    ordered = [binaries[i] for i in range(len(plan.tasks))]
    return VulkanAotKernel(plan, bounds, ordered, sorted(set(prints)), sorted(asserts))
