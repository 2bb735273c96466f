"""
Texture parameters inside kernels (`ti.types.texture` / `ti.types.rw_texture`, defined
in lang/texture.py): `tex.fetch(index, lod)`, `tex.sample_lod(uv, lod)`, `rw.load(index)`,
`rw.store(index, value)`, `rw.shape`, each one `taichi.texture_*` op.

    c = src.fetch(ti.Vector([i, j]), 0)  ->  %r, %g, %b, %a = taichi.texture_fetch %t[%i, %j] lod %l
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiTypeError

from ..lang import dtypes
from ..lang.texture import TextureType
from .emitter import Value
from .vectors import KernelMethod, Vec

if TYPE_CHECKING:
    from .visitor import KernelCodegen
class TextureHandle:
    """A texture parameter inside a kernel: `fetch`, `sample_lod` (sampled), `load`,
    `store`, `shape` (rw), and `for i, j in rw_tex` (the code generator's loops)."""

    def __init__(self, cg: KernelCodegen, ssa: Any, ann: TextureType):
        self.cg = cg
        self.ssa = ssa
        self.ann = ann
        self.ndim = ann.num_dimensions
        names = ("load", "store") if ann.rw else ("fetch", "sample_lod")
        for name in names:
            setattr(self, name, KernelMethod(name, getattr(self, f"_{name}")))

    def __getattr__(self, name: str) -> Any:
        kind = "rw_texture" if self.ann.rw else "texture"
        raise TaichiTypeError(f"a ti.types.{kind} has no '{name}' in a kernel")

    @property
    def shape(self) -> tuple[Value, ...]:
        """The extents, read at run time (`taichi.texture_dim`)."""
        return tuple(
            Value(
                self.cg.em.emit(taichi.TextureDimOp(self.ssa, axis)).results[0], dtypes.i32
            )
            for axis in range(self.ndim)
        )

    # -- methods ---------------------------------------------------------------------------

    def _components(self, x: Any, n: int, dt: Any, what: str, node: Any) -> list[Any]:
        items = (
            x.elems
            if isinstance(x, Vec)
            else list(x)
            if isinstance(x, list | tuple)
            else [x]
        )
        if len(items) != n:
            raise self.cg.error(
                TaichiTypeError, node, f"{what} needs {n} component(s), got {len(items)}"
            )
        return [self.cg.em.value(item, dt).ssa for item in items]

    def _vec4(self, op: Any) -> Any:
        self.cg.em.emit(op)
        return Vec((4,), [Value(r, dtypes.f32) for r in op.results])

    def _args(
        self, args: list[Any], kwargs: dict[str, Any], names: tuple[str, ...], node: Any
    ) -> list[Any]:
        values = list(args) + [kwargs.pop(n) for n in names[len(args) :] if n in kwargs]
        if kwargs or len(values) != len(names):
            raise self.cg.error(
                TaichiTypeError, node, f"expected arguments ({', '.join(names)})"
            )
        return values

    def _fetch(self, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
        index, lod = self._args(args, kwargs, ("index", "lod"), node)
        coords = self._components(index, self.ndim, dtypes.i32, "fetch's index", node)
        lod_value = self.cg.em.value(lod, dtypes.i32).ssa
        return self._vec4(taichi.TextureFetchOp(self.ssa, coords, lod_value))

    def _sample_lod(self, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
        uv, lod = self._args(args, kwargs, ("uv", "lod"), node)
        coords = self._components(uv, self.ndim, dtypes.f32, "sample_lod's uv", node)
        lod_value = self.cg.em.value(lod, dtypes.f32).ssa
        return self._vec4(taichi.TextureSampleLodOp(self.ssa, coords, lod_value))

    def _load(self, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
        (index,) = self._args(args, kwargs, ("index",), node)
        coords = self._components(index, self.ndim, dtypes.i32, "load's index", node)
        return self._vec4(taichi.TextureLoadOp(self.ssa, coords))

    def _store(self, args: list[Any], kwargs: dict[str, Any], node: Any) -> None:
        index, value = self._args(args, kwargs, ("index", "value"), node)
        coords = self._components(index, self.ndim, dtypes.i32, "store's index", node)
        channels = self._components(value, 4, dtypes.f32, "store's value", node)
        self.cg.em.emit(taichi.TextureStoreOp(self.ssa, coords, channels))
