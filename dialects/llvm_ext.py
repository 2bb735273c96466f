"""
The `llvm_ext` dialect: LLVM instructions that xDSL's `llvm` dialect lacks.

Each op mirrors the MLIR LLVM dialect op of the same mnemonic (`llvm.fptosi`,
`llvm.atomicrmw`, ...) and is translated to the LLVM instruction of that name by
targets/llvm/translate.py. Intrinsics are not modelled here: they are
`llvm.call_intrinsic "llvm.<name>.<type>"(...)`, and libm functions are `llvm.call`s to
an `llvm.func` declaration.

    %i = llvm_ext.fptosi %x : f32 to i32
    %old = llvm_ext.atomicrmw fadd %p, %x monotonic : !llvm.ptr, f32
    %pair = llvm_ext.cmpxchg %p, %expected, %new seq_cst seq_cst : !llvm.ptr, i32
    llvm_ext.fence seq_cst
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from taichi_xdsl.dialects.deferred_format import irdl_op_definition
from xdsl.dialects.builtin import (
    AnyFloat,
    AnyFloatConstr,
    IntegerType,
    SignlessIntegerConstraint,
    StringAttr,
    VectorType,
    i1,
)
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrConstraint,
    InferenceContext,
    IntConstraint,
    IRDLOperation,
    VarConstraint,
    VerificationContext,
    irdl_attr_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

# ---------------------------------------------------------------------------------------
# Attributes
# ---------------------------------------------------------------------------------------


class AtomicBinOp(StrEnum):
    """The operation of an `atomicrmw`, as LLVM spells it."""

    XCHG = "xchg"
    ADD = "add"
    SUB = "sub"
    AND = "and"
    NAND = "nand"
    OR = "or"
    XOR = "xor"
    MAX = "max"
    MIN = "min"
    UMAX = "umax"
    UMIN = "umin"
    FADD = "fadd"
    FSUB = "fsub"
    FMAX = "fmax"
    FMIN = "fmin"


INTEGER_ATOMIC_BIN_OPS = frozenset(
    {
        AtomicBinOp.ADD,
        AtomicBinOp.SUB,
        AtomicBinOp.AND,
        AtomicBinOp.NAND,
        AtomicBinOp.OR,
        AtomicBinOp.XOR,
        AtomicBinOp.MAX,
        AtomicBinOp.MIN,
        AtomicBinOp.UMAX,
        AtomicBinOp.UMIN,
    }
)
FLOAT_ATOMIC_BIN_OPS = frozenset(
    {AtomicBinOp.FADD, AtomicBinOp.FSUB, AtomicBinOp.FMAX, AtomicBinOp.FMIN}
)


@irdl_attr_definition
class AtomicBinOpAttr(EnumAttribute[AtomicBinOp], SpacedOpaqueSyntaxAttribute):
    """An `atomicrmw` operation; printed bare inside ops (`add`, `fadd`, ...)."""

    name = "llvm_ext.atomic_bin_op"


class AtomicOrdering(StrEnum):
    """LLVM's atomic orderings (LangRef "Atomic Memory Ordering Constraints")."""

    UNORDERED = "unordered"
    MONOTONIC = "monotonic"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"
    SEQ_CST = "seq_cst"


@irdl_attr_definition
class AtomicOrderingAttr(EnumAttribute[AtomicOrdering], SpacedOpaqueSyntaxAttribute):
    """An atomic ordering; printed bare inside ops (`monotonic`, `seq_cst`, ...)."""

    name = "llvm_ext.atomic_ordering"


def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _shape(t: Attribute) -> tuple[int, ...]:
    return t.get_shape() if isinstance(t, VectorType) else ()


# ---------------------------------------------------------------------------------------
# Conversions between floats and integers
# ---------------------------------------------------------------------------------------


_FLOAT_LIKE = AnyFloatConstr | VectorType.constr(AnyFloatConstr)
_INT_LIKE = SignlessIntegerConstraint | VectorType.constr(SignlessIntegerConstraint)


