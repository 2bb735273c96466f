"""
Compute pipelines and descriptor sets: what `VulkanRuntime.load_kernel` and `launch` use.

- SPIR-V is read just enough to check it (magic, entry point) and to learn the workgroup
  size (OpExecutionMode LocalSize) and the bindings it declares;
- one compute pipeline per (SPIR-V bytes, entry point, layout), created through a
  VkPipelineCache (optionally loaded from and saved to a file) and cached in a dict keyed by
  the SHA-256 of the bytes;
- descriptor set layouts: `num_bindings` storage buffers in set 0 (binding i = buffers[i]),
  shared by every kernel with that many bindings; a kernel loaded with `binding_types`
  (textures) has combined image samplers / storage images at those bindings, bound from
  `images.Image`s; pipeline layouts add one push-constant
  range and are shared per (bindings, push bytes);
- descriptor sets are written once per (binding count, bound buffers) and cached; a set is
  freed when an allocation it binds is destroyed, and the whole cache is dropped when it
  grows past its limit.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .device import WHOLE_SIZE, VulkanDevice, VulkanError, check, error_code
from .memory import Allocation, Buffer

SPIRV_MAGIC = 0x07230203
_OP_ENTRY_POINT = 15
_OP_EXECUTION_MODE = 16
_OP_DECORATE = 71
_OP_VARIABLE = 59
_EXEC_MODEL_GLCOMPUTE = 5
_MODE_LOCAL_SIZE = 17
_DECORATION_BINDING = 33
_DECORATION_DESCRIPTOR_SET = 34
_STORAGE_PUSH_CONSTANT = 9

COMPUTE_STAGE_BIT = 0x20
STORAGE_BUFFER = 7  # VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
COMBINED_IMAGE_SAMPLER = 1  # VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
STORAGE_IMAGE = 3  # VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
_IMAGE_LAYOUT_GENERAL = 1
_SETS_PER_POOL = 512


# ---------------------------------------------------------------------------------------
# SPIR-V


@dataclass(frozen=True)
class SpirvInfo:
    """What the runtime reads from a SPIR-V module's header and annotations."""

    entry_points: dict[str, tuple[int, ...] | None]  # GLCompute name -> LocalSize
    num_bindings: int  # 1 + the highest Binding in descriptor set 0 (0 when none)
    has_push_constants: bool
    descriptor_sets: frozenset[int]  # every DescriptorSet decoration value


def spirv_bytes(
    spirv: bytes | bytearray | memoryview | np.ndarray | Sequence[int],
) -> bytes:
    """SPIR-V as little-endian bytes, from bytes, a uint32 array or a list of words."""
    if isinstance(spirv, (bytes, bytearray, memoryview)):
        data = bytes(spirv)
    elif isinstance(spirv, np.ndarray):
        data = np.ascontiguousarray(spirv, dtype="<u4").tobytes()
    else:
        data = np.asarray(list(spirv), dtype="<u4").tobytes()
    if len(data) < 20 or len(data) % 4:
        raise ValueError(f"not a SPIR-V module: {len(data)} bytes (want 4k >= 20)")
    if struct.unpack_from("<I", data)[0] != SPIRV_MAGIC:
        raise ValueError("not a SPIR-V module: bad magic number (want 0x07230203, LE)")
    return data


def parse_spirv(data: bytes) -> SpirvInfo:
    """Entry points, workgroup sizes and bindings of a SPIR-V module (no validation)."""
    words = np.frombuffer(data, dtype="<u4")
    entries: dict[int, str] = {}
    local_sizes: dict[int, tuple[int, ...]] = {}
    bindings: dict[int, int] = {}
    sets: dict[int, int] = {}
    has_push = False
    pos = 5
    while pos < len(words):
        count, opcode = int(words[pos]) >> 16, int(words[pos]) & 0xFFFF
        if count == 0 or pos + count > len(words):
            raise ValueError(
                f"malformed SPIR-V: instruction at word {pos} has length {count}"
            )
        operands = words[pos + 1 : pos + count]
        if opcode == _OP_ENTRY_POINT and operands[0] == _EXEC_MODEL_GLCOMPUTE:
            raw = operands[2:].tobytes()
            entries[int(operands[1])] = raw[: raw.index(b"\0")].decode()
        elif opcode == _OP_EXECUTION_MODE and operands[1] == _MODE_LOCAL_SIZE:
            local_sizes[int(operands[0])] = tuple(int(v) for v in operands[2:5])
        elif opcode == _OP_DECORATE and operands[1] == _DECORATION_BINDING:
            bindings[int(operands[0])] = int(operands[2])
        elif opcode == _OP_DECORATE and operands[1] == _DECORATION_DESCRIPTOR_SET:
            sets[int(operands[0])] = int(operands[2])
        elif opcode == _OP_VARIABLE and operands[2] == _STORAGE_PUSH_CONSTANT:
            has_push = True
        pos += count
    set0 = [b for target, b in bindings.items() if sets.get(target, 0) == 0]
    return SpirvInfo(
        entry_points={name: local_sizes.get(fid) for fid, name in entries.items()},
        num_bindings=max(set0) + 1 if set0 else 0,
        has_push_constants=has_push,
        descriptor_sets=frozenset(sets.values()),
    )


