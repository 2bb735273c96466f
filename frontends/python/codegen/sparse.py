"""
Sparse SNodes inside kernels (the storage layout is described in lang/snode.py and
lang/pools.py).

An element of a field under a pointer (or dynamic) SNode is found by walking the pooled
nodes from the root: each cell's word is the block the next word, or the element, is
in (storage_values). A write claims an empty cell's word (taichi.atomic_cas 0 -> -1),
takes a block (taichi.pool_alloc) and publishes it; deactivation swaps the word to 0 and
gives the block back (taichi.pool_release), and the gc loop after the statement zeroes
released blocks and pushes them on the free stack. Bitmasked masks and dynamic lengths
use the taichi dialect's cell ops (taichi.activate / deactivate / is_active / append /
length); all of them are lowered by ti-lower-sparse, so the LLVM and SPIR-V
conversions see only loads, stores, atomics and ifs.

    x[i] = v        (x under ti.root.pointer(ti.i, 4).dense(ti.i, 8))
    ~>
    %w = taichi.element_ptr %_pointer_mask[%i / 8]
    taichi.if (memref.load %w == 0) {                   claim, allocate, publish
      %old = taichi.atomic_cas %w, 0, -1
      taichi.if (%old == 0) { %b = taichi.pool_alloc %state, %free ; atomic_max %w, %b }
    }
    taichi.while { break when (atomic_or %w, 0) >= 0 }  (a racing claim publishes;
                                                         8 reads an iteration, and a
                                                         wait the driver cut short goes
                                                         to the sink: _activate_pointer)
    %p = taichi.element_ptr %x[memref.load %w, %i % 8] : memref<66x8xf32> -> memref<f32>
    memref.store %v, %p[] : memref<f32>

    for i in x:  body          (a parallel struct-for: Taichi's list generation)
    ~>
    taichi.list_clear %_pointer_cells : memref<5xi32>
    taichi.range_for %cell = %c0 to %c4 : i32 {        (parallel: the pointer's cells)
      %on = taichi.is_active %_pointer_mask[%cell] : memref<4xi32>
      taichi.if %on { taichi.list_append %_pointer_cells, %cell : memref<5xi32> }
    }
    %n = taichi.list_length %_pointer_cells : memref<5xi32>
    taichi.range_for %e = %c0 to %n : i32 {            (parallel: the active cells)
      %cell = taichi.list_get %_pointer_cells[%e] : memref<5xi32>
      taichi.range_for %k = %c0 to %c8 : i32 {         (serial: the elements of a cell)
        %i = %cell * 8 + %k ; body
      } {serialize}
    }

A deeper hierarchy generates one list per pointer/bitmasked level, from the root: level
L's loop runs over (the entries of the list above) x (the cells of L in one of them).
Each list gets a task of its own in ti-offload (the loop bound is the length read by the
serial task before it), so the LLVM and SPIR-V conversions need nothing new. A
struct-for that is not parallel (inside a loop, serialized, or over a level too large
for a list: snode.CELL_LIST_LIMIT) tests every cell of the deepest level instead:

    taichi.range_for %cell = %c0 to %c4 : i32 {
      taichi.if (taichi.is_active %_pointer_mask[%cell]) { ...the elements, as above... }
    }
"""

from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiSyntaxError, TaichiTypeError
from taichi_xdsl.utils.sparse_abi import EXHAUSTED, FREE_TOP, RELEASED, SINK_BLOCK, WAIT_CUT
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute, Block, SSAValue

from ..lang import dtypes
from ..lang.pools import cell_parts, cells, local_extents, local_parts, pool_chain
from ..lang.snode import (
    SNode,
    cell_map,
    field_container,
    leaf_extents,
    sparse_ancestors,
)
from xdsl.dialects.builtin import i32 as ir_i32

from .emitter import Value
from .values import FieldHandle, LoopInfo, Place, container_index_offset

if TYPE_CHECKING:
    from .visitor import KernelCodegen

INTRINSICS = frozenset(
    (
        "activate", "deactivate", "is_active", "append", "snode_length", "no_activate",
        "rescale_index",
    )
)  # fmt: skip
"""The names of the `ti.*` intrinsics this module lowers."""




# -- the SNode trees as IR data -------------------------------------------------------


def snode_trees(program: Any) -> ArrayAttr[Attribute] | None:
    """The trees of `program` that hold a sparse SNode, as `#taichi.snode` attributes
    (the module's `taichi.snode_trees`, which ti-lower-sparse checks the cell ops
    against); None when there is none."""
    roots: list[SNode] = []
    for node in program.__dict__.get("sparse_snodes", []):
        while node._parent is not None:
            node = node._parent
        if all(root is not node for root in roots):
            roots.append(node)
    return ArrayAttr([_snode_attr(root) for root in roots]) if roots else None