class _ConversionOp(IRDLOperation, ABC):
    """A value conversion `arg : A to R` between scalars or vectors of the same length."""

    arg = operand_def(_FLOAT_LIKE | _INT_LIKE)
    res = result_def(_FLOAT_LIKE | _INT_LIKE)

    traits = traits_def(NoMemoryEffect())

    assembly_format = "$arg attr-dict `:` type($arg) `to` type($res)"

    FROM_FLOAT: ClassVar[bool]
    """True for float -> integer, False for integer -> float."""

    def __init__(self, arg: SSAValue | Operation, res_type: Attribute):
        super().__init__(operands=[arg], result_types=[res_type])

    def verify_(self) -> None:
        arg_type, res_type = self.arg.type, self.res.type
        floats_in = isinstance(_element(arg_type), AnyFloat)
        floats_out = isinstance(_element(res_type), AnyFloat)
        if (floats_in, floats_out) != (self.FROM_FLOAT, not self.FROM_FLOAT):
            kinds = "a float to an integer" if self.FROM_FLOAT else "an integer to a float"
            raise VerifyException(
                f"'{self.name}' converts {kinds}, got {arg_type} to {res_type}"
            )
        if _shape(self.arg.type) != _shape(self.res.type):
            raise VerifyException(
                f"'{self.name}' expects operand and result of the same shape, got "
                f"{self.arg.type} to {self.res.type}"
            )


@irdl_op_definition
class FPToSIOp(_ConversionOp):
    """
    Float to signed integer, rounding toward zero (LLVM `fptosi`); poison when the
    value does not fit.

    Example: `%i = llvm_ext.fptosi %x : f32 to i32`
    """

    name = "llvm_ext.fptosi"
    FROM_FLOAT: ClassVar[bool] = True


@irdl_op_definition
class FPToUIOp(_ConversionOp):
    """
    Float to unsigned integer, rounding toward zero (LLVM `fptoui`).

    Example: `%u = llvm_ext.fptoui %x : f64 to i64`
    """

    name = "llvm_ext.fptoui"
    FROM_FLOAT: ClassVar[bool] = True


@irdl_op_definition
class UIToFPOp(_ConversionOp):
    """
    Unsigned integer to float (LLVM `uitofp`); xDSL's llvm dialect has only `sitofp`.

    Example: `%f = llvm_ext.uitofp %u : i32 to f32`
    """

    name = "llvm_ext.uitofp"
    FROM_FLOAT: ClassVar[bool] = False


# ---------------------------------------------------------------------------------------
# Atomics
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """
    Atomically read `*ptr`, combine it with `val` by `bin_op`, write the result back;
    return the old value (LLVM `atomicrmw`). Integer operations take integers, `f*`
    operations floats, `xchg` either (or a pointer).

    Models `ti.atomic_add(x, v)` and `x += v` on global data in a parallel loop.

    Example: `%old = llvm_ext.atomicrmw add %p, %v monotonic : !llvm.ptr, i32`
    """

    name = "llvm_ext.atomicrmw"

    T: ClassVar = VarConstraint("T", AnyAttr())

    ptr = operand_def(LLVMPointerType)
    val = operand_def(T)
    res = result_def(T)
    bin_op = prop_def(AtomicBinOpAttr)
    ordering = prop_def(AtomicOrderingAttr)

    assembly_format = (
        "$bin_op $ptr `,` $val $ordering attr-dict `:` type($ptr) `,` type($val)"
    )

    def __init__(
        self,
        bin_op: AtomicBinOp | AtomicBinOpAttr,
        ptr: SSAValue | Operation,
        val: SSAValue | Operation,
        ordering: AtomicOrdering | AtomicOrderingAttr = AtomicOrdering.MONOTONIC,
    ):
        if not isinstance(bin_op, AtomicBinOpAttr):
            bin_op = AtomicBinOpAttr(bin_op)
        if not isinstance(ordering, AtomicOrderingAttr):
            ordering = AtomicOrderingAttr(ordering)
        super().__init__(
            operands=[ptr, val],
            result_types=[SSAValue.get(val).type],
            properties={"bin_op": bin_op, "ordering": ordering},
        )

    def verify_(self) -> None:
        bin_op, t = self.bin_op.data, self.val.type
        if bin_op in INTEGER_ATOMIC_BIN_OPS and not isinstance(t, IntegerType):
            raise VerifyException(f"'{self.name}' {bin_op} expects an integer, got {t}")
        if bin_op in FLOAT_ATOMIC_BIN_OPS and not isinstance(t, AnyFloat):
            raise VerifyException(f"'{self.name}' {bin_op} expects a float, got {t}")
        if bin_op == AtomicBinOp.XCHG and not isinstance(
            t, IntegerType | AnyFloat | LLVMPointerType
        ):
            raise VerifyException(
                f"'{self.name}' xchg expects an integer, float or pointer, got {t}"
            )
        if self.ordering.data == AtomicOrdering.UNORDERED:
            raise VerifyException(f"'{self.name}' cannot be unordered")


