"""`ti.simt.block`: the workgroup of a Vulkan dispatch (see simt/)."""

from ..ops import Intrinsic

_NAMES = (
    "sync",
    "mem_sync",
    "thread_idx",
    "global_thread_idx",
    "sync_all_nonzero",
    "sync_any_nonzero",
    "sync_count_nonzero",
    "SharedArray",
)

for _name in _NAMES:
    globals()[_name] = Intrinsic(f"simt.block.{_name}")

__all__ = list(_NAMES)
