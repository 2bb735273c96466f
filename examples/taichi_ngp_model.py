"""
A synthetic model for Taichi's Instant-NGP example (rendering/taichi_ngp.py), which
otherwise downloads a trained one: the same keys, shapes and dtypes, seeded random
weights, and an occupancy grid holding a ball, so that its render is a lit, coloured
ball and not a blank picture.

    python examples/taichi_ngp_model.py [--out ngp_model.npy] [--seed 0]
    python examples/run_taichi_example.py --frames 1 --out ngp.png \\
        /tmp/taichi-src/python/taichi/examples/rendering/taichi_ngp.py \\
        --gui --res 64 --model_path ngp_model.npy

What the program reads (NGP_fw.load_model and its constructor), a dict saved by
np.save and read back with np.load(..., allow_pickle=True).item():
  model.xyz_encoder.params  float32 (11445040,)  16 levels of a hash grid, 2 features
                                                 per entry (NGP_fw.hash_table_init)
  model.xyz_sigmas.params   float32 (3072,)      32 -> 64 -> 16, row-major, no biases;
                                                 density = exp(output 0)
  model.rgb_net.params      float32 (6656,)      32 -> 64 -> 64 -> 3 (rows padded to 8);
                                                 colour = sigmoid(output)
  model.density_bitfield    uint8 (262144,)      one bit a cell of the 128^3 grid, in
                                                 Morton order (viewed as uint32 words)
  poses                     float32 (N, 3, 4)    camera-to-world; the program takes [20]
  camera_angle_x            float                horizontal field of view, radians
  directions                float32 (640000, 3)  camera rays of an 800x800 picture
"""

from __future__ import annotations

import argparse

import numpy as np

GRID = 128  # the program's grid_size
LEVELS = 16
BASE_RES = 16
PER_LEVEL_SCALE = 1.3195079565048218
LOG2_T = 19
FOV_X = 0.6911112070083618
POSE_INDEX = 20


def hash_grid_entries() -> list[int]:
    """Entries of each level of the hash grid, as NGP_fw.hash_table_init sizes them."""
    sizes = []
    for level in range(LEVELS):
        res = int(np.ceil(BASE_RES * PER_LEVEL_SCALE**level - 1.0)) + 1
        sizes.append(min(2**LOG2_T, -(-(res**3) // 8) * 8))
    return sizes


def morton3d(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Interleave the bits of three 10-bit coordinates: x in bit 0, y in bit 1, z in 2."""

    def spread(v: np.ndarray) -> np.ndarray:
        v = v.astype(np.uint64)
        out = np.zeros_like(v)
        for bit in range(10):
            out |= ((v >> np.uint64(bit)) & np.uint64(1)) << np.uint64(3 * bit)
        return out

    return spread(x) | (spread(y) << np.uint64(1)) | (spread(z) << np.uint64(2))


def ball_bitfield(radius: float) -> np.ndarray:
    """Occupancy bits of the cells whose centres lie in a ball about the origin (the
    grid spans [-0.5, 0.5]^3), as bytes in the program's Morton order."""
    c = (np.arange(GRID) + 0.5) / GRID - 0.5
    x, y, z = np.meshgrid(np.arange(GRID), np.arange(GRID), np.arange(GRID), indexing="ij")
    inside = c[x] ** 2 + c[y] ** 2 + c[z] ** 2 <= radius**2
    idx = morton3d(x[inside], y[inside], z[inside])
    words = np.zeros(GRID**3 // 32, dtype=np.uint32)
    bits = (np.uint64(1) << (idx % np.uint64(32))).astype(np.uint32)
    np.bitwise_or.at(words, (idx // np.uint64(32)).astype(np.int64), bits)
    return words.view(np.uint8)


def look_at(eye: np.ndarray, target: np.ndarray) -> np.ndarray:
    """A 3x4 camera-to-world matrix (x right, y down, z forward, as the program's rays)."""
    forward = (target - eye) / np.linalg.norm(target - eye)
    down = np.array([0.0, 0.0, -1.0])
    right = np.cross(down, forward)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    return np.concatenate([np.stack([right, down, forward], 1), eye[:, None]], 1)


def orbit_poses(count: int, distance: float, height: float) -> np.ndarray:
    angles = np.linspace(0.0, 2.0 * np.pi, count, endpoint=False)
    eyes = np.stack(
        [distance * np.cos(angles), distance * np.sin(angles), np.full(count, height)], 1
    )
    return np.stack([look_at(eye, np.zeros(3)) for eye in eyes]).astype(np.float32)


def directions(res: int, fov_x: float) -> np.ndarray:
    """Rays through the pixel centres of a res x res pinhole camera, z = 1."""
    focal = 0.5 * res / np.tan(0.5 * fov_x)
    u, v = np.meshgrid(np.arange(res) + 0.5, np.arange(res) + 0.5, indexing="xy")
    d = np.stack([(u - 0.5 * res) / focal, (v - 0.5 * res) / focal, np.ones_like(u)], -1)
    return d.reshape(-1, 3).astype(np.float32)


def synthetic_model(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    # features in [-1, 1], smaller on finer levels (smooth colours, some detail); the
    # first density weights all positive, so that the density exp(a sum of ReLUs) is some
    # hundreds a unit length: the ball's surface is opaque within a few samples
    embedding = np.concatenate(
        [
            rng.uniform(-1.0, 1.0, 2 * n) * 0.8**level
            for level, n in enumerate(hash_grid_entries())
        ]
    )
    sigma_in = rng.normal(0.0, 0.4, (64, 32))
    sigma_out = rng.normal(0.0, 0.15, (16, 64))
    sigma_out[0] = rng.uniform(0.2, 0.6, 64)
    rgb_in = rng.normal(0.0, 1.0 / np.sqrt(32), (64, 32))
    rgb_hidden = rng.normal(0.0, 1.5 / np.sqrt(64), (64, 64))
    rgb_out = np.zeros((8, 64))
    rgb_out[:3] = rng.normal(0.0, 2.0 / np.sqrt(64), (3, 64))
    return {
        "model.xyz_encoder.params": embedding.astype(np.float32),
        "model.xyz_sigmas.params": np.concatenate(
            [sigma_in.ravel(), sigma_out.ravel()]
        ).astype(np.float32),
        "model.rgb_net.params": np.concatenate(
            [rgb_in.ravel(), rgb_hidden.ravel(), rgb_out.ravel()]
        ).astype(np.float32),
        "model.density_bitfield": ball_bitfield(0.3),
        "poses": orbit_poses(POSE_INDEX + 10, distance=1.3, height=0.5),
        "camera_angle_x": FOV_X,
        "directions": directions(800, FOV_X),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="ngp_model.npy")
    ap.add_argument("--seed", type=int, default=0)
    opts = ap.parse_args()
    np.save(opts.out, synthetic_model(opts.seed), allow_pickle=True)
    print(f"wrote {opts.out}")


if __name__ == "__main__":
    main()