@dataclass(frozen=True)
class _CmpXchgResultConstraint(AttrConstraint[LLVMStructType]):
    """`!llvm.struct<(T, i1)>` for the operand type T: the old value and the success flag."""

    value_constr: VarConstraint

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        value_type = constraint_context.get_variable(self.value_constr.name)
        if (
            not isinstance(attr, LLVMStructType)
            or len(attr.types) != 2
            or attr.types.data[1] != i1
            or (value_type is not None and attr.types.data[0] != value_type)
        ):
            raise VerifyException(
                f"expected !llvm.struct<(T, i1)> of the operand type T, got {attr}"
            )

    def can_infer(self, var_constraint_names: AbstractSet[str]) -> bool:
        return self.value_constr.name in var_constraint_names

    def infer(self, context: InferenceContext) -> LLVMStructType:
        value_type = context.get_variable(self.value_constr.name)
        assert value_type is not None
        return LLVMStructType.from_type_list([value_type, i1])

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> AttrConstraint[LLVMStructType]:
        return self


@irdl_op_definition
class CmpXchgOp(IRDLOperation):
    """
    Atomically compare `*ptr` with `cmp` and, if equal, store `val`; return the old value
    and whether the store happened (LLVM `cmpxchg`). The failure ordering may be neither
    `release` nor `acq_rel`.

    Used for atomics that LLVM has no `atomicrmw` for (e.g. a float multiply loop).

    Example:
    `%pair = llvm_ext.cmpxchg %p, %expected, %new seq_cst monotonic : !llvm.ptr, i32`
    (`%pair : !llvm.struct<(i32, i1)>`, read with `llvm.extractvalue %pair[0]`)
    """

    name = "llvm_ext.cmpxchg"

    T: ClassVar = VarConstraint("T", AnyAttr())

    ptr = operand_def(LLVMPointerType)
    cmp = operand_def(T)
    val = operand_def(T)
    res = result_def(_CmpXchgResultConstraint(T))
    success_ordering = prop_def(AtomicOrderingAttr)
    failure_ordering = prop_def(AtomicOrderingAttr)

    assembly_format = (
        "$ptr `,` $cmp `,` $val $success_ordering $failure_ordering attr-dict"
        " `:` type($ptr) `,` type($val)"
    )

    def __init__(
        self,
        ptr: SSAValue | Operation,
        cmp: SSAValue | Operation,
        val: SSAValue | Operation,
        success_ordering: AtomicOrdering = AtomicOrdering.SEQ_CST,
        failure_ordering: AtomicOrdering = AtomicOrdering.SEQ_CST,
    ):
        value_type = SSAValue.get(val).type
        super().__init__(
            operands=[ptr, cmp, val],
            result_types=[LLVMStructType.from_type_list([value_type, i1])],
            properties={
                "success_ordering": AtomicOrderingAttr(success_ordering),
                "failure_ordering": AtomicOrderingAttr(failure_ordering),
            },
        )

    def verify_(self) -> None:
        if not isinstance(self.val.type, IntegerType | LLVMPointerType):
            raise VerifyException(
                f"'{self.name}' expects an integer or a pointer, got {self.val.type}"
            )
        success, failure = self.success_ordering.data, self.failure_ordering.data
        if AtomicOrdering.UNORDERED in (success, failure):
            raise VerifyException(f"'{self.name}' orderings must be at least monotonic")
        if failure in (AtomicOrdering.RELEASE, AtomicOrdering.ACQ_REL):
            raise VerifyException(
                f"'{self.name}' failure ordering cannot be release or acq_rel, got {failure}"
            )


_FENCE_ORDERINGS = frozenset(
    {
        AtomicOrdering.ACQUIRE,
        AtomicOrdering.RELEASE,
        AtomicOrdering.ACQ_REL,
        AtomicOrdering.SEQ_CST,
    }
)


@irdl_op_definition
class FenceOp(IRDLOperation):
    """
    A memory fence (LLVM `fence`), optionally limited to a synchronisation scope.

    Example: `llvm_ext.fence seq_cst` or `llvm_ext.fence syncscope("singlethread") acquire`
    """

    name = "llvm_ext.fence"

    ordering = prop_def(AtomicOrderingAttr)
    syncscope = opt_prop_def(StringAttr)

    assembly_format = "(`syncscope` `(` $syncscope^ `)`)? $ordering attr-dict"

    def verify_(self) -> None:
        if self.ordering.data not in _FENCE_ORDERINGS:
            raise VerifyException(
                f"'{self.name}' expects acquire, release, acq_rel or seq_cst, got "
                f"{self.ordering.data}"
            )


LLVMExt = Dialect(
    "llvm_ext",
    [
        FPToSIOp,
        FPToUIOp,
        UIToFPOp,
        AtomicRMWOp,
        CmpXchgOp,
        FenceOp,
    ],
    [
        AtomicBinOpAttr,
        AtomicOrderingAttr,
    ],
)
