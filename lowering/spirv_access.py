"""
Storage-buffer places of convert-offload-to-spirv (utils/spirv_abi.py): kernel
arguments, global temporaries, thread-local slots, field and ndarray elements (row-major
access chains), ndarray shapes, and the loads, stores and return values on them.
Element accesses go through the debug guard of lowering/spirv_debug.py.
"""

from __future__ import annotations

from taichi_xdsl.dialects import offload, spirv, taichi
from taichi_xdsl.lowering.spirv_common import (
    TaskPattern,
    TaskState,
    byte_size,
    fail,
    int_const,
    kernel_inputs,
    load_value,
    shape_word,
)
from taichi_xdsl.lowering.field_access import access_elements
from taichi_xdsl.lowering.spirv_debug import bounds_check, check_site, guarded
from taichi_xdsl.lowering.spirv_simt import shared_element_ptr
from taichi_xdsl.utils import spirv_abi
from taichi_xdsl.utils.errors import SITE_SHIFT
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, i1
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern


class ArgLowering(TaskPattern):
    """
    A scalar argument -> a load from the argument buffer (ndarrays wait for their uses).

        %a = offload.arg 0 : f32  ~>  %p = spirv.AccessChain %args_f32[%c0, %c0]; spirv.Load
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.ArgOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.result.type, MemRefType | taichi.TextureType):
            return  # ndarrays and textures: their uses read them
        offsets, _ = kernel_inputs(self.state.kernel)
        ops: list[Operation] = []
        t = op.result.type
        ptr = self.state.byte_slot(
            spirv_abi.ARGS_BINDING, offsets[op.index.value.data], t, ops
        )
        value = load_value(self.state, ptr, ops)
        rewriter.replace(op, ops, [value])


class GlobalTmpLowering(TaskPattern):
    """`offload.global_tmp 8 : memref<i32>` -> an access chain to gtmps_i32[2]."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.GlobalTmpOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        assert isinstance(t, MemRefType)
        ops: list[Operation] = []
        ptr = self.state.byte_slot(
            spirv_abi.GTMP_BINDING, op.offset.value.data, t.element_type, ops
        )
        rewriter.replace(op, ops, [ptr])


class ThreadLocalLowering(TaskPattern):
    """`offload.thread_local N` -> one Function variable per slot, shared by prologue,
    body and epilogue of the invocation."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.ThreadLocalOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        assert isinstance(t, MemRefType)
        offset = op.offset.value.data
        if offset not in self.state.thread_locals:
            var = spirv.VariableOp(spirv.PointerType(t.element_type, "Function"))
            self.state.at_entry([var])
            self.state.thread_locals[offset] = var.results[0]
        rewriter.replace(op, [], [self.state.thread_locals[offset]])


class FieldAccessLowering(TaskPattern):
    """A field's own loads and stores (`memref.load %x[%i]`) -> loads and stores of its
    `taichi.element_ptr` (lowering/field_access.py), which ElementPtrLowering converts."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.GetFieldOp, rewriter: PatternRewriter) -> None:
        access_elements(op, rewriter, constant=int_const)


