"""
ti-lower-access: the places a task reads and writes become pointers, and their loads,
stores and atomics become LLVM memory ops (the "access lowering" of Taichi's pipeline,
taichi/transforms/lower_access.cpp).

Every address starts from the task's RuntimeContext (utils/abi.py), which is
`offload.context` until convert-offload-to-llvm makes tasks functions. A real function
(`func.func`, a ti.real_func called for real) reads its own `offload.context` (the
context of the task that called it) at the top of its body:

    taichi.element_ptr (taichi.get_field @x)[i, j]   root + offset(@x) + (i*n1 + j) * size
    taichi.element_ptr (offload.arg N ndarray)[i]    data(N) + i * size, shape(N) in args
    offload.global_tmp N / offload.thread_local N    gtmps + N / thread-local buffer + N
    offload.arg N : f32                              load of args + offset(N)
    memref.dim (offload.arg N), d                    load of the shape word d of N

Reads of the context and of the argument buffer cannot change during a launch. Each is
made once, at the top of the task region that needs it, as an `llvm.load` marked
`invariant` (MLIR's flag of that name), so convert-offload-to-llvm can hoist it out of a
range_for's loop:

    %p = taichi.element_ptr %x[%i] : memref<16xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    ~>
    %ctx = offload.context : !llvm.ptr                         (top of the task region)
    %root = llvm.load %ctx {invariant} : !llvm.ptr -> !llvm.ptr
    %x = llvm.getelementptr %root[64] : (!llvm.ptr) -> !llvm.ptr, i8
    ...
    %j = arith.extsi %i : i32 to i64
    %p = llvm.getelementptr %x[%j] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %p : !llvm.ptr -> f32

With `debug=true`, an element access runs only when every index is in [0, extent);
otherwise the task writes the error record (1, site << 8 | dim, index, extent) and a
load gives 0; the site is the address of a global holding the access's
`file:line:column` (`@k.site0`, when the access has a location), which the host shows
with the source line.
`taichi.assert` writes (2, address of its message, 0, 0) when its condition is false;
without debug, asserts are erased. Local `memref.alloca` slots are left as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolTable,
    UnitAttr,
    f32,
    i1,
    i32,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.hints import isa

from taichi_xdsl.dialects import llvm_ext, offload, taichi
from taichi_xdsl.lowering.field_access import access_elements
from taichi_xdsl.utils import abi
from taichi_xdsl.utils.diagnostics import PassFailedAt
from taichi_xdsl.utils.errors import SITE_SHIFT, access_site
from taichi_xdsl.utils.print_format import assert_message

PTR = llvm.LLVMPointerType()
_CONTEXT_WORDS = {
    abi.CTX_ROOT: "root",
    abi.CTX_GLOBAL_TMPS: "gtmps",
    abi.CTX_RETURNS: "returns",
    abi.CTX_ARGS: "args",
    abi.CTX_ERROR: "error",
}
INVARIANT = "invariant"
"""Marks a load of the context or of the argument buffer: constant during a launch."""

BinOp = llvm_ext.AtomicBinOp
_ATOMICS: dict[type[taichi.AtomicOp], tuple[BinOp, BinOp | None]] = {
    taichi.AtomicAddOp: (BinOp.ADD, BinOp.FADD),
    taichi.AtomicSubOp: (BinOp.SUB, BinOp.FSUB),
    taichi.AtomicMinOp: (BinOp.MIN, BinOp.FMIN),
    taichi.AtomicMaxOp: (BinOp.MAX, BinOp.FMAX),
    taichi.AtomicAndOp: (BinOp.AND, None),
    taichi.AtomicOrOp: (BinOp.OR, None),
    taichi.AtomicXorOp: (BinOp.XOR, None),
}
"""The `atomicrmw` operation of each atomic: (on integers, on floats)."""
_UNSIGNED_ATOMICS = {taichi.AtomicMinOp: BinOp.UMIN, taichi.AtomicMaxOp: BinOp.UMAX}


def scalar_bytes(t: Attribute) -> int:
    """Bytes a scalar of type `t` takes in memory (i1 takes a byte)."""
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    assert isinstance(t, AnyFloat)
    return t.bitwidth // 8


def _i64(value: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(value, 64)


def _offset(ptr: SSAValue, offset: int | SSAValue, element: Attribute = i8) -> llvm.GEPOp:
    """`ptr + offset * sizeof(element)`."""
    if isinstance(offset, int):
        return llvm.GEPOp(ptr, [offset], element)
    return llvm.GEPOp.from_mixed_indices(ptr, [offset], element)


def _invariant_load(ptr: SSAValue, offset: int, result_type: Attribute) -> list[Operation]:
    ops: list[Operation] = []
    if offset:
        ops.append(_offset(ptr, offset))
        ptr = ops[-1].results[0]
    load = llvm.LoadOp(ptr, result_type)
    load.attributes[INVARIANT] = UnitAttr()
    return [*ops, load]


@dataclass
class _Lowering:
    """What the patterns share: the options and the reads made so far."""

    debug: bool
    reads: dict[tuple[Block, Hashable], SSAValue] = field(default_factory=dict)
    preamble: set[Operation] = field(default_factory=set)
    thread_local_bytes: dict[Operation, int] = field(default_factory=dict)
    messages: dict[str, int] = field(default_factory=dict)
    texts: dict[tuple[str, str, str], str] = field(default_factory=dict)
    """The symbol of each (kernel, kind, text) global made (`_Reads.text`)."""

    def at(self, op: Operation, rewriter: PatternRewriter) -> _Reads | None:
        """The reads of the task region, or of the real function (`func.func`),
        holding `op`; None elsewhere."""
        inner = op
        while (parent := inner.parent_op()) is not None and not isinstance(
            parent, offload.TaskOp | func.FuncOp
        ):
            inner = parent
        block = inner.parent_block()
        if parent is None or block is None:
            return None
        if isinstance(parent, func.FuncOp):  # a real function: its own context reads
            return _Reads(self, block, parent, parent, rewriter)
        kernel = parent.parent_op()
        assert isinstance(kernel, offload.KernelOp)
        return _Reads(self, block, parent, kernel, rewriter)


@dataclass
class _Reads:
    """
    The launch-invariant values of one task region (context words, arguments, buffer
    starts), each made on first use at the top of the region and shared by its ops.
    In a real function (`func.func`, which has no kernel arguments), `task` and
    `kernel` are the function.
    """

    lowering: _Lowering
    block: Block
    task: offload.TaskOp | func.FuncOp
    kernel: offload.KernelOp | func.FuncOp
    rewriter: PatternRewriter

    def _get(
        self, key: Hashable, name: str, build: Callable[[], Sequence[Operation]]
    ) -> SSAValue:
        value = self.lowering.reads.get((self.block, key))
        if value is not None and value.owner.parent is not None:
            return value
        ops = build()
        first = self.block.first_op
        while first is not None and first in self.lowering.preamble:
            first = first.next_op
        point = InsertPoint.before(first) if first else InsertPoint.at_end(self.block)
        self.rewriter.insert(ops, point)
        self.lowering.preamble.update(ops)
        value = ops[-1].results[0]
        value.name_hint = name
        self.lowering.reads[(self.block, key)] = value
        return value

    def context(self) -> SSAValue:
        return self._get("ctx", "ctx", lambda: [offload.ContextOp()])

    def context_word(self, offset: int) -> SSAValue:
        """One of the RuntimeContext's pointers (abi.CTX_*)."""
        ctx = self.context()
        name = _CONTEXT_WORDS[offset]
        return self._get(name, name, lambda: _invariant_load(ctx, offset, PTR))

    def _buffer(self, base: SSAValue, key: Hashable, name: str, offset: int) -> SSAValue:
        if offset == 0:
            return base
        return self._get(key, name, lambda: [_offset(base, offset)])

    def arg_offset(self, index: int) -> int:
        assert isinstance(self.kernel, offload.KernelOp)
        inputs = self.kernel.function_type.inputs.data
        ranks = [t.get_num_dims() if isa(t, MemRefType) else None for t in inputs]
        return abi.arg_offsets(ranks)[index]

    def arg_word(self, offset: int, result_type: Attribute, name: str) -> SSAValue:
        """The argument buffer's word at byte `offset`."""
        args = self.context_word(abi.CTX_ARGS)
        return self._get(
            ("arg", offset), name, lambda: _invariant_load(args, offset, result_type)
        )

    def shape_word(self, arg: int, dim: int) -> SSAValue:
        """Extent `dim` of ndarray argument `arg`, as i64."""
        offset = self.arg_offset(arg) + 8 + 8 * dim
        return self.arg_word(offset, i64, f"arg{arg}_shape{dim}")

    def field(self, field_op: taichi.FieldOp) -> SSAValue:
        root = self.context_word(abi.CTX_ROOT)
        name = field_op.sym_name.data
        return self._buffer(root, ("field", name), name, field_op.offset.value.data)

    def global_tmp(self, offset: int) -> SSAValue:
        gtmps = self.context_word(abi.CTX_GLOBAL_TMPS)
        return self._buffer(gtmps, ("gtmp", offset), f"gtmp{offset}", offset)

    def thread_local(self, offset: int) -> SSAValue:
        size = self.lowering.thread_local_bytes.get(self.task)
        if size is None:
            size = max(
                op.offset.value.data + scalar_bytes(op.result.type.element_type)
                for op in self.task.walk()
                if isinstance(op, offload.ThreadLocalOp)
            )
            self.lowering.thread_local_bytes[self.task] = size
        buffer = self._get("tls", "tls", lambda: [offload.ThreadLocalBufferOp(size)])
        return self._buffer(buffer, ("tls", offset), f"tls{offset}", offset)

    def text(self, kind: str, text: str) -> str:
        """
        The symbol of a NUL-terminated constant `text` placed before the kernel,
        `<kernel>.<kind><n>` (one per kernel and text of a kind).
        """
        kernel_name = self.kernel.sym_name.data
        key = (kernel_name, kind, text)
        symbol = self.lowering.texts.get(key)
        if symbol is not None:
            return symbol
        count = self.lowering.messages.get(kernel_name + kind, 0)
        self.lowering.messages[kernel_name + kind] = count + 1
        data = text.encode() + b"\0"
        symbol = f"{kernel_name}.{kind}{count}"
        message = llvm.GlobalOp(
            llvm.LLVMArrayType(len(data), i8),
            symbol,
            "internal",
            constant=True,
            value=StringAttr(data.decode()),
        )
        self.rewriter.insert(message, InsertPoint.before(self.kernel))
        self.lowering.texts[key] = symbol
        return symbol

    def error_record(self, code: int, words: Sequence[SSAValue]) -> list[Operation]:
        """
        Write (code, *words) to the error record unless an error is there already: the
        first writer wins the compare-and-swap of the code word.
        """
        record = self.context_word(abi.CTX_ERROR)
        zero, code_value = _i64(0), _i64(code)
        swap = llvm_ext.CmpXchgOp(record, zero, code_value)
        won = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), swap.res, i1)
        stores: list[Operation] = []
        for position, word in enumerate(words, start=1):
            address = _offset(record, 8 * position)
            stores += [address, llvm.StoreOp(word, address)]
        write = taichi.IfOp(won, Block([*stores, taichi.YieldOp()]))
        return [zero, code_value, swap, won, write]


