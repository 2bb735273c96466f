"""
`ti._lib`: only `ti._lib.core`'s backend queries that example programs use to pick an
arch (`with_vulkan()`, `with_cuda()`, ...) and its exception names. Nothing else of
Taichi's C++ core is imitated.
"""

from . import core

__all__ = ["core"]
