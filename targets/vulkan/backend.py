"""
The Vulkan backend: a `taichi.kernel` -> one SPIR-V compute pipeline per task -> a
launchable `VulkanKernel`, with the same interface as the CPU backend.

    backend = VulkanBackend()                      # the best device ($TI_VULKAN_DEVICE)
    kernel = backend.compile(module, "saxpy")      # module: fields + taichi.kernel @saxpy
    kernel.launch(root, (2.0, x, y))               # -> tuple of return values

compile() is a recipe, like CpuBackend's, through `pipeline("vulkan")` of
utils/pipelines.py (with a program's edits, `passes=`):
1. the `offload` stage (`ti-to-offload`); the launch plan is read off the offload.kernel
   (tasks, their bounds, argument and return types, global temporaries) and recorded in
   the module attribute `ti.launch_plans`, so IR of any stage can be compiled again;
2. the `spirv` stage (`ti-offload-to-spirv` with `convert-offload-to-spirv{caps=...}`):
   one spirv.module per task, generated for the declared caps (default: the device's
   `taichi_caps()`);
3. targets/spirv/serializer.py: the binaries; VulkanRuntime.load_kernel: the pipelines.

Fields live on the device: the backend keeps a device copy of the program's root buffer.
Before a launch it uploads the host root if the host wrote it since (the Program calls
`root_changed_on_host()` around Python-scope field access); launches are recorded and
submitted in batches, and only a host read waits: `read_root(np_root)` (Python-scope field
reads), a return value, a print, `sync()`.

ndarrays: a `ti.ndarray` is device-resident. The backend is given `ndarray_owner`, which
maps the NumPy array a launch receives to its Ndarray (frontends/python/lang/ndarray.py); the
Ndarray's `device_copy` is a `DeviceNdarray` (one device buffer), uploaded at a launch only
when the host wrote the array since, and downloaded only when the host reads it. A plain
NumPy array argument is uploaded before the launch and downloaded into the same array after
it, so it is updated in place as on CPU (such a launch waits for the device).

Group counts: a range_for with constant bounds dispatches ceil(n / LocalSize) groups; one
whose bounds are read on the device dispatches `dynamic_groups`: on a GPU enough to cover
the largest ndarray argument one element an invocation (GPU_FILL_GROUPS when it has none);
on a CPU device (lavapipe) spirv_abi.DYNAMIC_GROUPS. On a GPU either count is capped at
GPU_FILL_GROUPS: past a few waves of resident groups, more groups only add launch work (on
an H100, a 64 MiB copy took 98 us over 131072 groups of 128 and 61 us over 4096).
A task with an epilogue (a thread-local reduction, one atomic combine per invocation) gets
at most REDUCTION_GROUPS, or COMBINE_GROUPS where the device has subgroup arithmetic (the
combine is then one atomic per workgroup, lowering/spirv_reduce.py). Any count is correct
(the loop is grid-stride); the count only decides the parallelism.
Buffer layout: utils/spirv_abi.py.

Offline cache (`offline_cache=OfflineCache(...)`, utils/cache.py and
targets/vulkan/cache.py): the kernel's module is hashed with the device, caps, pipeline
and compiler version; a hit rebuilds the kernel from its cached launch plan and SPIR-V (no
xDSL pass), a miss compiles and stores them. A first-level key from the kernel's source
(`source_cache_key`, as on CPU) is linked to that entry, so that a later process's hit
(`load_by_source`) builds no module and imports no xDSL.
"""

from __future__ import annotations

import ctypes
import struct
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any

import numpy as np
from taichi_xdsl.utils import abi, spirv_abi
from taichi_xdsl.utils.print_format import render_assert, render_print
from taichi_xdsl.utils.pass_runner import (
    PassRunner,
    format_pass_statistics,
    format_pass_times,
)
from taichi_xdsl.utils.pipelines import Pipeline, PipelineEdits, pipeline
from taichi_xdsl.targets.vulkan.group_count import COUNT_BYTES, GroupCounter
from taichi_xdsl.targets.vulkan.root import DeviceRoot
from taichi_xdsl.targets.vulkan.device_lock import serialized
from taichi_xdsl.utils.errors import (
    TaichiAssertionError,
    TaichiCompilationError,
    TaichiRuntimeError,
    TaichiRuntimeTypeError,
    TaichiTypeError,
    SITE_SHIFT,
    out_of_bounds_error,
)

PLANS_ATTRIBUTE = "ti.launch_plans"
"""Module attribute: kernel name -> launch plan (JSON text), set after the offload stage."""

_PACK = {
    "f16": struct.Struct("<e"),
    "f32": struct.Struct("<f"),
    "f64": struct.Struct("<d"),
}
_INT = struct.Struct("<q")
GPU_FILL_GROUPS = 4096
"""The most workgroups a range_for gets on a GPU, and what a dynamic-bound one with no
ndarray argument gets: about two waves of 128-invocation groups on a 132-SM GPU (2048
resident invocations an SM); each invocation loops grid-stride over the rest."""
UNROLL = 4
"""Iterations a straight-line range_for body runs at a time (convert-offload-to-spirv's
`unroll`): four loads in flight an invocation where one was (see that pass)."""
UNROLL_LAYOUT = "block"
"""Where the unrolled copies of an invocation lie (convert-offload-to-spirv's
`unroll-layout`): "stride", a grid stride apart; "block", LocalSize apart in its
workgroup's own run of UNROLL blocks, as Triton lays out a program's elements. On an
H100, block against stride: stencil 15.9 against 17.4 us, copy 53.0 against 53.8, saxpy
75.5 against 77.2 (docs/gpu-speed/stencil.md)."""
UNROLL_SELECTIONS = True
"""Whether a body with if/else but no loop (ti-align-rows' guard) is unrolled too, its
copies one after another (convert-offload-to-spirv's `unroll-selections`): the padded
stencil 16.0 -> 15.2 us on an H100 (docs/gpu-speed/stencil.md)."""
UNROLL_LOADS_FIRST = True
"""Whether those copies issue their guarded loads before any copy's guarded body
(convert-offload-to-spirv's `unroll-loads-first`, lowering/unroll_loads_first.py): a
copy's store no longer holds back the next copy's loads (docs/gpu-speed/stencil.md)."""
SERIAL_UNROLL = 48
SERIAL_UNROLL_OPS = 1536
"""Copies of a serial inner loop's body per iteration (ti-unroll-loops' `factor`), fewer
while they would hold more than SERIAL_UNROLL_OPS operations: NVIDIA's compiler overlaps
the copies' loads and long-latency math. n-body's force loop (31 ops a copy) on an H200:
470 us with one copy, 243 with 4, 148 with 16, 127 with 32, 98-100 with 40 to 56, 116
with 64, 1011 with 128 (registers spill); with 16384 bodies 494 (32), 373 (48), 878 (64).
bench/nbody_unroll_probe.py; bench/results/h200-s6-nbody-unroll*.txt."""
SPREAD_GROUPS = 128
"""The fewest workgroups a parallel task of constant length gets while its workgroups can
shrink (down to 32 invocations; convert-offload-to-spirv's `spread-groups`): a short
launch on one SM each of a 132-SM GPU rather than on a quarter of them. Longer launches
keep 128 invocations a group."""
REDUCTION_GROUPS = spirv_abi.DYNAMIC_GROUPS
"""The most workgroups of a task with an epilogue (a thread-local reduction): each
invocation combines its partial sum with an atomic on one address, so more invocations
cost more serialized atomics and lose f32 precision (on an H200, a 2^24-element sum over
131072 groups took 30 ms and was off by 2e-2)."""