@dataclass
class _Check:
    """One index of a debug-checked access: in bounds when `ok`."""

    ok: SSAValue
    index: SSAValue
    extent: SSAValue


def _out_of_bounds(
    reads: _Reads, checks: Sequence[_Check], site: str | None
) -> list[Operation]:
    """
    The error record of the first index out of bounds: (1, site << 8 | dim, index,
    extent), the site the address of the access's `file:line:column` text (the global
    `site`; utils/errors.py SITE_SHIFT), none without one.
    """
    last = len(checks) - 1
    dim_op = _i64(last)
    ops: list[Operation] = [dim_op]
    dim, index, extent = dim_op.result, checks[last].index, checks[last].extent
    for d in reversed(range(last)):
        d_op = _i64(d)
        selects = [
            arith.SelectOp(checks[d].ok, dim, d_op),
            arith.SelectOp(checks[d].ok, index, checks[d].index),
            arith.SelectOp(checks[d].ok, extent, checks[d].extent),
        ]
        ops += [d_op, *selects]
        dim, index, extent = (s.result for s in selects)
    if site is not None:
        address = llvm.AddressOfOp(site, PTR)
        word = llvm.PtrToIntOp(address, i64)
        shift = _i64(SITE_SHIFT)
        shifted = arith.ShLIOp(word, shift)
        first = arith.OrIOp(shifted, dim)
        ops += [address, word, shift, shifted, first]
        dim = first.result
    return ops + reads.error_record(abi.ERROR_INDEX_OUT_OF_BOUNDS, [dim, index, extent])


