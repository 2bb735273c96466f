"""
What the offline cache's keys (utils/cache.py) are made of, the same for every backend;
a backend says only which of the compiler's sources and tools its code depends on
(targets/llvm/cache.py, targets/vulkan/cache.py).

A kernel instance has two keys:

- `kernel_key`: the SHA-256 of `ir` (the module the frontend built), `arch` and `caps`
  (what the code is made for), `config` (`pipeline_config`: the pipeline as run and the
  backend's options) and `compiler` (`compiler_version`: the versions of taichi_xdsl,
  xDSL and the backend's tools, and a hash of the contents of the compiler's sources);
- `source_kernel_key`, computed before the frontend runs and without importing xDSL:
  the frontend's `parts` (frontends/python/lang/source_key.py) with the same arch, caps
  and config and `light_compiler_version` (the same versions, and the size and mtime of
  the compiler's and the frontend's sources). The cache's index links it to the entry of
  the IR key, so that a warm process neither builds the module nor imports xDSL.

    scheme = KeyScheme(("dialects", "lowering", "targets/llvm", "utils"), tools=llvm_tools)
    key = scheme.kernel_key(str(module), arch=..., caps=..., config=...)
    link = scheme.source_kernel_key(parts, arch=..., caps=..., config=...)

A scheme's `tags` (Vulkan: `spirv=1`) are parts of both keys. Nothing here imports xDSL.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from taichi_xdsl.utils.cache import cache_key

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
FRONTEND_SOURCE_DIRS = ("frontends",)


def fingerprint_sources(root: Path, dirs: tuple[str, ...]) -> str:
    """SHA-256 of the Python sources under `root`/`dirs` (relative paths and contents)."""
    digest = hashlib.sha256()
    for name in dirs:
        for path in sorted((root / name).rglob("*.py")):
            data = path.read_bytes()
            relative = path.relative_to(root).as_posix().encode()
            digest.update(b"%d:%s:%d:" % (len(relative), relative, len(data)))
            digest.update(data)
    return digest.hexdigest()


def stat_fingerprint(root: Path, dirs: tuple[str, ...]) -> str:
    """SHA-256 of the relative path, size and mtime of the Python sources under
    `root`/`dirs`: cheaper than reading them (a few stat calls), and any edit changes it."""
    digest = hashlib.sha256()
    for name in dirs:
        for path in sorted((root / name).rglob("*.py")):
            info = path.stat()
            relative = path.relative_to(root).as_posix()
            digest.update(f"{relative}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


def installed_xdsl_version() -> str:
    """xDSL's installed version from its dist-info folder's name, found without importing
    xDSL (what a source key names: importing xDSL is what a warm hit avoids)."""
    import importlib.util

    spec = importlib.util.find_spec("xdsl")  # finds the package, does not run it
    if spec is None or spec.origin is None:
        return "?"
    site = Path(spec.origin).resolve().parents[1]
    found = sorted(site.glob("xdsl-*.dist-info"))
    return ",".join(p.name for p in found) or spec.origin


def pipeline_config(pipeline: Any, *, edited: bool, options: str = "") -> str:
    """
    The `config` part of a backend's keys: its `options` (`debug=False;...`), then each
    stage of `pipeline` as run (`offload=ti-lower-sparse,...`), and for an `edited`
    pipeline the fingerprint of the plugin passes it names (registry.plugin_fingerprint),
    so that editing a plugin's code never brings back what its old version compiled.
    """
    config = options + ";".join(f"{stage.name}={stage.spec}" for stage in pipeline.stages)
    if edited:
        from taichi_xdsl.utils import registry
        from taichi_xdsl.utils.pipelines import pass_base_name

        names = sorted({pass_base_name(q) for q in pipeline.passes})
        config += f";plugins={registry.plugin_fingerprint(names)}"
    return config


@dataclass(frozen=True)
class KeyScheme:
    """
    The keys of one backend: `source_dirs` are the compiler's sources its code depends
    on (relative to the package), `tools` gives the versions of its own tools
    (`llvmlite=...;llvm=...;`, "" for none), `tags` extra parts of every key.
    """

    source_dirs: tuple[str, ...]
    tools: Callable[[], str] = lambda: ""
    tags: dict[str, object] = field(default_factory=dict)

    @cached_property
    def compiler_version(self) -> str:
        """The versions behind an IR key and the hash of the compiler sources' contents
        (once a process: none of them changes while it runs)."""
        return self._versions(fingerprint_sources(PACKAGE_ROOT, self.source_dirs))

    @cached_property
    def light_compiler_version(self) -> str:
        """The versions behind a source key, without importing xDSL: those of
        `compiler_version`, and `stat_fingerprint` of the compiler's and the frontend's
        sources."""
        dirs = (*self.source_dirs, *FRONTEND_SOURCE_DIRS)
        return self._versions(stat_fingerprint(PACKAGE_ROOT, dirs))

    def _versions(self, sources: str) -> str:
        import taichi_xdsl

        return (
            f"taichi_xdsl={taichi_xdsl.__xdsl_version__};xdsl={installed_xdsl_version()};"
            f"{self.tools()}sources={sources}"
        )

    def kernel_key(self, ir: str, *, arch: str, caps: str, config: str) -> str:
        """The cache key of one kernel instance (see the module docstring)."""
        return cache_key(
            ir=ir,
            arch=arch,
            caps=caps,
            config=config,
            compiler=self.compiler_version,
            **self.tags,
        )

    def source_kernel_key(
        self, parts: dict[str, str], *, arch: str, caps: str, config: str
    ) -> str:
        """The first-level key of a kernel instance: the frontend's `parts` with the
        arch, caps, config and `light_compiler_version`; a link to the IR key's entry."""
        return cache_key(
            **{f"src_{name}": value for name, value in parts.items()},
            arch=arch,
            caps=caps,
            config=config,
            compiler=self.light_compiler_version,
            level="source",
            **self.tags,
        )
