"""
`ti._lib.core`: the few queries of Taichi's native core that user programs make —
GGUI examples start with `arch = ti.vulkan if ti._lib.core.with_vulkan() else ti.cuda`.
"""

from __future__ import annotations


class core:  # noqa: N801 - Taichi's name
    """Which backends this build of taichi-xdsl has."""

    GGUI_AVAILABLE = True
    """ti.ui works everywhere (headless without a display)."""

    @staticmethod
    def with_vulkan() -> bool:
        from taichi_xdsl.targets.vulkan import vulkan_available

        return bool(vulkan_available()[0])

    @staticmethod
    def with_cuda() -> bool:
        return False

    @staticmethod
    def with_metal() -> bool:
        return False

    @staticmethod
    def with_opengl() -> bool:
        return False
