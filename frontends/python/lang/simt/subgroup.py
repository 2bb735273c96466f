"""`ti.simt.subgroup`: operations over a subgroup's active invocations (see simt/)."""

from ..ops import Intrinsic

_REDUCTIONS = ("add", "mul", "min", "max", "and", "or", "xor")
_NAMES = (
    "barrier",
    "memory_barrier",
    "elect",
    "all_true",
    "any_true",
    "all_equal",
    "broadcast_first",
    "broadcast",
    "group_size",
    "invocation_id",
    *(f"{mode}_{kind}" for mode in ("reduce", "inclusive", "exclusive") for kind in _REDUCTIONS),
    "shuffle",
    "shuffle_xor",
    "shuffle_up",
    "shuffle_down",
)

for _name in _NAMES:
    globals()[_name] = Intrinsic(f"simt.subgroup.{_name}")

__all__ = list(_NAMES)
