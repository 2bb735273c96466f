"""`ti.algorithms.parallel_sort`: a stable LSD radix sort in our kernels."""

from __future__ import annotations

from typing import Any

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

from .scan import chunk_slots, inclusive_scan

_RADIX_BITS = 8
_BUCKETS = 1 << _RADIX_BITS
_BLOCK = 4096  # keys a thread counts and scatters; at most _MAX_BLOCKS blocks
_MAX_BLOCKS = 4096
_SIGN = 0x80000000


@ti.kernel
def _to_sortable_i32(keys: ti.template(), first: ti.i32, out: ti.template()):
    for i in out:
        out[i] = ti.cast(keys[first + i], ti.u32) ^ ti.u32(_SIGN)  # two's complement bits


@ti.kernel
def _to_sortable_u32(keys: ti.template(), first: ti.i32, out: ti.template()):
    for i in out:
        out[i] = keys[first + i]


@ti.kernel
def _to_sortable_f32(keys: ti.template(), first: ti.i32, out: ti.template()):
    for i in out:
        bits = ti.bit_cast(keys[first + i], ti.u32)
        # Negative floats: flip every bit (they order backwards); others: flip the sign.
        out[i] = ~bits if bits & ti.u32(_SIGN) else bits | ti.u32(_SIGN)


@ti.kernel
def _from_sortable_i32(sk: ti.template(), keys: ti.template(), first: ti.i32):
    for i in sk:
        keys[first + i] = ti.cast(sk[i] ^ ti.u32(_SIGN), ti.i32)


@ti.kernel
def _from_sortable_u32(sk: ti.template(), keys: ti.template(), first: ti.i32):
    for i in sk:
        keys[first + i] = sk[i]


@ti.kernel
def _iota(perm: ti.template()):
    for i in perm:
        perm[i] = i


@ti.kernel
def _count_digits(sk: ti.template(), n: ti.i32, shift: ti.i32, blocks: ti.i32,
                  block: ti.i32, counts: ti.template()):
    """counts[b * _BUCKETS + d]: how many keys of block b have digit d. Block-major, so
    each thread writes its own cache lines; a plain load/add/store, since no other
    thread touches a block's counters (an atomic `+=` would cost ~10x)."""
    for b in range(blocks):
        base = b * _BUCKETS
        for d in range(_BUCKETS):
            counts[base + d] = 0
        for i in range(b * block, ti.min((b + 1) * block, n)):
            d = ti.cast((sk[i] >> ti.cast(shift, ti.u32)) & ti.u32(_BUCKETS - 1), ti.i32)
            counts[base + d] = counts[base + d] + 1


@ti.kernel
def _to_digit_major(counts: ti.template(), blocks: ti.i32, out: ti.template()):
    """out[d * blocks + b] = counts[b * _BUCKETS + d]: the order in which the scan
    numbers the output positions (digit first, then block: a stable sort)."""
    for j in range(blocks * _BUCKETS):
        b = j // _BUCKETS
        d = j % _BUCKETS
        out[d * blocks + b] = counts[j]


@ti.kernel
def _block_offsets(scanned: ti.template(), blocks: ti.i32, offsets: ti.template()):
    """offsets[b * _BUCKETS + d]: where block b writes its first key of digit d, from the
    inclusive scan of the digit-major counts."""
    for j in range(blocks * _BUCKETS):
        b = j // _BUCKETS
        d = j % _BUCKETS
        k = d * blocks + b
        offsets[j] = scanned[k - 1] if k > 0 else 0


@ti.kernel
def _scatter(sk: ti.template(), perm: ti.template(), n: ti.i32, shift: ti.i32,
             blocks: ti.i32, block: ti.i32, offsets: ti.template(),
             sk_out: ti.template(), perm_out: ti.template()):
    for b in range(blocks):
        base = b * _BUCKETS
        for i in range(b * block, ti.min((b + 1) * block, n)):
            key = sk[i]
            d = ti.cast((key >> ti.cast(shift, ti.u32)) & ti.u32(_BUCKETS - 1), ti.i32)
            pos = offsets[base + d]
            offsets[base + d] = pos + 1
            sk_out[pos] = key
            perm_out[pos] = perm[i]