def _snode_attr(node: SNode) -> taichi.SNodeAttr:
    levels = [c for c in node.children if c.kind != "place"]
    placed = [f.symbol for c in node.children if c.kind == "place" for f in c.fields if f.placed]
    mask = node.mask.symbol if node.mask is not None else None
    return taichi.SNodeAttr(
        node.kind,
        [node.level[a] for a in sorted(node.level)],
        sorted(node.level),
        chunk_size=node.chunk_size if node.kind == "dynamic" else 0,
        mask=mask,
        places=placed,
        children=[_snode_attr(c) for c in levels],
        cells=node.cell_list.symbol if node.cell_list is not None else None,
    )


# -- helpers ------------------------------------------------------------------------


def _i32(cg: KernelCodegen, x: Any) -> Value:
    return cg.em.value(x, dtypes.i32)


def _div(cg: KernelCodegen, v: Value, r: int) -> Value:
    return v if r == 1 else cg.em.idiv(v, cg.em.const(r, dtypes.i32))


def _mask(cg: KernelCodegen, node: SNode) -> SSAValue:
    """The mask (or length) field of a sparse node, as a value."""
    return cg.field_handle(node.mask).ssa


def storage_values(
    cg: KernelCodegen, f: Any, index: list[Value], write: bool = False, skip: frozenset[int] | set[int] = frozenset()
) -> list[Value]:
    """
    The storage index of element `index` of `f` (a field or a hidden array): for an
    array in a pool (lang/pools.py), walk the pooled nodes (pointers, dynamic chunks)
    from the root, each word giving the block the next word (or the element) is in.
    With `write`, the cells get blocks (unless in `skip`) and a write that finds no
    block goes to the sink block, never to the zero block that inactive cells read.
    """
    owner = getattr(f, "pool_owner", None)
    if owner is None:
        return index
    space = f.space
    block: Value | None = None
    prev: SNode | None = None
    memo = cg.__dict__.get("activated_blocks")
    key: tuple[Any, ...] = ()
    for node in pool_chain(owner):
        parts = cell_parts(space, node)
        key = (key, id(node), tuple((index[p].ssa, r) for p, r in parts))
        if write and id(node) not in skip and memo is not None and key in memo:
            block = memo[key]  # this statement activated the cell already
            prev = node
            continue
        cell = [_div(cg, index[p], r) for p, r in parts]
        at = _in_pool(cg, cells(node), prev, block, cell)
        word = _words_ptr(cg, node, at)
        if write and id(node) not in skip:
            block = _activate_pointer(cg, node, word)
            if memo is not None:
                memo[key] = block
        else:
            block = cg.em.binary("max", cg.em.load(word, dtypes.i32), 0)  # -1: claimed
            if write:  # not activated (ti.no_activate): an empty cell's write is dropped
                empty = cg.em.compare("==", block, 0)
                block = cg.em.select(empty, cg.em.const(SINK_BLOCK, dtypes.i32), block)
        prev = node
    return _in_pool(cg, space, owner, block, index)


def _in_pool(cg: KernelCodegen, space: dict[int, int], owner: SNode | None, block: Value | None, index: list[Value]) -> list[Value]:
    if owner is None:
        return index
    assert block is not None
    parts = local_parts(space, owner)
    local = [cg.em.irem(i, cg.em.const(r, dtypes.i32)) if r is not None else i for i, r in zip(index, parts)]
    return [block, *local]


def _pool_values(cg: KernelCodegen, node: SNode) -> tuple[SSAValue, SSAValue, SSAValue]:
    pool = node.pool
    return (cg.field_handle(pool.state).ssa, cg.field_handle(pool.free).ssa, cg.field_handle(pool.release).ssa)


WAIT_READS = 8
"""Reads of a claimed word per iteration of the wait for its block (_activate_pointer)."""


def _activate_pointer(cg: KernelCodegen, node: SNode, word: SSAValue) -> Value:
    """
    The block of a cell, which gets one if it has none. Of racing invocations, the one
    whose compare-and-swap turns the word from 0 to -1 (claimed) allocates and
    publishes the block; the others wait until the word is no longer -1 (after the
    branch has reconverged, so within a subgroup the claimer has already published).
    An active cell costs one load.

    The wait reads the word WAIT_READS times per loop iteration: Mesa's lavapipe ends
    every loop of an invocation once all its loops together ran 65535 iterations
    (gallivm's loop limiter), so a plain spin cut short when the claimer's thread was
    descheduled, and the waiter went on with block -1 (its writes lost, or landing in
    the array before). If the wait is still cut short, the write goes to the sink
    block and the pool's state word records WAIT_CUT: the next sync raises an error
    naming the driver's limit, never a wrong result.
    """
    from xdsl.dialects import memref

    em = cg.em
    state, free, _ = _pool_values(cg, node)
    slot = em.alloca(dtypes.i32)
    seen = em.load(word, dtypes.i32)
    em.store(slot, seen)

    def claim() -> None:
        old = _cell_op(cg, taichi.AtomicCasOp(word, em.const(0, dtypes.i32).ssa, em.const(-1, dtypes.i32).ssa))

        def allocate() -> None:
            b = _cell_op(cg, taichi.PoolAllocOp(state, free))
            em.emit(taichi.AtomicMaxOp(word, b.ssa))

        _if(cg, em.compare("==", old, 0), allocate)

    def slow() -> None:
        _if(cg, em.compare("==", seen, 0), claim)
        body = Block()
        with cg.em.at(body):
            for _ in range(WAIT_READS - 1):  # the word only goes -1 -> block: the last read counts
                _cell_op(cg, taichi.AtomicOrOp(word, em.const(0, dtypes.i32).ssa))
            now = _cell_op(cg, taichi.AtomicOrOp(word, em.const(0, dtypes.i32).ssa))
            done = em.compare(">=", now, 0)
            em.emit(taichi.IfOp(done.ssa, Block([memref.StoreOp.get(now.ssa, slot, []), taichi.BreakOp()])))
            em.emit(taichi.YieldOp())
        em.emit(taichi.WhileOp(body))

        def cut_short() -> None:  # the driver ended the wait: see the docstring
            em.store(slot, em.const(SINK_BLOCK, dtypes.i32))
            flag = em.emit(taichi.ElementPtrOp(state, [em.const(EXHAUSTED, dtypes.i32).ssa]))
            em.store(flag.results[0], em.const(WAIT_CUT, dtypes.i32))

        _if(cg, em.compare("<=", em.load(slot, dtypes.i32), 0), cut_short)

    _if(cg, em.compare("<=", seen, 0), slow)
    return em.load(slot, dtypes.i32)


