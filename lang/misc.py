"""`ti.lang.misc`: the archs this machine runs; `loop_unique` (also `ti.loop_unique`)."""

from __future__ import annotations

from typing import Any

from ..frontends.python.lang import program as _program
from ..frontends.python.lang.ops import loop_unique


def get_host_arch_list() -> list[_program.Arch]:
    """The CPU arch of this machine, as a list (Taichi's test helper)."""
    return [_program.cpu]


def is_arch_supported(arch: Any) -> bool:
    """Whether ti.init(arch=arch) runs on `arch` here, without falling back."""
    return isinstance(arch, _program.Arch) and _program._supported(arch)


__all__ = ["get_host_arch_list", "is_arch_supported", "loop_unique"]
