"""
convert-offload-to-spirv: each task of an `offload.kernel @k` becomes its own
`spirv.module` with one GLCompute entry point `@k__task<N>`, and the accesses inside the
task (kernel arguments, fields, ndarrays, global temporaries, thread-local slots, return
values, atomics, print) become loads, stores and atomics on storage buffers, following
utils/spirv_abi.py (Taichi's SPIR-V codegen, seed 004: a serial task guarded by
invocation 0, a range_for as a grid-stride loop).

    offload.kernel @k : (f32) -> () {             spirv.module Logical GLSL450 requires ... {
      %lo = arith.constant 0 : i32                  spirv.GlobalVariable @gid built_in(...)
      %hi = arith.constant 1000000 : i32            spirv.GlobalVariable @nwg built_in(...)
      offload.range_for %i = %lo to %hi : i32 {  ~>  spirv.GlobalVariable @root_f32 bind(0, 0)
        ...                                           spirv.func @k__task0() "None" {
      }                                                 <begin = lo + gid.x, stride = nwg.x * 128>
    }                                                   spirv.mlir.loop { <i < hi: body; i += stride> }
                                                        spirv.Return
                                                      }
                                                      spirv.EntryPoint "GLCompute" @k__task0, @gid, @nwg
                                                      spirv.ExecutionMode @k__task0 "LocalSize", 128, 1, 1
                                                    }

Task bodies must already be structured spirv control flow and spirv arithmetic
(convert-taichi-to-spirv, convert-arith-to-spirv); this pass converts what is left:
`offload.arg`, `offload.global_tmp`, `offload.thread_local`, `taichi.get_field` +
`taichi.element_ptr`, `memref.dim` of ndarrays and the index casts around it,
`memref.load` / `memref.store` / `taichi.atomic_*` on those places, `offload.set_return`,
`taichi.print` and `taichi.assert` (erased unless `debug`).

With `debug=true` (`ti.init(arch=ti.vulkan, debug=True)`), every field/ndarray element
access runs only when each index is in [0, extent); otherwise the task writes the error
record (binding 5, utils/spirv_abi.py) with an atomic compare-exchange on its code word
(the first error wins), and a load gives 0. A false `taichi.assert` writes code 2 and
the id of its message in the kernel's `ti.asserts` table (a module attribute: SPIR-V
has no pointers to strings).

Code is generated for the caps named by the `caps` option (utils/spirv_abi.parse_caps),
never for the live device. With `preserve-nan-inf=true` (`ti.init(fast_math=False)`,
given only for a device whose float controls allow it), each module declares
`SignedZeroInfNanPreserve` for 32-bit floats and every other float width it uses, so a
driver may not assume that no value is NaN or Inf (`isnan(z / z)` with z = 0 is 1):

    spirv.module Logical GLSL450 requires      spirv.module Logical GLSL450 requires
      #spirv.vce<v1.3, [Shader], [...]> {   ~>   #spirv.vce<v1.3, [Shader, SignedZeroInfNanPreserve],
      ...                                          [..., SPV_KHR_float_controls]> {
    }                                            ...
                                                 spirv.ExecutionMode @k__task0 "SignedZeroInfNanPreserve", 32
                                               }

A float atomic add is `spirv.EXT.AtomicFAdd` when the caps
have it, a compare-and-swap loop on the bit pattern otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from taichi_xdsl.dialects import offload, spirv, taichi
from taichi_xdsl.dialects.spirv.image import BASE_FORMATS
from taichi_xdsl.utils import abi, spirv_abi
from taichi_xdsl.utils.diagnostics import PassFailedAt
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    VectorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import region_dce

_VEC3 = VectorType(i32, [3])
_INPUT_PTR = spirv.PointerType(_VEC3, "Input")


def _fail(op: Operation, message: str) -> PassFailedAt:
    return PassFailedAt(op, f"convert-offload-to-spirv: {message}")


def _bytes(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    assert isinstance(t, AnyFloat)
    return t.bitwidth // 8


def _int_of_width(t: Attribute) -> IntegerType:
    return IntegerType(_bytes(t) * 8)


def _const(value: int, t: Attribute = i32) -> spirv.ConstantOp:
    assert isinstance(t, IntegerType)
    return spirv.ConstantOp.from_int(value, t)


@dataclass
class _Place:
    """Where a storage-buffer pointer points: binding, element index (in units of the
    element type), element type; a bool place is an i32 word holding 0 or 1."""

    binding: int
    index: SSAValue
    element: Attribute
    is_bool: bool = False
    check: _Check | None = None


@dataclass
class _Check:
    """A debug-checked element access: in bounds when `ok`; otherwise the error record
    gets (dimension, index, extent) of the first bad index."""

    ok: SSAValue
    words: tuple[SSAValue, SSAValue, SSAValue]


@dataclass
class _TaskState:
    """One task being converted: its module, entry block, buffer views, places."""

    module: spirv.ModuleOp
    entry: Block
    kernel: offload.KernelOp
    fields: dict[str, taichi.FieldOp]
    caps: dict[str, int]
    prints: list[tuple[str, tuple[str, ...]]]
    print_base: int
    views: dict[tuple[int, Attribute], SSAValue] = field(default_factory=dict)
    places: dict[SSAValue, _Place] = field(default_factory=dict)
    thread_locals: dict[int, SSAValue] = field(default_factory=dict)
    capabilities: set[str] = field(default_factory=set)
    extensions: set[str] = field(default_factory=set)
    prelude_end: Operation | None = None
    images: dict[int, SSAValue] = field(default_factory=dict)
    debug: bool = False
    asserts: list[str] = field(default_factory=list)
    preserve_nan_inf: bool = False
    assert_base: int = 0

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

    def view(self, binding: int, element: Attribute) -> SSAValue:
        """The address of the buffer `binding` seen as a runtime array of `element`."""
        key = (binding, element)
        if key not in self.views:
            name = f"{spirv_abi.buffer_name(binding)}_{element}"
            array = spirv.RuntimeArrayType(element, _bytes(element))
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
        zero = _const(0)
        chain = spirv.AccessChainOp(self.view(binding, stored), [zero, index])
        ops += [zero, chain]
        pointer = chain.results[0]
        self.places[pointer] = _Place(binding, index, stored, is_bool)
        return pointer

    def byte_slot(
        self, binding: int, offset: int, element: Attribute, ops: list[Operation]
    ) -> SSAValue:
        stored = i32 if element == i1 else element
        if offset % _bytes(stored):
            raise ValueError(f"byte offset {offset} is not aligned for {stored}")
        index = _const(offset // _bytes(stored))
        ops.append(index)
        return self.element_ptr(binding, element, index.results[0], ops)


def _kernel_inputs(kernel: offload.KernelOp) -> tuple[list[int], dict[int, int]]:
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


def _texture_binding(kernel: offload.KernelOp, arg: int) -> int:
    """The binding of texture argument `arg` (utils/spirv_abi.py)."""
    inputs = kernel.function_type.inputs.data
    num_ndarrays = sum(isinstance(t, MemRefType) for t in inputs)
    position = sum(isinstance(t, taichi.TextureType) for t in inputs[:arg])
    return spirv_abi.texture_binding(num_ndarrays, position)


# -- patterns on the ops inside a task ---------------------------------------------------


class _TaskPattern(RewritePattern):
    def __init__(self, state: _TaskState):
        self.state = state


class ArgLowering(_TaskPattern):
    """
    A scalar argument -> a load from the argument buffer (ndarrays wait for their uses).

        %a = offload.arg 0 : f32  ~>  %p = spirv.AccessChain %args_f32[%c0, %c0]; spirv.Load
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, offload.ArgOp) or isinstance(
            op.result.type, MemRefType | taichi.TextureType
        ):
            return
        offsets, _ = _kernel_inputs(self.state.kernel)
        ops: list[Operation] = []
        t = op.result.type
        ptr = self.state.byte_slot(
            spirv_abi.ARGS_BINDING, offsets[op.index.value.data], t, ops
        )
        value = _load(self.state, ptr, ops)
        rewriter.replace(op, ops, [value])


