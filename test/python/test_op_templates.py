"""
Op templates (utils/op_templates.py) give exactly the IR xDSL's parser gives, and print
templates (utils/print_templates.py) exactly the text xDSL's printer gives: every
.mlir file of the project (and of xDSL's filecheck tests when a copy is at
XDSL_FILECHECK_DIR), each `// -----` chunk alone and twice over (so that its op shapes
repeat), parsed by xDSL's own parser and by ti-opt's, printed in the generic form.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from taichi_xdsl.utils import registry
from taichi_xdsl.utils.diagnostics import LocatedDiagnostic, LocatingParser
from taichi_xdsl.utils.print_templates import TemplatePrinter
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError

ROOT = Path(__file__).resolve().parents[1]
XDSL_FILECHECK = Path(os.environ.get("XDSL_FILECHECK_DIR", "/tmp/difftest/xdsl-tests/tests/filecheck"))


class UntemplatedParser(LocatingParser):
    """ti-opt's parser with every op parsed by xDSL: the reference for errors and locations."""

    def parse_operation(self):
        self._templates._table.clear()
        return super().parse_operation()


def _files() -> list[Path]:
    files = sorted(ROOT.rglob("*.mlir"))
    if XDSL_FILECHECK.is_dir():
        files += sorted(XDSL_FILECHECK.rglob("*.mlir"))
    return files


