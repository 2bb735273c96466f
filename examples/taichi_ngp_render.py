"""
Render one frame of Taichi's Instant-NGP example (rendering/taichi_ngp.py, or its
real_func/ variant) with its own NGP_fw class and a model file (taichi_ngp_model.py
writes a synthetic one), on taichi-xdsl or on Taichi itself, and save what the frame
computed (rgb, depth, opacity per ray) to compare the two:

    python examples/taichi_ngp_render.py --model ngp.npy --out ours.npz PROGRAM.py
    python examples/taichi_ngp_render.py --taichi --model ngp.npy --out ti.npz PROGRAM.py
    python examples/taichi_ngp_render.py --compare ours.npz ti.npz

The model is loaded as NGP_fw.load_model loads it, except that the hash table goes in
chunks of 2^22 entries: Taichi's own from_numpy of its 11,445,040 entries asks Vulkan for
more workgroups than lavapipe allows (65,535), so Taichi could not run the example there
otherwise. The frame is NGP_fw.render's, the picture the program shows from it. (No
`from __future__ import annotations` here: Taichi reads a kernel's annotations as objects.)
"""

import argparse
import runpy
import time

import numpy as np

CHUNK = 1 << 22


def load_model(ti, ngp, path: str, res: int) -> None:
    """NGP_fw.load_model, the hash table loaded in chunks (see the module docstring)."""

    @ti.kernel
    def load_chunk(dst: ti.template(), src: ti.types.ndarray(), start: int):
        for i in range(src.shape[0]):
            dst[start + i] = src[i]

    model = np.load(path, allow_pickle=True).item()
    table = model["model.xyz_encoder.params"].astype(np.float16)
    for start in range(0, table.shape[0], CHUNK):
        load_chunk(ngp.hash_embedding, table[start : start + CHUNK], start)
    ngp.sigma_weights.from_numpy(model["model.xyz_sigmas.params"].astype(np.float16))
    ngp.rgb_weights.from_numpy(model["model.rgb_net.params"].astype(np.float16))
    ngp.density_bitfield.from_numpy(model["model.density_bitfield"].view("uint32"))
    ngp.pose.from_numpy(model["poses"][20].astype(np.float16))
    if res == 800:
        directions = model["directions"]
    else:
        directions = ngp.get_direction(model["camera_angle_x"])
    ngp.directions.from_numpy(directions[:, None, :].astype(np.float16))


def render(opts: argparse.Namespace) -> None:
    if opts.taichi:
        import taichi as ti
    else:
        from run_taichi_example import taichi_as_taichi_xdsl

        ti = taichi_as_taichi_xdsl()
    init = ti.init
    ti.init = lambda *args, **kwargs: init(**{**kwargs, "arch": getattr(ti, opts.arch)})
    program = runpy.run_path(opts.program, run_name="taichi_ngp")
    ngp_class = program["NGP_fw"]
    ngp_class.taichi_init(False)
    # main()'s settings
    ngp = ngp_class(
        scale=0.5, cascades=1, grid_size=128, base_res=16, log2_T=19,
        res=[opts.res, opts.res], level=16, exp_step_factor=0,
    )  # fmt: skip
    load_model(ti, ngp, opts.model, opts.res)
    ngp.hash_table_init()
    for attempt in ("first (compiles)", "second"):
        ngp.rgb.fill(0.0)
        start = time.perf_counter()
        samples, alive, _ = ngp.render(max_samples=opts.max_samples, T_threshold=1e-2)
        took = time.perf_counter() - start
        print(f"{attempt} render: {took:.1f} s, {samples} samples, {alive} rays alive")
        if not opts.twice:
            break
    frame = {"rgb": ngp.rgb, "depth": ngp.depth, "opacity": ngp.opacity}
    np.savez(opts.out, **{name: field.to_numpy() for name, field in frame.items()})
    print(f"wrote {opts.out}")


def compare(a_path: str, b_path: str) -> None:
    a, b = np.load(a_path), np.load(b_path)
    for name in a.files:
        diff = np.abs(a[name].astype(np.float64) - b[name])
        print(
            f"{name}: means {a[name].mean():.6f} / {b[name].mean():.6f}, "
            f"max difference {diff.max():.3g}, mean {diff.mean():.3g}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("program", nargs="?", help="taichi_ngp.py")
    ap.add_argument("--model", default="ngp_model.npy")
    ap.add_argument("--out", default="ngp_frame.npz")
    ap.add_argument("--res", type=int, default=64)
    ap.add_argument("--arch", default="vulkan", help="ti.init's arch (the program's: cuda)")
    ap.add_argument("--max-samples", dest="max_samples", type=int, default=100)
    ap.add_argument("--twice", action="store_true", help="render again, compiled: its time")
    ap.add_argument("--taichi", action="store_true", help="run under Taichi itself")
    ap.add_argument("--compare", nargs=2, metavar="NPZ", help="compare two saved frames")
    opts = ap.parse_args()
    if opts.compare:
        compare(*opts.compare)
    elif opts.program:
        render(opts)
    else:
        ap.error("a program to run, or --compare A B")


if __name__ == "__main__":
    main()
