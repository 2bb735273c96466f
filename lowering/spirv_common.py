"""
Shared pieces of convert-offload-to-spirv (lowering/convert_offload_to_spirv.py): the
state of one task being converted (`TaskState`: its spirv.module, entry-block prelude,
storage-buffer views and the places pointers point to), the base class of the patterns
that rewrite a task's ops, and the small builders they all use (integer constants,
byte sizes, `if` selections, counted loops, loads of bools, shape words of ndarray
arguments).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from taichi_xdsl.dialects import offload, spirv, taichi
from taichi_xdsl.utils import abi, spirv_abi
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.dialects.builtin import AnyFloat, IntegerType, MemRefType, i1, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter


def fail(op: Operation, message: str) -> PassFailedAt:
    """The pass's diagnostic at `op` (raise it)."""
    return PassFailedAt(op, f"convert-offload-to-spirv: {message}")


def byte_size(t: Attribute) -> int:
    """Bytes of an integer or float scalar (an i1 counts as one byte)."""
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    assert isinstance(t, AnyFloat)
    return t.bitwidth // 8


def int_of_width(t: Attribute) -> IntegerType:
    """The integer type as wide as `t` (the bit pattern a CAS loop swaps)."""
    return IntegerType(byte_size(t) * 8)


def int_const(value: int, t: Attribute = i32) -> spirv.ConstantOp:
    """`spirv.Constant value : t` for an integer type `t`."""
    assert isinstance(t, IntegerType)
    return spirv.ConstantOp.from_int(value, t)


@dataclass
class Place:
    """Where a storage-buffer pointer points: binding, element index (in units of the
    element type), element type; a bool place is an i32 word holding 0 or 1."""

    binding: int
    index: SSAValue
    element: Attribute
    is_bool: bool
    check: Check | None = None
    bindings: tuple[int, ...] = ()
    """binding SPANNING: the bindings of the root segments the field spans."""


SPANNING = -1
"""The binding of a Place in a field that spans several root segments (its pointer
selects one of their bindings per element: spirv_access._spanning_element_ptr)."""


@dataclass
class Check:
    """A debug-checked element access: in bounds when `ok`; otherwise the error record
    gets (dimension, index, extent) of the first bad index."""

    ok: SSAValue
    words: tuple[SSAValue, SSAValue, SSAValue]


