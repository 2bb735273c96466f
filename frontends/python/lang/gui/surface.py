"""
`Surface`: the image a GUI draws into — a `ti.ndarray(ti.u32, (width, height))` of
0xRRGGBB pixels, y up — and the Python side of each primitive: it turns the user's
arguments (NumPy arrays, fields, ndarrays, lists, scalars) into the flat arrays the
`raster` kernels take, then launches the kernel. Shared by ti.GUI and ti.ui's Canvas.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

import numpy as np

import taichi_xdsl as ti

from .. import program as _program
from . import font, raster


_TI_DTYPES = {np.dtype(np.float32): ti.f32, np.dtype(np.uint32): ti.u32, np.dtype(np.uint8): ti.u8}
"""The Taichi types of the primitives' inputs (Surface._on_device)."""


def to_numpy(x: Any) -> np.ndarray:
    """A NumPy view of a field, ndarray, NumPy array, list or tuple."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "to_numpy"):
        return x.to_numpy()
    return np.asarray(x)


def rgb_to_hex(c: Any) -> Any:
    """0xRRGGBB of an (r, g, b) in [0, 1]; components given as arrays give an array of
    colors (Taichi's `ti.rgb_to_hex`)."""
    r, g, b = (
        (np.clip(np.asarray(v, dtype=np.float64), 0.0, 1.0) * 255).astype(np.int64)
        for v in list(c)[:3]
    )
    color = (r << 16) | (g << 8) | b
    return int(color) if color.ndim == 0 else color


def hex_to_rgb(color: int) -> tuple[float, float, float]:
    """(r, g, b) in [0, 1] of 0xRRGGBB."""
    return ((color >> 16) & 0xFF) / 255, ((color >> 8) & 0xFF) / 255, (color & 0xFF) / 255


def colors_u32(rgb: np.ndarray) -> np.ndarray:
    """(n, 3+) float colours in [0, 1] -> (n,) uint32 0xRRGGBB (truncated, as Taichi)."""
    c = (np.clip(np.asarray(rgb, np.float32)[:, :3], 0.0, 1.0) * 255.0).astype(np.uint32)
    return (c[:, 0] << 16) | (c[:, 1] << 8) | c[:, 2]


def _points(x: Any, name: str) -> np.ndarray:
    a = to_numpy(x)
    a = np.asarray(a, np.float32)
    if a.ndim == 1 and a.shape[0] == 2:
        a = a[None]
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.ndim != 2 or a.shape[1] < 2:
        raise ValueError(f"{name}: positions of shape (n, 2), got {a.shape}")
    return np.ascontiguousarray(a[:, :2])


def _per_item(value: Any, n: int, dtype: Any, name: str) -> np.ndarray:
    """A scalar or an n-array as an n-array of `dtype`."""
    if isinstance(value, Number) or np.ndim(value) == 0:
        return np.full(n, value, dtype)
    a = to_numpy(value)
    if a.shape[0] != n:
        raise ValueError(f"{name}: {n} values expected, got shape {a.shape}")
    return np.ascontiguousarray(a.reshape(n).astype(dtype))


class Surface:
    """A (width, height) canvas of packed pixels on the program's arch.

    A fill is kept pending until something reads or draws over the canvas (`pixels`):
    a frame that starts with set_image (mpm88's loop: show() clears, then set_image
    covers every pixel) never runs it. On Vulkan the primitives' inputs go through
    device-resident ndarrays of ours (`_on_device`): a NumPy array given to a kernel
    would be copied back after the launch, and the launch would wait for it."""

    def __init__(self, res: tuple[int, int]):
        self.res = (int(res[0]), int(res[1]))
        self._pixels = ti.ndarray(ti.u32, self.res)
        self._pending_fill: int | None = None
        self._inputs: dict[str, Any] = {}  # _on_device: name -> ti.ndarray
        self._depth = None
        self._rows = None  # rows(): the (height, width) buffer a window is handed
        self._rows_host: np.ndarray | None = None  # rows() on Vulkan
        self.depth_range = (0.1, 1000.0)  # the last 3-D render's (z_near, z_far)

    @property
    def pixels(self):
        """The canvas ndarray, (width, height) u32, with any pending fill done."""
        if self._pending_fill is not None:  # on Vulkan a device fill command (ndarray.py)
            self._pixels.fill(self._pending_fill)
            self._pending_fill = None
        return self._pixels

    def _on_device(self, name: str, a: np.ndarray, dtype: Any) -> Any:
        """`a` as a kernel argument of NumPy `dtype`: on the CPU a contiguous array of
        it (kernels read NumPy arrays in place); on Vulkan a device-resident ndarray of
        ours (kept per `name`, reused while shape and dtype stay) that `a` is converted
        into as it is copied in, and which a launch uploads and never reads back."""
        if self.on_cpu():
            return np.ascontiguousarray(a, dtype)
        held = self._inputs.get(name)
        if held is None or held.arr.shape != a.shape or held.arr.dtype != dtype:
            held = ti.ndarray(_TI_DTYPES[np.dtype(dtype)], a.shape)
            self._inputs[name] = held
        held.from_numpy(np.ascontiguousarray(a, dtype))
        return held

    def depth_buffer(self):
        """The i32 depth buffer of 3-D renders (render3d), allocated on first use."""
        if self._depth is None:
            self._depth = ti.ndarray(ti.i32, self.res)
        return self._depth

    def depth_as_numpy(self) -> np.ndarray:
        """The last render's depth, (w, h) float32: 0 at z_near, 1 at z_far or empty."""
        near, far = self.depth_range
        if self._depth is None:
            return np.ones(self.res, np.float32)
        q = self._depth.to_numpy().astype(np.float64)
        dist = q * far / 2**30
        out = np.clip((dist - near) / (far - near), 0.0, 1.0)
        out[q >= 2**31 - 1] = 1.0
        return out.astype(np.float32)

    @staticmethod
    def on_cpu() -> bool:
        return _program.get_program().config.arch is not _program.vulkan

    def bands(self, most_pixels: float | None = None, budget: int = 32768) -> int:
        """Row bands per primitive (see raster.py): 1 on the CPU; on Vulkan enough that
        a thread visits at most `budget` pixels (lavapipe ends a shader invocation's
        loops after 65,535 steps in all, counting every loop's iterations).
        `most_pixels`: the most pixels one primitive's loops visit (its bounding box);
        None: the whole canvas. At most `budget` of them: one band. Else bands of
        ceil(h / bands) rows each, which a full-width primitive visits within budget
        (every band thread of a primitive but the few on it finds an empty range)."""
        if self.on_cpu():
            return 1
        w, h = self.res
        if most_pixels is not None and most_pixels <= budget:
            return 1
        return max(1, -(-(w * h) // budget))

    # -- whole image ------------------------------------------------------------
    def fill(self, color: int) -> None:
        """Fill with 0xRRGGBB `color` (done when the canvas is next used)."""
        self._pending_fill = int(color) & 0xFFFFFF

    def set_image(self, img: Any) -> None:
        """img: (w, h), (w, h, 1..4) or a vector field/ndarray of 2..4 channels; floats
        in [0, 1] or unsigned integers of their full range. Must match the resolution."""
        a = to_numpy(img)
        if a.ndim == 2:
            a = a[:, :, None]
        if a.ndim != 3 or a.shape[2] not in (1, 2, 3, 4):
            raise ValueError(
                f"set_image: an image of shape (w, h) or (w, h, 1..4), got {a.shape}"
            )
        if tuple(a.shape[:2]) != self.res:
            raise ValueError(
                f"set_image: image resolution {tuple(a.shape[:2])} does not match the GUI "
                f"resolution {self.res}"
            )
        if a.dtype.kind not in "uf":
            raise ValueError(f"set_image: data type {a.dtype} not supported")
        self._pending_fill = None  # every pixel is overwritten
        dtype = np.uint8 if a.dtype == np.uint8 else np.float32
        if a.dtype.kind == "u" and dtype is np.float32:
            a = a.astype(np.float32) * (1.0 / np.iinfo(a.dtype).max)
        if not self.on_cpu() and self._device_has_int64():
            channels, size = a.shape[2], np.dtype(dtype).itemsize
            whole = (self.res[0] * self.res[1]) % raster.words_group(channels, size) == 0
            raster.image_words(
                self._pixels, self._packed_words(a, dtype), channels, size, self.res[1], whole
            )
        elif dtype is np.uint8:
            raster.image_u8(self._pixels, self._on_device("image", a, np.uint8))
        else:
            raster.image_f32(self._pixels, self._on_device("image", a, np.float32))

    @staticmethod
    def _device_has_int64() -> bool:
        return bool(_program.get_program().backend.caps.get("spirv_has_int64"))

    def _packed_words(self, a: np.ndarray, dtype: Any) -> Any:
        """A u64 ndarray of ours holding `a`'s elements, row-major, as `dtype` (converted
        while copied in; the last word zero-padded), for raster.image_words."""
        n = a.size
        nbytes = n * np.dtype(dtype).itemsize
        words = -(-nbytes // 8)
        held = self._inputs.get("image words")
        if held is None or held.arr.shape != (words,):
            held = self._inputs["image words"] = ti.ndarray(ti.u64, (words,))
        if a.dtype == dtype and a.flags.c_contiguous and nbytes % 8 == 0:
            held.from_numpy(a.reshape(-1).view(np.uint64))  # no copy on the host
        else:
            held._overwritten().view(dtype)[:n].reshape(a.shape)[...] = a
        return held

    # -- primitives -------------------------------------------------------------
    def circles(self, pos: Any, radius: Any, color: Any) -> None:
        p = _points(pos, "circles")
        n = p.shape[0]
        if n == 0:
            return
        r = _per_item(radius, n, np.float32, "circles radius")
        side = 2.0 * float(np.max(np.abs(r))) + 3.0  # ceil(c - r) .. floor(c + r), and more
        raster.circles(
            self.pixels,
            self._on_device("circles pos", p, np.float32),
            self._on_device("circles radius", r, np.float32),
            self._on_device("circles color", _per_item(color, n, np.uint32, "circles color"), np.uint32),
            self.bands(min(side, self.res[0]) * min(side, self.res[1])),
        )

    def lines(self, begin: Any, end: Any, radius: Any, color: Any, color_end: Any = None) -> None:
        """Segments begin[k] -> end[k]; colours 0xRRGGBB, shading to color_end if given."""
        a = _points(begin, "lines")
        b = _points(end, "lines")
        if a.shape != b.shape:
            raise ValueError(f"lines: begin {a.shape} and end {b.shape} differ")
        n = a.shape[0]
        if n == 0:
            return
        c0 = _per_item(color, n, np.uint32, "lines color")
        c1 = c0 if color_end is None else _per_item(color_end, n, np.uint32, "lines color")
        r = _per_item(radius, n, np.float32, "lines radius")
        # the loops: along the major axis |d| + 2r + 3 pixels, across it 4r + 5
        w, h = self.res
        major = np.maximum(np.abs(b[:, 0] - a[:, 0]) * w, np.abs(b[:, 1] - a[:, 1]) * h)
        along = np.minimum(major + 2.0 * np.abs(r) + 3.0, max(w, h))
        across = np.minimum(4.0 * np.abs(r) + 5.0, max(w, h))
        on = self._on_device
        raster.lines(
            self.pixels, on("lines begin", a, np.float32), on("lines end", b, np.float32),
            on("lines radius", r, np.float32), on("lines color", c0, np.uint32),
            on("lines color_end", c1, np.uint32), self.bands(float(np.max(along * across))),
        )  # fmt: skip

    def triangles(self, a: Any, b: Any, c: Any, color: Any, corner_colors: Any = None) -> None:
        """Filled triangles; one colour each, or corner_colors = (ca, cb, cc) to shade."""
        pa, pb, pc = _points(a, "triangles"), _points(b, "triangles"), _points(c, "triangles")
        n = pa.shape[0]
        if n == 0:
            return
        if corner_colors is None:
            ca = cb = cc = _per_item(color, n, np.uint32, "triangles color")
        else:
            ca, cb, cc = (_per_item(k, n, np.uint32, "triangles color") for k in corner_colors)
        w, h = self.res
        xs = np.stack([pa[:, 0], pb[:, 0], pc[:, 0]]) * w
        ys = np.stack([pa[:, 1], pb[:, 1], pc[:, 1]]) * h
        box = np.minimum(np.ptp(xs, axis=0) + 2.0, w) * np.minimum(np.ptp(ys, axis=0) + 2.0, h)
        on = self._on_device
        raster.triangles(
            self.pixels, on("triangles a", pa, np.float32), on("triangles b", pb, np.float32),
            on("triangles c", pc, np.float32), on("triangles color_a", ca, np.uint32),
            on("triangles color_b", cb, np.uint32), on("triangles color_c", cc, np.uint32),
            self.bands(float(np.max(box))),
        )  # fmt: skip

    def text(self, content: str, left: float, top: float, size: float, color: int) -> None:
        """Text at (left, top) in pixels, y up, `size` Taichi's font_size (the capitals'
        top lies 0.2 * size below `top`); lines split at newlines."""
        y = float(top) - font.TOP_GAP * float(size)
        for line in content.split("\n"):
            mask, above, line_height = font.line_mask(line, float(size))
            if line and mask.size:
                raster.coverage(
                    self.pixels,
                    mask,
                    round(left + font.LEFT_GAP * float(size)),
                    round(y + above),
                    int(color) & 0xFFFFFF,
                )
            y -= line_height

    # -- read back --------------------------------------------------------------
    def read(self) -> np.ndarray:
        """The pixels, (width, height) uint32 0xRRGGBB, y up."""
        return self.pixels.to_numpy()

    def rows(self) -> np.ndarray:
        """The pixels as a window's framebuffer holds them: (height, width) uint32
        0xRRGGBB, top row first; valid until the next call. On the CPU a kernel
        transposes the canvas into a buffer of ours (raster.rows_top_first: 0.3 ms at
        512x512, NumPy's strided copy 0.6 ms); on Vulkan the canvas is read back and
        NumPy transposes it (the kernel's few long threads take 10 ms on lavapipe)."""
        if not self.on_cpu():  # into a buffer of ours, from the ndarray's host copy
            if self._rows_host is None:
                self._rows_host = np.empty((self.res[1], self.res[0]), np.uint32)
            np.copyto(self._rows_host, self.pixels._read().T[::-1])
            return self._rows_host
        if self._rows is None:
            self._rows = ti.ndarray(ti.u32, (self.res[1], self.res[0]))
        raster.rows_top_first(self.pixels, self._rows)
        return self._rows._read()

    def rgb8(self, pixels: np.ndarray | None = None) -> np.ndarray:
        """The picture as (height, width, 3) uint8, top row first (for image files)."""
        p = self.read() if pixels is None else pixels
        rows = p.T[::-1]
        return np.stack(
            [(rows >> 16) & 0xFF, (rows >> 8) & 0xFF, rows & 0xFF], axis=-1
        ).astype(np.uint8)

    def rgba_f32(self, pixels: np.ndarray | None = None) -> np.ndarray:
        """The picture as (width, height, 4) float32 in [0, 1], y up (alpha 1)."""
        p = self.read() if pixels is None else pixels
        out = np.empty(p.shape + (4,), np.float32)
        out[..., 0] = (p >> 16) & 0xFF
        out[..., 1] = (p >> 8) & 0xFF
        out[..., 2] = p & 0xFF
        out[..., :3] *= 1.0 / 255.0
        out[..., 3] = 1.0
        return out
