"""
convert-offload-to-llvm: each task of an `offload.kernel @k` becomes the LLVM function
`@k__task<N>(%ctx: !llvm.ptr, %begin: i32, %end: i32)` of the CPU task ABI
(utils/abi.py), in kernel order; the kernel op, its bound constants and the
`taichi.field` symbols go (the runtime has read the launch plan before this pipeline).

    offload.range_for %i = %lo to %hi : i32 {     llvm.func @k__task0(%ctx: !llvm.ptr,
      B(%i)                                          %begin: i32, %end: i32) {
    } prologue {                             ~>      %tls = llvm.alloca ... (thread-locals)
      P                                              P ; cf.br ^header(%begin)
    } epilogue {                                   ^header(%i: i32):
      E                                              %go = arith.cmpi slt, %i, %end
    }                                                cf.cond_br %go, ^body, ^epilogue
                                                   ^body:
                                                     B(%i) ; %n = arith.addi %i, 1
                                                     cf.br ^header(%n)
                                                   ^epilogue:
                                                     E ; llvm.return
                                                   }

A serial task is its body then `llvm.return`. A real function (`func.func`, a
ti.real_func called for real) becomes an internal `llvm.func` whose first parameter is
the RuntimeContext, and each `func.call` an `llvm.call` that passes the caller's own
context on (the first parameter of a task and of a real function alike):

    func.func private @k__fn0_f(%n: i32) -> i32 {     llvm.func internal @k__fn0_f(
      %ctx = offload.context : !llvm.ptr        ~>        %ctx: !llvm.ptr, %n: i32) -> i32 {
      %r = func.call @k__fn0_f(%m) : ...                %r = llvm.call @k__fn0_f(%ctx, %m)
      func.return %r : i32                              llvm.return %r : i32
    }                                                 }

A real function with several results (a vector's elements) returns them as one LLVM
struct (insertvalue), which each call takes apart (extractvalue).

Inside tasks (and real functions):
- `offload.context` is `%ctx`; `offload.thread_local_buffer` the task's stack buffer;
- loads that ti-lower-access marked `invariant` (context and argument words) move out of
  a range_for's loop, to run once per call;
- local slots (0-d `memref.alloca`) become `llvm.alloca`s at the function's entry, and
  so do adstacks (lowering/llvm_adstack.py);
- `offload.set_return N, %v` stores %v at byte 8*N of the returns buffer;
- `taichi.print` calls libc's `printf` (then `fflush(NULL)`, so that output keeps its
  order with the host's), with a format string global.
arith, math and cf ops are left to the conversions that follow.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, llvm, memref
from xdsl.dialects.arith import IntegerOverflowAttr, IntegerOverflowFlag
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolTable,
    UnitAttr,
    f64,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from taichi_xdsl.dialects import offload, taichi
from taichi_xdsl.lowering.llvm_adstack import AdStackToLLVM
from taichi_xdsl.lowering.lower_access import INVARIANT, scalar_bytes
from taichi_xdsl.lowering.pattern_dispatch import TypeDispatchApplier
from taichi_xdsl.utils import abi
from taichi_xdsl.utils.diagnostics import PassFailedAt
from taichi_xdsl.utils.print_format import PRINT_HOLE

PTR = llvm.LLVMPointerType()
TASK_TYPE = llvm.LLVMFunctionType([PTR, i32, i32])
PRINTF_TYPE = llvm.LLVMFunctionType([PTR], i32, is_variadic=True)
FFLUSH_TYPE = llvm.LLVMFunctionType([PTR], i32)


# ---------------------------------------------------------------------------------------
# Ops inside tasks
# ---------------------------------------------------------------------------------------


class SetReturnLowering(RewritePattern):
    """
    A kernel return value: a store into the returns buffer.

        offload.set_return 1, %v : f32
        ~> %returns = llvm.load (%ctx + 16) ; llvm.store %v, (%returns + 8)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: offload.SetReturnOp, rewriter: PatternRewriter):
        context = offload.ContextOp()
        word = llvm.GEPOp(context.result, [abi.CTX_RETURNS], i8)
        returns = llvm.LoadOp(word, PTR)
        returns.attributes[INVARIANT] = UnitAttr()
        returns.dereferenced_value.name_hint = "returns"
        new_ops: list[Operation] = [context, word, returns]
        slot = returns.dereferenced_value
        if offset := op.index.value.data * abi.RETURN_SLOT_BYTES:
            new_ops.append(gep := llvm.GEPOp(slot, [offset], i8))
            slot = gep.result
        new_ops.append(llvm.StoreOp(op.value, slot))
        for new_op in new_ops:
            new_op.location = op.location
        rewriter.replace(op, new_ops, [])


