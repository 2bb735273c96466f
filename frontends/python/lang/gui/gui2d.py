"""
`ti.GUI`: Taichi's immediate-mode 2-D GUI. Every drawing call rasterizes at once
into the GUI's `Surface` with our kernels; `show()` hands the frame to the window (if
any) and/or an image file, then clears the canvas to the background colour.

    gui = ti.GUI("mpm88", res=512, background_color=0x112F41)
    while gui.running and not gui.get_event(gui.ESCAPE):
        gui.circles(x.to_numpy(), radius=1.5, color=0x068587)
        gui.show()            # or gui.show("frame.png")

Coordinates are in [0, 1]^2 with (0, 0) the bottom-left corner; colours are 0xRRGGBB;
radii and widths are in pixels. With no display (or show_gui=False, or TI_GUI_SHOW=0)
the GUI runs headless: events never come and `running` stays True until closed.
"""

from __future__ import annotations

import math
import os
import time
from numbers import Number
from typing import Any, Iterator

import numpy as np

from . import display as _display
from .display import MOTION, PRESS, RELEASE, Event
from .surface import Surface, hex_to_rgb, rgb_to_hex, to_numpy


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() not in ("0", "false", "off", "")


class _Widget:
    def __init__(self, kind: str, text: str, value: float = 0.0, lo=0.0, hi=1.0, step=1.0):
        self.kind, self.text, self.value = kind, text, value
        self.lo, self.hi, self.step = lo, hi, step
        self.event_name = ""


