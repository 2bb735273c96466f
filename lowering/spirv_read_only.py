"""
Read-only storage buffers of a task module (part of convert-offload-to-spirv): every
storage-buffer variable whose binding the task only loads from (no store, no atomic,
through any view of that binding) gets the member decoration `NonWritable`, so the
driver may read it through its read-only data path (NVIDIA's non-coherent texture
cache: a 5-point stencil over an ndarray, 18.8 -> 17.9 us on an H100,
bench/results/h100-s8-vkvar2.txt).

    spirv.GlobalVariable @arr6_f32 bind(0, 6) : !spirv.ptr<!spirv.struct<(
        !spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
      ~> spirv.GlobalVariable @arr6_f32 bind(0, 6) : !spirv.ptr<!spirv.struct<(
        !spirv.rtarray<f32, stride=4> [0, NonWritable]), Block>, StorageBuffer>

A binding is judged as a whole: views of one buffer as several element types alias, so
a store through one of them keeps all of them writable (the decoration lets the driver
serve loads from a cache that does not see that dispatch's own stores). A pointer is
followed through access chains and pointer selects; any use other than the pointer of a
`spirv.Load` counts as a write.
"""

from __future__ import annotations

from taichi_xdsl.dialects import spirv
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter


def _only_loaded(pointer: SSAValue) -> bool:
    """Whether every use of `pointer` (through access chains and selects) is a load."""
    work = [pointer]
    while work:
        value = work.pop()
        for use in value.uses:
            user = use.operation
            if isinstance(user, spirv.LoadOp):
                continue
            if isinstance(user, spirv.AccessChainOp) and use.index == 0:
                work.append(user.results[0])
            elif isinstance(user, spirv.SelectOp) and use.index > 0:
                work.append(user.results[0])
            else:
                return False
    return True


def _buffer_variables(module: spirv.ModuleOp) -> list[spirv.GlobalVariableOp]:
    """The module's storage-buffer variables of a one-member Block struct."""
    found = []
    for op in module.body.block.ops:
        if not isinstance(op, spirv.GlobalVariableOp) or op.binding is None:
            continue
        pointer = op.type
        if not (
            isinstance(pointer, spirv.PointerType)
            and pointer.storage_class.data == "StorageBuffer"
            and isinstance(pointer.pointee_type, spirv.StructType)
            and pointer.pointee_type.num_members == 1
        ):
            continue
        found.append(op)
    return found


def mark_read_only_buffers(module: spirv.ModuleOp) -> None:
    """Decorate NonWritable the buffer variables of bindings that `module` never writes."""
    variables = _buffer_variables(module)
    if not variables:
        return
    addresses: dict[str, list[spirv.AddressOfOp]] = {}
    for op in module.walk():
        if isinstance(op, spirv.AddressOfOp):
            addresses.setdefault(op.variable.root_reference.data, []).append(op)
    written: set[int] = set()
    for var in variables:
        binding = _binding(var)
        for address in addresses.get(var.sym_name.data, []):
            if not _only_loaded(address.results[0]):
                written.add(binding)
    for var in variables:
        if _binding(var) in written:
            continue
        _decorate(var, addresses.get(var.sym_name.data, []))


def _binding(var: spirv.GlobalVariableOp) -> int:
    assert isinstance(var.binding, IntegerAttr)
    return var.binding.value.data


def _decorate(var: spirv.GlobalVariableOp, addresses: list[spirv.AddressOfOp]) -> None:
    pointer = var.type
    assert isinstance(pointer, spirv.PointerType)
    block = pointer.pointee_type
    assert isinstance(block, spirv.StructType)
    if "NonWritable" in block.decorations_of(0):
        return
    offsets = [block.offset_of(0)] if block.offsets.data else None
    marked = spirv.StructType(
        block.member_types.data,
        offsets=offsets,  # type: ignore[arg-type]
        member_decorations=[[*block.decorations_of(0), "NonWritable"]],
        decorations=block.decoration_names,
    )
    new_pointer = spirv.PointerType(marked, "StorageBuffer")
    var.properties["type"] = new_pointer
    for address in addresses:  # a view's access chains point at its elements: unchanged
        Rewriter.replace_op(address, spirv.AddressOfOp(var.sym_name.data, new_pointer))
