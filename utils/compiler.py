"""
`ti.compiler`: the compiler, opened up for researchers.

    ti.compiler.pipeline(ti.cpu)          # the Pipeline the CPU JIT runs (stages, passes)
    ti.compiler.pipeline(ti.cpu).spec     # ... as a pass-spec string for `ti-opt -p`
    ti.compiler.pipelines()               # every arch's pipeline, by arch name
    ti.compiler.register_pass(MyPass)     # usable by name in ti.init(passes=...)
    ti.compiler.load_pass_plugin("my_pass.py")  # register every ModulePass of a file
    ti.compiler.print_ir_text(module)     # MLIR text that ti-opt reads back

Importing this module loads no xDSL.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from taichi_xdsl.utils.pipelines import (
    PIPELINES_BY_ARCH,
    Pipeline,
    PipelineEdits,
    Stage,
    pipeline,
)
from taichi_xdsl.utils.registry import register_pass

if TYPE_CHECKING:
    from xdsl.passes import ModulePass


def pipelines() -> dict[str, Pipeline]:
    """Every arch's pipeline, by arch name (`cpu`, `vulkan`)."""
    return dict(PIPELINES_BY_ARCH)


def load_pass_plugin(path: str | Path) -> dict[str, type[ModulePass]]:
    """Import a Python file and register every ModulePass subclass it defines (as
    `ti-opt --pass-plugin` does); returns them by name."""
    from taichi_xdsl.utils.registry import load_pass_plugin as load

    passes = load(path)
    for pass_type in passes.values():
        register_pass(pass_type)
    return passes


def print_ir_text(module: Any, *, locations: bool = False) -> str:
    """`module` as MLIR text that `ti-opt` parses back; with `locations`, each op's
    source position as `loc(...)`."""
    from taichi_xdsl.utils.pass_runner import print_ir_text as text

    return text(module, locations=locations)


__all__ = [
    "Pipeline",
    "PipelineEdits",
    "Stage",
    "load_pass_plugin",
    "pipeline",
    "pipelines",
    "print_ir_text",
    "register_pass",
]
