"""
`ti.lang`: the few names under Taichi's `taichi.lang` that user programs and tests
commonly reach for (`ti.lang.impl.current_cfg()`, `ti.lang.util.to_numpy_type`,
`ti.lang.misc.get_host_arch_list`, `ti.lang.enums.AutodiffMode`, ...), offered on top
of taichi-xdsl's own objects. A package of its own at the root, so that
`from taichi_xdsl.lang.enums import AutodiffMode` imports as `from taichi.lang.enums ...`
does in Taichi. It is no copy of Taichi's internals: what is not listed here does not exist.
"""

from ..frontends.python.lang import simt
from . import enums, exception, impl, misc, ops, util

__all__ = ["enums", "exception", "impl", "misc", "ops", "simt", "util"]
