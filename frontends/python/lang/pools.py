"""
Memory pools of pointer SNodes: where the storage under a pointer cell lives.

A pointer SNode P keeps one i32 *word* per cell: 0 while the cell is inactive, else
the index of the cell's block in P's pool. Every array placed under P (fields, the
words of pointer SNodes below it, bitmasked masks, dynamic lengths) down to the next
pointer is stored as `(capacity, *local)`: one row per block, `local` the array's
extents inside one cell of P. So the dense footprint of P is cells x 4 bytes plus
`capacity` blocks, not cells x block.

Blocks 0 and 1 are reserved: block 0 stays zero (a read of an inactive cell reads it,
so inactive cells read 0 without a branch), block 1 takes the writes of a cell whose
activation found the pool exhausted (the error is raised at the next sync; nothing
is written to a block another cell owns).

Each pool has three hidden i32 arrays:

    state[4]    [allocated, free_top, released, exhausted]
                allocated: blocks handed out by the bump counter (block = 2 + n)
                free_top:  entries of `free` (may dip below 0 while kernels race; the gc
                           resets it to 0 before pushing)
                released:  entries of `release`
                exhausted: 1 once an allocation found no block
    free[cap]   a stack of zeroed blocks, popped by allocation (atomic_sub on free_top)
    release[cap] blocks no word refers to any more (deactivated, or lost an activation
                race), zeroed and pushed onto `free` by the gc loop after the statement

Capacity rule: a pointer with at most FULL_POOL_CELLS cells gets a block for every cell
(it can never be exhausted); a larger one gets max(FULL_POOL_CELLS, cells x
device_memory_GB / 8) blocks (ti.init(device_memory_GB=8) gives every cell a block).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError
from taichi_xdsl.utils.sparse_abi import ALLOCATED, EXHAUSTED, FREE_TOP, RELEASED, RESERVED_BLOCKS

from . import dtypes
from . import program as _program

if TYPE_CHECKING:
    from .snode import SNode

FULL_POOL_CELLS = 65536


def pool_capacity(cells: int) -> int:
    """Blocks a pointer SNode of `cells` cells may hold at once (the rule above)."""
    if cells <= FULL_POOL_CELLS:
        return cells
    gb = float(getattr(_program.get_program().config, "device_memory_GB", 1.0) or 1.0)
    return min(cells, max(FULL_POOL_CELLS, math.ceil(cells * gb / 8)))


class Pool:
    """The pool of one pointer SNode: its capacity and its three hidden arrays."""

    def __init__(self, node: SNode):
        from .field import Field

        self.node = node
        self.capacity = pool_capacity(math.prod(node.shape))
        self.rows = self.capacity + RESERVED_BLOCKS
        self.arrays: list[Any] = []
        """Every array stored in this pool's blocks (registered when placed)."""

        def hidden(name: str, n: int) -> Any:
            f = Field(dtypes.i32, name)
            f.hidden = True
            f._place((n,))
            return f

        self.state = hidden("_pool_state", 4)
        self.free = hidden("_pool_free", self.capacity)
        self.release = hidden("_pool_release", self.capacity)

    # -- host side (Python scope: nothing runs on the device meanwhile) ---------------

    def collect(self) -> None:
        """Zero the released blocks and push them on the free stack (the gc loop)."""
        state = self.state._array()
        state[FREE_TOP] = max(int(state[FREE_TOP]), 0)
        n = int(state[RELEASED])
        if n:
            blocks = self.release._array()[:n].copy()
            state[RELEASED] = 0
            self.free_blocks(blocks)
        self.check()

    def free_blocks(self, blocks: np.ndarray) -> None:
        """Release the pointer cells below these blocks, zero them, push them free."""
        blocks = blocks[blocks >= RESERVED_BLOCKS]
        if not blocks.size:
            return
        for f in self.arrays:
            storage = f._array()
            inner = getattr(f, "words_of", None)
            if inner is not None:  # the words of a pointer below: its blocks go too
                below = storage[blocks]
                inner.pool.free_blocks(below[below != 0].astype(np.int64))
            storage[blocks] = 0
        state = self.state._array()
        state[FREE_TOP] = top = max(int(state[FREE_TOP]), 0)
        self.free._array()[top : top + blocks.size] = blocks
        state[FREE_TOP] = top + blocks.size

    def allocate(self, n: int) -> np.ndarray:
        """n zeroed blocks (free ones first)."""
        state = self.state._array()
        top = max(int(state[FREE_TOP]), 0)
        take = min(top, n)
        out = self.free._array()[top - take : top][::-1].astype(np.int64)
        state[FREE_TOP] = top - take
        rest = n - take
        if rest:
            first = int(state[ALLOCATED])
            if first + rest > self.capacity:
                state[EXHAUSTED] = 1
                self.check()
            state[ALLOCATED] = first + rest
            out = np.concatenate([out, RESERVED_BLOCKS + first + np.arange(rest)])
        return out

    def check(self) -> None:
        """Raise if an allocation found the pool exhausted (on the host or a device)."""
        if self.state._array()[EXHAUSTED]:
            raise TaichiError(
                f"sparse pool of SNode {self.node!r} exhausted ({self.capacity} blocks): "
                "raise ti.init(device_memory_GB=...) (a pointer with more than "
                f"{FULL_POOL_CELLS} cells gets cells x device_memory_GB / 8 blocks), or "
                "activate fewer cells at once"
            )

    @property
    def allocated(self) -> int:
        """Blocks ever taken from the bump counter (Taichi's _num_dynamically_allocated)."""
        return min(int(self.state._array()[ALLOCATED]), self.capacity)


# -- index arithmetic shared by the host and the kernel codegen ---------------------------