def _cell_op(cg: KernelCodegen, op: Any) -> Value:
    emitted = cg.em.emit(op)
    return Value(emitted.results[0], dtypes.i32) if emitted.results else None  # type: ignore[return-value]


def _ssa(values: list[Value]) -> list[SSAValue]:
    return [v.ssa for v in values]


def _mask_ptr(cg: KernelCodegen, node: SNode, at: list[Value]) -> SSAValue:
    """The place of a mask word at storage index `at`."""
    handle = cg.field_handle(node.mask)
    op = cg.em.emit(taichi.ElementPtrOp(handle.ssa, [c.ssa for c in at]))
    return op.results[0]


def _words_ptr(cg: KernelCodegen, node: SNode, at: list[Value]) -> SSAValue:
    """The place of a pooled node's block word at storage index `at`."""
    handle = cg.field_handle(node.words)
    return cg.em.emit(taichi.ElementPtrOp(handle.ssa, [c.ssa for c in at])).results[0]


def _release_chunks(cg: KernelCodegen, snode: SNode, lengths: list[Value]) -> None:
    """A dynamic list's chunks go back to its pool (zeroed by the gc after the
    statement)."""
    em = cg.em
    if snode._pool is None:  # nothing placed under it: no chunks
        return
    state, _, release = _pool_values(cg, snode)

    def body(c: Value) -> None:
        word = _words_ptr(cg, snode, storage_values(cg, snode.words, [*lengths, c]))
        old = _cell_op(cg, taichi.AtomicAndOp(word, em.const(0, dtypes.i32).ssa))
        _if(cg, em.compare("!=", old, 0), lambda: em.emit(taichi.PoolReleaseOp(state, release, old.ssa)))

    (axis,) = snode.level
    _serial_loop(cg, snode.chunk_cells[axis], body)
    pending = cg.__dict__.setdefault("pending_gc", [])
    if snode not in pending:
        pending.append(snode)


def _mask_at(cg: KernelCodegen, node: SNode, cell: list[Value], write: bool = False) -> list[Value]:
    """The storage index of the mask word of `cell` (the cells above get blocks on a write)."""
    return storage_values(cg, node.mask, cell, write)


Leaf = dict[int, int]
"""The axes and extents of the index space an index belongs to (SNode.extents)."""


def _cell_of(cg: KernelCodegen, node: SNode, leaf: Leaf, index: list[Value]) -> list[Value]:
    """The cell of `node` holding element `index` of a descendant with extents `leaf`."""
    return [_div(cg, index[p], r) for p, r in cell_map(node, leaf)]


