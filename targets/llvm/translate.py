"""
LLVM dialect -> LLVM IR text: xDSL's translator (xdsl.backend.llvm) plus a dispatch table
for what it lacks.

    ti-opt kernel.mlir -p ti-to-llvm -t llvm
    text = to_llvm_ir(module)            # then llvmlite.binding.parse_assembly(text)

xDSL's `convert_op` translates most of the `llvm` dialect. `CONVERTERS`, keyed by op
type, comes first and adds:
- the `llvm_ext` ops (fptosi, fptoui, uitofp, atomicrmw, cmpxchg, fence);
- fast-math flags where xDSL drops them or refuses them (intrinsic calls, `llvm.intr.fma`,
  `llvm.call_intrinsic`, `llvm.fcmp`), the pipeline being fast-math by default as Taichi's;
- correctly mangled intrinsic names (`llvm.sqrt.f32`, not `llvm.sqrt`);
- atomic `llvm.load`/`llvm.store` (xDSL ignores their `ordering`);
- `llvm.alloca` as an opaque pointer (llvmlite types it);
- `llvm.getelementptr` on opaque pointers without a bitcast to a typed pointer.

Blocks are translated in reverse post-order, so that every value is translated before a
branch passes it to a phi, whatever the order of the blocks in the region. Values keep
their MLIR names (`%old = atomicrmw ...`) where they have one.

Only this module imports llvmlite.ir; llvmlite.binding is imported only when no target
triple is given (to ask for the host's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from llvmlite import ir
from llvmlite.ir import instructions
from xdsl.backend.llvm.convert import _convert_global, _declare_func  # pyright: ignore
from xdsl.backend.llvm.convert_op import convert_op as xdsl_convert_op
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import LLVMTranslationException

from taichi_xdsl.dialects import llvm_ext
from taichi_xdsl.utils.errors import TaichiCompilationError

ValueMap = dict[SSAValue, ir.Value]
Converter = Callable[[Any, ir.IRBuilder, ValueMap], None]

CONVERTERS: dict[type[Operation], Converter] = {}
"""Translation of an op into `builder`'s block, by op type; tried before xDSL's."""


def converts(*op_types: type[Operation]) -> Callable[[Converter], Converter]:
    """Register a function as the translation of `op_types`."""

    def register(function: Converter) -> Converter:
        for op_type in op_types:
            CONVERTERS[op_type] = function
        return function

    return register


# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def _flags(fastmath: Attribute) -> list[str]:
    """The LLVM spelling of a `#llvm.fastmath<...>` value (`fast` when all are set)."""
    assert isinstance(fastmath, llvm.FastMathAttr)
    flags = sorted(flag.value for flag in fastmath.data)
    return ["fast"] if len(flags) == 7 else flags


def _is_float(t: ir.Type) -> bool:
    element = t.element if isinstance(t, ir.VectorType) else t
    return isinstance(element, (ir.HalfType, ir.FloatType, ir.DoubleType))


def _mangle(t: ir.Type) -> str:
    """The overload suffix of an intrinsic name for `t`: `f32`, `i64`, `v4f32`, `p0`."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_mangle(t.element)}"
    return t.intrinsic_name


def _call_intrinsic(
    builder: ir.IRBuilder,
    name: str,
    args: list[ir.Value],
    ret_type: ir.Type,
    fastmath: Attribute | None,
) -> ir.Value:
    module = builder.module
    callee = module.globals.get(name)
    if callee is None:
        callee = ir.Function(
            module, ir.FunctionType(ret_type, [a.type for a in args]), name
        )
    flags = _flags(fastmath) if fastmath is not None and _is_float(ret_type) else []
    return builder.call(callee, args, fastmath=flags)


