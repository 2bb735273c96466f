"""
`ti.algorithms.parallel_sort`: a stable LSD radix sort in our kernels.

The first pass maps the keys into an ndarray of sortable u32 (u64) bits as it counts
their digits, and the last scatters them back into the field: those two kernels compile
per field; the passes between work on ndarrays only, so they compile once per program
(and come from the offline cache after that), whatever the fields and their sizes.

On a CPU with fewer than four worker threads, keys alone are sorted by NumPy on the host
(`_sort_on_host`): its SIMD quicksort streams through memory, while each radix pass
scatters to 256 places; the four passes cost ~2.7 NumPy sorts on one thread. One thread
sorts integer keys in place in the field's storage; two or three sort a half each (NumPy
releases the GIL) and a merge-path kernel merges the halves into the field.
"""

from __future__ import annotations

from typing import Any

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

from ..scratch import borrow
from .scan import chunk_slots, inclusive_scan

_RADIX_BITS = 8
_BUCKETS = 1 << _RADIX_BITS
_BLOCK = 4096  # keys a thread counts and scatters; at most _MAX_BLOCKS blocks
_MAX_BLOCKS = 4096
_CPU_BLOCKS_PER_THREAD = 4  # on CPU: few large blocks (the per-block counters are
# transposed and scanned every pass, 256 per block), enough to balance the threads
_CPU_RADIX_MIN_THREADS = 4  # below this many CPU threads, keys alone sort on the host:
# the radix sort's four passes cost ~2.7 NumPy sorts of the same keys on one thread
# (2^24 u32 on a 2-core VM: 872 against 326 ms) and ~1.7 on two (276 against 164 ms)
_MIN_KEYS_TO_SPLIT = 1 << 16  # fewer keys sort on the calling thread alone
_MERGE_CHAINS = 4  # segments a merging thread advances side by side


@ti.func
def _sortable(key, dtype: ti.template(), kind: ti.template(), bits: ti.template()):
    """The unsigned bits (`dtype`, `bits` wide) of a key, ordered as the keys."""
    sign = ti.cast(ti.static(1 << (bits - 1)), dtype)
    out = ti.cast(0, dtype)
    if ti.static(kind == "float"):
        b = ti.bit_cast(key, dtype)
        # Negative floats: flip every bit (they order backwards); others: the sign.
        out = ~b if b & sign else b | sign
    elif ti.static(kind == "signed"):  # two's complement: flip the sign bit
        out = ti.cast(key, dtype) ^ sign
    else:
        out = key
    return out


@ti.func
def _key(b, bdtype: ti.template(), dtype: ti.template(), kind: ti.template(),
         bits: ti.template()):
    """The inverse of _sortable: the key (of `dtype`) whose sortable bits (of `bdtype`)
    are b."""
    sign = ti.cast(ti.static(1 << (bits - 1)), bdtype)
    out = ti.cast(0, dtype)
    if ti.static(kind == "float"):
        out = ti.bit_cast(b ^ sign if b & sign else ~b, dtype)
    elif ti.static(kind == "signed"):
        out = ti.cast(b ^ sign, dtype)
    else:
        out = b
    return out


@ti.func
def _digit(u, shift, dtype: ti.template()):
    """The radix digit of sortable bits u (of `dtype`) at `shift`."""
    return ti.cast((u >> ti.cast(shift, dtype)) & ti.cast(_BUCKETS - 1, dtype), ti.i32)


@ti.kernel
def _to_sortable_and_count(keys: ti.template(), first: ti.i32, n: ti.i32, blocks: ti.i32,
                           block: ti.i32, sk: ti.types.ndarray(ndim=1),
                           counts: ti.types.ndarray(ndim=1), kind: ti.template(),
                           bits: ti.template()):
    """sk[i]: the sortable bits of keys[first + i], and the first pass's counts (as
    _count_digits with shift 0), in one read of the keys."""
    for b in range(blocks):
        base = b * _BUCKETS
        for d in range(_BUCKETS):
            counts[base + d] = 0
        for i in range(b * block, ti.min((b + 1) * block, n)):
            u = _sortable(keys[first + i], sk.dtype, kind, bits)
            sk[i] = u
            d = _digit(u, 0, sk.dtype)
            counts[base + d] = counts[base + d] + 1


@ti.kernel
def _to_sortable(keys: ti.template(), first: ti.i32, sk: ti.types.ndarray(ndim=1),
                 kind: ti.template(), bits: ti.template()):
    for i in range(sk.shape[0]):
        sk[i] = _sortable(keys[first + i], sk.dtype, kind, bits)