_FORMATS: dict[Attribute, str] = {
    IntegerType(1): "%d",
    IntegerType(8): "%d",
    IntegerType(16): "%d",
    i32: "%d",
    i64: "%lld",
}
"""printf conversions of the integer types (the IR is signless: printed as signed)."""


def _printf_argument(
    op: taichi.PrintOp, value: SSAValue, hole: tuple[str, str]
) -> tuple[str, list[Operation], SSAValue]:
    """The conversion of `value` (its hole's spec, else its type's default) and the ops
    that promote it as C varargs do."""
    t = value.type
    flags, conversion = hole
    if isinstance(t, AnyFloat):
        # Taichi prints f64 with 12 decimals by default
        spec = f"%{flags}{conversion}" if conversion else "%.12f" if t == f64 else "%f"
        if t == f64:
            return spec, [], value
        ext = llvm.FPExtOp(value, f64)
        return spec, [ext], ext.results[0]
    if t not in _FORMATS:
        raise PassFailedAt(op, f"convert-offload-to-llvm: cannot print a {t}")
    assert isinstance(t, IntegerType)
    spec = _FORMATS[t]
    if conversion:  # "%lld" -> "%<flags>ll<conversion>"
        spec = f"%{flags}{'ll' if t.width.data == 64 else ''}{conversion}"
    if t.width.data >= 32:
        return spec, [], value
    widen = llvm.ZExtOp(value, i32) if t.width.data == 1 else llvm.SExtOp(value, i32)
    return spec, [widen], widen.results[0]


class PrintLowering(RewritePattern):
    """
    `print` in a kernel: a call of libc's printf with a global format string, each
    `{}` a conversion of its value's type (`{:.2f}` its own, `{:d}` of an i64 `%lld`),
    `%` escaped, the op's `end` (a newline) at the end.

        taichi.print "x = {}" %v : f32
        ~> %fmt = llvm.mlir.addressof @k.str0 : !llvm.ptr
           %d = llvm.fpext %v : f32 to f64
           llvm.call @printf(%fmt, %d) vararg(!llvm.func<i32 (ptr, ...)>) : ...
           llvm.call @fflush(null)
    """

    def __init__(self):
        self.strings: dict[tuple[str, str], str] = {}

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: taichi.PrintOp, rewriter: PatternRewriter):
        kernel = _kernel_of(op)
        module = kernel.parent_op()
        assert isinstance(module, ModuleOp)
        new_ops: list[Operation] = []
        specs: list[str] = []
        args: list[SSAValue] = []
        holes = PRINT_HOLE.findall(op.format.data)
        for value, hole in zip(op.values, holes):
            spec, promote, arg = _printf_argument(op, value, hole)
            specs.append(spec)
            new_ops += promote
            args.append(arg)
        pieces = [
            piece.replace("%", "%%") for piece in PRINT_HOLE.split(op.format.data)[::3]
        ]
        end = op.end_text.replace("%", "%%")
        text = "".join(p + s for p, s in zip(pieces, [*specs, end])) + "\0"
        name = self._string(text, kernel, rewriter)
        for callee, callee_type in (("printf", PRINTF_TYPE), ("fflush", FFLUSH_TYPE)):
            if SymbolTable.lookup_symbol(module, callee) is None:
                declaration = llvm.FuncOp(callee, callee_type, llvm.LinkageAttr("external"))
                rewriter.insert(declaration, InsertPoint.at_start(module.body.block))
        fmt = llvm.AddressOfOp(name, PTR)
        call = llvm.CallOp(
            "printf", fmt, *args, return_type=i32, var_callee_type=PRINTF_TYPE
        )
        null = llvm.ZeroOp(result_types=[PTR])
        flush = llvm.CallOp("fflush", null, return_type=i32)
        new_ops = [fmt, *new_ops, call, null, flush]
        for new_op in new_ops:
            new_op.location = op.location
        rewriter.replace(op, new_ops, [])

    def _string(
        self, text: str, kernel: offload.KernelOp | func.FuncOp, rewriter: PatternRewriter
    ) -> str:
        key = (kernel.sym_name.data, text)
        if key not in self.strings:
            name = f"{kernel.sym_name.data}.str{sum(k[0] == key[0] for k in self.strings)}"
            self.strings[key] = name
            size = len(text.encode())
            string = llvm.GlobalOp(
                llvm.LLVMArrayType(size, i8),
                name,
                "internal",
                constant=True,
                value=StringAttr(text),
            )
            rewriter.insert(string, InsertPoint.before(kernel))
        return self.strings[key]