@dataclass
class TaskState:
    """One task being converted: its module, entry block, buffer views, places."""

    module: spirv.ModuleOp
    entry: Block
    kernel: offload.KernelOp
    fields: dict[str, taichi.FieldOp]
    caps: dict[str, int]
    prints: list[tuple[str, tuple[str, ...]]]
    print_base: int
    debug: bool
    preserve_nan_inf: bool
    assert_base: int
    views: dict[tuple[int, Attribute], SSAValue] = field(default_factory=dict)
    places: dict[SSAValue, Place] = field(default_factory=dict)
    thread_locals: dict[int, SSAValue] = field(default_factory=dict)
    capabilities: set[str] = field(default_factory=set)
    extensions: set[str] = field(default_factory=set)
    prelude_end: Operation | None = None
    images: dict[int, SSAValue] = field(default_factory=dict)
    asserts: list[str] = field(default_factory=list)
    root_segment_bytes: int = 0
    """S of utils/spirv_abi.py's root segments (0: the root is one buffer)."""
    binding_names: dict[int, str] = field(default_factory=dict)
    """Names of bindings that buffer_name does not know (root segments)."""
    constants: dict[tuple[int, Attribute], SSAValue] = field(default_factory=dict)
    """The prelude's integer constants (`const`), by value and type."""

    # -- the entry block's prelude -----------------------------------------------------

    def at_entry(self, ops: Sequence[Operation]) -> None:
        """Insert `ops` at the end of the prelude (dominating the whole function)."""
        if self.prelude_end is None:
            first = self.entry.first_op
            point = InsertPoint.before(first) if first else InsertPoint.at_end(self.entry)
        else:
            point = InsertPoint.after(self.prelude_end)
        Rewriter.insert_op(ops, point)
        self.prelude_end = ops[-1]

    def const(self, value: int, t: Attribute = i32) -> SSAValue:
        """`spirv.Constant value : t` (an integer type), made once a task, in the
        prelude: the element accesses of an unrolled body otherwise each made their own
        (nbody's task: 580 of its 2,150 ops, each built, verified and serialized; the
        serializer keeps one OpConstant a value either way, so the SPIR-V words are
        the same)."""
        key = (value, t)
        known = self.constants.get(key)
        if known is None:
            op = int_const(value, t)
            self.at_entry([op])
            known = self.constants[key] = op.results[0]
        return known

    def view(self, binding: int, element: Attribute) -> SSAValue:
        """The address of the buffer `binding` seen as a runtime array of `element`."""
        key = (binding, element)
        if key not in self.views:
            buffer = self.binding_names.get(binding) or spirv_abi.buffer_name(binding)
            name = f"{buffer}_{element}"
            array = spirv.RuntimeArrayType(element, byte_size(element))
            block = spirv.StructType([array], offsets=[0], decorations=["Block"])
            var = spirv.GlobalVariableOp(
                name,
                spirv.PointerType(block, "StorageBuffer"),
                descriptor_set=0,
                binding=binding,
            )
            self.module.body.block.insert_op_before(var, self.module.body.block.first_op)  # type: ignore[arg-type]
            address = spirv.AddressOfOp(var)
            self.at_entry([address])
            self.views[key] = address.results[0]
        return self.views[key]

    def element_ptr(
        self, binding: int, element: Attribute, index: SSAValue, ops: list[Operation]
    ) -> SSAValue:
        """Append to `ops` an access chain to element `index` of a buffer view."""
        is_bool = element == i1
        stored = i32 if is_bool else element
        chain = spirv.AccessChainOp(self.view(binding, stored), [self.const(0), index])
        ops.append(chain)
        pointer = chain.results[0]
        self.places[pointer] = Place(binding, index, stored, is_bool)
        return pointer

    def spanning_element_ptr(
        self, bindings: Sequence[int], element: Attribute, index: SSAValue, ops: list[Operation]
    ) -> SSAValue:
        """
        Append to `ops` a pointer to element `index` (counted from the start of the
        first segment) of a field whose elements lie in the root segments `bindings` in
        turn: element k is in segment k // n at k % n (n: the elements one segment
        holds; an element never straddles two, as fields are 64-byte aligned and
        segments a multiple of 64 bytes). Each segment's access chain takes the
        element's place in its own segment or 0 (in bounds of every binding); selects
        of pointers (VariablePointersStorageBuffer) keep the one of its segment.

            %s = %k / n ; %i = %k % n
            %p0 = AccessChain %root_f32[0, select(%s == 0, %i, 0)]
            %p1 = AccessChain %root1_f32[0, select(%s == 1, %i, 0)]
            %p = select(%s == 1, %p1, %p0) ...
        """
        per = int_const(self.root_segment_bytes // byte_size(element))
        zero = int_const(0)
        segment = spirv.SDivOp(index, per)
        local = spirv.SModOp(index, per)
        ops += [per, zero, segment, local]
        ptr: SSAValue | None = None
        for k, binding in enumerate(bindings):
            number = int_const(k)
            hit = spirv.IEqualOp(segment, number)
            at = spirv.SelectOp(hit, local, zero)
            chain = spirv.AccessChainOp(self.view(binding, element), [zero, at])
            ops += [number, hit, at, chain]
            if ptr is None:
                ptr = chain.results[0]
                continue
            chosen = spirv.SelectOp(hit, chain, ptr)
            ops.append(chosen)
            ptr = chosen.results[0]
        assert ptr is not None
        self.capabilities.add("VariablePointersStorageBuffer")
        self.places[ptr] = Place(SPANNING, index, element, False, bindings=tuple(bindings))
        return ptr

    def byte_slot(
        self, binding: int, offset: int, element: Attribute, ops: list[Operation]
    ) -> SSAValue:
        stored = i32 if element == i1 else element
        if offset % byte_size(stored):
            raise ValueError(f"byte offset {offset} is not aligned for {stored}")
        index = self.const(offset // byte_size(stored))
        return self.element_ptr(binding, element, index, ops)


def kernel_inputs(kernel: offload.KernelOp) -> tuple[list[int], dict[int, int]]:
    """Byte offsets of the arguments, and ndarray argument index -> its position (a
    texture's slot has an ndarray's layout, but not an ndarray position)."""
    inputs = kernel.function_type.inputs.data
    ranks = [
        t.get_num_dims()
        if isinstance(t, MemRefType)
        else t.ndim
        if isinstance(t, taichi.TextureType)
        else None
        for t in inputs
    ]
    positions: dict[int, int] = {}
    for index, t in enumerate(inputs):
        if isinstance(t, MemRefType):
            positions[index] = len(positions)
    return abi.arg_offsets(ranks), positions


class TaskPattern(RewritePattern):
    def __init__(self, state: TaskState):
        self.state = state


def if_then(
    cond: SSAValue, then_ops: list[Operation], else_ops: list[Operation] | None = None
) -> spirv.SelectionOp:
    """`if cond { then_ops } else { else_ops }` as a spirv.mlir.selection."""
    merge = Block([spirv.MergeOp()])
    then = Block([*then_ops, spirv.BranchOp(merge)])
    otherwise = Block([*(else_ops or []), spirv.BranchOp(merge)])
    header = Block([spirv.BranchConditionalOp(cond, then, otherwise)])
    return spirv.SelectionOp(Region([header, then, otherwise, merge]))


def shape_word(
    state: TaskState, arg_offset: int, axis: int, ops: list[Operation]
) -> SSAValue:
    ptr = state.byte_slot(spirv_abi.ARGS_BINDING, arg_offset + 8 + 8 * axis, i32, ops)
    load = spirv.LoadOp(ptr)
    ops.append(load)
    return load.results[0]


def load_value(state: TaskState, ptr: SSAValue, ops: list[Operation]) -> SSAValue:
    load = spirv.LoadOp(ptr)
    ops.append(load)
    place = state.places.get(ptr)
    if place is None or not place.is_bool:
        return load.results[0]
    zero = int_const(0)
    bit = spirv.INotEqualOp(load, zero)
    ops += [zero, bit]
    return bit.results[0]


def stride_loop(
    index_type: Attribute,
    begin: SSAValue,
    end: SSAValue,
    stride: SSAValue,
    body: Block,
    entry_ops: list[Operation],
) -> tuple[spirv.LoopOp, SSAValue]:
    """for (i = begin; i < end; i += stride) body  (body receives the loaded i)."""
    iv = spirv.VariableOp(spirv.PointerType(index_type, "Function"))
    entry_ops += [iv, spirv.StoreOp(iv, begin)]
    i = spirv.LoadOp(iv)
    lt = spirv.SLessThanOp(i, end)
    header, cont, merge, entry = Block(), Block(), Block([spirv.MergeOp()]), Block()
    header.add_ops([i, lt, spirv.BranchConditionalOp(lt, body, merge)])
    body.add_op(spirv.BranchOp(cont))
    again = spirv.LoadOp(iv)
    step = spirv.IAddOp(again, stride)
    cont.add_ops([again, step, spirv.StoreOp(iv, step), spirv.BranchOp(header)])
    entry.add_op(spirv.BranchOp(header))
    return spirv.LoopOp(Region([entry, header, body, cont, merge])), i.results[0]
