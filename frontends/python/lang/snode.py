"""
The SNode tree: `ti.root.dense(...)`, `.pointer(...)`, `.bitmasked(...)`, `.dynamic(...)`
and `.place(x)`.

Layout (how sparse SNodes are stored; lang/pools.py has the pools):

- A pointer SNode keeps one i32 word per cell: 0 inactive, else the cell's block in
  the pointer's pool. Every array placed below it (down to the next pointer) is stored
  as (blocks, *extents inside one cell): only active cells take memory, and a
  deactivated cell's block goes back to the pool (zeroed), so a program that activates
  and deactivates does not grow (Taichi's test_gc). Inactive cells read block 0, which
  stays zero.
- A dynamic SNode keeps one i32 length per list and one word per chunk of each list;
  the chunks (chunk_size elements of each field placed under it) come from its pool.
- A bitmasked SNode keeps one i32 mask word per cell (1 active) over storage for every
  cell; deactivation clears the word and keeps the data (as Taichi does).
- A write to an element activates the cells above it: a pointer cell or a list chunk
  gets a block (claimed with a compare-and-swap, allocated with atomics on the pool),
  a bitmasked word becomes 1, a dynamic length grows to cover the index.
- A struct-for over a sparse field or SNode visits only active cells: list generation,
  level by level from the root, collects the active cells of each pointer/bitmasked
  level into its cell list (a hidden i32 field at the root), then a parallel loop over
  the deepest list runs a serial loop over the elements of each cell (codegen/sparse.py).

The indices of an SNode are those of its own cell space (`snode.shape`): for
`ti.root.pointer(ti.i, 4).dense(ti.i, 8)` the pointer has cells 0..3 and
`ti.is_active(ptr, [1])` asks about elements 8..15.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError, TaichiRuntimeError

from . import dtypes
from . import program as _program
from .enums import SNodeGradType

SPARSE_KINDS = ("pointer", "bitmasked", "dynamic")
CELL_LIST_LIMIT = 2**24
"""The most cells a pointer/bitmasked level may have to get a cell list (64 MiB)."""
_DENSE_BACKING_LIMIT = 8 * 2**30


def check_field_extents(shape: Sequence[int]) -> None:
    """Every extent of a field (or of an SNode) is positive, as Taichi requires."""
    for axis, s in enumerate(shape):
        if s <= 0:
            raise TaichiRuntimeError(
                "Every dimension of a Taichi field should be positive, "
                f"got {s} in dimension {axis}."
            )


class SNode:
    """
    A node of the layout tree. `kind` is "root", "dense", "pointer", "bitmasked",
    "dynamic" or "place"; `extents` maps each axis to the number of cells along it,
    counting this level and its ancestors (so `shape` is the node's cell space).
    """

    def __init__(
        self,
        kind: str,
        parent: SNode | None,
        level: dict[int, int],
        chunk_size: int | None = None,
    ):
        self.kind = kind
        self.program = _program._current if parent is not None else None
        self._parent = parent
        self.level = level
        self.chunk_size = chunk_size
        self.children: list[SNode] = []
        self.fields: list[Any] = []  # the fields placed directly under this node
        extents = dict(parent.extents) if parent is not None else {}
        for axis, extent in level.items():
            extents[axis] = extents.get(axis, 1) * extent
        self.extents = extents
        self.mask: Any = None  # the hidden i32 mask (pointer, bitmasked) or length field
        if kind in SPARSE_KINDS:
            self._make_mask()

    @property
    def _name(self) -> str:
        """A place node's field name (Taichi's `x.snode._name`); "" for other nodes."""
        return self.fields[0].name if self.kind == "place" and self.fields else ""

    # -- building -------------------------------------------------------------------

    def _make_mask(self) -> None:
        """The hidden i32 arrays of a sparse node: the block words of a pointer (and its
        pool, lang/pools.py), the mask of a bitmasked node, the lengths and the chunk
        words of a dynamic node (its pool comes when fields are placed under it). They
        live in the pool of the nearest pooled node above, if any."""
        from .field import Field
        from .pools import local_extents, nearest_pool

        prog = _program.get_program()
        space = dict(self.extents)
        if self.kind == "dynamic":
            parent = self._parent
            assert parent is not None
            (axis,) = self.level
            if axis < max(parent.extents, default=-1) or axis in parent.extents:
                raise TaichiError(
                    "dynamic SNode: its axis must be a new, last axis "
                    "(ti.root.dense(ti.i, n).dynamic(ti.j, m)) in taichi-xdsl"
                )
            space = dict(parent.extents)
        owner = nearest_pool(self._parent)
        if owner is not None and owner._pool is None:  # the first array in its blocks
            words = math.prod(local_extents(space, owner))
            if self.kind == "dynamic":
                words *= 1 + -(-self.level[max(self.level)] // self.chunk_size)
            owner._make_pool(4 * words)
        mask = Field(dtypes.i32, f"_{self.kind}_mask")
        mask.hidden = True
        _place_in_pool(mask, space, self._parent)
        _check_storage(mask, f"the cell words of a {self.kind} SNode of shape {self.shape}")
        self.mask = mask
        self.words = mask  # a pointer's words are its mask
        if self.kind == "dynamic":
            (axis,) = self.level
            self.chunk_cells = {**space, axis: -(-self.level[axis] // self.chunk_size)}
            words = Field(dtypes.i32, "_dynamic_chunks")
            words.hidden = True
            _place_in_pool(words, dict(self.chunk_cells), self._parent)
            _check_storage(words, f"the chunk words of a dynamic SNode of shape {self.shape}")
            self.words = words
        if self.kind in ("pointer", "dynamic"):
            self.words.words_of = self
        cells = math.prod(self.extents.values())
        if self.kind != "dynamic" and cells <= CELL_LIST_LIMIT:
            cell_list = Field(dtypes.i32, f"_{self.kind}_cells")
            cell_list.hidden = True
            cell_list._place((1 + cells,))
            self.cell_list = cell_list
        prog.__dict__.setdefault("sparse_snodes", []).append(self)

    cell_list: Any = None
    """The list of this level's active cells a struct-for generates (codegen/sparse.py;
    taichi.list_* ops): a count and one word per cell, at the root. None for dynamic
    levels and levels of more than CELL_LIST_LIMIT cells (their struct-for tests every
    cell)."""

    _pool: Any = None

    @property
    def pool(self) -> Any:
        """The pool of a pointer or dynamic SNode (lang/pools.py), made on first need;
        its capacity is sized when the first array is placed in its blocks."""
        if self._pool is None:
            self._make_pool(4)
        return self._pool

    def _make_pool(self, block_bytes: int) -> None:
        from .pools import Pool, chunk_capacity, pointer_capacity

        if self.kind == "pointer":
            capacity = pointer_capacity(math.prod(self.shape), block_bytes)
        else:
            capacity = chunk_capacity(math.prod(self.chunk_cells.values()), block_bytes)
        self._pool = Pool(self, capacity)

    def _child(
        self, kind: str, axis: Any, dimensions: int | Sequence[int], chunk_size: int | None = None
    ) -> SNode:
        if self.kind == "dynamic":
            raise TaichiError("a dynamic SNode can only have fields placed under it")
        indices = axis.indices
        dims = (
            (dimensions,) * len(indices)
            if isinstance(dimensions, int | np.integer)
            else tuple(dimensions)
        )
        if len(dims) == 1 and len(indices) > 1:  # pointer(ti.ijk, [n]): n on each axis
            dims = dims * len(indices)
        if len(dims) != len(indices):
            raise TaichiError(f"{kind}({axis}, {dimensions}): one extent per axis needed")
        if kind == "dynamic" and len(indices) != 1:
            raise TaichiError("dynamic SNode: exactly one axis")
        check_field_extents([int(d) for d in dims])
        child = SNode(kind, self, {a: int(d) for a, d in zip(indices, dims)}, chunk_size)
        self.children.append(child)
        return child

    def dense(self, axis: Any, dimensions: int | Sequence[int]) -> SNode:
        """A dense child over `axis` with extents `dimensions`."""
        return self._child("dense", axis, dimensions)

    def pointer(self, axis: Any, dimensions: int | Sequence[int]) -> SNode:
        """A pointer child: cells are activated on write, deactivated (and zeroed) on demand."""
        return self._child("pointer", axis, dimensions)

    def bitmasked(self, axis: Any, dimensions: int | Sequence[int]) -> SNode:
        """A bitmasked child: one activity word per cell over dense storage."""
        return self._child("bitmasked", axis, dimensions)

    def dynamic(self, axis: Any, dimension: int, chunk_size: int | None = None) -> SNode:
        """A dynamic child: a list of up to `dimension` cells per parent cell."""
        return self._child("dynamic", axis, dimension, chunk_size or dimension)

    def hash(self, *args: Any, **kwargs: Any) -> SNode:
        raise TaichiError("ti.root.hash(...): hash SNodes are not supported by taichi-xdsl")

    def bit_struct(self, *args: Any, **kwargs: Any) -> SNode:
        raise TaichiError("bit_struct SNodes (quantized types) are not supported by taichi-xdsl")

    def quant_array(self, axes: Any, dimensions: int | Sequence[int], max_num_bits: int) -> SNode:
        """A child whose elements of one quantized field (placed in it) are packed
        into one word per cell of this node (lang/bitpacked.py)."""
        child = self._child("quant_array", axes, dimensions)
        child.max_num_bits = max_num_bits
        return child

    def place(self, *fields: Any, offset: Any = None) -> SNode:
        """Place `fields` here: each gets the shape of this node (and `offset`, the
        index of its first element along each axis; `Field.index_offset`)."""
        from .bitpacked import BitpackedFields, place_in_quant_array
        from .field import Field, MatrixMember
        from .struct import StructField

        if self.kind == "quant_array":
            return place_in_quant_array(self, fields)
        bitpacks = [f for f in fields if isinstance(f, BitpackedFields)]
        fields = tuple(f._word_field() if f in bitpacks else f for f in fields)
        shape = self.shape  # the axes used, in order (ti.root.dense(ti.j, n): 1-d)
        expanded: list[Any] = []
        members: dict[Field, set[tuple[int, ...]]] = {}

        def expand(f: Any) -> None:  # a struct field places each of its members
            if isinstance(f, StructField):
                for member in f.fields.values():
                    expand(member)
            elif isinstance(f, MatrixMember):
                members.setdefault(f.field, set()).add(f.indices)
            else:
                expanded.append(f)

        for f in fields:
            expand(f)
        for f, placed in members.items():  # all members here: the field; else recorded
            if len(placed) == math.prod(f.element_shape):
                expanded.append(f)
                continue
            f.__dict__.setdefault("placed_members", {}).update(
                {i: shape for i in sorted(placed)}
            )
            sparse = f.__dict__.setdefault("members_sparse", [])
            sparse.append(self.is_sparse_tree())
            shapes = f.placed_members
            if (
                len(shapes) == math.prod(f.element_shape)
                and len(set(shapes.values())) == 1
                and not any(sparse)
            ):  # placed apart, one shape, dense: stored together, the values the same
                expanded.append(f)
        from .field import Field
        from .pools import local_extents, nearest_pool

        owner = nearest_pool(self)
        if owner is not None and owner._pool is None:  # the first arrays in its blocks
            local = math.prod(local_extents(dict(self.extents), owner))
            owner._make_pool(local * sum(
                f.dtype.np_dtype.itemsize * math.prod(f.element_shape)
                for f in expanded
                if isinstance(f, Field)
            ))
        for f in expanded:
            if not isinstance(f, Field):
                raise TaichiError(f"place() takes fields, got {f!r}")
            if f.primal is not None and f.placed and f.shape == shape:
                continue  # `place(x, x.grad)`: the gradient was placed with x
            _place_in_pool(f, dict(self.extents), self, offset)
            if self.is_sparse_tree():
                _check_storage(f, f"placing a field of shape {f.shape} under a sparse SNode")
            leaf = SNode("place", self, {})
            self.children.append(leaf)
            leaf.fields.append(f)
            f._snode = leaf
            self.fields.append(f)
        for bitpack in bitpacks:
            bitpack._bind()
        return self

    def lazy_grad(self) -> None:
        """Taichi's `ti.root.lazy_grad()`: place the gradient field of every float
        field placed so far that has none placed, with the shape of its field."""
        from .field import _place_companions

        _place_companions("grad")

    def lazy_dual(self) -> None:
        """Taichi's `ti.root.lazy_dual()`: as lazy_grad, for the dual fields."""
        from .field import _place_companions

        _place_companions("dual")

    # -- queries --------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.extents[a] for a in sorted(self.extents))

    def parent(self, n: int = 1) -> SNode | None:
        """The ancestor `n` levels up (None above the root)."""
        node: SNode | None = self
        for _ in range(n):
            if node is None:
                return None
            node = node._parent
        return node

    @property
    def ptr(self) -> SNodeInfo:
        """What Taichi's compiled SNode (`snode.ptr`) tells about this node."""
        return SNodeInfo(self)

    def get_children(self) -> list[SNode]:
        return list(self.children)

    @property
    def num_children(self) -> int:
        return len(self.children)

    def is_sparse_tree(self) -> bool:
        """Whether this node or an ancestor is sparse."""
        return bool(sparse_ancestors(self))

    def _fields_below(self) -> list[Any]:
        """Every field placed in this subtree, hidden masks of sparse descendants too."""
        out: list[Any] = []
        for child in self.children:
            if child.mask is not None:
                out.append(child.mask)
            if child.kind == "place":  # each field once, from its place node
                out.extend(child.fields)
            out.extend(child._fields_below())
        return out

    def deactivate_all(self) -> None:
        """Deactivate every cell of this SNode (Python scope); a pointer's blocks go
        back to its pool (zeroed), with the blocks of the pointers below them."""
        if self.kind not in SPARSE_KINDS:
            for child in self.children:
                child.deactivate_all()
            return
        from .pools import chunk_use

        _collect_pools()
        if self.kind in ("pointer", "dynamic"):
            words = self.words._array()
            live = words != 0
            used = None
            if self.kind == "dynamic":
                used = chunk_use(self, words, self.mask._array())
            blocks = words[live].astype(np.int64)
            words[...] = 0
            if self._pool is not None:
                self._pool.free_blocks(blocks, used)
        if self.kind != "pointer":  # a bitmasked mask, dynamic lengths
            self.mask._array()[...] = 0

    @property
    def _num_dynamically_allocated(self) -> int:
        """Blocks (chunks of a dynamic SNode) of this SNode's pool ever handed out; freed
        ones are reused."""
        if self.kind not in ("pointer", "dynamic"):
            raise TaichiError("_num_dynamically_allocated: pointer and dynamic SNodes only")
        return self._pool.allocated if self._pool is not None else 0

    def __repr__(self) -> str:
        if self.kind == "root":
            return "ti.root"
        return f"{self._parent!r} => {self.kind} {list(self.shape)}"


