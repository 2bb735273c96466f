"""
Text for `GUI.text` and the widget labels. Each line becomes a coverage mask (how much
of every pixel the glyphs cover) rendered by pygame-ce's font module (FreeType, with the
font pygame-ce ships; no display needed); the `raster.coverage` kernel blends it into the
canvas. Sizes follow Taichi's GUI: capitals are 0.63 of `font_size` tall, their top lies
0.2 of `font_size` below the position given, the ink starts 0.07 of it to its right.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

import numpy as np

CAP_HEIGHT = 0.63  # of font_size: Taichi 1.7's 'H' at font_size 30 is 19 pixels tall
TOP_GAP = 0.2  # of font_size: from the given top to the capitals' top
LEFT_GAP = 0.07  # of font_size: from the given left to the first glyph's ink
_PYGAME_CAP = 0.5  # pygame's default font: capitals are half its point size


@lru_cache(maxsize=16)
def _font(font_size: float) -> tuple[Any, int]:
    """The pygame font for `font_size`, and the row of its capitals' top in a render."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame.font

    pygame.font.init()
    font = pygame.font.Font(None, max(4, round(font_size * CAP_HEIGHT / _PYGAME_CAP)))
    alpha = pygame.surfarray.array_alpha(font.render("H", True, (255, 255, 255)))
    rows = np.nonzero(alpha.max(axis=0) > 127)[0]
    return font, int(rows[0]) if rows.size else 0


@lru_cache(maxsize=256)
def line_mask(text: str, font_size: float) -> tuple[np.ndarray, int, int]:
    """One line of text: its (w, h) float32 coverage indexed [x, y] with y up, how far
    (pixels) the mask's top row lies above the capitals' top, and the line height."""
    import pygame

    font, cap_row = _font(font_size)
    surface = font.render(text, True, (255, 255, 255))
    alpha = pygame.surfarray.array_alpha(surface)[:, ::-1]  # rows top-down -> y up
    return np.ascontiguousarray(alpha, np.float32) / 255.0, cap_row, font.get_linesize()