def _zero(t: Attribute) -> arith.ConstantOp:
    if isinstance(t, IntegerType):
        return arith.ConstantOp(IntegerAttr(0, t))
    assert isinstance(t, AnyFloat)
    return arith.ConstantOp(FloatAttr(0.0, t))


def _access(
    user: Operation, ptr: SSAValue
) -> tuple[Operation | list[Operation], SSAValue | None] | None:
    """The LLVM op for one load, store or atomic of a place; None for other users."""
    match user:
        case memref.LoadOp():
            load = llvm.LoadOp(ptr, user.res.type)
            return load, load.dereferenced_value
        case memref.StoreOp():
            return llvm.StoreOp(user.value, ptr), None
        case taichi.AtomicMulOp():
            return _cas_loop(user, ptr, arith.MuliOp, arith.MulfOp)
        case taichi.AtomicOp():
            on_int, on_float = _ATOMICS[type(user)]
            bin_op = on_int if isinstance(user.value.type, IntegerType) else on_float
            if isinstance(user, taichi.AtomicMinOp | taichi.AtomicMaxOp) and user.unsigned:
                bin_op = _UNSIGNED_ATOMICS[type(user)]
            assert bin_op is not None  # the dialect allows bitwise atomics on integers only
            rmw = llvm_ext.AtomicRMWOp(bin_op, ptr, user.value)
            return rmw, rmw.res
        case taichi.AtomicCasOp():
            swap = llvm_ext.CmpXchgOp(ptr, user.expected, user.new)
            old = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [0]), swap.res, user.new.type)
            return [swap, old], old.res
        case _:
            return None


