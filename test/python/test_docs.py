"""
The docs cannot go stale: docs/passes.md is what utils/pass_docs.py generates from the
passes, every pass of ours has its lit test, and the README's ti-opt commands run on files
of the repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from taichi_xdsl.utils import pass_docs, registry

ROOT = Path(__file__).resolve().parents[2]


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


def _env_with_our_tools() -> dict[str, str]:
    """The environment with this interpreter's scripts (`ti-opt`) first on PATH."""
    bindir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}


def _readme_ti_opt_commands() -> list[str]:
    """The `ti-opt ...` lines of the README's first ```sh block under `## ti-opt`."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("\n## ti-opt\n") :]
    block = section[section.index("```sh\n") + len("```sh\n") :]
    block = block[: block.index("```")]
    return [line.split("#")[0].strip() for line in block.splitlines() if line.startswith("ti-opt ")]


def test_readme_ti_opt_examples_run_on_files_of_the_repository(tmp_path: Path) -> None:
    commands = _readme_ti_opt_commands()
    assert len(commands) >= 6
    env = _env_with_our_tools()
    for command in commands:
        # Outputs (`-o file`) go to a scratch folder, not into the checkout.
        command = command.replace(" -o ", f" -o {tmp_path}/")
        done = subprocess.run(
            command.split(), cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, command


def test_ti_opt_stops_quietly_when_its_reader_goes_away() -> None:
    """`ti-opt ... | head`: no "internal error ... BrokenPipeError" on stderr."""
    env = _env_with_our_tools()
    done = subprocess.run(
        ["bash", "-c", "ti-opt test/Inputs/saxpy.mlir -p ti-to-offload --print-between-passes | head -1"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.stdout.startswith("IR after")
    assert done.stderr == ""