class GlobalTmpLowering(_TaskPattern):
    """`offload.global_tmp 8 : memref<i32>` -> an access chain to gtmps_i32[2]."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, offload.GlobalTmpOp):
            return
        t = op.result.type
        assert isinstance(t, MemRefType)
        ops: list[Operation] = []
        ptr = self.state.byte_slot(
            spirv_abi.GTMP_BINDING, op.offset.value.data, t.element_type, ops
        )
        rewriter.replace(op, ops, [ptr])


class ThreadLocalLowering(_TaskPattern):
    """`offload.thread_local N` -> one Function variable per slot, shared by prologue,
    body and epilogue of the invocation."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, offload.ThreadLocalOp):
            return
        t = op.result.type
        assert isinstance(t, MemRefType)
        offset = op.offset.value.data
        if offset not in self.state.thread_locals:
            var = spirv.VariableOp(spirv.PointerType(t.element_type, "Function"))
            self.state.at_entry([var])
            self.state.thread_locals[offset] = var.results[0]
        rewriter.replace(op, [], [self.state.thread_locals[offset]])


class ElementPtrLowering(_TaskPattern):
    """
    `taichi.element_ptr` of a field or an ndarray -> an access chain at the row-major
    element index (shape words of an ndarray come from the argument buffer).

        %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
        ~> %k = (%i * 8 + %j) + offset(@x) / 4 ; %p = spirv.AccessChain %root_f32[%c0, %k]
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, taichi.ElementPtrOp):
            return
        base = op.base.owner
        base_type = op.base.type
        assert isinstance(base_type, MemRefType)
        element = base_type.element_type
        if element == i1:
            raise _fail(op, "fields and ndarrays of i1 have no SPIR-V layout")
        ops: list[Operation] = []
        if isinstance(base, taichi.GetFieldOp):
            declared = self.state.fields.get(base.field.root_reference.data)
            if declared is None:
                raise _fail(op, f"no taichi.field {base.field} in the module")
            offset = declared.offset.value.data
            if offset % _bytes(element):
                raise _fail(op, f"field offset {offset} is not aligned")
            dims: list[SSAValue | int] = list(base_type.get_shape())
            binding, start = spirv_abi.ROOT_BINDING, offset // _bytes(element)
        elif isinstance(base, offload.ArgOp):
            arg = base.index.value.data
            offsets, positions = _kernel_inputs(self.state.kernel)
            dims = [
                d if d >= 0 else _shape_word(self.state, offsets[arg], axis, ops)
                for axis, d in enumerate(base_type.get_shape())
            ]
            binding, start = spirv_abi.ndarray_binding(positions[arg]), 0
        else:
            raise _fail(op, "element of something other than a field or an ndarray")
        index = _linear_index(list(op.indices), dims, start, ops)
        ptr = self.state.element_ptr(binding, element, index, ops)
        if self.state.debug and op.indices:
            self.state.places[ptr].check = _bounds_check(list(op.indices), dims, ops)
        rewriter.replace(op, ops, [ptr])


def _bounds_check(
    indices: list[SSAValue], dims: list[SSAValue | int], ops: list[Operation]
) -> _Check:
    """
    Every index in [0, extent) (one unsigned compare each), and the error words of the
    first index that is not, chosen with selects from the last axis back (as
    ti-lower-access does on the CPU).
    """
    oks: list[SSAValue] = []
    extents: list[SSAValue] = []
    for index, dim in zip(indices, dims):
        if isinstance(dim, int):
            dim_op = _const(dim)
            ops.append(dim_op)
            dim = dim_op.results[0]
        in_range = spirv.ULessThanOp(index, dim)
        ops.append(in_range)
        oks.append(in_range.results[0])
        extents.append(dim)
    last = len(indices) - 1
    axis = _const(last)
    ops.append(axis)
    words = (axis.results[0], indices[last], extents[last])
    ok = oks[last]
    for d in reversed(range(last)):
        d_op = _const(d)
        selects = [
            spirv.SelectOp(oks[d], words[0], d_op),
            spirv.SelectOp(oks[d], words[1], indices[d]),
            spirv.SelectOp(oks[d], words[2], extents[d]),
        ]
        both = spirv.LogicalAndOp(oks[d], ok)
        ops += [d_op, *selects, both]
        words = (selects[0].results[0], selects[1].results[0], selects[2].results[0])
        ok = both.results[0]
    return _Check(ok, words)


def _error_record(
    state: _TaskState, code: int, words: Sequence[SSAValue], ops: list[Operation]
) -> None:
    """
    Append the write of the error record (utils/spirv_abi.py): the first invocation
    that swaps word 0 from 0 to `code` writes `words` after it; later errors are lost.
    """
    code_op, zero = _const(code), _const(0)
    ops += [code_op, zero]
    slot = state.byte_slot(spirv_abi.ERROR_BINDING, 0, i32, ops)
    swap = spirv.AtomicCompareExchangeOp(slot, code_op, zero)
    won = spirv.IEqualOp(swap, zero)
    ops += [swap, won]
    record: list[Operation] = []
    for position, word in enumerate(words, start=1):
        ptr = state.byte_slot(spirv_abi.ERROR_BINDING, 4 * position, i32, record)
        record.append(spirv.StoreOp(ptr, word))
    ops.append(_if(won.results[0], record))


def _if(
    cond: SSAValue, then_ops: list[Operation], else_ops: list[Operation] | None = None
) -> spirv.SelectionOp:
    """`if cond { then_ops } else { else_ops }` as a spirv.mlir.selection."""
    merge = Block([spirv.MergeOp()])
    then = Block([*then_ops, spirv.BranchOp(merge)])
    otherwise = Block([*(else_ops or []), spirv.BranchOp(merge)])
    header = Block([spirv.BranchConditionalOp(cond, then, otherwise)])
    return spirv.SelectionOp(Region([header, then, otherwise, merge]))


def _guarded(
    state: _TaskState,
    ptr: SSAValue,
    access: list[Operation],
    result: SSAValue | None,
    ops: list[Operation],
) -> SSAValue | None:
    """
    `access` (the ops of one load, store or atomic of `ptr`), run only when the
    place's debug check holds; otherwise the error record, and a result of 0.

        %v = <load>   ~>   %slot = spirv.Variable ...
                           spirv.mlir.selection { ok: <load>; store %v, %slot
                                                  else: <error record>; store 0, %slot }
                           %v = spirv.Load %slot
    """
    place = state.places.get(ptr)
    if place is None or place.check is None:
        ops += access
        return result
    check = place.check
    error: list[Operation] = []
    _error_record(state, spirv_abi.ERROR_INDEX_OUT_OF_BOUNDS, check.words, error)
    if result is None:
        ops.append(_if(check.ok, access, error))
        return None
    slot = spirv.VariableOp(spirv.PointerType(result.type, "Function"))
    state.at_entry([slot])
    zero = _zero_of(result.type)
    access = [*access, spirv.StoreOp(slot, result)]
    error += [zero, spirv.StoreOp(slot, zero)]
    loaded = spirv.LoadOp(slot)
    ops += [_if(check.ok, access, error), loaded]
    return loaded.results[0]


def _zero_of(t: Attribute) -> spirv.ConstantOp:
    if isinstance(t, IntegerType):
        return (
            spirv.ConstantOp.from_int(0, t)
            if t != i1
            else spirv.ConstantOp(IntegerAttr(0, i1))
        )
    return spirv.ConstantOp(FloatAttr(0.0, t))  # type: ignore[arg-type]


def _shape_word(
    state: _TaskState, arg_offset: int, axis: int, ops: list[Operation]
) -> SSAValue:
    ptr = state.byte_slot(spirv_abi.ARGS_BINDING, arg_offset + 8 + 8 * axis, i32, ops)
    load = spirv.LoadOp(ptr)
    ops.append(load)
    return load.results[0]


def _linear_index(
    indices: list[SSAValue], dims: list[SSAValue | int], start: int, ops: list[Operation]
) -> SSAValue:
    """start + row-major linear index of `indices` in a shape of `dims`."""
    value: SSAValue | None = None
    for index, dim in zip(indices, dims):
        if value is not None:
            if isinstance(dim, int):
                dim_op = _const(dim)
                ops.append(dim_op)
                dim = dim_op.results[0]
            scaled = spirv.IMulOp(value, dim)
            summed = spirv.IAddOp(scaled, index)
            ops += [scaled, summed]
            value = summed.results[0]
        else:
            value = index
    base = _const(start)
    ops.append(base)
    if value is None:
        return base.results[0]
    if start == 0:
        return value
    total = spirv.IAddOp(value, base)
    ops.append(total)
    return total.results[0]


class DimLowering(_TaskPattern):
    """`memref.dim` of an ndarray argument -> the shape word in the argument buffer
    (i32); the `arith.index_cast` to i32 that follows it folds away."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, memref.DimOp):
            return
        source = op.source.owner
        axis = op.index.owner
        if not isinstance(source, offload.ArgOp):
            raise _fail(op, "memref.dim of something other than an ndarray argument")
        if not isinstance(axis, arith.ConstantOp) or not isinstance(
            axis.value, IntegerAttr
        ):
            raise _fail(op, "memref.dim needs a constant axis")
        offsets, _ = _kernel_inputs(self.state.kernel)
        ops: list[Operation] = []
        dim = axis.value.value.data
        source_type = source.result.type
        assert isinstance(source_type, MemRefType)
        static = source_type.get_shape()[dim]
        if static >= 0:
            c = _const(static)
            ops.append(c)
            value = c.results[0]
        else:
            value = _shape_word(self.state, offsets[source.index.value.data], dim, ops)
        rewriter.replace(op, ops, [value])