def _dynamic_parts(
    cg: KernelCodegen, node: SNode, leaf: Leaf, index: list[Value]
) -> tuple[list[Value], Value]:
    """For a dynamic node: the index of its length word and the position in its list."""
    parent = node.parent()
    assert parent is not None
    lengths = _cell_of(cg, parent, leaf, index)
    (axis,) = node.level
    pos = _div(cg, index[sorted(leaf).index(axis)], leaf[axis] // node.extents[axis])
    return lengths, pos


def _active(cg: KernelCodegen, node: SNode, leaf: Leaf, index: list[Value]) -> Value:
    """Whether the cell of `node` above element `index` is active (a u1 value)."""
    em = cg.em
    if node.kind == "dynamic":
        lengths, pos = _dynamic_parts(cg, node, leaf, index)
        at = _mask_at(cg, node, lengths)
        length = _cell_op(cg, taichi.LengthOp(_mask(cg, node), _ssa(at), node.shape[-1]))
        return em.compare("<", pos, length)
    cell = _cell_of(cg, node, leaf, index)
    on = em.emit(taichi.IsActiveOp(_mask(cg, node), _ssa(_mask_at(cg, node, cell))))
    return Value(on.results[0], dtypes.u1)


def _all(cg: KernelCodegen, conds: list[Value]) -> Value:
    out = conds[0]
    for c in conds[1:]:
        out = cg.em.bitwise("&", out, c)
    return out


def _unflatten(cg: KernelCodegen, flat: Value, extents: tuple[int, ...]) -> list[Value]:
    em = cg.em
    out: list[Value] = [flat] * len(extents)
    rest = flat
    for k in range(len(extents) - 1, 0, -1):
        n = em.const(extents[k], dtypes.i32)
        out[k] = em.irem(rest, n)
        rest = em.idiv(rest, n)
    if extents:
        out[0] = rest
    return out


def _scaled(cg: KernelCodegen, cell: Value, r: int, part: Value) -> Value:
    """cell * r + part: an element index from its cell and its place in the cell."""
    if r == 1:
        return cell
    return cg.em.binary("+", cg.em.binary("*", cell, r), part)


def _serial_loop(cg: KernelCodegen, count: int, emit_body: Any) -> None:
    """A serial range_for over 0..count whose body `emit_body(k)` fills."""
    block = Block(arg_types=[ir_i32])
    with cg.em.at(block):
        emit_body(Value(block.args[0], dtypes.i32))
        cg.em.emit(taichi.YieldOp())
    lo, hi = cg.em.const(0, dtypes.i32), cg.em.const(count, dtypes.i32)
    cg.em.emit(taichi.RangeForOp(lo.ssa, hi.ssa, block, serialize=True))


def _if(cg: KernelCodegen, cond: Value, emit_body: Any) -> None:
    block = Block()
    with cg.em.at(block):
        emit_body()
        cg.em.emit(taichi.YieldOp())
    cg.em.emit(taichi.IfOp(cond.ssa, block, None))


# -- activation on write ---------------------------------------------------------------


def activate_element(cg: KernelCodegen, handle: FieldHandle, index: list[Value]) -> set[int]:
    """A write of element `index` (storage coordinates) activates the bitmasked and
    dynamic cells above it, except under `ti.no_activate(node)`; returns the nodes
    not to activate (pointer cells get their blocks in storage_values)."""
    f = handle.field
    leaf = leaf_extents(f)
    skip = set(getattr(cg, "no_activate_nodes", set()))
    looped = getattr(cg, "active_element", None)
    same_place = looped is not None and looped[2] == leaf
    if same_place and tuple(v.ssa for v in index) == looped[0]:
        skip |= looped[1]  # the enclosing sparse struct-for visits this active element
    for node in sparse_ancestors(field_container(f)):
        if id(node) in skip or node.kind == "pointer":
            continue
        if node.kind == "dynamic":
            lengths, pos = _dynamic_parts(cg, node, leaf, index)
            end = cg.em.binary("+", pos, 1)
            at = _mask_at(cg, node, lengths, write=True)
            cg.em.emit(taichi.AtomicMaxOp(_mask_ptr(cg, node, at), end.ssa))
        else:
            cell = _cell_of(cg, node, leaf, index)
            at = _mask_at(cg, node, cell, write=True)
            cg.em.emit(taichi.ActivateOp(_mask(cg, node), _ssa(at)))
    return skip


def _activate_cell(cg: KernelCodegen, node: SNode, cell: list[Value]) -> None:
    """ti.activate(node, cell): the cell and the cells above it."""
    for up in sparse_ancestors(node):
        if up.kind == "dynamic":
            raise TaichiTypeError("ti.activate on a dynamic SNode: use ti.append")
        up_cell = _cell_of(cg, up, node.extents, cell)
        at = _mask_at(cg, up, up_cell, write=True)
        if up.kind == "pointer":
            _activate_pointer(cg, up, _mask_ptr(cg, up, at))
        else:
            cg.em.emit(taichi.ActivateOp(_mask(cg, up), _ssa(at)))


# -- ti.activate / deactivate / is_active / append / length -----------------------------


def _snode_arg(cg: KernelCodegen, x: Any, name: str, node: ast.AST) -> SNode:
    if isinstance(x, FieldHandle):  # ti.length(x, ...) on a field: its container
        x = field_container(x.field)
    if not isinstance(x, SNode):
        raise cg.error(TaichiTypeError, node, f"ti.{name} takes an SNode first, got {x!r}")
    return x


def _index_arg(cg: KernelCodegen, x: Any, count: int, name: str, node: ast.AST) -> list[Value]:
    from .vectors import Vec

    if isinstance(x, Vec):
        items = list(x.elems)
    elif isinstance(x, tuple | list):
        items = list(x)
    elif x is None:
        items = []
    else:
        items = [x]
    if len(items) != count:
        raise cg.error(
            TaichiSyntaxError, node, f"ti.{name}: {count} index(es) needed, got {len(items)}"
        )
    return [_i32(cg, v) for v in items]


def lower_call(
    cg: KernelCodegen, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call
) -> Any:
    """Lower one of INTRINSICS called in a kernel."""
    em = cg.em
    if name == "no_activate":
        skip = cg.__dict__.setdefault("no_activate_nodes", set())
        for a in args:
            skip.add(id(_snode_arg(cg, a, name, node)))
        return None
    if name == "rescale_index":
        return _rescale_index(cg, args, node)
    public = "length" if name == "snode_length" else name
    if not args:
        raise cg.error(TaichiSyntaxError, node, f"ti.{public} takes an SNode and indices")
    snode = _snode_arg(cg, args[0], public, node)
    rest = args[1:] + list(kwargs.values())
    if name in ("snode_length", "append"):
        if snode.kind != "dynamic":
            raise cg.error(TaichiTypeError, node, f"ti.{public} works on dynamic SNodes")
        parent = snode.parent()
        assert parent is not None
        lengths = _index_arg(cg, rest[0] if rest else None, len(parent.shape), public, node)
        if name == "snode_length":
            at = _mask_at(cg, snode, lengths)
            return _cell_op(cg, taichi.LengthOp(_mask(cg, snode), _ssa(at), snode.shape[-1]))
        if len(rest) != 2 or len(snode.fields) != 1:
            raise cg.error(
                TaichiSyntaxError, node, "ti.append(dynamic_snode, indices, value) on a "
                "dynamic SNode holding one field"
            )
        return _append(cg, snode, lengths, [(snode.fields[0], rest[1])], node)
    if name == "is_active":
        if snode.kind not in ("pointer", "bitmasked"):
            raise cg.error(
                TaichiTypeError, node, "ti.is_active only works on pointer, hash or bitmasked nodes."
            )
        cell = _index_arg(cg, rest[0] if rest else None, len(snode.shape), public, node)
        on = em.emit(taichi.IsActiveOp(_mask(cg, snode), _ssa(_mask_at(cg, snode, cell))))
        return em.cast(Value(on.results[0], dtypes.u1), dtypes.i32)
    if name == "activate":
        cell = _index_arg(cg, rest[0] if rest else None, len(snode.shape), public, node)
        if snode.kind not in ("pointer", "bitmasked"):
            raise cg.error(TaichiTypeError, node, "ti.activate works on pointer and bitmasked SNodes")
        _activate_cell(cg, snode, cell)
        return None
    assert name == "deactivate"
    if snode.kind == "dynamic":
        parent = snode.parent()
        assert parent is not None
        lengths = _index_arg(cg, rest[0] if rest else None, len(parent.shape), public, node)
        at = _mask_at(cg, snode, lengths)
        em.emit(taichi.DeactivateOp(_mask(cg, snode), _ssa(at)))  # length 0
        _release_chunks(cg, snode, lengths)
        return None
    if snode.kind not in ("pointer", "bitmasked"):
        raise cg.error(TaichiTypeError, node, "ti.deactivate works on pointer, bitmasked and dynamic SNodes")
    cell = _index_arg(cg, rest[0] if rest else None, len(snode.shape), public, node)
    at = _mask_at(cg, snode, cell)
    if snode.kind == "pointer":  # the block is zeroed after the statement (collect_garbage)
        word = _mask_ptr(cg, snode, at)
        state, _, release = _pool_values(cg, snode)

        def swap() -> None:  # one of racing deactivations gets the block
            old = _cell_op(cg, taichi.AtomicAndOp(word, em.const(0, dtypes.i32).ssa))
            _if(cg, em.compare(">", old, 0), lambda: em.emit(taichi.PoolReleaseOp(state, release, old.ssa)))

        _if(cg, em.compare(">", em.load(word, dtypes.i32), 0), swap)
        pending = cg.__dict__.setdefault("pending_gc", [])
        if snode not in pending:
            pending.append(snode)
    else:
        em.emit(taichi.DeactivateOp(_mask(cg, snode), _ssa(at)))
    return None


def collect_garbage(cg: KernelCodegen) -> None:
    """
    After a top-level statement that deactivated pointer cells: the gc of their pools
    and of the pools below them (outer first). Per pool: the free stack's top is reset
    to >= 0; a parallel loop over the release list releases the pointer cells of each
    released block (their blocks go on the release list of the pool below), zeroes the
    block and pushes it on the free stack; the release list is emptied. Deactivation
    itself is one atomic (Taichi's gc tasks do the same after the statement).
    """
    em = cg.em
    pending = cg.__dict__.pop("pending_gc", [])
    pools: list[SNode] = []
    for snode in pending:
        for node in [snode, *_pools_below(snode)]:
            if node not in pools and node._pool is not None:
                pools.append(node)
    pools.sort(key=lambda n: len(pool_chain(n)))
    c = lambda v: em.const(v, dtypes.i32)  # noqa: E731
    for node in pools:
        state, free, release = _pool_values(cg, node)

        def word(k: int, state: SSAValue = state) -> SSAValue:
            return em.emit(taichi.ElementPtrOp(state, [c(k).ssa])).results[0]

        em.store(word(FREE_TOP), em.binary("max", em.load(word(FREE_TOP), dtypes.i32), 0))
        count = em.load(word(RELEASED), dtypes.i32)
        body = Block(arg_types=[ir_i32])
        with cg.em.at(body):
            k = Value(body.args[0], dtypes.i32)
            b = em.load(em.emit(taichi.ElementPtrOp(release, [k.ssa])).results[0], dtypes.i32)
            _free_block(cg, node, b)
            top = _cell_op(cg, taichi.AtomicAddOp(word(FREE_TOP), c(1).ssa))
            em.store(em.emit(taichi.ElementPtrOp(free, [top.ssa])).results[0], b)
            em.emit(taichi.YieldOp())
        em.emit(taichi.RangeForOp(c(0).ssa, count.ssa, body))
        em.store(word(RELEASED), c(0))


def _pools_below(node: SNode) -> list[SNode]:
    out: list[SNode] = []
    for child in node.children:
        if child.kind in ("pointer", "dynamic"):
            out.append(child)
        out.extend(_pools_below(child))
    return out


def _free_block(cg: KernelCodegen, node: SNode, b: Value) -> None:
    """Release the pointer cells stored in block `b` of `node`'s pool, zero the block."""
    em = cg.em
    for g in node.pool.arrays:
        local = local_extents(g.space, node)
        extents = tuple(local) + tuple(g.element_shape)
        handle = cg.field_handle(g)
        inner = getattr(g, "words_of", None)

        def body(k: Value, g: Any = g, extents: Any = extents, handle: Any = handle, inner: Any = inner) -> None:
            at = [b, *_unflatten(cg, k, extents)]
            ptr = em.emit(taichi.ElementPtrOp(handle.ssa, [v.ssa for v in at])).results[0]
            if inner is not None and inner._pool is not None:
                w = em.load(ptr, dtypes.i32)
                state, _, release = _pool_values(cg, inner)
                _if(cg, em.compare("!=", w, 0), lambda: em.emit(taichi.PoolReleaseOp(state, release, w.ssa)))
            em.store(ptr, em.const(0, g.dtype))

        _serial_loop(cg, math.prod(extents), body)


def _append(
    cg: KernelCodegen,
    snode: SNode,
    lengths: list[Value],
    stores: list[tuple[Any, Any]],
    node: ast.AST,
) -> Value:
    """Claim the next slot of a dynamic list (atomically) and store each (field, value)
    there; a full list keeps its values. Returns the old length (ti.append's result)."""
    em = cg.em
    # The length word's cells and the element's share the pointer cells above the list:
    # activated once (the store below reuses the blocks; every activation is a claim,
    # an allocation and a wait, and on lavapipe every invocation runs all of them).
    saved = cg.__dict__.get("activated_blocks")
    cg.activated_blocks = {}
    try:
        at = _mask_at(cg, snode, lengths, write=True)
        old_v = _cell_op(cg, taichi.AppendOp(_mask(cg, snode), _ssa(at), snode.shape[-1]))

        def store() -> None:
            for f, value in stores:
                handle = cg.field_handle(f)
                offsets = container_index_offset(handle)
                index = [*lengths, old_v]
                index = [em.binary("+", v, o) if o else v for v, o in zip(index, offsets)]
                cg.store(cg.element(handle, tuple(index), node, write=True), value, node)

        _if(cg, em.compare("<", old_v, snode.shape[-1]), store)
    finally:
        cg.activated_blocks = saved
    return old_v


class DynamicList:
    """
    `x[i]` of a field under a dynamic SNode, one index short of an element: the list of
    cell i, with `x[i].append(v)`, `x[i].length()` and `x[i].deactivate()`. A struct
    field's list holds one field per member.
    """

    cg: KernelCodegen

    def __init__(self, snode: SNode, fields: dict[str, Any] | Any, lengths: list[Value]):
        from .vectors import KernelMethod

        self.snode = snode
        self.fields = fields
        self.lengths = lengths
        self.append = KernelMethod("append", self._append)
        self.length = KernelMethod("length", self._length)
        self.deactivate = KernelMethod("deactivate", self._deactivate)

    def _append(self, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Value:
        from ..lang.struct import StructVal

        cg = self.cg
        if len(args) != 1 or kwargs:
            raise cg.error(TaichiSyntaxError, node, "append(value) takes one value")
        value = args[0]
        if isinstance(self.fields, dict):
            if not isinstance(value, StructVal):
                raise cg.error(TaichiTypeError, node, "append to a struct list needs a struct")
            stores = [(f, value.values[m]) for m, f in self.fields.items()]
        else:
            stores = [(self.fields, value)]
        return _append(cg, self.snode, self.lengths, stores, node)

    def _length(self, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Value:
        at = _mask_at(self.cg, self.snode, self.lengths)
        op = taichi.LengthOp(_mask(self.cg, self.snode), _ssa(at), self.snode.shape[-1])
        return _cell_op(self.cg, op)

    def _deactivate(self, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
        cg = self.cg
        at = _mask_at(cg, self.snode, self.lengths)
        cg.em.emit(taichi.DeactivateOp(_mask(cg, self.snode), _ssa(at)))
        _release_chunks(cg, self.snode, self.lengths)


def dynamic_list(
    cg: KernelCodegen, handle: FieldHandle, values: list[Value]
) -> DynamicList | None:
    """`x[i]` one index short on a field placed in a dynamic SNode: its list."""
    container = field_container(handle.field)
    if container is None or container.kind != "dynamic" or len(values) != handle.ndim - 1:
        return None
    offsets = container_index_offset(handle)
    values = [cg.em.binary("-", v, o) if o else v for v, o in zip(values, offsets)]
    ref = DynamicList(container, handle.field, values)
    ref.cg = cg
    return ref


def _rescale_index(cg: KernelCodegen, args: list[Any], node: ast.AST) -> Any:
    """ti.rescale_index(a, b, I): I in a's index space -> the cell of b holding it."""
    from .vectors import Vec

    if len(args) != 3:
        raise cg.error(TaichiSyntaxError, node, "ti.rescale_index(a, b, I) takes three arguments")
    shapes = []
    for x in args[:2]:
        if isinstance(x, FieldHandle):
            shapes.append(x.field.shape)
        elif isinstance(x, SNode):
            shapes.append(x.shape)
        else:
            raise cg.error(TaichiTypeError, node, f"ti.rescale_index takes fields or SNodes, got {x!r}")
    items = list(args[2].elems) if isinstance(args[2], Vec) else list(args[2])
    out = [
        _rescale(cg, _i32(cg, v), shapes[0][k], shapes[1][k]) if k < len(shapes[1]) else v
        for k, v in enumerate(items)
    ]
    return Vec((len(out),), out)


def _rescale(cg: KernelCodegen, v: Value, n_from: int, n_to: int) -> Value:
    """An index along an axis of n_from cells as one of n_to cells: a finer index
    divides down, a coarser one scales up (to the first fine cell)."""
    if n_from >= n_to:
        return _div(cg, v, n_from // n_to)
    return cg.em.binary("*", v, n_to // n_from)


# -- struct-for -------------------------------------------------------------------------


def struct_for(
    cg: KernelCodegen,
    node: ast.For,
    target: SNode,
    offsets: tuple[int, ...],
    serialize: bool,
) -> None:
    """
    `for I in x` over a sparse field (or `for I in snode`; `target` is the field's
    container or the SNode): visit active cells only. At the kernel's top level, list
    generation (_generate_lists) collects the active cells of the deepest
    pointer/bitmasked level B, and a parallel loop over that list runs a serial inner
    loop over the elements of each cell, testing dynamic lengths below B. Elsewhere
    (or when B has no cell list) the outer loop runs over every cell of B and tests
    its mask words (and those above). Without such a level, one parallel loop over the
    whole index space tests the dynamic lengths, except over a list at the root
    (`ti.root.dynamic(...)`): a parallel loop up to its length.
    """
    from .loops import bind_targets

    em = cg.em
    leaf = dict(target.extents)
    chain = sparse_ancestors(target)
    blocks = [n for n in chain if n.kind != "dynamic"]
    outer: Leaf = dict(blocks[-1].extents) if blocks else leaf
    above = chain[: chain.index(blocks[-1]) + 1] if blocks else []
    below = [n for n in chain if n not in above]
    count: Value | int = math.prod(outer[a] for a in outer)
    if not blocks and len(chain) == 1 and not chain[0].mask.shape and len(leaf) == 1:
        lengths = chain[0]  # one list: loop to its length, no test per element
        at = _mask_at(cg, lengths, [])
        count = _cell_op(cg, taichi.LengthOp(_mask(cg, lengths), _ssa(at), lengths.shape[-1]))
        below = []
    # per leaf axis: (position in the outer cell or None, elements per outer cell)
    spans = [
        (sorted(outer).index(a), leaf[a] // outer[a]) if a in outer else (None, leaf[a])
        for a in sorted(leaf)
    ]
    inner_extents = tuple(n for _, n in spans)
    inner_count = math.prod(inner_extents)
    outer_shape = tuple(outer[a] for a in sorted(outer))

    def visit(index: list[Value]) -> None:
        def run() -> None:
            indices = [em.binary("+", v, o) if o else v for v, o in zip(index, offsets)]
            bind_targets(cg, node, indices)
            # a write at exactly this element needs no activation: its cells are active
            saved = cg.__dict__.get("active_element")
            cg.active_element = (tuple(v.ssa for v in index), {id(n) for n in chain}, leaf)
            try:
                cg.visit_stmts(node.body)
            finally:
                cg.active_element = saved

        if below:
            guard = _all(cg, [_active(cg, n, leaf, index) for n in below])
            block = Block()
            with cg.body(block, new_scope=False):
                run()
                cg.close(block)
            em.emit(taichi.IfOp(guard.ssa, block, None))
        else:
            run()

    def emit_cell(cell: list[Value]) -> None:
        if inner_count == 1:
            zero = em.const(0, dtypes.i32)
            visit([cell[c] if c is not None else zero for c, _ in spans])
            return
        def nest(axis: int, parts: list[Value]) -> None:
            """One serial loop per axis of the cell, the last innermost (so the
            elements of a row are consecutive: no div/rem, LLVM can vectorise)."""
            if axis == len(inner_extents):
                visit([
                    _scaled(cg, cell[c], r, p) if c is not None else p
                    for (c, r), p in zip(spans, parts)
                ])
                return
            if inner_extents[axis] == 1:
                nest(axis + 1, [*parts, em.const(0, dtypes.i32)])
                return
            inner = Block(arg_types=[ir_i32])
            with cg.body(inner), cg.loop(LoopInfo("struct", False, inner)):
                nest(axis + 1, [*parts, Value(inner.args[0], dtypes.i32)])
                cg.close(inner)
            lo, hi = em.const(0, dtypes.i32), em.const(inner_extents[axis], dtypes.i32)
            em.emit(taichi.RangeForOp(lo.ssa, hi.ssa, inner, serialize=True))

        nest(0, [])

    parallel = cg.at_top() and not cg.in_folded_branch() and not serialize
    if parallel and blocks and all(n.cell_list is not None for n in blocks):
        cell_list = _generate_lists(cg, above, blocks)
        body = Block(arg_types=[ir_i32])
        with cg.body(body), cg.loop(LoopInfo("struct", True, body)):
            entry = _cell_op(cg, taichi.ListGetOp(cell_list, body.args[0]))
            emit_cell(_unflatten(cg, entry, outer_shape))
            cg.close(body)
        length = _cell_op(cg, taichi.ListLengthOp(cell_list))
        em.emit(taichi.RangeForOp(em.const(0, dtypes.i32).ssa, length.ssa, body))
        return
    body = Block(arg_types=[ir_i32])
    info = LoopInfo("struct", cg.at_top() and not serialize, body)
    with cg.body(body), cg.loop(info):
        cell = _unflatten(cg, Value(body.args[0], dtypes.i32), outer_shape)
        if above:
            guard = _all(cg, [_active(cg, n, outer, cell) for n in above])
            then = Block()
            with cg.body(then, new_scope=False):
                emit_cell(cell)
                cg.close(then)
            em.emit(taichi.IfOp(guard.ssa, then, None))
        else:
            emit_cell(cell)
        cg.close(body)
    lo = em.const(0, dtypes.i32)
    hi = count if isinstance(count, Value) else em.const(count, dtypes.i32)
    em.emit(taichi.RangeForOp(lo.ssa, hi.ssa, body, serialize=serialize))


def _generate_lists(cg: KernelCodegen, above: list[SNode], blocks: list[SNode]) -> SSAValue:
    """
    Taichi's list generation: for each pointer/bitmasked level from the root, a parallel
    loop over the children of the cells in the list above (over every cell for the
    first level) appends the active ones to the level's cell list; returns the list of
    the last level. A level's test covers the sparse levels from the list above down to
    it (a dynamic level in between too).
    """
    em = cg.em
    parent: SNode | None = None
    parent_list: SSAValue | None = None
    tested = 0
    for level in blocks:
        upto = above.index(level) + 1
        tests, tested = above[tested:upto], upto
        cell_list = cg.field_handle(level.cell_list).ssa
        em.emit(taichi.ListClearOp(cell_list))
        axes = sorted(level.extents)
        shape = tuple(level.extents[a] for a in axes)
        ratio = {a: level.extents[a] // (parent.extents.get(a, 1) if parent else 1) for a in axes}
        per = math.prod(ratio.values())
        body = Block(arg_types=[ir_i32])
        with em.at(body):
            k = Value(body.args[0], dtypes.i32)
            if parent is None:
                flat, cell = k, _unflatten(cg, k, shape)
            else:
                assert parent_list is not None
                entry = _cell_op(cg, taichi.ListGetOp(parent_list, _div(cg, k, per).ssa))
                up_axes = sorted(parent.extents)
                up = dict(zip(up_axes, _unflatten(cg, entry, tuple(parent.extents[a] for a in up_axes))))
                local_at = em.irem(k, em.const(per, dtypes.i32)) if per > 1 else em.const(0, dtypes.i32)
                local = dict(zip(axes, _unflatten(cg, local_at, tuple(ratio[a] for a in axes))))
                cell = [_scaled(cg, up[a], ratio[a], local[a]) if a in up else local[a] for a in axes]
                flat = _flatten(cg, cell, shape)
            on = _all(cg, [_active(cg, n, level.extents, cell) for n in tests])
            _if(cg, on, lambda: em.emit(taichi.ListAppendOp(cell_list, flat.ssa)))
            em.emit(taichi.YieldOp())
        if parent_list is None:
            count = em.const(math.prod(shape), dtypes.i32)
        else:
            count = em.binary("*", _cell_op(cg, taichi.ListLengthOp(parent_list)), per)
        em.emit(taichi.RangeForOp(em.const(0, dtypes.i32).ssa, count.ssa, body))
        parent, parent_list = level, cell_list
    assert parent_list is not None
    return parent_list


def _flatten(cg: KernelCodegen, index: list[Value], extents: tuple[int, ...]) -> Value:
    """The row-major position of `index` in `extents` (the inverse of _unflatten)."""
    flat = index[0]
    for v, n in zip(index[1:], extents[1:]):
        flat = cg.em.binary("+", cg.em.binary("*", flat, n), v)
    return flat
