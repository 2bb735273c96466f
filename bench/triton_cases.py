"""
The GPU reference: Triton kernels doing the work of the bench cases on the same GPU (the
issue's target: julia, n-body and stencil within 1.5x of Triton; saxpy and the reduction
against the device's copy bandwidth). Each `make_<case>()` returns (step, result, sync)
with the data already on the device. Needs `triton` and `torch` with CUDA.

julia: Triton has no per-lane early exit, so each lane runs the 50 iterations with its
escape masked (the same arithmetic a SIMT GPU spends on a diverged warp).
"""

from __future__ import annotations

import math

import numpy as np
import torch
import triton
import triton.language as tl

DEVICE = "cuda"


def _sync() -> None:
    torch.cuda.synchronize()


@triton.jit
def _saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)


def make_saxpy():
    n = 1 << 24
    x = torch.tensor(np.arange(n, dtype=np.float32) % 1000, device=DEVICE)
    y = torch.ones(n, dtype=torch.float32, device=DEVICE)
    grid = (triton.cdiv(n, 1024),)
    return (
        (lambda: _saxpy[grid](x, y, 0.5, n, BLOCK=1024)),
        (lambda: y[:: n // 4096].cpu().numpy()),
        _sync,
    )


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def make_copy():
    n = 1 << 24
    x = torch.tensor(np.arange(n, dtype=np.float32) % 1000, device=DEVICE)
    y = torch.zeros(n, dtype=torch.float32, device=DEVICE)
    grid = (triton.cdiv(n, 1024),)
    return (
        (lambda: _copy[grid](x, y, n, BLOCK=1024)),
        (lambda: y[:: n // 4096].cpu().numpy()),
        _sync,
    )


@triton.jit
def _reduce(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def make_reduce():
    n = 1 << 24
    x = torch.tensor((np.arange(n) % 7).astype(np.float32) * 0.125, device=DEVICE)
    out = torch.zeros(1, dtype=torch.float32, device=DEVICE)
    grid = (triton.cdiv(n, 4096),)

    def step() -> None:
        out.zero_()
        _reduce[grid](x, out, n, BLOCK=4096)

    return step, (lambda: out.cpu().numpy().astype(np.float64)), _sync


@triton.jit
def _julia(p_ptr, n, c0, c1, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    i = (offs // n).to(tl.float32)
    j = (offs % n).to(tl.float32)
    z0 = (i / n - 1.0) * 2.0
    z1 = (j / n - 0.5) * 2.0
    it = tl.zeros([BLOCK], dtype=tl.int32)
    for _ in range(50):
        active = tl.sqrt(z0 * z0 + z1 * z1) < 20.0
        n0 = z0 * z0 - z1 * z1 + c0
        n1 = z1 * z0 * 2.0 + c1
        z0 = tl.where(active, n0, z0)
        z1 = tl.where(active, n1, z1)
        it += active.to(tl.int32)
    tl.store(p_ptr + offs, 1.0 - it.to(tl.float32) * 0.02, mask=mask)


def make_julia():
    n = 640
    pixels = torch.zeros((2 * n, n), dtype=torch.float32, device=DEVICE)
    total = 2 * n * n
    c1 = math.cos(0.9) * 0.2
    grid = (triton.cdiv(total, 256),)
    return (
        (lambda: _julia[grid](pixels, n, -0.8, c1, total, BLOCK=256)),
        (lambda: pixels[::16, ::16].cpu().numpy()),
        _sync,
    )


@triton.jit
def _nbody_vel(pos_ptr, vel_ptr, n, dt, BI: tl.constexpr, BJ: tl.constexpr):
    i = tl.program_id(0) * BI + tl.arange(0, BI)
    px = tl.load(pos_ptr + i * 3 + 0)
    py = tl.load(pos_ptr + i * 3 + 1)
    pz = tl.load(pos_ptr + i * 3 + 2)
    ax = tl.zeros([BI], dtype=tl.float32)
    ay = tl.zeros([BI], dtype=tl.float32)
    az = tl.zeros([BI], dtype=tl.float32)
    for start in range(0, n, BJ):
        j = start + tl.arange(0, BJ)
        dx = tl.load(pos_ptr + j * 3 + 0)[None, :] - px[:, None]
        dy = tl.load(pos_ptr + j * 3 + 1)[None, :] - py[:, None]
        dz = tl.load(pos_ptr + j * 3 + 2)[None, :] - pz[:, None]
        r2 = dx * dx + dy * dy + dz * dz + 0.01
        inv = 1.0 / (r2 * tl.sqrt(r2))
        ax += tl.sum(dx * inv, axis=1)
        ay += tl.sum(dy * inv, axis=1)
        az += tl.sum(dz * inv, axis=1)
    tl.store(vel_ptr + i * 3 + 0, tl.load(vel_ptr + i * 3 + 0) + dt * ax)
    tl.store(vel_ptr + i * 3 + 1, tl.load(vel_ptr + i * 3 + 1) + dt * ay)
    tl.store(vel_ptr + i * 3 + 2, tl.load(vel_ptr + i * 3 + 2) + dt * az)


@triton.jit
def _nbody_pos(pos_ptr, vel_ptr, total, dt, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    p = tl.load(pos_ptr + offs, mask=mask)
    tl.store(pos_ptr + offs, p + dt * tl.load(vel_ptr + offs, mask=mask), mask=mask)


def make_nbody():
    n = 4096
    rng = np.random.default_rng(1)
    pos = torch.tensor(rng.random((n, 3), dtype=np.float32), device=DEVICE)
    vel = torch.zeros((n, 3), dtype=torch.float32, device=DEVICE)

    def step() -> None:
        _nbody_vel[(n // 64,)](pos, vel, n, 1e-5, BI=64, BJ=64)
        _nbody_pos[(triton.cdiv(3 * n, 1024),)](pos, vel, 3 * n, 1e-5, BLOCK=1024)

    return step, (lambda: vel[::64].cpu().numpy()), _sync


@triton.jit
def _stencil(u_ptr, v_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0) + 1
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK) + 1
    mask = cols < n - 1
    c = row * n + cols
    u = tl.load(u_ptr + c, mask=mask)
    up = tl.load(u_ptr + c - n, mask=mask)
    down = tl.load(u_ptr + c + n, mask=mask)
    left = tl.load(u_ptr + c - 1, mask=mask)
    right = tl.load(u_ptr + c + 1, mask=mask)
    tl.store(v_ptr + c, u + 0.2 * (up + down + left + right - 4.0 * u), mask=mask)


def make_stencil():
    n = 2048
    u0 = (np.arange(n * n, dtype=np.float32).reshape(n, n) % 13) * 0.5
    u = torch.tensor(u0, device=DEVICE)
    v = torch.zeros((n, n), dtype=torch.float32, device=DEVICE)
    grid = (n - 2, triton.cdiv(n - 2, 512))
    return (
        (lambda: _stencil[grid](u, v, n, BLOCK=512)),
        (lambda: v[1:-1:32, 1:-1:32].cpu().numpy()),
        _sync,
    )
