"""
Vulkan runtime launch latency and bandwidth, on hand-written SPIR-V (test/python/
vulkan_shaders.py; needs spirv-as and spirv-val).

    python bench/vulkan_launch.py [--device NAME_OR_INDEX] [--repeat R] [--inner N] [--staged]

Prints
- the device and whether buffers are mapped directly or staged;
- microseconds for `launch` alone (recording a tiny dispatch), for 1000 tiny launches then
  one `sync` (per launch), for `launch` + `sync` of a tiny dispatch (one workgroup, one
  element), and for `launch` + `download` of 4 bytes;
- saxpy over 2^24 f32 elements (y = a*x + y, 12 bytes moved per element): milliseconds per
  launch and GB/s, with the group count capped at the device limit (grid-stride);
- upload and download of 64 MiB: GB/s.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "python"))

from taichi_xdsl.targets.vulkan import VulkanRuntime, vulkan_available
from vulkan_shaders import SAXPY, assemble, spirv_tools_missing


def best_of(fn, repeat: int, inner: int) -> float:
    """Best mean seconds per call of `fn` over `repeat` rounds of `inner` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        best = min(best, (time.perf_counter() - start) / inner)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--device", default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--inner", type=int, default=10, help="saxpy launches per sync")
    parser.add_argument(
        "--staged",
        action="store_true",
        help="force staging copies even where memory is host-visible",
    )
    args = parser.parse_args()
    ok, reason = vulkan_available(args.device)
    if not ok:
        sys.exit(f"Vulkan unavailable: {reason}")
    if (missing := spirv_tools_missing()) is not None:
        sys.exit(missing)
    spirv = assemble(SAXPY)

    with VulkanRuntime(args.device, direct_memory=False if args.staged else None) as rt:
        print(f"device: {rt.caps.summary()}")
        print(
            f"memory: {'direct (host-visible device memory)' if rt.pool.direct else 'staged'}"
        )
        saxpy = rt.load_kernel(spirv, push_constant_bytes=8)

        # Tiny dispatch: one group, one element.
        x, y = rt.allocate(4), rt.allocate(4)
        rt.upload(x, np.ones(1, np.float32))
        rt.upload(y, np.zeros(1, np.float32))
        pc = struct.pack("<fI", 1.0, 1)
        out = np.empty(1, np.float32)
        rt.sync()

        def launch_only():
            rt.launch(saxpy, [x, y], 1, push_constants=pc)

        def launch_sync():
            rt.launch(saxpy, [x, y], 1, push_constants=pc)
            rt.sync()

        def launch_download():
            rt.launch(saxpy, [x, y], 1, push_constants=pc)
            rt.download(y, out)

        t_launch = best_of(launch_only, args.repeat, 200)
        rt.sync()

        def thousand_then_sync():
            for _ in range(1000):
                rt.launch(saxpy, [x, y], 1, push_constants=pc)
            rt.sync()

        t_batched = best_of(thousand_then_sync, args.repeat, 1) / 1000
        t_sync = best_of(launch_sync, args.repeat, 200)
        t_down = best_of(launch_download, args.repeat, 200)
        print(f"launch (record only):        {t_launch * 1e6:8.1f} us")
        print(f"1000 launches + 1 sync:      {t_batched * 1e6:8.1f} us per launch")
        print(f"launch + sync, tiny:         {t_sync * 1e6:8.1f} us")
        print(f"launch + download 4 B, tiny: {t_down * 1e6:8.1f} us")

        # Bandwidth: saxpy over 2^24 elements.
        n = 1 << 24
        hx = np.random.default_rng(0).random(n, dtype=np.float32)
        hy = np.random.default_rng(1).random(n, dtype=np.float32)
        bx, by = rt.allocate(4 * n), rt.allocate(4 * n)
        rt.upload(bx, hx)
        rt.upload(by, hy)
        groups = rt.group_count(saxpy, n)
        pc = struct.pack("<fI", 0.5, n)
        rt.launch(saxpy, [bx, by], groups, push_constants=pc)  # warm-up
        rt.sync()
        inner = args.inner

        def saxpy_batch():
            for _ in range(inner):
                rt.launch(saxpy, [bx, by], groups, push_constants=pc)
            rt.sync()

        t = best_of(saxpy_batch, args.repeat, 1) / inner
        print(
            f"saxpy 2^24 f32 ({groups} groups x 128): {t * 1e3:8.2f} ms/launch, "
            f"{12 * n / t / 1e9:6.2f} GB/s"
        )
        # Check the result of the 1 + repeat * inner launches.
        got = rt.download(by, np.empty_like(hy))
        launches = 1 + args.repeat * inner
        expect = hy + np.float32(0.5 * launches) * hx
        print(
            f"saxpy max relative error after {launches} launches: "
            f"{float(np.max(np.abs(got - expect) / np.abs(expect))):.2e}"
        )

        t_up = best_of(lambda: (rt.upload(bx, hx), rt.sync()), args.repeat, 1)
        t_dn = best_of(lambda: rt.download(bx, hx), args.repeat, 1)
        print(f"upload 64 MiB:   {hx.nbytes / t_up / 1e9:6.2f} GB/s")
        print(f"download 64 MiB: {hx.nbytes / t_dn / 1e9:6.2f} GB/s")


if __name__ == "__main__":
    main()
