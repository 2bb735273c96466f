"""
A real window: a ti.GUI program run under an X server (the one of $DISPLAY, else a
fresh Xvfb through xvfb-run) draws a scene, shows it, and compares the window's own
pixels (a screenshot of the pygame surface) with the canvas it was handed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent(
    """
    import numpy as np
    import taichi_xdsl as ti
    ti.init(arch=ti.{arch})
    gui = ti.GUI("window test", res=(96, 64), background_color=0x112F41)
    assert gui.window is not None, "no window opened"
    gui.circle((0.25, 0.5), radius=6, color=0xFF0000)
    gui.triangle((0.6, 0.2), (0.9, 0.2), (0.75, 0.8), color=0x00FF00)
    canvas = gui.surface.rgb8()
    gui.show()
    shot = gui.window.screenshot()
    assert shot.shape == canvas.shape, (shot.shape, canvas.shape)
    diff = np.abs(shot.astype(int) - canvas.astype(int)).max()
    assert diff <= 1, diff
    assert tuple(shot[32, 24]) == (255, 0, 0) and tuple(shot[40, 72]) == (0, 255, 0)
    list(gui.get_events())  # the window's event queue is readable
    gui.close()
    print("WINDOW OK", gui.running)
    """
)


@pytest.mark.parametrize("arch_name", ["cpu", "vulkan"])
def test_window_screenshot_matches_canvas(arch_name, tmp_path):
    if arch_name == "vulkan":
        from taichi_xdsl.targets.vulkan import vulkan_available

        ok, reason = vulkan_available()
        if not ok:
            pytest.skip(f"no Vulkan device: {reason}")
    script = tmp_path / "window.py"
    script.write_text(PROGRAM.format(arch=arch_name))
    env = dict(os.environ)
    env.pop("SDL_VIDEODRIVER", None)
    if env.get("DISPLAY"):
        cmd = [sys.executable, str(script)]
    elif shutil.which("xvfb-run"):
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 320x240x24", sys.executable, str(script)]
    else:
        pytest.skip("no X server: neither $DISPLAY nor xvfb-run (apt-get install xvfb)")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "WINDOW OK False" in r.stdout
