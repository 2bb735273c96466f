"""
`ti.lang`: the few names under Taichi's `taichi.lang` that user programs and tests
commonly reach for (`ti.lang.impl.current_cfg()`, `ti.lang.util.to_numpy_type`,
`ti.lang.misc.get_host_arch_list`, `ti.lang.enums.AutodiffMode`, ...), offered on top
of taichi-xdsl's own objects.
It is no copy of Taichi's internals: what is not listed here does not exist.
"""

from .. import simt
from . import enums, exception, impl, misc, ops, util

__all__ = ["enums", "exception", "impl", "misc", "ops", "simt", "util"]