def _natural_alignment(t: ir.Type) -> int:
    """ABI alignment of a scalar (its size), for atomic accesses that name none."""
    match t:
        case ir.IntType():
            return max(1, (t.width + 7) // 8)
        case ir.HalfType():
            return 2
        case ir.FloatType():
            return 4
        case _:
            return 8


# ---------------------------------------------------------------------------------------
# llvm_ext ops
# ---------------------------------------------------------------------------------------

_CASTS = {
    llvm_ext.FPToSIOp: "fptosi",
    llvm_ext.FPToUIOp: "fptoui",
    llvm_ext.UIToFPOp: "uitofp",
}


@converts(*_CASTS)
def _convert_cast(op: llvm_ext.FPToSIOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    cast = getattr(builder, _CASTS[type(op)])
    values[op.res] = cast(values[op.arg], convert_type(op.res.type))


@converts(llvm_ext.AtomicRMWOp)
def _convert_atomicrmw(op: llvm_ext.AtomicRMWOp, builder: ir.IRBuilder, values: ValueMap):
    values[op.res] = builder.atomic_rmw(
        op.bin_op.data.value, values[op.ptr], values[op.val], op.ordering.data.value
    )


@converts(llvm_ext.CmpXchgOp)
def _convert_cmpxchg(op: llvm_ext.CmpXchgOp, builder: ir.IRBuilder, values: ValueMap):
    values[op.res] = builder.cmpxchg(
        values[op.ptr],
        values[op.cmp],
        values[op.val],
        op.success_ordering.data.value,
        op.failure_ordering.data.value,
    )


@converts(llvm_ext.FenceOp)
def _convert_fence(op: llvm_ext.FenceOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    scope = op.syncscope.data if op.syncscope is not None else None
    builder.fence(op.ordering.data.value, scope)


# ---------------------------------------------------------------------------------------
# llvm ops that xDSL translates without their fast-math flags (or not at all)
# ---------------------------------------------------------------------------------------

_INTRINSICS: dict[type[Operation], str] = {
    llvm.FAbsOp: "llvm.fabs",
    llvm.FCeilOp: "llvm.ceil",
    llvm.FCosOp: "llvm.cos",
    llvm.FExp2Op: "llvm.exp2",
    llvm.FExpOp: "llvm.exp",
    llvm.FFloorOp: "llvm.floor",
    llvm.FLog2Op: "llvm.log2",
    llvm.FLogOp: "llvm.log",
    llvm.FSinOp: "llvm.sin",
    llvm.FSqrtOp: "llvm.sqrt",
    llvm.FPowOp: "llvm.pow",
    llvm.VectorFMaxOp: "llvm.maxnum",
    llvm.VectorFMinOp: "llvm.minnum",
    llvm.FCopySignOp: "llvm.copysign",
    llvm.FMAOp: "llvm.fma",
}
"""The `llvm.intr.*` ops of xDSL's llvm dialect: overloaded on their result type."""


@converts(*_INTRINSICS)
def _convert_intrinsic(op: Operation, builder: ir.IRBuilder, values: ValueMap) -> None:
    result = op.results[0]
    ret_type = convert_type(result.type)
    name = f"{_INTRINSICS[type(op)]}.{_mangle(ret_type)}"
    args = [values[operand] for operand in op.operands]
    values[result] = _call_intrinsic(
        builder, name, args, ret_type, op.properties.get("fastmathFlags")
    )


_FLOAT_BINARY = {
    llvm.FAddOp: "fadd",
    llvm.FSubOp: "fsub",
    llvm.FMulOp: "fmul",
    llvm.FDivOp: "fdiv",
    llvm.FRemOp: "frem",
}


@converts(*_FLOAT_BINARY)
def _convert_float_binary(
    op: llvm.AbstractFloatArithOp, builder: ir.IRBuilder, values: ValueMap
) -> None:
    build = getattr(builder, _FLOAT_BINARY[type(op)])
    values[op.res] = build(values[op.lhs], values[op.rhs], flags=_flags(op.fastmathFlags))


@converts(llvm.CallIntrinsicOp)
def _convert_call_intrinsic(
    op: llvm.CallIntrinsicOp, builder: ir.IRBuilder, values: ValueMap
) -> None:
    if op.op_bundle_operands:
        raise LLVMTranslationException("operand bundles are not supported")
    ret_type = convert_type(op.ress.type) if op.ress is not None else ir.VoidType()
    args = [values[arg] for arg in op.args]
    result = _call_intrinsic(builder, op.intrin.data, args, ret_type, op.fastmathFlags)
    if op.ress is not None:
        values[op.ress] = result


@converts(llvm.FCmpOp)
def _convert_fcmp(op: llvm.FCmpOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    predicate = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data).value.lstrip("_")
    # xDSL's custom syntax of llvm.fcmp keeps the flags in the attribute dictionary.
    fastmath = op.fastmathFlags
    if not fastmath.data:
        fastmath = op.attributes.get("fastmathFlags", fastmath)
    instr = instructions.FCMPInstr(
        builder.block, predicate, values[op.lhs], values[op.rhs], flags=_flags(fastmath)
    )
    builder._insert(instr)  # pyright: ignore[reportPrivateUsage]
    values[op.res] = instr


@converts(llvm.CallOp)
def _convert_call(op: llvm.CallOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    if op.op_bundle_operands:
        raise LLVMTranslationException("operand bundles are not supported")
    if op.callee is None:
        raise LLVMTranslationException("indirect calls are not supported")
    callee = builder.module.get_global(op.callee.string_value())
    ret_type = convert_type(op.returned.type) if op.returned is not None else ir.VoidType()
    cconv = op.CConv.cconv_name
    tail = op.TailCallKind.data
    result = builder.call(
        callee,
        [values[arg] for arg in op.args],
        cconv=None if cconv == "ccc" else cconv,
        tail=False if tail == llvm.TailCallKind.NONE else tail.value,
        fastmath=_flags(op.fastmathFlags) if _is_float(ret_type) else (),
    )
    if op.returned is not None:
        values[op.returned] = result


@converts(llvm.GEPOp)
def _convert_gep(op: llvm.GEPOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    dynamic = iter(op.ssa_indices)
    indices = [
        values[next(dynamic)]
        if index == llvm.GEP_USE_SSA_VAL
        else ir.Constant(ir.IntType(32), index)
        for index in op.rawConstantIndices.iter_values()
    ]
    values[op.result] = builder.gep(
        values[op.ptr],
        indices,
        inbounds=op.inbounds is not None,
        source_etype=convert_type(op.elem_type),
    )


@converts(llvm.LoadOp)
def _convert_load(op: llvm.LoadOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    value_type = convert_type(op.dereferenced_value.type)
    alignment = op.alignment.value.data if op.alignment is not None else None
    ordering = op.ordering.value.data
    if ordering:
        load = builder.load_atomic(
            values[op.ptr],
            llvm.ATOMIC_ORDERING_KEYWORDS[ordering],
            alignment or _natural_alignment(value_type),
            typ=value_type,
        )
    else:
        load = builder.load(values[op.ptr], typ=value_type, align=alignment)
    values[op.dereferenced_value] = load


@converts(llvm.StoreOp)
def _convert_store(op: llvm.StoreOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    value, ptr = values[op.value], values[op.ptr]
    alignment = op.alignment.value.data if op.alignment is not None else None
    ordering = op.ordering.value.data if op.ordering is not None else 0
    if ordering:
        # builder.store_atomic insists on a typed pointer; the instruction itself does not.
        store = instructions.StoreAtomicInstr(
            builder.block,
            value,
            ptr,
            llvm.ATOMIC_ORDERING_KEYWORDS[ordering],
            alignment or _natural_alignment(value.type),
        )
        builder._insert(store)  # pyright: ignore[reportPrivateUsage]
    else:
        builder.store(value, ptr, align=alignment)


@converts(llvm.AllocaOp)
def _convert_alloca(op: llvm.AllocaOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    alloca = builder.alloca(convert_type(op.elem_type), size=values[op.size])
    if op.alignment is not None:
        alloca.align = op.alignment.value.data
    # An opaque `ptr`, like every other pointer: llvmlite would type it `i8*` and refuse
    # to store a float through it (a task's thread-local buffer holds any scalars).
    alloca.type = ir.PointerType()
    values[op.res] = alloca


# ---------------------------------------------------------------------------------------
# Functions and modules
# ---------------------------------------------------------------------------------------


def _where(op: Operation) -> str:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
    return ""


def convert_op(
    op: Operation,
    builder: ir.IRBuilder,
    values: ValueMap,
    blocks: dict[Block, ir.Block],
) -> None:
    """
    Translate one op at the end of `builder`'s block, recording its results in `values`.

    Raises:
        LLVMTranslationException: neither CONVERTERS nor xDSL can translate the op.
    """
    converter = CONVERTERS.get(type(op))
    try:
        if converter is not None:
            converter(op, builder, values)
        else:
            xdsl_convert_op(op, builder, values, blocks)
    except NotImplementedError as error:
        raise LLVMTranslationException(
            f"{_where(op)}cannot translate '{op.name}' to LLVM IR: {error}"
        ) from None


def _reverse_post_order(entry: Block) -> list[Block]:
    order: list[Block] = []
    seen = {entry}
    stack = [(entry, iter(_successors(entry)))]
    while stack:
        block, successors = stack[-1]
        successor = next(successors, None)
        if successor is None:
            order.append(block)
            stack.pop()
        elif successor not in seen:
            seen.add(successor)
            stack.append((successor, iter(_successors(successor))))
    return order[::-1]


def _successors(block: Block) -> list[Block]:
    terminator = block.last_op
    return list(terminator.successors) if terminator is not None else []


def _name(value: ir.Value, hint: str | None) -> None:
    """Give a value made for this op its MLIR name (never rename an existing one)."""
    if (
        hint
        and isinstance(value, (ir.Instruction, ir.Argument))
        and value.name.startswith(".")
    ):
        value.name = hint


def _convert_func(op: llvm.FuncOp, module: ir.Module) -> None:
    function = module.get_global(op.sym_name.data)
    assert isinstance(function, ir.Function)
    entry = op.body.blocks.first
    assert entry is not None
    for arg, llvm_arg in zip(entry.args, function.args, strict=True):
        _name(llvm_arg, arg.name_hint)
    values: ValueMap = dict(zip(entry.args, function.args))
    # Unreachable blocks are dropped: nothing branches to them, and their block
    # arguments would be phis without incoming values.
    reachable = _reverse_post_order(entry)
    reachable_set = set(reachable)
    in_region_order = [block for block in op.body.blocks if block in reachable_set]
    blocks = {
        block: function.append_basic_block(f"bb{index}" if index else "entry")
        for index, block in enumerate(in_region_order)
    }
    for block in in_region_order[1:]:
        builder = ir.IRBuilder(blocks[block])
        for arg in block.args:
            values[arg] = builder.phi(convert_type(arg.type))
            _name(values[arg], arg.name_hint)
    for block in reachable:
        builder = ir.IRBuilder(blocks[block])
        for block_op in block.ops:
            convert_op(block_op, builder, values, blocks)
            for result in block_op.results:
                if result in values:
                    _name(values[result], result.name_hint)


def to_llvm_module(
    module: ModuleOp, *, triple: str | None = None, data_layout: str = ""
) -> ir.Module:
    """
    Translate a module of `llvm.mlir.global`s and `llvm.func`s to an llvmlite module.

    Args:
        module: the module; ops of the `llvm` and `llvm_ext` dialects only.
        triple: the target triple; else the module's `llvm.target_triple`, else the host's.
        data_layout: the data layout string, or "" for none.

    Raises:
        LLVMTranslationException: the module holds an op that cannot be translated.
    """
    llvm_module = ir.Module()
    module_triple = module.attributes.get("llvm.target_triple")
    if triple is None and isinstance(module_triple, StringAttr):
        triple = module_triple.data
    if triple is None:
        from llvmlite import binding

        triple = binding.get_default_triple()
    llvm_module.triple = triple
    llvm_module.data_layout = data_layout

    globals_: list[llvm.GlobalOp] = []
    functions: list[llvm.FuncOp] = []
    for op in module.ops:
        match op:
            case llvm.GlobalOp():
                globals_.append(op)
            case llvm.FuncOp():
                functions.append(op)
            case _:
                raise LLVMTranslationException(
                    f"{_where(op)}cannot translate '{op.name}' to LLVM IR: expected "
                    "llvm.mlir.global or llvm.func at module level"
                )
    for global_op in globals_:
        _convert_global(global_op, llvm_module)
        variable = llvm_module.get_global(global_op.sym_name.data)
        # Referenced as an opaque `ptr @g`, like every other pointer, not `[N x i8]* @g`.
        variable.type = ir.PointerType(addrspace=global_op.addr_space.value.data)
        if global_op.value is None and global_op.linkage.linkage.data != "external":
            variable.initializer = ir.Constant(variable.value_type, None)  # zeroinitializer
    for function in functions:
        _declare_func(function, llvm_module)
        if function.linkage.linkage.data == "internal":  # a real function of a kernel
            llvm_module.get_global(function.sym_name.data).linkage = "internal"
    for function in functions:
        if function.body.blocks:
            _convert_func(function, llvm_module)
    return llvm_module


def to_llvm_ir(
    module: ModuleOp, *, triple: str | None = None, data_layout: str = ""
) -> str:
    """The LLVM IR text of `module` (see `to_llvm_module`)."""
    return str(to_llvm_module(module, triple=triple, data_layout=data_layout))


def kernel_llvm_ir(module: ModuleOp, who: str) -> str:
    """
    `to_llvm_ir(module)` for a compile: a failure (translation fails with several
    exception types) becomes a TaichiCompilationError naming `who` ("kernel 'k'").
    """
    try:
        return to_llvm_ir(module)
    except Exception as error:
        raise TaichiCompilationError(f"{who}: LLVM translation failed: {error}") from error


def emit_llvm_ir(module: ModuleOp, stream: IO[str]) -> None:
    """The `ti-opt -t llvm` target: write the LLVM IR text of `module` to `stream`."""
    print(to_llvm_ir(module), file=stream, end="")
