"""
Vulkan buffers: device buffers for kernels, host-visible staging buffers for transfers, and
a pool that reuses them by size class.

Two ways to hold kernel data, chosen once per device:
- staged (discrete GPUs): device buffers live in DEVICE_LOCAL memory that the host cannot
  see; uploads and downloads go through HOST_VISIBLE staging buffers and a recorded
  vkCmdCopyBuffer;
- direct (CPU devices such as lavapipe, unified-memory GPUs): every DEVICE_LOCAL memory type
  is also HOST_VISIBLE | HOST_COHERENT, so device buffers are mapped once and the host
  copies into them directly when no GPU work is pending.

Each allocation is one VkBuffer bound to its own VkDeviceMemory, created with a capacity
rounded up to a size class (powers of two up to 64 KiB, then eighths of a power of two, so
at most 12.5% is wasted). A released allocation goes back to a free list of its (kind, size
class) once the GPU no longer uses it (the runtime decides when); the free lists keep at
most `max_pooled_bytes`, destroying the least recently freed beyond that.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from .device import WHOLE_SIZE, VulkanDevice, VulkanError, check

DEVICE = "device"
UPLOAD = "upload"
DOWNLOAD = "download"

MIN_ALLOCATION = 256
_ids = itertools.count(1)


def size_class(nbytes: int) -> int:
    """The capacity allocated for a request of `nbytes` bytes."""
    n = max(int(nbytes), MIN_ALLOCATION)
    if n <= 1 << 16:
        return 1 << (n - 1).bit_length()
    step = 1 << ((n - 1).bit_length() - 4)  # an eighth of the power of two below n
    return -(-n // step) * step


class Allocation:
    """One VkBuffer with its own VkDeviceMemory; `view` maps it when host-visible."""

    __slots__ = ("buffer", "capacity", "id", "kind", "memory", "view")

    def __init__(
        self, kind: str, capacity: int, buffer: Any, memory: Any, view: np.ndarray | None
    ):
        self.id = next(_ids)
        self.kind = kind
        self.capacity = capacity
        self.buffer = buffer
        self.memory = memory
        self.view = view

    def __repr__(self) -> str:
        mapped = ", mapped" if self.view is not None else ""
        return f"Allocation(#{self.id}, {self.kind}, {self.capacity} bytes{mapped})"


class Buffer:
    """
    A buffer handed out by `VulkanRuntime.allocate`: `nbytes` usable bytes (the allocation
    may be larger). Invalid after `VulkanRuntime.release`; one dropped without `release`
    returns to the pool after the garbage collector finds it.
    """

    __slots__ = ("__weakref__", "alloc", "binding_key", "finalizer", "nbytes", "owner")

    def __init__(self, nbytes: int, alloc: Allocation, owner: object):
        self.nbytes = nbytes
        self.alloc: Allocation | None = alloc
        self.owner = owner
        # What a descriptor set that binds this buffer depends on.
        self.binding_key = (alloc.id, nbytes)
        self.finalizer: Any = (
            None  # set by the runtime: recycles a buffer dropped unreleased
        )

    @property
    def released(self) -> bool:
        return self.alloc is None

    def __repr__(self) -> str:
        state = "released" if self.alloc is None else repr(self.alloc)
        return f"Buffer({self.nbytes} bytes, {state})"


# STORAGE_BUFFER | TRANSFER_SRC | TRANSFER_DST | INDIRECT_BUFFER (dispatch counts)
_USAGE_DEVICE = 0x20 | 0x1 | 0x2 | 0x100
_USAGE_STAGING = 0x1 | 0x2


class MemoryPool:
    """
    Creates, reuses and destroys allocations of one device.

    Args:
        device: the logical device.
        direct: map device buffers and copy into them directly; None decides from the
            device (True when every device-local memory type is host-visible).
        max_pooled_bytes: the most bytes kept in the free lists.
        on_destroy: called with each allocation just before it is destroyed.
    """

    def __init__(
        self,
        device: VulkanDevice,
        *,
        direct: bool | None = None,
        max_pooled_bytes: int = 1 << 30,
        on_destroy: Callable[[Allocation], None] | None = None,
    ):
        self.device = device
        vk = self.vk = device.vk
        self.ffi, self.lib = vk.ffi, vk.lib
        self.max_pooled_bytes = max_pooled_bytes
        self.on_destroy = on_destroy
        self._free: dict[tuple[str, int], list[Allocation]] = {}
        self._free_order: OrderedDict[int, Allocation] = OrderedDict()  # LRU of free ones
        self._free_bytes = 0
        self._live: dict[int, Allocation] = {}  # every allocation not yet destroyed
        self.allocated_bytes = 0

        props = device.memory_properties
        self._type_flags = [
            int(props.memoryTypes[i].propertyFlags) for i in range(props.memoryTypeCount)
        ]
        local = vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
        visible = (
            vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        )
        cached = vk.VK_MEMORY_PROPERTY_HOST_CACHED_BIT
        can_direct = any(f & (local | visible) == local | visible for f in self._type_flags)
        if direct is None:
            direct = device.caps.host_visible_device_memory and can_direct
        if direct and not can_direct:
            raise VulkanError(
                "direct device memory",
                -1,
                "no DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT memory type on this device",
            )
        self.direct = bool(direct)
        # Per kind: (required flags, flags to avoid) in order of preference.
        self._preferences = {
            DEVICE: [(local | visible, 0)]
            if self.direct
            else [(local, visible), (local, 0), (0, 0)],
            UPLOAD: [(visible, local), (visible, 0)],
            DOWNLOAD: [(visible | cached, local), (visible | cached, 0), (visible, 0)],
        }
        self._mapped = {DEVICE: self.direct, UPLOAD: True, DOWNLOAD: True}

    # -- allocation ---------------------------------------------------------------------

    def acquire(self, kind: str, nbytes: int) -> Allocation:
        """An allocation of `kind` holding at least `nbytes`, reused when one is free."""
        capacity = size_class(nbytes)
        free = self._free.get((kind, capacity))
        if free:
            alloc = free.pop()
            del self._free_order[alloc.id]
            self._free_bytes -= alloc.capacity
            return alloc
        try:
            return self._create(kind, capacity)
        except VulkanError as exc:
            if (
                exc.result_name
                not in ("VK_ERROR_OUT_OF_DEVICE_MEMORY", "VK_ERROR_OUT_OF_HOST_MEMORY")
                or not self._free_bytes
            ):
                raise
        self.trim()  # give the pooled memory back and try once more
        return self._create(kind, capacity)

    def recycle(self, alloc: Allocation) -> None:
        """Return an allocation the GPU no longer uses to its free list."""
        if alloc.id not in self._live:
            return
        self._free.setdefault((alloc.kind, alloc.capacity), []).append(alloc)
        self._free_order[alloc.id] = alloc
        self._free_bytes += alloc.capacity
        while self._free_bytes > self.max_pooled_bytes and self._free_order:
            _, oldest = self._free_order.popitem(last=False)
            self._free[(oldest.kind, oldest.capacity)].remove(oldest)
            self._free_bytes -= oldest.capacity
            self._destroy(oldest)

    def trim(self) -> None:
        """Destroy every free allocation."""
        for allocs in self._free.values():
            for alloc in allocs:
                self._destroy(alloc)
        self._free.clear()
        self._free_order.clear()
        self._free_bytes = 0

    def close(self) -> None:
        """Destroy every allocation, free or not (the GPU must be idle)."""
        self.trim()
        for alloc in list(self._live.values()):
            self._destroy(alloc)

    @property
    def pooled_bytes(self) -> int:
        return self._free_bytes

    # -- Vulkan objects -----------------------------------------------------------------

    def _memory_type(self, type_bits: int, kind: str) -> int:
        for required, avoid in self._preferences[kind]:
            for index, flags in enumerate(self._type_flags):
                if (
                    type_bits >> index & 1
                    and flags & required == required
                    and not (flags & avoid)
                ):
                    return index
        raise VulkanError(
            "memory type selection",
            -1,
            f"no memory type for {kind} buffers (allowed types {type_bits:#x})",
        )

    def _create(self, kind: str, capacity: int) -> Allocation:
        vk, ffi, lib = self.vk, self.ffi, self.lib
        dev = self.device.handle
        info = ffi.new(
            "VkBufferCreateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                "size": capacity,
                "usage": _USAGE_DEVICE if kind == DEVICE else _USAGE_STAGING,
                "sharingMode": vk.VK_SHARING_MODE_EXCLUSIVE,
            },
        )
        out = ffi.new("VkBuffer*")
        check(lib.vkCreateBuffer(dev, info, ffi.NULL, out), "vkCreateBuffer")
        buffer = out[0]
        memory = None
        try:
            reqs = ffi.new("VkMemoryRequirements*")
            lib.vkGetBufferMemoryRequirements(dev, buffer, reqs)
            alloc_info = ffi.new(
                "VkMemoryAllocateInfo*",
                {
                    "sType": vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                    "allocationSize": reqs.size,
                    "memoryTypeIndex": self._memory_type(int(reqs.memoryTypeBits), kind),
                },
            )
            mem_out = ffi.new("VkDeviceMemory*")
            check(
                lib.vkAllocateMemory(dev, alloc_info, ffi.NULL, mem_out), "vkAllocateMemory"
            )
            memory = mem_out[0]
            check(lib.vkBindBufferMemory(dev, buffer, memory, 0), "vkBindBufferMemory")
            view = None
            if self._mapped[kind]:
                ptr = ffi.new("void**")
                check(lib.vkMapMemory(dev, memory, 0, WHOLE_SIZE, 0, ptr), "vkMapMemory")
                view = np.frombuffer(ffi.buffer(ptr[0], capacity), dtype=np.uint8)
        except Exception:
            lib.vkDestroyBuffer(dev, buffer, ffi.NULL)
            if memory is not None:
                lib.vkFreeMemory(dev, memory, ffi.NULL)
            raise
        alloc = Allocation(kind, capacity, buffer, memory, view)
        self._live[alloc.id] = alloc
        self.allocated_bytes += capacity
        return alloc

    def _destroy(self, alloc: Allocation) -> None:
        if self._live.pop(alloc.id, None) is None:
            return
        if self.on_destroy is not None:
            self.on_destroy(alloc)
        dev, null = self.device.handle, self.ffi.NULL
        alloc.view = None  # the mapping dies with the memory
        self.lib.vkDestroyBuffer(dev, alloc.buffer, null)
        self.lib.vkFreeMemory(dev, alloc.memory, null)  # implicitly unmaps
        self.allocated_bytes -= alloc.capacity
