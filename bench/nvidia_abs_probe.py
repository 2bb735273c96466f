"""
Which spelling of Vulkan's integer abs gives right answers on NVIDIA's driver: one
spelling (sabs, smax, select, xorshift) is patched into convert-arith-to-spirv, then the
differential seeds that mismatched on the H200 (difftest-h200-run3.json) and abs(INT_MIN)
used as a divisor run on vulkan. Output of one call: bench/results/h200-nvidia-abs-probe.txt.

    for v in sabs smax select xorshift; do python3 bench/nvidia_abs_probe.py $v; done
"""
import sys
import tempfile

import numpy as np
from xdsl.dialects import math
from xdsl.dialects.builtin import IntegerAttr
from taichi_xdsl.dialects import spirv
from taichi_xdsl.lowering import convert_arith_to_spirv as c

variant = sys.argv[1]


def sabs(op):
    return c._one(spirv.SAbsOp(op.operands[0]))


def smax(op):
    x = op.operands[0]
    neg = spirv.SNegateOp(x)
    ops, result = c._min_max_of(spirv.SMaxOp, True, x, neg.results[0])
    return [neg, *ops], result


def select(op):
    x = op.operands[0]
    zero = spirv.ConstantOp(IntegerAttr(0, x.type))
    neg = spirv.SNegateOp(x)
    lt = spirv.SLessThanOp(x, zero.results[0])
    sel = spirv.SelectOp(lt.results[0], neg.results[0], x)
    return [zero, neg, lt, sel], sel.results[0]


def xorshift(op):
    x = op.operands[0]
    w = x.type.width.data
    sh = spirv.ConstantOp(IntegerAttr(w - 1, x.type))
    m = spirv.ShiftRightArithmeticOp(x, sh.results[0])
    xo = spirv.BitwiseXorOp(x, m.results[0])
    r = spirv.ISubOp(xo.results[0], m.results[0])
    return [sh, m, xo, r], r.results[0]


table = {"sabs": sabs, "smax": smax, "select": select, "xorshift": xorshift}
c._LOWERINGS[math.AbsIOp] = table[variant]

import taichi_xdsl as ti
from taichi_xdsl.utils import difftest as dt

bad = []
seeds = [717, 734, 2593, 3126, 3198, 3397, 3829, 3857, 4459, 4552, 4678, 5061, 6177, 6584,
         8541, 9045, 9074, 9340, 9913, 5016, 6534, 4781]
folder = tempfile.mkdtemp()
for s in seeds:
    dt.init(ti, "vulkan")
    o = dt.check(ti, s, "vulkan", folder)
    if o.kind != "ok":
        bad.append(s)
ti.reset()
ti.init(arch=ti.vulkan, offline_cache=False)
edge = []
for dtype, bits in ((ti.i8, 8), (ti.i16, 16), (ti.i32, 32), (ti.i64, 64)):
    lo = -(2 ** (bits - 1))
    vals = [lo, lo + 1, -33, 0, 5, 2 ** (bits - 1) - 1]
    npt = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[bits]
    x = ti.ndarray(dtype, len(vals)); x.from_numpy(np.array(vals, npt))
    out = ti.ndarray(dtype, (2, len(vals)))
    dividend = 2 ** (bits - 7)

    @ti.kernel
    def k(x: ti.types.ndarray(), out: ti.types.ndarray()):
        for i in range(x.shape[0]):
            out[0, i] = ti.abs(x[i])
            out[1, i] = ti.cast(dividend, dtype) // (ti.abs(x[i]) | 1)

    k(x, out)
    got = out.to_numpy()
    for i, v in enumerate(vals):
        a = abs(v) & ((1 << bits) - 1)
        a = a - (1 << bits) if a >= 1 << (bits - 1) else a
        want = (a, dividend // (a | 1))
        if (int(got[0, i]), int(got[1, i])) != want:
            edge.append((bits, v, (int(got[0, i]), int(got[1, i])), want))
print(f"{variant:9s} difftest seeds wrong: {bad}  edge wrong: {edge}", flush=True)
