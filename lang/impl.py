"""
`ti.lang.impl`: the current configuration (`current_cfg()`) and a small view of the
running program (`get_runtime()`): its default types, how many kernel instances it
compiled, materialize().
"""

from __future__ import annotations

from typing import Any

from ..frontends.python.lang import dtypes as _dtypes
from ..frontends.python.lang import program as _program


def current_cfg() -> _program.Config:
    """The configuration of the current program (ti.init's options)."""
    return _program.cfg()


class _ProgramView:
    def config(self) -> _program.Config:
        return _program.cfg()


class Runtime:
    """The running program as Taichi's `impl.get_runtime()` shows it."""

    prog = _ProgramView()

    @property
    def default_fp(self) -> _dtypes.DataType:
        return _program.cfg().default_fp

    @property
    def default_ip(self) -> _dtypes.DataType:
        return _program.cfg().default_ip

    def set_default_fp(self, dt: Any) -> None:
        cooked = _dtypes.cook_dtype(dt, _dtypes.i32, _dtypes.f32)
        if not cooked.is_float:
            raise TypeError(f"default_fp must be a float type, got {cooked}")
        _program.cfg().default_fp = cooked

    def set_default_ip(self, dt: Any) -> None:
        cooked = _dtypes.cook_dtype(dt, _dtypes.i32, _dtypes.f32)
        if not cooked.is_int:
            raise TypeError(f"default_ip must be an integer type, got {cooked}")
        _program.cfg().default_ip = cooked

    def materialize(self) -> None:
        """Allocate the fields declared so far."""
        _program.get_program().materialize()

    def get_num_compiled_functions(self) -> int:
        """How many kernel instances the current program compiled."""
        return _program.get_program().compiled_kernels


ti_float = float
"""`impl.ti_float(x)`: `float(x)` (in a kernel: x cast to the default float type)."""
ti_int = int
"""`impl.ti_int(x)`: `int(x)` (in a kernel: x cast to the default integer type)."""


def get_runtime() -> Runtime:
    """The running program (see Runtime)."""
    return Runtime()


__all__ = ["current_cfg", "get_runtime", "ti_float", "ti_int"]