class IndexCastLowering(_TaskPattern):
    """`arith.index_cast` of a shape word already read as i32 -> the word itself (or a
    conversion to the target width)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, arith.IndexCastOp):
            return
        source = op.input
        target = op.result.type
        if isinstance(source.type, IndexType):
            return  # its producer is not converted yet
        if isinstance(target, IndexType):
            raise _fail(op, "index values have no SPIR-V lowering")
        if source.type == target:
            rewriter.replace(op, [], [source])
            return
        rewriter.replace(op, [spirv.SConvertOp(source, target)])


def _load(state: _TaskState, ptr: SSAValue, ops: list[Operation]) -> SSAValue:
    load = spirv.LoadOp(ptr)
    ops.append(load)
    place = state.places.get(ptr)
    if place is None or not place.is_bool:
        return load.results[0]
    zero = _const(0)
    bit = spirv.INotEqualOp(load, zero)
    ops += [zero, bit]
    return bit.results[0]


def _stored_value(
    state: _TaskState, ptr: SSAValue, value: SSAValue, ops: list[Operation]
) -> SSAValue:
    place = state.places.get(ptr)
    if place is None or not place.is_bool:
        return value
    one, zero = _const(1), _const(0)
    word = spirv.SelectOp(value, one, zero)
    ops += [one, zero, word]
    return word.results[0]


class LoadLowering(_TaskPattern):
    """`memref.load %p[]` of a converted place -> `spirv.Load` (bools read as i32 != 0)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, memref.LoadOp) or not isinstance(
            op.memref.type, spirv.PointerType
        ):
            return
        access: list[Operation] = []
        value = _load(self.state, op.memref, access)
        ops: list[Operation] = []
        result = _guarded(self.state, op.memref, access, value, ops)
        rewriter.replace(op, ops, [result])


