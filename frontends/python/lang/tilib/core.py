"""`ti._lib.core`: which backends this build of taichi-xdsl has, and the exceptions."""

from __future__ import annotations

from taichi_xdsl.utils.errors import (  # noqa: F401  (Taichi's names for them)
    TaichiAssertionError,
    TaichiCompilationError,
    TaichiIndexError,
    TaichiRuntimeError,
    TaichiSyntaxError,
    TaichiTypeError,
)

GGUI_AVAILABLE = True
"""ti.ui (GGUI's API) works on every arch: in a window where a display exists, else
headless (frontends/python/lang/gui/)."""


def with_vulkan() -> bool:
    """Whether a usable Vulkan device is present (ti.vulkan runs)."""
    from taichi_xdsl.targets.vulkan import vulkan_available

    return vulkan_available()[0]


def with_cuda() -> bool:
    """taichi-xdsl has no CUDA backend."""
    return False


def with_metal() -> bool:
    """taichi-xdsl has no Metal backend."""
    return False


def with_opengl() -> bool:
    """taichi-xdsl has no OpenGL backend."""
    return False


def with_amdgpu() -> bool:
    """taichi-xdsl has no AMDGPU backend."""
    return False


def with_dx11() -> bool:
    """taichi-xdsl has no DirectX 11 backend."""
    return False


def with_dx12() -> bool:
    """taichi-xdsl has no DirectX 12 backend."""
    return False
