"""
dialects/symbols.py: the indexed symbol lookup that verifiers use inside
cached_symbol_tables() answers as xDSL's SymbolTable.lookup_symbol does, for every kind of
name, and forgets its index when the block ends (the IR may change after it).
"""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region
from xdsl.traits import SymbolTable

from taichi_xdsl.dialects.symbols import cached_symbol_tables, lookup_symbol


def _function(name: str) -> func.FuncOp:
    return func.FuncOp(name, ((), ()), Region(Block([func.ReturnOp()])))


def _program() -> tuple[ModuleOp, dict[str, func.FuncOp]]:
    """module { func @f; func @g; module @inner { func @h } }"""
    ops = {name: _function(name) for name in ("f", "g", "h")}
    inner = ModuleOp([ops["h"]])
    inner.sym_name = StringAttr("inner")
    return ModuleOp([ops["f"], ops["g"], inner]), ops


@pytest.mark.parametrize("name", ["g", StringAttr("g"), SymbolRefAttr("g"),
                                  SymbolRefAttr("inner", ["h"]), "missing",
                                  SymbolRefAttr("missing")])
def test_the_index_answers_as_xdsl_does(name):
    _, ops = _program()
    expected = SymbolTable.lookup_symbol(ops["f"], name)
    with cached_symbol_tables():
        assert lookup_symbol(ops["f"], name) is expected
        assert lookup_symbol(ops["f"], name) is expected  # from the index, the second time
    assert lookup_symbol(ops["f"], name) is expected
    if name in ("g", SymbolRefAttr("inner", ["h"])):
        assert expected is (ops["g"] if name == "g" else ops["h"])


def test_an_op_outside_every_symbol_table_gets_xdsls_answer():
    detached = _function("alone")
    try:
        expected = ("value", SymbolTable.lookup_symbol(detached, "f"))
    except Exception as error:  # noqa: BLE001 - whatever xDSL does, the index does too
        expected = ("error", type(error))
    with cached_symbol_tables():
        try:
            got = ("value", lookup_symbol(detached, "f"))
        except Exception as error:  # noqa: BLE001
            got = ("error", type(error))
    assert got == expected


def test_the_index_is_forgotten_when_the_block_ends():
    module, ops = _program()
    with cached_symbol_tables():
        assert lookup_symbol(ops["f"], "later") is None
    later = _function("later")
    module.body.block.add_op(later)
    assert lookup_symbol(ops["f"], "later") is later
    with cached_symbol_tables():  # a new block indexes the table anew
        assert lookup_symbol(ops["f"], "later") is later
