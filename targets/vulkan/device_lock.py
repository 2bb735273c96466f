"""
One Python thread at a time on the Vulkan device. A launch uploads its arguments into its
kernel's own buffers, records its dispatches and reads its returns back; the GIL is let go
while Vulkan waits, so another thread's launch in between would overwrite them (wrong
returns, or a crash inside the driver). The runtime's methods and the backend's entry
points (a launch, a root or ndarray transfer, a graph run) are `serialized`.

    @serialized
    def launch(self, root, args): ...
"""

from __future__ import annotations

import functools
import threading
from typing import Any

DEVICE_LOCK = threading.RLock()
"""Held by whichever thread is inside a serialized method (reentrant)."""


def serialized(method: Any) -> Any:
    """`method` run by one Python thread at a time (DEVICE_LOCK, reentrant)."""

    @functools.wraps(method)
    def locked(*args: Any, **kwargs: Any) -> Any:
        with DEVICE_LOCK:
            return method(*args, **kwargs)

    return locked