class StoreLowering(_TaskPattern):
    """`memref.store %v, %p[]` of a converted place -> `spirv.Store`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, memref.StoreOp) or not isinstance(
            op.memref.type, spirv.PointerType
        ):
            return
        access: list[Operation] = []
        value = _stored_value(self.state, op.memref, op.value, access)
        access.append(spirv.StoreOp(op.memref, value))
        ops: list[Operation] = []
        _guarded(self.state, op.memref, access, None, ops)
        rewriter.replace(op, ops, [])


class SetReturnLowering(_TaskPattern):
    """`offload.set_return i, %v` -> a store to the return buffer at byte 8*i."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, offload.SetReturnOp):
            return
        ops: list[Operation] = []
        offset = spirv_abi.RETURN_SLOT_BYTES * op.index.value.data
        ptr = self.state.byte_slot(spirv_abi.RETURNS_BINDING, offset, op.value.type, ops)
        value = _stored_value(self.state, ptr, op.value, ops)
        ops.append(spirv.StoreOp(ptr, value))
        rewriter.replace(op, ops, [])


class AssertLowering(_TaskPattern):
    """
    `taichi.assert`: nothing without debug; in debug mode, when the condition is false,
    the error record (2, the message's id in the kernel's `ti.asserts` table, 0, 0):
    SPIR-V has no pointers to strings, so the host looks the message up.

        taichi.assert %ok, "x must be positive"
        ~> %bad = spirv.LogicalNot %ok : i1
           spirv.mlir.selection { %bad: <error record 2, id, 0, 0> }
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, taichi.AssertOp):
            return
        state = self.state
        if not state.debug:
            rewriter.erase(op)
            return
        ident = _const(state.assert_base + len(state.asserts))
        state.asserts.append(op.message.data)
        zero = _const(0)
        bad = spirv.LogicalNotOp(op.cond)
        record: list[Operation] = []
        _error_record(
            state,
            spirv_abi.ERROR_ASSERTION,
            [ident.results[0], zero.results[0], zero.results[0]],
            record,
        )
        rewriter.replace(op, [ident, zero, bad, _if(bad.results[0], record)], [])


# -- textures ------------------------------------------------------------------------------

_DIMS = {1: "Dim1D", 2: "Dim2D", 3: "Dim3D"}


def _image(state: _TaskState, texture: SSAValue, op: Operation) -> SSAValue:
    """
    The loaded image of a texture argument: a sampled image (combined image sampler)
    for a sampled texture, a storage image of the texture's format for an rw one; the
    global variable and its load are made once per task, in the entry block.
    """
    arg = texture.owner
    t = texture.type
    if not isinstance(arg, offload.ArgOp) or not isinstance(t, taichi.TextureType):
        raise _fail(op, "a texture access on something other than a texture argument")
    binding = _texture_binding(state.kernel, arg.index.value.data)
    if binding in state.images:
        return state.images[binding]
    dim = _DIMS[t.ndim]
    if t.is_rw:
        spec = spirv_abi.TEXTURE_FORMATS.get(t.format.data)
        if spec is None:
            raise _fail(op, f"rw textures of format '{t.format.data}' are not supported")
        image_format = spec[0]
        image_type: Attribute = spirv.ImageType(
            f32, dim, sampler_use="NoSampler", format=image_format
        )
        if image_format not in BASE_FORMATS:
            state.capabilities.add("StorageImageExtendedFormats")
        if t.ndim == 1:
            state.capabilities.add("Image1D")
    else:
        image_type = spirv.SampledImageType(spirv.ImageType(f32, dim))
        if t.ndim == 1:
            state.capabilities.add("Sampled1D")
    var = spirv.GlobalVariableOp(
        f"tex{binding}",
        spirv.PointerType(image_type, "UniformConstant"),
        descriptor_set=0,
        binding=binding,
    )
    module_block = state.module.body.block
    module_block.insert_op_before(var, module_block.first_op)  # type: ignore[arg-type]
    address = spirv.AddressOfOp(var)
    load = spirv.LoadOp(address)
    state.at_entry([address, load])
    state.images[binding] = load.results[0]
    return load.results[0]


def _coordinate(coords: Sequence[SSAValue], ops: list[Operation]) -> SSAValue:
    """One coordinate, or a vector of 2 or 3."""
    if len(coords) == 1:
        return coords[0]
    vector = spirv.CompositeConstructOp(coords, VectorType(coords[0].type, [len(coords)]))
    ops.append(vector)
    return vector.results[0]


def _channels(texel: SSAValue, ops: list[Operation]) -> list[SSAValue]:
    extracts = [spirv.CompositeExtractOp(texel, [c]) for c in range(4)]
    ops += extracts
    return [e.results[0] for e in extracts]


class TextureLowering(_TaskPattern):
    """
    Texture accesses -> image ops on the texture's binding (utils/spirv_abi.py).

        %r, %g, %b, %a = taichi.texture_load %t[%i, %j] : !taichi.texture<2, rw, rgba8>
        ~> %ij = spirv.CompositeConstruct %i, %j : (i32, i32) -> vector<2xi32>
           %v = spirv.ImageRead %img, %ij : !spirv.image<..., NoSampler, Rgba8>, ...
           %r = spirv.CompositeExtract %v[0 : i32] : vector<4xf32>   (x4)

    `texture_fetch` is OpImageFetch on the image of the sampled image,
    `texture_sample_lod` OpImageSampleExplicitLod, `texture_store` OpImageWrite of the
    four channels, `texture_dim` the texture's extent word in the argument buffer.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        state = self.state
        ops: list[Operation] = []
        match op:
            case taichi.TextureDimOp():
                arg = op.texture.owner
                if not isinstance(arg, offload.ArgOp):
                    raise _fail(op, "the extent of something other than a texture argument")
                offsets, _ = _kernel_inputs(state.kernel)
                word = _shape_word(
                    state, offsets[arg.index.value.data], op.axis.value.data, ops
                )
                rewriter.replace(op, ops, [word])
            case taichi.TextureFetchOp():
                sampled = _image(state, op.texture, op)
                image = spirv.ImageOp(sampled)
                ops.append(image)
                coordinate = _coordinate(op.coords, ops)
                texel = spirv.ImageFetchOp(image, coordinate, op.lod)
                ops.append(texel)
                rewriter.replace(op, ops, _channels(texel.result, ops))
            case taichi.TextureSampleLodOp():
                sampled = _image(state, op.texture, op)
                coordinate = _coordinate(op.coords, ops)
                texel = spirv.ImageSampleExplicitLodOp(sampled, coordinate, op.lod)
                ops.append(texel)
                rewriter.replace(op, ops, _channels(texel.result, ops))
            case taichi.TextureLoadOp():
                image = _image(state, op.texture, op)
                coordinate = _coordinate(op.coords, ops)
                texel = spirv.ImageReadOp(image, coordinate)
                ops.append(texel)
                rewriter.replace(op, ops, _channels(texel.result, ops))
            case taichi.TextureStoreOp():
                image = _image(state, op.texture, op)
                coordinate = _coordinate(op.coords, ops)
                texel = spirv.CompositeConstructOp(op.channels, VectorType(f32, [4]))
                ops += [texel, spirv.ImageWriteOp(image, coordinate, texel)]
                rewriter.replace(op, ops, [])
            case _:
                return


