"""
Run a CPU AOT module (arch x64) without the compiler: metadata.json + one object per
kernel -> launchable kernels, fields and graphs. Imports numpy, llvmlite.binding (to load
the objects; nothing is compiled: even the thread pool comes as an object, `runtime.o`)
and the plain-data CPU runtime (targets/llvm/runtime.py); never xDSL, never the frontend.

    module = CpuAotModule(files)                 # files: aot_format.read_module_files
    module.kernels["saxpy"](2.0, x, y)           # numpy arrays (or objects with `.arr`)
    module.fields["x"]                           # a numpy view of the root buffer
    module.graphs["step"].run({"x": x, "n": 8})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from taichi_xdsl.targets import aot_format as fmt
from taichi_xdsl.targets.aot_format import (
    AotFormatError,
    GraphAttributes,
    ModuleMetadata,
)
from taichi_xdsl.targets.aot_runtime import AotGraph, AotKernel, AotModuleBase

POOL_OBJECT = "runtime.o"
"""The thread pool's code (targets/llvm/pool.py) compiled for the module's CPU."""

FIELD_ALIGN = 64


def _load_object(data: bytes, what: str) -> Any:
    from taichi_xdsl.targets.llvm.jit import load_object

    if data[:4] != b"\x7fELF":
        raise AotFormatError(f"AOT module: {what} is not an ELF object (corrupt?)")
    try:
        return load_object(data)
    except RuntimeError as error:
        raise AotFormatError(f"AOT module: cannot load {what}: {error}") from None


_X86_64_V2 = ("cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3")
_X86_64_V3 = (
    *_X86_64_V2,
    "avx",
    "avx2",
    "bmi",
    "bmi2",
    "f16c",
    "fma",
    "lzcnt",
    "movbe",
    "xsave",
)
_X86_64_V4 = (*_X86_64_V3, "avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl")
CPU_LEVEL_FEATURES: dict[str, tuple[str, ...]] = {
    "x86-64": (),
    "x86-64-v2": _X86_64_V2,
    "x86-64-v3": _X86_64_V3,
    "x86-64-v4": _X86_64_V4,
}
"""What the x86-64 psABI levels imply (a CPU model name such as `skylake` is not checked)."""


def check_host(metadata: ModuleMetadata) -> None:
    """Refuse a module built for a CPU this host is not (features it lacks)."""
    from taichi_xdsl.targets.llvm.jit import host_target

    host = host_target()
    caps = metadata.required_caps
    triple = str(caps.get("cpu.triple", ""))
    if triple.split("-", 1)[0] != host.triple.split("-", 1)[0]:
        raise AotFormatError(f"AOT module built for {triple}, this host is {host.triple}")
    have = {f[1:] for f in host.features.split(",") if f.startswith("+")}
    need = list(CPU_LEVEL_FEATURES.get(str(caps.get("cpu.name", "")), ()))
    need += [
        f[1:] for f in str(caps.get("cpu.features", "")).split(",") if f.startswith("+")
    ]
    missing = [f for f in need if f not in have]
    if missing:
        raise AotFormatError(
            f"AOT module needs CPU features this host lacks: {', '.join(missing)}"
        )


class CpuAotModule(AotModuleBase):
    """A loaded CPU module: `kernels`, `fields` (numpy views), `graphs`, `root`."""

    def __init__(
        self,
        files: Mapping[str, bytes],
        metadata: ModuleMetadata,
        graphs: list[GraphAttributes],
        *,
        num_threads: int | None = None,
    ):
        from taichi_xdsl.targets.llvm import pool
        from taichi_xdsl.targets.llvm.runtime import (
            Bound,
            Kernel,
            LaunchPlan,
            NdarrayArg,
            ScalarArg,
            TaskSpec,
        )

        check_host(metadata)
        self.metadata = metadata
        if POOL_OBJECT in files:
            pool.install_native_pool(_load_object(files[POOL_OBJECT], POOL_OBJECT))
        size = metadata.root_buffer_size
        storage = np.zeros(size + FIELD_ALIGN, dtype=np.uint8)
        start = (-storage.ctypes.data) % FIELD_ALIGN
        self._storage = storage
        self.root: np.ndarray | None = storage[start : start + size] if size else None
        self.fields: dict[str, np.ndarray] = {}
        for f in metadata.fields:
            dtype = np.dtype(fmt.NUMPY_DTYPE[f.dtype])
            nbytes = int(np.prod(f.shape, dtype=np.int64)) * dtype.itemsize
            assert self.root is not None
            view = self.root[f.offset : f.offset + nbytes].view(dtype).reshape(f.shape)
            self.fields[f.name] = view
        self.kernels: dict[str, AotKernel] = {}
        self._objects: list[Any] = []
        for k in metadata.kernels:
            if k.object_file is None:
                raise AotFormatError(f"kernel '{k.name}': no object file in metadata.json")
            jit_module = _load_object(files[k.object_file], k.object_file)
            self._objects.append(jit_module)
            args = tuple(
                ScalarArg(dtype) if rank is None else NdarrayArg(dtype, rank)
                for a in k.args
                for dtype, rank in a.launch_args()
            )
            tasks = []
            for t in k.tasks:
                if t.task_type == "serial":
                    tasks.append(TaskSpec(t.name, "serial"))
                elif (
                    t.task_type == "range_for" and t.begin is not None and t.end is not None
                ):
                    begin = Bound(t.begin.value, t.begin.gtmp_offset, t.begin.dtype)
                    end = Bound(t.end.value, t.end.gtmp_offset, t.end.dtype)
                    tasks.append(
                        TaskSpec(
                            t.name,
                            "range_for",
                            begin,
                            end,
                            t.block_dim,
                            serial_symbol=t.serial_form,
                        )
                    )
                else:
                    raise AotFormatError(
                        f"kernel '{k.name}': task {t.name} ({t.task_type}) cannot run on the CPU"
                    )
            plan = LaunchPlan(
                name=k.name,
                args=args,
                returns=tuple(fmt.ir_dtype(d) for d in k.rets),
                tasks=tuple(tasks),
                gtmp_bytes=k.gtmp_bytes,
                thread_local_bytes=k.thread_local_bytes,
            )
            try:
                for task in tasks:  # the runtime looks a serial form up when it runs it
                    if task.serial_symbol is not None:
                        jit_module.address(task.serial_symbol)
                launcher = Kernel(
                    plan, jit_module.address, keepalive=jit_module, num_threads=num_threads
                )
            except KeyError as error:
                raise AotFormatError(
                    f"kernel '{k.name}': {k.object_file} lacks a task: {error}"
                ) from None
            self.kernels[k.name] = AotKernel(k, launcher.launch, self._get_root)
        self.graphs = {g.name: AotGraph(g, self.kernels) for g in graphs}
