"""
`ti.simt`: what the invocations of a GPU dispatch share.

- `subgroup`: the invocations a GPU runs in lockstep (a Vulkan subgroup): reductions and
  scans, shuffles, broadcasts, votes, `elect`, `invocation_id`, `group_size`, `barrier`.
  On CPU threads every invocation is a subgroup of one (`group_size()` is 1), so code
  written for subgroups gives the same answers on every arch.
- `block`: the workgroup (`sync`, `mem_sync`, `thread_idx`, `global_thread_idx`) on
  Vulkan; `grid.memfence()` orders memory accesses device-wide on Vulkan.
- `warp`: CUDA's warp intrinsics, which need CUDA: taichi-xdsl does not target CUDA,
  so each raises an error that points to `subgroup`.

Each function works inside kernels only (`Intrinsic`, lowered by codegen/simt.py).
"""

from . import block, grid, subgroup, warp

__all__ = ["block", "grid", "subgroup", "warp"]