def _cas_loop(
    user: taichi.AtomicOp,
    ptr: SSAValue,
    on_int: Callable[[SSAValue, SSAValue], Operation],
    on_float: Callable[[SSAValue, SSAValue], Operation],
) -> tuple[list[Operation], SSAValue]:
    """
    An atomic that LLVM has no `atomicrmw` for (multiply): a compare-and-swap loop on
    the bit pattern, which a local slot carries from one try to the next.

        %old = taichi.atomic_mul %p, %v : memref<f32>
        ~>
        %seen = memref.alloca() : memref<i32>
        %first = llvm.load %p : !llvm.ptr -> i32
        memref.store %first, %seen[] : memref<i32>
        taichi.while {
          %expected = memref.load %seen[] : memref<i32>
          %o = arith.bitcast %expected : i32 to f32
          %n = arith.mulf %o, %v : f32
          %desired = arith.bitcast %n : f32 to i32
          %pair = llvm_ext.cmpxchg %p, %expected, %desired seq_cst seq_cst : !llvm.ptr, i32
          %now = llvm.extractvalue %pair[0] : !llvm.struct<(i32, i1)> -> i32
          %swapped = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)> -> i1
          memref.store %now, %seen[] : memref<i32>
          taichi.if %swapped { taichi.break }
          taichi.yield
        }
        %bits = memref.load %seen[] : memref<i32>
        %old = arith.bitcast %bits : i32 to f32

    On success the swap returns what it compared against, so `%seen` ends holding the
    value before this thread's update.
    """
    t = user.value.type
    is_int = isinstance(t, IntegerType)
    bits_type = t if is_int else IntegerType(scalar_bytes(t) * 8)

    def reinterpret(value: SSAValue, to: Attribute, into: list[Operation]) -> SSAValue:
        if value.type == to:
            return value
        into.append(cast := arith.BitcastOp(value, to))
        return cast.result

    seen = memref.AllocaOp.get(bits_type, shape=[])
    first = llvm.LoadOp(ptr, bits_type)
    body: list[Operation] = [expected := memref.LoadOp.get(seen, [])]
    old = reinterpret(expected.res, t, body)
    body.append(new := (on_int if is_int else on_float)(old, user.value))
    desired = reinterpret(new.results[0], bits_type, body)
    body += [
        pair := llvm_ext.CmpXchgOp(ptr, expected.res, desired),
        now := llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [0]), pair.res, bits_type),
        swapped := llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), pair.res, i1),
        memref.StoreOp.get(now.res, seen, []),
        taichi.IfOp(swapped.res, Block([taichi.BreakOp()])),
        taichi.YieldOp(),
    ]
    ops: list[Operation] = [
        seen,
        first,
        memref.StoreOp.get(first.dereferenced_value, seen, []),
        taichi.WhileOp(Block(body)),
        bits := memref.LoadOp.get(seen, []),
    ]
    return ops, reinterpret(bits.res, t, ops)