# -- atomics -------------------------------------------------------------------------------

_INT_ATOMICS: dict[type[taichi.AtomicOp], type[spirv.AtomicUpdateOp]] = {
    taichi.AtomicAddOp: spirv.AtomicIAddOp,
    taichi.AtomicSubOp: spirv.AtomicISubOp,
    taichi.AtomicMinOp: spirv.AtomicSMinOp,
    taichi.AtomicMaxOp: spirv.AtomicSMaxOp,
    taichi.AtomicAndOp: spirv.AtomicAndOp,
    taichi.AtomicOrOp: spirv.AtomicOrOp,
    taichi.AtomicXorOp: spirv.AtomicXorOp,
}
_UNSIGNED_ATOMICS = {
    taichi.AtomicMinOp: spirv.AtomicUMinOp,
    taichi.AtomicMaxOp: spirv.AtomicUMaxOp,
}
_FLOAT_COMBINE: dict[type[taichi.AtomicOp], type[Operation]] = {
    taichi.AtomicAddOp: spirv.FAddOp,
    taichi.AtomicSubOp: spirv.FSubOp,
    taichi.AtomicMinOp: spirv.FMinOp,
    taichi.AtomicMaxOp: spirv.FMaxOp,
}
_INT_COMBINE: dict[type[taichi.AtomicOp], type[Operation]] = {
    taichi.AtomicAddOp: spirv.IAddOp,
    taichi.AtomicSubOp: spirv.ISubOp,
    taichi.AtomicMinOp: spirv.SMinOp,
    taichi.AtomicMaxOp: spirv.SMaxOp,
    taichi.AtomicAndOp: spirv.BitwiseAndOp,
    taichi.AtomicOrOp: spirv.BitwiseOrOp,
    taichi.AtomicXorOp: spirv.BitwiseXorOp,
}
_NATIVE_FADD = {
    Float32Type: (
        "spirv_has_atomic_float_add",
        "AtomicFloat32AddEXT",
        "SPV_EXT_shader_atomic_float_add",
    ),
    Float64Type: (
        "spirv_has_atomic_float64_add",
        "AtomicFloat64AddEXT",
        "SPV_EXT_shader_atomic_float_add",
    ),
    Float16Type: (
        "spirv_has_atomic_float16_add",
        "AtomicFloat16AddEXT",
        "SPV_EXT_shader_atomic_float16_add",
    ),
}


def _combine(
    kind: type[taichi.AtomicOp], old: SSAValue, value: SSAValue, unsigned: bool
) -> Operation:
    if isinstance(value.type, AnyFloat):
        return _FLOAT_COMBINE[kind](old, value)  # type: ignore[call-arg]
    if unsigned and kind in _UNSIGNED_ATOMICS:
        return (spirv.UMinOp if kind is taichi.AtomicMinOp else spirv.UMaxOp)(old, value)
    return _INT_COMBINE[kind](old, value)  # type: ignore[call-arg]