def _kernel_of(op: Operation) -> offload.KernelOp | func.FuncOp:
    """The kernel, or the real function, that holds `op`."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, offload.KernelOp | func.FuncOp):
        parent = parent.parent_op()
    if parent is None:
        raise PassFailedAt(op, f"convert-offload-to-llvm: '{op.name}' outside a kernel")
    return parent


# ---------------------------------------------------------------------------------------
# Tasks
# ---------------------------------------------------------------------------------------


def _splice(source: Region, into: Region, current: Block, args: list[SSAValue]) -> Block:
    """
    Move the code of a task region to the end of `current` (a block of `into`), its
    block arguments replaced by `args`; an `offload.cfg` brings its blocks along.
    Returns the block where control goes on after the code.
    """
    if not source.blocks:
        return current
    block = source.block
    for arg, value in zip(block.args, args, strict=True):
        arg.replace_all_uses_with(value)
    for op in list(block.ops):
        op.detach()
        current.add_op(op)
    cfg = current.last_op
    if not isinstance(cfg, offload.CfgOp):
        return current
    cfg.detach()
    blocks = list(cfg.body.blocks)
    for op in list(blocks[0].ops):
        op.detach()
        current.add_op(op)
    for inner in blocks[1:]:
        cfg.body.detach_block(inner)
        into.add_block(inner)
    cfg.erase()
    exits = [b for b in (current, *blocks[1:]) if isinstance(b.last_op, offload.CfgExitOp)]
    if len(exits) == 1:
        exits[0].erase_op(exits[0].last_op)
        return exits[0]
    join = Block()  # several exits (or none: the code never ends) meet after the graph
    into.add_block(join)
    for exit_block in exits:
        exit_block.erase_op(exit_block.last_op)
        exit_block.add_op(cf.BranchOp(join))
    return join


_SPECULATABLE = (
    offload.ContextOp,
    offload.ThreadLocalBufferOp,
    llvm.GEPOp,
    arith.ConstantOp,
    llvm.ConstantOp,
)


def _hoist_invariants(header: Block, body: Block, to: Block) -> None:
    """
    Move the launch-invariant ops of a loop's first body block (the context and
    argument reads of ti-lower-access, buffer starts, constants) to the end of `to`,
    before the loop.
    """
    loop = (header, body)
    for op in list(body.ops):
        invariant = isinstance(op, _SPECULATABLE) or (
            isinstance(op, llvm.LoadOp) and INVARIANT in op.attributes
        )
        if not invariant or any(
            v.block in loop
            if isinstance(v, BlockArgument)
            else v.owner.parent_block() in loop
            for v in op.operands
        ):
            continue
        op.detach()
        to.add_op(op)


def _range_for_function(task: offload.RangeForTask, entry: Block, region: Region) -> Block:
    """The loop of a range_for task, after its prologue; returns the epilogue's end."""
    if task.lower.type != i32:
        raise PassFailedAt(
            task,
            f"convert-offload-to-llvm: a range_for over {task.lower.type}; the CPU "
            "task ABI passes i32 bounds",
        )
    _, begin, end = entry.args
    before_loop = _splice(task.prologue, region, entry, [])
    header, body = Block(arg_types=[i32]), Block()
    index = header.args[0]
    index.name_hint = task.index.name_hint
    region.add_block(header)
    region.add_block(body)
    body_end = _splice(task.body, region, body, [index])
    _hoist_invariants(header, body, before_loop)
    epilogue = Block()
    region.add_block(epilogue)
    after = _splice(task.epilogue, region, epilogue, [])
    go = arith.CmpiOp(index, end, "slt")
    one = arith.ConstantOp(IntegerAttr(1, i32))
    nsw = IntegerOverflowAttr([IntegerOverflowFlag.NSW])
    step = arith.AddiOp(index, one, overflow=nsw)
    before_loop.add_op(cf.BranchOp(header, begin))
    header.add_ops([go, cf.ConditionalBranchOp(go, body, (), epilogue, ())])
    body_end.add_ops([one, step, cf.BranchOp(header, step)])
    return after