COMBINE_GROUPS = 1024
"""The most workgroups of a task with an epilogue where the combine is one atomic a
workgroup (lowering/spirv_reduce.py): atomics on one address serialize at the L2, so
the groups should be few, but enough to keep every SM busy: 1024 groups of
COMBINE_BLOCK_DIM (256) are about one wave on a 132-SM GPU (8 resident groups an SM).
On an H100, the 2^24-element f32 sum of bench/cases/reduce.py (its initialisation fused
into the last workgroup: each group then also counts itself done, a second atomic on one
address) took 29.3 us of GPU time over 1024 groups of 256, 30.9 over 2048, 31.2 over
512, 34.0 over 4096 (bench/results/h100-s8-reduce-variants.txt). Measured before the
workgroup combine, with one atomic a subgroup: 46 us over 4096 groups of 128 and 33.9
over 1024, where Triton's one atomic per 4096 elements took 32 us; bench/reduce_probe.py
and bench/vulkan_profile.py time it."""

COMBINE_BLOCK_DIM = 256
"""Invocations a workgroup of a range_for that combines in the workgroup (convert-
offload-to-spirv's `combine-block-dim`): on an H100, the fused 2^24-element f32 sum over
2048 groups took 30.9 us of GPU time with 256 invocations, 31.9 with 128 or 512
(bench/results/h100-s8-reduce-fused.txt; unfused, bench/results/h100-s8-vkvar*.txt:
29.2 with 128, 27.4 with 256 or 512, 28.9 with 1024)."""


@dataclass(frozen=True)
class TaskPlan:
    """One task in launch order: its entry point, kind and bounds (for the group count)."""

    symbol: str
    kind: str  # "serial", "range_for" or "struct_for"
    begin: int | None = None  # None: read on the device (a global temporary)
    end: int | None = None
    combines: bool = False
    """The task has an epilogue: every invocation combines its thread-local partial
    result once (atomics on one address), so it gets at most REDUCTION_GROUPS groups."""
    skip: bool = False
    """Not dispatched: a serial task that only computes range_for bounds, which the
    range_for tasks recompute (convert-offload-to-spirv{fold-bounds=true})."""
    begin_at: int | None = None
    """A bound read on the device: the byte offset of the global temporary it is read
    from (a task before this one stores it), else None."""
    end_at: int | None = None
    last_group: bool = False
    """The epilogue ends with an `offload.last_group` (a serial task fused into this one,
    ti-fuse-serial-reduction), which only a dispatched workgroup runs: the task gets at
    least one workgroup, and never a count computed on the device (which may be 0)."""


@dataclass(frozen=True)
class KernelPlan:
    """What a launch needs besides the pipelines."""

    name: str
    args: tuple[tuple[str, int | None], ...]  # (dtype, ndarray rank or None)
    returns: tuple[str, ...]
    tasks: tuple[TaskPlan, ...]
    gtmp_bytes: int
    prints: dict[int, tuple[str, tuple[str, ...]]]
    asserts: dict[int, str] = field(default_factory=dict)
    """Debug mode: assert message id -> message (the error record names the id)."""
    root_segments: int = 1
    """Root segments the tasks bind (utils/spirv_abi.py): segment 0 at binding 0, the
    others after the textures."""

    @property
    def num_bindings(self) -> int:
        return (
            spirv_abi.FIRST_NDARRAY_BINDING
            + self.num_ndarrays
            + self.num_textures
            + self.root_segments
            - 1
        )

    @property
    def num_ndarrays(self) -> int:
        return sum(
            1 for dtype, rank in self.args if rank is not None and not is_texture(dtype)
        )

    @property
    def num_textures(self) -> int:
        return sum(1 for dtype, _ in self.args if is_texture(dtype))

    @property
    def binding_types(self) -> tuple[int, ...] | None:
        """Descriptor types per binding when the kernel takes textures, else None."""
        if not self.num_textures:
            return None
        from taichi_xdsl.targets.vulkan.pipelines import (
            COMBINED_IMAGE_SAMPLER,
            STORAGE_BUFFER,
            STORAGE_IMAGE,
        )

        buffers = (STORAGE_BUFFER,) * (spirv_abi.FIRST_NDARRAY_BINDING + self.num_ndarrays)
        images = tuple(
            COMBINED_IMAGE_SAMPLER if dtype == "texture" else STORAGE_IMAGE
            for dtype, _ in self.args
            if is_texture(dtype)
        )
        return buffers + images + (STORAGE_BUFFER,) * (self.root_segments - 1)


def counted_tasks(plan: KernelPlan) -> dict[int, int]:
    """
    The range_for tasks of `plan` whose group count the device computes (task index ->
    count slot): those with a bound read from a global temporary. None when a serial
    task is skipped: a bound it would have stored is then recomputed inside the range_for
    task (fold-bounds), and its global temporary is never written.
    """
    if any(task.skip for task in plan.tasks):
        return {}
    slots: dict[int, int] = {}
    for index, task in enumerate(plan.tasks):
        if task.kind != "range_for" or (task.begin is not None and task.end is not None):
            continue
        if task.last_group:
            continue  # at least one workgroup: the host's count
        if (task.begin is None and task.begin_at is None) or (
            task.end is None and task.end_at is None
        ):
            continue  # a bound of unknown origin: the host's guess
        slots[index] = len(slots)
    return slots


def is_texture(dtype: str) -> bool:
    """A texture argument's dtype in a plan: `texture` or `rw_texture.<format>`."""
    return dtype == "texture" or dtype.startswith("rw_texture.")


def texture_dtype(t: Any) -> str | None:
    """The plan dtype of a `!taichi.texture` type, None for other types."""
    from taichi_xdsl.dialects.taichi import TextureType

    if not isinstance(t, TextureType):
        return None
    return f"rw_texture.{t.format.data}" if t.is_rw else "texture"


def preserves_nan_inf(caps: Any) -> bool:
    """
    Whether kernels for a device with these DeviceCaps may declare the
    SignedZeroInfNanPreserve execution mode (fast_math=False): for 32-bit floats, and for
    64- and 16-bit floats too when the device has them (a module declares it for every
    float width it uses). Without it the modules are left as they are.
    """
    def has(name: str) -> bool:
        return bool(getattr(caps, name, False))

    return (
        has("signed_zero_inf_nan_preserve_float32")
        and (not has("shader_float64") or has("signed_zero_inf_nan_preserve_float64"))
        and (not has("shader_float16") or has("signed_zero_inf_nan_preserve_float16"))
    )