# ---------------------------------------------------------------------------------------
# Kernels


class Kernel:
    """A compute pipeline for one SPIR-V entry point (made by `VulkanRuntime.load_kernel`)."""

    __slots__ = (
        "binding_types",
        "entry",
        "layout",
        "local_size",
        "module",
        "name",
        "num_bindings",
        "pipeline",
        "push_constant_bytes",
    )

    def __init__(
        self,
        name: str,
        entry: str,
        num_bindings: int,
        push_constant_bytes: int,
        local_size: tuple[int, ...] | None,
        binding_types: tuple[int, ...] = (),
    ):
        self.name = name
        self.entry = entry
        self.num_bindings = num_bindings
        # The descriptor type of each binding (all storage buffers by default).
        self.binding_types = binding_types or (STORAGE_BUFFER,) * num_bindings
        self.push_constant_bytes = push_constant_bytes
        self.local_size = local_size  # None when the module sets it by LocalSizeId
        self.module: Any = None
        self.pipeline: Any = None
        self.layout: Any = None

    def __repr__(self) -> str:
        return (
            f"Kernel({self.name!r}, entry={self.entry!r}, bindings={self.num_bindings}, "
            f"push_constants={self.push_constant_bytes}, local_size={self.local_size})"
        )


class Pipelines:
    """
    The kernels, layouts and descriptor sets of one device.

    Args:
        device: the logical device.
        cache_path: a file holding VkPipelineCache data (read now, written by `close`).
        max_descriptor_sets: cached descriptor sets before the cache is dropped.
    """

    def __init__(
        self,
        device: VulkanDevice,
        *,
        cache_path: str | None = None,
        max_descriptor_sets: int = 4096,
    ):
        self.device = device
        self.vk, self.ffi, self.lib = device.vk, device.vk.ffi, device.vk.lib
        self.dev = device.handle
        self.cache_path = cache_path
        self.max_descriptor_sets = max_descriptor_sets
        self.pipelines_created = 0
        self.descriptor_sets_created = 0
        self._kernels: dict[bytes, Kernel] = {}
        self._set_layouts: dict[tuple[int, ...], Any] = {}
        self._pipeline_layouts: dict[tuple[tuple[int, ...], int], Any] = {}
        self._descriptor_pools: list[Any] = []
        # (binding types, ((allocation id, bound bytes), ...)) -> VkDescriptorSet[1]
        self.sets: dict[tuple, Any] = {}
        self._set_pool: dict[tuple, Any] = {}
        self._sets_by_alloc: dict[int, set[tuple]] = {}
        self._cache: Any = None
        self._cache = self._create_pipeline_cache()

    def _new(self, ctype: str, **fields: Any) -> Any:
        """A zeroed `ctype` struct with `sType` and the given fields (kept alive by caller)."""
        return self.ffi.new(f"{ctype}*", fields)

    def _create(self, call: str, handle: str, info: Any) -> Any:
        out = self.ffi.new(f"{handle}*")
        check(getattr(self.lib, call)(self.dev, info, self.ffi.NULL, out), call)
        return out[0]

    # -- pipelines ----------------------------------------------------------------------

    def kernel(
        self,
        data: bytes,
        entry: str,
        num_bindings: int | None,
        push_constant_bytes: int | None,
        name: str | None,
        binding_types: Sequence[int] | None = None,
    ) -> Kernel:
        """The cached Kernel for (data, entry, layout), creating its pipeline if new."""
        if binding_types is not None:
            binding_types = tuple(binding_types)
            if num_bindings is None:
                num_bindings = len(binding_types)
            if len(binding_types) != num_bindings:
                raise ValueError(
                    f"{len(binding_types)} binding types for {num_bindings} bindings"
                )
        caps = self.device.caps
        info = parse_spirv(data)
        if entry not in info.entry_points:
            found = ", ".join(sorted(info.entry_points)) or "none"
            raise ValueError(
                f"SPIR-V module has no GLCompute entry point {entry!r} (found: {found})"
            )
        if info.descriptor_sets - {0}:
            raise ValueError(
                f"SPIR-V module uses descriptor sets {sorted(info.descriptor_sets)}"
                "; the runtime binds storage buffers in set 0 only"
            )
        if num_bindings is None:
            num_bindings = info.num_bindings
        elif num_bindings < info.num_bindings:
            raise ValueError(
                f"num_bindings={num_bindings}, but the module binds "
                f"{info.num_bindings} buffers in set 0"
            )
        if num_bindings > caps.max_per_stage_descriptor_storage_buffers:
            raise ValueError(
                f"{num_bindings} storage buffers exceed the device limit of "
                f"{caps.max_per_stage_descriptor_storage_buffers}"
            )
        if push_constant_bytes is None:
            push_constant_bytes = (
                min(128, caps.max_push_constants_size) if info.has_push_constants else 0
            )
        if push_constant_bytes % 4 or push_constant_bytes > caps.max_push_constants_size:
            raise ValueError(
                f"push_constant_bytes={push_constant_bytes} must be a multiple "
                f"of 4 and <= {caps.max_push_constants_size}"
            )
        key = (
            hashlib.sha256(data).digest()
            + struct.pack("<II", num_bindings, push_constant_bytes)
            + bytes(binding_types or ())
            + entry.encode()
        )
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = Kernel(
                name or entry,
                entry,
                num_bindings,
                push_constant_bytes,
                info.entry_points[entry],
                tuple(binding_types or ()),
            )
            self._create_pipeline(kernel, data)
            self._kernels[key] = kernel
        return kernel

    def _create_pipeline(self, kernel: Kernel, data: bytes) -> None:
        vk, ffi = self.vk, self.ffi
        code = ffi.from_buffer(data)
        kernel.module = self._create(
            "vkCreateShaderModule",
            "VkShaderModule",
            self._new(
                "VkShaderModuleCreateInfo",
                sType=vk.VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                codeSize=len(data),
                pCode=ffi.cast("uint32_t*", code),
            ),
        )
        kernel.layout = self._pipeline_layout(
            kernel.binding_types, kernel.push_constant_bytes
        )
        entry = ffi.new("char[]", kernel.entry.encode())
        info = self._new(
            "VkComputePipelineCreateInfo",
            sType=vk.VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            stage={
                "sType": vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                "stage": COMPUTE_STAGE_BIT,
                "module": kernel.module,
                "pName": entry,
            },
            layout=kernel.layout,
        )
        out = ffi.new("VkPipeline*")
        result = self.lib.vkCreateComputePipelines(
            self.dev, self._cache, 1, info, ffi.NULL, out
        )
        if result != 0:
            self.lib.vkDestroyShaderModule(self.dev, kernel.module, ffi.NULL)
            kernel.module = None
            check(result, f"vkCreateComputePipelines({kernel.name})")
        kernel.pipeline = out[0]
        self.pipelines_created += 1

    def _set_layout(self, types: tuple[int, ...]) -> Any:
        layout = self._set_layouts.get(types)
        num_bindings = len(types)
        if layout is None:
            bindings = self.ffi.new(
                "VkDescriptorSetLayoutBinding[]",
                [
                    {
                        "binding": i,
                        "descriptorType": t,
                        "descriptorCount": 1,
                        "stageFlags": COMPUTE_STAGE_BIT,
                    }
                    for i, t in enumerate(types)
                ]
                or 1,
            )
            layout = self._create(
                "vkCreateDescriptorSetLayout",
                "VkDescriptorSetLayout",
                self._new(
                    "VkDescriptorSetLayoutCreateInfo",
                    sType=self.vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                    bindingCount=num_bindings,
                    pBindings=bindings,
                ),
            )
            self._set_layouts[types] = layout
        return layout

    def _pipeline_layout(self, types: tuple[int, ...], push_bytes: int) -> Any:
        key = (types, push_bytes)
        layout = self._pipeline_layouts.get(key)
        if layout is None:
            ffi = self.ffi
            set_layouts = ffi.new("VkDescriptorSetLayout[1]", [self._set_layout(types)])
            ranges = ffi.new(
                "VkPushConstantRange[1]",
                [{"stageFlags": COMPUTE_STAGE_BIT, "offset": 0, "size": push_bytes}],
            )
            layout = self._create(
                "vkCreatePipelineLayout",
                "VkPipelineLayout",
                self._new(
                    "VkPipelineLayoutCreateInfo",
                    sType=self.vk.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                    setLayoutCount=1,
                    pSetLayouts=set_layouts,
                    pushConstantRangeCount=1 if push_bytes else 0,
                    pPushConstantRanges=ranges if push_bytes else ffi.NULL,
                ),
            )
            self._pipeline_layouts[key] = layout
        return layout

    # -- pipeline cache -----------------------------------------------------------------

    def _create_pipeline_cache(self) -> Any:
        initial = b""
        if self.cache_path and os.path.exists(self.cache_path):
            with open(self.cache_path, "rb") as f:
                initial = f.read()
        out = self.ffi.new("VkPipelineCache*")
        result = 0
        # Drivers reject data of another device or driver version: then start empty.
        for data in [initial, b""] if initial else [b""]:
            info = self._new(
                "VkPipelineCacheCreateInfo",
                sType=self.vk.VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                initialDataSize=len(data),
                pInitialData=self.ffi.from_buffer(data) if data else self.ffi.NULL,
            )
            result = self.lib.vkCreatePipelineCache(self.dev, info, self.ffi.NULL, out)
            if result == 0:
                return out[0]
        check(result, "vkCreatePipelineCache")
        return None

    def cache_data(self) -> bytes:
        """The VkPipelineCache contents."""
        ffi, size = self.ffi, self.ffi.new("size_t*")
        call = self.lib.vkGetPipelineCacheData
        check(call(self.dev, self._cache, size, ffi.NULL), "vkGetPipelineCacheData")
        blob = ffi.new("char[]", size[0])
        check(call(self.dev, self._cache, size, blob), "vkGetPipelineCacheData")
        return ffi.buffer(blob, size[0])[:]

    def save_cache(self) -> None:
        """Write the pipeline cache to `cache_path` (atomically), if there is one."""
        if not self.cache_path or self._cache is None:
            return
        try:
            data = self.cache_data()
            tmp = f"{self.cache_path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, self.cache_path)
        except (OSError, VulkanError):
            pass  # a cache that cannot be saved is only a missed speed-up

    # -- descriptor sets ----------------------------------------------------------------

    def descriptor_set(self, key: tuple, buffers: Sequence[Buffer]) -> Any:
        """
        A new descriptor set binding `buffers` (set 0, binding i), cached under `key`.
        The caller checked that the buffers are alive, and makes sure, when the cache is
        full, that no recorded work still uses a cached set (`reset_sets`).
        """
        limit = self.device.caps.max_storage_buffer_range
        types: tuple[int, ...] = key[0]
        for buf in buffers:
            if buf.nbytes > limit:
                raise ValueError(
                    f"{buf} is larger than the device's maxStorageBufferRange "
                    f"({limit} bytes)"
                )
        vk, ffi = self.vk, self.ffi
        num_bindings = len(types)
        descriptor_set, pool = self._allocate_set(types)
        if num_bindings:
            infos = ffi.new(
                "VkDescriptorBufferInfo[]",
                [
                    {
                        "buffer": b.alloc.buffer,
                        "offset": 0,  # type: ignore[union-attr]
                        "range": b.nbytes or WHOLE_SIZE,
                    }
                    if t == STORAGE_BUFFER
                    else {}
                    for b, t in zip(buffers, types)
                ],
            )
            image_infos = ffi.new(
                "VkDescriptorImageInfo[]",
                [
                    {}
                    if t == STORAGE_BUFFER
                    else {
                        "sampler": b.sampler if t == COMBINED_IMAGE_SAMPLER else ffi.NULL,  # type: ignore[attr-defined]
                        "imageView": b.view,  # type: ignore[attr-defined]
                        "imageLayout": _IMAGE_LAYOUT_GENERAL,
                    }
                    for b, t in zip(buffers, types)
                ],
            )
            writes = ffi.new(
                "VkWriteDescriptorSet[]",
                [
                    {
                        "sType": vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                        "dstSet": descriptor_set[0],
                        "dstBinding": i,
                        "descriptorCount": 1,
                        "descriptorType": t,
                        "pBufferInfo": infos + i if t == STORAGE_BUFFER else ffi.NULL,
                        "pImageInfo": image_infos + i if t != STORAGE_BUFFER else ffi.NULL,
                    }
                    for i, t in enumerate(types)
                ],
            )
            self.lib.vkUpdateDescriptorSets(self.dev, num_bindings, writes, 0, ffi.NULL)
        self.sets[key] = descriptor_set
        self._set_pool[key] = pool
        for alloc_id, _ in key[1]:
            self._sets_by_alloc.setdefault(alloc_id, set()).add(key)
        self.descriptor_sets_created += 1
        return descriptor_set

    def _allocate_set(self, types: tuple[int, ...]) -> tuple[Any, Any]:
        vk, ffi = self.vk, self.ffi
        num_bindings = len(types)
        layouts = ffi.new("VkDescriptorSetLayout[1]", [self._set_layout(types)])
        out = ffi.new("VkDescriptorSet[1]")
        full = (
            error_code(vk, "VK_ERROR_OUT_OF_POOL_MEMORY"),
            error_code(vk, "VK_ERROR_FRAGMENTED_POOL"),
        )
        for fresh in (False, True):
            if fresh or not self._descriptor_pools:
                self._new_descriptor_pool(max(_SETS_PER_POOL * 8, num_bindings))
            pool = self._descriptor_pools[-1]
            info = self._new(
                "VkDescriptorSetAllocateInfo",
                sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                descriptorPool=pool,
                descriptorSetCount=1,
                pSetLayouts=layouts,
            )
            result = self.lib.vkAllocateDescriptorSets(self.dev, info, out)
            if result == 0:
                return out, pool
            if fresh or result not in full:
                check(result, "vkAllocateDescriptorSets")
        raise AssertionError("unreachable")

    def _new_descriptor_pool(self, descriptors: int) -> None:
        sizes = self.ffi.new(
            "VkDescriptorPoolSize[3]",
            [
                {"type": STORAGE_BUFFER, "descriptorCount": descriptors},
                {"type": COMBINED_IMAGE_SAMPLER, "descriptorCount": descriptors // 8},
                {"type": STORAGE_IMAGE, "descriptorCount": descriptors // 8},
            ],
        )
        self._descriptor_pools.append(
            self._create(
                "vkCreateDescriptorPool",
                "VkDescriptorPool",
                self._new(
                    "VkDescriptorPoolCreateInfo",
                    sType=self.vk.VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                    flags=self.vk.VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
                    maxSets=_SETS_PER_POOL,
                    poolSizeCount=3,
                    pPoolSizes=sizes,
                ),
            )
        )

    def forget_allocation(self, alloc: Allocation) -> None:
        """Free the descriptor sets that bind an allocation about to be destroyed."""
        for key in self._sets_by_alloc.pop(alloc.id, ()):
            descriptor_set = self.sets.pop(key, None)
            pool = self._set_pool.pop(key, None)
            if descriptor_set is not None:
                self.lib.vkFreeDescriptorSets(self.dev, pool, 1, descriptor_set)
            for other_id, _ in key[1]:
                if other_id != alloc.id:
                    self._sets_by_alloc.get(other_id, set()).discard(key)

    def reset_sets(self) -> None:
        """Drop every cached descriptor set (no recorded work may still use one)."""
        for pool in self._descriptor_pools:
            check(
                self.lib.vkResetDescriptorPool(self.dev, pool, 0), "vkResetDescriptorPool"
            )
        self.sets.clear()
        self._set_pool.clear()
        self._sets_by_alloc.clear()

    def close(self) -> None:
        """Save the pipeline cache and destroy every object (the GPU must be idle)."""
        self.save_cache()
        lib, dev, null = self.lib, self.dev, self.ffi.NULL
        for pool in self._descriptor_pools:
            lib.vkDestroyDescriptorPool(dev, pool, null)
        self._descriptor_pools.clear()
        self.sets.clear()
        self._set_pool.clear()
        self._sets_by_alloc.clear()
        for kernel in self._kernels.values():
            if kernel.pipeline is not None:
                lib.vkDestroyPipeline(dev, kernel.pipeline, null)
            if kernel.module is not None:
                lib.vkDestroyShaderModule(dev, kernel.module, null)
            kernel.pipeline = kernel.module = None
        self._kernels.clear()
        for layout in self._pipeline_layouts.values():
            lib.vkDestroyPipelineLayout(dev, layout, null)
        self._pipeline_layouts.clear()
        for layout in self._set_layouts.values():
            lib.vkDestroyDescriptorSetLayout(dev, layout, null)
        self._set_layouts.clear()
        if self._cache is not None:
            lib.vkDestroyPipelineCache(dev, self._cache, null)
            self._cache = None
