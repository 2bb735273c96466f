"""
`ti.ui`: Taichi's GGUI API — `Window`, its `Canvas` (set_image, circles, lines,
triangles, scene), the 3-D `Scene` and `Camera`, and the widgets of `window.get_gui()`.
Everything is drawn by our kernels into the window's `Surface` on the program's arch;
`window.show()` presents the frame (when a display exists) and starts the next one.

    window = ti.ui.Window("mpm3d", (768, 768), show_window=False)
    canvas = window.get_canvas()
    scene = ti.ui.Scene()
    camera = ti.ui.Camera()
    camera.position(0.5, 1.0, 1.95); camera.lookat(0.5, 0.3, 0.5)
    scene.set_camera(camera)
    scene.point_light(pos=(0.5, 1.5, 1.5), color=(1, 1, 1))
    scene.particles(x, radius=0.01, color=(0.4, 0.6, 1.0))
    canvas.scene(scene)
    window.save_image("frame.png")   # or window.show()

Canvas coordinates are in [0, 1]^2 with y up; colours are (r, g, b) floats; circle
radii and line widths are fractions of the window's height, as in GGUI.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

from . import display as _display
from .display import Event
from .gui2d import GUI, _env_flag
from .scene import Camera, ProjectionMode, Scene, make_camera
from .surface import Surface, colors_u32, rgb_to_hex, to_numpy

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
CAPSLOCK = "CapsLock"
LMB = "LMB"
MMB = "MMB"
RMB = "RMB"
PRESS = _display.PRESS
RELEASE = _display.RELEASE


def _points2(x: Any) -> np.ndarray:
    a = np.asarray(to_numpy(x), np.float32)
    return np.ascontiguousarray(a.reshape(-1, a.shape[-1])[:, :2])


def _indexed(verts: np.ndarray, indices: Any, per: int) -> list[np.ndarray]:
    """The vertex rows of each primitive's corners: [corner 0 rows, corner 1 rows, ...]."""
    if indices is None:
        idx = np.arange(verts.shape[0] // per * per)
    else:
        idx = np.asarray(to_numpy(indices), np.int64).reshape(-1)
        idx = idx[: idx.shape[0] // per * per]
    idx = idx.reshape(-1, per)
    return [idx[:, i] for i in range(per)]


class Canvas:
    """The 2-D drawing surface of a Window (GGUI's Canvas)."""

    def __init__(self, window: Window):
        self._window = window
        self._surface: Surface = window._surface

    def set_background_color(self, color: Any) -> None:
        """Fill the canvas with (r, g, b); later frames start with it too."""
        self._window._background = rgb_to_hex(color)
        self._surface.fill(self._window._background)

    def set_image(self, img: Any) -> None:
        """An image over the whole canvas (a field/ndarray/array indexed [x, y]; other
        resolutions are resized, nearest)."""
        a = to_numpy(img)
        if tuple(a.shape[:2]) != self._surface.res:
            from ..tools.image import imresize

            a = imresize(a, *self._surface.res)
        self._surface.set_image(a)

    def circles(
        self,
        centers: Any,
        radius: float,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        per_vertex_radius: Any = None,
    ) -> None:
        p = _points2(centers)
        h = self._surface.res[1]
        if per_vertex_radius is not None:
            r = np.asarray(to_numpy(per_vertex_radius), np.float32).reshape(-1) * h
        else:
            r = float(radius) * h
        c = colors_u32(to_numpy(per_vertex_color)) if per_vertex_color is not None else rgb_to_hex(color)
        self._surface.circles(p, r, c)

    def lines(
        self,
        vertices: Any,
        width: float,
        indices: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
    ) -> None:
        v = _points2(vertices)
        a, b = _indexed(v, indices, 2)
        col = col_end = rgb_to_hex(color)
        if per_vertex_color is not None:
            rgb = np.asarray(to_numpy(per_vertex_color)).reshape(v.shape[0], -1)
            col, col_end = colors_u32(rgb[a]), colors_u32(rgb[b])
        self._surface.lines(v[a], v[b], max(width * self._surface.res[1] / 2, 0.5), col, col_end)

    def triangles(
        self,
        vertices: Any,
        color: Any = (0.5, 0.5, 0.5),
        indices: Any = None,
        per_vertex_color: Any = None,
    ) -> None:
        v = _points2(vertices)
        a, b, c = _indexed(v, indices, 3)
        if per_vertex_color is not None:
            rgb = np.asarray(to_numpy(per_vertex_color)).reshape(v.shape[0], -1)
            corners = (colors_u32(rgb[a]), colors_u32(rgb[b]), colors_u32(rgb[c]))
            self._surface.triangles(v[a], v[b], v[c], 0, corners)
        else:
            self._surface.triangles(v[a], v[b], v[c], rgb_to_hex(color))

    def contour(self, scalar_field: Any, cmap_name: str = "plasma", normalize: bool = False):
        """A scalar field as an image (grey; cmap_name is not supported and ignored)."""
        a = to_numpy(scalar_field).astype(np.float32)
        if normalize:
            lo, hi = float(a.min()), float(a.max())
            a = (a - lo) / (hi - lo if hi > lo else 1.0)
        self.set_image(a)

    def vector_field(self, vector_field: Any, arrow_spacing: int = 5, scale: float = 0.1,
                     width: float = 0.002, color: Any = (0, 0, 0)) -> None:  # fmt: skip
        v = to_numpy(vector_field)
        nx, ny = v.shape[:2]
        xs, ys = np.arange(0, nx, arrow_spacing), np.arange(0, ny, arrow_spacing)
        xx, yy = np.meshgrid(xs / nx, ys / ny, indexing="ij")
        begin = np.stack([xx, yy], -1).reshape(-1, 2).astype(np.float32)
        d = (v[::arrow_spacing, ::arrow_spacing].reshape(-1, 2) * scale).astype(np.float32)
        b, e = GUI._arrow_segments(begin, d)
        self._surface.lines(b, e, max(width * self._surface.res[1] / 2, 0.5), rgb_to_hex(color))

    def scene(self, scene: Scene) -> None:
        """Render a 3-D scene over the canvas."""
        scene.render(self._surface)


class Gui:
    """window.get_gui(): immediate-mode widgets in sub-windows, drawn over the frame
    where it is shown, saved or read back (as GGUI draws its panels into the image
    buffer); with a window they also take clicks, headless they return the values given."""

    ROW = 20

    def __init__(self, window: Window):
        self._window = window
        self._panel: list[float] | None = None  # x, y (top, from the top), width, height
        self._row = 0
        self._rows: list[tuple[tuple[int, int, int, int], str, float | None]] = []

    @contextmanager
    def sub_window(self, name: str, x: float, y: float, width: float, height: float) -> Iterator[Gui]:
        self.begin(name, x, y, width, height)
        try:
            yield self
        finally:
            self.end()

    def begin(self, name: str, x: float, y: float, width: float, height: float) -> None:
        self._panel = [x, y, width, height]
        self._row = 0
        self._add(name, None)

    def end(self) -> None:
        self._panel = None

    def _add(self, label: str, frac: float | None) -> tuple[int, int, int, int] | None:
        """The next row's pixel box (x0, y0, x1, y1), y up, recorded for drawing; None
        for a row below the panel's height, which GGUI clips (neither drawn nor
        clickable; the title row always shows)."""
        w, h = self._window.res
        px, py, pw, ph = self._panel or [0.0, 0.0, 0.3, 1.0]
        x0 = int(px * w)
        top = h - int(py * h) - self._row * self.ROW
        box = (x0, top - self.ROW, x0 + max(int(pw * w), 60), top)
        self._row += 1
        if self._row > 1 and box[1] < h - int((py + ph) * h):
            return None
        self._rows.append((box, label, frac))
        return box

    def _clicked(self, box: tuple[int, int, int, int] | None) -> bool:
        return box is not None and any(self._inside(box, p) for p in self._window._clicks)

    def _inside(self, box: tuple[int, int, int, int], pos: tuple[float, float]) -> bool:
        w, h = self._window.res
        x, y = pos[0] * w, pos[1] * h
        return box[0] <= x <= box[2] and box[1] <= y <= box[3]

    def _drag(self, box: tuple[int, int, int, int] | None) -> float | None:
        win = self._window
        if box is None or not win.is_pressed(LMB):
            return None
        pos = win.get_cursor_pos()
        if not self._inside(box, pos):
            return None
        return min(max((pos[0] * win.res[0] - box[0]) / (box[2] - box[0]), 0.0), 1.0)

    def text(self, text: str, color: Any = None) -> None:
        self._add(text, None)

    def checkbox(self, text: str, old_value: bool) -> bool:
        box = self._add(f"[{'x' if old_value else ' '}] {text}", None)
        return (not old_value) if self._clicked(box) else old_value

    def slider_int(self, text: str, old_value: int, minimum: int, maximum: int) -> int:
        frac = (old_value - minimum) / max(maximum - minimum, 1)
        box = self._add(f"{text}: {old_value}", frac)
        f = self._drag(box)
        return old_value if f is None else int(round(minimum + f * (maximum - minimum)))

    def slider_float(self, text: str, old_value: float, minimum: float, maximum: float) -> float:
        frac = (old_value - minimum) / ((maximum - minimum) or 1.0)
        box = self._add(f"{text}: {old_value:.3f}", frac)
        f = self._drag(box)
        return old_value if f is None else minimum + f * (maximum - minimum)

    def color_edit_3(self, text: str, old_value: Any) -> Any:
        r, g, b = list(old_value)[:3]
        self._add(f"{text}: ({r:.2f}, {g:.2f}, {b:.2f})", None)
        return old_value

    def button(self, text: str) -> bool:
        return self._clicked(self._add(f"< {text} >", None))

    def _draw(self, surface: Surface) -> None:
        """Draw this frame's widget rows over the surface, then forget them."""
        w, h = surface.res
        for (x0, y0, x1, y1), label, frac in self._rows:
            quad = np.array([[x0 / w, y0 / h], [x1 / w, y1 / h]], np.float32)
            a = np.array([quad[0], quad[0]])
            b = np.array([[quad[1, 0], quad[0, 1]], [quad[0, 0], quad[1, 1]]])
            c = np.array([quad[1], quad[1]])
            surface.triangles(a, b, c, 0x202020)
            if frac is not None:
                xf = x0 + min(max(frac, 0.0), 1.0) * (x1 - x0)
                b2 = np.array([[xf / w, y0 / h], [x0 / w, y1 / h]])
                c2 = np.array([[xf / w, y1 / h], [xf / w, y1 / h]])
                surface.triangles(a, b2, c2, 0x3C6E9E)
            surface.text(label, x0 + 3, y1 - 3, 16, 0xFFFFFF)
        self._rows = []


class Window:
    """A GGUI window of `res` pixels; headless without a display or show_window=False."""

    def __init__(
        self,
        name: str,
        res: tuple[int, int],
        vsync: bool = False,
        show_window: bool = True,
        fps_limit: int = 1000,
        pos: tuple[int, int] = (100, 100),
    ):
        self.name = name
        self.res = (int(res[0]), int(res[1]))
        self._surface = Surface(self.res)
        self._background = 0x000000
        self._surface.fill(self._background)
        show = _env_flag("TI_GUI_SHOW", show_window)
        self._window = _display.open_display(name, self.res) if show else None
        self._running = True
        self._events: list[Event] = []
        self._pressed: set[str] = set()
        self._clicks: list[tuple[float, float]] = []
        self.event: Event | None = None
        self.fps_limit = fps_limit
        self._canvas = Canvas(self)
        self._gui = Gui(self)

    @property
    def running(self) -> bool:
        return self._running

    @running.setter
    def running(self, value: bool) -> None:
        self._running = bool(value)
        if not value:
            self.destroy()

    def get_canvas(self) -> Canvas:
        return self._canvas

    def get_scene(self) -> Scene:
        return Scene()

    def get_gui(self) -> Gui:
        return self._gui

    @property
    def GUI(self) -> Gui:  # noqa: N802 - Taichi's name
        return self._gui

    def get_window_shape(self) -> tuple[int, int]:
        return self.res

    def get_cursor_pos(self) -> tuple[float, float]:
        return self._window.cursor if self._window is not None else (0.0, 0.0)

    # -- events -----------------------------------------------------------------
    def _poll(self) -> None:
        if self._window is None:
            return
        for e in self._window.poll():
            if e.key == "WMClose":
                self.running = False
                return
            if e.key == "Caps_Lock":
                e.key = CAPSLOCK
            if e.type == PRESS:
                self._pressed.add(e.key)
                if e.key == LMB:
                    self._clicks.append(e.pos)
            elif e.type == RELEASE:
                self._pressed.discard(e.key)
            if e.type in (PRESS, RELEASE):
                self._events.append(e)

    def get_events(self, tag: Any = None) -> list[Event]:
        self._poll()
        out = [e for e in self._events if tag is None or e.type == tag]
        self._events = [e for e in self._events if not (tag is None or e.type == tag)]
        return out

    def get_event(self, tag: Any = None) -> bool:
        self._poll()
        for i, e in enumerate(self._events):
            if tag is None or e.type == tag:
                self.event = self._events.pop(i)
                return True
        return False

    def is_pressed(self, *keys: str) -> bool:
        self._poll()
        return any(k in self._pressed for k in keys)

    # -- frames -----------------------------------------------------------------
    def show(self) -> None:
        """Present the frame (if a window is open), then start the next one."""
        if self._window is not None:
            self._gui._draw(self._surface)
            self._window.present(self._surface.rows())
            self._clicks = []
            self._poll()
        self._gui._rows = []
        self._surface.fill(self._background)

    def save_image(self, filename: str) -> None:
        """Write the current frame, widgets drawn, to an image file."""
        from ..tools.image import write_rgb8

        self._gui._draw(self._surface)
        write_rgb8(filename, self._surface.rgb8())

    def get_image_buffer_as_numpy(self) -> np.ndarray:
        """The current frame, widgets drawn, as (w, h, 4) float32 in [0, 1]."""
        self._gui._draw(self._surface)
        return self._surface.rgba_f32()

    def get_depth_buffer_as_numpy(self) -> np.ndarray:
        """The last 3-D render's depth as (w, h) float32: 0 at z_near, 1 at z_far
        (and where nothing was drawn)."""
        return self._surface.depth_as_numpy()

    def get_depth_buffer(self, depth: Any) -> None:
        """Copy the depth buffer into a (w, h) f32 field or ndarray."""
        depth.from_numpy(self.get_depth_buffer_as_numpy())

    def destroy(self) -> None:
        self._running = False
        if self._window is not None:
            self._window.close()
            self._window = None


__all__ = [
    "ALT", "BACKSPACE", "CAPSLOCK", "CTRL", "DOWN", "ESCAPE", "GUI", "LEFT", "LMB", "MMB",
    "PRESS", "RELEASE", "RETURN", "RIGHT", "RMB", "SHIFT", "SPACE", "TAB", "UP",
    "Camera", "Canvas", "Gui", "ProjectionMode", "Scene", "Window", "make_camera",
]  # fmt: skip