def _guarded(
    reads: _Reads,
    checks: Sequence[_Check],
    ok: SSAValue,
    access: Operation | list[Operation],
    result: SSAValue | None,
    site: str | None,
) -> tuple[list[Operation], SSAValue | None]:
    """
    Run `access` only when `ok`; otherwise write the error record. A result goes
    through a local slot, 0 when the access was skipped.
    """
    error = _out_of_bounds(reads, checks, site)
    access = access if isinstance(access, list) else [access]
    if result is None:
        run = Block([*access, taichi.YieldOp()])
        return [taichi.IfOp(ok, run, Block([*error, taichi.YieldOp()]))], None
    slot = memref.AllocaOp.get(result.type, shape=[])
    zero = _zero(result.type)
    then = Block([*access, memref.StoreOp.get(result, slot, []), taichi.YieldOp()])
    skip = Block([*error, zero, memref.StoreOp.get(zero, slot, []), taichi.YieldOp()])
    load = memref.LoadOp.get(slot, [])
    return [slot, taichi.IfOp(ok, then, skip), load], load.res


def _lower_accesses(
    place: SSAValue,
    ptr: SSAValue,
    reads: _Reads,
    checks: Sequence[_Check] = (),
    ok: SSAValue | None = None,
    others: tuple[type[Operation], ...] = (),
    site: str | None = None,
) -> None:
    """Rewrite every load, store and atomic of `place` into one of `ptr`."""
    for use in list(place.uses):
        user = use.operation
        if isinstance(user, memref.StoreOp) and use.index == 0:
            user = None  # the place itself stored somewhere: not an access
        lowered = _access(user, ptr) if user is not None else None
        if lowered is None:
            if isinstance(use.operation, others):
                continue
            raise PassFailedAt(
                use.operation,
                f"ti-lower-access: '{use.operation.name}' of a global place; expected "
                "memref.load, memref.store or a taichi atomic",
            )
        access, result = lowered
        accesses = access if isinstance(access, list) else [access]
        for a in accesses:
            a.location = user.location
        if ok is None:
            new_ops, new_result = accesses, result
        else:
            new_ops, new_result = _guarded(reads, checks, ok, access, result, site)
        reads.rewriter.replace(user, new_ops, [new_result] if user.results else [])