class AtomicLowering(_TaskPattern):
    """
    `taichi.atomic_*` on a storage-buffer place -> a SPIR-V atomic; a float add is
    `spirv.EXT.AtomicFAdd` when the caps have it, else (and for float sub/min/max) a
    compare-and-swap loop on the bit pattern; on a Function variable (a thread-local
    slot) a plain load, combine, store. The result is the value before the update.

        %old = taichi.atomic_add %p, %v : memref<i32>
        ~> %old = spirv.AtomicIAdd <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, taichi.AtomicOp):
            return
        if not isinstance(op.dest.type, spirv.PointerType):
            return
        access, result = self._atomic(op)
        ops: list[Operation] = []
        value = _guarded(self.state, op.dest, access, result, ops)
        rewriter.replace(op, ops, [value])

    def _atomic(self, op: taichi.AtomicOp) -> tuple[list[Operation], SSAValue]:
        """The ops of the atomic and its result (the value before the update)."""
        ptr = op.dest
        kind = type(op)
        unsigned = getattr(op, "unsigned", None) is not None
        value = op.value
        ops: list[Operation] = []
        if ptr.type.storage_class.data == "Function":
            old = spirv.LoadOp(ptr)
            new = _combine(kind, old.results[0], value, unsigned)
            ops += [old, new, spirv.StoreOp(ptr, new.results[0])]
            return ops, old.results[0]
        place = self.state.places.get(ptr)
        if place is None or place.is_bool:
            raise _fail(op, "atomic on a place that has no SPIR-V lowering")
        t = value.type
        if isinstance(t, IntegerType):
            if t.width.data == 64:
                self._require(op, "spirv_has_atomic_int64", "Int64Atomics")
            elif t.width.data != 32:
                raise _fail(op, f"atomics on {t} have no SPIR-V lowering")
            atomic_kind = (
                _UNSIGNED_ATOMICS[kind]
                if unsigned and kind in _UNSIGNED_ATOMICS
                else _INT_ATOMICS[kind]
            )
            atomic = atomic_kind(ptr, value)
            return [atomic], atomic.results[0]
        native = _NATIVE_FADD.get(type(t))
        if (
            kind in (taichi.AtomicAddOp, taichi.AtomicSubOp)
            and native
            and self.state.caps.get(native[0])
        ):
            self.state.capabilities.add(native[1])
            self.state.extensions.add(native[2])
            if kind is taichi.AtomicSubOp:
                negated = spirv.FNegateOp(value)
                ops.append(negated)
                value = negated.results[0]
            ops.append(atomic := spirv.EXTAtomicFAddOp(ptr, value))
            return ops, atomic.results[0]
        old = self._cas_loop(op, place, kind, value, ops)
        return ops, old

    def _require(self, op: Operation, cap: str, capability: str) -> None:
        if not self.state.caps.get(cap):
            raise _fail(op, f"'{op.name}' on 64-bit integers needs the {cap} cap")
        self.state.capabilities.add(capability)

    def _cas_loop(
        self,
        op: taichi.AtomicOp,
        place: _Place,
        kind: type[taichi.AtomicOp],
        value: SSAValue,
        ops: list[Operation],
    ) -> SSAValue:
        """
        %bits = access chain to the same element in the integer view
        %seen0 = spirv.Load %bits
        spirv.mlir.loop {
          spirv.Branch ^cas(%seen0)
        ^cas(%expected):
          %old = Bitcast %expected; %new = combine(%old, %v); store %old into %result
          %seen = spirv.AtomicCompareExchange %bits, Bitcast(%new), %expected
          spirv.BranchConditional (%seen == %expected), ^merge, ^continue
        ^continue: spirv.Branch ^cas(%seen)
        ^merge: spirv.mlir.merge
        }
        %old = spirv.Load %result
        """
        t = value.type
        bits_type = _int_of_width(t)
        if bits_type.width.data == 64:
            self._require(op, "spirv_has_atomic_int64", "Int64Atomics")
        elif bits_type.width.data != 32:
            raise _fail(op, f"'{op.name}' on {t} has no SPIR-V lowering")
        zero = _const(0)
        bits = spirv.AccessChainOp(
            self.state.view(place.binding, bits_type), [zero, place.index]
        )
        seen0 = spirv.LoadOp(bits)
        result = spirv.VariableOp(spirv.PointerType(t, "Function"))
        self.state.at_entry([result])
        header = Block(arg_types=[bits_type])
        expected = header.args[0]
        old = spirv.BitcastOp(expected, t)
        new = _combine(kind, old.results[0], value, False)
        desired = spirv.BitcastOp(new.results[0], bits_type)
        seen = spirv.AtomicCompareExchangeOp(bits, desired, expected)
        done = spirv.IEqualOp(seen, expected)
        entry, cont, merge = Block(), Block(), Block([spirv.MergeOp()])
        entry.add_op(spirv.BranchOp(header, seen0))
        cont.add_op(spirv.BranchOp(header, seen))
        header.add_ops(
            [old, spirv.StoreOp(result, old), new, desired, seen, done,
             spirv.BranchConditionalOp(done, merge, cont)]
        )  # fmt: skip
        loop = spirv.LoopOp(Region([entry, header, cont, merge]))
        loaded = spirv.LoadOp(result)
        ops += [zero, bits, seen0, loop, loaded]
        return loaded.results[0]


# -- print ----------------------------------------------------------------------------------


class PrintLowering(_TaskPattern):
    """
    `taichi.print` -> a record appended to the print buffer: reserve words with an
    atomic add on word 0, then, if the record fits, write its id and values.

        taichi.print "i = {}" %i : i32
        ~> %at = spirv.AtomicIAdd <Device> <None> %count, %c2 ...
           spirv.mlir.selection { <store id, %i at words 1 + %at ...> }
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, taichi.PrintOp):
            return
        state = self.state
        words: list[tuple[SSAValue, str]] = []
        pre: list[Operation] = []
        for value in op.values:
            words += _print_words(value, pre)
        kinds = tuple(k for _, k in words if k != "hi")
        print_id = state.print_base + len(state.prints)
        state.prints.append((op.format.data, kinds))
        n = 1 + len(words)
        ops: list[Operation] = [*pre]
        counter = state.byte_slot(spirv_abi.PRINT_BINDING, 0, i32, ops)
        size = _const(n)
        at = spirv.AtomicIAddOp(counter, size)
        limit = _const(spirv_abi.PRINT_BUFFER_WORDS - 1 - n)
        fits = spirv.SLessThanOp(at, limit)
        ops += [size, at, limit, fits]
        then = Block()
        record: list[Operation] = []
        one = _const(1)
        start = spirv.IAddOp(at, one)
        record += [one, start]
        ident = _const(print_id)
        record.append(ident)
        for position, value in enumerate([ident.results[0], *(w for w, _ in words)]):
            offset = _const(position)
            slot = spirv.IAddOp(start, offset)
            record += [offset, slot]
            t = value.type
            ptr = state.element_ptr(spirv_abi.PRINT_BINDING, t, slot.results[0], record)
            record.append(spirv.StoreOp(ptr, value))
        dropped: list[Operation] = []
        last = state.byte_slot(
            spirv_abi.PRINT_BINDING, 4 * (spirv_abi.PRINT_BUFFER_WORDS - 1), i32, dropped
        )
        dropped.append(spirv.AtomicIAddOp(last, one))
        merge = Block([spirv.MergeOp()])
        then.add_ops([*record, spirv.BranchOp(merge)])
        otherwise = Block([*dropped, spirv.BranchOp(merge)])
        header = Block([spirv.BranchConditionalOp(fits, then, otherwise)])
        ops.append(spirv.SelectionOp(Region([header, then, otherwise, merge])))
        rewriter.replace(op, ops, [])


