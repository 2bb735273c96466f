"""
The Vulkan compute runtime: buffers, compute pipelines, recorded dispatches submitted in
batches, and synchronisation only when the host reads.

    rt = VulkanRuntime(device=None)          # or VulkanRuntime("llvmpipe"), $TI_VULKAN_DEVICE
    x = rt.allocate(n * 4); y = rt.allocate(n * 4)
    rt.upload(x, x_host); rt.upload(y, y_host)
    saxpy = rt.load_kernel(spirv, entry="main", num_bindings=2, push_constant_bytes=8)
    groups = rt.group_count(saxpy, n)        # min(ceil(n / local_size_x), device limit)
    rt.launch(saxpy, [x, y], groups, push_constants=struct.pack("<fI", a, n))  # recorded
    rt.launch(other, [y, z], groups)         # ordered after saxpy by a barrier, no host wait
    rt.download(y, y_host)                   # submits what is recorded, waits, copies out
    rt.release(x); rt.close()

The ABI a SPIR-V module follows:
- entry point: an OpEntryPoint GLCompute named `entry`; its workgroup size (LocalSize) is
  read from the module and exposed as `Kernel.local_size`;
- buffers: storage buffers in descriptor set 0, `buffers[i]` at binding i, each bound from
  offset 0 for exactly `Buffer.nbytes` bytes (so OpArrayLength sees the requested size);
- push constants: at most one block of `push_constant_bytes` bytes (<= 128 is portable),
  given per launch as bytes or a NumPy array;
- dispatch: `group_count` never exceeds maxComputeWorkGroupCount (checked), so a kernel over
  more elements than groups x local size loops grid-stride (`i += NumWorkgroups.x *
  local_size_x`); `group_count` computes that capped count.

Ordering: every recorded command (dispatch, copy, fill) is preceded by a global memory
barrier (compute + transfer writes -> compute + transfer reads/writes), so commands run as
if one after another, across submissions too; a batch ends with a barrier to the host.
Recorded commands are submitted when a batch reaches its limit, or when the host needs
data: `download`, `sync`, `flush`. The limit starts at `first_batch` commands after every
sync and doubles with each submission up to `max_batch`: the GPU starts on the first
commands at once instead of idling while a long batch is recorded, and later batches,
recorded while the GPU runs the earlier ones, stay long (few submissions). Host writes go straight into mapped memory when no
GPU work is pending, otherwise through a staging buffer and a recorded copy, so an upload
never waits.

Recorded sequences: dispatches launched between `begin_recording()` and `end_recording()`
go into a secondary command buffer recorded once; `replay(rec)` records one
vkCmdExecuteCommands of it into the current batch (ordered as any command), as many times
as wanted. The recording binds the buffers it was recorded with: update their contents
(upload) between replays; `rec.valid` turns False when one of them was released or the
descriptor-set cache was dropped, and then it must be recorded again.

    rec = rt.begin_recording()
    rt.launch(k1, [x, y], groups); rt.launch(k2, [y], groups)   # recorded, not run
    rt.end_recording(rec)
    rt.upload(x, x_host); rt.replay(rec); rt.download(y, y_host) # each run
    rt.free_recording(rec)

GPU timestamps: `enable_timestamps()` brackets every later dispatch and copy with
vkCmdWriteTimestamp at the bottom of the pipe (each written once everything recorded before
it has finished, so a pair spans one command); `take_timestamps()` waits for the GPU and returns
`[(name, seconds), ...]` in recorded order (a dispatch's name is its entry point, a copy's
"copy"). For profiling: it adds two queries per command.

    rt.enable_timestamps(); rt.launch(saxpy, [x, y], groups); print(rt.take_timestamps())

Lifetime: `release(buf)` returns the buffer to the pool once the GPU has finished with it
(a Buffer dropped without `release` is recycled at the next `allocate` or `sync`);
`close()` (also at exit, and as a context manager) waits for the GPU and destroys every
Vulkan object. A runtime is not thread-safe: use it from one thread at a time. The
backend's entry points (a launch, a root or ndarray transfer, a graph run) are
`serialized` (device_lock.py), and so are the runtime's methods that those do not reach
alone (allocate, load_kernel, sync, ...); the per-launch ones (upload, download, launch,
fill, copy, replay) are left to their callers' lock (locking them too made a launch
1.5 us slower on the H100 host).
"""

from __future__ import annotations

import atexit
import os
import weakref
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np

from .device import WHOLE_SIZE, VulkanDevice, VulkanError, check
from .device_lock import serialized
from .memory import DEVICE, DOWNLOAD, UPLOAD, Allocation, Buffer, MemoryPool
from .pipelines import COMPUTE_STAGE_BIT, Kernel, Pipelines, spirv_bytes

