"""
End-to-end: the classic programs of the language-core issue run unchanged: seed 003's
julia kernel on an ndarray, an O(n^2) n-body (checked against NumPy), mpm88 (physically
sane over hundreds of substeps), and the examples/ scripts.
"""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import taichi_xdsl as ti

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_seed_003_julia_on_ndarray():
    @ti.kernel
    def paint(pixels: ti.types.ndarray(dtype=ti.f32, ndim=2), n: ti.u32, t: ti.f32):
        for i, j in pixels:  # Parallelized over all pixels
            c = ti.Vector([-0.8, ti.cos(t) * 0.2])
            z = ti.Vector([i / n - 1, j / n - 0.5]) * 2
            iterations = 0
            while z.norm() < 20 and iterations < 50:
                z = ti.Vector([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2]) + c
                iterations += 1
            pixels[i, j] = 1 - iterations * 0.02

    n = 64
    pixels = ti.ndarray(shape=(n * 2, n), dtype=ti.f32)
    paint(pixels, n, 0.03)
    # the same iteration in NumPy (complex arithmetic, float64)
    i, j = np.meshgrid(np.arange(2 * n), np.arange(n), indexing="ij")
    z = (i / n - 1) * 2 + 1j * (j / n - 0.5) * 2
    c = -0.8 + 1j * np.cos(0.03) * 0.2
    it = np.zeros(z.shape, int)
    for _ in range(50):
        live = (np.abs(z) < 20) & (it < 50)
        z = np.where(live, z * z + c, z)
        it += live
    want = 1 - it * 0.02
    got = pixels.to_numpy()
    assert (np.abs(got - want) < 1e-5).mean() > 0.99  # f32 vs f64 at the set's edge


def test_nbody_accelerations_match_numpy():
    n = 64
    pos = ti.Vector.field(3, ti.f32, n)
    acc = ti.Vector.field(3, ti.f32, n)

    @ti.kernel
    def compute():
        for i in range(n):
            a = ti.Vector([0.0, 0.0, 0.0])
            for j in range(n):
                if i != j:
                    d = pos[j] - pos[i]
                    r2 = d.norm_sqr() + 0.01
                    a += d / (r2 * ti.sqrt(r2))
            acc[i] = a

    rng = np.random.default_rng(0)
    p = rng.standard_normal((n, 3)).astype(np.float32)
    pos.from_numpy(p)
    compute()
    d = p[None, :, :] - p[:, None, :]
    r2 = (d**2).sum(-1) + 0.01
    want = (d / (r2 * np.sqrt(r2))[..., None]).sum(1)
    np.testing.assert_allclose(acc.to_numpy(), want, rtol=2e-4, atol=2e-4)


def _on_arch(arch: object) -> str:
    """Python source that makes the examples' `ti.init(arch=ti.cpu)` use `arch`."""
    return (
        "import taichi_xdsl as ti\n"
        "_init = ti.init\n"
        f"ti.init = lambda *a, **k: _init(*a[1:], **{{**k, 'arch': ti.{arch.name}}})\n"
    )


def test_mpm88_stays_physical(monkeypatch, arch):
    monkeypatch.setattr(sys, "argv", ["mpm88.py"])
    init = ti.init
    monkeypatch.setattr(ti, "init", lambda *a, **k: init(*a[1:], **{**k, "arch": arch}))
    mod = runpy.run_path(str(EXAMPLES / "mpm88.py"), run_name="mpm88_test")
    mod["init"]()
    x, v, J = mod["x"], mod["v"], mod["J"]
    y0 = x.to_numpy()[:, 1].mean()
    for _ in range(400):
        mod["substep"]()
    xs, vs, js = x.to_numpy(), v.to_numpy(), J.to_numpy()
    assert np.isfinite(xs).all() and np.isfinite(vs).all()
    assert xs.min() > 0 and xs.max() < 1  # inside the box
    t = 400 * mod["dt"]
    # still in free fall: the centre of mass follows y0 - t - g t^2 / 2
    assert xs[:, 1].mean() == pytest.approx(y0 - t - 0.5 * 9.8 * t * t, abs=1e-3)
    assert 0.9 < js.min() and js.max() < 1.1


@pytest.mark.parametrize(
    "script,args,expect",
    [
        ("julia.py", ["{tmp}/julia.png"], "wrote"),
        ("nbody.py", ["64", "20"], "relative drift"),
        ("mpm88.py", ["2", "{tmp}/mpm88.png"], "wrote"),
    ],
)
def test_examples_run(tmp_path, arch, script, args, expect):
    argv = [a.format(tmp=tmp_path) for a in args]
    path = EXAMPLES / script
    launcher = (
        _on_arch(arch)
        + f"import runpy, sys\nsys.argv = {[str(path), *argv]!r}\n"
        + f"runpy.run_path({str(path)!r}, run_name='__main__')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", launcher],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "TI_GUI_SHOW": "0"},  # headless even where a display exists
    )
    assert proc.returncode == 0, proc.stderr
    assert expect in proc.stdout
    for png in tmp_path.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
