"""
Image files in Taichi's convention: arrays indexed img[x, y] (x to the right, y up),
shape (w, h), (w, h, 1), (w, h, 3) or (w, h, 4). PNG is written by our own encoder
(utils/png.py); other formats (and every read) go through Pillow, imported on use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def _to_numpy(img: Any) -> np.ndarray:
    return img if isinstance(img, np.ndarray) else img.to_numpy()


def to_bytes(img: Any) -> np.ndarray:
    """An image as uint8 (w, h, c): floats clipped to [0, 1] and scaled by 255
    (truncated), wider unsigned integers scaled down to 8 bits."""
    a = _to_numpy(img)
    if a.dtype in (np.uint16, np.uint32, np.uint64):
        a = (a // (np.iinfo(a.dtype).max // 256)).astype(np.uint8)
    elif a.dtype.kind == "f":
        a = (np.clip(a, 0, 1) * 255.0).astype(np.uint8)
    elif a.dtype != np.uint8:
        raise ValueError(f"Data type {a.dtype} not supported in ti.tools.imwrite")
    if a.ndim == 2:
        a = a[:, :, None]
    if a.ndim != 3 or a.shape[2] not in (1, 3, 4):
        raise ValueError(f"imwrite: an image of shape (w, h) or (w, h, 1/3/4), got {a.shape}")
    return a


def write_rgb8(filename: str | Path, rows: np.ndarray) -> None:
    """Write (height, width, channels) uint8 rows, top row first, to an image file
    (format from the suffix)."""
    path = Path(filename)
    if path.suffix.lower() == ".png":
        from taichi_xdsl.utils.png import write_png

        write_png(path, rows)
        return
    from PIL import Image

    Image.fromarray(rows[:, :, 0] if rows.shape[2] == 1 else rows).save(path)


def imwrite(img: Any, filename: str) -> None:
    """Save an image (field, ndarray or NumPy array indexed [x, y], y up) to a file."""
    a = to_bytes(img)
    write_rgb8(filename, np.ascontiguousarray(a.swapaxes(0, 1)[::-1]))


def imread(filename: str, channels: int = 0) -> np.ndarray:
    """Load an image file as uint8 (w, h, c), indexed [x, y] with y up; `channels`
    (1, 3 or 4) converts, 0 keeps the file's own."""
    from PIL import Image

    with Image.open(filename) as im:
        mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}.get(channels)
        if mode is None:
            mode = im.mode if im.mode in ("L", "LA", "RGB", "RGBA") else "RGBA"
        a = np.asarray(im.convert(mode))
    if a.ndim == 2:
        a = a[:, :, None]
    return np.ascontiguousarray(a.swapaxes(0, 1)[:, ::-1])


def imresize(img: Any, w: int, h: int | None = None) -> np.ndarray:
    """Nearest-neighbour resize of an image indexed [x, y] to (w, h)."""
    a = _to_numpy(img)
    if h is None:
        h = w
    if (w, h) == a.shape[:2]:
        return a
    if not (isinstance(w, int) and isinstance(h, int) and w > 1 and h > 1):
        raise ValueError(f"imresize: integer sizes above 1, got ({w}, {h})")
    xs = np.clip(np.arange(w) * (a.shape[0] / w), 0, a.shape[0] - 1).astype(np.int64)
    ys = np.clip(np.arange(h) * (a.shape[1] / h), 0, a.shape[1] - 1).astype(np.int64)
    return a[xs[:, None], ys[None, :]]


def imshow(img: Any, title: str = "imshow") -> None:
    """Show an image in a ti.GUI window until it is closed or Escape is pressed (in a
    notebook: display it inline). Headless, it returns at once."""
    a = _to_numpy(img)
    try:
        get_ipython()  # type: ignore[name-defined]  # noqa: F821
    except NameError:
        from ..gui.gui2d import GUI

        with GUI(title, res=a.shape[:2]) as gui:
            if gui.window is None:
                return
            while gui.running:
                if gui.get_event(GUI.ESCAPE):
                    gui.running = False
                    break
                gui.set_image(a)
                gui.show()
    else:
        import IPython.display
        from PIL import Image

        rows = to_bytes(a).swapaxes(0, 1)[::-1]
        IPython.display.display(Image.fromarray(rows[:, :, 0] if rows.shape[2] == 1 else rows))


__all__ = ["imread", "imresize", "imshow", "imwrite"]
