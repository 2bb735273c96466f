"""
`ti.aot`: AOT modules. Loading needs no compiler; building does.

    m = ti.aot.Module(ti.cpu)                 # frontends/python/lang/aot.py (loaded lazily)
    m.add_kernel(saxpy); m.archive("saxpy.tcm")

    mod = ti.aot.load("saxpy.tcm")            # here: numpy + llvmlite.binding only
    mod.get_kernel("saxpy")(2.0, x, y)

    rt = ti.aot.GfxRuntime140.from_module("saxpy.tcm")
    rt.to_metadata_json(); rt.to_graphs_json()

This module lives in targets/ (not the frontend) so that `import taichi_xdsl` +
`ti.aot.load` imports no frontend, no lowering and no xDSL; the module builder
(`Module`, `export_as`, `start_recording`, ...) is imported from the frontend on first use.
"""

from __future__ import annotations

import json
import os
from importlib import import_module
from typing import TYPE_CHECKING, Any

from taichi_xdsl.targets import aot_format as fmt
from taichi_xdsl.targets.aot_format import AotFormatError, ArgKind

if TYPE_CHECKING:  # what static tools see; at run time loaded on first use
    from taichi_xdsl.frontends.python.lang.aot import (
        KernelTemplate,
        Module,
        Recording,
        export,
        export_as,
        start_recording,
        stop_recording,
    )

__all__ = [
    "AotFormatError",
    "ArgKind",
    "GfxRuntime140",
    "KernelTemplate",
    "Module",
    "Recording",
    "export",
    "export_as",
    "load",
    "start_recording",
    "stop_recording",
]

_BUILDER = "taichi_xdsl.frontends.python.lang.aot"
_LAZY = {
    "Module",
    "KernelTemplate",
    "export",
    "export_as",
    "start_recording",
    "stop_recording",
    "Recording",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_BUILDER), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ti.aot' has no attribute '{name}'")


class GfxRuntime140:
    """
    A module's metadata.json and graphs.json, parsed and checked (Taichi 1.7's
    `ti.aot.GfxRuntime140`): `to_metadata_json()` / `to_graphs_json()` give them back,
    equal to what was read (kernels with return values and texture arguments included).
    """

    def __init__(self, metadata_json: Any, graphs_json: Any):
        self.metadata = fmt.ModuleMetadata.from_json(metadata_json)
        self.graphs = fmt.parse_graphs(graphs_json)
        kernels = {k.name for k in self.metadata.kernels}
        for g in self.graphs:
            for kernel_name, _ in g.dispatches:
                if kernel_name not in kernels:
                    raise AotFormatError(
                        f"graphs.json: graph '{g.name}' dispatches unknown kernel "
                        f"'{kernel_name}'"
                    )

    @staticmethod
    def from_module(module_path: str | os.PathLike[str]) -> GfxRuntime140:
        files = fmt.read_module_files(module_path)
        return GfxRuntime140(
            json.loads(files[fmt.METADATA_FILE]), json.loads(files[fmt.GRAPHS_FILE])
        )

    def to_metadata_json(self) -> Any:
        return self.metadata.to_json()

    def to_graphs_json(self) -> Any:
        return fmt.graphs_json(self.graphs)


def load(
    path: str | os.PathLike[str],
    *,
    num_threads: int | None = None,
    device: int | str | None = None,
) -> Any:
    """
    Load a saved module (a folder or a .tcm) to run: `.kernels` / `get_kernel(name)`,
    `.graphs` / `get_graph(name)`, `.fields` (numpy views of its root buffer),
    `get_field` / `set_field`. `num_threads`: CPU worker threads; `device`: which Vulkan
    device (as VulkanRuntime takes it).

    Raises:
        AotFormatError: the module is corrupt, truncated, foreign, or for another arch.
    """
    files = fmt.read_module_files(path)
    try:
        runtime = GfxRuntime140(
            json.loads(files[fmt.METADATA_FILE]), json.loads(files[fmt.GRAPHS_FILE])
        )
    except AotFormatError as error:
        raise AotFormatError(f"AOT module '{path}': {error}") from None
    try:
        return _load_checked(path, files, runtime, num_threads, device)
    except AotFormatError as error:
        if f"'{path}'" in str(error):
            raise
        raise AotFormatError(f"AOT module '{path}': {error}") from None


def _load_checked(
    path: Any, files: dict[str, bytes], runtime: GfxRuntime140, num_threads: Any, device: Any
) -> Any:
    arch = runtime.metadata.arch
    if arch == "x64":
        from taichi_xdsl.targets.llvm.aot_loader import CpuAotModule

        return CpuAotModule(
            files, runtime.metadata, runtime.graphs, num_threads=num_threads
        )
    if arch == "vulkan":
        from taichi_xdsl.targets.vulkan.aot_loader import VulkanAotModule

        return VulkanAotModule(files, runtime.metadata, runtime.graphs, device=device)
    raise AotFormatError(f"AOT module '{path}': unknown arch '{arch}' (x64, vulkan)")