class _Pattern(RewritePattern):
    def __init__(self, lowering: _Lowering):
        self.lowering = lowering


class ElementPtrLowering(_Pattern):
    """
    An element of a field or of an ndarray: base + row-major linear index.

        %p = taichi.element_ptr %x[%i, %j] : memref<4x8xf32> -> memref<f32>
        ~> %x0 = (root + offset of @x) ; %l = i * 8 + j (i64)
           %p = llvm.getelementptr %x0[%l] : (!llvm.ptr, i64) -> !llvm.ptr, f32

    An ndarray's data pointer and extents are its words in the argument buffer.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.ElementPtrOp, rewriter: PatternRewriter):
        if (reads := self.lowering.at(op, rewriter)) is None:
            return  # not in a task yet: nothing to address from
        if self.lowering.debug and len(op.indices) > 1 << SITE_SHIFT:
            raise PassFailedAt(
                op, f"ti-lower-access: debug bounds checks of an access with more than "
                f"{1 << SITE_SHIFT} indices (the error record names the dimension in 8 bits)",
            )
        start, extents = _base(op, reads)
        ops: list[Operation] = []
        linear: SSAValue | None = None
        checks: list[_Check] = []
        for d, index in enumerate(op.indices):
            ops.append(wide := arith.ExtSIOp(index, i64))
            if self.lowering.debug or (linear is not None):
                extent = extents[d](ops)
            if self.lowering.debug:
                ops.append(cmp := arith.CmpiOp(wide, extent, "ult"))
                checks.append(_Check(cmp.result, wide.result, extent))
            if linear is None:
                linear = wide.result
            else:
                ops += [mul := arith.MuliOp(linear, extent), add := arith.AddiOp(mul, wide)]
                linear = add.result
        ptr = start
        if linear is not None:
            ops.append(gep := _offset(start, linear, op.result.type.element_type))
            ptr = gep.result
        ok = checks[0].ok if checks else None
        for check in checks[1:]:
            ops.append(both := arith.AndIOp(ok, check.ok))
            ok = both.result
        for new_op in ops:
            new_op.location = op.location
        rewriter.insert(ops, InsertPoint.before(op))
        site = None
        if checks and isinstance(op.location, FileLineColLoc):
            where = op.location
            text = access_site(where.filename.data, where.line.data, where.column.data)
            site = reads.text("site", text)
        _lower_accesses(op.result, ptr, reads, checks, ok, site=site)
        rewriter.erase(op)


Extent = Callable[[list[Operation]], SSAValue]


def _base(op: taichi.ElementPtrOp, reads: _Reads) -> tuple[SSAValue, list[Extent]]:
    """The start of the field or ndarray that `op` indexes, and its extents (made on use)."""
    base = op.base.owner
    if isinstance(base, taichi.GetFieldOp):
        shape = base.result.type.get_shape()
        return reads.field(_field(base)), [_constant_extent(n) for n in shape]
    if isinstance(base, offload.ArgOp):
        index = base.index.value.data
        extents = [_shape_extent(reads, index, d) for d in range(len(op.indices))]
        return reads.arg_word(reads.arg_offset(index), PTR, f"arg{index}"), extents
    what = base.name if isinstance(base, Operation) else "a block argument"
    raise PassFailedAt(
        op,
        f"ti-lower-access: an element of {what}; expected a taichi.get_field or an "
        "ndarray offload.arg",
    )


def _constant_extent(n: int) -> Extent:
    def make(ops: list[Operation]) -> SSAValue:
        ops.append(constant := _i64(n))
        return constant.result

    return make


def _shape_extent(reads: _Reads, arg: int, dim: int) -> Extent:
    return lambda ops: reads.shape_word(arg, dim)


def _field(get_field: taichi.GetFieldOp) -> taichi.FieldOp:
    field_op = SymbolTable.lookup_symbol(get_field, get_field.field)
    if not isinstance(field_op, taichi.FieldOp):
        raise PassFailedAt(
            get_field,
            f"ti-lower-access: @{get_field.field.root_reference.data} is not a "
            "taichi.field of the module",
        )
    return field_op


class FieldLowering(_Pattern):
    """
    A 0-d field updated atomically without taichi.element_ptr: its start. Its loads
    and stores (of any rank: `memref.load %x[%c3]`) become element accesses first
    (lowering/field_access.py).

        %s = taichi.get_field @s : memref<i32> ; taichi.atomic_add %s, %v
        ~> llvm.atomicrmw add (root + offset of @s), %v
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.GetFieldOp, rewriter: PatternRewriter):
        if (reads := self.lowering.at(op, rewriter)) is None:
            return  # not in a task yet: nothing to address from
        access_elements(op, rewriter)  # its loads and stores: element_ptrs, lowered above
        if all(isinstance(use.operation, taichi.ElementPtrOp) for use in op.result.uses):
            return  # element_ptr users are lowered on their own
        start = reads.field(_field(op))
        _lower_accesses(op.result, start, reads, others=(taichi.ElementPtrOp,))