def _task_function(symbol: str, task: offload.TaskOp) -> llvm.FuncOp:
    entry = Block(arg_types=[PTR, i32, i32])
    ctx = entry.args[0]
    for arg, name in zip(entry.args, ("ctx", "begin", "end")):
        arg.name_hint = name
    region = Region(entry)
    tls = _thread_local_buffer(task, entry)
    match task:
        case offload.SerialTask():
            last = _splice(task.body, region, entry, [])
        case offload.RangeForTask():
            last = _range_for_function(task, entry, region)
        case _:
            raise PassFailedAt(
                task,
                f"convert-offload-to-llvm: '{task.name}' needs "
                "ti-demote-dense-struct-for first",
            )
    last.add_op(llvm.ReturnOp())
    for op in list(region.walk()):
        if isinstance(op, offload.ContextOp):
            op.result.replace_all_uses_with(ctx)
            op.detach()
            op.erase()
        elif isinstance(op, offload.ThreadLocalBufferOp):
            assert tls is not None
            op.result.replace_all_uses_with(tls)
            op.detach()
            op.erase()
    return llvm.FuncOp(
        symbol,
        TASK_TYPE,
        linkage=llvm.LinkageAttr("external"),
        body=region,
    )


def _thread_local_buffer(task: offload.TaskOp, entry: Block) -> SSAValue | None:
    """The task's thread-local buffer, allocated at the entry, if it has one."""
    sizes = [
        op.size.value.data
        for op in task.walk()
        if isinstance(op, offload.ThreadLocalBufferOp)
    ]
    if not sizes:
        return None
    size = llvm.ConstantOp(IntegerAttr(max(sizes), i64), i64)
    buffer = llvm.AllocaOp(size, i8, alignment=16)
    buffer.res.name_hint = "tls"
    entry.add_ops([size, buffer])
    return buffer.res


def _kernel_functions(kernel: offload.KernelOp) -> list[llvm.FuncOp]:
    """
    One llvm.func per task of `kernel`, in order (see the module docstring); the serial
    form of task N (ti-add-serial-forms) is `@k__taskN_serial`, and takes no number.
    """
    name = kernel.sym_name.data
    functions: list[llvm.FuncOp] = []
    index = -1
    for task in kernel.tasks:
        if isinstance(task, offload.RangeForTask) and task.serial_form is not None:
            symbol = abi.serial_form_symbol(name, index)
        else:
            index += 1
            symbol = abi.task_symbol(name, index)
        functions.append(_task_function(symbol, task))
    for function in functions:
        _check_lowered(function)
    return functions


def _check_lowered(function: llvm.FuncOp) -> None:
    for inner in function.walk():
        if inner.dialect_name() in ("taichi", "offload") and not isinstance(
            inner, taichi.ADSTACK_OPS
        ):
            raise PassFailedAt(
                inner,
                f"convert-offload-to-llvm: '{inner.name}' left in a task; run "
                "ti-lower-access and convert-taichi-to-cf first",
            )


def _real_function(function: func.FuncOp) -> llvm.FuncOp:
    """
    A real function (`func.func`, a ti.real_func) -> an `llvm.func` whose first
    parameter is the RuntimeContext of the calling task (what `offload.context` is in
    its body), internal to the module; `func.return` -> `llvm.return`.
    """
    if not function.body.blocks:
        raise PassFailedAt(function, "convert-offload-to-llvm: a real function without body")
    ctx = function.body.blocks[0].insert_arg(PTR, 0)
    ctx.name_hint = "ctx"
    outputs = function.function_type.outputs.data
    for op in list(function.body.walk()):
        if isinstance(op, offload.ContextOp):
            op.result.replace_all_uses_with(ctx)
            op.detach()
            op.erase()
        elif isinstance(op, func.ReturnOp):
            Rewriter.replace_op(op, _packed_return(op))
    signature = llvm.LLVMFunctionType(
        [PTR, *function.function_type.inputs.data], _packed_type(outputs)
    )
    region = Region()
    function.body.move_blocks(region)
    new = llvm.FuncOp(
        function.sym_name.data,
        signature,
        linkage=llvm.LinkageAttr("internal"),
        body=region,
    )
    new.location = function.location  # pyright: ignore[reportAttributeAccessIssue]
    _check_lowered(new)
    return new


def _packed_type(outputs: Sequence[Attribute]) -> Attribute | None:
    """The LLVM return type of a function with these results: none, the one, or a
    struct of them (a ti.real_func returning a vector returns its elements)."""
    if len(outputs) <= 1:
        return outputs[0] if outputs else None
    return llvm.LLVMStructType.from_type_list(list(outputs))


