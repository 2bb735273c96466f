# session 9 probe: the bench's worker processes with unroll-loads-first off
from taichi_xdsl.targets.vulkan import backend as _vb
_vb.UNROLL_LOADS_FIRST = False