class GlobalTmpLowering(_Pattern):
    """
    A global temporary in a task: the gtmp buffer + its offset. Those at kernel level
    (range_for bounds) are read by the runtime and stay.

        %n = offload.global_tmp 8 : memref<i32> ; memref.store %v, %n[]
        ~> llvm.store %v, (gtmps + 8)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.GlobalTmpOp, rewriter: PatternRewriter):
        if (reads := self.lowering.at(op, rewriter)) is None:
            return
        _lower_accesses(op.result, reads.global_tmp(op.offset.value.data), reads)


class ThreadLocalLowering(_Pattern):
    """
    A thread-local slot: the task's thread-local buffer + its offset.

        %acc = offload.thread_local 4 : memref<f32>
        ~> %tls = offload.thread_local_buffer 8 : !llvm.ptr ; (%tls + 4)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.ThreadLocalOp, rewriter: PatternRewriter):
        if (reads := self.lowering.at(op, rewriter)) is None:
            return
        _lower_accesses(op.result, reads.thread_local(op.offset.value.data), reads)


class ScalarArgLowering(_Pattern):
    """
    A scalar kernel argument: its word of the argument buffer (ndarrays are lowered
    through their element_ptr and memref.dim users).

        %a = offload.arg 0 : f32  ~>  %a = llvm.load (args + 0) {invariant} : f32
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.ArgOp, rewriter: PatternRewriter):
        if (
            isa(op.result.type, MemRefType)
            or (reads := self.lowering.at(op, rewriter)) is None
        ):
            return
        index = op.index.value.data
        value = reads.arg_word(reads.arg_offset(index), op.result.type, f"arg{index}")
        rewriter.replace(op, [], [value])


class DimLowering(_Pattern):
    """
    The extent of an ndarray: its shape word in the argument buffer.

        %n = memref.dim %a, %c0 : memref<?xf32>
        ~> %w = llvm.load (args + offset + 8) {invariant} : i64
           %n = arith.index_cast %w : i64 to index
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DimOp, rewriter: PatternRewriter):
        source, dim = op.source.owner, op.index.owner
        if not isinstance(source, offload.ArgOp):
            return
        if (reads := self.lowering.at(op, rewriter)) is None:
            return
        if not isinstance(dim, arith.ConstantOp) or not isa(dim.value, IntegerAttr):
            raise PassFailedAt(
                op,
                f"ti-lower-access: the extent of ndarray argument "
                f"{source.index.value.data} needs a constant dimension",
            )
        word = reads.shape_word(source.index.value.data, dim.value.value.data)
        rewriter.replace(op, arith.IndexCastOp(word, IndexType()))
        if not dim.result.uses:
            rewriter.erase(
                dim
            )  # an index constant left for convert-arith-to-llvm otherwise


