"""`ti.lang.ops`: the operations of `ti.*` (ti.lang.ops.atomic_add is ti.atomic_add),
and Taichi's names of the binary operators (`ti.lang.ops.add(a, b)` is `a + b`, in a
kernel and in Python scope alike)."""

import operator

from ..frontends.python.lang.ops import *  # noqa: F403
from ..frontends.python.lang.ops import __all__ as _ops_all

add = operator.add
sub = operator.sub
mul = operator.mul
truediv = operator.truediv
floordiv = operator.floordiv
mod = operator.mod
pow = operator.pow  # noqa: A001  (Taichi's name)
bit_and = operator.and_
bit_or = operator.or_
bit_xor = operator.xor
bit_shl = operator.lshift
bit_sar = operator.rshift  # arithmetic shift on signed integers, as `>>` is

_BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "bit_and", "bit_or",
           "bit_xor", "bit_shl", "bit_sar"]  # fmt: skip
__all__ = list(_ops_all) + _BINARY