class GUI:
    """A window (or a headless canvas) of `res` pixels; Taichi's ti.GUI API."""

    Event = Event

    SHIFT = "Shift"
    ALT = "Alt"
    CTRL = "Control"
    ESCAPE = "Escape"
    RETURN = "Return"
    TAB = "Tab"
    BACKSPACE = "BackSpace"
    SPACE = " "
    UP = "Up"
    DOWN = "Down"
    LEFT = "Left"
    RIGHT = "Right"
    CAPSLOCK = "Caps_Lock"
    LMB = "LMB"
    MMB = "MMB"
    RMB = "RMB"
    EXIT = "WMClose"
    WHEEL = "Wheel"
    MOVE = "Motion"
    MOTION = MOTION
    PRESS = PRESS
    RELEASE = RELEASE

    def __init__(
        self,
        name: str = "Taichi",
        res: int | tuple[int, int] = 512,
        background_color: int = 0x0,
        show_gui: bool = True,
        fullscreen: bool = False,
        fast_gui: bool = False,
    ):
        self.name = name
        if isinstance(res, Number):
            res = (int(res), int(res))
        self.res = (int(res[0]), int(res[1]))
        self.fast_gui = fast_gui
        self.background_color = background_color
        self.surface = Surface(self.res)
        show = _env_flag("TI_GUI_SHOW", show_gui)
        self.window = _display.open_display(name, self.res) if show else None
        self.key_pressed: set[str] = set()
        self.event: Event | None = None
        self.frame = 0
        self._events: list[Event] = []
        self._closed = False
        self._fps_limit: float | None = 60.0
        self._last_show = 0.0
        self._widgets: list[_Widget] = []
        self._dragging: _Widget | None = None
        self.clear()

    # -- lifetime ---------------------------------------------------------------
    def __enter__(self) -> GUI:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the window; `running` becomes False."""
        self._closed = True
        if self.window is not None:
            self.window.close()
            self.window = None

    @property
    def running(self) -> bool:
        return not self._closed

    @running.setter
    def running(self, value: bool) -> None:
        if not value:
            self.close()

    @property
    def fps_limit(self) -> float | None:
        return self._fps_limit

    @fps_limit.setter
    def fps_limit(self, value: float | None) -> None:
        self._fps_limit = None if not value or value <= 0 else float(value)

    # -- drawing ----------------------------------------------------------------
    def clear(self, color: int | None = None) -> None:
        self.surface.fill(self.background_color if color is None else color)

    def set_image(self, img: Any) -> None:
        """Draw an image over the whole canvas: img[x, y] with x to the right and y up;
        (w, h) grey, (w, h, 2/3/4) RG/RGB/RGBA or a vector field; floats in [0, 1] or
        unsigned integers over their range."""
        self.surface.set_image(img)

    def cook_image(self, img: Any) -> np.ndarray:
        """An image as (w, h, 4) float32 in [0, 1], as set_image reads it."""
        a = to_numpy(img)
        if a.dtype.kind == "u":
            a = a.astype(np.float32) / np.iinfo(a.dtype).max
        elif a.dtype.kind == "f":
            a = a.astype(np.float32)
        else:
            raise ValueError(f"Data type {a.dtype} not supported in GUI.set_image")
        if a.ndim == 2:
            a = a[..., None]
        out = np.zeros(a.shape[:2] + (4,), np.float32)
        if a.shape[2] == 1:
            out[..., :] = a
        else:
            out[..., : a.shape[2]] = a
        if tuple(out.shape[:2]) != self.res:
            raise ValueError("Image resolution does not match GUI resolution")
        return out

    @property
    def img(self) -> np.ndarray:
        """The canvas: with fast_gui, (w * h,) uint32 0xRRGGBB, top row first; else
        (w, h, 4) float32, as get_image."""
        if self.fast_gui:
            return self.surface.rows().reshape(-1).copy()
        return self.get_image()

    def get_image(self) -> np.ndarray:
        """The canvas as (w, h, 4) float32 in [0, 1]."""
        return self.surface.rgba_f32()

    def circle(self, pos: Any, color: int = 0xFFFFFF, radius: float = 1) -> None:
        self.surface.circles(np.asarray([pos[0], pos[1]], np.float32), radius, color)

    def circles(
        self,
        pos: Any,
        radius: Any = 1,
        color: Any = 0xFFFFFF,
        palette: Any = None,
        palette_indices: Any = None,
    ) -> None:
        """Discs at pos (n, 2); radius (pixels) and color (0xRRGGBB) scalars or n-arrays;
        or colours palette[palette_indices[k]]."""
        if palette is not None:
            if palette_indices is None:
                raise ValueError("circles: palette must be used together with palette_indices")
            idx = to_numpy(palette_indices).astype(np.int64).reshape(-1)
            if idx.size and (idx.min() < 0 or idx.max() >= len(palette)):
                raise ValueError("circles: palette_indices out of the palette's range")
            color = np.asarray(palette, np.uint32)[idx]
        self.surface.circles(pos, radius, color)

    def line(self, begin: Any, end: Any, radius: float = 1, color: int = 0xFFFFFF) -> None:
        self.surface.lines(
            np.asarray(begin, np.float32)[:2], np.asarray(end, np.float32)[:2], radius, color
        )

    def lines(self, begin: Any, end: Any, radius: Any = 1, color: Any = 0xFFFFFF) -> None:
        self.surface.lines(begin, end, radius, color)

    def triangle(self, a: Any, b: Any, c: Any, color: int = 0xFFFFFF) -> None:
        self.surface.triangles(
            np.asarray(a, np.float32)[:2], np.asarray(b, np.float32)[:2],
            np.asarray(c, np.float32)[:2], color,
        )  # fmt: skip

    def triangles(self, a: Any, b: Any, c: Any, color: Any = 0xFFFFFF) -> None:
        self.surface.triangles(a, b, c, color)

    def rect(self, topleft: Any, bottomright: Any, radius: float = 1, color=0xFFFFFF) -> None:
        """The outline of the axis-aligned rectangle with these opposite corners."""
        (x0, y0), (x1, y1) = topleft[:2], bottomright[:2]
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
        self.surface.lines(corners, np.roll(corners, -1, axis=0), radius, color)

    @staticmethod
    def _arrow_segments(orig: np.ndarray, d: np.ndarray, tip_scale=0.2, angle=45):
        """Shaft and two barbs of each arrow: (begins, ends), each (3n, 2)."""
        a = math.radians(180 - angle)
        c, s = math.cos(a), math.sin(a)
        barb1 = np.stack([d[:, 0] * c - d[:, 1] * s, d[:, 0] * s + d[:, 1] * c], axis=1)
        barb2 = np.stack([d[:, 0] * c + d[:, 1] * s, -d[:, 0] * s + d[:, 1] * c], axis=1)
        tip = orig + d
        begins = np.concatenate([orig, tip, tip])
        ends = np.concatenate([tip, tip + barb1 * tip_scale, tip + barb2 * tip_scale])
        return begins, ends

    def arrows(self, orig: Any, direction: Any, radius: Any = 1, color: Any = 0xFFFFFF, **kw):
        o = np.asarray(to_numpy(orig), np.float32).reshape(-1, 2)
        d = np.asarray(to_numpy(direction), np.float32).reshape(-1, 2)
        begins, ends = self._arrow_segments(o, d, **kw)
        if not isinstance(radius, Number):
            radius = np.tile(to_numpy(radius).reshape(-1), 3)
        if not isinstance(color, Number):
            color = np.tile(to_numpy(color).reshape(-1), 3)
        self.surface.lines(begins, ends, radius, color)

    def arrow(self, orig: Any, direction: Any, radius: float = 1, color=0xFFFFFF, **kw):
        self.arrows(np.array([orig[:2]]), np.array([direction[:2]]), radius, color, **kw)

    @staticmethod
    def _field_base(w: int, h: int, bound: float) -> np.ndarray:
        x = np.linspace(bound / w, 1 - bound / w, w)
        y = np.linspace(bound / h, 1 - bound / h, h)
        xx, yy = np.meshgrid(x, y, indexing="ij")
        return np.stack([xx, yy], axis=-1).reshape(w * h, 2).astype(np.float32)

    def point_field(self, radius: Any, color: Any = 0xFFFFFF, bound: float = 0.5) -> None:
        """A w x h grid of discs with radii radius[i, j]."""
        r = to_numpy(radius)
        base = self._field_base(r.shape[0], r.shape[1], bound)
        self.circles(base, radius=r.reshape(-1), color=color)

    def arrow_field(self, direction: Any, radius=1, color=0xFFFFFF, bound=0.5, **kw) -> None:
        """A w x h grid of arrows direction[i, j]."""
        d = to_numpy(direction)
        base = self._field_base(d.shape[0], d.shape[1], bound)
        self.arrows(base, d.reshape(-1, 2), radius=radius, color=color, **kw)

    def vector_field(self, vector_field: Any, arrow_spacing: int = 5, color=0xFFFFFF) -> None:
        """Arrows sampled every arrow_spacing cells; the longest spans 10% of the window."""
        v = to_numpy(vector_field)
        nx, ny = v.shape[:2]
        scale = 0.1 / (np.linalg.norm(v, axis=-1).max() + 1e-16)
        xs = np.arange(0, nx, arrow_spacing)
        ys = np.arange(0, ny, arrow_spacing)
        xx, yy = np.meshgrid(xs / nx, ys / ny, indexing="ij")
        begin = np.stack([xx, yy], axis=-1).reshape(-1, 2)
        d = v[::arrow_spacing, ::arrow_spacing].reshape(-1, 2) * scale
        self.arrows(begin, d, radius=1, color=color)

    def contour(self, scalar_field: Any, normalize: bool = False) -> None:
        """A scalar field as a grey image (normalized to [0, 1] if asked)."""
        a = to_numpy(scalar_field).astype(np.float32)
        if normalize:
            lo, hi = float(a.min()), float(a.max())
            a = (a - lo) / (hi - lo if hi > lo else 1.0)
        if tuple(a.shape[:2]) != self.res:
            from ..tools.image import imresize

            a = imresize(a, *self.res)
        self.set_image(a)

    def text(self, content: str, pos: Any, font_size: float = 15, color: int = 0xFFFFFF) -> None:
        """Text whose top-left corner is at pos; font_size is the line height in pixels."""
        w, h = self.res
        self.surface.text(str(content), pos[0] * w, pos[1] * h, font_size, color)

    # -- widgets ----------------------------------------------------------------
    class WidgetValue:
        """The value of a slider or label (read and write `.value`)."""

        def __init__(self, gui: GUI, widget: _Widget):
            self._gui, self._w = gui, widget

        @property
        def value(self) -> float:
            return self._w.value

        @value.setter
        def value(self, value: float) -> None:
            self._w.value = value

    def slider(self, text: str, minimum: float, maximum: float, step: float = 1) -> WidgetValue:
        w = _Widget("slider", text, minimum, minimum, maximum, step)
        self._widgets.append(w)
        return GUI.WidgetValue(self, w)

    def label(self, text: str) -> WidgetValue:
        w = _Widget("label", text)
        self._widgets.append(w)
        return GUI.WidgetValue(self, w)

    def button(self, text: str, event_name: str | None = None) -> str:
        """A button; clicking it sends a PRESS event whose key is the returned name."""
        w = _Widget("button", text)
        w.event_name = event_name or f"WidgetButton_{text}"
        self._widgets.append(w)
        return w.event_name

    _WIDGET_W, _WIDGET_H = 180, 22

    def _widget_box(self, i: int) -> tuple[int, int, int, int]:
        """Pixel box (x0, y0, x1, y1), y up, of widget i: a column at the top right."""
        w, h = self.res
        x0 = w - self._WIDGET_W - 4
        y1 = h - 4 - i * (self._WIDGET_H + 4)
        return x0, y1 - self._WIDGET_H, x0 + self._WIDGET_W, y1

    def _draw_widgets(self) -> None:
        w, h = self.res
        for i, wd in enumerate(self._widgets):
            x0, y0, x1, y1 = self._widget_box(i)
            a = np.array([[x0 / w, y0 / h], [x0 / w, y0 / h]], np.float32)
            b = np.array([[x1 / w, y0 / h], [x0 / w, y1 / h]], np.float32)
            c = np.array([[x1 / w, y1 / h], [x1 / w, y1 / h]], np.float32)
            self.surface.triangles(a, b, c, 0x303030 if wd.kind != "button" else 0x505050)
            if wd.kind == "slider" and wd.hi > wd.lo:
                frac = (wd.value - wd.lo) / (wd.hi - wd.lo)
                xf = x0 + frac * (x1 - x0)
                a = np.array([[x0 / w, y0 / h], [x0 / w, y0 / h]], np.float32)
                b = np.array([[xf / w, y0 / h], [x0 / w, y1 / h]], np.float32)
                c = np.array([[xf / w, y1 / h], [xf / w, y1 / h]], np.float32)
                self.surface.triangles(a, b, c, 0x3C6E9E)
            if wd.kind == "button":
                label = wd.text
            else:
                v = wd.value
                shown = f"{v:.3g}" if isinstance(v, float) and not float(v).is_integer() else (
                    f"{int(v)}" if isinstance(v, (int, float)) else str(v)
                )
                label = f"{wd.text}: {shown}"
            self.surface.text(label, x0 + 4, y1 - 4, 16, 0xFFFFFF)

    def _widget_at(self, pos: tuple[float, float]) -> _Widget | None:
        px, py = pos[0] * self.res[0], pos[1] * self.res[1]
        for i, wd in enumerate(self._widgets):
            x0, y0, x1, y1 = self._widget_box(i)
            if x0 <= px <= x1 and y0 <= py <= y1:
                return wd
        return None

    def _slide(self, wd: _Widget, pos: tuple[float, float]) -> None:
        x0, _, x1, _ = self._widget_box(self._widgets.index(wd))
        frac = min(max((pos[0] * self.res[0] - x0) / (x1 - x0), 0.0), 1.0)
        v = wd.lo + frac * (wd.hi - wd.lo)
        if wd.step:
            v = wd.lo + round((v - wd.lo) / wd.step) * wd.step
        wd.value = min(max(v, wd.lo), wd.hi)

    def _widget_event(self, e: Event) -> bool:
        """Let the widgets take a mouse event; True if one did (then it is not queued)."""
        if not self._widgets:
            return False
        if e.key == "LMB" and e.type == PRESS:
            wd = self._widget_at(e.pos)
            if wd is None:
                return False
            if wd.kind == "slider":
                self._dragging = wd
                self._slide(wd, e.pos)
            elif wd.kind == "button":
                self._events.append(Event(PRESS, wd.event_name, e.pos, e.modifier))
            return True
        if self._dragging is not None:
            if e.type == MOTION:
                self._slide(self._dragging, e.pos)
                return True
            if e.key == "LMB" and e.type == RELEASE:
                self._dragging = None
                return True
        return False

    # -- showing ----------------------------------------------------------------
    def show(self, file: str | None = None) -> None:
        """Show the frame (window) and/or save it (file), then clear the canvas."""
        if self.window is not None and self._widgets:
            self._draw_widgets()
        if self.window is not None:
            self.window.present(self.surface.rows())
            self._poll()
        if file:
            from ..tools.image import write_rgb8

            write_rgb8(file, self.surface.rgb8())
        if self.window is not None and self._fps_limit:
            wait = self._last_show + 1.0 / self._fps_limit - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            self._last_show = time.perf_counter()
        self.frame += 1
        self.clear()

    # -- events -----------------------------------------------------------------
    def _poll(self) -> None:
        if self.window is None:
            return
        for e in self.window.poll():
            if e.key == "WMClose":
                self._events.append(e)
                self.close()
                break
            if self._widget_event(e):
                continue
            if e.type == PRESS:
                self.key_pressed.add(e.key)
            elif e.type == RELEASE:
                self.key_pressed.discard(e.key)
            self._events.append(e)

    @staticmethod
    def _matches(e: Event, flt: tuple[Any, ...]) -> bool:
        if not flt:
            return True
        types = {f for f in flt if f in (PRESS, RELEASE, MOTION)}
        keys = {f for f in flt if f not in (PRESS, RELEASE, MOTION)}
        if types and e.type not in types:
            return False
        return not keys or e.key in keys

    def has_key_event(self) -> bool:
        self._poll()
        return bool(self._events)

    def get_key_event(self) -> Event:
        """The next event (call has_key_event first)."""
        self._poll()
        e = self._events.pop(0)
        self.event = e
        return e

    def get_event(self, *e_filter: Any) -> bool:
        """Take events up to the first matching the filter (PRESS/RELEASE/MOTION and/or
        key names); True and `gui.event` set if one did."""
        self._poll()
        while self._events:
            e = self._events.pop(0)
            if self._matches(e, e_filter):
                self.event = e
                return True
        return False

    def get_events(self, *e_filter: Any) -> Iterator[Event]:
        while self.get_event(*e_filter):
            yield self.event

    def is_pressed(self, *keys: str) -> bool:
        self._poll()
        return any(k in self.key_pressed for k in keys)

    def get_cursor_pos(self) -> tuple[float, float]:
        """The cursor position in [0, 1]^2, y up."""
        return self.window.cursor if self.window is not None else (0.0, 0.0)


__all__ = ["GUI", "hex_to_rgb", "rgb_to_hex"]
