"""
A real window: a ti.GUI program run under an X server (the one of $DISPLAY, else a
fresh Xvfb through xvfb-run) draws a scene, shows it, and compares the window's own
pixels (a screenshot of the pygame surface) with the canvas it was handed. Input
events posted to the window's queue (as SDL does for the X server's) reach ti.GUI's
and ti.ui's event APIs and widgets under Taichi's key names.
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


EVENTS = textwrap.dedent(
    """
    import threading
    import numpy as np
    import pygame
    import taichi_xdsl as ti
    ti.init(arch=ti.{arch})

    def post(kind, **kw):
        pygame.event.post(pygame.event.Event(kind, **kw))

    gui = ti.GUI("events", res=(400, 200))
    assert gui.window is not None, "no window opened"
    speed = gui.slider("speed", 0, 10, step=1)   # pixels x 216..396, y 4..26 from the top
    post(pygame.KEYDOWN, key=pygame.K_a)
    post(pygame.KEYDOWN, key=pygame.K_ESCAPE)
    post(pygame.MOUSEMOTION, pos=(50, 25), rel=(0, 0), buttons=(0, 0, 0))
    post(pygame.MOUSEBUTTONDOWN, pos=(50, 25), button=1)
    assert gui.is_pressed("a") and gui.is_pressed(ti.GUI.LMB) and not gui.is_pressed("b")
    assert gui.get_cursor_pos() == (0.125, 0.875), gui.get_cursor_pos()
    post(pygame.MOUSEBUTTONUP, pos=(50, 25), button=1)
    post(pygame.MOUSEBUTTONDOWN, pos=(390, 10), button=1)   # near the slider's right end
    post(pygame.MOUSEBUTTONUP, pos=(390, 10), button=1)
    assert gui.get_event(ti.GUI.ESCAPE) and gui.event.type == ti.GUI.PRESS
    events = [(e.type, e.key) for e in gui.get_events()]
    expect = [(ti.GUI.MOTION, ti.GUI.MOVE), (ti.GUI.PRESS, ti.GUI.LMB), (ti.GUI.RELEASE, ti.GUI.LMB)]
    assert events == expect, events   # the slider's click is not queued
    assert speed.value == 10, speed.value
    assert not gui.is_pressed(ti.GUI.LMB)
    post(pygame.KEYUP, key=pygame.K_a)
    assert not gui.is_pressed("a")
    gui.show()
    gui.close()

    window = ti.ui.Window("ggui events", (200, 100))
    assert window._window is not None
    post(pygame.KEYDOWN, key=pygame.K_w)
    post(pygame.MOUSEBUTTONDOWN, pos=(100, 50), button=3)
    assert window.is_pressed("w") and window.is_pressed(ti.ui.RMB)
    assert window.get_event(ti.ui.PRESS) and window.event.key == "w"
    assert [e.key for e in window.get_events(ti.ui.PRESS)] == [ti.ui.RMB]
    window.show()
    window.destroy()

    # imshow keeps its window until Escape
    timer = threading.Timer(0.5, post, (pygame.KEYDOWN,), dict(key=pygame.K_ESCAPE))
    timer.start()
    ti.tools.imshow(np.zeros((40, 30, 3), np.float32), "imshow")
    print("EVENTS OK")
    """
)


def _skip_without_vulkan(arch_name: str) -> None:
    if arch_name == "vulkan":
        from taichi_xdsl.targets.vulkan import vulkan_available

        ok, reason = vulkan_available()
        if not ok:
            pytest.skip(f"no Vulkan device: {reason}")


def _run_on_display(script) -> subprocess.CompletedProcess:
    """Run the script where a window can open: $DISPLAY, else a fresh Xvfb."""
    env = dict(os.environ)
    env.pop("SDL_VIDEODRIVER", None)
    env.pop("TI_GUI_SHOW", None)
    if env.get("DISPLAY"):
        cmd = [sys.executable, str(script)]
    elif shutil.which("xvfb-run"):
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 320x240x24", sys.executable, str(script)]
    else:
        pytest.skip("no X server: neither $DISPLAY nor xvfb-run (apt-get install xvfb)")
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("arch_name", ["cpu", "vulkan"])
def test_window_events_reach_gui_ggui_and_widgets(arch_name, tmp_path):
    _skip_without_vulkan(arch_name)
    script = tmp_path / "events.py"
    script.write_text(EVENTS.format(arch=arch_name))
    r = _run_on_display(script)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "EVENTS OK" in r.stdout


@pytest.mark.parametrize("arch_name", ["cpu", "vulkan"])
def test_window_screenshot_matches_canvas(arch_name, tmp_path):
    _skip_without_vulkan(arch_name)
    script = tmp_path / "window.py"
    script.write_text(PROGRAM.format(arch=arch_name))
    r = _run_on_display(script)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "WINDOW OK False" in r.stdout