# The barrier recorded before every command, and the one that ends a batch.
_STAGES = 0x800 | 0x1000  # COMPUTE_SHADER | TRANSFER
_DST_STAGES = _STAGES | 0x2  # ... | DRAW_INDIRECT (an indirect dispatch reads its counts)
_SRC_ACCESS = 0x40 | 0x1000  # SHADER_WRITE | TRANSFER_WRITE
# INDIRECT_COMMAND_READ | SHADER_READ/WRITE | TRANSFER_READ/WRITE
_DST_ACCESS = 0x1 | 0x20 | 0x40 | 0x800 | 0x1000
_HOST_STAGE, _HOST_READ = 0x4000, 0x2000
_COMPUTE_BIND_POINT = 1
_TIMESTAMP_STAGE = 0x2000  # BOTTOM_OF_PIPE: written once every earlier command finished
_WAIT_SLICE_NS = 1_000_000_000  # wait in slices so Ctrl-C gets through


class _Batch:
    """A command buffer, the fence of its submission, and what to recycle after it."""

    __slots__ = (
        "cmd",
        "cmd_array",
        "commands",
        "descriptor_set",
        "fence",
        "fence_array",
        "keep",
        "layout",
        "pipeline",
        "push_constants",
        "submit",
    )

    def __init__(self, cmd: Any, fence: Any, ffi: Any, vk: Any):
        self.cmd = cmd
        self.cmd_array = ffi.new("VkCommandBuffer[1]", [cmd])
        self.fence = fence
        self.fence_array = ffi.new("VkFence[1]", [fence])
        self.submit = ffi.new(
            "VkSubmitInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO,
                "commandBufferCount": 1,
                "pCommandBuffers": self.cmd_array,
            },
        )
        self.keep: list[Allocation] = []  # recycled when the batch has finished
        self.reset()

    def reset(self) -> None:
        """Forget the state bound in the command buffer (a new recording begins)."""
        self.commands = 0
        self.pipeline: Any = None
        self.layout: Any = None
        self.descriptor_set: Any = None
        self.push_constants: bytes | None = None


class Recording:
    """
    A secondary command buffer of dispatches, recorded once (`begin_recording` ...
    `end_recording`) and executed by every `replay`. `valid` is False once a buffer it
    binds was released or the descriptor sets it binds were dropped.
    """

    __slots__ = (
        "__weakref__",
        "bound",
        "cmd",
        "cmd_array",
        "commands",
        "descriptor_set",
        "epoch",
        "finalizer",
        "finished",
        "freed",
        "layout",
        "owner",
        "pipeline",
        "push_constants",
    )

    def __init__(self, owner: VulkanRuntime, cmd: Any, epoch: int):
        self.owner = owner
        self.cmd = cmd
        self.cmd_array = owner.ffi.new("VkCommandBuffer[1]", [cmd])
        self.epoch = epoch
        self.bound: dict[int, tuple[Any, Any]] = {}  # id -> (buffer, its binding key)
        self.finished = False
        self.freed = False
        self.finalizer: Any = None  # frees the command buffer of a dropped recording
        self.commands = 0
        self.pipeline: Any = None
        self.layout: Any = None
        self.descriptor_set: Any = None
        self.push_constants: bytes | None = None

    @property
    def valid(self) -> bool:
        """Whether `replay` may run it (recorded, not freed, every binding still alive)."""
        owner = self.owner
        return (
            self.finished
            and not self.freed
            and not owner.closed
            and self.epoch == owner._set_epoch
            and all(
                getattr(b, "alloc", True) is not None
                and getattr(b, "binding_key", key) == key
                for b, key in self.bound.values()
            )
        )

    def __repr__(self) -> str:
        state = "valid" if self.valid else "stale"
        return f"<Recording of {self.commands} dispatch(es), {state}>"


@dataclass
class RuntimeStats:
    """Counters for tests and benchmarks."""

    launches: int = 0
    copies: int = 0
    submits: int = 0
    waits: int = 0
    replays: int = 0
    recordings: int = 0


_live_runtimes: weakref.WeakSet[VulkanRuntime] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:  # before module teardown, while the binding still works
    for runtime in list(_live_runtimes):
        try:
            runtime.close()
        except Exception:  # noqa: BLE001, S110 - exiting anyway; close what closes
            pass


