"""
`ti.algorithms`: `parallel_sort` and `PrefixSumExecutor`, written in our kernels so they run
in parallel on every arch.

- The prefix sum is the three-phase scan (Blelloch 1990): each chunk is summed by one
  thread, the chunk sums are scanned by one thread, each chunk is rescanned from its base.
- The sort is a stable least-significant-digit radix sort (Knuth, TAOCP 5.2.5) on 8-bit
  digits: per block of the array one thread counts the digits; the counts, laid out
  digit-major, are scanned; each block scatters its keys to their places in order, so
  equal keys keep their order. Signed and float keys are mapped to unsigned keys that
  sort the same way first.
"""

from .scan import PrefixSumExecutor
from .sort import parallel_sort

__all__ = ["PrefixSumExecutor", "parallel_sort"]
