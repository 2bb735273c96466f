"""
Run a Vulkan AOT module without the compiler: metadata.json + one .spv per task ->
pipelines on a device (targets/vulkan/runtime.py) launched by VulkanKernel
(targets/vulkan/backend.py, whose launch path needs no xDSL). Imports no llvmlite.

    module = VulkanAotModule(files, metadata, graphs)   # the best device, or `device`
    module.kernels["saxpy"](2.0, x, y)                  # numpy arrays updated in place
    module.get_field("x")                               # waits for the device

The device must have every cap of metadata.json's `required_caps` (checked first).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
from taichi_xdsl.targets import aot_format as fmt
from taichi_xdsl.targets.aot_format import (
    AotFormatError,
    ArgKind,
    GraphAttributes,
    ModuleMetadata,
)
from taichi_xdsl.targets.aot_runtime import AotGraph, AotKernel, AotModuleBase
from taichi_xdsl.utils.errors import TaichiTypeError

FIELD_ALIGN = 64


class _DeviceFields(Mapping[str, np.ndarray]):
    """Field views of the host root, brought up to date with the device on access."""

    def __init__(self, module: VulkanAotModule, views: dict[str, np.ndarray]):
        self._module = module
        self._views = views

    def __getitem__(self, name: str) -> np.ndarray:
        view = self._views[name]
        self._module.backend.read_root(self._module.root)
        return view

    def __iter__(self) -> Iterator[str]:
        return iter(self._views)

    def __len__(self) -> int:
        return len(self._views)


class VulkanAotModule(AotModuleBase):
    """A loaded Vulkan module: `kernels`, `graphs`, `fields`, on one device."""

    def __init__(
        self,
        files: Mapping[str, bytes],
        metadata: ModuleMetadata,
        graphs: list[GraphAttributes],
        *,
        device: int | str | None = None,
    ):
        from taichi_xdsl.targets.vulkan.backend import (
            KernelPlan,
            TaskPlan,
            VulkanBackend,
            VulkanKernel,
        )
        from taichi_xdsl.targets.vulkan.device import vulkan_available

        ok, why = vulkan_available()
        if not ok:
            raise AotFormatError(f"this Vulkan AOT module needs a Vulkan device: {why}")
        self.metadata = metadata
        caps = {k: v for k, v in metadata.required_caps.items() if isinstance(v, int)}
        self.backend = VulkanBackend(device=device, caps=caps)
        have = self.backend.runtime.caps.taichi_caps()
        missing = [
            name for name, value in sorted(caps.items()) if have.get(name, 0) < value
        ]
        if missing:
            raise AotFormatError(
                f"the Vulkan device lacks caps this module needs: {', '.join(missing)}"
            )
        size = metadata.root_buffer_size
        limit = self.backend.root_segment_bytes
        if size > limit:  # the module's code addresses its fields in one buffer
            raise AotFormatError(
                f"this Vulkan AOT module's fields take {size} bytes in one root buffer; "
                f"a storage buffer on this device holds at most {limit} bytes "
                "(maxStorageBufferRange)"
            )
        storage = np.zeros(size + FIELD_ALIGN, dtype=np.uint8)
        start = (-storage.ctypes.data) % FIELD_ALIGN
        self._storage = storage
        self.root = storage[start : start + size] if size else None
        views: dict[str, np.ndarray] = {}
        for f in metadata.fields:
            dtype = np.dtype(fmt.NUMPY_DTYPE[f.dtype])
            nbytes = int(np.prod(f.shape, dtype=np.int64)) * dtype.itemsize
            assert self.root is not None
            views[f.name] = (
                self.root[f.offset : f.offset + nbytes].view(dtype).reshape(f.shape)
            )
        self.fields = _DeviceFields(self, views)
        self.kernels: dict[str, AotKernel] = {}
        compiled: dict[str, VulkanKernel] = {}
        for k in metadata.kernels:
            args = tuple(arg for a in k.args for arg in a.launch_args())
            tasks = []
            binaries = []
            for t in k.tasks:
                if t.spirv is None:
                    raise AotFormatError(
                        f"kernel '{k.name}': task {t.name} has no .spv file"
                    )
                binaries.append(files[t.spirv])
                if t.task_type == "serial":
                    tasks.append(TaskPlan(t.name, "serial"))
                else:
                    assert t.begin is not None and t.end is not None
                    tasks.append(
                        TaskPlan(
                            t.name, t.task_type, t.begin.value, t.end.value,
                            begin_at=t.begin.gtmp_offset, end_at=t.end.gtmp_offset,
                            last_group=t.last_group,
                        )
                    )
            plan = KernelPlan(
                k.name,
                args,
                tuple(fmt.ir_dtype(d) for d in k.rets),
                tuple(tasks),
                k.gtmp_bytes,
                {i: (f, kinds) for i, f, kinds in (k.prints or [])},
                dict(k.asserts or []),
            )
            num_bindings = plan.num_bindings
            try:
                pipelines = [
                    self.backend.runtime.load_kernel(
                        b,
                        entry=t.symbol,
                        num_bindings=num_bindings,
                        binding_types=plan.binding_types,
                    )
                    for b, t in zip(binaries, tasks)
                ]
            except ValueError as error:
                raise AotFormatError(f"kernel '{k.name}': bad SPIR-V: {error}") from None
            kernel = compiled[k.name] = VulkanKernel(
                self.backend, plan, pipelines, binaries
            )
            self.kernels[k.name] = AotKernel(k, kernel.launch, self._get_root)
        self.graphs: dict[str, AotGraph] = {
            g.name: ReplayedAotGraph(g, self.kernels, compiled, self) for g in graphs
        }

    def _get_root(self) -> Any:
        return self.root

    def set_field(self, name: str, values: Any) -> None:
        self.fields[name][...] = values
        self.backend.root_changed_on_host()

    def sync(self) -> None:
        self.backend.sync()


class ReplayedAotGraph(AotGraph):
    """A loaded graph on Vulkan: recorded into one command buffer on its first run and
    replayed after (targets/vulkan/graph.py)."""

    def __init__(
        self,
        attrs: GraphAttributes,
        kernels: Mapping[str, AotKernel],
        compiled: Mapping[str, Any],
        module: VulkanAotModule,
    ):
        from taichi_xdsl.targets.vulkan.graph import RecordedGraph

        super().__init__(attrs, kernels)
        self._module = module
        steps = [
            (
                compiled[kernel.name],
                [
                    n if a.kind is ArgKind.NDARRAY else None
                    for a, n in zip(kernel.attrs.args, names)
                    for _ in a.launch_args()  # a MATRIX: one per component
                ],
            )
            for kernel, names in self._steps
        ]
        self.recorded = RecordedGraph(module.backend, steps)

    def run(self, args: Mapping[str, Any]) -> None:
        if not self.recorded.replayable:
            super().run(args)
            return
        missing = [n for n in self.arg_names if n not in args]
        if missing:
            raise TaichiTypeError(f"graph '{self.name}': missing argument(s) {missing}")
        step_args = [
            kernel.launch_values([args[n] for n in names]) for kernel, names in self._steps
        ]
        self.recorded.run(self._module.root, step_args)
