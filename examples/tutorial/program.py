"""
A Taichi program run with the tutorial's pass in its JIT pipeline (docs/tutorial-pass.md):

    python examples/tutorial/program.py --arch cpu
    python examples/tutorial/program.py --arch vulkan --dump-ir /tmp/dump

It loads `strength_reduce.py`, inserts its pass after `ti-mem2reg` with
`ti.init(passes=...)`, checks the answers against NumPy and shows what the pass did.
"""

import argparse
from pathlib import Path

import numpy as np
import taichi_xdsl as ti

HERE = Path(__file__).resolve().parent

parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="cpu", choices=["cpu", "vulkan"])
parser.add_argument("--dump-ir", default=None, help="write each kernel's IR per stage here")
options = parser.parse_args()

ti.compiler.load_pass_plugin(HERE / "strength_reduce.py")
ti.init(
    arch=getattr(ti, options.arch),
    passes={"after": {"ti-mem2reg": "strength-reduce-mul2"}},
    dump_ir=options.dump_ir,
    offline_cache=False,
)


@ti.kernel
def double(x: ti.types.ndarray(dtype=ti.f32, ndim=1), n: ti.types.ndarray(dtype=ti.i32, ndim=1)):
    for i in range(x.shape[0]):
        x[i] = x[i] * 2.0
        n[i] = 2 * n[i] + 1


x = np.linspace(-3, 3, 1000, dtype=np.float32)
n = np.arange(1000, dtype=np.int32)
want_x, want_n = x * 2, 2 * n + 1
double(x, n)
assert np.array_equal(x, want_x) and np.array_equal(n, want_n), "wrong answers"

ir = str(double.get_ir(x, n, stage="strength-reduce-mul2"))
assert "arith.mulf" not in ir and "arith.muli" not in ir, ir
print(f"{options.arch}: correct, and no multiplication left after strength-reduce-mul2")
