"""
Symbol lookup for verifiers, in O(1) while the IR does not change.

xDSL's `SymbolTable.lookup_symbol` scans the symbol table's body on every call, so
verifying a module where n ops name n symbols takes O(n^2): 1 MB of kernels took
seconds in `taichi.get_field` alone. Inside `cached_symbol_tables()` (entered by
`verify_located`, which changes nothing) each table is indexed once.

    with cached_symbol_tables():
        module.verify()
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolOpInterface, SymbolTable

_tables: ContextVar[dict[int, dict[str, Operation]] | None] = ContextVar(
    "symbol_tables", default=None
)


@contextmanager
def cached_symbol_tables() -> Iterator[None]:
    """Index each symbol table once while the block runs; the IR must not change."""
    token = _tables.set({})
    try:
        yield
    finally:
        _tables.reset(token)


def lookup_symbol(op: Operation, name: str | StringAttr | SymbolRefAttr) -> Operation | None:
    """`SymbolTable.lookup_symbol(op, name)`, from an index inside cached_symbol_tables()."""
    tables = _tables.get()
    if tables is None or (isinstance(name, SymbolRefAttr) and name.nested_references.data):
        return SymbolTable.lookup_symbol(op, name)
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    if anchor is None:
        return SymbolTable.lookup_symbol(op, name)  # xDSL's error
    table = tables.get(id(anchor))
    if table is None:
        table = {}
        for candidate in anchor.regions[0].block.ops:
            interface = candidate.get_trait(SymbolOpInterface)
            if interface is not None:
                symbol = interface.get_sym_attr_name(candidate)
                if symbol is not None:
                    table.setdefault(symbol.data, candidate)
        tables[id(anchor)] = table
    if isinstance(name, SymbolRefAttr):
        name = name.root_reference
    return table.get(name.data if isinstance(name, StringAttr) else name)