def vulkan_pipeline(
    caps: Mapping[str, int],
    *,
    debug: bool = False,
    preserve_nan_inf: bool = False,
    fast_math: bool = True,
    check_loop_exits: bool = False,
    optimize: bool = True,
    passes: PipelineEdits | None = None,
    root_segment_bytes: int = 0,
    max_shared_bytes: int = 0,
) -> Pipeline:
    """The Vulkan pipeline with the options of a backend (or an AOT module), then the
    program's edits `passes`. `optimize=False` (`ti.init(opt_level=0)`) leaves out the
    optional passes (utils/pipelines.OPTIONAL_PASSES). `root_segment_bytes`: the root
    is bound as segments of that size (0: one buffer, as an AOT module's)."""
    options = (
        f'caps="{spirv_abi.format_caps(caps)}" unroll={UNROLL} fold-bounds=true'
        f" unroll-layout={UNROLL_LAYOUT}"
        f" unroll-selections={str(UNROLL_SELECTIONS).lower()}"
        f" unroll-loads-first={str(UNROLL_LOADS_FIRST).lower()}"
        f" spread-groups={SPREAD_GROUPS} combine-block-dim={COMBINE_BLOCK_DIM}"
    )
    if debug:
        options += " debug=true"
    if preserve_nan_inf:
        options += " preserve-nan-inf=true"
    if root_segment_bytes:
        options += f" root-segment-bytes={root_segment_bytes}"
    if check_loop_exits:  # a driver that ends long loops silently (lavapipe)
        options += " check-loop-exits=true"
    if max_shared_bytes:  # the device's maxComputeSharedMemorySize
        options += f" max-shared-bytes={max_shared_bytes}"
    vulkan = (
        pipeline("vulkan")
        .with_options("convert-offload-to-spirv", options)
        .with_options(
            "ti-unroll-loops",
            f"factor={SERIAL_UNROLL} max_unrolled_ops={SERIAL_UNROLL_OPS}",
        )
    )
    if check_loop_exits:  # a driver that ends long loops silently (lavapipe)
        vulkan = vulkan.with_options("convert-taichi-to-spirv", "check_loop_exits=true")
    if not fast_math:  # divisions stay divisions
        vulkan = vulkan.edited(PipelineEdits(drop=("ti-fast-reciprocal",)))
    if not optimize:
        vulkan = vulkan.unoptimised()
    return vulkan.edited(passes)


def lower(
    runner: PassRunner,
    module: Any,
    kernel_name: str,
    p: Pipeline,
    *,
    stop: str | None = None,
    on_offload: Callable[[Any], None] | None = None,
    verify_offload: bool = True,
) -> KernelPlan | None:
    """
    Run pipeline `p` on `module` (in place) from the stage it is in (taichi, offload or
    spirv: pass_runner.stage_of) until `stop` (a stage or pass; None: the end). After the
    offload stage the plan is recorded in PLANS_ATTRIBUTE and `on_offload` sees the
    offload.kernel. Returns the plan (None when stopped before it exists). The module is
    verified after each stage, the offload stage only with `verify_offload`.

    Raises:
        TaichiCompilationError: a pass rejected the kernel.
    """
    from taichi_xdsl.utils import registry
    from taichi_xdsl.utils.pass_runner import stage_of, truncate

    ctx = registry.make_context()
    first = stage_of(module, kernel_name)
    plan: KernelPlan | None = None

    def record_plan() -> KernelPlan:
        """Read the plan off the offload.kernel, before later stages lower it away."""
        kernels = [
            op for op in module.body.block.ops
            if op.name == "offload.kernel" and op.sym_name.data == kernel_name
        ]  # fmt: skip
        if not kernels:
            raise TaichiCompilationError(
                f"no offload.kernel @{kernel_name} after the offload stage"
            )
        found = read_plan(kernels[0])
        _set_plan(module, found)
        if on_offload is not None:
            on_offload(kernels[0])
        return found

    if first == "taichi":
        runner.dump(module, kernel_name, "taichi")
    if first == "offload":  # IR given at the offload stage: its plan is already there
        plan = record_plan()
    for stage, passes in truncate(p, first, stop):
        runner.run(
            ctx,
            module,
            passes,
            kernel_name,
            print_input=stage == "offload",
            verify=stage != "offload" or verify_offload,
        )
        if stage == "offload" and len(passes) == len(p.stage(stage).passes):
            plan = record_plan()
        runner.dump(module, kernel_name, stage)
    if plan is None and (stop is None or first == p.stages[-1].name):
        plan = _plan_attribute(module, kernel_name)
    return plan


def _set_plan(module: Any, plan: KernelPlan) -> None:
    import json
    from dataclasses import asdict

    from xdsl.dialects.builtin import DictionaryAttr, StringAttr

    from taichi_xdsl.utils.pass_runner import root_bytes

    plans = dict(module.attributes.get(PLANS_ATTRIBUTE, DictionaryAttr({})).data)
    data = {**asdict(plan), "root_bytes": root_bytes(module)}
    plans[plan.name] = StringAttr(json.dumps(data, sort_keys=True))
    module.attributes[PLANS_ATTRIBUTE] = DictionaryAttr(plans)


def _plan_attribute(module: Any, kernel_name: str) -> KernelPlan:
    import json

    plans = module.attributes.get(PLANS_ATTRIBUTE)
    entry = getattr(plans, "data", {}).get(kernel_name)
    if entry is None:
        raise TaichiCompilationError(
            f"kernel '{kernel_name}': spirv-dialect IR without its launch plan (the "
            f"module attribute {PLANS_ATTRIBUTE} that the offload stage records)"
        )
    data = json.loads(entry.data)
    return KernelPlan(
        data["name"],
        tuple((dtype, rank) for dtype, rank in data["args"]),
        tuple(data["returns"]),
        tuple(TaskPlan(**task) for task in data["tasks"]),
        data["gtmp_bytes"],
        {},
    )


def _scalar_name(t: Any) -> str:
    from xdsl.dialects.builtin import (
        Float16Type,
        Float32Type,
        Float64Type,
        IndexType,
        IntegerType,
    )

    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, IndexType):
        return "i32"
    names = {Float16Type: "f16", Float32Type: "f32", Float64Type: "f64"}
    if type(t) not in names:
        raise TaichiCompilationError(f"unsupported scalar type {t} on Vulkan")
    return names[type(t)]