def _check_storage(f: Any, what: str) -> None:
    """Refuse a layout whose storage could not be allocated, naming why: arrays under
    a pointer take capacity x block (lang/pools.py), the others every cell."""
    if f.nbytes > _DENSE_BACKING_LIMIT:
        raise TaichiError(
            f"{what} needs {f.nbytes / 2**30:.1f} GiB of storage {f.storage_shape}: "
            "taichi-xdsl stores the cells under a pointer SNode in a pool of blocks "
            "(lang/pools.py), the words of pointer cells and bitmasked and dynamic "
            "SNodes with storage for every cell"
        )


def _place_in_pool(f: Any, space: dict[int, int], above: SNode | None, offset: Any = None) -> None:
    """Place `f` over `space`, stored in the pool of the nearest pointer at or above
    `above` (if any)."""
    from .pools import nearest_pool

    f.space = space
    f.pool_owner = nearest_pool(above)
    f._place(tuple(space[a] for a in sorted(space)), offset)
    if f.pool_owner is not None:
        f.pool_owner.pool.arrays.append(f)


def sparse_ancestors(node: SNode | None) -> list[SNode]:
    """The pointer/bitmasked/dynamic nodes from the root down to `node` (inclusive)."""
    out: list[SNode] = []
    while node is not None:
        if node.kind in SPARSE_KINDS:
            out.append(node)
        node = node._parent
    out.reverse()
    return out