class AssertLowering(_Pattern):
    """
    `assert cond, "msg"`: without debug, nothing (unless the assert is `always`);
    with debug, when the condition is false, the error record (2, address of the
    NUL-terminated message, 0, 0). A message's values (i32/f32) fill the two free
    words, zero-extended bits; the message then names their kinds (utils/print_format).

        taichi.assert %ok, "x must be positive"
        ~> %bad = arith.xori %ok, %true
           taichi.if %bad { <error record 2, ptrtoint @k.assert0, 0, 0> }

        taichi.assert %ok, "x = {:.2f}"(%x : f32)
        ~> %bits = arith.bitcast %x : f32 to i32
           %w = arith.extui %bits : i32 to i64
           taichi.if %bad { <error record 2, ptrtoint @k.assert0, %w, 0> }
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.AssertOp, rewriter: PatternRewriter):
        if not self.lowering.debug and op.always is None:
            rewriter.erase(op)
            return
        if (reads := self.lowering.at(op, rewriter)) is None:
            return
        kinds = ["f32" if v.type == f32 else "i32" for v in op.values]
        message = reads.text("assert", assert_message(op.message.data, kinds))
        true = arith.ConstantOp(IntegerAttr(1, i1))
        bad = arith.XOrIOp(op.cond, true)
        address = llvm.AddressOfOp(message, PTR)
        word = llvm.PtrToIntOp(address, i64)
        zero = _i64(0)
        words: list[SSAValue] = [zero.result, zero.result]
        value_ops: list[Operation] = []
        for position, value in enumerate(op.values):
            if value.type == f32:
                bits = arith.BitcastOp(value, i32)
                value_ops.append(bits)
                value = bits.result
            wide = arith.ExtUIOp(value, i64)
            value_ops.append(wide)
            words[position] = wide.result
        error = reads.error_record(abi.ERROR_ASSERTION, [word.results[0], *words])
        report = taichi.IfOp(
            bad, Block([address, word, zero, *value_ops, *error, taichi.YieldOp()])
        )
        for new_op in (true, bad, report):
            new_op.location = op.location
        rewriter.replace(op, [true, bad, report], [])


class DeadPlaceErasure(_Pattern):
    """
    A place whose accesses are all lowered goes, and so does its base. (No general
    dce here: an empty task must stay, the runtime has counted it.)
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        places = (
            taichi.ElementPtrOp,
            taichi.GetFieldOp,
            offload.ArgOp,
            offload.GlobalTmpOp,
            offload.ThreadLocalOp,
        )
        if not isinstance(op, places) or op.results[0].uses:
            return
        if self.lowering.at(op, rewriter) is not None:
            rewriter.erase(op)


@dataclass(frozen=True)
class LowerAccessPass(ModulePass):
    """Lower the places of offload tasks to pointers, and their accesses to LLVM ops."""

    name = "ti-lower-access"

    debug: bool = False
    """Check indices and asserts, writing the error record (utils/abi.py)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.body.block.ops:
            if not isinstance(kernel, offload.KernelOp):
                continue
            for task in kernel.tasks:
                epilogue = getattr(task, "epilogue", None)
                if epilogue is None or not epilogue.blocks:
                    continue
                last = epilogue.block.last_op
                if isinstance(last, offload.LastGroupOp):
                    raise PassFailedAt(
                        last,
                        "ti-lower-access: 'offload.last_group' (ti-fuse-serial-reduction) "
                        "has no CPU lowering; the CPU pipeline (ti-to-offload-cpu) does "
                        "not fuse",
                    )
        lowering = _Lowering(self.debug)
        patterns: list[RewritePattern] = [
            ElementPtrLowering(lowering),
            FieldLowering(lowering),
            GlobalTmpLowering(lowering),
            ThreadLocalLowering(lowering),
            ScalarArgLowering(lowering),
            DimLowering(lowering),
            AssertLowering(lowering),
            DeadPlaceErasure(lowering),
        ]
        applier = GreedyRewritePatternApplier(patterns, dce_enabled=False)
        PatternRewriteWalker(applier).rewrite_module(op)
