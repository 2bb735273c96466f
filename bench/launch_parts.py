"""
Where a CPU kernel launch's time goes: the bench's `launch` case (a kernel with one
scalar argument that stores it in a 0-d field), called from a Python loop, taken apart.

    python bench/launch_parts.py [--calls N] [--rounds R] [--threads 1]

Each part is a loop of N calls of one callable; the parts are timed in turn, round after
round (paired: a load spike hits every part of a round alike), and the median over the
rounds is printed in microseconds a call (the loop's own cost included: `empty`).

- empty: a Python function that does nothing (the loop and one Python call);
- native: the compiled instance's native launcher, `native(root, (k,))` (a builtin);
- run: the instance's launcher as `Kernel.__call__` calls it, `run((k,))`;
- call: the kernel as a user calls it, `tiny(k)` (its direct entry: direct_call.py);
- numpy_arg: `tiny(v)` with `v` a NumPy int32 (which the native launcher declines: the
  general path and ctypes);
- general: the same on the general path, `Kernel.__call__` (a second kernel kept from
  being armed: the path every call took before direct calls);
- call_in_tape, call_profiled, call_recording: `tiny(k)` inside a ti.ad.Tape, with the
  kernel profiler on, and while ti.aot records launches (each on the path it takes then).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import taichi_xdsl as ti


def _loop(fn: Callable[[int], Any], calls: int) -> float:
    start = time.perf_counter()
    for k in range(calls):
        fn(k)
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--parts", default=None,
                        help="comma-separated parts to time (default: all); no hooks then")
    args = parser.parse_args()

    ti.init(arch=ti.cpu, cpu_max_num_threads=args.threads)
    flag = ti.field(ti.i32, shape=())
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def tiny(value: ti.i32):
        flag[None] = value

    @ti.kernel
    def general(value: ti.i32):
        flag[None] = value

    for _ in range(2):
        tiny(1)
        general(1)
    plain = type(general).__base__ if "_direct" in type(general).__dict__ else type(general)
    general.__class__ = plain  # armed again only by a call that falls back: none here
    from taichi_xdsl.frontends.python.lang import program as _program

    prog = _program.get_program()
    run = next(iter(tiny._instances.values()))
    compiled = run.compiled
    native = getattr(compiled, "native_call", None)

    def empty(k: int) -> None:
        pass

    parts: dict[str, Callable[[int], Any]] = {"empty": empty}
    if native is not None:
        parts["native"] = lambda k: native(prog._root, (k,))
    parts["run"] = lambda k: run((k,))
    parts["call"] = tiny
    parts["general"] = general
    values = [np.int32(v) for v in range(256)]
    parts["numpy_arg"] = lambda k: tiny(values[k & 255])
    if args.parts:
        parts = {name: parts[name] for name in args.parts.split(",")}

    samples: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(args.rounds):
        for name, fn in parts.items():
            _loop(fn, args.calls // 10)  # warm
            samples[name].append(_loop(fn, args.calls))

    # The hooks: a few rounds of fewer calls (these paths are slow by design).
    hooked: dict[str, list[float]] = {"call_in_tape": [], "call_recording": []}
    few = max(args.calls // 20, 1000)
    for _ in range(0 if args.parts else args.rounds):
        with ti.ad.Tape(loss=loss):
            hooked["call_in_tape"].append(_loop(tiny, few))
        with tempfile.TemporaryDirectory() as tmp:
            ti.aot.start_recording(str(Path(tmp) / "record.yml"))
            try:
                hooked["call_recording"].append(_loop(tiny, few))
            finally:
                ti.aot.stop_recording()
    if not args.parts:
        ti.init(arch=ti.cpu, cpu_max_num_threads=args.threads, kernel_profiler=True)
        flag = ti.field(ti.i32, shape=())
        tiny(1)
        hooked["call_profiled"] = [_loop(tiny, few) for _ in range(args.rounds)]

    print(f"us a call, median of {args.rounds} rounds of {args.calls} calls "
          f"(hooks: {few} calls)")
    for name, values in {**samples, **hooked}.items():
        if not values:
            continue
        print(f"{name:16s} {statistics.median(values):8.3f}   "
              f"(min {min(values):.3f}, max {max(values):.3f})")


if __name__ == "__main__":
    main()