def _packed_return(op: func.ReturnOp) -> list[Operation]:
    """`func.return %a, %b` -> the struct {a, b} built by insertvalue, returned."""
    values = list(op.arguments)
    if len(values) <= 1:
        return [llvm.ReturnOp(*values)]
    struct_type = _packed_type([v.type for v in values])
    assert struct_type is not None
    ops: list[Operation] = [llvm.UndefOp(struct_type)]
    for index, value in enumerate(values):
        ops.append(
            llvm.InsertValueOp(
                DenseArrayBase.from_list(i64, [index]), ops[-1].results[0], value
            )
        )
    return [*ops, llvm.ReturnOp(ops[-1].results[0])]


def _lower_calls(module: ModuleOp) -> None:
    """`func.call @f(args)` -> `llvm.call @f(%ctx, args)`: the calling function's own
    context (its first parameter, in tasks and real functions alike) goes on."""
    for op in list(module.walk()):
        if not isinstance(op, func.CallOp):
            continue
        function = op.parent_op()
        while function is not None and not isinstance(function, llvm.FuncOp):
            function = function.parent_op()
        if function is None:
            raise PassFailedAt(op, "convert-offload-to-llvm: a call outside a function")
        ctx = function.body.blocks[0].args[0]
        result = _packed_type(list(op.res.types))
        call = llvm.CallOp(op.callee, ctx, *op.arguments, return_type=result)
        call.location = op.location  # pyright: ignore[reportAttributeAccessIssue]
        unpack: list[Operation] = []
        if len(op.res) > 1:  # the elements out of the returned struct
            unpack = [
                llvm.ExtractValueOp(
                    DenseArrayBase.from_list(i64, [index]), call.returned, r.type
                )
                for index, r in enumerate(op.res)
            ]
        results = [u.results[0] for u in unpack] if unpack else call.results
        Rewriter.replace_op(op, [call, *unpack], results)


class LocalSlotLowering(RewritePattern):
    """
    A local variable's slot: an `llvm.alloca` at the function's entry (once per call,
    even when declared in a loop), its loads and stores LLVM's.

        %s = memref.alloca() : memref<f32> ; memref.store %v, %s[]
        ~> (entry) %s = llvm.alloca %one x f32 : (i64) -> !llvm.ptr ; llvm.store %v, %s
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter):
        function = op.parent_op()
        while function is not None and not isinstance(function, llvm.FuncOp):
            function = function.parent_op()
        if function is None or op.memref.type.get_num_dims() != 0:
            return
        element = op.memref.type.element_type
        one = llvm.ConstantOp(IntegerAttr(1, i64), i64)
        slot = llvm.AllocaOp(one, element, alignment=scalar_bytes(element))
        entry = function.body.blocks[0]
        rewriter.insert([one, slot], InsertPoint.at_start(entry))
        for use in list(op.memref.uses):
            match use.operation:
                case memref.LoadOp() as load:
                    rewriter.replace(load, llvm.LoadOp(slot.res, element))
                case memref.StoreOp() as store if use.index == 1:
                    rewriter.replace(store, llvm.StoreOp(store.value, slot.res))
                case other:
                    raise PassFailedAt(
                        other,
                        f"convert-offload-to-llvm: '{other.name}' of a local slot; "
                        "expected memref.load or memref.store",
                    )
        rewriter.replace(op, [], [slot.res])


class ConvertOffloadToLLVMPass(ModulePass):
    """Turn each offload task into an LLVM function of the CPU task ABI."""

    name = "convert-offload-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            TypeDispatchApplier(
                [SetReturnLowering(), PrintLowering()], dce_enabled=False
            )
        ).rewrite_module(op)
        # Tasks move out of their kernel whole: a plain loop, not a walker over their ops.
        for top in list(op.ops):
            if isinstance(top, offload.KernelOp):
                Rewriter.replace_op(top, _kernel_functions(top), [])
            elif isinstance(top, func.FuncOp):
                Rewriter.replace_op(top, _real_function(top), [])
            elif isinstance(top, taichi.FieldOp):  # its uses are offsets now
                Rewriter.erase_op(top)
        _lower_calls(op)
        PatternRewriteWalker(
            TypeDispatchApplier([LocalSlotLowering(), AdStackToLLVM()])
        ).rewrite_module(op)