class VulkanRuntime:
    """
    A Vulkan compute runtime on one device.

    Args:
        device: an index, a name substring or a device type ("discrete", "cpu", ...);
            None means $TI_VULKAN_DEVICE, then the best device (discrete > integrated >
            virtual > cpu).
        validation: enable VK_LAYER_KHRONOS_validation when installed.
        direct_memory: map device buffers directly (None: when the device allows it);
            False forces the staging path that discrete GPUs use.
        max_batch: the most recorded commands per submission.
        first_batch: recorded commands of the first submission after a sync (the limit
            doubles with each later one, up to max_batch).
        max_in_flight: submissions in flight before the host waits for the oldest.
        max_pooled_bytes: bytes kept in the buffer pool's free lists.
        pipeline_cache_path: a file to load the VkPipelineCache from and save it to on close.
        max_descriptor_sets: cached descriptor sets before the cache is dropped.

    Raises:
        VulkanUnavailable: no usable Vulkan device; VulkanError: a Vulkan call failed.
    """

    def __init__(
        self,
        device: int | str | None = None,
        *,
        validation: bool = False,
        direct_memory: bool | None = None,
        max_batch: int = 256,
        first_batch: int = 2,
        max_in_flight: int = 4,
        max_pooled_bytes: int = 1 << 30,
        pipeline_cache_path: str | os.PathLike[str] | None = None,
        max_descriptor_sets: int = 4096,
    ):
        self._closed = True
        self.device = VulkanDevice(device, validation=validation)
        self._closed = False
        vk = self.vk = self.device.vk
        self.ffi, self.lib = vk.ffi, vk.lib
        self.caps = self.device.caps
        self.max_batch = max(1, int(max_batch))
        self.first_batch = max(1, min(int(first_batch), self.max_batch))
        self._batch_limit = self.first_batch
        self.max_in_flight = max(1, int(max_in_flight))
        self.stats = RuntimeStats()
        self._dev = self.device.handle
        self._orphans: list[Allocation] = []  # allocations of garbage-collected Buffers
        self._batch: _Batch | None = None
        self._capture: Recording | None = None  # begin_recording .. end_recording
        self._recordings: weakref.WeakSet[Recording] = weakref.WeakSet()
        self._dead_recordings: list[Any] = []  # command buffers of dropped recordings
        self._set_epoch = 0  # bumped when the cached descriptor sets are dropped
        self._in_flight: deque[_Batch] = deque()
        self._spare: list[_Batch] = []
        self._all_batches: list[_Batch] = []
        self._command_pool: Any = None
        self._query_pool: Any = None  # enable_timestamps: (pool, capacity)
        self._queries: list[str] = []  # the name of each recorded timestamp pair
        self._timings: list[tuple[str, float]] = []
        self.pipelines: Pipelines | None = None
        self.pool: MemoryPool | None = None
        try:
            self.pipelines = Pipelines(
                self.device,
                cache_path=os.fspath(pipeline_cache_path) if pipeline_cache_path else None,
                max_descriptor_sets=max_descriptor_sets,
            )
            self.pool = MemoryPool(
                self.device,
                direct=direct_memory,
                max_pooled_bytes=max_pooled_bytes,
                on_destroy=self.pipelines.forget_allocation,
            )
            info = self.ffi.new(
                "VkCommandPoolCreateInfo*",
                {
                    "sType": vk.VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                    "flags": vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                    "queueFamilyIndex": self.device.queue_family,
                },
            )
            out = self.ffi.new("VkCommandPool*")
            check(
                self.lib.vkCreateCommandPool(self._dev, info, self.ffi.NULL, out),
                "vkCreateCommandPool",
            )
            self._command_pool = out[0]
        except Exception:
            self.close()
            raise
        new = self.ffi.new
        self._barrier = new(
            "VkMemoryBarrier*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                "srcAccessMask": _SRC_ACCESS,
                "dstAccessMask": _DST_ACCESS,
            },
        )
        self._host_barrier = new(
            "VkMemoryBarrier*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                "srcAccessMask": _SRC_ACCESS,
                "dstAccessMask": _HOST_READ,
            },
        )
        self._begin_info = new(
            "VkCommandBufferBeginInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                "flags": vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
            },
        )
        self._copy_region = new("VkBufferCopy*")
        _live_runtimes.add(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"VulkanRuntime({'closed' if self._closed else self.caps.name})"

    @property
    def closed(self) -> bool:
        return self._closed

    def _require_open(self) -> None:
        if self._closed:
            raise RuntimeError("the Vulkan runtime is closed")

    # -- buffers ------------------------------------------------------------------------

    @serialized
    def allocate(self, nbytes: int, *, zero: bool = False) -> Buffer:
        """A device buffer of `nbytes` bytes (contents undefined unless `zero`)."""
        self._require_open()
        if nbytes < 0:
            raise ValueError(f"cannot allocate {nbytes} bytes")
        if self._orphans:
            self._collect_orphans()
        alloc = self.pool.acquire(DEVICE, nbytes)
        buf = Buffer(int(nbytes), alloc, self)
        # A buffer dropped without `release` comes back at the next allocate or sync (not
        # from inside the garbage collector, which may run in the middle of a launch).
        buf.finalizer = weakref.finalize(buf, self._orphans.append, alloc)
        if zero:
            self.fill(buf, 0)
        return buf

    @serialized
    def release(self, buf: Buffer) -> None:
        """Give `buf` back to the pool once the GPU has finished with it."""
        alloc = self._alloc_of(buf)
        buf.alloc = None
        if buf.finalizer is not None:
            buf.finalizer.detach()
        self._retire(alloc)

    def upload(self, buf: Buffer, data: Any, *, offset: int = 0) -> None:
        """
        Copy host data (a NumPy array or anything bytes-like) into `buf` at byte `offset`.
        Ordered after every command recorded before it; never waits for the GPU.
        """
        alloc = self._alloc_of(buf)
        src = _as_bytes_view(data)
        n = src.nbytes
        if offset < 0 or offset + n > buf.nbytes:
            raise ValueError(f"upload of {n} bytes at offset {offset} overflows {buf}")
        if n == 0:
            return
        if alloc.view is not None and not self._gpu_busy():
            alloc.view[offset : offset + n] = src
            return
        staging = self.pool.acquire(UPLOAD, n)
        staging.view[:n] = src
        batch = self._record_copy(staging.buffer, 0, alloc.buffer, offset, n)
        batch.keep.append(staging)
        self._flush_if_full(batch)

    def download(
        self,
        buf: Buffer,
        out: np.ndarray | None = None,
        *,
        offset: int = 0,
        nbytes: int | None = None,
    ) -> np.ndarray:
        """
        Copy `buf` (from byte `offset`) into `out`, a C-contiguous writable array, and
        return it; without `out`, return a new uint8 array of `nbytes` (default: the rest of
        the buffer). Submits the recorded work and waits for it.
        """
        alloc = self._alloc_of(buf)
        if out is None:
            out = np.empty(buf.nbytes - offset if nbytes is None else nbytes, np.uint8)
        if not (out.flags.c_contiguous and out.flags.writeable):
            raise ValueError("download needs a C-contiguous, writable output array")
        dst = out.reshape(-1).view(np.uint8)
        n = dst.nbytes
        if offset < 0 or offset + n > buf.nbytes:
            raise ValueError(f"download of {n} bytes at offset {offset} overflows {buf}")
        if n == 0:
            return out
        if alloc.view is not None:
            self.sync()
            dst[:] = alloc.view[offset : offset + n]
            return out
        staging = self.pool.acquire(DOWNLOAD, n)
        try:
            self._record_copy(alloc.buffer, offset, staging.buffer, 0, n)
            self.sync()
            dst[:] = staging.view[:n]
        finally:
            self._retire(staging)
        return out

    def copy(
        self,
        src: Buffer,
        dst: Buffer,
        nbytes: int | None = None,
        *,
        src_offset: int = 0,
        dst_offset: int = 0,
    ) -> None:
        """Record a device-side copy of `nbytes` (default: all of `src`) from src to dst."""
        n = src.nbytes - src_offset if nbytes is None else nbytes
        if n < 0 or src_offset + n > src.nbytes or dst_offset + n > dst.nbytes:
            raise ValueError(f"copy of {n} bytes overflows {src} or {dst}")
        src_buffer, dst_buffer = self._alloc_of(src).buffer, self._alloc_of(dst).buffer
        if n:
            batch = self._record_copy(src_buffer, src_offset, dst_buffer, dst_offset, n)
            self._flush_if_full(batch)

    def fill(
        self, buf: Buffer, value: int = 0, *, offset: int = 0, nbytes: int | None = None
    ) -> None:
        """Record filling `buf` (bytes [offset, offset + nbytes), both multiples of 4;
        default: all of it) with the 32-bit pattern `value`."""
        alloc = self._alloc_of(buf)
        if nbytes is not None and (offset % 4 or nbytes % 4 or offset + nbytes > buf.nbytes):
            raise ValueError(f"fill of {nbytes} bytes at offset {offset} of {buf}")
        if nbytes == 0:
            return
        batch = self._recording()
        self._record_barrier(batch)
        size = WHOLE_SIZE if nbytes is None else nbytes
        self.lib.vkCmdFillBuffer(batch.cmd, alloc.buffer, offset, size, value & 0xFFFFFFFF)
        batch.commands += 1
        self._flush_if_full(batch)

    def zero_bytes(self, buf: Buffer, index: np.ndarray | slice) -> bool:
        """Zero the bytes of `buf` at `index` (byte positions, or a slice) straight in its mapped
        memory, when it is host-visible and no work may touch it; False otherwise (the
        caller records fills instead)."""
        alloc = self._alloc_of(buf)
        if alloc.view is None or self._gpu_busy():
            return False
        alloc.view[index] = 0
        return True

    # -- images (textures) ----------------------------------------------------------------

    @serialized
    def create_image(self, shape: Sequence[int], vk_format: int, texel_bytes: int) -> Any:
        """
        A 1-, 2- or 3-d image of `shape` (width, height, depth) texels of a VkFormat,
        usable as a texture and a storage image; contents undefined. See images.py.
        """
        from .images import create_image

        self._require_open()
        return create_image(self, shape, vk_format, texel_bytes)

    @serialized
    def upload_image(self, image: Any, data: Any) -> None:
        """Copy texels (x fastest, `image.nbytes` bytes) into `image`; never waits."""
        from .images import upload_image

        upload_image(self, image, data)

    @serialized
    def download_image(self, image: Any) -> np.ndarray:
        """The texels of `image` (x fastest) as uint8; waits for the recorded work."""
        from .images import download_image

        return download_image(self, image)

    @serialized
    def release_image(self, image: Any) -> None:
        """Destroy `image` once the GPU has finished with it."""
        from .images import release_image

        release_image(self, image)

    # -- kernels ------------------------------------------------------------------------

    @serialized
    def load_kernel(
        self,
        spirv: Any,
        entry: str = "main",
        num_bindings: int | None = None,
        *,
        push_constant_bytes: int | None = None,
        name: str | None = None,
        binding_types: Sequence[int] | None = None,
    ) -> Kernel:
        """
        A compute pipeline for `entry` of a SPIR-V module (bytes, uint32 array or words).
        `num_bindings` defaults to what the module declares in set 0; `push_constant_bytes`
        defaults to 0, or to the device limit (at most 128) when the module declares push
        constants. The same module, entry and layout give the same cached Kernel.
        `binding_types` (pipelines.STORAGE_BUFFER, COMBINED_IMAGE_SAMPLER,
        STORAGE_IMAGE per binding) is for kernels that bind images (`create_image`).

        Raises:
            ValueError: not SPIR-V, no such entry point, or a layout the device cannot take.
        """
        self._require_open()
        return self.pipelines.kernel(
            spirv_bytes(spirv), entry, num_bindings, push_constant_bytes, name, binding_types
        )

    def group_count(self, kernel: Kernel, n: int) -> int:
        """Workgroups along x for `n` invocations of a grid-stride kernel, within limits."""
        local = kernel.local_size[0] if kernel.local_size else 1
        return max(1, min(-(-n // local), self.caps.max_compute_work_group_count[0]))

    def launch(
        self,
        kernel: Kernel,
        buffers: Sequence[Buffer] = (),
        group_count: int | tuple[int, ...] = 1,
        *,
        push_constants: Any = None,
        indirect: tuple[Buffer, int] | None = None,
    ) -> None:
        """
        Record a dispatch of `kernel` over `group_count` workgroups (submitted later).
        With `indirect=(buffer, offset)` the counts are the three u32 at that byte offset
        of `buffer` when the dispatch runs (vkCmdDispatchIndirect: an earlier command may
        write them); `group_count` is then ignored.
        """
        self._require_open()
        if indirect is not None:
            args_buffer, args_offset = indirect
            if args_offset % 4 or args_offset + 12 > args_buffer.nbytes:
                raise ValueError(
                    f"indirect dispatch counts at byte {args_offset}: 12 aligned bytes "
                    f"of a {args_buffer.nbytes}-byte buffer expected"
                )
            self._alloc_of(args_buffer)  # raises: released, or another runtime's buffer
            group_count = 1
        if isinstance(group_count, int):
            gx, gy, gz = group_count, 1, 1
        else:
            gx, gy, gz = (tuple(group_count) + (1, 1))[:3]
        mx, my, mz = self.caps.max_compute_work_group_count
        if not (0 <= gx <= mx and 0 <= gy <= my and 0 <= gz <= mz):
            raise ValueError(
                f"group count {(gx, gy, gz)} outside 0..{(mx, my, mz)} "
                "(loop grid-stride instead of launching more groups)"
            )
        if len(buffers) != kernel.num_bindings:
            raise ValueError(
                f"{kernel.name} binds {kernel.num_bindings} buffers, got {len(buffers)}"
            )
        for b in buffers:
            if b.alloc is None or b.owner is not self:
                self._alloc_of(b)  # raises: released, or another runtime's buffer
        pc = _push_constant_bytes(kernel, push_constants)
        if not (gx and gy and gz):
            return
        descriptor_set = self._descriptor_set(kernel, buffers)
        lib, ffi = self.lib, self.ffi
        capture = self._capture
        timed = self._query_pool is not None and capture is None
        batch: _Batch | Recording
        if capture is not None:
            batch = capture
            for b in buffers:
                capture.bound[id(b)] = (b, getattr(b, "binding_key", None))
        else:
            batch = self._batch if self._batch is not None else self._recording()
        cmd = batch.cmd
        lib.vkCmdPipelineBarrier(
            cmd, _STAGES, _DST_STAGES, 0, 1, self._barrier, 0, ffi.NULL, 0, ffi.NULL
        )
        if batch.pipeline is not kernel.pipeline:
            lib.vkCmdBindPipeline(cmd, _COMPUTE_BIND_POINT, kernel.pipeline)
            batch.pipeline = kernel.pipeline
        # Pipeline layouts are shared per (bindings, push bytes): a set and push constants
        # bound earlier in this command buffer with the same layout are still bound.
        if batch.descriptor_set is not descriptor_set or batch.layout is not kernel.layout:
            lib.vkCmdBindDescriptorSets(
                cmd, _COMPUTE_BIND_POINT, kernel.layout, 0, 1, descriptor_set, 0, ffi.NULL
            )
            batch.descriptor_set = descriptor_set
            batch.layout = kernel.layout
            batch.push_constants = None
        if pc and pc != batch.push_constants:
            lib.vkCmdPushConstants(cmd, kernel.layout, COMPUTE_STAGE_BIT, 0, len(pc), pc)
            batch.push_constants = pc
        if indirect is not None and capture is not None:
            key = getattr(args_buffer, "binding_key", None)
            capture.bound[id(args_buffer)] = (args_buffer, key)
        query = self._timestamp(batch, kernel.entry) if timed else None
        if indirect is not None:
            alloc = self._alloc_of(args_buffer)
            lib.vkCmdDispatchIndirect(cmd, alloc.buffer, args_offset)
        else:
            lib.vkCmdDispatch(cmd, gx, gy, gz)
        if query is not None:
            lib.vkCmdWriteTimestamp(cmd, _TIMESTAMP_STAGE, self._query_pool[0], query + 1)
        self.stats.launches += 1
        batch.commands += 1
        if batch.commands >= self._batch_limit and batch is not capture:
            self.flush()

    def _descriptor_set(self, kernel: Kernel, buffers: Sequence[Buffer]) -> Any:
        key = (kernel.binding_types, tuple([b.binding_key for b in buffers]))
        pipelines = self.pipelines
        descriptor_set = pipelines.sets.get(key)
        if descriptor_set is None:
            if len(pipelines.sets) >= pipelines.max_descriptor_sets:
                self.sync()  # recorded work may use the cached sets
                pipelines.reset_sets()
                self._set_epoch += 1  # recordings bind dropped sets: record again
            descriptor_set = pipelines.descriptor_set(key, buffers)
        return descriptor_set

    # -- recorded sequences -------------------------------------------------------------

    @serialized
    def begin_recording(self) -> Recording:
        """
        Start recording: the `launch`es until `end_recording` go into a new secondary
        command buffer instead of running (uploads, downloads and copies still go to the
        current batch, ahead of any replay).
        """
        self._require_open()
        if self._capture is not None:
            raise RuntimeError("a recording is already in progress")
        vk, ffi, lib = self.vk, self.ffi, self.lib
        info = ffi.new(
            "VkCommandBufferAllocateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                "commandPool": self._command_pool,
                "level": vk.VK_COMMAND_BUFFER_LEVEL_SECONDARY,
                "commandBufferCount": 1,
            },
        )
        cmd = ffi.new("VkCommandBuffer*")
        check(
            lib.vkAllocateCommandBuffers(self._dev, info, cmd), "vkAllocateCommandBuffers"
        )
        rec = Recording(self, cmd[0], self._set_epoch)
        inheritance = ffi.new(
            "VkCommandBufferInheritanceInfo*",
            {"sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO},
        )
        begin = ffi.new(
            "VkCommandBufferBeginInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                # pending in several batches at once when replayed back to back
                "flags": vk.VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
                "pInheritanceInfo": inheritance,
            },
        )
        result = lib.vkBeginCommandBuffer(rec.cmd, begin)
        if result != 0:
            lib.vkFreeCommandBuffers(self._dev, self._command_pool, 1, rec.cmd_array)
            check(result, "vkBeginCommandBuffer")
        self._recordings.add(rec)
        # A recording dropped without free_recording: its command buffer is freed at the
        # next sync (not from inside the garbage collector).
        rec.finalizer = weakref.finalize(rec, self._dead_recordings.append, rec.cmd_array)
        self._capture = rec
        return rec

    @serialized
    def end_recording(self, rec: Recording) -> Recording:
        """Finish `rec` (from `begin_recording`); it can be replayed from now on."""
        if self._capture is not rec:
            raise RuntimeError("end_recording of a recording that is not in progress")
        self._capture = None
        check(self.lib.vkEndCommandBuffer(rec.cmd), "vkEndCommandBuffer")
        rec.finished = True
        self.stats.recordings += 1
        return rec

    def replay(self, rec: Recording) -> None:
        """
        Record one execution of `rec` into the current batch: its dispatches run after
        everything recorded before (uploads included) and before everything after.

        Raises:
            ValueError: `rec` is not valid (see Recording.valid): record it again.
        """
        self._require_open()
        if rec.owner is not self:
            raise ValueError("the recording belongs to another runtime")
        if self._capture is not None:
            raise RuntimeError("replay while recording")
        if not rec.valid:
            raise ValueError(
                "the recording is stale (a buffer it binds was released, or the "
                "descriptor-set cache was dropped): record it again"
            )
        if not rec.commands:
            return
        batch = self._recording()
        self._record_barrier(batch)
        self.lib.vkCmdExecuteCommands(batch.cmd, 1, rec.cmd_array)
        # The primary's bound pipeline, sets and push constants are undefined afterwards.
        batch.pipeline = batch.layout = batch.descriptor_set = None
        batch.push_constants = None
        batch.commands += rec.commands
        self.stats.replays += 1
        self._flush_if_full(batch)

    @serialized
    def free_recording(self, rec: Recording) -> None:
        """Free `rec`'s command buffer (waits for the GPU if a replay may be pending)."""
        if rec.freed or rec.owner is not self:
            return
        if self._capture is rec:
            self._capture = None
            check(self.lib.vkEndCommandBuffer(rec.cmd), "vkEndCommandBuffer")
        rec.freed = True
        rec.bound.clear()
        if rec.finalizer is not None:
            rec.finalizer.detach()
        self._recordings.discard(rec)
        if self._closed:
            return  # the command pool freed it
        if self._gpu_busy():
            self.sync()
        self.lib.vkFreeCommandBuffers(self._dev, self._command_pool, 1, rec.cmd_array)

    # -- submission and synchronisation -------------------------------------------------

    @serialized
    def flush(self) -> None:
        """Submit the recorded commands without waiting for them."""
        batch = self._batch
        if batch is None:
            return
        self._batch = None
        lib, ffi = self.lib, self.ffi
        lib.vkCmdPipelineBarrier(
            batch.cmd,
            _STAGES,
            _HOST_STAGE,
            0,
            1,
            self._host_barrier,
            0,
            ffi.NULL,
            0,
            ffi.NULL,
        )
        check(lib.vkEndCommandBuffer(batch.cmd), "vkEndCommandBuffer")
        result = lib.vkQueueSubmit(self.device.queue, 1, batch.submit, batch.fence)
        if result != 0:
            self._spare.append(batch)
            check(result, "vkQueueSubmit")
        self.stats.submits += 1
        self._batch_limit = min(2 * self._batch_limit, self.max_batch)
        self._in_flight.append(batch)
        while len(self._in_flight) > self.max_in_flight:
            self._wait(self._in_flight[0])
            self._complete_through(self._in_flight[0])

    @serialized
    def sync(self) -> None:
        """Submit the recorded commands and wait until the GPU has finished all work."""
        self._require_open()
        self.flush()
        if self._in_flight:
            last = self._in_flight[-1]
            self._wait(last)
            self._complete_through(last)
        self._batch_limit = self.first_batch  # the GPU is idle: start it soon again
        if self._queries:
            self._read_timestamps()
        if self._orphans:
            self._collect_orphans()
        while self._dead_recordings:  # no batch can be pending with them any more
            cmd_array = self._dead_recordings.pop()
            self.lib.vkFreeCommandBuffers(self._dev, self._command_pool, 1, cmd_array)

    # -- GPU timestamps -------------------------------------------------------------------

    @serialized
    def enable_timestamps(self, capacity: int = 4096) -> None:
        """Bracket every later dispatch and copy with GPU timestamps (see the module doc)."""
        self._require_open()
        if self._query_pool is not None:
            return
        vk, ffi = self.vk, self.ffi
        info = ffi.new(
            "VkQueryPoolCreateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                "queryType": vk.VK_QUERY_TYPE_TIMESTAMP,
                "queryCount": 2 * capacity,
            },
        )
        out = ffi.new("VkQueryPool*")
        check(self.lib.vkCreateQueryPool(self._dev, info, ffi.NULL, out), "vkCreateQueryPool")
        self._query_pool = (out[0], 2 * capacity)
        props = self.device._properties()
        self._tick_s = float(props.limits.timestampPeriod) * 1e-9

    @serialized
    def take_timestamps(self) -> list[tuple[str, float]]:
        """Wait for the GPU; `[(name, seconds on the GPU), ...]` since the last call."""
        self.sync()
        out, self._timings = self._timings, []
        return out

    def _timestamp(self, batch: Any, name: str) -> int:
        """Reset a pair of queries and write the first; returns the pair's first index."""
        pool, capacity = self._query_pool
        if 2 * len(self._queries) + 2 > capacity:
            raise RuntimeError("timestamp queries full: call take_timestamps() more often")
        query = 2 * len(self._queries)
        self._queries.append(name)
        self.lib.vkCmdResetQueryPool(batch.cmd, pool, query, 2)
        self.lib.vkCmdWriteTimestamp(batch.cmd, _TIMESTAMP_STAGE, pool, query)
        return query

    def _read_timestamps(self) -> None:
        pool, _ = self._query_pool
        n = 2 * len(self._queries)
        data = np.zeros(n, np.uint64)
        ffi = self.ffi
        check(
            self.lib.vkGetQueryPoolResults(
                self._dev, pool, 0, n, data.nbytes, ffi.from_buffer(data), 8, 1 | 2
            ),  # VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT
            "vkGetQueryPoolResults",
        )
        ticks = (data[1::2] - data[0::2]).astype(np.float64) * self._tick_s
        self._timings += list(zip(self._queries, ticks.tolist()))
        self._queries = []

    # -- internals ----------------------------------------------------------------------

    def _recording(self) -> _Batch:
        """The batch being recorded, beginning one if needed."""
        if self._batch is not None:
            return self._batch
        self._require_open()
        batch = self._spare.pop() if self._spare else self._new_batch()
        check(
            self.lib.vkBeginCommandBuffer(batch.cmd, self._begin_info),
            "vkBeginCommandBuffer",
        )
        batch.reset()
        self._batch = batch
        return batch

    def _new_batch(self) -> _Batch:
        vk, ffi, lib = self.vk, self.ffi, self.lib
        info = ffi.new(
            "VkCommandBufferAllocateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                "commandPool": self._command_pool,
                "level": vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                "commandBufferCount": 1,
            },
        )
        cmd = ffi.new("VkCommandBuffer*")
        check(
            lib.vkAllocateCommandBuffers(self._dev, info, cmd), "vkAllocateCommandBuffers"
        )
        fence_info = ffi.new(
            "VkFenceCreateInfo*", {"sType": vk.VK_STRUCTURE_TYPE_FENCE_CREATE_INFO}
        )
        fence = ffi.new("VkFence*")
        result = lib.vkCreateFence(self._dev, fence_info, ffi.NULL, fence)
        if result != 0:
            lib.vkFreeCommandBuffers(self._dev, self._command_pool, 1, cmd)
            check(result, "vkCreateFence")
        batch = _Batch(cmd[0], fence[0], ffi, vk)
        self._all_batches.append(batch)
        return batch

    def _record_barrier(self, batch: _Batch) -> None:
        null = self.ffi.NULL
        self.lib.vkCmdPipelineBarrier(
            batch.cmd, _STAGES, _DST_STAGES, 0, 1, self._barrier, 0, null, 0, null
        )

    def _record_copy(
        self, src: Any, src_offset: int, dst: Any, dst_offset: int, n: int
    ) -> _Batch:
        """Record a copy; the caller may attach staging memory, then `_flush_if_full`."""
        batch = self._recording()
        self._record_barrier(batch)
        region = self._copy_region
        region.srcOffset, region.dstOffset, region.size = src_offset, dst_offset, n
        if self._query_pool is not None:
            query = self._timestamp(batch, "copy")
            self.lib.vkCmdCopyBuffer(batch.cmd, src, dst, 1, region)
            self.lib.vkCmdWriteTimestamp(
                batch.cmd, _TIMESTAMP_STAGE, self._query_pool[0], query + 1
            )
        else:
            self.lib.vkCmdCopyBuffer(batch.cmd, src, dst, 1, region)
        self.stats.copies += 1
        batch.commands += 1
        return batch

    def _flush_if_full(self, batch: _Batch) -> None:
        if batch is self._batch and batch.commands >= self._batch_limit:
            self.flush()

    def _gpu_busy(self) -> bool:
        """Whether recorded or submitted work may still touch device memory."""
        if self._batch is not None and self._batch.commands:
            return True
        while self._in_flight:
            status = self.lib.vkGetFenceStatus(self._dev, self._in_flight[0].fence)
            if status == self.vk.VK_NOT_READY:
                return True
            check(status, "vkGetFenceStatus")
            self._complete_through(self._in_flight[0])
        return False

    def _wait(self, batch: _Batch) -> None:
        self.stats.waits += 1
        while True:
            result = self.lib.vkWaitForFences(
                self._dev, 1, batch.fence_array, 1, _WAIT_SLICE_NS
            )
            if result != self.vk.VK_TIMEOUT:
                check(result, "vkWaitForFences")
                return

    def _complete_through(self, done: _Batch) -> None:
        """Recycle `done` and every batch submitted before it (they finished before it)."""
        while self._in_flight:
            batch = self._in_flight.popleft()
            check(self.lib.vkResetFences(self._dev, 1, batch.fence_array), "vkResetFences")
            for alloc in batch.keep:
                self.pool.recycle(alloc)
            batch.keep.clear()
            self._spare.append(batch)
            if batch is done:
                return

    def _retire(self, alloc: Allocation) -> None:
        """Recycle `alloc` once all work recorded so far has finished."""
        if self._closed:
            return
        if self._batch is not None and self._batch.commands:
            self._batch.keep.append(alloc)
        elif self._gpu_busy():
            self._in_flight[-1].keep.append(alloc)
        else:
            self.pool.recycle(alloc)

    def _collect_orphans(self) -> None:
        while self._orphans:
            self._retire(self._orphans.pop())

    def _alloc_of(self, buf: Buffer) -> Allocation:
        self._require_open()
        if buf.owner is not self:
            raise ValueError(f"{buf} belongs to another runtime")
        if buf.alloc is None:
            raise ValueError("the buffer was released")
        return buf.alloc

    # -- teardown -----------------------------------------------------------------------

    @serialized
    def close(self) -> None:
        """Wait for the GPU, save the pipeline cache, destroy every Vulkan object."""
        if self._closed:
            return
        try:
            self.sync()
        except VulkanError:
            pass  # a lost device: destroy what we can
        self._closed = True
        _live_runtimes.discard(self)
        lib, null, dev = self.lib, self.ffi.NULL, self._dev
        lib.vkDeviceWaitIdle(dev)
        from .images import destroy_all

        destroy_all(self)
        if self.pipelines is not None:
            self.pipelines.close()
        for batch in self._all_batches:
            lib.vkDestroyFence(dev, batch.fence, null)
        for rec in list(self._recordings):
            rec.freed = True  # the command pool frees their command buffers
            if rec.finalizer is not None:
                rec.finalizer.detach()
        self._recordings.clear()
        self._dead_recordings.clear()
        self._capture = None
        self._batch = None
        self._all_batches.clear()
        self._spare.clear()
        self._in_flight.clear()
        if self._query_pool is not None:
            lib.vkDestroyQueryPool(dev, self._query_pool[0], null)
            self._query_pool = None
        if self._command_pool is not None:
            lib.vkDestroyCommandPool(dev, self._command_pool, null)  # frees the buffers
            self._command_pool = None
        if self.pool is not None:
            self.pool.on_destroy = None
            self.pool.close()
        self.device.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - never raise from a finalizer
            pass


def _push_constant_bytes(kernel: Kernel, data: Any) -> bytes | None:
    """Push-constant data as bytes padded to 4, checked against the kernel's range."""
    if data is None:
        return None
    pc = (
        bytes(data)
        if isinstance(data, (bytes, bytearray))
        else _as_bytes_view(data).tobytes()
    )
    if len(pc) > kernel.push_constant_bytes:
        raise ValueError(
            f"{len(pc)} bytes of push constants exceed the "
            f"{kernel.push_constant_bytes} of {kernel.name}"
        )
    return pc + bytes(-len(pc) % 4)


def _as_bytes_view(data: Any) -> np.ndarray:
    """A flat uint8 view (or copy, for non-contiguous input) of array-like or bytes data."""
    if isinstance(data, np.ndarray):
        array = data if data.flags.c_contiguous else np.ascontiguousarray(data)
        return array.reshape(-1).view(np.uint8)
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(data, dtype=np.uint8)
    return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
