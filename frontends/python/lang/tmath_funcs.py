"""
The `ti.math` functions written in the kernel language itself (each a ti.func, used in
kernels): angle conversion, GLSL's mod and refract, 4x4 transforms (translate, scale,
rotations), 2d rotations and directions, eye, and complex numbers held in a vec2
(cmul, cdiv, cconj, cinv, csqrt, cpow, cexp, clog).

Rotation conventions (as Taichi's): matrices act on column vectors of homogeneous
coordinates, `rot_yaw_pitch_roll(yaw, pitch, roll)` = Z(roll) @ X(pitch) @ Y(yaw) with
the elementary rotations below, `rotation3d(x, y, z)` = rot_yaw_pitch_roll(z, x, y),
and `rot_by_axis(a, t)` = cos(t) I + (1 - cos(t)) a a^T - sin(t) [a]x for the unit axis a.

The parameters carry no annotations: a ti.func's annotations are Taichi types.
"""

from __future__ import annotations

import math as _math
from . import ops
from .kernel import func
from .matrix import Matrix, MatrixType
from .types import template

_vec2 = MatrixType(2, None, float)
_mat2 = MatrixType(2, 2, float)
_mat4 = MatrixType(4, 4, float)


@func
def degrees(x):
    """Radians to degrees."""
    return x * (180.0 / _math.pi)


@func
def radians(x):
    """Degrees to radians."""
    return x * (_math.pi / 180.0)


@func
def mod(x, y):
    """GLSL's mod: x - y * floor(x / y)."""
    return x - y * ops.floor(x / y)


@func
def refract(x, n, eta):
    """GLSL's refract of the incident vector x at the normal n (ratio eta)."""
    cos_i = x.dot(n)
    k = 1.0 - eta * eta * (1.0 - cos_i * cos_i)
    out = x * 0.0
    if k >= 0.0:
        out = eta * x - (eta * cos_i + ops.sqrt(k)) * n
    return out


@func
def translate(dx, dy, dz):
    """The 4x4 homogeneous translation by (dx, dy, dz)."""
    return _mat4(
        [
            [1.0, 0.0, 0.0, dx],
            [0.0, 1.0, 0.0, dy],
            [0.0, 0.0, 1.0, dz],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@func
def scale(sx, sy, sz):
    """The 4x4 homogeneous scaling by (sx, sy, sz)."""
    return _mat4(
        [
            [sx, 0.0, 0.0, 0.0],
            [0.0, sy, 0.0, 0.0],
            [0.0, 0.0, sz, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@func
def rotation2d(ang):
    """The 2x2 counter-clockwise rotation by ang."""
    c = ops.cos(ang)
    s = ops.sin(ang)
    return _mat2([[c, -s], [s, c]])


@func
def _homogeneous(r):
    """A 3x3 matrix as the upper-left block of a 4x4 one."""
    return _mat4(
        [
            [r[0, 0], r[0, 1], r[0, 2], 0.0],
            [r[1, 0], r[1, 1], r[1, 2], 0.0],
            [r[2, 0], r[2, 1], r[2, 2], 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@func
def rot_yaw_pitch_roll(yaw, pitch, roll):
    """The 4x4 rotation by the Euler angles: Y (yaw) first, X (pitch), Z (roll)."""
    ch, sh = ops.cos(yaw), ops.sin(yaw)
    cp, sp = ops.cos(pitch), ops.sin(pitch)
    cr, sr = ops.cos(roll), ops.sin(roll)
    y = Matrix([[ch, 0.0, -sh], [0.0, 1.0, 0.0], [sh, 0.0, ch]])
    x = Matrix([[1.0, 0.0, 0.0], [0.0, cp, sp], [0.0, -sp, cp]])
    z = Matrix([[cr, sr, 0.0], [-sr, cr, 0.0], [0.0, 0.0, 1.0]])
    return _homogeneous(z @ x @ y)


@func
def rotation3d(ang_x, ang_y, ang_z):
    """The 4x4 rotation by angles about X, Y and Z (rot_yaw_pitch_roll(z, x, y))."""
    return rot_yaw_pitch_roll(ang_z, ang_x, ang_y)


@func
def rot_by_axis(axis, ang):
    """The 4x4 rotation by ang about axis (normalized first)."""
    a = axis.normalized()
    c, s = ops.cos(ang), ops.sin(ang)
    k = Matrix([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    r = c * Matrix.identity(float, 3) + (1.0 - c) * a.outer_product(a) - s * k
    return _homogeneous(r)


@func
def eye(n: template()):
    """The n x n identity matrix."""
    return Matrix.identity(float, n)


@func
def vdir(ang):
    """The unit 2d vector at angle ang: (cos ang, sin ang)."""
    return _vec2(ops.cos(ang), ops.sin(ang))


# -- complex numbers as vec2 (re, im) -------------------------------------------------


@func
def cmul(z1, z2):
    """z1 * z2."""
    return _vec2(z1[0] * z2[0] - z1[1] * z2[1], z1[0] * z2[1] + z1[1] * z2[0])


@func
def cconj(z):
    """The conjugate of z."""
    return _vec2(z[0], -z[1])


@func
def cdiv(z1, z2):
    """z1 / z2."""
    return cmul(z1, cconj(z2)) / (z2[0] * z2[0] + z2[1] * z2[1])


@func
def cinv(z):
    """1 / z."""
    return cconj(z) / (z[0] * z[0] + z[1] * z[1])


@func
def cexp(z):
    """e ** z."""
    r = ops.exp(z[0])
    return _vec2(r * ops.cos(z[1]), r * ops.sin(z[1]))


@func
def clog(z):
    """The principal logarithm of z (argument in (-pi, pi])."""
    return _vec2(0.5 * ops.log(z[0] * z[0] + z[1] * z[1]), ops.atan2(z[1], z[0]))


@func
def cpow(z, n):
    """z ** n (0 for z = 0)."""
    out = _vec2(0.0, 0.0)
    if z[0] != 0.0 or z[1] != 0.0:
        ang = ops.atan2(z[1], z[0]) * n
        out = ops.pow(z[0] * z[0] + z[1] * z[1], n / 2.0) * _vec2(
            ops.cos(ang), ops.sin(ang)
        )
    return out


@func
def csqrt(z):
    """The square root of z with a positive real part (or non-negative imaginary)."""
    out = _vec2(0.0, 0.0)
    if z[0] != 0.0 or z[1] != 0.0:
        r = ops.sqrt(ops.sqrt(z[0] * z[0] + z[1] * z[1]))
        half = ops.atan2(z[1], z[0]) / 2.0
        out = r * _vec2(ops.cos(half), ops.sin(half))
    return out


__all__ = [
    "cconj",
    "cdiv",
    "cexp",
    "cinv",
    "clog",
    "cmul",
    "cpow",
    "csqrt",
    "degrees",
    "eye",
    "mod",
    "radians",
    "refract",
    "rot_by_axis",
    "rot_yaw_pitch_roll",
    "rotation2d",
    "rotation3d",
    "scale",
    "translate",
    "vdir",
]
