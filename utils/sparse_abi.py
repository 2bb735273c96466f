"""
The layout of a pointer SNode's pool that the frontend (lang/pools.py) and the pass
ti-lower-sparse share: the reserved blocks and the words of the pool's state array.
"""

RESERVED_BLOCKS = 2
"""Block 0: the zero block inactive cells read. Block 1: the sink of exhausted writes."""
SINK_BLOCK = 1
ALLOCATED, FREE_TOP, RELEASED, EXHAUSTED = range(4)
"""The words of the state array (memref<4xi32>)."""

WAIT_CUT = 2
"""The EXHAUSTED word's value when a kernel's wait for another invocation's block was
ended by the driver (lavapipe's loop limit) rather than by the block (1: exhausted)."""
