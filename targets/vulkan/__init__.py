"""
The Vulkan runtime: device selection and capabilities (device.py), buffers and their pool
(memory.py), compute pipelines and descriptor sets (pipelines.py), batched dispatches,
transfers and synchronisation (runtime.py). See runtime.py for the API and the ABI that
SPIR-V modules follow.

    from taichi_xdsl.targets.vulkan import VulkanRuntime, vulkan_available
    ok, reason = vulkan_available()

Importing this package loads neither the compiler (xdsl, llvmlite) nor the `vulkan`
binding; the binding loads on first use, and a machine without Vulkan gets
`VulkanUnavailable` (or `(False, reason)` from `vulkan_available`), never a crash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .device import (
        DeviceCaps,
        VulkanDevice,
        VulkanError,
        VulkanUnavailable,
        list_devices,
        vulkan_available,
    )
    from .memory import Buffer
    from .pipelines import Kernel
    from .runtime import VulkanRuntime

_EXPORTS = {
    "DeviceCaps": "device",
    "VulkanDevice": "device",
    "VulkanError": "device",
    "VulkanUnavailable": "device",
    "list_devices": "device",
    "vulkan_available": "device",
    "Buffer": "memory",
    "Kernel": "pipelines",
    "VulkanRuntime": "runtime",
}

__all__ = [
    "Buffer",
    "DeviceCaps",
    "Kernel",
    "VulkanDevice",
    "VulkanError",
    "VulkanRuntime",
    "VulkanUnavailable",
    "list_devices",
    "vulkan_available",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
