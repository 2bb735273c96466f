"""
Fields of quantized types (lang/quant.py): `ti.BitpackedFields` and `SNode.quant_array`.

Layout: each cell of the SNode a `BitpackedFields` is placed in is one word of the
root, a u32 (a u64 for fields of more than 32 bits in all; a hidden field,
`QuantField.word`); its fields take consecutive bits from bit 0
in the order placed. A `quant_array(axes, dims, max_num_bits)` keeps, for each cell of
its parent, one word holding prod(dims) elements of the field placed in it
(row-major, element k at bits k*bits..). Kernels access the bits in codegen/quant.py;
Python scope (x[i], to_numpy, from_numpy, fill) here, with NumPy on the words.

Not done (each raises a TaichiError naming it): quantized floats
(`ti.types.quant.float`, shared exponents), a quant_array under a sparse SNode.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError, TaichiSyntaxError

from . import dtypes
from .field import Field, python_scalar
from .quant import QuantFloat, QuantType


def _word(bits: int, name: str) -> Field:
    """The hidden field of the words of `bits` bits of quantized fields."""
    word = Field(dtypes.u32 if bits <= 32 else dtypes.u64, name)
    word.hidden = True
    return word


class QuantField(Field):
    """A scalar field of a quantized type; its dtype is the type's compute type."""

    def __init__(self, qtype: QuantType, name: str | None):
        super().__init__(qtype.compute, name)
        self.qtype = qtype
        self.word: Field | None = None
        self.shift = 0  # a bitpacked field's first bit in its word
        self.slots: dict[int, int] | None = (
            None  # a quant_array's elements per word, per axis
        )
        # a quant_array's axes its parent has not: not in the word's index
        self.new_axes: set[int] = set()
        self.shared: SharedExponent | None = None  # the exponent it shares, if any

    def _placed_in(self, word: Field, shape: tuple[int, ...], leaf: Any) -> None:
        self.word = word
        self.shape = shape
        self.index_offset = (0,) * len(shape)
        self.placed = True
        # the symbol names everything a kernel's code depends on (lang/source_key.py
        # keys compiled kernels by the symbols of the fields they use)
        at = self.shift if self.slots is None else (self.slots, sorted(self.new_axes))
        if self.shared is not None:
            at = (at, self.shared.key())
        self.symbol = f"{word.symbol}.{self.qtype.key()}@{at}"
        self._snode = leaf

    @property
    def nbytes(self) -> int:
        return 0  # stored in the bits of its words

    def _array(self) -> np.ndarray:
        raise TaichiError(
            "a quantized field has no NumPy view of its own (its bits share words): "
            "use x[i], x.to_numpy(), x.from_numpy()"
        )

    # -- Python scope ------------------------------------------------------------------

    def _word_of(self, index: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
        if self.slots is None:
            return index, self.shift
        word, pos = [], 0
        for axis, k in enumerate(index):
            n = self.slots.get(axis, 1)
            if axis not in self.new_axes:
                word.append(k // n)
            pos = pos * n + k % n
        return tuple(word), pos * self.qtype.bits

    def _positions(self) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """For every element: the index of its word and its shift."""
        idx = (
            np.indices(self.shape, dtype=np.int64)
            if self.shape
            else np.zeros((0,), np.int64)
        )
        if self.slots is None:
            return tuple(idx), np.full(self.shape, self.shift, np.uint64)
        word, pos = [], np.zeros(self.shape, np.int64)
        for axis in range(len(self.shape)):
            n = self.slots.get(axis, 1)
            if axis not in self.new_axes:
                word.append(idx[axis] // n)
            pos = pos * n + idx[axis] % n
        return tuple(word), (pos * self.qtype.bits).astype(np.uint64)

    def __getitem__(self, key: Any) -> Any:
        self._check_live()
        at, shift = self._word_of(self._key(key))
        assert self.word is not None
        if self.shared is not None:
            words = np.array([self.word[at]], np.uint64)
            return python_scalar(self.shared.values(words)[self.shared.index(self)][0])
        bits = (np.uint64(self.word[at]) >> np.uint64(shift)) & np.uint64(self.qtype.mask)
        return python_scalar(self.qtype.from_bits(np.array(bits))[()])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._check_live()
        at, shift = self._word_of(self._key(key))
        assert self.word is not None
        if self.shared is not None:
            words = np.array([self.word[at]], np.uint64)
            values = self.shared.values(words)
            values[self.shared.index(self)] = np.array([value], np.float32)
            self.word[at] = int(self.shared.store(words, values)[0])
            return
        bits = int(self.qtype.to_bits(np.array(value))[()])
        old = int(self.word[at])
        self.word[at] = (old & ~(self.qtype.mask << shift)) | (bits << shift)

    def to_numpy(self, dtype: Any = None, keep_dims: bool = False) -> np.ndarray:
        assert self.word is not None
        words = self.word.to_numpy().astype(np.uint64)
        if self.shared is not None:
            out = self.shared.values(words)[self.shared.index(self)]
            return out.astype(dtype) if dtype is not None else out
        at, shift = self._positions()
        bits = (words[at] >> shift) & np.uint64(self.qtype.mask)
        out = self.qtype.from_bits(bits)
        return out.astype(dtype) if dtype is not None else out

    def from_numpy(self, arr: Any) -> None:
        assert self.word is not None
        values = self._conform(arr)
        at, shift = self._positions()
        words = self.word.to_numpy().astype(np.uint64)
        if self.shared is not None:
            group = self.shared.values(words)
            group[self.shared.index(self)] = values.astype(np.float32)
            self.word.from_numpy(
                self.shared.store(words, group).astype(self.word.dtype.np_dtype)
            )
            return
        keep = ~(np.uint64(self.qtype.mask) << shift)
        np.bitwise_and.at(words, at, keep)
        np.bitwise_or.at(words, at, self.qtype.to_bits(values) << shift)
        self.word.from_numpy(words.astype(self.word.dtype.np_dtype))

    def fill(self, value: Any) -> None:
        self.from_numpy(np.full(self.shape, value))


class QuantMatrixField(Field):
    """A Vector/Matrix field of a quantized type: one QuantField per component
    (`get_scalar_field(i, j)`), each placed in a bitpack; an element is a vector or
    matrix of their values."""

    def __init__(self, qtype: QuantType, element_shape: tuple[int, ...], name: str | None):
        super().__init__(qtype.compute, name)
        self.qtype = qtype
        self.element_shape = element_shape
        self.components = {
            pos: QuantField(qtype, f"{name or 'q'}{list(pos)}")
            for pos in np.ndindex(*element_shape)
        }

    @property
    def placed(self) -> bool:  # type: ignore[override]
        return all(c.placed for c in self.components.values())

    @placed.setter
    def placed(self, value: bool) -> None:
        pass  # placed with its components

    @property
    def shape(self) -> tuple[int, ...]:  # type: ignore[override]
        shapes = {c.shape for c in self.components.values() if c.placed}
        if len(shapes) > 1:
            raise TaichiError(
                f"the components of a quantized Vector/Matrix field have shapes {shapes}"
            )
        return shapes.pop() if shapes else ()

    @shape.setter
    def shape(self, value: tuple[int, ...]) -> None:
        pass  # the shape of its components

    @property
    def symbol(self) -> str:  # type: ignore[override]
        return "(" + ",".join(c.symbol for c in self.components.values()) + ")"

    @symbol.setter
    def symbol(self, value: str) -> None:
        pass

    @property
    def nbytes(self) -> int:
        return 0

    def get_scalar_field(self, *indices: int) -> QuantField:  # type: ignore[override]
        if tuple(indices) not in self.components:
            raise TaichiError(
                f"get_scalar_field{indices}: elements have shape {self.element_shape}"
            )
        return self.components[tuple(indices)]

    def _array(self) -> np.ndarray:
        raise TaichiError(
            "a quantized Vector/Matrix field has no NumPy view: use to_numpy()"
        )

    def __getitem__(self, key: Any) -> Any:
        from .matrix import Matrix

        out = np.zeros(self.element_shape, self.qtype.compute.np_dtype)
        for pos, c in self.components.items():
            out[pos] = c[key]
        return Matrix(out)

    def __setitem__(self, key: Any, value: Any) -> None:
        value = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
        value = np.broadcast_to(value, self.element_shape)
        for pos, c in self.components.items():
            c[key] = value[pos].item()

    def to_numpy(self, dtype: Any = None, keep_dims: bool = False) -> np.ndarray:
        out = np.zeros(self.shape + self.element_shape, self.qtype.compute.np_dtype)
        for pos, c in self.components.items():
            out[(...,) + pos] = c.to_numpy()
        if keep_dims and len(self.element_shape) == 1:
            out = out.reshape(out.shape + (1,))
        return out.astype(dtype) if dtype is not None else out

    def from_numpy(self, arr: Any) -> None:
        values = self._conform(arr)
        for pos, c in self.components.items():
            c.from_numpy(values[(...,) + pos])

    def fill(self, value: Any) -> None:
        self.from_numpy(np.broadcast_to(np.asarray(value), self.shape + self.element_shape))


def quant_field(dtype: Any, name: str | None) -> Field:
    """`ti.field(qtype)` / `ti.Vector.field(n, qtype)`: placed later by
    BitpackedFields or SNode.quant_array."""
    from . import program

    f: Field
    if isinstance(dtype, QuantType):
        f = QuantField(dtype, name)
    else:
        f = QuantMatrixField(dtype.dtype, tuple(dtype.shape), name)
    program.get_program().unplaced_fields.append(f)
    return f


def _check_quant_field(f: Any, where: str) -> QuantField:
    if isinstance(f, QuantField):
        if f.placed:
            raise TaichiError(f"{where}: the field is already placed")
        return f
    raise TaichiError(
        f"{where} takes fields of quantized types (ti.types.quant), got {f!r}"
    )


class SharedExponent:
    """Quantized floats of one bitpack sharing an exponent (`place(...,
    shared_exponent=True)`): the exponent's `exp` bits at `shift`, then each float's
    digits (lang/quant.py says how Taichi rounds them)."""

    def __init__(self, shift: int, exp: int, members: list[QuantField]):
        self.shift, self.exp, self.members = shift, exp, members
        self.mask = (1 << exp) - 1 << shift
        for f in members:
            self.mask |= self.digits_mask(f) << f.shift

    @staticmethod
    def digits_mask(f: QuantField) -> int:
        return (1 << f.qtype.frac) - 1  # type: ignore[attr-defined]

    def key(self) -> str:
        return f"shared{self.shift}:" + ",".join(
            f"{f.qtype.key()}@{f.shift}" for f in self.members
        )

    def index(self, f: QuantField) -> int:
        return self.members.index(f)

    def values(self, words: np.ndarray) -> list[np.ndarray]:
        """Python scope: each member's f32 values in `words` (uint64)."""
        exponent = (words >> np.uint64(self.shift)) & np.uint64((1 << self.exp) - 1)
        return [
            f.qtype.shared_value(  # type: ignore[attr-defined]
                exponent.astype(np.int64),
                ((words >> np.uint64(f.shift)) & np.uint64(self.digits_mask(f))).astype(
                    np.int64
                ),
            )
            for f in self.members
        ]

    def store(self, words: np.ndarray, values: list[np.ndarray]) -> np.ndarray:
        """Python scope: `words` with the members' bits holding `values` (f32)."""
        exps = [
            (np.asarray(v, np.float32).view(np.uint32).astype(np.int64) >> 23) & 0xFF
            for v in values
        ]
        top = np.maximum.reduce(exps)
        q0 = self.members[0].qtype
        stored = np.maximum(top - np.where(top != 0, q0.exponent_offset, 0), 0)  # type: ignore[attr-defined]
        bits = stored << self.shift
        for f, v in zip(self.members, values):
            digits = f.qtype.shared_digits(v, top)  # type: ignore[attr-defined]
            bits = bits | (digits << f.shift)
        bits = bits.astype(np.uint64) & np.uint64(self.mask)
        return (np.asarray(words, np.uint64) & ~np.uint64(self.mask)) | bits


class BitpackedFields:
    """`ti.BitpackedFields(max_num_bits)`: fields of quantized types sharing one word
    per cell; `place(...)` them here, then place this in an SNode."""

    def __init__(self, max_num_bits: int):
        if max_num_bits not in (8, 16, 32, 64):
            raise TaichiError(
                f"BitpackedFields: max_num_bits must be 8, 16, 32 or 64, got {max_num_bits}"
            )
        self.max_num_bits = max_num_bits
        self.fields: list[QuantField] = []
        self.bits = 0
        self.word: Field | None = None

    def place(self, *fields: Any, shared_exponent: bool = False) -> None:
        """Place fields of quantized types in the word, from its lowest free bit."""
        if self.word is not None:
            raise TaichiError(
                "BitpackedFields.place: this bitpack is already placed in an SNode"
            )
        fields = tuple(  # a quantized Vector/Matrix field: each of its components
            c
            for f in fields
            for c in (f.components.values() if isinstance(f, QuantMatrixField) else (f,))
        )
        if shared_exponent:
            self._place_shared(fields)
            return
        for f in fields:
            q = _check_quant_field(f, "BitpackedFields.place")
            if self.bits + q.qtype.bits > self.max_num_bits:
                raise TaichiError(
                    f"BitpackedFields(max_num_bits={self.max_num_bits}): the fields take "
                    f"{self.bits + q.qtype.bits} bits"
                )
            q.shift = self.bits
            self.bits += q.qtype.bits
            self.fields.append(q)

    def _place_shared(self, fields: tuple[Any, ...]) -> None:
        if len(fields) <= 1:
            raise TaichiSyntaxError(
                "At least 2 fields need to be placed when shared_exponent=True"
            )
        members = [_check_quant_field(f, "BitpackedFields.place") for f in fields]
        types = [f.qtype for f in members]
        if not all(isinstance(t, QuantFloat) for t in types):
            raise TaichiError("shared_exponent=True: every field must be a quant.float")
        exps = {t.exp for t in types}  # type: ignore[attr-defined]
        if len(exps) != 1:
            raise TaichiError(
                f"shared_exponent=True: the floats have exponents of {exps} bits"
            )
        (exp,) = exps
        total = self.bits + exp + sum(t.frac for t in types)  # type: ignore[attr-defined]
        if total > self.max_num_bits:
            raise TaichiError(
                f"BitpackedFields(max_num_bits={self.max_num_bits}): the fields take "
                f"{total} bits"
            )
        shift = self.bits
        self.bits += exp
        for f in members:  # the digits of each, after the exponent
            f.shift = self.bits
            self.bits += f.qtype.frac  # type: ignore[attr-defined]
            self.fields.append(f)
        group = SharedExponent(shift, exp, members)
        for f in members:
            f.shared = group

    def _word_field(self) -> Field:
        """The hidden field of the words, to place in the SNode."""
        if self.word is not None:
            raise TaichiError("a BitpackedFields is placed once")
        if not self.fields:
            raise TaichiError(
                "BitpackedFields: place fields in it before placing it in an SNode"
            )
        self.word = _word(self.bits, "bitpacked")
        return self.word

    def _bind(self) -> None:
        """After the word is placed: its fields take its shape and place node."""
        assert self.word is not None
        for f in self.fields:
            f._placed_in(self.word, self.word.shape, self.word._snode)


def place_in_quant_array(node: Any, fields: tuple[Any, ...]) -> Any:
    """`quant_array(...).place(x)`: one field, its elements packed into the words of
    the quant_array's parent cells."""
    from .snode import SNode

    if len(fields) != 1:
        raise TaichiError("a quant_array SNode holds exactly one field")
    q = _check_quant_field(fields[0], "quant_array.place")
    if node.is_sparse_tree():
        raise TaichiError(
            "a quant_array under a sparse SNode is not supported by taichi-xdsl"
        )
    per_word = math.prod(node.level.values())
    if node.max_num_bits not in (8, 16, 32, 64):
        raise TaichiError(
            f"quant_array: max_num_bits must be 8, 16, 32 or 64, got {node.max_num_bits}"
        )
    if per_word * q.qtype.bits > node.max_num_bits:
        raise TaichiError(
            f"quant_array: {per_word} elements of {q.qtype.bits} bits exceed "
            f"max_num_bits={node.max_num_bits}"
        )
    word = _word(per_word * q.qtype.bits, "quant_array")
    parent = node.parent()
    parent.place(word)
    axes = sorted(node.extents)
    q.slots = {axes.index(a): n for a, n in node.level.items()}
    q.new_axes = {axes.index(a) for a in node.level if a not in parent.extents}
    leaf = SNode("place", node, {})
    node.children.append(leaf)
    leaf.fields.append(q)
    node.fields.append(q)
    q._placed_in(word, node.shape, leaf)
    return node
