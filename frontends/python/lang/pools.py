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

A dynamic SNode is pooled the same way by chunks: its *words* (one per chunk of each
list: parent cells x ceil(capacity / chunk_size)) hold chunk blocks of chunk_size
elements of each field placed under it, and its lengths stay one word per list.

Capacity rule (size_pools): with ti.init(device_memory_GB=...) given, or on Vulkan
(default 1 GB, at most the device's device-local heaps), all pools share what
device_memory_GB leaves beside the other fields (dense fields, words, lengths, the
reserved blocks), as Taichi's CUDA backend preallocates device_memory_GB for its
fields and every sparse pool alike: a pool whose equal share covers all its cells
gets them (smallest first), the others split the rest. On CPU without
device_memory_GB, each pool reserves up to CPU_POOL_BYTES of a root whose pages take
memory only when written. A pointer with at most FULL_POOL_CELLS cells gets a block
for every cell (it can never be exhausted), a larger one at least FULL_POOL_CELLS; a
dynamic SNode at least 4 chunks. All fields together stay below ROOT_BYTES_LIMIT
(32-bit offsets; a quarter of what the other fields leave is kept for fields placed
later: share_budget). A pool gets a provisional capacity (a quarter of
device_memory_GB, or CPU_POOL_BYTES) when the first array is placed in its blocks;
when the layout settles (the first kernel or root allocation) every pool is sized
again from the bytes its blocks really hold and the root is laid out again (a pool
made after that keeps its provisional capacity). On Vulkan the root is bound as
segments of maxStorageBufferRange (utils/spirv_abi.py); an array of a pool may span
several, a kernel choosing the segment per element with variable pointers
(lowering/spirv_access.py); a device without them caps each array at one segment.
A program whose pools hold fewer blocks than it activates gets the pool-exhausted
error, which names what bounds the pool (Pool.bound), never a wrong result.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError
from taichi_xdsl.utils.sparse_abi import ALLOCATED, EXHAUSTED, FREE_TOP, RELEASED, RESERVED_BLOCKS, WAIT_CUT

from . import dtypes
from . import program as _program

if TYPE_CHECKING:
    from .snode import SNode

FULL_POOL_CELLS = 65536


def _device_memory_gb() -> float:
    return float(getattr(_program.get_program().config, "device_memory_GB", 1.0) or 1.0)


CPU_POOL_BYTES = 2**30
"""What one pool may reserve on CPU when ti.init is given no device_memory_GB: its pages
take memory only when written (program.py's lazy root), as Taichi's CPU pools grow in
virtual memory. Below the 8 GiB an array may span (snode.py: element indices are 32-bit)."""


def _budget() -> int:
    """The bytes one pool may take when it is made (its provisional capacity; also
    the capacity of a pool made after the layout settled): on CPU without
    ti.init(device_memory_GB=...), CPU_POOL_BYTES of reserved memory; else a quarter
    of device_memory_GB. Pools made before the layout settles are sized again by
    size_pools, where they share all of device_memory_GB."""
    prog = _program.get_program()
    # the root's offsets are 32-bit: pools share what is left below ROOT_BYTES_LIMIT
    prog.__dict__["root_limit"] = _program.ROOT_BYTES_LIMIT
    if _shared_budget(prog) is None:
        return CPU_POOL_BYTES
    return int(_device_memory_gb() * 2**30 / 4)


def _shared_budget(prog: Any) -> int | None:
    """The bytes all of `prog`'s fields may take together, pools included (None: on
    CPU without ti.init(device_memory_GB=...), where each pool reserves
    CPU_POOL_BYTES): device_memory_GB, as Taichi preallocates it on CUDA for the
    fields and every sparse pool alike; on Vulkan at most the device's device-local
    heaps."""
    if prog.config.arch is not _program.vulkan and "device_memory_GB" not in prog.config.options:
        return None
    budget = int(_device_memory_gb() * 2**30)
    if prog.config.arch is _program.vulkan:
        heaps = getattr(prog.backend, "device_memory_bytes", 0)
        if heaps:
            budget = min(budget, heaps)
    return budget


def pointer_capacity(n_cells: int, block_bytes: int) -> int:
    """Blocks a pointer SNode of `n_cells` cells may hold at once, within `_budget`."""
    return _pointer_floor(n_cells, _budget() // max(block_bytes, 1))


def chunk_capacity(n_chunks: int, chunk_bytes: int) -> int:
    """Chunks a dynamic SNode may hold at once, within `_budget`."""
    return _chunk_floor(n_chunks, _budget() // max(chunk_bytes, 1))


def _pointer_floor(n_cells: int, blocks: int) -> int:
    """`blocks`, raised to the minimum of a pointer's pool: every cell of a pointer of
    at most FULL_POOL_CELLS cells (it can never be exhausted), else FULL_POOL_CELLS;
    at most every cell."""
    if n_cells <= FULL_POOL_CELLS:
        return n_cells
    return min(n_cells, max(FULL_POOL_CELLS, blocks))


def _chunk_floor(n_chunks: int, chunks: int) -> int:
    """`chunks`, raised to the minimum of a dynamic SNode's pool (4), at most every
    chunk of every list."""
    return min(n_chunks, max(4, chunks))


def share_budget(wants: list[int], budget: int) -> list[int]:
    """
    Split `budget` bytes among pools that want `wants` bytes each: a pool whose equal
    share of what is left covers its want gets it all (smallest first); the others
    split the rest equally.

        share_budget([10, 100, 100], 120) == [10, 55, 55]
    """
    out = [0] * len(wants)
    left, todo = max(budget, 0), sorted(range(len(wants)), key=lambda k: wants[k])
    while todo:
        share = left // len(todo)
        k = todo.pop(0)
        out[k] = min(wants[k], share)
        left -= out[k]
    return out


def size_pools(prog: Any) -> None:
    """
    Before the root is first allocated: size every pool of `prog` from the bytes a
    block of it holds (all arrays placed in it, plus its free and release entries),
    by the capacity rule: the pools share what device_memory_GB leaves beside the other
    fields (on CPU without it, each reserves CPU_POOL_BYTES); on Vulkan, each array of
    a pool within one root segment; and all within the root's 32-bit offsets (module
    docstring). The caller lays the root out again.
    """
    pools: list[Pool] = prog.__dict__.get("pools", [])
    if not pools:
        return
    _budget()  # records the root's limit
    row_bytes = [pool.row_bytes() for pool in pools]
    floors = [_pointer_floor if pool.node.kind == "pointer" else _chunk_floor for pool in pools]
    # the bytes of everything but the pools' blocks: fields, words, reserved blocks
    scaled = {id(f) for pool in pools for f in (*pool.arrays, pool.free, pool.release)}
    fixed = sum(
        FIELD_SLACK + (0 if id(f) in scaled else f.nbytes) for f in prog.fields
    ) + sum(RESERVED_BLOCKS * b for b in row_bytes)
    shared = _shared_budget(prog)
    if shared is None:  # CPU: each pool its own reserved address space
        rule = [
            floor(pool.cells, CPU_POOL_BYTES // b)
            for pool, floor, b in zip(pools, floors, row_bytes)
        ]
        bound = (
            f"on CPU without ti.init(device_memory_GB=...) a pool reserves at most "
            f"{CPU_POOL_BYTES / 2**30:g} GiB: pass device_memory_GB, which the pools share"
        )
    else:  # one budget for all, as Taichi's preallocated device memory
        wants = [pool.cells * b for pool, b in zip(pools, row_bytes)]
        shares = share_budget(wants, shared - fixed)
        rule = [
            floor(pool.cells, s // b)
            for pool, floor, s, b in zip(pools, floors, shares, row_bytes)
        ]
        bound = (
            f"the pools share what device_memory_GB ({shared} bytes here) leaves beside "
            "the other fields: raise ti.init(device_memory_GB=...)"
        )
    for pool in pools:
        pool.bound = bound
    segment = prog.root_segment_bytes
    if segment and prog.backend.fields_may_span_segments:  # Vulkan: chosen per element
        for pool in pools:
            for f in (*pool.arrays, pool.free, pool.release):
                f.spans_segments = True
    elif segment:  # Vulkan: each array of a pool within one root segment (one binding)
        for k, pool in enumerate(pools):
            fits = max(1, segment // max(pool.widest_row(), 1) - RESERVED_BLOCKS)
            if fits < rule[k]:
                rule[k] = fits
                pool.bound = (
                    f"an array of a pool is bound whole, and this device binds at most "
                    f"{segment} bytes (maxStorageBufferRange), {pool.widest_row()} bytes "
                    "a block of its widest array; a larger device_memory_GB does not "
                    "help here"
                )
    limit = prog.__dict__.get("root_limit")
    if limit is not None:  # the root's 32-bit offsets
        wants = [cap * b for cap, b in zip(rule, row_bytes)]
        shares = share_budget(wants, (limit - fixed) * 3 // 4)  # LATER_FIELDS
        for k, (pool, s, b) in enumerate(zip(pools, shares, row_bytes)):
            if max(1, s // b) < rule[k]:
                rule[k] = max(1, s // b)
                pool.bound = (
                    f"the fields and pools together are addressed with 32-bit offsets "
                    f"({limit / 2**30:.0f} GiB)"
                )
    for pool, capacity in zip(pools, rule):
        pool.resize(capacity)


# LATER_FIELDS: a quarter of what the other fields leave of the buffer stays free for
# fields placed after the pools are sized (a GUI's canvas, ti.random's state), so the
# root still binds when they come.

FIELD_SLACK = 64
"""Bytes a field may lose to alignment in the root (program.FIELD_ALIGN)."""


class Pool:
    """The pool of one pointer or dynamic SNode: its capacity and its hidden arrays."""

    def __init__(self, node: SNode, capacity: int):
        from .field import Field

        self.node = node
        self.capacity = capacity
        self.rows = self.capacity + RESERVED_BLOCKS
        self.arrays: list[Any] = []
        """Every array stored in this pool's blocks (registered when placed)."""

        def hidden(name: str, n: int) -> Any:
            f = Field(dtypes.i32, name)
            f.hidden = True
            f._place((n,))
            return f

        self.bound = (
            "a pool made after the fields were laid out holds a quarter of "
            "device_memory_GB (on CPU without it, CPU_POOL_BYTES): raise "
            "ti.init(device_memory_GB=...)"
        )
        """What limits the capacity, for the exhausted error (set by size_pools)."""
        self.state = hidden("_pool_state", 4)
        self.free = hidden("_pool_free", self.capacity)
        self.release = hidden("_pool_release", self.capacity)
        _program.get_program().__dict__.setdefault("pools", []).append(self)

    @property
    def cells(self) -> int:
        """The cells (pointer) or chunks (dynamic) that may hold a block at once."""
        return math.prod(cells(self.node).values())

    def row_bytes(self) -> int:
        """The bytes one block takes: a row of every array in it, and its entries in
        the free and release stacks."""
        return sum(f.nbytes // self.rows for f in self.arrays) + 8

    def widest_row(self) -> int:
        """The bytes of the widest row (one block) of one array in this pool."""
        return max((f.nbytes // self.rows for f in self.arrays), default=0)

    def resize(self, capacity: int) -> None:
        """Hold `capacity` blocks (only before the root exists: the caller lays the
        root out again)."""
        self.capacity = capacity
        self.rows = capacity + RESERVED_BLOCKS
        self.free.shape = self.release.shape = (capacity,)

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

    def free_blocks(self, blocks: np.ndarray, used: np.ndarray | None = None) -> None:
        """Release the cells stored in these blocks (their blocks go back to the pools
        below), zero the blocks and push them free. `used` (a dynamic SNode's chunks):
        how many leading elements of each chunk a list wrote; the rest is still zero."""
        keep = blocks >= RESERVED_BLOCKS
        blocks = blocks[keep]
        if not blocks.size:
            return
        if used is not None:
            used = used[keep]
        for f in self.arrays:  # first the blocks below (reading lengths), then zero
            inner = f.words_of
            if inner is not None and inner._pool is not None:  # words of a pool below
                storage = rows_of(f, blocks)
                inner_used = None
                if inner.kind == "dynamic":  # only chunks below a list's length are taken
                    lengths = rows_of(inner.mask, blocks)[blocks]
                    (axis,) = inner.level
                    longest = min(int(lengths.max(initial=0)), inner.level[axis])
                    below = storage[blocks, ..., : -(-longest // inner.chunk_size)]
                    inner_used = chunk_use(inner, below, lengths)
                else:
                    below = storage[blocks]
                inner._pool.free_blocks(below[below != 0].astype(np.int64), inner_used)
        for f in self.arrays:
            zero_rows(f, blocks, used)
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

    def check(self, root: np.ndarray | None = None) -> None:
        """Raise if an allocation found the pool exhausted (on the host or a device);
        `root`: read the word from that copy of the root buffer."""
        if root is None:
            exhausted = self.state._array()[EXHAUSTED]
        else:
            at = self.state.offset + 4 * EXHAUSTED
            exhausted = root[at : at + 4].view(np.int32)[0]
        if exhausted == WAIT_CUT:
            raise TaichiError(
                f"sparse SNode {self.node!r}: a kernel's wait for a block another "
                "invocation was activating was ended by the Vulkan driver, which stops "
                "loops after a number of iterations (Mesa's lavapipe: 65535); its writes "
                "were dropped: run this kernel on another device or the CPU"
            )
        if exhausted:
            raise TaichiError(
                f"sparse pool of SNode {self.node!r} exhausted ({self.capacity} blocks): "
                f"{self.bound}; or activate fewer cells at once"
            )

    @property
    def allocated(self) -> int:
        """Blocks ever taken from the bump counter (Taichi's _num_dynamically_allocated)."""
        return min(int(self.state._array()[ALLOCATED]), self.capacity)


def _on_device(prog: Any) -> bool:
    """Whether `prog`'s root has a device copy (Vulkan) that host access must sync."""
    return hasattr(prog._backend, "zero_root")


def rows_of(f: Any, blocks: np.ndarray) -> np.ndarray:
    """Host side: the storage of pooled array `f` (one row per block) to read rows
    `blocks` from. On Vulkan only the span of those rows comes back from the device, not
    the whole array (a pool's arrays may take hundreds of MiB)."""
    prog = _program.get_program()
    if not _on_device(prog) or not blocks.size:
        return f._array()
    storage = f._host_view()
    row = f.nbytes // storage.shape[0]
    prog.host_read(f.offset + int(blocks.min()) * row, f.offset + (int(blocks.max()) + 1) * row)
    prog.check_device_pools()
    return storage


def zero_rows(f: Any, blocks: np.ndarray, used: np.ndarray | None = None) -> None:
    """Host side: zero rows `blocks` of pooled array `f` (`used`, a dynamic SNode's
    chunks: only the leading elements each list wrote; the rest is zero already). On
    Vulkan the device's bytes are zeroed too, without a download of the array."""
    prog = _program.get_program()
    if _on_device(prog):
        storage = f._host_view()
        row = f.nbytes // storage.shape[0]
        if used is None:
            runs = np.asarray(_runs(blocks), dtype=np.int64).reshape(-1, 2)
            starts, sizes = f.offset + runs[:, 0] * row, (runs[:, 1] - runs[:, 0]) * row
        else:  # the used prefix of each chunk
            per_element = row // (storage[0].size // max(math.prod(f.element_shape), 1))
            order = np.argsort(blocks)
            starts = f.offset + blocks[order] * row
            sizes = used[order] * per_element
            starts, sizes = starts[sizes > 0], sizes[sizes > 0]
        prog.host_zero(starts, sizes)
        return
    storage = f._array()
    if used is None:
        storage[blocks] = 0
    else:  # a chunk: (1, ..., chunk_size) local, cleared up to its use
        flat = storage.reshape((-1,) + tuple(f.element_shape))
        size = flat.shape[0] // storage.shape[0]
        starts = blocks * size - (np.cumsum(used) - used)
        flat[np.repeat(starts, used) + np.arange(int(used.sum()))] = 0


def _runs(blocks: np.ndarray) -> list[tuple[int, int]]:
    """The sorted distinct `blocks` as runs [start, end) of consecutive rows."""
    if not blocks.size:
        return []
    rows = np.sort(blocks)  # distinct by sorting: np.unique hashes (~2 ms for 4000 blocks)
    rows = rows[np.concatenate(([True], rows[1:] != rows[:-1]))]
    breaks = np.nonzero(np.diff(rows) != 1)[0]
    starts = np.concatenate([rows[:1], rows[breaks + 1]])
    ends = np.concatenate([rows[breaks] + 1, rows[-1:] + 1])
    return list(zip(starts.tolist(), ends.tolist()))


def chunk_use(node: SNode, words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """For the non-zero chunk words of a dynamic SNode (`words`: lengths.shape +
    (chunks,)), in `words[words != 0]` order: how many leading elements of each chunk
    its list has written (a write extends the length to cover it)."""
    (axis,) = node.level
    at = np.nonzero(words)
    length = np.minimum(lengths[at[:-1]], node.level[axis])
    return np.clip(length - at[-1] * node.chunk_size, 0, node.chunk_size)


def check_pools(prog: Any, root: np.ndarray | None) -> None:
    """Raise if a kernel found a pool of `prog` exhausted (its writes went to the sink
    block): called after each CPU launch, and whenever a Vulkan program's root comes
    back to the host (a sync, a kernel's return value)."""
    for pool in prog.__dict__.get("pools", ()):
        pool.check(root)


def checked_launcher(prog: Any, run: Any) -> Any:
    """`run` followed by check_pools, for a program with sparse pools."""
    if not prog.__dict__.get("pools"):
        return run

    def launch(args: Any) -> Any:
        out = run(args)
        if prog.config.arch is _program.vulkan:
            prog.check_device_pools()  # reads the pools' state words back
        else:
            check_pools(prog, prog._root)
        return out

    return launch


def clear_zero_blocks(prog: Any) -> None:
    """
    After an adjoint (or forward-mode) kernel: its gradient updates at elements of
    inactive cells went where their primal reads did, to block 0; zero block 0 of the
    gradient and dual arrays again, so inactive cells read 0. (Taichi's gradient writes
    activate the cells instead: here the gradients of inactive cells are dropped.)
    """
    for pool in prog.__dict__.get("pools", ()):
        for f in pool.arrays:
            if f.primal is not None:
                f._array()[0] = 0


# -- index arithmetic shared by the host and the kernel codegen ---------------------------

POOLED_KINDS = ("pointer", "dynamic")


def pool_chain(owner: SNode | None) -> list[SNode]:
    """The pooled SNodes (pointer, dynamic) from the root down to `owner` (inclusive)."""
    from .snode import sparse_ancestors

    return [n for n in sparse_ancestors(owner) if n.kind in POOLED_KINDS]


def nearest_pool(node: SNode | None) -> SNode | None:
    chain = pool_chain(node)
    return chain[-1] if chain else None


def cells(node: SNode) -> dict[int, int]:
    """The cells of a pooled node, each holding one block: a pointer's own cells; a
    dynamic SNode's chunks (its parent's cells x chunks of each list)."""
    return node.extents if node.kind == "pointer" else node.chunk_cells


def spans(space: dict[int, int], node: SNode) -> dict[int, int]:
    """Per axis of `cells(node)`: the elements of `space` one cell spans."""
    out = {a: space[a] // n for a, n in cells(node).items()}
    if node.kind == "dynamic":
        (axis,) = node.level
        out[axis] = node.chunk_size
    return out


def local_extents(space: dict[int, int], owner: SNode) -> tuple[int, ...]:
    """The extents of an array over `space` inside one block of `owner`."""
    span = spans(space, owner)
    return tuple(span.get(a, space[a]) for a in sorted(space))


def cell_parts(space: dict[int, int], node: SNode) -> list[tuple[int, int]]:
    """Per axis of `cells(node)`: the position of that axis in an index over `space`,
    and the elements of `space` one cell spans along it."""
    axes = sorted(space)
    span = spans(space, node)
    return [(axes.index(a), span[a]) for a in sorted(cells(node))]


def local_parts(space: dict[int, int], owner: SNode) -> list[int | None]:
    """Per axis of `space`: the elements one block of `owner` spans (None: whole axis)."""
    span = spans(space, owner)
    return [span.get(a) for a in sorted(space)]


def storage_index(space: dict[int, int], owner: SNode | None, index: list[Any], activate: bool = False) -> tuple[Any, ...]:
    """
    Host side: the storage index of element `index` (ints or NumPy arrays) of an array
    over `space` stored in `owner`'s pool. With `activate` (one element) the pooled
    cells above it get blocks.
    """
    block: Any = None
    prev: SNode | None = None
    for node in pool_chain(owner):
        cell = [index[p] // r for p, r in cell_parts(space, node)]
        words = node.words._array()
        at = _in_pool(cells(node), prev, block, cell)
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


def _padded(space: dict[int, int], owner: SNode) -> dict[int, int]:
    """`space` rounded up to whole blocks (a dynamic list's last chunk may overhang)."""
    span = spans(space, owner)
    return {a: cells(owner)[a] * span[a] if a in span else n for a, n in space.items()}


def gather(f: Any) -> np.ndarray:
    """Host side: the logical array (space shape + element shape) of a pooled array;
    inactive cells read block 0 (zeros)."""
    space, owner = f.space, f.pool_owner
    blocks = block_table(owner)
    rows = f._array()[blocks]  # cells + local + element
    out = _interleave(rows, space, owner, len(f.element_shape))
    return out[tuple(slice(0, space[a]) for a in sorted(space))]


def scatter(f: Any, values: np.ndarray, where: np.ndarray | None = None) -> None:
    """Host side: write a logical array into the blocks of active cells (where `where`,
    a bool array of the space's shape, holds)."""
    space, owner = f.space, f.pool_owner
    blocks = block_table(owner)
    storage = f._array()
    current = gather(f)
    values = np.broadcast_to(np.asarray(values, dtype=current.dtype), current.shape)
    if where is not None:
        values = np.where(where.reshape(where.shape + (1,) * len(f.element_shape)), values, current)
    padded = _padded(space, owner)
    full = np.zeros(tuple(padded[a] for a in sorted(space)) + current.shape[len(space) :], current.dtype)
    full[tuple(slice(0, space[a]) for a in sorted(space))] = values
    rows = _deinterleave(full, space, owner, len(f.element_shape))
    live = blocks >= RESERVED_BLOCKS
    storage[blocks[live]] = rows[live]


def block_table(owner: SNode) -> np.ndarray:
    """Host side: the block of every cell of a pooled node (an array of its cells)."""
    extents = cells(owner)
    grids = np.meshgrid(*[np.arange(extents[a]) for a in sorted(extents)], indexing="ij")
    index = storage_index(extents, owner.words.pool_owner, list(grids))
    return np.asarray(owner.words._array()[index]).astype(np.int64)


def _interleave(rows: np.ndarray, space: dict[int, int], owner: SNode, n_elem: int) -> np.ndarray:
    """(owner cells..., local..., element...) -> (padded space..., element...)."""
    owner_axes = sorted(cells(owner))
    space_axes = sorted(space)
    nc = len(owner_axes)
    order: list[int] = []
    for k, a in enumerate(space_axes):
        if a in owner_axes:
            order.append(owner_axes.index(a))
        order.append(nc + k)
    order += [nc + len(space_axes) + e for e in range(n_elem)]
    out = rows.transpose(order)
    padded = _padded(space, owner)
    return out.reshape(tuple(padded[a] for a in space_axes) + rows.shape[nc + len(space_axes) :])


def _deinterleave(values: np.ndarray, space: dict[int, int], owner: SNode, n_elem: int) -> np.ndarray:
    """(padded space..., element...) -> (owner cells..., local..., element...)."""
    extents = cells(owner)
    owner_axes = sorted(extents)
    span = spans(space, owner)
    split: list[int] = []
    cell_pos: dict[int, int] = {}
    local_pos: list[int] = []
    for a in sorted(space):
        if a in extents:
            cell_pos[a] = len(split)
            split.append(extents[a])
            local_pos.append(len(split))
            split.append(span[a])
        else:
            local_pos.append(len(split))
            split.append(space[a])
    elem = values.shape[len(space) :]
    shaped = values.reshape(tuple(split) + elem)
    order = [cell_pos[a] for a in owner_axes] + local_pos
    order += [len(split) + e for e in range(n_elem)]
    return shaped.transpose(order)
