"""`ti.simt.grid`: the whole dispatch (see simt/)."""

from ..ops import Intrinsic

memfence = Intrinsic("simt.grid.memfence")

__all__ = ["memfence"]
