"""
`ti._lib`: only `ti._lib.core`'s backend queries that example programs use to pick an
arch (`with_vulkan()`, `with_cuda()`, ...) and its exception names, and
`ti._lib.utils.get_os_name()`. Nothing else of Taichi's C++ core is imitated.
"""

from . import core, utils

__all__ = ["core", "utils"]
