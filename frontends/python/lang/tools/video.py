"""
`ti.tools.VideoManager`: frames written as numbered PNGs under output_dir/frames, then
assembled into output_dir/video.mp4 (H.264 through imageio-ffmpeg's bundled ffmpeg,
imported on use) and output_dir/video.gif (Pillow).

    video = ti.tools.VideoManager(output_dir="out", framerate=24, automatic_build=False)
    for i in range(n):
        ...
        video.write_frame(img)     # img: (w, h[, c]) indexed [x, y], y up
    video.make_video(gif=True, mp4=True)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .image import imwrite

FRAME_FN_TEMPLATE = "%06d.png"
FRAME_DIR = "frames"


class VideoManager:
    """Collects frames and turns them into an mp4 and/or a gif."""

    def __init__(
        self,
        output_dir: str,
        video_filename: str | None = None,
        width: int | None = None,
        height: int | None = None,
        post_processor: Callable[[np.ndarray], np.ndarray] | None = None,
        framerate: int = 24,
        automatic_build: bool = True,
    ):
        if (width is None) != (height is None):
            raise ValueError("VideoManager: give both width and height, or neither")
        self.width, self.height = width, height
        self.directory = output_dir
        self.frame_directory = os.path.join(output_dir, FRAME_DIR)
        os.makedirs(self.frame_directory, exist_ok=True)
        self.video_filename = video_filename
        self.next_video_checkpoint = 4
        self.framerate = framerate
        self.post_processor = post_processor
        self.frame_counter = 0
        self.frame_fns: list[str] = []
        self.automatic_build = automatic_build

    def get_output_filename(self, suffix: str) -> str:
        if not self.video_filename:
            return os.path.join(self.directory, "video" + suffix)
        stem, _ = os.path.splitext(self.video_filename)
        return os.path.join(self.directory, stem + suffix)

    def get_frame_directory(self) -> str:
        return self.frame_directory

    def write_frame(self, img: Any) -> None:
        """Save one frame (a field, ndarray or NumPy image indexed [x, y], y up)."""
        if self.post_processor is not None:
            img = self.post_processor(img)
        fn = FRAME_FN_TEMPLATE % self.frame_counter
        self.frame_fns.append(fn)
        imwrite(img, os.path.join(self.frame_directory, fn))
        self.frame_counter += 1
        if self.automatic_build and self.frame_counter % self.next_video_checkpoint == 0:
            self.make_video()
            self.next_video_checkpoint *= 2

    def write_frames(self, images: Any) -> None:
        for img in images:
            self.write_frame(img)

    def clean_frames(self) -> None:
        """Delete the frames this manager wrote."""
        for fn in self.frame_fns:
            path = Path(self.frame_directory, fn)
            if path.exists():
                path.unlink()

    def _frames(self) -> list[np.ndarray]:
        """The frames written so far, as (height, width, 3) uint8 RGB rows."""
        from PIL import Image

        out = []
        for fn in self.frame_fns:
            with Image.open(os.path.join(self.frame_directory, fn)) as im:
                im = im.convert("RGB")
                if self.width is not None:
                    im = im.resize((self.width, self.height), Image.Resampling.NEAREST)
                out.append(np.asarray(im))
        return out

    def make_video(self, mp4: bool = True, gif: bool = True) -> None:
        """Assemble the frames written so far into video.mp4 and/or video.gif."""
        frames = self._frames()
        if not frames:
            return
        if mp4:
            self._write_mp4(self.get_output_filename(".mp4"), frames)
        if gif:
            from PIL import Image

            images = [Image.fromarray(f) for f in frames]
            images[0].save(
                self.get_output_filename(".gif"),
                save_all=True,
                append_images=images[1:],
                duration=max(1, round(1000 / self.framerate)),
                loop=0,
            )

    def _write_mp4(self, path: str, frames: list[np.ndarray]) -> None:
        import imageio_ffmpeg

        h, w = frames[0].shape[:2]
        H, W = h + h % 2, w + w % 2  # yuv420p needs even sizes: pad by one row/column
        writer = imageio_ffmpeg.write_frames(
            path,
            (W, H),
            fps=self.framerate,
            codec="libx264",
            pix_fmt_out="yuv420p",
            quality=10,
            macro_block_size=1,
            ffmpeg_log_level="error",
        )
        writer.send(None)
        try:
            for f in frames:
                if (H, W) != (h, w):
                    f = np.pad(f, ((0, H - h), (0, W - w), (0, 0)), mode="edge")
                writer.send(np.ascontiguousarray(f))
        finally:
            writer.close()


__all__ = ["VideoManager"]
