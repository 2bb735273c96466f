"""
Scratch fields and ndarrays that library routines (`ti.algorithms.parallel_sort`, the
matrix-free solvers) reuse from one call to the next, per program.

Kernels take fields as template arguments, so a kernel instantiated on a fresh field
compiles again: a solver that made its work vectors with `ti.field` at every call
recompiled its kernels at every call (~800 ms a MatrixFreeCG on a 512^2 grid with the
offline cache off, against ~100 ms of solving). Borrowing them from here compiles them
once per program.

    with borrow(("cg", shape, dtype), lambda: (ti.field(...), ti.field(...))) as (r, p):
        ...                                   # r, p are this caller's until the block ends

A set in use (a solver called from inside another's matrix-vector kernel) is never
handed out twice: the inner caller gets a set of its own, kept for later calls too.
Everything is dropped when a new program starts (ti.init / ti.reset).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_program: Any = None
_free: dict[Any, list[Any]] = {}


@contextmanager
def borrow(key: Any, make: Callable[[], Any]) -> Iterator[Any]:
    """A scratch object for `key` (made by `make` when none is free), this caller's until
    the `with` block ends, then free for the next caller with the same key."""
    global _program
    from .program import get_program

    prog = get_program()
    if _program is not prog:
        _free.clear()
        _program = prog
    pool = _free.setdefault(key, [])
    item = pool.pop() if pool else make()
    try:
        yield item
    finally:
        if _program is prog:  # not when the program ended meanwhile
            pool.append(item)