def _print_words(value: SSAValue, ops: list[Operation]) -> list[tuple[SSAValue, str]]:
    """32-bit words holding `value`, with the type the host decodes them as."""
    t = value.type
    if t == i1:
        one, zero = _const(1), _const(0)
        word = spirv.SelectOp(value, one, zero)
        ops += [one, zero, word]
        return [(word.results[0], "i1")]
    if isinstance(t, IntegerType) and t.width.data < 32:
        wide = spirv.SConvertOp(value, i32)
        ops.append(wide)
        return [(wide.results[0], f"i{t.width.data}")]
    if isinstance(t, Float16Type):
        wide = spirv.FConvertOp(value, f32)
        ops.append(wide)
        return [(wide.results[0], "f32")]
    if _bytes(t) == 8:
        pair = spirv.BitcastOp(value, VectorType(i32, [2]))
        low = spirv.CompositeExtractOp(pair, [0])
        high = spirv.CompositeExtractOp(pair, [1])
        ops += [pair, low, high]
        return [(low.results[0], str(t)), (high.results[0], "hi")]
    return [(value, str(t))]


# -- tasks -> modules -------------------------------------------------------------------------


def _bound_value(state: _TaskState, bound: SSAValue, ops: list[Operation]) -> SSAValue:
    owner = bound.owner
    if isinstance(owner, arith.ConstantOp):
        assert isinstance(owner.value, IntegerAttr)
        c = spirv.ConstantOp(owner.value)
        ops.append(c)
        return c.results[0]
    assert isinstance(owner, memref.LoadOp) and isinstance(
        owner.memref.owner, offload.GlobalTmpOp
    )
    tmp = owner.memref.owner
    ptr = state.byte_slot(spirv_abi.GTMP_BINDING, tmp.offset.value.data, bound.type, ops)
    return _load(state, ptr, ops)


def _builtin_x(module: spirv.ModuleOp, name: str, ops: list[Operation]) -> SSAValue:
    address = spirv.AddressOfOp(name, _INPUT_PTR)
    vector = spirv.LoadOp(address)
    x = spirv.CompositeExtractOp(vector, [0])
    ops += [address, vector, x]
    return x.results[0]


def _inline(region: Region, block: Block) -> None:
    """Move the ops of a task region's single block (if any) to the end of `block`."""
    if not region.blocks:
        return
    for op in list(region.block.ops):
        op.detach()
        block.add_op(op)


def _grid_stride(
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


def _task_module(
    kernel: offload.KernelOp,
    index: int,
    task: offload.TaskOp,
    fields: dict[str, taichi.FieldOp],
    caps: dict[str, int],
    prints: list[tuple[str, tuple[str, ...]]],
    debug: bool = False,
    asserts: list[str] | None = None,
    preserve_nan_inf: bool = False,
) -> spirv.ModuleOp:
    symbol = spirv_abi.task_symbol(kernel.sym_name.data, index)
    gid = spirv.GlobalVariableOp("gid", _INPUT_PTR, built_in="GlobalInvocationId")
    nwg = spirv.GlobalVariableOp("nwg", _INPUT_PTR, built_in="NumWorkgroups")
    func = spirv.FuncOp(symbol, ([], []))
    entry = func.entry_block
    module = spirv.ModuleOp([gid, nwg, func])
    state = _TaskState(module, entry, kernel, fields, caps, [], len(prints))
    state.debug = debug
    state.preserve_nan_inf = preserve_nan_inf
    asserts = asserts if asserts is not None else []
    state.assert_base = len(asserts)
    ops: list[Operation] = []
    gx = _builtin_x(module, "gid", ops)
    if isinstance(task, offload.SerialTask):
        local_size = 1
        zero = _const(0)
        not_first = spirv.INotEqualOp(gx, zero)
        skip, merge = Block([spirv.ReturnOp()]), Block([spirv.MergeOp()])
        header = Block([spirv.BranchConditionalOp(not_first, skip, merge)])
        ops += [zero, not_first, spirv.SelectionOp(Region([header, skip, merge]))]
        entry.add_ops(ops)
        _inline(task.body, entry)
    else:
        assert isinstance(task, offload.RangeForTask | offload.StructForTask)
        block_dim = getattr(task, "block_dim", None)
        local_size = (
            block_dim.value.data if block_dim is not None else 0
        ) or spirv_abi.DEFAULT_BLOCK_DIM
        nx = _builtin_x(module, "nwg", ops)
        local = _const(local_size)
        stride = spirv.IMulOp(nx, local)
        ops += [local, stride]
        body = Block()
        if isinstance(task, offload.RangeForTask):
            index_type = task.lower.type
            if index_type != i32:
                raise _fail(task, f"a range_for over {index_type} has no SPIR-V lowering")
            lo = _bound_value(state, task.lower, ops)
            hi = _bound_value(state, task.upper, ops)
        else:
            shape = task.field_type.get_shape()
            lo_op, hi_op = _const(0), _const(_product(shape))
            ops += [lo_op, hi_op]
            lo, hi = lo_op.results[0], hi_op.results[0]
        begin = spirv.IAddOp(lo, gx)
        ops.append(begin)
        entry.add_ops(ops)
        if isinstance(task, offload.RangeForTask):
            _inline(task.prologue, entry)
        _inline(task.body, body)
        tail: list[Operation] = []
        loop, i = _grid_stride(i32, begin.results[0], hi, stride.results[0], body, tail)
        entry.add_ops(tail)
        if isinstance(task, offload.RangeForTask):
            task.index.replace_all_uses_with(i)
        else:
            _struct_indices(task, i, body)
        entry.add_op(loop)
        if isinstance(task, offload.RangeForTask):
            _inline(task.epilogue, entry)
    entry.add_op(spirv.ReturnOp())
    module.body.block.add_ops(
        [
            spirv.EntryPointOp("GLCompute", symbol, ["gid", "nwg"]),
            spirv.ExecutionModeOp(symbol, "LocalSize", [local_size, 1, 1]),
        ]
    )
    _convert_accesses(state, func)
    prints.extend(state.prints)
    asserts.extend(state.asserts)
    if state.asserts:
        module.attributes["ti.asserts"] = ArrayAttr(
            ArrayAttr([StringAttr(str(state.assert_base + n)), StringAttr(text)])
            for n, text in enumerate(state.asserts)
        )
    _finish(state, task)
    return module


def _product(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _struct_indices(task: offload.StructForTask, i: SSAValue, body: Block) -> None:
    """The body's per-axis indices from the flattened index (row-major)."""
    shape = task.field_type.get_shape()
    ops: list[Operation] = []
    rest = i
    values: list[SSAValue] = []
    for axis in range(len(shape) - 1, -1, -1):
        extent = _const(shape[axis])
        q = spirv.SDivOp(rest, extent)
        r = spirv.SRemOp(rest, extent)
        ops += [extent, q, r]
        values.append(r.results[0] if axis else rest)
        rest = q.results[0]
    values.reverse()
    first = body.first_op
    if first is not None:
        Rewriter.insert_op(ops, InsertPoint.before(first))
    else:
        body.add_ops(ops)
    for arg, value in zip(task.body.block.args, values):
        arg.replace_all_uses_with(value)


def _convert_accesses(state: _TaskState, func: spirv.FuncOp) -> None:
    patterns: list[RewritePattern] = [
        ArgLowering(state),
        GlobalTmpLowering(state),
        ThreadLocalLowering(state),
        ElementPtrLowering(state),
        DimLowering(state),
        IndexCastLowering(state),
        LoadLowering(state),
        StoreLowering(state),
        AtomicLowering(state),
        SetReturnLowering(state),
        PrintLowering(state),
        AssertLowering(state),
        TextureLowering(state),
    ]
    # No dead-code elimination while rewriting: a buffer view's address is cached.
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns, dce_enabled=False), apply_recursively=True
    ).rewrite_region(func.body)
    # What no use needs any more: get_field / ndarray args / index constants / chains.
    region_dce(func.body)


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
    if isinstance(t, IntegerType):
        return t.width.data
    return t.bitwidth if isinstance(t, AnyFloat) else 0


