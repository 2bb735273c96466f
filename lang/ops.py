"""`ti.lang.ops`: the operations of `ti.*` (ti.lang.ops.atomic_add is ti.atomic_add)."""

from ..frontends.python.lang.ops import *  # noqa: F403
from ..frontends.python.lang.ops import __all__ as _ops_all

__all__ = list(_ops_all)
