"""
What the convert-*-to-llvm passes share: the type conversion (index is i64), casts at the
boundary with ops not yet converted, fast-math flags, and function declarations.

Like MLIR's dialect conversion, a pass converts the ops it knows and leaves the rest; where
a converted op meets an unconverted one, the values cross an
`builtin.unrealized_conversion_cast` (`index` <-> `i64`). Converting the other side later
takes the i64 from under the cast, and `reconcile-unrealized-casts` removes the pairs that
remain:

    %i = arith.index_cast %x : i32 to index
    %j = arith.addi %i, %i : index
    ~> convert-arith-to-llvm
    %0 = llvm.sext %x : i32 to i64
    %1 = llvm.add %0, %0 : i64
    %j = builtin.unrealized_conversion_cast %1 : i64 to index      (for unconverted users)
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    ModuleOp,
    UnrealizedConversionCastOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

def to_llvm_type(t: Attribute) -> Attribute:
    """`index` (or a vector of it) as an LLVM type: i64; any other type unchanged."""
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, VectorType) and isinstance(t.element_type, IndexType):
        return VectorType(i64, t.get_shape())
    return t


def llvm_value(rewriter: PatternRewriter, value: SSAValue, before: Operation) -> SSAValue:
    """
    `value` with an LLVM type: itself, the i64 under a cast `i64 to index`, or a new cast
    `index to i64` inserted before `before`.
    """
    target = to_llvm_type(value.type)
    if target == value.type:
        return value
    owner = value.owner
    if (
        isinstance(owner, UnrealizedConversionCastOp)
        and len(owner.inputs) == 1
        and owner.inputs[0].type == target
    ):
        return owner.inputs[0]
    cast = UnrealizedConversionCastOp.get([value], [target])
    cast.location = before.location
    rewriter.insert(cast, InsertPoint.before(before))
    return cast.results[0]


def llvm_operands(rewriter: PatternRewriter, op: Operation) -> list[SSAValue]:
    """The operands of `op` with LLVM types (see `llvm_value`)."""
    return [llvm_value(rewriter, operand, op) for operand in op.operands]


def replace_with_llvm(
    rewriter: PatternRewriter,
    op: Operation,
    new_ops: Sequence[Operation],
    new_results: Sequence[SSAValue],
) -> None:
    """
    Replace `op` by `new_ops`, its results by `new_results`; a result whose type changed
    (index -> i64) is cast back for the users not converted yet. The new ops take `op`'s
    location.
    """
    ops = list(new_ops)
    results: list[SSAValue] = []
    for old, new in zip(op.results, new_results, strict=True):
        if old.type != new.type:
            cast = UnrealizedConversionCastOp.get([new], [old.type])
            ops.append(cast)
            new = cast.results[0]
        results.append(new)
    for new_op in ops:
        new_op.location = op.location
    rewriter.replace(op, ops, results)


def convert_block_args(rewriter: PatternRewriter, block: Block, near: Operation) -> None:
    """
    Give the arguments of `block` LLVM types; their users not converted yet read them
    through a cast back to the old type, inserted at the start of the block with the
    location of `near` (the op that needs the conversion).
    """
    for arg in list(block.args):
        target = to_llvm_type(arg.type)
        if target == arg.type:
            continue
        old_type = arg.type
        new_arg = rewriter.replace_value_with_new_type(arg, target)
        cast = UnrealizedConversionCastOp.get([new_arg], [old_type])
        cast.location = near.location
        rewriter.insert(cast, InsertPoint.at_start(block))
        rewriter.replace_uses_with_if(
            new_arg, cast.results[0], lambda use, cast=cast: use.operation is not cast
        )


def fastmath(flags: arith.FastMathFlagsAttr) -> llvm.FastMathAttr:
    """arith/math fast-math flags as LLVM fast-math flags (the same set)."""
    return llvm.FastMathAttr(flags.data)


def op_fastmath(op: Operation) -> llvm.FastMathAttr:
    """
    The fast-math flags of an arith/math op as LLVM's. Some xDSL builders (`NegfOp`,
    `FmaOp`) put them in the attribute dictionary rather than the property: both count.
    """
    flags = op.properties.get("fastmath")
    if not isinstance(flags, arith.FastMathFlagsAttr) or not flags.data:
        flags = op.attributes.get("fastmath", flags)
    if not isinstance(flags, arith.FastMathFlagsAttr):
        return llvm.FastMathAttr(None)
    return fastmath(flags)


def overflow(flags: arith.IntegerOverflowAttr) -> llvm.OverflowAttr:
    """arith overflow flags (nsw, nuw) as LLVM's."""
    return llvm.OverflowAttr([llvm.OverflowFlag(flag.value) for flag in flags.data])


def intrinsic_suffix(t: Attribute) -> str:
    """The overload suffix of an LLVM intrinsic for type `t`: `f32`, `i64`, `v4f32`."""
    if isinstance(t, VectorType):
        shape = t.get_shape()
        return f"v{shape[0]}{intrinsic_suffix(t.element_type)}"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    return str(t)


def declare_function(
    rewriter: PatternRewriter,
    near: Operation,
    name: str,
    function_type: llvm.LLVMFunctionType,
) -> None:
    """
    Declare the external function `@name` (a libm or libc symbol) in the module holding
    `near`, unless a symbol of that name exists.
    """
    module = near.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None or SymbolTable.lookup_symbol(module, name):
        return
    declaration = llvm.FuncOp(name, function_type, linkage=llvm.LinkageAttr("external"))
    rewriter.insert(declaration, InsertPoint.at_end(module.body.block))
