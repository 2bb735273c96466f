"""`ti._lib.utils`: `get_os_name()`, the one helper of Taichi's that programs and tests
call (to tell macOS's alpha-filled fast_gui pixels apart from Linux's and Windows')."""

from __future__ import annotations

import sys


def get_os_name() -> str:
    """'linux', 'osx', 'win' or 'unix' (the BSDs), as Taichi names them."""
    if sys.platform == "darwin":
        return "osx"
    if sys.platform.startswith(("win", "cygwin", "msys")):
        return "win"
    if sys.platform.startswith("linux"):
        return "linux"
    return "unix"
