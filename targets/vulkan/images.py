"""
Vulkan images for textures: one VkImage (optimal tiling, one mip level) with its own
memory, a VkImageView, and a shared VkSampler, created through `VulkanRuntime`:

    img = rt.create_image((w, h), vk_format=37, texel_bytes=4)    # R8G8B8A8_UNORM
    rt.upload_image(img, texels)          # x fastest; recorded, never waits
    rt.launch(kernel, [..., img], groups) # a combined image sampler or a storage image
    texels = rt.download_image(img)       # waits; uint8, x fastest
    rt.release_image(img)

An image lives in VK_IMAGE_LAYOUT_GENERAL from its creation on (one recorded layout
transition from UNDEFINED), which every use allows: sampling, storage load/store and
transfers. So no further layout transitions are needed, and the runtime's global memory
barrier before each command orders image accesses like buffer accesses.

The sampler filters linearly where the format allows it (nearest otherwise), clamps to
the edge and reads mip level 0 (`sample_lod` with lod 0); it takes normalized
coordinates, as Taichi's `sample_lod` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .device import VulkanError, check
from .memory import DOWNLOAD, UPLOAD, _ids

_LAYOUT_UNDEFINED, _LAYOUT_GENERAL = 0, 1
_USAGE = 0x1 | 0x2 | 0x4  # TRANSFER_SRC | TRANSFER_DST | SAMPLED
_USAGE_STORAGE = 0x8
_FEATURE_SAMPLED, _FEATURE_STORAGE, _FEATURE_LINEAR = 0x1, 0x2, 0x1000
_ASPECT_COLOR = 0x1
_TOP_OF_PIPE = 0x1
_STAGES = 0x800 | 0x1000  # COMPUTE_SHADER | TRANSFER
_ACCESS_ALL = 0x20 | 0x40 | 0x800 | 0x1000  # SHADER_READ/WRITE | TRANSFER_READ/WRITE
_DEVICE_LOCAL = 0x1


class Image:
    """A texture image of a runtime (see `VulkanRuntime.create_image`)."""

    __slots__ = (
        "__weakref__",
        "alloc",
        "binding_key",
        "extent",
        "id",
        "image",
        "memory",
        "nbytes",
        "owner",
        "sampler",
        "shape",
        "storage",
        "texel_bytes",
        "view",
        "vk_format",
    )

    def __init__(
        self, owner: Any, shape: tuple[int, ...], vk_format: int, texel_bytes: int
    ):
        self.id = next(_ids)
        self.owner = owner
        self.shape = shape
        self.extent = (tuple(shape) + (1, 1))[:3]
        self.vk_format = vk_format
        self.texel_bytes = texel_bytes
        self.nbytes = 0  # not a buffer: nothing for maxStorageBufferRange to check
        self.binding_key = (self.id, 0)
        self.alloc: Any = self  # None once released (as a released Buffer)
        self.image: Any = None
        self.memory: Any = None
        self.view: Any = None
        self.sampler: Any = None
        self.storage = False

    @property
    def texel_count(self) -> int:
        return int(np.prod(self.extent))

    def __repr__(self) -> str:
        state = "released" if self.alloc is None else f"format {self.vk_format}"
        return f"Image({'x'.join(map(str, self.shape))}, {state})"


def _images(rt: Any) -> dict[int, Image]:
    images = getattr(rt, "_texture_images", None)
    if images is None:
        images = rt._texture_images = {}
    return images


def _samplers(rt: Any) -> dict[bool, Any]:
    samplers = getattr(rt, "_texture_samplers", None)
    if samplers is None:
        samplers = rt._texture_samplers = {}
    return samplers


def _sampler(rt: Any, linear: bool) -> Any:
    samplers = _samplers(rt)
    if linear not in samplers:
        vk, ffi = rt.vk, rt.ffi
        edge = 2  # VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
        info = ffi.new(
            "VkSamplerCreateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                "magFilter": int(linear),
                "minFilter": int(linear),
                "mipmapMode": 0,
                "addressModeU": edge,
                "addressModeV": edge,
                "addressModeW": edge,
                "maxLod": 0.0,
            },
        )
        out = ffi.new("VkSampler*")
        check(rt.lib.vkCreateSampler(rt._dev, info, ffi.NULL, out), "vkCreateSampler")
        samplers[linear] = out[0]
    return samplers[linear]


def _memory_type(rt: Any, type_bits: int) -> int:
    flags = rt.pool._type_flags
    allowed = [i for i in range(len(flags)) if type_bits >> i & 1]
    for index in allowed:
        if flags[index] & _DEVICE_LOCAL:
            return index
    if not allowed:
        raise VulkanError("image memory type selection", -1, "no memory type allowed")
    return allowed[0]


def orphan(rt: Any, img: Image) -> None:
    """`img` is no longer referenced (a garbage-collected texture): destroy it at the
    next `create_image`, not from inside the garbage collector (which may run in the
    middle of a launch)."""
    if not rt.closed and img.alloc is not None:
        _orphans(rt).append(img)


def _orphans(rt: Any) -> list[Image]:
    orphans = getattr(rt, "_texture_orphans", None)
    if orphans is None:
        orphans = rt._texture_orphans = []
    return orphans


def create_image(rt: Any, shape: Sequence[int], vk_format: int, texel_bytes: int) -> Image:
    """See `VulkanRuntime.create_image`."""
    orphans = _orphans(rt)
    while orphans:
        release_image(rt, orphans.pop())
    shape = tuple(int(s) for s in shape)
    if not 1 <= len(shape) <= 3 or min(shape) < 1:
        raise ValueError(f"an image has 1 to 3 positive extents, got {shape}")
    vk, ffi, lib, dev = rt.vk, rt.ffi, rt.lib, rt._dev
    props = ffi.new("VkFormatProperties*")
    lib.vkGetPhysicalDeviceFormatProperties(rt.device.physical.handle, vk_format, props)
    features = int(props.optimalTilingFeatures)
    if not features & _FEATURE_SAMPLED:
        raise VulkanError(
            "vkGetPhysicalDeviceFormatProperties",
            -1,
            f"the device cannot sample images of VkFormat {vk_format}",
        )
    img = Image(rt, shape, vk_format, texel_bytes)
    img.storage = bool(features & _FEATURE_STORAGE)
    w, h, d = img.extent
    info = ffi.new(
        "VkImageCreateInfo*",
        {
            "sType": vk.VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
            "imageType": len(shape) - 1,
            "format": vk_format,
            "extent": {"width": w, "height": h, "depth": d},
            "mipLevels": 1,
            "arrayLayers": 1,
            "samples": 1,
            "tiling": 0,
            "usage": _USAGE | (_USAGE_STORAGE if img.storage else 0),
            "sharingMode": vk.VK_SHARING_MODE_EXCLUSIVE,
            "initialLayout": _LAYOUT_UNDEFINED,
        },
    )
    out = ffi.new("VkImage*")
    check(lib.vkCreateImage(dev, info, ffi.NULL, out), "vkCreateImage")
    img.image = out[0]
    try:
        reqs = ffi.new("VkMemoryRequirements*")
        lib.vkGetImageMemoryRequirements(dev, img.image, reqs)
        alloc_info = ffi.new(
            "VkMemoryAllocateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                "allocationSize": reqs.size,
                "memoryTypeIndex": _memory_type(rt, int(reqs.memoryTypeBits)),
            },
        )
        mem = ffi.new("VkDeviceMemory*")
        check(lib.vkAllocateMemory(dev, alloc_info, ffi.NULL, mem), "vkAllocateMemory")
        img.memory = mem[0]
        check(lib.vkBindImageMemory(dev, img.image, img.memory, 0), "vkBindImageMemory")
        view_info = ffi.new(
            "VkImageViewCreateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                "image": img.image,
                "viewType": len(shape) - 1,
                "format": vk_format,
                "subresourceRange": _subresource_range(),
            },
        )
        view = ffi.new("VkImageView*")
        check(lib.vkCreateImageView(dev, view_info, ffi.NULL, view), "vkCreateImageView")
        img.view = view[0]
        img.sampler = _sampler(rt, bool(features & _FEATURE_LINEAR))
    except Exception:
        _destroy(rt, img)
        raise
    _images(rt)[img.id] = img
    _record_transition(rt, img)
    return img


def _subresource_range() -> dict[str, int]:
    return {
        "aspectMask": _ASPECT_COLOR,
        "baseMipLevel": 0,
        "levelCount": 1,
        "baseArrayLayer": 0,
        "layerCount": 1,
    }


def _record_transition(rt: Any, img: Image) -> None:
    """UNDEFINED -> GENERAL, before any later command touches the image."""
    vk, ffi = rt.vk, rt.ffi
    barrier = ffi.new(
        "VkImageMemoryBarrier*",
        {
            "sType": vk.VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
            "srcAccessMask": 0,
            "dstAccessMask": _ACCESS_ALL,
            "oldLayout": _LAYOUT_UNDEFINED,
            "newLayout": _LAYOUT_GENERAL,
            "srcQueueFamilyIndex": 0xFFFFFFFF,
            "dstQueueFamilyIndex": 0xFFFFFFFF,
            "image": img.image,
            "subresourceRange": _subresource_range(),
        },
    )
    batch = rt._recording()
    null = ffi.NULL
    rt.lib.vkCmdPipelineBarrier(
        batch.cmd, _TOP_OF_PIPE, _STAGES, 0, 0, null, 0, null, 1, barrier
    )
    batch.commands += 1
    rt._flush_if_full(batch)


def _copy_region(rt: Any, img: Image) -> Any:
    w, h, d = img.extent
    return rt.ffi.new(
        "VkBufferImageCopy*",
        {
            "bufferOffset": 0,
            "bufferRowLength": 0,
            "bufferImageHeight": 0,
            "imageSubresource": {
                "aspectMask": _ASPECT_COLOR,
                "mipLevel": 0,
                "baseArrayLayer": 0,
                "layerCount": 1,
            },
            "imageOffset": {"x": 0, "y": 0, "z": 0},
            "imageExtent": {"width": w, "height": h, "depth": d},
        },
    )


def _alive(rt: Any, img: Image) -> None:
    rt._require_open()
    if img.owner is not rt or img.alloc is None:
        raise ValueError(f"{img} is released or belongs to another runtime")


def upload_image(rt: Any, img: Image, data: Any) -> None:
    """See `VulkanRuntime.upload_image`."""
    _alive(rt, img)
    src = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    n = img.texel_count * img.texel_bytes
    if src.nbytes != n:
        raise ValueError(f"{img} holds {n} bytes of texels, got {src.nbytes}")
    staging = rt.pool.acquire(UPLOAD, n)
    staging.view[:n] = src
    batch = rt._recording()
    rt._record_barrier(batch)
    region = _copy_region(rt, img)
    rt.lib.vkCmdCopyBufferToImage(
        batch.cmd, staging.buffer, img.image, _LAYOUT_GENERAL, 1, region
    )
    rt.stats.copies += 1
    batch.commands += 1
    batch.keep.append(staging)
    rt._flush_if_full(batch)


def download_image(rt: Any, img: Image) -> np.ndarray:
    """See `VulkanRuntime.download_image`."""
    _alive(rt, img)
    n = img.texel_count * img.texel_bytes
    staging = rt.pool.acquire(DOWNLOAD, n)
    try:
        batch = rt._recording()
        rt._record_barrier(batch)
        region = _copy_region(rt, img)
        rt.lib.vkCmdCopyImageToBuffer(
            batch.cmd, img.image, _LAYOUT_GENERAL, staging.buffer, 1, region
        )
        rt.stats.copies += 1
        batch.commands += 1
        rt.sync()
        return np.array(staging.view[:n], dtype=np.uint8)
    finally:
        rt._retire(staging)


def release_image(rt: Any, img: Image) -> None:
    """See `VulkanRuntime.release_image` (waits for the GPU: textures are few)."""
    if img.alloc is None or rt.closed:
        return
    rt.sync()
    _images(rt).pop(img.id, None)
    _destroy(rt, img)


def _destroy(rt: Any, img: Image) -> None:
    lib, dev, null = rt.lib, rt._dev, rt.ffi.NULL
    if rt.pipelines is not None:
        rt.pipelines.forget_allocation(img)  # descriptor sets that bind it
    if img.view is not None:
        lib.vkDestroyImageView(dev, img.view, null)
    if img.image is not None:
        lib.vkDestroyImage(dev, img.image, null)
    if img.memory is not None:
        lib.vkFreeMemory(dev, img.memory, null)
    img.view = img.image = img.memory = img.alloc = None


def destroy_all(rt: Any) -> None:
    """Every image and sampler of `rt` (at close; the GPU is idle)."""
    for img in list(_images(rt).values()):
        _destroy(rt, img)
    _images(rt).clear()
    for sampler in _samplers(rt).values():
        rt.lib.vkDestroySampler(rt._dev, sampler, rt.ffi.NULL)
    _samplers(rt).clear()
