"""
Capabilities of convert-offload-to-spirv: after a task is converted, check that only
spirv ops are left, collect the capabilities and extensions its types and ops need
(failing for a type the target's caps lack), declare float controls when asked, and set
the module's version/capability/extension triple.
"""

from __future__ import annotations

from taichi_xdsl.dialects import spirv
from taichi_xdsl.lowering.spirv_common import TaskState, byte_size, fail
from xdsl.dialects.builtin import (
    AnyFloat,
    Float16Type,
    Float64Type,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation

_TYPE_CAPS: list[tuple[type, int, str, str]] = [
    (IntegerType, 64, "spirv_has_int64", "Int64"),
    (IntegerType, 16, "spirv_has_int16", "Int16"),
    (IntegerType, 8, "spirv_has_int8", "Int8"),
    (Float64Type, 64, "spirv_has_float64", "Float64"),
    (Float16Type, 16, "spirv_has_float16", "Float16"),
]


def _types_in(t: Attribute) -> list[Attribute]:
    if isinstance(t, spirv.PointerType):
        return [t, *_types_in(t.pointee_type)]
    if isinstance(t, spirv.StructType):
        return [t, *(x for m in t.member_types for x in _types_in(m))]
    if isinstance(t, spirv.RuntimeArrayType):
        return [t, *_types_in(t.element_type)]
    if isinstance(t, VectorType):
        return [t, t.element_type]
    return [t]


def _width(t: Attribute) -> int:
    """The bit width of an integer or float type (the only types it is asked about)."""
    if isinstance(t, IntegerType):
        return t.width.data
    assert isinstance(t, AnyFloat)
    return t.bitwidth


def finish_module(state: TaskState, task: Operation) -> None:
    """Check what is left, collect the capabilities the code needs, set the VCE triple."""
    module = state.module
    # The type objects of the values, by identity: most values share a few of them, and
    # hashing a type (what `seen` does) walks its parameters.
    types: dict[int, Attribute] = {}
    for op in module.walk():
        if op is not module and not op.name.startswith("spirv."):
            raise fail(
                op,
                f"'{op.name}' has no SPIR-V lowering here (the pipeline runs "
                "convert-taichi-to-spirv and convert-arith-to-spirv first)",
            )
        for value in op.results:
            types[id(value.type)] = value.type
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    types[id(arg.type)] = arg.type
        if isinstance(op, spirv.GlobalVariableOp):
            types[id(op.type)] = op.type
    seen: set[Attribute] = set()
    for t in types.values():
        seen.update(_types_in(t))
    storage_widths: set[int] = set()
    for t in seen:
        if isinstance(t, spirv.PointerType) and t.storage_class.data == "StorageBuffer":
            scalar = t.pointee_type
            if isinstance(scalar, IntegerType | AnyFloat) and byte_size(scalar) < 4:
                storage_widths.add(byte_size(scalar) * 8)
    for kind, width, cap, capability in _TYPE_CAPS:  # in a fixed order: stable messages
        if any(isinstance(t, kind) and _width(t) == width for t in seen):
            if not state.caps.get(cap):
                letter = "i" if kind is IntegerType else "f"
                raise fail(
                    task,
                    f"{letter}{width} values need the {cap} cap, which the target lacks",
                )
            state.capabilities.add(capability)
    if 8 in storage_widths:
        state.capabilities.add("StorageBuffer8BitAccess")
        state.extensions.add("SPV_KHR_8bit_storage")
    if 16 in storage_widths:
        state.capabilities.add("StorageBuffer16BitAccess")
        state.extensions.add("SPV_KHR_16bit_storage")
    if state.preserve_nan_inf:
        _preserve_nan_inf(state, seen)
    capabilities = ["Shader", *sorted(state.capabilities)]
    extensions = ["SPV_KHR_storage_buffer_storage_class", *sorted(state.extensions)]
    module.vce_triple = spirv.VerCapExtAttr(SPIRV_VERSION, capabilities, extensions)


SPIRV_VERSION = "v1.3"
"""The SPIR-V version of every generated module (below 1.4: float controls are the
SPV_KHR_float_controls extension)."""


def _preserve_nan_inf(state: TaskState, seen: set[Attribute]) -> None:
    """Declare `SignedZeroInfNanPreserve` on the task's entry point for 32-bit floats
    and for each other float width the module uses (the capability, and the extension
    while the module's SPIR-V version is below 1.4)."""
    widths = {32} | {_width(t) for t in seen if isinstance(t, Float16Type | Float64Type)}
    module = state.module
    entry = next(op for op in module.body.block.ops if isinstance(op, spirv.EntryPointOp))
    symbol = entry.fn.root_reference.data
    module.body.block.add_ops(
        spirv.ExecutionModeOp(symbol, "SignedZeroInfNanPreserve", [width])
        for width in sorted(widths)
    )
    state.capabilities.add("SignedZeroInfNanPreserve")
    major, minor = (int(n) for n in SPIRV_VERSION[1:].split("."))
    if (major, minor) < (1, 4):
        state.extensions.add("SPV_KHR_float_controls")
