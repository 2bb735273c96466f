"""
`ti.linalg.LinearOperator`, `MatrixFreeCG` and `MatrixFreeBICGSTAB`: Krylov solvers whose
matrix is a kernel `matvec(v, Av)` over fields, run entirely in our kernels on the
program's arch (the vectors never leave the device; only the scalars of each step do).

The algorithms are the textbook ones: conjugate gradients (Hestenes & Stiefel 1952) and
BiCGSTAB (van der Vorst 1992).
"""

from __future__ import annotations

import math
from typing import Any

import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError

from ..scratch import borrow


class LinearOperator:
    """A matrix given by its product: `matvec(v, Av)` is a kernel writing A v into Av."""

    def __init__(self, matvec_kernel: Any):
        self._matvec = matvec_kernel

    def matvec(self, x: Any, Ax: Any) -> None:
        if x.shape != Ax.shape:
            raise TaichiError(f"LinearOperator: shapes {x.shape} and {Ax.shape} differ")
        self._matvec(x, Ax)


@ti.kernel
def _dot(a: ti.template(), b: ti.template()) -> ti.f64:
    s = ti.cast(0, ti.f64)
    for I in ti.grouped(a):
        s += ti.cast(a[I] * b[I], ti.f64)
    return s


@ti.kernel
def _axpy(y: ti.template(), a: ti.f64, x: ti.template()):
    """y += a x"""
    for I in ti.grouped(y):
        y[I] += ti.cast(a, y.dtype) * x[I]


@ti.kernel
def _xpay(y: ti.template(), x: ti.template(), a: ti.f64):
    """y = x + a y"""
    for I in ti.grouped(y):
        y[I] = x[I] + ti.cast(a, y.dtype) * y[I]


@ti.kernel
def _lincomb(out: ti.template(), x: ti.template(), a: ti.f64, y: ti.template()):
    """out = x + a y"""
    for I in ti.grouped(out):
        out[I] = x[I] + ti.cast(a, out.dtype) * y[I]


@ti.kernel
def _bicgstab_p(p: ti.template(), r: ti.template(), beta: ti.f64, omega: ti.f64,
                v: ti.template()):
    """p = r + beta (p - omega v)"""
    for I in ti.grouped(p):
        p[I] = r[I] + ti.cast(beta, p.dtype) * (p[I] - ti.cast(omega, p.dtype) * v[I])


def _work_vectors(x: Any, count: int, solver: str) -> Any:
    """`count` scalar fields shaped as x, the solver's own while its `with` block runs:
    the same fields at every call, so the kernels over them compile once (see scratch)."""
    if not isinstance(x, ti.Field):
        raise TaichiError(
            f"matrix-free solvers take scalar fields, got {type(x).__name__}"
        )
    shape, dtype = tuple(x.shape), x.dtype
    make = lambda: tuple(ti.field(dtype, shape=shape) for _ in range(count))  # noqa: E731
    return borrow((solver, shape, dtype), make)


def _check(A: Any, b: Any, x: Any, name: str) -> None:
    if not isinstance(A, LinearOperator):
        raise TaichiError(f"{name}: A must be a ti.linalg.LinearOperator")
    if b.shape != x.shape:
        raise TaichiError(f"{name}: b has shape {b.shape}, x has {x.shape}")


def MatrixFreeCG(A: LinearOperator, b: Any, x: Any, tol: float = 1e-6,  # noqa: N802
                 maxiter: int = 5000, quiet: bool = True) -> bool:
    """Solve A x = b (A symmetric positive definite) in place in x, from x's value.

    Stops when the residual's 2-norm is below tol, after maxiter steps, or when a step
    would divide by zero. Returns whether the tolerance was reached.
    """
    _check(A, b, x, "MatrixFreeCG")
    with _work_vectors(b, 3, "MatrixFreeCG") as (r, p, Ap):
        return _cg(A, b, x, tol, maxiter, quiet, r, p, Ap)


def _cg(A: LinearOperator, b: Any, x: Any, tol: float, maxiter: int, quiet: bool,
        r: Any, p: Any, Ap: Any) -> bool:
    Ap.fill(0)  # as a fresh field: a matvec may leave entries (a boundary) unwritten
    A.matvec(x, Ap)
    _lincomb(r, b, -1.0, Ap)  # r = b - A x
    p.copy_from(r)
    rr = _dot(r, r)
    converged = math.sqrt(rr) < tol
    steps = 0
    while not converged and steps < maxiter:
        A.matvec(p, Ap)
        pAp = _dot(p, Ap)
        if not pAp > 0:
            break
        alpha = rr / pAp
        _axpy(x, alpha, p)
        _axpy(r, -alpha, Ap)
        rr_new = _dot(r, r)
        steps += 1
        converged = math.sqrt(rr_new) < tol
        if not quiet:
            print(f">>> Iter = {steps:4}, Residual = {math.sqrt(rr_new):e}")
        if rr_new == 0:
            break
        _xpay(p, r, rr_new / rr)
        rr = rr_new
    return converged


def MatrixFreeBICGSTAB(A: LinearOperator, b: Any, x: Any, tol: float = 1e-6,  # noqa: N802
                       maxiter: int = 5000, quiet: bool = True) -> bool:
    """Solve A x = b (A need not be symmetric) in place in x by BiCGSTAB. Returns whether
    the residual's 2-norm fell below tol."""
    _check(A, b, x, "MatrixFreeBICGSTAB")
    with _work_vectors(b, 6, "MatrixFreeBICGSTAB") as (r, r0, p, v, s, t):
        return _bicgstab(A, b, x, tol, maxiter, quiet, r, r0, p, v, s, t)


def _bicgstab(A: LinearOperator, b: Any, x: Any, tol: float, maxiter: int, quiet: bool,
              r: Any, r0: Any, p: Any, v: Any, s: Any, t: Any) -> bool:
    v.fill(0)  # as fresh fields: a matvec may leave entries (a boundary) unwritten
    t.fill(0)
    A.matvec(x, t)
    _lincomb(r, b, -1.0, t)  # r = b - A x
    r0.copy_from(r)
    p.copy_from(r)
    rho = _dot(r0, r)
    converged = math.sqrt(_dot(r, r)) < tol
    steps = 0
    while not converged and steps < maxiter:
        A.matvec(p, v)
        r0v = _dot(r0, v)
        if r0v == 0 or rho == 0:
            break
        alpha = rho / r0v
        _lincomb(s, r, -alpha, v)  # s = r - alpha v
        if math.sqrt(_dot(s, s)) < tol:
            _axpy(x, alpha, p)
            converged = True
            break
        A.matvec(s, t)
        tt = _dot(t, t)
        if tt == 0:
            break
        omega = _dot(t, s) / tt
        _axpy(x, alpha, p)
        _axpy(x, omega, s)
        _lincomb(r, s, -omega, t)  # r = s - omega t
        steps += 1
        res = math.sqrt(_dot(r, r))
        converged = res < tol
        if not quiet:
            print(f">>> Iter = {steps:4}, Residual = {res:e}")
        rho_new = _dot(r0, r)
        if omega == 0:
            break
        _bicgstab_p(p, r, (rho_new / rho) * (alpha / omega), omega, v)
        rho = rho_new
    return converged
