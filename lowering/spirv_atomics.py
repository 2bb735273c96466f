"""
Atomics of convert-offload-to-spirv: `taichi.atomic_*` -> SPIR-V atomics on
storage-buffer places (`spirv.EXT.AtomicFAdd` when the caps have it), compare-and-swap
loops on the bit pattern for the updates SPIR-V lacks (float sub/min/max, multiply),
and a plain load, combine, store on thread-local Function variables.
"""

from __future__ import annotations

from taichi_xdsl.dialects import spirv, taichi
from taichi_xdsl.lowering.spirv_common import (
    SPANNING,
    Place,
    TaskPattern,
    fail,
    int_const,
    int_of_width,
)
from taichi_xdsl.lowering.spirv_debug import guarded
from xdsl.dialects.builtin import (
    AnyFloat,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

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
    taichi.AtomicMulOp: spirv.FMulOp,
    taichi.AtomicMinOp: spirv.FMinOp,
    taichi.AtomicMaxOp: spirv.FMaxOp,
}
_INT_COMBINE: dict[type[taichi.AtomicOp], type[Operation]] = {
    taichi.AtomicAddOp: spirv.IAddOp,
    taichi.AtomicSubOp: spirv.ISubOp,
    taichi.AtomicMulOp: spirv.IMulOp,
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


def combine_op(
    kind: type[taichi.AtomicOp], old: SSAValue, value: SSAValue, unsigned: bool
) -> Operation:
    if isinstance(value.type, AnyFloat):
        return _FLOAT_COMBINE[kind](old, value)  # type: ignore[call-arg]
    if unsigned and kind in _UNSIGNED_ATOMICS:
        return (spirv.UMinOp if kind is taichi.AtomicMinOp else spirv.UMaxOp)(old, value)
    return _INT_COMBINE[kind](old, value)  # type: ignore[call-arg]


class AtomicLowering(TaskPattern):
    """
    `taichi.atomic_*` on a storage-buffer place -> a SPIR-V atomic; a float add is
    `spirv.EXT.AtomicFAdd` when the caps have it, else (and for float sub/min/max) a
    compare-and-swap loop on the bit pattern (so is a multiply, which SPIR-V has no
    atomic for); on a Function variable (a thread-local
    slot) a plain load, combine, store. The result is the value before the update.

        %old = taichi.atomic_add %p, %v : memref<i32>
        ~> %old = spirv.AtomicIAdd <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    """

    op_types = (taichi.AtomicCasOp, taichi.AtomicOp)
    """What it converts (lowering/pattern_dispatch.py)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, taichi.AtomicCasOp) and isinstance(op.dest.type, spirv.PointerType):
            if op.new.type == i64:
                self._require(op, "spirv_has_atomic_int64", "Int64Atomics")
            swap = spirv.AtomicCompareExchangeOp(op.dest, op.new, op.expected)
            ops: list[Operation] = []
            value = guarded(self.state, op.dest, [swap], swap.results[0], ops)
            rewriter.replace(op, ops, [value])
            return
        if not isinstance(op, taichi.AtomicOp):
            return
        if not isinstance(op.dest.type, spirv.PointerType):
            return
        access, result = self._atomic(op)
        ops: list[Operation] = []
        value = guarded(self.state, op.dest, access, result, ops)
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
            new = combine_op(kind, old.results[0], value, unsigned)
            ops += [old, new, spirv.StoreOp(ptr, new.results[0])]
            return ops, old.results[0]
        if ptr.type.storage_class.data == "Workgroup":  # a ti.simt.block.SharedArray
            t = value.type
            if kind not in _INT_ATOMICS:
                raise fail(
                    op,
                    f"'{op.name}' on a SharedArray is not supported by taichi-xdsl yet",
                )
            if not (isinstance(t, IntegerType) and t.width.data == 32):
                raise fail(
                    op,
                    f"atomics on a SharedArray of {t} are not supported by taichi-xdsl "
                    "yet (32-bit integers are)",
                )
            atomic_kind = (
                _UNSIGNED_ATOMICS[kind]
                if unsigned and kind in _UNSIGNED_ATOMICS
                else _INT_ATOMICS[kind]
            )
            atomic = atomic_kind(ptr, value, "Workgroup")
            return [atomic], atomic.results[0]
        place = self.state.places.get(ptr)
        if place is None or place.is_bool:
            raise fail(op, "atomic on a place that has no SPIR-V lowering")
        t = value.type
        if isinstance(t, IntegerType) and kind not in _INT_ATOMICS:
            return ops, self._cas_loop(op, place, kind, value, ops)  # no OpAtomicIMul
        if isinstance(t, IntegerType):
            if t.width.data == 64:
                self._require(op, "spirv_has_atomic_int64", "Int64Atomics")
            elif t.width.data != 32:
                raise fail(op, f"atomics on {t} have no SPIR-V lowering")
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
            raise fail(op, f"'{op.name}' on 64-bit integers needs the {cap} cap")
        self.state.capabilities.add(capability)

    def _cas_loop(
        self,
        op: taichi.AtomicOp,
        place: Place,
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
          (an integer, as a multiply of integers, needs no Bitcast)
          spirv.BranchConditional (%seen == %expected), ^merge, ^continue
        ^continue: spirv.Branch ^cas(%seen)
        ^merge: spirv.mlir.merge
        }
        %old = spirv.Load %result
        """
        t = value.type
        bits_type = int_of_width(t)
        if bits_type.width.data == 64:
            self._require(op, "spirv_has_atomic_int64", "Int64Atomics")
        elif bits_type.width.data != 32:
            raise fail(op, f"'{op.name}' on {t} has no SPIR-V lowering")
        if place.binding == SPANNING:  # a pool array over several root segments
            bits = self.state.spanning_element_ptr(place.bindings, bits_type, place.index, ops)
        else:
            zero = int_const(0)
            chain = spirv.AccessChainOp(
                self.state.view(place.binding, bits_type), [zero, place.index]
            )
            ops += [zero, chain]
            bits = chain.results[0]
        seen0 = spirv.LoadOp(bits)
        result = spirv.VariableOp(spirv.PointerType(t, "Function"))
        self.state.at_entry([result])
        header = Block(arg_types=[bits_type])
        expected = header.args[0]
        body: list[Operation] = []
        old = expected
        if t != bits_type:  # a float: combine its value, swap its bit pattern
            body.append(to_value := spirv.BitcastOp(expected, t))
            old = to_value.results[0]
        body += [spirv.StoreOp(result, old), new := combine_op(kind, old, value, False)]
        desired = new.results[0]
        if t != bits_type:
            body.append(to_bits := spirv.BitcastOp(desired, bits_type))
            desired = to_bits.results[0]
        seen = spirv.AtomicCompareExchangeOp(bits, desired, expected)
        done = spirv.IEqualOp(seen, expected)
        entry, cont, merge = Block(), Block(), Block([spirv.MergeOp()])
        entry.add_op(spirv.BranchOp(header, seen0))
        cont.add_op(spirv.BranchOp(header, seen))
        header.add_ops([*body, seen, done, spirv.BranchConditionalOp(done, merge, cont)])
        loop = spirv.LoopOp(Region([entry, header, cont, merge]))
        loaded = spirv.LoadOp(result)
        ops += [seen0, loop, loaded]
        return loaded.results[0]