@ti.kernel
def _from_sortable(sk: ti.types.ndarray(ndim=1), keys: ti.template(), first: ti.i32,
                   kind: ti.template(), bits: ti.template()):
    for i in range(sk.shape[0]):
        keys[first + i] = _key(sk[i], sk.dtype, keys.dtype, kind, bits)


@ti.func
def _merge_split(sk, half, nb, d):
    """How many of the first d keys of the merge of the sorted runs sk[:half] and
    sk[half:] (nb keys) come from the first run (ties: the first run's first)."""
    i_lo = ti.max(0, d - nb)
    i_hi = ti.min(d, half)
    while i_lo < i_hi:
        mid = (i_lo + i_hi) // 2
        if sk[mid] <= sk[half + d - 1 - mid]:  # sk[mid] is among the first d
            i_lo = mid + 1
        else:
            i_hi = mid
    return i_lo


@ti.kernel
def _merge_halves_into_keys(sk: ti.types.ndarray(ndim=1), half: ti.i32, parts: ti.i32,
                            keys: ti.template(), first: ti.i32, kind: ti.template(),
                            bits: ti.template()):
    """keys[first + k] <- the k-th smallest of the sorted runs sk[:half] and sk[half:],
    mapped back from its sortable bits. Merge path: part p writes the output's
    [lo, hi) as _MERGE_CHAINS segments, each starting where a binary search along its
    diagonal puts it in both runs. The segments advance in one loop without branches
    (random keys would mispredict half of them): each step's load waits on the step
    before, so independent chains side by side run faster than one."""
    for p in range(parts):
        n = sk.shape[0]
        nb = n - half
        lo = ti.cast(ti.cast(p, ti.i64) * n // parts, ti.i32)
        hi = ti.cast(ti.cast(p + 1, ti.i64) * n // parts, ti.i32)
        step = (hi - lo) // _MERGE_CHAINS  # the last segment takes the rest
        i = ti.Vector([0] * _MERGE_CHAINS)
        j = ti.Vector([0] * _MERGE_CHAINS)
        end = ti.Vector([0] * _MERGE_CHAINS)
        for c in ti.static(range(_MERGE_CHAINS)):
            d = lo + c * step
            i[c] = _merge_split(sk, half, nb, d)
            j[c] = d - i[c]
            end[c] = hi if c == _MERGE_CHAINS - 1 else d + step
        for _ in range(hi - lo - (_MERGE_CHAINS - 1) * step):
            for c in ti.static(range(_MERGE_CHAINS)):
                if ti.static(c == _MERGE_CHAINS - 1) or i[c] + j[c] < end[c]:
                    a = sk[ti.min(i[c], half - 1)]
                    b = sk[half + ti.min(j[c], nb - 1)]
                    take_a = (j[c] >= nb) | ((i[c] < half) & (a <= b))
                    keys[first + i[c] + j[c]] = _key(a if take_a else b, sk.dtype,
                                                     keys.dtype, kind, bits)
                    i[c] += take_a
                    j[c] += 1 - take_a


@ti.kernel
def _iota(perm: ti.types.ndarray(ndim=1)):
    for i in range(perm.shape[0]):
        perm[i] = i


@ti.kernel
def _count_digits(sk: ti.types.ndarray(ndim=1), n: ti.i32, shift: ti.i32, blocks: ti.i32,
                  block: ti.i32, counts: ti.types.ndarray(ndim=1)):
    """counts[b * _BUCKETS + d]: how many keys of block b have digit d. Block-major, so
    each thread writes its own cache lines; a plain load/add/store, since no other
    thread touches a block's counters (an atomic `+=` would cost ~10x)."""
    for b in range(blocks):
        base = b * _BUCKETS
        for d in range(_BUCKETS):
            counts[base + d] = 0
        for i in range(b * block, ti.min((b + 1) * block, n)):
            d = _digit(sk[i], shift, sk.dtype)
            counts[base + d] = counts[base + d] + 1


@ti.kernel
def _to_digit_major(counts: ti.types.ndarray(ndim=1), blocks: ti.i32, out: ti.types.ndarray(ndim=1)):
    """out[d * blocks + b] = counts[b * _BUCKETS + d]: the order in which the scan
    numbers the output positions (digit first, then block: a stable sort)."""
    for j in range(blocks * _BUCKETS):
        b = j // _BUCKETS
        d = j % _BUCKETS
        out[d * blocks + b] = counts[j]


@ti.kernel
def _block_offsets(scanned: ti.types.ndarray(ndim=1), blocks: ti.i32, offsets: ti.types.ndarray(ndim=1)):
    """offsets[b * _BUCKETS + d]: where block b writes its first key of digit d, from the
    inclusive scan of the digit-major counts."""
    for j in range(blocks * _BUCKETS):
        b = j // _BUCKETS
        d = j % _BUCKETS
        k = d * blocks + b
        offsets[j] = scanned[k - 1] if k > 0 else 0


@ti.kernel
def _scatter(sk: ti.types.ndarray(ndim=1), perm: ti.types.ndarray(ndim=1), n: ti.i32, shift: ti.i32,
             blocks: ti.i32, block: ti.i32, offsets: ti.types.ndarray(ndim=1),
             sk_out: ti.types.ndarray(ndim=1), perm_out: ti.types.ndarray(ndim=1), with_perm: ti.template()):
    """Each block moves its keys (and their original positions, when values follow
    the keys) to their places, in order."""
    for b in range(blocks):
        base = b * _BUCKETS
        for i in range(b * block, ti.min((b + 1) * block, n)):
            key = sk[i]
            d = _digit(key, shift, sk.dtype)
            pos = offsets[base + d]
            offsets[base + d] = pos + 1
            sk_out[pos] = key
            if ti.static(with_perm):
                perm_out[pos] = perm[i]


@ti.kernel
def _scatter_to_keys(sk: ti.types.ndarray(ndim=1), perm: ti.types.ndarray(ndim=1), n: ti.i32,
                     shift: ti.i32, blocks: ti.i32, block: ti.i32,
                     offsets: ti.types.ndarray(ndim=1), keys: ti.template(), first: ti.i32,
                     perm_out: ti.types.ndarray(ndim=1), with_perm: ti.template(),
                     kind: ti.template(), bits: ti.template()):
    """The last pass's _scatter, writing the keys themselves (mapped back from their
    sortable bits) rather than another ndarray to copy them from."""
    for b in range(blocks):
        base = b * _BUCKETS
        for i in range(b * block, ti.min((b + 1) * block, n)):
            u = sk[i]
            d = _digit(u, shift, sk.dtype)
            pos = offsets[base + d]
            offsets[base + d] = pos + 1
            keys[first + pos] = _key(u, sk.dtype, keys.dtype, kind, bits)
            if ti.static(with_perm):
                perm_out[pos] = perm[i]


@ti.kernel
def _gather(src: ti.template(), first: ti.i32, perm: ti.types.ndarray(ndim=1), tmp: ti.types.ndarray(ndim=1)):
    for i in range(perm.shape[0]):
        tmp[i] = src[first + perm[i]]


@ti.kernel
def _copy_back(tmp: ti.types.ndarray(ndim=1), dst: ti.template(), first: ti.i32):
    for i in range(tmp.shape[0]):
        dst[first + i] = tmp[i]


_KEYS = {  # key dtype -> (how its bits are made sortable, their width)
    "i32": ("signed", 32), "u32": ("unsigned", 32), "f32": ("float", 32),
    "i64": ("signed", 64), "u64": ("unsigned", 64), "f64": ("float", 64),
}  # fmt: skip


def _check(x: Any, what: str) -> tuple[int, int]:
    if not isinstance(x, ti.Field) or len(x.shape) != 1:
        raise TaichiError(f"parallel_sort: {what} must be a 1-D scalar field")
    first = (getattr(x, "index_offset", None) or (0,))[0]  # ti.field(offset=)
    return x.shape[0], first


def parallel_sort(keys: Any, values: Any = None) -> None:
    """Sort `keys` (a 1-D field of i32, u32, f32, i64, u64 or f64) in place, ascending and
    stable (a NaN sorts by its bits: after +inf, or before -inf when negative);
    `values`, a field of the same length, is permuted along with it."""
    n, first = _check(keys, "keys")
    name = str(keys.dtype)
    if name not in _KEYS:
        raise TaichiError(
            f"parallel_sort: keys of {name} are not supported (i32, u32, f32, i64, u64 and "
            "f64 are)"
        )
    if values is not None:
        vn, vfirst = _check(values, "values")
        if vn != n:
            raise TaichiError(f"parallel_sort: {n} keys but {vn} values")
    if n <= 1:
        return
    threads = _host_sort_threads(keys) if values is None else 0
    if threads:
        _sort_on_host(keys, first, n, *_KEYS[name], threads)
        return
    blocks = min(_max_blocks(), max(1, (n + _BLOCK - 1) // _BLOCK))
    block = (n + blocks - 1) // blocks
    m = _BUCKETS * blocks
    kind, bits = _KEYS[name]
    with borrow(("sort", n, m, bits), lambda: _scratch(n, m, bits)) as scratch:
        sk, sk2, perm, perm2, counts, offsets, sums = scratch
        # The first pass counts as it maps the keys to their sortable bits; the last
        # scatters them back into the field: two passes over the keys fewer.
        _to_sortable_and_count(keys, first, n, blocks, block, sk, counts, kind, bits)
        with_perm = values is not None
        if with_perm:
            _iota(perm)
        last = bits - _RADIX_BITS
        for shift in range(0, bits, _RADIX_BITS):
            if shift > 0:
                _count_digits(sk, n, shift, blocks, block, counts)
            _to_digit_major(counts, blocks, offsets)
            inclusive_scan(offsets, m, sums)
            _block_offsets(offsets, blocks, counts)
            if shift == last:
                _scatter_to_keys(sk, perm, n, shift, blocks, block, counts, keys, first,
                                 perm2, with_perm, kind, bits)
            else:
                _scatter(sk, perm, n, shift, blocks, block, counts, sk2, perm2, with_perm)
            sk, sk2, perm, perm2 = sk2, sk, perm2, perm
        if values is not None:
            _permute(values, vfirst, perm)


def _host_sort_threads(keys: Any) -> int:
    """The CPU threads when NumPy sorts these keys on the host: a dense field in host
    memory (the CPU backend) and too few threads for the radix passes to win; else 0."""
    from taichi_xdsl.frontends.python.lang.program import get_program

    config = get_program().config
    if config.arch is not ti.cpu or keys.pool_owner is not None or keys._sparse():
        return 0
    threads = _cpu_threads(config)
    return threads if threads < _CPU_RADIX_MIN_THREADS else 0


def _sort_on_host(keys: Any, first: int, n: int, kind: str, bits: int, threads: int) -> None:
    """NumPy sorts the keys' sortable bits (so that NaNs and -0.0 sort as in the radix
    passes: NumPy puts every NaN last and leaves -0.0 and 0.0 in no set order). With
    two threads or more, each half of them in a thread of its own (NumPy lets go of the
    GIL as it sorts), then our kernel merges the halves back into the field. On one
    thread, integer keys sort in place in the field's storage: no copy at all."""
    split = threads >= 2 and n >= _MIN_KEYS_TO_SPLIT
    if not split and kind != "float":
        keys._array().sort()
        return
    sortable = ti.u64 if bits == 64 else ti.u32
    with borrow(("sort-host", n, bits), lambda: ti.ndarray(sortable, n)) as sk:
        _to_sortable(keys, first, sk, kind, bits)
        arr = sk._array()
        if not split:
            arr.sort()
            _from_sortable(sk, keys, first, kind, bits)
            return
        half = n // 2
        other = _sort_thread().submit(arr[half:].sort)
        arr[:half].sort()
        if other.cancel():  # its thread has not started (a busy machine): sort it here
            arr[half:].sort()
        else:
            other.result()
        _merge_halves_into_keys(sk, half, _CPU_BLOCKS_PER_THREAD * threads, keys, first,
                                kind, bits)


_sorter: Any = None


def _sort_thread() -> Any:
    """A thread that sorts the second half of the keys as the caller sorts the first."""
    global _sorter
    if _sorter is None:
        from concurrent.futures import ThreadPoolExecutor

        _sorter = ThreadPoolExecutor(1, thread_name_prefix="ti-sort")
    return _sorter


def _cpu_threads(config: Any) -> int:
    from taichi_xdsl.targets.llvm.pool import default_num_threads

    return config.cpu_max_num_threads or default_num_threads()


def _max_blocks() -> int:
    """How many blocks the keys are cut into: on a GPU one per invocation, so many; on
    CPU a few per worker thread, since each block costs a pass's transposition and scan
    256 counters but no more parallelism than the threads give."""
    from taichi_xdsl.frontends.python.lang.program import get_program

    config = get_program().config
    if config.arch is not ti.cpu:
        return _MAX_BLOCKS
    return min(_MAX_BLOCKS, _CPU_BLOCKS_PER_THREAD * _cpu_threads(config))


def _permute(x: Any, first: int, perm: Any) -> None:
    """x[first + i] <- x[first + perm[i]] for every i."""
    make = lambda: ti.ndarray(x.dtype, x.shape[0])  # noqa: E731
    with borrow(("sort-values", x.shape[0], x.dtype), make) as tmp:
        _gather(x, first, perm, tmp)
        _copy_back(tmp, x, first)


def _scratch(n: int, m: int, bits: int) -> tuple[Any, ...]:
    """The keys' sortable bits and their positions (twice: the passes ping-pong), the
    per-block digit counts and offsets, and the scan's chunk sums."""
    sortable = ti.u64 if bits == 64 else ti.u32
    return (
        ti.ndarray(sortable, n), ti.ndarray(sortable, n),
        ti.ndarray(ti.i32, n), ti.ndarray(ti.i32, n),
        ti.ndarray(ti.i32, m), ti.ndarray(ti.i32, m),
        ti.ndarray(ti.i32, chunk_slots(m)),
    )
