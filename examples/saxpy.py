"""saxpy on the default CPU backend: y = a * x + y over 2^20-element ndarrays."""

import numpy as np
import taichi_xdsl as ti

ti.init(arch=ti.cpu)


@ti.kernel
def saxpy(a: ti.f32, x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


n = 1 << 20
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
saxpy(2.0, x, y)
expected = 2.0 * np.arange(n, dtype=np.float32) + 1.0
assert np.allclose(y, expected), "saxpy gave wrong numbers"
print(f"saxpy on {n} elements: y[:4] = {y[:4]}, max |error| = {np.abs(y - expected).max()}")
