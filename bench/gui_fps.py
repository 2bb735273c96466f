"""
Frames per second of ti.GUI in mpm88's drawing loop: each frame sets a 512x512 image,
draws 8,192 circles of radius 1.5 and shows the frame. Every frame is read back from the
canvas (as a window needs it) even when no window opens.

    python bench/gui_fps.py [--arch cpu|vulkan] [--frames 300] [--window] [--threads N]

--window opens a real window (needs a display: e.g. `xvfb-run -a python bench/gui_fps.py
--window`); without it the GUI is headless.

Besides wall-clock frames per second it prints the CPU time a frame takes (all threads of
the process) and the machine's load average: on a shared machine the wall clock counts
the time other processes hold the cores, the CPU time does not.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import taichi_xdsl as ti


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="cpu")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--window", action="store_true")
    ap.add_argument("--no-image", action="store_true", help="circles only")
    ap.add_argument("--threads", type=int, default=None, help="CPU worker threads")
    args = ap.parse_args()
    ti.init(arch=getattr(ti, args.arch), cpu_max_num_threads=args.threads)
    gui = ti.GUI("gui_fps", res=512, background_color=0x112F41, show_gui=args.window)
    gui.fps_limit = None
    if args.window and gui.window is None:
        raise SystemExit("--window: no display here")
    rng = np.random.default_rng(0)
    pos = (rng.random((8192, 2), dtype=np.float32) * 0.6 + 0.2).astype(np.float32)
    img = rng.random((512, 512, 3), dtype=np.float32)

    def frame() -> None:
        if not args.no_image:
            gui.set_image(img)
        gui.circles(pos, radius=1.5, color=0x068587)
        if gui.window is None:
            gui.surface.rows()  # what a window is handed
        gui.show()
        pos[:] += rng.normal(0, 1e-3, pos.shape).astype(np.float32)

    for _ in range(5):  # compile and warm up
        frame()
    times = []
    cpu0 = time.process_time()
    for _ in range(args.frames):
        t0 = time.perf_counter()
        frame()
        times.append(time.perf_counter() - t0)
    cpu = (time.process_time() - cpu0) / args.frames
    med = float(np.median(times))
    mean = float(np.mean(times))
    what = "window" if gui.window is not None else "headless"
    print(
        f"gui_fps arch={args.arch} {what}: median {1 / med:.0f} fps ({med * 1e3:.2f} ms/frame), "
        f"mean {1 / mean:.0f} fps over {args.frames} frames; CPU time {cpu * 1e3:.2f} ms/frame "
        f"(all threads); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    gui.close()


if __name__ == "__main__":
    main()