def read_plan(kernel: Any) -> KernelPlan:
    """The launch plan of an `offload.kernel` (before its tasks become SPIR-V)."""
    from taichi_xdsl.dialects import offload
    from xdsl.dialects import arith, memref
    from xdsl.dialects.builtin import IntegerAttr, MemRefType

    name = kernel.sym_name.data
    args = tuple(
        (_scalar_name(t.element_type), t.get_num_dims())
        if isinstance(t, MemRefType)
        else (texture_dtype(t), t.ndim)  # type: ignore[attr-defined]
        if texture_dtype(t) is not None
        else (_scalar_name(t), None)
        for t in kernel.function_type.inputs
    )
    returns = tuple(_scalar_name(t) for t in kernel.function_type.outputs)

    def bound(value: Any) -> int | None:
        owner = value.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return owner.value.value.data
        assert isinstance(owner, memref.LoadOp)
        return None

    def bound_at(value: Any) -> int | None:
        owner = value.owner
        if isinstance(owner, memref.LoadOp):
            tmp = owner.memref.owner
            if isinstance(tmp, offload.GlobalTmpOp):
                return tmp.offset.value.data
        return None

    tasks: list[TaskPlan] = []
    for index, task in enumerate(kernel.tasks):
        symbol = spirv_abi.task_symbol(name, index)
        if isinstance(task, offload.SerialTask):
            tasks.append(TaskPlan(symbol, "serial"))
        elif isinstance(task, offload.RangeForTask):
            combines = any(True for _ in task.epilogue.walk())
            last_group = combines and isinstance(
                task.epilogue.block.last_op, offload.LastGroupOp
            )
            tasks.append(
                TaskPlan(
                    symbol, "range_for", bound(task.lower), bound(task.upper), combines,
                    begin_at=bound_at(task.lower), end_at=bound_at(task.upper),
                    last_group=last_group,
                )
            )
        else:
            shape = task.field_type.get_shape()
            tasks.append(TaskPlan(symbol, "struct_for", 0, int(np.prod(shape))))
    gtmp_bytes = 0
    for op in kernel.walk():
        if isinstance(op, offload.GlobalTmpOp):
            element = op.result.type.element_type
            width = getattr(element, "bitwidth", None) or element.width.data
            gtmp_bytes = max(gtmp_bytes, op.offset.value.data + max(4, width // 8))
    return KernelPlan(name, args, returns, tuple(tasks), gtmp_bytes, {})


class VulkanKernel:
    """
    A kernel compiled for Vulkan: `launch(root, args) -> tuple` (as the CPU Kernel).

    Attributes:
        plan: the launch plan; pipelines: one runtime Kernel per task; binaries: the
        SPIR-V of each task.
    """

    def __init__(
        self,
        backend: VulkanBackend,
        plan: KernelPlan,
        pipelines: Sequence[Any],
        binaries: Sequence[bytes],
    ):
        self.backend = backend
        self.plan = plan
        self.name = plan.name
        self.pipelines = list(pipelines)
        self.binaries = list(binaries)
        rt = backend.runtime
        offsets = abi.arg_offsets([rank for _, rank in plan.args])
        self._arg_offsets = offsets
        last = plan.args[-1] if plan.args else None
        arg_bytes = (
            offsets[-1]
            + (abi.SCALAR_ARG_BYTES if last[1] is None else abi.ndarray_arg_bytes(last[1]))
            if last is not None
            else 0
        )
        self._args_host = bytearray(max(16, arg_bytes))
        self._args = rt.allocate(len(self._args_host))
        self._args_uploaded: bytes | None = None
        self._gtmps = rt.allocate(max(16, plan.gtmp_bytes), zero=True)
        self._returns = rt.allocate(max(16, 8 * len(plan.returns)), zero=True)
        self._ndarray_buffers: list[Any] = [None] * plan.num_ndarrays
        self._texture_images: list[Any] = [None] * plan.num_textures
        self._max_groups = rt.caps.max_compute_work_group_count[0]
        self._bound: list[Any] = [None] * plan.num_ndarrays  # this launch's buffers
        self._largest = 0  # elements of the largest ndarray argument of this launch
        # range_for tasks whose bounds a task before them stores: counted on the device
        self._count_slots = counted_tasks(plan) if backend.count_on_device else {}
        slots = len(self._count_slots)
        self._counts = rt.allocate(COUNT_BYTES * slots) if slots else None

    @serialized
    def launch(self, root: np.ndarray | None, args: Sequence[object]) -> tuple[Any, ...]:
        """
        Run the kernel once (recorded; waits only for ndarrays, returns and prints).

        Raises:
            TaichiTypeError: an argument does not match the kernel's signature.
        """
        plan = self.plan
        if len(args) != len(plan.args):
            raise TaichiTypeError(
                f"kernel '{self.name}' takes {len(plan.args)} argument(s), got {len(args)}"
            )
        backend = self.backend
        rt = backend.runtime
        root_buffers = backend._root_for_launch(root, plan.root_segments)
        arrays, resident = self._pack_args(args)
        if self._args_host != self._args_uploaded:  # same arguments: nothing to copy
            rt.upload(self._args, self._args_host)
            self._args_uploaded = bytes(self._args_host)
        buffers = [
            root_buffers[0],
            self._gtmps,
            self._args,
            self._returns,
            backend._print_buffer,
            backend._error_buffer,
            *self._bound,
            *self._texture_images,
            *root_buffers[1:],
        ]
        for index, (task, pipeline) in enumerate(zip(plan.tasks, self.pipelines)):
            self.dispatch(index, task, pipeline, buffers)
        backend._root_launched(root)
        for copy in resident:
            copy.device_newer = True
        for array, buffer in arrays:
            rt.download(buffer, array)
        if plan.prints:
            backend._flush_prints(plan.prints)
        # After the prints: what a kernel printed before failing shows. A kernel with
        # asserts outside debug mode has `always` ones (an adstack overflow check).
        if backend.debug or plan.asserts:
            backend._check_errors(plan)
        if not plan.returns:
            return ()
        raw = rt.download(self._returns, nbytes=8 * len(plan.returns)).tobytes()
        return tuple(_decode(dtype, raw, 8 * i) for i, dtype in enumerate(plan.returns))

    __call__ = launch

    def dispatch(
        self, index: int, task: TaskPlan, pipeline: Any, buffers: list[Any]
    ) -> None:
        """Record task `index`: over its group count, or over counts the device computes
        from its bounds when the task has a count slot (targets/vulkan/group_count.py)."""
        rt = self.backend.runtime
        slot = self._count_slots.get(index)
        if slot is None:
            groups = self._groups(task, pipeline)
            if groups:
                rt.launch(pipeline, buffers, groups)
            return
        assert self._counts is not None
        self.backend.group_counter.record(
            self._gtmps,
            self._counts,
            slot,
            (task.begin, task.begin_at),
            (task.end, task.end_at),
            pipeline.local_size[0] if pipeline.local_size else 1,
            self._limit(task),
        )
        rt.launch(pipeline, buffers, indirect=(self._counts, COUNT_BYTES * slot))

    def _limit(self, task: TaskPlan) -> int:
        """The most workgroups of a parallel task."""
        limit = self._max_groups
        if task.combines:  # atomics on one address: few of them
            per_workgroup = self.backend.combines_per_workgroup
            limit = min(limit, COMBINE_GROUPS if per_workgroup else REDUCTION_GROUPS)
        return limit

    def _groups(self, task: TaskPlan, pipeline: Any) -> int:
        if task.skip:
            return 0
        if task.kind == "serial":
            return 1
        local = pipeline.local_size[0] if pipeline.local_size else 1
        limit = self._limit(task)
        if task.begin is None or task.end is None:
            return min(self.backend.dynamic_groups(local, self._largest), limit)
        n = task.end - task.begin
        if n <= 0:
            return 1 if task.last_group else 0
        if not self.backend._cpu_device:
            limit = min(limit, GPU_FILL_GROUPS)
        return max(1, min(-(-n // local), limit))

    def _pack_args(
        self, args: Sequence[object]
    ) -> tuple[list[tuple[np.ndarray, Any]], list[DeviceNdarray]]:
        """Pack the argument buffer and bind the ndarrays: returns the plain NumPy arrays
        to download after the launch (with their buffers) and the resident copies."""
        host = self._args_host
        arrays: list[tuple[np.ndarray, Any]] = []
        resident: list[DeviceNdarray] = []
        backend = self.backend
        rt = backend.runtime
        position = 0
        self._largest = 0
        textures = 0
        for index, ((dtype, rank), offset, value) in enumerate(
            zip(self.plan.args, self._arg_offsets, args)
        ):
            if is_texture(dtype):
                image = _texture_image(self.name, index, value, dtype, rank, rt)
                for axis, extent in enumerate(image.shape):
                    _INT.pack_into(host, offset + 8 + 8 * axis, extent)
                self._texture_images[textures] = image
                textures += 1
                continue
            if rank is None:
                try:
                    if not abi.scalar_fits(dtype, value):
                        raise TypeError(type(value).__name__)
                    if dtype in _PACK:
                        _PACK[dtype].pack_into(host, offset, float(value))  # type: ignore[arg-type]
                    else:
                        bits = int(value) & ((1 << 64) - 1)  # type: ignore[call-overload]
                        _INT.pack_into(
                            host, offset, bits - (1 << 64) if bits >> 63 else bits
                        )
                except (TypeError, ValueError, struct.error) as error:
                    raise TaichiRuntimeTypeError(
                        f"Argument ({index},) (type={type(value)}) cannot be converted into "
                        f"required type {dtype}: kernel '{self.name}' argument {index} "
                        f"expects a {dtype} scalar, got {value!r} ({type(value).__name__})"
                    ) from None
                continue
            array = _check_array(self.name, index, value, dtype, rank)
            for axis, extent in enumerate(array.shape):
                _INT.pack_into(host, offset + 8 + 8 * axis, extent)
            self._largest = max(self._largest, array.size)
            copy = backend.device_ndarray(array)
            if copy is not None:
                self._bound[position] = copy.prepare()
                resident.append(copy)
                position += 1
                continue
            buffer = self._ndarray_buffers[position]
            nbytes = max(16, array.nbytes)
            if buffer is None or buffer.nbytes != nbytes:
                if buffer is not None:
                    rt.release(buffer)
                buffer = self._ndarray_buffers[position] = rt.allocate(nbytes)
            rt.upload(buffer, array)
            self._bound[position] = buffer
            arrays.append((array, buffer))
            position += 1
        return arrays, resident


class DeviceNdarray:
    """
    The device copy of a ti.ndarray (its `device_copy`): one device buffer and which side
    holds the newest values. The host array is the Ndarray's `arr`.

        copy.prepare()      # before a launch: upload if the host wrote; -> the buffer
        copy.device_newer = True                 # after the launch
        copy.host_read()    # Python-scope read: download if a kernel may have written
        copy.host_wrote()   # Python-scope write: upload before the next launch
        copy.host_replaced(data)  # from_numpy: straight to the device, no host copy
        copy.host_filled(word)    # fill of a 32-bit type: a device fill command
    """

    __slots__ = ("array", "buffer", "device_newer", "host_newer", "runtime")

    def __init__(self, runtime: Any, array: np.ndarray):
        self.runtime = runtime
        self.array = array
        self.buffer = runtime.allocate(max(16, array.nbytes))
        self.host_newer = True
        self.device_newer = False

    def prepare(self) -> Any:
        """The buffer, up to date with the host array (uploaded only if the host wrote);
        called by a launch, under its device lock."""
        if self.host_newer:
            self.runtime.upload(self.buffer, self.array)
            self.host_newer = False
        return self.buffer

    @serialized
    def host_read(self) -> None:
        """Bring the host array up to date (waits for launched kernels if needed)."""
        if self.device_newer:
            if not self.runtime.closed:
                self.runtime.download(self.buffer, self.array)
            self.device_newer = False

    def host_wrote(self) -> None:
        """The host wrote the array (after `host_read`, or all of it)."""
        self.device_newer = False
        self.host_newer = True

    @serialized
    def host_filled(self, word: int) -> None:
        """The host set every element to the 32-bit pattern `word`: a fill recorded on
        the device (vkCmdFillBuffer), not a write of the host array (stale until read)."""
        self.runtime.fill(self.buffer, word)
        self.host_newer = False
        self.device_newer = True

    @serialized
    def host_replaced(self, data: np.ndarray) -> None:
        """The host overwrote every element with `data` (C-contiguous, the array's dtype
        and size): copied straight to the buffer (ordered after the recorded work), not
        through the host array, which is stale until the next `host_read`."""
        self.runtime.upload(self.buffer, data)
        self.host_newer = False
        self.device_newer = True


def _texture_image(
    name: str, index: int, value: Any, dtype: str, ndim: int, runtime: Any
) -> Any:
    """The device image of a texture argument (a ti.Texture), checked against the
    kernel's declaration."""
    where = f"kernel '{name}' argument {index}"
    image_of = getattr(value, "vulkan_image", None)
    if image_of is None:
        raise TaichiTypeError(f"{where} must be a ti.Texture, got {type(value).__name__}")
    image = image_of(runtime)
    if len(image.shape) != ndim:
        raise TaichiTypeError(
            f"{where} expects a {ndim}-d texture, got a {len(image.shape)}-d one"
        )
    if dtype.startswith("rw_texture."):
        fmt = dtype.removeprefix("rw_texture.")
        if value.format_name != fmt:
            raise TaichiTypeError(
                f"{where} expects an rw texture of format {fmt}, got {value.format_name}"
            )
        if not image.storage:
            raise TaichiTypeError(
                f"{where}: the device cannot use {fmt} images as storage images"
            )
    return image


def _check_array(name: str, index: int, value: object, dtype: str, rank: int) -> np.ndarray:
    where = f"kernel '{name}' argument {index}"
    if not isinstance(value, np.ndarray):
        raise TaichiTypeError(
            f"{where} must be a numpy.ndarray, got {type(value).__name__}"
        )
    kinds, size = abi.NUMPY_KINDS.get(dtype, ("", 0))
    if value.dtype.kind not in kinds or value.dtype.itemsize != size:
        raise TaichiTypeError(f"{where} expects {dtype} elements, got dtype {value.dtype}")
    if value.ndim != rank:
        raise TaichiTypeError(f"{where} expects a {rank}-d ndarray, got {value.ndim}-d")
    if not value.flags.c_contiguous:
        raise ValueError(f"{where}: ndarrays must be C-contiguous")
    if not value.flags.writeable:
        # Taichi (and our cpu arch, which passes the array's pointer) writes into a
        # read-only array too: one rule on every arch, through a writable alias.
        alias = (ctypes.c_char * value.nbytes).from_address(value.ctypes.data)
        value = np.frombuffer(alias, value.dtype).reshape(value.shape)
    return value


def _decode(dtype: str, raw: bytes, offset: int) -> Any:
    if dtype == "i1":
        return int(struct.unpack_from("<i", raw, offset)[0] != 0)
    if dtype in _PACK:
        return _PACK[dtype].unpack_from(raw, offset)[0]
    width = int(dtype[1:])
    code = {8: "<b", 16: "<h", 32: "<i", 64: "<q"}[width]
    return struct.unpack_from(code, raw, offset)[0]


_RUNTIMES: dict[int | str | None, Any] = {}


def shared_runtime(device: int | str | None = None) -> Any:
    """One VulkanRuntime per device for the process (ti.init makes new backends, not
    new devices)."""
    runtime = _RUNTIMES.get(device)
    if runtime is None or runtime.closed:
        from taichi_xdsl.targets.vulkan.runtime import VulkanRuntime

        runtime = _RUNTIMES[device] = VulkanRuntime(device)
    return runtime


class VulkanBackend:
    """
    Compiles taichi-dialect kernels for a Vulkan device and keeps the device's copy of
    the root buffer.

    Args:
        device: which device (see VulkanRuntime); None: $TI_VULKAN_DEVICE or the best.
        caps: Taichi DeviceCapability names -> values to generate code for; None: the
            device's `taichi_caps()`.
        print_ir: print the IR after every pass (to `ir_stream`).
        runtime: a VulkanRuntime to use instead of the process's shared one.
        ndarray_owner: maps a NumPy array given to a launch to the object that owns it
            (a ti.ndarray, with a `device_copy` attribute) to keep it device-resident, or
            to None for a plain array (copied in and out). None: every array is plain.
        fast_math: False (`ti.init(fast_math=False)`): kernels declare
            SignedZeroInfNanPreserve (`convert-offload-to-spirv{preserve-nan-inf=true}`)
            so NaN and Inf survive, where the device allows it (`preserves_nan_inf`).
        opt_level: 0 (`ti.init(opt_level=0)`) leaves the optional passes out
            (utils/pipelines.OPTIONAL_PASSES); any other level runs them.
        passes: edits to the arch's pipeline (utils/pipelines.py PipelineEdits).
        dump_ir: a folder: each kernel's IR at each stage goes to `<kernel>.<stage>.mlir`.
        print_pass_times, print_pass_statistics: report each pass's time, and the ops it
            added and removed, after each compile.
        verify_each: verify after every pass (None: when `passes` edits the pipeline).
        offline_cache: where compiled kernels are kept across processes (an
            OfflineCache of utils/cache.py; None: nowhere). Keys and entries:
            targets/vulkan/cache.py.
    """

    def __init__(
        self,
        *,
        device: int | str | None = None,
        caps: Mapping[str, int] | None = None,
        debug: bool = False,
        print_ir: bool = False,
        ir_stream: IO[str] | None = None,
        runtime: Any = None,
        ndarray_owner: Callable[[Any], Any] | None = None,
        fast_math: bool = True,
        opt_level: int = 1,
        passes: PipelineEdits | None = None,
        dump_ir: str | None = None,
        print_pass_times: bool = False,
        print_pass_statistics: bool = False,
        verify_each: bool | None = None,
        offline_cache: Any = None,
    ):
        if runtime is None:
            runtime = shared_runtime(device)
        self.offline_cache = offline_cache
        self.cache_hits = 0
        self.cache_misses = 0
        self.runtime = runtime
        self.caps = dict(caps) if caps is not None else runtime.caps.taichi_caps()
        self.debug = debug
        self.fast_math = fast_math
        self.opt_level = opt_level
        self.preserve_nan_inf = not fast_math and preserves_nan_inf(runtime.caps)
        self.print_ir = print_ir
        self.ir_stream = ir_stream
        self.passes = passes
        self.dump_ir = dump_ir
        self.print_pass_times = print_pass_times
        self.print_pass_statistics = print_pass_statistics
        self.verify_each = verify_each
        self.runner = PassRunner(
            print_ir=print_ir,
            ir_stream=ir_stream,
            dump_dir=dump_ir,
            collect_statistics=print_pass_statistics,
        )
        self.pass_times = self.runner.times
        self._device_root = DeviceRoot(runtime, self.root_segment_bytes)
        self._print_buffer = runtime.allocate(4 * spirv_abi.PRINT_BUFFER_WORDS, zero=True)
        self._error_buffer = runtime.allocate(abi.ERROR_RECORD_BYTES, zero=True)
        self._dummy_root = runtime.allocate(16, zero=True)
        self._ndarray_owner = ndarray_owner
        caps = runtime.caps
        self._max_groups = caps.max_compute_work_group_count[0]
        self._max_shared_bytes = caps.max_compute_shared_memory_size
        self._cpu_device = caps.device_type == "cpu"
        self.combines_per_workgroup = bool(
            self.caps.get("spirv_has_subgroup_basic")
            and self.caps.get("spirv_has_subgroup_arithmetic")
        )
        """Thread-local reductions combine once per workgroup (lowering/spirv_reduce.py),
        not once per invocation."""
        self.count_on_device = self._cpu_device
        """Whether a range_for whose bound a task before it stores gets its group count
        from the device (targets/vulkan/group_count.py): on a CPU device, where an
        invocation without an iteration costs as much as one with; a GPU keeps the
        host's guess (idle invocations there cost little, a count pass costs a
        dispatch)."""
        self._group_counter: GroupCounter | None = None

    @property
    def group_counter(self) -> GroupCounter:
        """The group-count pass of this backend's runtime (made on first use)."""
        if self._group_counter is None:
            self._group_counter = GroupCounter(self.runtime)
        return self._group_counter

    # -- launches ----------------------------------------------------------------------

    def dynamic_groups(self, local_size: int, largest: int) -> int:
        """
        Workgroups for a range_for whose bounds are read on the device: on a GPU, one
        invocation per element of the largest ndarray argument (`largest` elements; none:
        GPU_FILL_GROUPS), at most GPU_FILL_GROUPS; on a CPU device DYNAMIC_GROUPS. Within
        the device limit.
        """
        if self._cpu_device:
            return max(1, min(spirv_abi.DYNAMIC_GROUPS, self._max_groups))
        groups = -(-largest // max(1, local_size)) if largest else GPU_FILL_GROUPS
        return max(1, min(groups, GPU_FILL_GROUPS, self._max_groups))

    def device_ndarray(self, array: np.ndarray) -> DeviceNdarray | None:
        """The device copy of a ti.ndarray's host array (made on first use), None for a
        plain NumPy array; called by a launch, under its device lock."""
        owner = self._ndarray_owner(array) if self._ndarray_owner is not None else None
        if owner is None:
            return None
        copy = owner.device_copy
        if (
            copy is not None
            and copy.runtime is self.runtime
            and copy.array is array
            and copy.buffer.nbytes == max(16, array.nbytes)
        ):
            return copy
        if copy is not None:
            copy.host_read()  # another device's copy: its newest values come home first
        copy = owner.device_copy = DeviceNdarray(self.runtime, array)
        return copy

    @serialized
    def host_array_read(self, array: np.ndarray) -> None:
        """Before the host reads `array` outside a launch (ti.graph): download if it is
        a resident ndarray that a kernel may have written."""
        owner = self._ndarray_owner(array) if self._ndarray_owner is not None else None
        if owner is not None and owner.device_copy is not None:
            owner.device_copy.host_read()

    @serialized
    def host_array_written(self, array: np.ndarray) -> None:
        """After something other than a launch wrote `array` (ti.graph): a resident
        ndarray uploads it before its next launch."""
        owner = self._ndarray_owner(array) if self._ndarray_owner is not None else None
        if owner is not None and owner.device_copy is not None:
            owner.device_copy.host_wrote()

    # -- compilation -------------------------------------------------------------------

    def pipeline(self, passes: PipelineEdits | None = None) -> Pipeline:
        """The pipeline this backend runs: the arch's with this backend's caps and
        options, its edits, then `passes` (a kernel's own edits)."""
        edits = self.passes.merged(passes) if self.passes is not None else passes
        return vulkan_pipeline(
            self.caps,
            debug=self.debug,
            preserve_nan_inf=self.preserve_nan_inf,
            fast_math=self.fast_math,
            check_loop_exits=self._cpu_device,
            optimize=self.opt_level > 0,
            passes=edits,
            root_segment_bytes=self.root_segment_bytes,
            max_shared_bytes=self._max_shared_bytes,
        )

    def spirv_pipeline(self) -> list[str]:
        """The passes of the `spirv` stage, with this backend's caps."""
        return list(self.pipeline().stage("spirv").passes)

    def _prepare(self, passes: PipelineEdits | None) -> None:
        self.pass_times.clear()
        self.runner.statistics.clear()
        edited = bool(self.passes) or bool(passes)
        self.runner.verify_each = self.verify_each if self.verify_each is not None else edited

    def lower(
        self,
        module: Any,
        kernel_name: str,
        stop: str,
        *,
        passes: PipelineEdits | None = None,
    ) -> Any:
        """A copy of `module` lowered until `stop` (a stage or a pass of the pipeline)."""
        module = module.clone()
        self._prepare(passes)
        dump_dir, self.runner.dump_dir = self.runner.dump_dir, None  # a query: no dumps
        try:
            lower(self.runner, module, kernel_name, self.pipeline(passes), stop=stop)
        finally:
            self.runner.dump_dir = dump_dir
        return module

    def compile(
        self,
        module: Any,
        kernel_name: str,
        *,
        source_key: str | None = None,
        passes: PipelineEdits | None = None,
        in_place: bool = False,
    ) -> VulkanKernel:
        """
        Compile kernel `kernel_name` of `module` (left unchanged): a `taichi.kernel`, an
        `offload.kernel` or spirv-dialect IR with its `ti.launch_plans` attribute.
        `passes`: this kernel's own pipeline edits, after the backend's. With
        `source_key` (`source_cache_key`), the offline cache also maps that key to this
        kernel's entry (`load_by_source`). With `in_place`, the passes lower `module`
        itself, not a copy (for a caller that built it for this compile alone).

        Raises:
            TaichiCompilationError: a pass rejected the kernel, or the IR is invalid.
        """
        import time

        from taichi_xdsl.dialects import spirv
        from taichi_xdsl.targets.spirv.serializer import serialize

        self._prepare(passes)
        key = None
        if self.offline_cache is not None and not self.print_ir and self.dump_ir is None:
            key = self.cache_key(module, passes=passes)
            kernel = self._load_cached(key, kernel_name)
            if kernel is not None:
                self.cache_hits += 1
                self._link_source_key(source_key, key, kernel_name)
                return kernel
            self.cache_misses += 1
        if not in_place:
            module = module.clone()
        # The spirv stage's result is verified; verifying the frontend's module and the
        # offload stage's (as on CPU) is for debug mode, where it names who broke the IR.
        plan = lower(
            self.runner,
            module,
            kernel_name,
            self.pipeline(passes),
            verify_offload=self.debug or self.print_ir,
        )
        assert plan is not None
        start = time.perf_counter()
        binaries: dict[int, bytes] = {}
        skipped: set[int] = set()
        prints: dict[int, tuple[str, tuple[str, ...]]] = {}
        asserts: dict[int, str] = {}
        segments = 1
        for op in module.body.block.ops:
            if not isinstance(op, spirv.ModuleOp):
                continue
            if op.attributes["ti.kernel"].data != kernel_name:  # type: ignore[union-attr]
                continue
            task_index = op.attributes["ti.task"].value.data  # type: ignore[union-attr]
            binaries[task_index] = serialize(op)
            if "ti.skip" in op.attributes:
                skipped.add(task_index)
            if "ti.root_segments" in op.attributes:
                count = op.attributes["ti.root_segments"].value.data  # type: ignore[union-attr]
                segments = max(segments, count)
            for spec in op.attributes.get("ti.prints", ()):  # type: ignore[union-attr]
                texts = [s.data for s in spec.data]  # type: ignore[union-attr]
                prints[int(texts[0])] = (texts[1], tuple(texts[2:]))
            for spec in op.attributes.get("ti.asserts", ()):  # type: ignore[union-attr]
                ident, message = (a.data for a in spec.data)  # type: ignore[union-attr]
                asserts[int(ident)] = message
        missing = [i for i in range(len(plan.tasks)) if i not in binaries]
        if missing:
            raise TaichiCompilationError(
                f"kernel '{kernel_name}': no spirv.module for task(s) {missing}"
            )
        ordered = [binaries[i] for i in range(len(plan.tasks))]
        self.pass_times.append(("serialize SPIR-V", time.perf_counter() - start))
        tasks = tuple(
            replace(task, skip=True) if index in skipped else task
            for index, task in enumerate(plan.tasks)
        )
        plan = KernelPlan(
            plan.name, plan.args, plan.returns, tasks, plan.gtmp_bytes, prints, asserts,
            segments,
        )
        kernel = self._make_kernel(plan, ordered)
        if key is not None and self.offline_cache is not None:
            from taichi_xdsl.targets.vulkan.cache import kernel_to_entry

            if self.offline_cache.store(key, *kernel_to_entry(plan, ordered)):
                self._link_source_key(source_key, key, kernel_name)
        self._report(kernel_name)
        return kernel

    def _make_kernel(self, plan: KernelPlan, ordered: list[bytes]) -> VulkanKernel:
        """The device pipelines of a compiled kernel's tasks, as a VulkanKernel."""
        import time

        num_bindings = plan.num_bindings
        start = time.perf_counter()
        pipelines = [
            self.runtime.load_kernel(
                binary,
                entry=task.symbol,
                num_bindings=num_bindings,
                binding_types=plan.binding_types,
            )
            for binary, task in zip(ordered, plan.tasks)
        ]
        self.pass_times.append(("load pipelines", time.perf_counter() - start))
        return VulkanKernel(self, plan, pipelines, ordered)

    # -- the offline cache ---------------------------------------------------------------

    def _target_parts(self, passes: PipelineEdits | None = None) -> dict[str, str]:
        """The arch (the device), caps and config (the pipeline as run, edits included)
        parts of this backend's cache keys."""
        from taichi_xdsl.utils.cache_keys import pipeline_config

        config = pipeline_config(self.pipeline(passes), edited=bool(self.passes or passes))
        caps = self.runtime.caps
        device = (
            f"{caps.name};{caps.vendor_id:#x}:{caps.device_id:#x};"
            f"api={caps.api_version};driver={caps.driver_version}"
        )
        return {
            "arch": f"vulkan:{device}",
            "caps": ";".join(f"{k}={v}" for k, v in sorted(self.caps.items())),
            "config": config,
        }

    def cache_key(self, module: Any, *, passes: PipelineEdits | None = None) -> str:
        """The offline-cache key of `module` compiled by this backend (deterministic)."""
        from taichi_xdsl.targets.vulkan.cache import KEYS

        return KEYS.kernel_key(str(module), **self._target_parts(passes))

    def source_cache_key(
        self, parts: dict[str, str], *, passes: PipelineEdits | None = None
    ) -> str | None:
        """
        The first-level offline-cache key of a kernel instance from the frontend's
        `parts` (frontends/python/lang/source_key.py), computed without xDSL; None when the
        offline cache is off (or print_ir or dump_ir asks for the IR).
        """
        if self.offline_cache is None or self.print_ir or self.dump_ir is not None:
            return None
        from taichi_xdsl.targets.vulkan.cache import KEYS

        return KEYS.source_kernel_key(parts, **self._target_parts(passes))

    def load_by_source(self, source_key: str, kernel_name: str) -> VulkanKernel | None:
        """
        The kernel that `source_key` maps to in the offline cache, or None (a miss): no
        xDSL, no frontend. A mapping to a missing or bad entry is dropped.
        """
        if self.offline_cache is None:
            return None
        self._prepare(None)
        link = self.offline_cache.linked(source_key)
        if link is None:
            return None
        key, linked_name = link
        kernel = self._load_cached(key, kernel_name) if linked_name == kernel_name else None
        if kernel is None:
            self.offline_cache.unlink(source_key)
            return None
        self.cache_hits += 1
        return kernel

    def _link_source_key(self, source_key: str | None, key: str, kernel_name: str) -> None:
        if source_key is not None and self.offline_cache is not None:
            self.offline_cache.link(source_key, key, kernel_name)

    def _load_cached(self, key: str, kernel_name: str) -> VulkanKernel | None:
        """The cached kernel of `key`, or None (a miss; a bad entry is dropped)."""
        assert self.offline_cache is not None
        entry = self.offline_cache.load(key)
        if entry is None:
            return None
        from taichi_xdsl.targets.vulkan.cache import kernel_from_entry

        try:
            plan, binaries = kernel_from_entry(entry.meta, entry.payload)
            if plan.name != kernel_name:
                raise ValueError(f"entry is for kernel '{plan.name}'")
            return self._make_kernel(plan, binaries)
        except ValueError:
            self.offline_cache.discard(key)
            return None

    def _report(self, kernel_name: str) -> None:
        stream = self.ir_stream or sys.stdout
        title = f"{kernel_name} (cold compile)"
        if self.print_pass_times:
            print(format_pass_times(self.pass_times, title), file=stream, flush=True)
        if self.print_pass_statistics and self.runner.statistics:
            text = format_pass_statistics(self.runner.statistics, title)
            print(text, file=stream, flush=True)

    # -- the device root buffer ----------------------------------------------------------

    @property
    def root_segment_bytes(self) -> int:
        """The size S of the root's segments on this device (utils/spirv_abi.py): its
        maxStorageBufferRange, rounded down to the fields' alignment."""
        return spirv_abi.root_segment_bytes(self.runtime.caps.max_storage_buffer_range)

    @property
    def fields_may_span_segments(self) -> bool:
        """Whether a field may span several root segments: kernels then choose the
        segment per element with variable pointers (lowering/spirv_access.py)."""
        return self.runtime.caps.variable_pointers

    @property
    def device_memory_bytes(self) -> int:
        """The bytes of this device's device-local memory heaps (0: none reported)."""
        return self.runtime.caps.device_local_bytes

    @serialized
    def root_changed_on_host(self, lo: int = 0, hi: int | None = None) -> None:
        """The host (Python scope) may have written bytes [lo, hi) of the root (`hi`
        None: to its end): upload them before the next launch."""
        self._device_root.host_wrote(lo, hi)

    @serialized
    def read_root(self, np_root: np.ndarray | None, lo: int = 0, hi: int | None = None) -> None:
        """Bring bytes [lo, hi) of the host root up to date with the device (waits for
        launched kernels)."""
        if np_root is not None:
            self._device_root.read(np_root, lo, hi)

    @property
    def root_launches(self) -> int:
        """Launches that bound the root so far: the device's copy may have changed since
        a read only if this grew."""
        return self._device_root.launches

    @serialized
    def zero_root(self, np_root: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> None:
        """Zero the root's byte ranges [starts[i], starts[i] + sizes[i]) (sorted,
        disjoint) on the host and the device."""
        self._device_root.zero(np_root, starts, sizes)

    @serialized
    def sync(self) -> None:
        """Wait for every launched kernel."""
        self.runtime.sync()

    def _root_for_launch(self, root: np.ndarray | None, segments: int = 1) -> list[Any]:
        """The buffers of the first `segments` root segments, up to date with the
        host."""
        if root is None:
            return [self._dummy_root] * segments
        return self._device_root.for_launch(root, segments)

    def _root_launched(self, root: np.ndarray | None) -> None:
        if root is not None:
            self._device_root.launched()

    # -- debug checks ------------------------------------------------------------------

    def _check_errors(self, plan: KernelPlan) -> None:
        """
        Debug mode (or a kernel with `always` asserts), after a launch: wait for it,
        read the error record (binding 5) and raise what it says, as the CPU backend
        does; the record is cleared first.
        """
        rt = self.runtime
        words = rt.download(self._error_buffer, nbytes=4 * spirv_abi.ERROR_RECORD_WORDS)
        code, first, second, third = (int(w) for w in words.view(np.int32))
        if code == 0:
            return
        rt.upload(self._error_buffer, np.zeros(spirv_abi.ERROR_RECORD_WORDS, np.int32))
        if code == spirv_abi.ERROR_INDEX_OUT_OF_BOUNDS:
            site = plan.asserts.get((first >> SITE_SHIFT) - 1, "")  # id + 1; 0: none
            raise out_of_bounds_error(plan.name, first, second, third, site)
        if code == spirv_abi.ERROR_ASSERTION:
            message = render_assert(plan.asserts.get(first, ""), [second, third])
            raise TaichiAssertionError(
                message or f"assertion failed in kernel '{plan.name}'"
            )
        raise TaichiRuntimeError(f"kernel '{plan.name}': runtime error code {code}")

    # -- print -------------------------------------------------------------------------

    def _flush_prints(self, specs: Mapping[int, tuple[str, tuple[str, ...]]]) -> None:
        rt = self.runtime
        words = rt.download(self._print_buffer).view(np.uint32)
        used = int(words[0])
        position = 1
        end = min(1 + used, spirv_abi.PRINT_BUFFER_WORDS - 1)
        while position < end:
            fmt, kinds = specs[int(words[position])]
            count = sum(2 if k in ("i64", "f64") else 1 for k in kinds)
            sys.stdout.write(render_print(fmt, kinds, words[position + 1 : position + 1 + count]))
            position += 1 + count
        dropped = int(words[-1])
        if dropped:
            print(f"[taichi-xdsl] {dropped} print record(s) did not fit the print buffer")
        sys.stdout.flush()
        rt.upload(self._print_buffer, np.zeros(1, np.uint32))
        rt.upload(
            self._print_buffer,
            np.zeros(1, np.uint32),
            offset=4 * (spirv_abi.PRINT_BUFFER_WORDS - 1),
        )