def pointer_chain(owner: SNode | None) -> list[SNode]:
    """The pointer SNodes from the root down to `owner` (inclusive)."""
    from .snode import sparse_ancestors

    return [n for n in sparse_ancestors(owner) if n.kind == "pointer"]


def nearest_pointer(node: SNode | None) -> SNode | None:
    chain = pointer_chain(node)
    return chain[-1] if chain else None


def local_extents(space: dict[int, int], owner: SNode) -> tuple[int, ...]:
    """The extents of an array over `space` inside one cell of `owner`."""
    return tuple(space[a] // owner.extents[a] if a in owner.extents else space[a] for a in sorted(space))


def cell_parts(space: dict[int, int], node: SNode) -> list[tuple[int, int]]:
    """Per axis of `node`: the position of that axis in an index over `space`, and the
    elements of `space` one cell of `node` spans along it."""
    axes = sorted(space)
    return [(axes.index(a), space[a] // node.extents[a]) for a in sorted(node.extents)]


def local_parts(space: dict[int, int], owner: SNode) -> list[int | None]:
    """Per axis of `space`: the elements one cell of `owner` spans (None: whole axis)."""
    return [space[a] // owner.extents[a] if a in owner.extents else None for a in sorted(space)]


def storage_index(space: dict[int, int], owner: SNode | None, index: list[Any], activate: bool = False) -> tuple[Any, ...]:
    """
    Host side: the storage index of element `index` (ints or NumPy arrays) of an array
    over `space` stored in `owner`'s pool. With `activate` (one element) the pointer
    cells above it get blocks.
    """
    block: Any = None
    prev: SNode | None = None
    for node in pointer_chain(owner):
        cell = [index[p] // r for p, r in cell_parts(space, node)]
        words = node.mask._array()
        at = _in_pool(node.extents, prev, block, cell)
        if activate and int(words[at]) == 0:
            words[at] = node.pool.allocate(1)[0]
        block = words[at]
        prev = node
    return _in_pool(space, owner, block, index)


def _in_pool(space: dict[int, int], owner: SNode | None, block: Any, index: list[Any]) -> tuple[Any, ...]:
    if owner is None:
        return tuple(index)
    local = [i % r if r is not None else i for i, r in zip(index, local_parts(space, owner))]
    return (block, *local)


def gather(f: Any) -> np.ndarray:
    """Host side: the logical array (space shape + element shape) of a pooled array;
    inactive cells read block 0 (zeros)."""
    space, owner = f.space, f.pool_owner
    cells = [np.arange(n) for n in owner.shape]
    blocks = _blocks(owner, cells)  # shape owner.shape
    rows = f._array()[blocks]  # owner.shape + local + element
    return _interleave(rows, space, owner, len(f.element_shape))


def scatter(f: Any, values: np.ndarray, where: np.ndarray | None = None) -> None:
    """Host side: write a logical array into the blocks of active cells (where `where`,
    a bool array of the space's shape, holds)."""
    space, owner = f.space, f.pool_owner
    cells = [np.arange(n) for n in owner.shape]
    blocks = _blocks(owner, cells)
    storage = f._array()
    current = _interleave(storage[blocks], space, owner, len(f.element_shape))
    values = np.broadcast_to(np.asarray(values, dtype=current.dtype), current.shape)
    if where is not None:
        values = np.where(where.reshape(where.shape + (1,) * len(f.element_shape)), values, current)
    rows = _deinterleave(np.ascontiguousarray(values), space, owner, len(f.element_shape))
    live = blocks >= RESERVED_BLOCKS
    storage[blocks[live]] = rows[live]


def _blocks(owner: SNode, cells: list[np.ndarray]) -> np.ndarray:
    """The block of every cell of `owner` (an array of owner.shape)."""
    grids = np.meshgrid(*cells, indexing="ij") if cells else []
    index = storage_index(owner.extents, _program_parent(owner), list(grids))
    return np.asarray(owner.mask._array()[index]).astype(np.int64)


def _program_parent(node: SNode) -> SNode | None:
    return nearest_pointer(node.parent())


def _interleave(rows: np.ndarray, space: dict[int, int], owner: SNode, n_elem: int) -> np.ndarray:
    """(owner cells..., local..., element...) -> (space..., element...)."""
    owner_axes = sorted(owner.extents)
    space_axes = sorted(space)
    nc = len(owner_axes)
    order: list[int] = []
    for k, a in enumerate(space_axes):
        if a in owner.extents:
            order.append(owner_axes.index(a))
        order.append(nc + k)
    order += [nc + len(space_axes) + e for e in range(n_elem)]
    out = rows.transpose(order)
    return out.reshape(tuple(space[a] for a in space_axes) + rows.shape[nc + len(space_axes) :])


def _deinterleave(values: np.ndarray, space: dict[int, int], owner: SNode, n_elem: int) -> np.ndarray:
    """(space..., element...) -> (owner cells..., local..., element...)."""
    owner_axes = sorted(owner.extents)
    space_axes = sorted(space)
    split: list[int] = []
    cell_pos: dict[int, int] = {}
    local_pos: list[int] = []
    for a in space_axes:
        if a in owner.extents:
            cell_pos[a] = len(split)
            split.append(owner.extents[a])
            local_pos.append(len(split))
            split.append(space[a] // owner.extents[a])
        else:
            local_pos.append(len(split))
            split.append(space[a])
    elem = values.shape[len(space_axes) :]
    shaped = values.reshape(tuple(split) + elem)
    order = [cell_pos[a] for a in owner_axes] + local_pos
    order += [len(split) + e for e in range(n_elem)]
    return shaped.transpose(order)
