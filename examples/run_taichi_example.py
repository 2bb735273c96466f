"""
Run a program written for Taichi (`import taichi as ti`) unchanged on taichi-xdsl,
headless, and save the picture its GUI shows at a given frame.

    python examples/run_taichi_example.py [--frames 100] [--out frame.png]
                                          [--arch cpu|vulkan] [--window] PROGRAM.py [ARGS]

`taichi` (and taichi.math / .ui / .tools / .types) resolve to taichi_xdsl; every
ti.GUI / ti.ui.Window is headless unless --window; at the chosen frame's show() the
canvas is written to --out and the program stops. With --taichi the program runs under
Taichi itself (when installed), headless the same way: reference pictures to compare.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import tempfile
import time
import types


class _Done(Exception):
    pass


def _alias_examples(program: str) -> None:
    """Make `taichi.examples` the examples folder PROGRAM lies in, if it lies in one
    (a program may import a sibling: `from taichi.examples.patterns import taichi_logo`)."""
    d = os.path.dirname(os.path.abspath(program))
    while d != os.path.dirname(d):
        if os.path.basename(d) == "examples" and os.path.basename(os.path.dirname(d)) == "taichi":
            pkg = types.ModuleType("taichi.examples")
            pkg.__path__ = [d]
            sys.modules["taichi.examples"] = pkg
            return
        d = os.path.dirname(d)


def taichi_as_taichi_xdsl():
    """Import taichi_xdsl and make `import taichi` (and its submodules) resolve to it."""
    import taichi_xdsl as ti

    sys.modules["taichi"] = ti
    for sub in ("math", "ui", "tools", "types", "_lib", "lang"):
        sys.modules[f"taichi.{sub}"] = getattr(ti, sub)
    for sub in ti.lang.__all__:  # `from taichi.lang.enums import ...`: ours, once
        sys.modules[f"taichi.lang.{sub}"] = getattr(ti.lang, sub)
    return ti


def _headless_taichi(ti) -> None:
    """Taichi's own GUIs without windows: show_gui / show_window forced off."""
    gui_init, win_init = ti.GUI.__init__, ti.ui.Window.__init__

    def gui_headless(self, *args, **kwargs):
        kwargs["show_gui"] = False
        gui_init(self, *args, **kwargs)

    def window_headless(self, *args, **kwargs):
        kwargs["show_window"] = False
        win_init(self, *args, **kwargs)

    ti.GUI.__init__, ti.ui.Window.__init__ = gui_headless, window_headless
    # Taichi's headless ti.ui.Window raises on input queries: no input comes instead
    ti.ui.Window.get_events = lambda self, *a: []
    ti.ui.Window.get_event = lambda self, *a: False
    ti.ui.Window.is_pressed = lambda self, *a: False
    ti.ui.Window.get_cursor_pos = lambda self: (0.0, 0.0)  # as ours headless
    ti.ui.Window.event = property(lambda self: None, lambda self, value: None)
    # ... and its show() crashes without a window (on Mesa's lavapipe): a frame is ended by
    # writing it out instead, which renders it and starts the next one
    scratch = os.path.join(tempfile.mkdtemp(), "frame.png")
    ti.ui.Window.show = lambda self: self.window.write_image(scratch)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("program")
    ap.add_argument("--frames", type=int, default=100, help="save at this frame's show()")
    ap.add_argument("--out", default="frame.png")
    ap.add_argument("--arch", default=None, help="force ti.init's arch (cpu, vulkan)")
    ap.add_argument("--window", action="store_true", help="open windows (needs a display)")
    ap.add_argument("--taichi", action="store_true", help="run under Taichi itself (reference)")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")
    opts = ap.parse_args()
    if opts.taichi:
        import taichi as ti

        if not opts.window:
            _headless_taichi(ti)
    else:
        if not opts.window:
            os.environ["TI_GUI_SHOW"] = "0"
        ti = taichi_as_taichi_xdsl()
    _alias_examples(opts.program)
    if opts.arch:
        init = ti.init

        def forced_init(*args, **kwargs):
            kwargs["arch"] = getattr(ti, opts.arch)
            return init(*args[1:], **kwargs) if args else init(**kwargs)

        ti.init = forced_init

    shown = {"n": 0}
    start = time.perf_counter()

    def on_show(save) -> bool:
        shown["n"] += 1
        if shown["n"] == opts.frames:
            save(opts.out)
            raise _Done
        return False

    gui_show = ti.GUI.show

    def show(self, file=None):
        on_show(lambda out: gui_show(self, out))
        gui_show(self, file)

    ti.GUI.show = show
    win_show = ti.ui.Window.show

    def window_show(self):
        on_show(self.save_image)
        win_show(self)

    ti.ui.Window.show = window_show

    sys.argv = [opts.program, *opts.args]
    try:
        runpy.run_path(opts.program, run_name="__main__")
    except _Done:
        pass
    took = time.perf_counter() - start
    if shown["n"] < opts.frames:
        print(f"{opts.program}: ended after {shown['n']} frames, nothing saved ({took:.1f} s)")
        sys.exit(1)
    print(f"{opts.program}: frame {opts.frames} -> {opts.out} ({took:.1f} s)")


if __name__ == "__main__":
    main()
