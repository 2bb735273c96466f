"""
Where finished frames go: a window (pygame-ce, imported on first use) when a display
exists, else nowhere (headless). `open_display` never fails for lack of a display: it
returns None, and the GUI carries on headless (its pictures still reach files through
`show(file)` / `save_image`).

Events come out as `Event`s with Taichi's key names ('a', 'Escape', 'Shift', 'LMB',
'Wheel', 'Motion', ...), cursor positions in [0, 1]^2 with y up.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PRESS = "Press"
RELEASE = "Release"
MOTION = "Motion"

_SPECIAL_KEYS = {
    "escape": "Escape",
    "return": "Return",
    "enter": "Return",
    "tab": "Tab",
    "backspace": "BackSpace",
    "space": " ",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "caps lock": "Caps_Lock",
    "left shift": "Shift",
    "right shift": "Shift",
    "left ctrl": "Control",
    "right ctrl": "Control",
    "left alt": "Alt",
    "right alt": "Alt",
}
_BUTTONS = {1: "LMB", 2: "MMB", 3: "RMB"}


@dataclass
class Event:
    """One input event: `type` PRESS / RELEASE / MOTION, `key` a Taichi key name."""

    type: str
    key: str
    pos: tuple[float, float] = (0.0, 0.0)
    modifier: list[str] = field(default_factory=list)
    delta: tuple[int, int] = (0, 0)


def display_available() -> bool:
    """Whether a window can be opened here (an X11/Wayland display on Linux; SDL's
    dummy video driver counts as none)."""
    if os.environ.get("SDL_VIDEODRIVER") in ("dummy", "offscreen"):
        return False
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


_WARNED = False


def open_display(title: str, res: tuple[int, int]) -> Window | None:
    """A window of `res` pixels, or None (headless) when there is no display or no
    window library."""
    global _WARNED
    if not display_available():
        return None
    try:
        return Window(title, res)
    except Exception as e:  # no usable display after all: run headless
        if not _WARNED:
            warnings.warn(f"taichi_xdsl GUI: no window ({e}); running headless", stacklevel=3)
            _WARNED = True
        return None


class Window:
    """A pygame-ce window showing frames of (height, width) uint32 0xRRGGBB rows."""

    _open = 0  # windows open in this process (pygame's display is one window)

    def __init__(self, title: str, res: tuple[int, int]):
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        # SDL may put the window's pixels on screen through an OpenGL texture; with a
        # software OpenGL (Mesa's llvmpipe: Xvfb, VMs) that upload and draw cost ~2.5 ms
        # of this process's CPU a frame, X11's shared-memory image ~0.01 ms. A frame is
        # in host memory already: take the shared-memory path unless the user chose.
        os.environ.setdefault("SDL_FRAMEBUFFER_ACCELERATION", "0")
        import pygame

        self._pg = pygame
        pygame.display.init()
        self.res = res
        self.screen = pygame.display.set_mode(res)
        pygame.display.set_caption(title)
        # Frames are written straight into the window's surface when it holds
        # 0xRRGGBB words; else into `frame`, which a blit converts.
        self._direct = self.screen.get_bitsize() == 32 and self.screen.get_masks()[:3] == (
            0xFF0000,
            0xFF00,
            0xFF,
        )
        self.frame = None
        if not self._direct:
            self.frame = pygame.Surface(res, depth=32, masks=(0xFF0000, 0xFF00, 0xFF, 0))
        self.cursor = (0.0, 0.0)
        self.closed = False
        Window._open += 1

    def present(self, rows: np.ndarray) -> None:
        """Show a (height, width) uint32 0xRRGGBB frame whose first row is the top."""
        if self.closed:
            return
        target = self.screen if self._direct else self.frame
        view = self._pg.surfarray.pixels2d(target)  # (width, height); locks the surface
        view.T[...] = rows
        del view  # unlocks it
        if not self._direct:
            self.screen.blit(self.frame, (0, 0))
        self._pg.display.flip()

    def screenshot(self) -> np.ndarray:
        """What the window shows, (height, width, 3) uint8, top row first."""
        return self._pg.surfarray.array3d(self.screen).swapaxes(0, 1).copy()

    def _pos(self, xy: tuple[int, int]) -> tuple[float, float]:
        w, h = self.res
        return (xy[0] / w, 1.0 - xy[1] / h)

    def poll(self) -> list[Event]:
        """The events since the last poll."""
        if self.closed:
            return []
        pg = self._pg
        out: list[Event] = []
        mods = _modifiers(pg.key.get_mods(), pg)
        for e in pg.event.get():
            if e.type == pg.QUIT:
                out.append(Event(PRESS, "WMClose", self.cursor, mods))
            elif e.type in (pg.KEYDOWN, pg.KEYUP):
                name = pg.key.name(e.key)
                key = _SPECIAL_KEYS.get(name, name)
                out.append(Event(PRESS if e.type == pg.KEYDOWN else RELEASE, key, self.cursor, mods))
            elif e.type in (pg.MOUSEBUTTONDOWN, pg.MOUSEBUTTONUP):
                self.cursor = self._pos(e.pos)
                if e.button in _BUTTONS:
                    kind = PRESS if e.type == pg.MOUSEBUTTONDOWN else RELEASE
                    out.append(Event(kind, _BUTTONS[e.button], self.cursor, mods))
            elif e.type == pg.MOUSEWHEEL:
                out.append(Event(PRESS, "Wheel", self.cursor, mods, (e.x * 120, e.y * 120)))
            elif e.type == pg.MOUSEMOTION:
                self.cursor = self._pos(e.pos)
                out.append(Event(MOTION, "Motion", self.cursor, mods))
        return out

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            Window._open -= 1
            if Window._open == 0:
                self._pg.display.quit()


def _modifiers(mods: int, pg: Any) -> list[str]:
    out = []
    if mods & pg.KMOD_SHIFT:
        out.append("Shift")
    if mods & pg.KMOD_CTRL:
        out.append("Control")
    if mods & pg.KMOD_ALT:
        out.append("Alt")
    return out
