"""
Op templates (utils/op_templates.py) give exactly the IR xDSL's parser gives: every
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


def _parse(parser_type, text: str, unregistered: bool, debuginfo: bool) -> tuple[str, str]:
    ctx = _CONTEXTS.get(unregistered)
    if ctx is None:
        ctx = _CONTEXTS[unregistered] = registry.make_context()
        ctx.allow_unregistered = unregistered
    try:
        module = parser_type(ctx, text, "input.mlir").parse_module()
    except (ParseError, LocatedDiagnostic, DiagnosticException) as error:
        return "error", str(error)
    except Exception as error:  # noqa: BLE001 - xDSL's parser faulting: compare its kind
        return "fault", type(error).__name__
    from io import StringIO

    out = StringIO()
    Printer(out, print_generic_format=True, print_debuginfo=debuginfo).print_op(module)
    return "ok", out.getvalue()


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p).replace("/", "_"))
def test_templates_give_xdsl_parsers_ir(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    unregistered = "allow-unregistered-dialect" in text
    for chunk in _chunks(path):
        for source in (chunk, _doubled(chunk)):
            ours = _parse(LocatingParser, source, unregistered, debuginfo=True)
            reference = _parse(UntemplatedParser, source, unregistered, debuginfo=True)
            assert ours == reference
            xdsl_kind, xdsl_text = _parse(Parser, source, unregistered, debuginfo=False)
            if ours[0] == "ok":
                assert (xdsl_kind, xdsl_text) == _parse(
                    LocatingParser, source, unregistered, debuginfo=False
                )
            else:
                assert xdsl_kind != "ok"