def _finish(state: _TaskState, task: Operation) -> None:
    """Check what is left, collect the capabilities the code needs, set the VCE triple."""
    module = state.module
    for op in module.walk():
        if op is not module and not op.name.startswith("spirv."):
            raise _fail(
                op,
                f"'{op.name}' has no SPIR-V lowering here (the pipeline runs "
                "convert-taichi-to-spirv and convert-arith-to-spirv first)",
            )
    seen: set[Attribute] = set()
    for op in module.walk():
        for value in (
            *op.results,
            *(a for r in op.regions for b in r.blocks for a in b.args),
        ):
            seen.update(_types_in(value.type))
        if isinstance(op, spirv.GlobalVariableOp):
            seen.update(_types_in(op.type))
    storage_widths: set[int] = set()
    for t in seen:
        if isinstance(t, spirv.PointerType) and t.storage_class.data == "StorageBuffer":
            scalar = t.pointee_type
            if isinstance(scalar, IntegerType | AnyFloat) and _bytes(scalar) < 4:
                storage_widths.add(_bytes(scalar) * 8)
    for kind, width, cap, capability in _TYPE_CAPS:  # in a fixed order: stable messages
        if any(isinstance(t, kind) and _width(t) == width for t in seen):
            if not state.caps.get(cap):
                letter = "i" if kind is IntegerType else "f"
                raise _fail(
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


def _preserve_nan_inf(state: _TaskState, seen: set[Attribute]) -> None:
    """Declare `SignedZeroInfNanPreserve` on the task's entry point for 32-bit floats
    and for each other float width the module uses (the capability, and the extension
    while the module's SPIR-V version is below 1.4)."""
    widths = {32} | {
        _width(t) for t in seen if isinstance(t, Float16Type | Float64Type)
    }
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


@dataclass(frozen=True)
class ConvertOffloadToSpirvPass(ModulePass):
    """
    Tasks of offload kernels -> one spirv.module each, for the caps named by `caps`
    (see utils/spirv_abi.parse_caps; empty: DEFAULT_CAPS). With `debug`, element
    accesses are bounds-checked and asserts checked, writing the error record. With
    `preserve-nan-inf`, each module declares SignedZeroInfNanPreserve (float controls).
    """

    name = "convert-offload-to-spirv"

    caps: str = ""
    debug: bool = False
    preserve_nan_inf: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        caps = spirv_abi.parse_caps(self.caps)
        fields = {
            f.sym_name.data: f for f in op.body.block.ops if isinstance(f, taichi.FieldOp)
        }
        for kernel in [k for k in op.body.block.ops if isinstance(k, offload.KernelOp)]:
            prints: list[tuple[str, tuple[str, ...]]] = []
            asserts: list[str] = []
            modules: list[spirv.ModuleOp] = []
            for index, task in enumerate(kernel.tasks):
                base = len(prints)
                module = _task_module(
                    kernel,
                    index,
                    task,
                    fields,
                    caps,
                    prints,
                    self.debug,
                    asserts,
                    self.preserve_nan_inf,
                )
                specs = ArrayAttr(
                    ArrayAttr(
                        [
                            StringAttr(str(base + n)),
                            StringAttr(fmt),
                            *map(StringAttr, kinds),
                        ]
                    )
                    for n, (fmt, kinds) in enumerate(prints[base:])
                )
                if specs.data:
                    module.attributes["ti.prints"] = specs
                module.attributes["ti.kernel"] = StringAttr(kernel.sym_name.data)
                module.attributes["ti.task"] = IntegerAttr(index, i64)
                modules.append(module)
            Rewriter.insert_op(modules, InsertPoint.before(kernel))
            kernel.detach()
            kernel.erase()
