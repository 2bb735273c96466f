"""
The JIT's guard against SLP-vectorised recurrences (targets/llvm/slp_guard.py): which
vector phis it names, and that the JIT then optimises the module again without SLP,
while straight-line SLP (mpm88's stores) stays.
"""

from __future__ import annotations

import numpy as np
import pytest

import taichi_xdsl as ti
from taichi_xdsl.targets.llvm import jit
from taichi_xdsl.targets.llvm.slp_guard import cross_lane_recurrences

CROSS_LANE = """
define void @f(<2 x float> %sq0, <2 x float> %c, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %sq = phi <2 x float> [ %sq0, %entry ], [ %sq.next, %loop ]
  %s0 = extractelement <2 x float> %sq, i64 0
  %re = fsub fast float -8.000000e-01, %s0
  %v = insertelement <2 x float> %sq, float %re, i64 1
  %z = fadd fast <2 x float> %v, %c
  %sq.next = fmul fast <2 x float> %z, %z
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
"""

INDEPENDENT_LANES = """
define <2 x float> @g(ptr %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi <2 x float> [ zeroinitializer, %entry ], [ %acc.next, %loop ]
  %x = load <2 x float>, ptr %p
  %acc.next = fadd fast <2 x float> %acc, %x
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %lane = extractelement <2 x float> %acc.next, i64 0
  ret <2 x float> %acc.next
}
"""

LOOP_VECTORIZER_RECURRENCE = """
define void @h(ptr %p, i32 %n) {
entry:
  br label %vector.body
vector.body:
  %i = phi i32 [ 0, %entry ], [ %i.next, %vector.body ]
  %vector.recur = phi <2 x float> [ zeroinitializer, %entry ], [ %x, %vector.body ]
  %x = load <2 x float>, ptr %p
  %splice = shufflevector <2 x float> %vector.recur, <2 x float> %x, <2 x i32> <i32 1, i32 2>
  store <2 x float> %splice, ptr %p
  %i.next = add i32 %i, 2
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %vector.body
exit:
  ret void
}
"""


def test_a_recurrence_that_moves_lanes_is_named():
    assert cross_lane_recurrences(CROSS_LANE) == ["%sq"]


def test_independent_lanes_and_the_loop_vectorizer_are_left_alone():
    """A packed accumulator (no lane move on its cycle; the extract after the loop is
    not on it) and the loop vectoriser's own splice of a first-order recurrence."""
    assert cross_lane_recurrences(INDEPENDENT_LANES) == []
    assert cross_lane_recurrences(LOOP_VECTORIZER_RECURRENCE) == []
    assert cross_lane_recurrences(CROSS_LANE.replace("<2 x float>", "float")) == []


STRAIGHT_LINE_STORES = """
define void @scale(ptr %p, float %a) {
entry:
  %p1 = getelementptr float, ptr %p, i64 1
  %p2 = getelementptr float, ptr %p, i64 2
  %p3 = getelementptr float, ptr %p, i64 3
  %x0 = load float, ptr %p
  %x1 = load float, ptr %p1
  %x2 = load float, ptr %p2
  %x3 = load float, ptr %p3
  %y0 = fmul float %x0, %a
  %y1 = fmul float %x1, %a
  %y2 = fmul float %x2, %a
  %y3 = fmul float %x3, %a
  store float %y0, ptr %p
  store float %y1, ptr %p1
  store float %y2, ptr %p2
  store float %y3, ptr %p3
  ret void
}
"""


def test_straight_line_slp_stays():
    """The guard is not a switch: four adjacent multiplies and stores are still packed."""
    module = jit.compile_ir(STRAIGHT_LINE_STORES, keep_ir=True)
    assert module.optimized_ir is not None
    assert "fmul fast <4 x float>" in module.optimized_ir


@pytest.mark.cpu_only("the guard is part of the LLVM JIT")
def test_a_julia_kernel_compiles_without_a_lane_moving_recurrence(arch, tmp_path):
    """Seed 003's julia kernel (a ti.Vector while loop) through the frontend: its task's
    optimised IR keeps the complex square in scalars, and its pixels are right."""
    ti.init(arch=arch, dump_ir=str(tmp_path))

    @ti.kernel
    def paint(pixels: ti.types.ndarray(dtype=ti.f32, ndim=2), n: ti.u32, t: ti.f32):
        for i, j in pixels:
            c = ti.Vector([-0.8, ti.cos(t) * 0.2])
            z = ti.Vector([i / n - 1, j / n - 0.5]) * 2
            iterations = 0
            while z.norm() < 20 and iterations < 50:
                z = ti.Vector([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2]) + c
                iterations += 1
            pixels[i, j] = 1 - iterations * 0.02

    n = 16
    pixels = np.zeros((2 * n, n), dtype=np.float32)
    paint(pixels, n, 0.9)
    ir = (tmp_path / "paint.ll").read_text()
    optimized = jit.compile_ir(ir, keep_ir=True).optimized_ir
    assert optimized is not None
    assert cross_lane_recurrences(optimized) == []
    # Fast math may reassociate the square: a pixel on the set's chaotic border can
    # take one step more or less than NumPy's order of operations, the rest agree.
    expected = _julia_numpy(2 * n, n, n, 0.9)
    assert np.mean(pixels == expected) > 0.95, (pixels, expected)


def _julia_numpy(rows: int, cols: int, n: int, t: float) -> np.ndarray:
    i = np.arange(rows, dtype=np.float32)[:, None] + np.zeros(cols, dtype=np.float32)
    j = np.arange(cols, dtype=np.float32)[None, :] + np.zeros((rows, 1), dtype=np.float32)
    z0 = (i / np.float32(n) - np.float32(1)) * np.float32(2)
    z1 = (j / np.float32(n) - np.float32(0.5)) * np.float32(2)
    c0, c1 = np.float32(-0.8), np.float32(np.cos(np.float32(t)) * np.float32(0.2))
    iterations = np.zeros((rows, cols), dtype=np.int32)
    for _ in range(50):
        alive = (np.sqrt(z0 * z0 + z1 * z1) < 20) & (iterations < 50)
        z0, z1 = (
            np.where(alive, z0 * z0 - z1 * z1 + c0, z0),
            np.where(alive, z1 * z0 * 2 + c1, z1),
        )
        iterations += alive
    return np.float32(1) - iterations.astype(np.float32) * np.float32(0.02)