@ti.kernel
def _gather(src: ti.template(), first: ti.i32, perm: ti.template(), tmp: ti.template()):
    for i in perm:
        tmp[i] = src[first + perm[i]]


@ti.kernel
def _copy_back(tmp: ti.template(), dst: ti.template(), first: ti.i32):
    for i in tmp:
        dst[first + i] = tmp[i]


_TO_SORTABLE = {"i32": _to_sortable_i32, "u32": _to_sortable_u32, "f32": _to_sortable_f32}
_FROM_SORTABLE = {"i32": _from_sortable_i32, "u32": _from_sortable_u32}


def _check(x: Any, what: str) -> tuple[int, int]:
    if not isinstance(x, ti.Field) or len(x.shape) != 1:
        raise TaichiError(f"parallel_sort: {what} must be a 1-D scalar field")
    first = (getattr(x, "index_offset", None) or (0,))[0]  # ti.field(offset=)
    return x.shape[0], first


def parallel_sort(keys: Any, values: Any = None) -> None:
    """Sort `keys` (a 1-D field of i32, u32 or f32) in place, ascending and stable;
    `values`, a field of the same length, is permuted along with it."""
    n, first = _check(keys, "keys")
    name = str(keys.dtype)
    to_sortable = _TO_SORTABLE.get(name)
    if to_sortable is None:
        raise TaichiError(
            f"parallel_sort: keys of {name} are not supported yet (i32, u32, f32 are)"
        )
    if values is not None:
        vn, vfirst = _check(values, "values")
        if vn != n:
            raise TaichiError(f"parallel_sort: {n} keys but {vn} values")
    if n <= 1:
        return
    blocks = min(_MAX_BLOCKS, max(1, (n + _BLOCK - 1) // _BLOCK))
    block = (n + blocks - 1) // blocks
    m = _BUCKETS * blocks
    sk, sk2, perm, perm2, counts, offsets, sums = _scratch(n, m)
    to_sortable(keys, first, sk)
    _iota(perm)
    for shift in range(0, 32, _RADIX_BITS):
        _count_digits(sk, n, shift, blocks, block, counts)
        _to_digit_major(counts, blocks, offsets)
        inclusive_scan(offsets, 0, m, sums)
        _block_offsets(offsets, blocks, counts)
        _scatter(sk, perm, n, shift, blocks, block, counts, sk2, perm2)
        sk, sk2, perm, perm2 = sk2, sk, perm2, perm
    from_sortable = _FROM_SORTABLE.get(name)
    if from_sortable is not None:
        from_sortable(sk, keys, first)
    else:
        _permute(keys, first, perm)
    if values is not None:
        _permute(values, vfirst, perm)


def _permute(x: Any, first: int, perm: Any) -> None:
    """x[first + i] <- x[first + perm[i]] for every i."""
    tmp = _cached(("tmp", x.shape[0], x.dtype), lambda: ti.field(x.dtype, shape=x.shape[0]))
    _gather(x, first, perm, tmp)
    _copy_back(tmp, x, first)


# Scratch fields, made once per program and size: a field is never freed before ti.reset,
# so a sort called in a loop must not make new ones each time.
_SCRATCH: dict[Any, Any] = {}


def _cached(key: tuple[Any, ...], make: Any) -> Any:
    from taichi_xdsl.frontends.python.lang.program import get_program

    prog = get_program()
    if _SCRATCH.get("program") is not prog:
        _SCRATCH.clear()
        _SCRATCH["program"] = prog
    if key not in _SCRATCH:
        _SCRATCH[key] = make()
    return _SCRATCH[key]


def _scratch(n: int, m: int) -> tuple[Any, ...]:
    def make() -> tuple[Any, ...]:
        return (
            ti.field(ti.u32, shape=n), ti.field(ti.u32, shape=n),
            ti.field(ti.i32, shape=n), ti.field(ti.i32, shape=n),
            ti.field(ti.i32, shape=m), ti.field(ti.i32, shape=m),
            ti.field(ti.i32, shape=chunk_slots(m)),
        )

    return _cached(("sort", n, m), make)