def field_container(f: Any) -> SNode | None:
    """The SNode a field is placed in (None for fields of `ti.field(shape=...)`)."""
    leaf = getattr(f, "_snode", None)
    return leaf._parent if leaf is not None else None


def is_sparse_field(f: Any) -> bool:
    return bool(sparse_ancestors(field_container(f)))


def cell_map(node: SNode, leaf: dict[int, int]) -> list[tuple[int, int]]:
    """
    For each axis of `node` (in order): the position of that axis in the index of a
    descendant whose extents are `leaf`, and how many of its elements one cell covers.
    """
    axes = sorted(leaf)
    return [(axes.index(a), leaf[a] // node.extents[a]) for a in sorted(node.extents)]


def leaf_extents(f: Any) -> dict[int, int]:
    """The axes and extents of a field's index space."""
    container = field_container(f)
    if container is None:
        return dict(enumerate(f.shape))
    return dict(container.extents)


def cell_of(node: SNode, leaf: dict[int, int], index: Sequence[int]) -> tuple[int, ...]:
    """The cell of `node` holding element `index` of a descendant with extents `leaf`."""
    return tuple(index[p] // r for p, r in cell_map(node, leaf))


# -- Python scope ------------------------------------------------------------------------


def _cell_index(node: SNode, indices: Any) -> tuple[int, ...]:
    if isinstance(indices, int | np.integer):
        indices = (indices,)
    if hasattr(indices, "to_numpy"):
        indices = tuple(indices.to_numpy().tolist())
    indices = tuple(int(i) for i in indices)
    return indices


def _mask_index(node: SNode, cell: tuple[int, ...]) -> tuple[int, ...]:
    """The index of `cell` (in node's cell space) in node's mask/length field."""
    expect = len(node.mask.shape) if node.kind == "dynamic" else len(node.shape)
    if len(cell) == len(node.shape) and node.kind == "dynamic":
        cell = cell[:-1]
    if len(cell) != expect:
        raise TaichiError(
            f"{node.kind} SNode of shape {node.shape} indexed with {len(cell)} indices"
        )
    for c, n in zip(cell, node.mask.shape):
        if not 0 <= c < n:
            raise IndexError(f"index {cell} out of the {node.kind} SNode's cells {node.shape}")
    return cell


def _collect_pools() -> None:
    """Python scope is about to touch sparse storage: run the gc of every pool (blocks
    released by kernels, or lost in activation races, become free) and report an
    exhausted pool."""
    for node in _program.get_program().__dict__.get("sparse_snodes", []):
        if node._pool is not None:
            node._pool.collect()


def _mask_get(node: SNode, cell: tuple[int, ...]) -> int:
    return int(node.mask._array()[node.mask._storage_index(cell)])


def _mask_set(node: SNode, cell: tuple[int, ...], value: int) -> None:
    node.mask._array()[node.mask._storage_index(cell, activate=True)] = value


def py_activate(node: SNode, indices: Any) -> None:
    cell = _mask_index(node, _cell_index(node, indices))
    if node.kind == "dynamic":
        raise TaichiError("ti.activate on a dynamic SNode: use ti.append")
    _collect_pools()
    if node.kind == "pointer":
        words = node.mask._array()
        at = node.mask._storage_index(cell, activate=True)
        if int(words[at]) == 0:
            words[at] = node.pool.allocate(1)[0]
    elif node.kind == "bitmasked":
        _mask_set(node, cell, 1)
    for up in sparse_ancestors(node._parent):
        if up.kind == "bitmasked":
            _mask_set(up, cell_of(up, node.extents, cell), 1)


def py_deactivate(node: SNode, indices: Any) -> None:
    if node.kind not in SPARSE_KINDS:
        raise TaichiError("ti.deactivate works on pointer, bitmasked and dynamic SNodes")
    cell = _mask_index(node, _cell_index(node, indices))
    _collect_pools()
    words = node.mask._array()
    at = node.mask._storage_index(cell)
    if node.kind == "pointer":
        if node.mask.pool_owner is not None and int(at[0]) < 2:
            return  # the cells above are inactive: so is this one
        block = int(words[at])
        words[at] = 0
        node.pool.free_blocks(np.array([block], dtype=np.int64))
        return
    if node.mask.pool_owner is not None and int(at[0]) < 2:
        return
    words[at] = 0
    if node.kind == "dynamic":  # its chunks go back to the pool
        chunks = node.words
        table = chunks._array()
        for c in range(node.chunk_cells[max(node.level)]):
            at = chunks._storage_index(cell + (c,))
            block = int(table[at])
            if block:
                table[at] = 0
                node.pool.free_blocks(np.array([block], dtype=np.int64))


def py_is_active(node: SNode, indices: Any) -> int:
    if node.kind not in ("pointer", "bitmasked"):
        raise TaichiError("ti.is_active only works on pointer, hash or bitmasked nodes.")
    cell = _mask_index(node, _cell_index(node, indices))
    if any(_mask_get(up, cell_of(up, node.extents, cell)) == 0 for up in _pointers_above(node)):
        return 0
    return int(_mask_get(node, cell) != 0)


def _pointers_above(node: SNode) -> list[SNode]:
    return [n for n in sparse_ancestors(node._parent) if n.kind == "pointer"]


def py_length(node: SNode, indices: Any) -> int:
    if node.kind != "dynamic":
        raise TaichiError("ti.length only works on dynamic SNodes")
    cell = _mask_index(node, _cell_index(node, indices) if indices is not None else ())
    return max(0, min(_mask_get(node, cell), node.level[max(node.level)]))


def py_append(node: SNode, indices: Any, value: Any) -> int:
    if node.kind != "dynamic" or len(node.fields) != 1:
        raise TaichiError("ti.append works on a dynamic SNode holding one field")
    cell = _mask_index(node, _cell_index(node, indices) if indices is not None else ())
    _collect_pools()
    old = _mask_get(node, cell)
    capacity = node.shape[-1]
    _mask_set(node, cell, old + 1)
    if old < capacity:
        f = node.fields[0]
        f._raw_set(cell + (old,), value)
    return old


def _dynamic_position(node: SNode, leaf: dict[int, int], index: Sequence[int]) -> int:
    (axis,) = node.level
    return index[sorted(leaf).index(axis)] // (leaf[axis] // node.extents[axis])


def activate_python_write(f: Any, index: tuple[int, ...]) -> None:
    """A Python-scope write of element `index` (storage coordinates) of a sparse field:
    bitmasked masks and dynamic lengths above it (pointer blocks come with the write)."""
    _collect_pools()
    leaf = leaf_extents(f)
    for node in sparse_ancestors(field_container(f)):
        if node.kind == "dynamic":
            parent = node.parent()
            assert parent is not None
            cell = cell_of(parent, leaf, index)
            end = _dynamic_position(node, leaf, index) + 1
            _mask_set(node, cell, max(_mask_get(node, cell), end))
        elif node.kind == "bitmasked":
            _mask_set(node, cell_of(node, leaf, index), 1)
        else:
            words = node.mask._array()
            at = node.mask._storage_index(cell_of(node, leaf, index), activate=True)
            if int(words[at]) == 0:
                words[at] = node.pool.allocate(1)[0]


def activate_all(f: Any) -> None:
    """Every cell above every element of `f` becomes active (Python scope)."""
    from .pools import gather, scatter

    _collect_pools()
    def fill(array: Any, values: Any) -> None:
        if array.pool_owner is not None:
            scatter(array, values)
        else:
            array._array()[...] = values

    for node in sparse_ancestors(field_container(f)):
        if node.kind in ("pointer", "dynamic"):
            chunks = node.words
            words = gather(chunks) if chunks.pool_owner is not None else chunks._array().copy()
            empty = words == 0
            words[empty] = node.pool.allocate(int(empty.sum()))
            fill(chunks, words)
        if node.kind != "pointer":
            fill(node.mask, node.shape[-1] if node.kind == "dynamic" else 1)


def _mask_values(node: SNode) -> np.ndarray:
    from .pools import gather

    if node.mask.pool_owner is not None:
        return gather(node.mask)
    return node.mask._array()


def active_elements(f: Any) -> np.ndarray | None:
    """A bool array of f's shape: which elements a struct-for over f visits (None: all)."""
    nodes = sparse_ancestors(field_container(f))
    if not nodes:
        return None
    _collect_pools()
    leaf = leaf_extents(f)
    grid = np.indices(f.shape, sparse=True) if f.shape else ()
    active = np.ones(f.shape, dtype=bool)
    for node in nodes:
        words = _mask_values(node)
        if node.kind == "dynamic":
            parent = node.parent()
            assert parent is not None
            cell = tuple(grid[p] // r for p, r in cell_map(parent, leaf))
            (axis,) = node.level
            pos = grid[sorted(leaf).index(axis)] // (leaf[axis] // node.extents[axis])
            active &= pos < words[cell]
        else:
            cell = tuple(grid[p] // r for p, r in cell_map(node, leaf))
            active &= words[cell] != 0
    return active


def deactivate_all_snodes() -> None:
    """`ti.deactivate_all_snodes()`: every sparse cell of the program becomes inactive."""
    prog = _program.get_program()
    for node in prog.__dict__.get("sparse_snodes", []):
        node.deactivate_all()


def rescale_index(a: Any, b: Any, I: Any) -> Any:
    """`ti.rescale_index(x, snode, I)`: the index I of `a`'s cell space in `b`'s."""
    shape_a = a.shape if not hasattr(a, "snode") else a.shape
    shape_b = b.shape
    from .matrix import Vector

    items = list(I.to_numpy().tolist()) if hasattr(I, "to_numpy") else list(I)
    out = []
    for k, v in enumerate(items):
        if k < len(shape_b) and k < len(shape_a):
            if shape_a[k] >= shape_b[k]:  # finer -> coarser: divide down
                out.append(v // (shape_a[k] // shape_b[k]))
            else:  # coarser -> finer: the first fine cell
                out.append(v * (shape_b[k] // shape_a[k]))
        else:
            out.append(v)
    return Vector(out)


def _no_activate(*nodes: Any) -> None:
    raise TaichiError("ti.no_activate() can only be used inside a kernel")


from .ops import Intrinsic  # noqa: E402

activate = Intrinsic("activate", py_activate)
deactivate = Intrinsic("deactivate", py_deactivate)
is_active = Intrinsic("is_active", py_is_active)
append = Intrinsic("append", py_append)
length = Intrinsic("snode_length", py_length)
no_activate = Intrinsic("no_activate", _no_activate)
rescale_index = Intrinsic("rescale_index", rescale_index)


class SNodeInfo:
    """`snode.ptr`: the autodiff role of a place node's field."""

    def __init__(self, node: SNode):
        self.node = node

    def _field(self) -> Any:
        fields = self.node.fields
        return fields[0] if self.node.kind == "place" and fields else None

    def get_snode_grad_type(self) -> SNodeGradType:
        """PRIMAL, or ADJOINT / DUAL for the gradient / dual field of a primal."""
        f = self._field()
        if f is None or f.primal is None:
            return SNodeGradType.PRIMAL
        return SNodeGradType.ADJOINT if f is f.primal.grad else SNodeGradType.DUAL

    def has_adjoint_checkbit(self) -> bool:
        """Whether a validating ti.ad.Tape checked this field's global data access."""
        f = self._field()
        return f is not None and bool(f.adjoint_checked)