def _chunks(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return re.split(r"^// -----\s*$", text, flags=re.MULTILINE)


def _doubled(chunk: str) -> str:
    """Two copies of a chunk, each a module of its own (each its own SSA scope)."""
    body = f"builtin.module {{\n{chunk}\n}}\n"
    return body + body


_CONTEXTS = {}


def _unnumbered_resources(text: str) -> str:
    """xDSL renames a resource each time a parse declares it again (process-wide)."""
    return re.sub(r"dense_resource<([\w.]*?)(?:_\d+)*>", r"dense_resource<\1>", text)


def _parse(parser_type, text: str, unregistered: bool, debuginfo: bool = True) -> tuple[str, ...]:
    """("ok", generic form with locations, generic form without) or ("error", message)."""
    # A context remembers the dialect resources parsed with it (a second parse of the
    # same `dense_resource<key>` renames it): a fresh one for those.
    ctx = None if "dense_resource" in text else _CONTEXTS.get(unregistered)
    if ctx is None:
        ctx = registry.make_context()
        ctx.allow_unregistered = unregistered
        if "dense_resource" not in text:
            _CONTEXTS[unregistered] = ctx
    try:
        module = parser_type(ctx, text, "input.mlir").parse_module()
    except (ParseError, LocatedDiagnostic, DiagnosticException) as error:
        return "error", str(error)
    except Exception as error:  # noqa: BLE001 - xDSL's parser faulting: compare its kind
        return "fault", type(error).__name__
    from io import StringIO

    printed = []
    for located in (True, False) if debuginfo else (False,):
        out = StringIO()
        Printer(out, print_generic_format=True, print_debuginfo=located).print_op(module)
        printed.append(_unnumbered_resources(out.getvalue()))
    return ("ok", *printed)


def _check_same_ir(source: str, unregistered: bool) -> None:
    """
    Ours as untemplated ours (errors and locations too), and as xDSL's parser; the
    module printed by ti-opt's printer (print_templates.py) as by xDSL's.
    """
    ours = _parse(LocatingParser, source, unregistered)
    assert ours == _parse(UntemplatedParser, source, unregistered)
    xdsl = _parse(Parser, source, unregistered, debuginfo=False)
    if ours[0] == "ok":
        assert xdsl == ("ok", ours[2])
        _check_same_print(source, unregistered)
    else:
        assert xdsl[0] != "ok"


def _check_same_print(source: str, unregistered: bool) -> None:
    from io import StringIO

    ctx = registry.make_context()
    ctx.allow_unregistered = unregistered
    module = LocatingParser(ctx, source, "input.mlir").parse_module()
    for debuginfo in (False, True):
        printed = []
        for printer_type in (Printer, TemplatePrinter):
            out = StringIO()
            printer = printer_type(out, print_debuginfo=debuginfo)
            try:
                printer.print_op(module)
                printer.print_metadata(ctx.loaded_dialects)
            except Exception as error:  # noqa: BLE001 - xDSL's printer on unverified IR
                printed.append(f"{type(error).__name__} after {out.getvalue()}")
            else:
                printed.append(out.getvalue())
        assert printed[0] == printed[1]


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p).replace("/", "_"))
def test_templates_give_xdsl_parsers_ir(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    unregistered = "allow-unregistered-dialect" in text
    for chunk in _chunks(path):
        for source in (chunk, _doubled(chunk)):
            _check_same_ir(source, unregistered)


_ADD = "%{r} = arith.addi %{a}, %{b} : {t}\n"
_REPEATED = {
    # the second add's operand has another type than the template's: xDSL's error
    "operand type mismatch": "%a = arith.constant 1 : i32\n%b = arith.constant 2 : i64\n"
    + _ADD.format(r="c", a="a", b="a", t="i32")
    + _ADD.format(r="d", a="a", b="b", t="i32"),
    "undefined operand": "%a = arith.constant 1 : i32\n"
    + _ADD.format(r="c", a="a", b="a", t="i32")
    + _ADD.format(r="d", a="a", b="zz", t="i32"),
    "forward reference": "%a = arith.constant 1 : i32\n"
    + _ADD.format(r="c", a="a", b="a", t="i32")
    + _ADD.format(r="d", a="a", b="e", t="i32")
    + "%e = arith.constant 3 : i32\n",
    "self use": "%a = arith.constant 1 : i32\n"
    + _ADD.format(r="c", a="a", b="a", t="i32")
    + _ADD.format(r="d", a="a", b="d", t="i32"),
    "redefined result": "%a = arith.constant 1 : i32\n"
    + _ADD.format(r="c", a="a", b="a", t="i32")
    + _ADD.format(r="c", a="a", b="a", t="i32"),
    "numeric and named results": "%a = arith.constant 1 : i32\n"
    + _ADD.format(r="0", a="a", b="a", t="i32")
    + _ADD.format(r="x", a="0", b="a", t="i32")
    + _ADD.format(r="1", a="x", b="0", t="i32"),
    # the same line, then an op continued on the next line
    "op ending on the next line": "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"
    "func.func @g(%a: i32) -> i32 {\n  func.return %a\n  : i32\n}\n",
    "attribute dictionary on the next line": "%a = arith.constant 1 : i32\n"
    + _ADD.format(r="c", a="a", b="a", t="i32")
    + "%d = arith.addi %a, %a : i32\n  {fastmath}\n",
    "location on the line": "%a = arith.constant 1 : i32\n"
    + "%c = arith.addi %a, %a : i32 loc(\"x.py\":3:4)\n" * 1
    + "%d = arith.addi %a, %c : i32 loc(\"x.py\":3:4)\n",
    "two ops on a line": "%a = arith.constant 1 : i32\n"
    + "%c = arith.addi %a, %a : i32 %d = arith.addi %a, %a : i32\n"
    + "%e = arith.addi %a, %a : i32 %f = arith.addi %a, %a : i32\n",
    "generic form": "%a = arith.constant 1 : i32\n"
    + "%c = \"arith.addi\"(%a, %a) : (i32, i32) -> i32\n" * 1
    + "%d = \"arith.addi\"(%c, %a) : (i32, i32) -> i32\n"
    + "%e = \"arith.addi\"(%d, %a) : (i32, i32) -> i64\n",
}


@pytest.mark.parametrize("name", sorted(_REPEATED))
def test_repeated_lines_parse_as_without_templates(name: str):
    _check_same_ir(_REPEATED[name], unregistered=False)

def test_templates_build_the_repeated_ops():
    ctx = registry.make_context()
    body = "".join(_ADD.format(r=f"v{n}", a=f"v{n - 1}", b="v0", t="i32") for n in range(1, 50))
    parser = LocatingParser(ctx, "%v0 = arith.constant 1 : i32\n" + body, "input.mlir")
    module = parser.parse_module()
    assert len(module.ops) == 50
    # the first add (`%v0, %v0`: which name is which operand?) is no template, the
    # second is learnt, the last is followed by the end of input instead of a `%`
    assert parser._templates.built == 46
    last = list(module.ops)[-1]
    assert last.operands[0] is list(module.ops)[-2].results[0]
    assert last.operands[1] is list(module.ops)[0].results[0]
    assert (last.location.line.data, last.location.column.data) == (50, 1)


def _ti_opt(tmp_path, source: str, capsys) -> tuple[int, str]:
    from taichi_xdsl.utils.ti_opt import main

    path = tmp_path / "input.mlir"
    path.write_text(source)
    status = main([str(path), "-o", str(tmp_path / "out.mlir")])
    return status, capsys.readouterr().err


def test_memoized_verification_still_checks_traits(tmp_path, capsys):
    # the two returns have the same IRDL constraints checked; the second's parent is wrong
    source = "func.func @f() {\n  func.return\n}\nbuiltin.module {\n  func.return\n}\n"
    status, err = _ti_opt(tmp_path, source, capsys)
    assert status == 1
    assert "input.mlir:5:3: error: 'func.return' expects parent op 'func.func'" in err


def test_memoized_verification_checks_each_combination(tmp_path, capsys):
    source = (
        "%0 = arith.constant 1 : i32\n%1 = arith.constant 2 : i32\n"
        "%2 = arith.addi %0, %1 : i32\n"
        '%3 = "arith.addi"(%0, %1) : (i32, i32) -> i64\n'
    )
    status, err = _ti_opt(tmp_path, source, capsys)
    assert status == 1
    assert "input.mlir:4:1: error: result 'result' at position 0 does not verify" in err


def test_dense_resources_are_declared_by_each_parse():
    # Once xDSL has seen resource `r` (in an earlier parse of this process), each use
    # declares it again under a new name: no use may be built from a template.
    line = '%{} = "test.op"() {{a = dense_resource<r> : tensor<1xi32>}} : () -> i32\n'
    ctx = registry.make_context()
    LocatingParser(ctx, line.format("x"), "first.mlir").parse_module()
    text = "".join(line.format(f"x{n}") for n in range(4))
    module = LocatingParser(ctx, text, "input.mlir").parse_module()
    names = [op.attributes["a"].resource_handle.data for op in module.ops]
    assert len(set(names)) == 4, names


def test_print_templates_replay_repeated_shapes():
    from io import StringIO

    body = "".join(_ADD.format(r=f"v{n}", a=f"v{n - 1}", b="v0", t="i32") for n in range(1, 50))
    module = LocatingParser(registry.make_context(), "%v0 = arith.constant 1 : i32\n" + body,
                            "input.mlir").parse_module()
    printed = []
    for printer_type in (Printer, TemplatePrinter):
        out = StringIO()
        printer = printer_type(out)
        printer.print_op(module)
        printed.append(out.getvalue())
    assert printed[0] == printed[1]
    # the first add names one value twice and the second is the first of its shape:
    # printed by the format; the parser reads `i32` as one type object (keys are
    # identities), so the 47 after them are replayed
    assert printer.replayed == 47
    assert "%v49 = arith.addi %v48, %v0 : i32" in printed[1]


_TYPES = {
    # kernel signatures repeat their memref types: each text parsed once, one object
    "repeated memrefs": "func.func @f(%a: memref<?xi32>, %b: memref<?xi32>, %c: memref<4x?xf32>)"
    " {\n  func.return\n}\nfunc.func @g(%a: memref<?xi32>, %c: memref<4x?xf32>) {\n"
    "  func.return\n}\n",
    "layouts and spaces": "func.func @f(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>, "
    "%b: memref<4xf32, 1>, %c: vector<[4]xf32>, %d: tensor<2x?xcomplex<f32>>) {\n"
    "  func.return\n}\n" * 2,
    "a type followed by another": "func.func @f(%a: memref<4xf32>, %b: tuple<memref<4xf32>, "
    "i32>) -> (memref<4xf32>, tuple<>) {\n  func.return %a, %b : memref<4xf32>, tuple<>\n}\n",
    "a bad element type twice": "func.func @f(%a: memref<4xf32>, %b: memref<4xq>) {\n"
    "  func.return\n}\nfunc.func @g(%b: memref<4xq>) {\n  func.return\n}\n",
    "an unclosed type": "func.func @f(%a: memref<4xf32>, %b: memref<4xf32 ) {\n  func.return\n}\n",
}


@pytest.mark.parametrize("name", sorted(_TYPES))
def test_type_texts_parse_as_xdsl_parses_them(name: str):
    _check_same_ir(_TYPES[name], unregistered=False)


def test_equal_types_are_one_object():
    parser = LocatingParser(registry.make_context(), _TYPES["repeated memrefs"], "input.mlir")
    module = parser.parse_module()
    assert set(parser._plain_types) == {"memref<?xi32>", "memref<4x?xf32>"}
    f, g = module.ops
    assert f.args[0].type is f.args[1].type is g.args[0].type
    assert f.args[2].type is g.args[1].type


def _isolation_cases():
    """(name, op, must fail): IsolatedFromAbove ops, valid and not."""
    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import arith, func, scf, test
    from xdsl.dialects.builtin import ModuleOp, i1, i32
    from xdsl.ir import Block, Region

    cases = []
    outer = arith.ConstantOp.from_int_and_width(1, i32)
    inside = func.FuncOp("f", ((), ()))
    with ImplicitBuilder(inside.body):
        c = arith.ConstantOp.from_int_and_width(2, i32)
        arith.AddiOp(c, c)
        func.ReturnOp()
    cases.append(("values defined inside", inside, False))

    above = func.FuncOp("g", ((i32,), ()))
    with ImplicitBuilder(above.body) as (arg,):
        flag = arith.ConstantOp.from_int_and_width(1, i1)
        branch = scf.IfOp(flag, (), Region(Block()), Region(Block()))
        with ImplicitBuilder(branch.true_region.block):
            arith.AddiOp(arg, outer)  # `outer` is defined outside @g
            scf.YieldOp()
        with ImplicitBuilder(branch.false_region.block):
            scf.YieldOp()
        func.ReturnOp()
    ModuleOp([outer, above])
    cases.append(("a value from above, in a nested region", above, True))

    # a module whose non-isolated op uses a value defined inside a nested isolated op:
    # xDSL counts it as inside (it leaves that op's regions to the op itself)
    hidden = func.FuncOp("h", ((), ()))
    with ImplicitBuilder(hidden.body):
        value = arith.ConstantOp.from_int_and_width(3, i32)
        func.ReturnOp()
    user = test.TestOp(regions=[Region(Block([test.TestOp((value,))]))])
    cases.append(("a value of a nested isolated op", ModuleOp([hidden, user]), False))

    own = test.TestOp(result_types=(i32,), regions=[Region(Block())])
    own.regions[0].block.add_op(test.TestOp((own.results[0],)))
    cases.append(("the op's own result", own, True))
    return cases


@pytest.mark.parametrize("case", range(4))
def test_isolation_by_sets_gives_xdsls_verdict(case: int):
    from taichi_xdsl.utils.ti_opt import _check_isolation_by_sets
    from xdsl.traits import IsolatedFromAbove
    from xdsl.utils.exceptions import VerifyException

    _check_isolation_by_sets()
    by_sets = IsolatedFromAbove.verify
    name, op, fails = _isolation_cases()[case]
    verdicts = []
    for verify in (by_sets.xdsl_verify, by_sets):
        try:
            verify(IsolatedFromAbove(), op)
            verdicts.append("ok")
        except VerifyException as error:
            verdicts.append(str(error))
    assert verdicts[0] == verdicts[1], name
    assert (verdicts[0] != "ok") == fails, name


def test_templated_ops_are_what_create_makes():
    from taichi_xdsl.utils.op_templates import _make

    ctx = registry.make_context()
    body = "".join(_ADD.format(r=f"v{n}", a=f"v{n - 1}", b="v0", t="i32") for n in range(1, 6))
    parser = LocatingParser(ctx, "%v0 = arith.constant 1 : i32\n" + body, "input.mlir")
    module = parser.parse_module()
    assert parser._templates.built == 2
    (template,) = [t for (line, lookahead, _), t in parser._templates._table.items()
                   if "addi" in line and lookahead == "%"]
    ops = list(module.ops)
    made, last = ops[-2], ops[-1]
    created = template.op_type.create(
        operands=list(made.operands), result_types=template.result_types,
        properties=template.properties, attributes=template.attributes,
        location=made.location,
    )
    in_block = {"parent", "_prev_op", "_next_op"}  # set when the parser inserted it
    assert vars(made).keys() - in_block == vars(created).keys()
    assert made.properties == created.properties and made.properties is not template.properties
    assert made.attributes == created.attributes and made.attributes is not template.attributes
    assert [r.type for r in made.results] == [r.type for r in created.results]
    assert made.results[0].op is made and made.results[0].index == 0
    # the use lists: each operand knows this op, at its index
    for index, operand in enumerate(made.operands):
        assert any(use.operation is made and use.index == index for use in operand.uses)
    assert [use.operation for use in made.results[0].uses] == [last]
    created.erase()
    for op in (last, made):  # the made op's uses go with it
        op.detach()
        op.erase()
    # (the first add uses %v0 twice)
    assert [use.operation for use in ops[0].results[0].uses] == [*ops[1:-2][::-1], ops[1]]
    made_twice = _make(template, [ops[0].results[0], ops[0].results[0]], made.location)
    assert [use.index for use in ops[0].results[0].uses][:2] == [1, 0]
    made_twice.erase()


def test_location_numbers_are_int_attrs():
    from taichi_xdsl.utils.diagnostics import _int_attr
    from xdsl.dialects.builtin import IntAttr

    for value in (1, 7, 123456):
        attr = _int_attr(value)
        assert attr == IntAttr(value) and hash(attr) == hash(IntAttr(value))
        assert attr is _int_attr(value) and str(attr) == str(IntAttr(value))


_INVALID = {
    "custom verifier, mid-block": '%0 = arith.constant 1 : i32\n'
    '%1 = "arith.constant"() <{value = 1 : i64}> : () -> i32\n%2 = arith.addi %0, %0 : i32\n',
    "not a terminator": "func.func @f() {\n  %0 = arith.constant 1 : i32\n}\n",
    "trait, mid-block": "builtin.module {\n  func.return\n  func.return\n}\n",
    "IRDL constraint": '%0 = arith.constant 1 : i32\n%1 = "arith.addi"(%0, %0) : (i32, i32) -> i64\n'
    "%2 = arith.constant 2 : i32\n",
    "valid": "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n"
    "  func.return %0 : i32\n}\n",
}


@pytest.mark.parametrize("name", sorted(_INVALID))
def test_verification_fails_as_xdsls_verify(name: str, monkeypatch):
    from taichi_xdsl.utils import diagnostics

    def verdict() -> str:
        module = LocatingParser(registry.make_context(), _INVALID[name], "input.mlir").parse_module()
        try:
            diagnostics.verify_located(module)
        except LocatedDiagnostic as error:
            return str(error)
        return "ok"

    ours = verdict()
    monkeypatch.setattr(diagnostics, "_verify_op", lambda op: op.verify(verify_nested_ops=False))
    assert ours == verdict()
    assert (ours == "ok") == (name == "valid")
