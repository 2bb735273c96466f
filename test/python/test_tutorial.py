"""
docs/tutorial-pass.md cannot go stale: the files it shows are the files of
examples/tutorial/, and every `sh` block of it runs (in order, from the repository root)
and succeeds; its Python snippets that are whole programs run too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from taichi_xdsl.utils.pass_docs import FILE_BLOCK

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial-pass.md"
SH_BLOCK = re.compile(r"```sh\n(.*?)```\n", re.S)


def test_tutorial_shows_the_files_as_they_are() -> None:
    text = TUTORIAL.read_text()
    shown = FILE_BLOCK.findall(text)
    assert {path for path, _, _ in shown} >= {
        "examples/tutorial/strength_reduce.py",
        "examples/tutorial/strength-reduce-mul2.mlir",
        "examples/tutorial/program.py",
        "examples/tutorial/mul2_case.py",
    }
    for path, _, body in shown:
        assert body == (ROOT / path).read_text(), (
            f"the tutorial shows {path} as it was: run "
            "`python -m taichi_xdsl.utils.pass_docs --write`"
        )


# The tutorial's commands start a dozen Python processes (ti-opt, lit, programs on cpu and
# vulkan, a benchmark): more than the suite's 120 s per test on a busy machine.
@pytest.mark.timeout(900)
def test_tutorial_commands_run(tmp_path: Path) -> None:
    from taichi_xdsl.targets.vulkan import vulkan_available

    ok, reason = vulkan_available()
    if not ok:
        pytest.skip(f"the tutorial runs on Vulkan too; no Vulkan device: {reason}")
    blocks = SH_BLOCK.findall(TUTORIAL.read_text())
    assert len(blocks) >= 6
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "TMPDIR": str(tmp_path),
        "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
        "TI_OFFLINE_CACHE": "0",
    }
    for block in blocks:
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"{block}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
