"""
The docs cannot go stale: docs/passes.md is what utils/pass_docs.py generates from the
passes, and every pass of ours has its lit test.
"""

from __future__ import annotations

from taichi_xdsl.utils import pass_docs, registry


def test_pass_reference_is_up_to_date() -> None:
    expected = pass_docs.reference()
    actual = pass_docs.OUTPUT.read_text()
    assert actual == expected, (
        "docs/passes.md is stale: run `python -m taichi_xdsl.utils.pass_docs --write`"
    )


def test_reference_names_every_pass_and_option() -> None:
    text = pass_docs.reference()
    for name in registry.PASSES:
        assert f"\n## {name}\n" in text, name
    assert "| `caps` | `str` |" in text  # convert-offload-to-spirv's options