class ElementPtrLowering(TaskPattern):
    """
    `taichi.element_ptr` of a field or an ndarray -> an access chain at the row-major
    element index (shape words of an ndarray come from the argument buffer).

        %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
        ~> %k = (%i * 8 + %j) + offset(@x) / 4 ; %p = spirv.AccessChain %root_f32[%c0, %k]
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.ElementPtrOp, rewriter: PatternRewriter) -> None:
        base = op.base.owner
        base_type = op.base.type
        assert isinstance(base_type, MemRefType)
        element = base_type.element_type
        if element == i1:
            raise fail(op, "fields and ndarrays of i1 have no SPIR-V layout")
        ops: list[Operation] = []
        if isinstance(base, taichi.GetFieldOp):
            declared = self.state.fields.get(base.field.root_reference.data)
            if declared is None:
                raise fail(op, f"no taichi.field {base.field} in the module")
            offset = declared.offset.value.data
            if offset % byte_size(element):
                raise fail(op, f"field offset {offset} is not aligned")
            dims: list[SSAValue | int] = list(base_type.get_shape())
            bindings, local = _root_place(self.state, declared, op)
            start = local // byte_size(element)
        elif isinstance(base, offload.ArgOp):
            arg = base.index.value.data
            offsets, positions = kernel_inputs(self.state.kernel)
            dims = [
                d if d >= 0 else shape_word(self.state, offsets[arg], axis, ops)
                for axis, d in enumerate(base_type.get_shape())
            ]
            bindings, start = [spirv_abi.ndarray_binding(positions[arg])], 0
        elif isinstance(base, taichi.SharedArrayOp):
            ptr = shared_element_ptr(self.state, base, list(op.indices), ops)
            rewriter.replace(op, ops, [ptr])
            return
        else:
            raise fail(op, "element of something other than a field or an ndarray")
        index = _linear_index(self.state, list(op.indices), dims, start, ops)
        if len(bindings) == 1:
            ptr = self.state.element_ptr(bindings[0], element, index, ops)
        else:
            ptr = self.state.spanning_element_ptr(bindings, element, index, ops)
        if self.state.debug and len(op.indices) > 1 << SITE_SHIFT:
            raise fail(
                op, f"debug bounds checks of an access with more than {1 << SITE_SHIFT} "
                "indices (the error record names the dimension in 8 bits)",
            )
        if self.state.debug and op.indices:
            site = check_site(self.state, op)
            self.state.places[ptr].check = bounds_check(list(op.indices), dims, ops, site)
        rewriter.replace(op, ops, [ptr])


def _root_place(
    state: TaskState, declared: taichi.FieldOp, op: Operation
) -> tuple[list[int], int]:
    """The bindings of the root segments that hold field `declared` (one, unless the
    field spans several: a sparse pool's array larger than one binding), and the
    field's byte offset in the first (utils/spirv_abi.py, root segments)."""
    offset = declared.offset.value.data
    size = state.root_segment_bytes
    if not size:
        return [spirv_abi.ROOT_BINDING], offset
    segment, local = divmod(offset, size)
    field_type = declared.type
    nbytes = field_type.element_count() * byte_size(field_type.element_type)
    last = (offset + max(nbytes, 1) - 1) // size
    if last > segment and not state.caps.get("spirv_has_variable_ptr"):
        raise fail(
            op,
            f"field @{declared.sym_name.data} ({nbytes} bytes at root offset {offset}) "
            f"straddles the root segments of {size} bytes (a storage-buffer binding holds "
            "at most that much on this device), and the device has no variable pointers "
            "(variablePointersStorageBuffer) to choose a segment per element",
        )
    _, positions = kernel_inputs(state.kernel)
    textures = sum(
        isinstance(t, taichi.TextureType) for t in state.kernel.function_type.inputs.data
    )
    bindings = []
    for k in range(segment, last + 1):
        binding = spirv_abi.root_segment_binding(k, len(positions), textures)
        if k:
            state.binding_names[binding] = f"root{k}"
        bindings.append(binding)
    return bindings, local


def _linear_index(
    state: TaskState,
    indices: list[SSAValue],
    dims: list[SSAValue | int],
    start: int,
    ops: list[Operation],
) -> SSAValue:
    """start + row-major linear index of `indices` in a shape of `dims`."""
    value: SSAValue | None = None
    for index, dim in zip(indices, dims):
        if value is not None:
            if isinstance(dim, int):
                dim = state.const(dim)
            scaled = spirv.IMulOp(value, dim)
            summed = spirv.IAddOp(scaled, index)
            ops += [scaled, summed]
            value = summed.results[0]
        else:
            value = index
    if value is None:
        return state.const(start)
    if start == 0:
        return value
    total = spirv.IAddOp(value, state.const(start))
    ops.append(total)
    return total.results[0]


class DimLowering(TaskPattern):
    """`memref.dim` of an ndarray argument -> the shape word in the argument buffer
    (i32); the `arith.index_cast` to i32 that follows it folds away."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DimOp, rewriter: PatternRewriter) -> None:
        source = op.source.owner
        axis = op.index.owner
        if not isinstance(source, offload.ArgOp):
            raise fail(op, "memref.dim of something other than an ndarray argument")
        if not isinstance(axis, arith.ConstantOp) or not isinstance(
            axis.value, IntegerAttr
        ):
            raise fail(op, "memref.dim needs a constant axis")
        offsets, _ = kernel_inputs(self.state.kernel)
        ops: list[Operation] = []
        dim = axis.value.value.data
        source_type = source.result.type
        assert isinstance(source_type, MemRefType)
        static = source_type.get_shape()[dim]
        if static >= 0:
            c = int_const(static)
            ops.append(c)
            value = c.results[0]
        else:
            value = shape_word(self.state, offsets[source.index.value.data], dim, ops)
        rewriter.replace(op, ops, [value])


class IndexCastLowering(TaskPattern):
    """`arith.index_cast` of a shape word already read as i32 -> the word itself (or a
    conversion to the target width)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter) -> None:
        source = op.input
        target = op.result.type
        if isinstance(source.type, IndexType):
            return  # its producer is not converted yet
        if isinstance(target, IndexType) and not op.result.uses:
            rewriter.erase(op)  # an index a field's own load took (FieldAccessLowering)
            return
        if isinstance(target, IndexType):
            raise fail(op, "index values have no SPIR-V lowering")
        if source.type == target:
            rewriter.replace(op, [], [source])
            return
        rewriter.replace(op, [spirv.SConvertOp(source, target)])


def _stored_value(
    state: TaskState, ptr: SSAValue, value: SSAValue, ops: list[Operation]
) -> SSAValue:
    place = state.places.get(ptr)
    if place is None or not place.is_bool:
        return value
    one, zero = int_const(1), int_const(0)
    word = spirv.SelectOp(value, one, zero)
    ops += [one, zero, word]
    return word.results[0]


class LoadLowering(TaskPattern):
    """`memref.load %p[]` of a converted place -> `spirv.Load` (bools read as i32 != 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.memref.type, spirv.PointerType):
            return  # a place not converted yet
        access: list[Operation] = []
        value = load_value(self.state, op.memref, access)
        ops: list[Operation] = []
        result = guarded(self.state, op.memref, access, value, ops)
        rewriter.replace(op, ops, [result])


class StoreLowering(TaskPattern):
    """`memref.store %v, %p[]` of a converted place -> `spirv.Store`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.memref.type, spirv.PointerType):
            return  # a place not converted yet
        access: list[Operation] = []
        value = _stored_value(self.state, op.memref, op.value, access)
        access.append(spirv.StoreOp(op.memref, value))
        ops: list[Operation] = []
        guarded(self.state, op.memref, access, None, ops)
        rewriter.replace(op, ops, [])


class SetReturnLowering(TaskPattern):
    """`offload.set_return i, %v` -> a store to the return buffer at byte 8*i."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.SetReturnOp, rewriter: PatternRewriter) -> None:
        ops: list[Operation] = []
        offset = spirv_abi.RETURN_SLOT_BYTES * op.index.value.data
        ptr = self.state.byte_slot(spirv_abi.RETURNS_BINDING, offset, op.value.type, ops)
        value = _stored_value(self.state, ptr, op.value, ops)
        ops.append(spirv.StoreOp(ptr, value))
        rewriter.replace(op, ops, [])
