"""`ti.simt.warp`: CUDA's warp intrinsics; each raises an error pointing to subgroup."""

from ..ops import Intrinsic

_NAMES = (
    "all_nonzero",
    "any_nonzero",
    "unique",
    "ballot",
    "shfl_sync_i32",
    "shfl_sync_f32",
    "shfl_up_i32",
    "shfl_up_f32",
    "shfl_down_i32",
    "shfl_down_f32",
    "shfl_xor_i32",
    "match_any",
    "match_all",
    "active_mask",
    "sync",
)

for _name in _NAMES:
    globals()[_name] = Intrinsic(f"simt.warp.{_name}")

__all__ = list(_NAMES)
