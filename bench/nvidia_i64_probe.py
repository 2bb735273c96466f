"""
Probe of the three integer results NVIDIA's Vulkan driver got wrong in the 10,000-program
differential run on an H100 (bench/results/difftest-h100-run2.*), where cpu and lavapipe
were right. Each family is the failing expression and variants of it, each its own
kernel: the op alone, constants against arguments, i64 against i32, other spellings of
the same value. It prints one line a variant (`ok` or `WRONG` with the elements that
differ) and, with --ir DIR, writes the SPIR-V dialect text of every variant there (llvm on cpu).

    python bench/nvidia_i64_probe.py --arch vulkan            # the H100 (bench/gpu_host.sh)
    python bench/nvidia_i64_probe.py --arch cpu --ir /tmp/ir  # the reference run here

Families (the seeds of the old generator, git 046dcc1):
  floordiv  seed 5016: `(i64(1048576) << i64(37)) // (|a| | 1)` for a = INT64_MIN is 0
            on NVIDIA, -1 by floor division (|INT64_MIN| wraps to INT64_MIN);
  shl_cmp   seed 6534: `i64(1) <= (a << i64(28))` true on NVIDIA for a = -332, -881,
            2**63-1 (the shifted value is negative);
  atomic_u64 seed 4781: `u64(1) & (u64(old <= 255) - u64(a))` 0 on NVIDIA for even a,
            where `old` is the value ti.atomic_xor returned (1 expected).

Needs only numpy and taichi_xdsl; exit status 1 when a variant is wrong.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

import numpy as np

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
A = [I64_MIN, -332, -881, 312, I64_MAX, -(2**62), 2**40, 493, -1, 0, 5, I64_MIN + 1]
W = [I32_MIN, -332, -881, 312, I32_MAX, -(2**30), 2**20, 493, -1, 0, 5, I32_MIN + 1]
OWN = [-15, 24, 45, 45, -28, -42, -34, -12, 255, 256, -1, 0]
N = len(A)


def wrap(x: int, bits: int, signed: bool = True) -> int:
    x &= (1 << bits) - 1
    if signed and x >= 1 << (bits - 1):
        x -= 1 << bits
    return x


def w64(x: int) -> int:
    return wrap(x, 64)


def u64(x: int) -> int:
    return wrap(x, 64, False)


def w32(x: int) -> int:
    return wrap(x, 32)


def u32(x: int) -> int:
    return wrap(x, 32, False)


def abs64(x: int) -> int:
    return w64(abs(x))


def tdiv(x: int, y: int) -> int:
    """Division truncating toward zero (OpSDiv)."""
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


P57 = 1 << 57

# (family, name, output dtype, kernel body writing o[i], expected(a, w, own) -> int)
# Names a kernel sees: a (i64), w (i32), own (i32, atomics), d (i64, all 2**57),
# c (i64, a << 28 computed on the host), s28 (i64 scalar 28), one (i64 scalar 1).
VARIANTS: list[tuple[str, str, str, str, object]] = [
    # -- seed 5016: floor division of i64 by |INT64_MIN| | 1
    ("floordiv", "abs alone", "i64", "o[i] = ti.abs(a[i])", lambda a, w, k: abs64(a)),
    ("floordiv", "abs | 1", "i64", "o[i] = ti.abs(a[i]) | ti.i64(1)",
     lambda a, w, k: abs64(a) | 1),
    ("floordiv", "original (2**57 as a shift)", "i64",
     "o[i] = (ti.i64(1048576) << ti.i64(37)) // (ti.abs(a[i]) | ti.i64(1))",
     lambda a, w, k: P57 // (abs64(a) | 1)),
    ("floordiv", "constant dividend", "i64",
     f"o[i] = ti.i64({P57}) // (ti.abs(a[i]) | ti.i64(1))",
     lambda a, w, k: P57 // (abs64(a) | 1)),
    ("floordiv", "dividend from an array", "i64",
     "o[i] = d[i] // (ti.abs(a[i]) | ti.i64(1))", lambda a, w, k: P57 // (abs64(a) | 1)),
    ("floordiv", "divisor without abs", "i64", f"o[i] = ti.i64({P57}) // (a[i] | ti.i64(1))",
     lambda a, w, k: P57 // (a | 1)),
    ("floordiv", "divisor |a|, 1 computed on the host", "i64",
     f"o[i] = ti.i64({P57}) // b[i]", lambda a, w, k: P57 // (abs64(a) | 1)),
    ("floordiv", "abs as a select", "i64",
     f"o[i] = ti.i64({P57}) // (ti.select(a[i] < 0, -a[i], a[i]) | ti.i64(1))",
     lambda a, w, k: P57 // (abs64(a) | 1)),
    ("floordiv", "abs as (a ^ m) - m, m = a >> 63", "i64",
     f"m = a[i] >> ti.i64(63)\n            o[i] = ti.i64({P57}) // (((a[i] ^ m) - m) | ti.i64(1))",
     lambda a, w, k: P57 // (abs64(a) | 1)),
    ("floordiv", "modulo (%)", "i64", f"o[i] = ti.i64({P57}) % (ti.abs(a[i]) | ti.i64(1))",
     lambda a, w, k: P57 % (abs64(a) | 1)),
    ("floordiv", "truncating division (ti.raw_div)", "i64",
     f"o[i] = ti.raw_div(ti.i64({P57}), ti.abs(a[i]) | ti.i64(1))",
     lambda a, w, k: tdiv(P57, abs64(a) | 1)),
    ("floordiv", "i32 analogue (2**25 // (|w| | 1))", "i32",
     "o[i] = ti.i32(33554432) // (ti.abs(w[i]) | ti.i32(1))",
     lambda a, w, k: (1 << 25) // (w32(abs(w)) | 1)),
    ("floordiv", "remainder sign test alone: (2**57 - q*b) ^ b < 0", "i32",
     f"b1 = ti.abs(a[i]) | ti.i64(1)\n            q = ti.raw_div(ti.i64({P57}), b1)\n"
     f"            o[i] = ti.select(((ti.i64({P57}) - q * b1) ^ b1) < ti.i64(0), 1, 0)",
     lambda a, w, k: int(w64((P57 - tdiv(P57, abs64(a) | 1) * (abs64(a) | 1)) ^ (abs64(a) | 1)) < 0)),
    # -- seed 6534: i64 shift left then a signed compare
    ("shl_cmp", "shift alone", "i64", "o[i] = a[i] << ti.i64(28)", lambda a, w, k: w64(a << 28)),
    ("shl_cmp", "original: select(1 <= (a << 28))", "i32",
     "o[i] = ti.select(ti.i64(1) <= (a[i] << ti.i64(28)), 1, 0)",
     lambda a, w, k: int(1 <= w64(a << 28))),
    ("shl_cmp", "compare alone (shift on the host)", "i32",
     "o[i] = ti.select(ti.i64(1) <= c[i], 1, 0)", lambda a, w, k: int(1 <= w64(a << 28))),
    ("shl_cmp", "(a << 28) > 0", "i32", "o[i] = ti.select((a[i] << ti.i64(28)) > ti.i64(0), 1, 0)",
     lambda a, w, k: int(w64(a << 28) > 0)),
    ("shl_cmp", "(a << 28) < 0", "i32", "o[i] = ti.select((a[i] << ti.i64(28)) < ti.i64(0), 1, 0)",
     lambda a, w, k: int(w64(a << 28) < 0)),
    ("shl_cmp", "shift amount an argument", "i32",
     "o[i] = ti.select(ti.i64(1) <= (a[i] << s28), 1, 0)", lambda a, w, k: int(1 <= w64(a << 28))),
    ("shl_cmp", "bound an argument", "i32",
     "o[i] = ti.select(one <= (a[i] << ti.i64(28)), 1, 0)", lambda a, w, k: int(1 <= w64(a << 28))),
    ("shl_cmp", "multiply by 2**28 instead", "i32",
     "o[i] = ti.select(ti.i64(1) <= (a[i] * ti.i64(268435456)), 1, 0)",
     lambda a, w, k: int(1 <= w64(a << 28))),
    ("shl_cmp", "comparison cast, no select", "i64",
     "o[i] = ti.cast(ti.i64(1) <= (a[i] << ti.i64(28)), ti.i64)",
     lambda a, w, k: int(1 <= w64(a << 28))),
    ("shl_cmp", "sign bit (a << 28) >> 63", "i64", "o[i] = (a[i] << ti.i64(28)) >> ti.i64(63)",
     lambda a, w, k: w64(a << 28) >> 63),
    ("shl_cmp", "high half as i32 < 0", "i32",
     "o[i] = ti.select(ti.cast((a[i] << ti.i64(28)) >> ti.i64(32), ti.i32) < 0, 1, 0)",
     lambda a, w, k: int(w64(a << 28) < 0)),
    ("shl_cmp", "i32 analogue: 1 <= (w << 12)", "i32",
     "o[i] = ti.select(1 <= (w[i] << 12), 1, 0)", lambda a, w, k: int(1 <= w32(w << 12))),
    # -- seed 4781: a compare of an atomic's old value, cast to u64, minus u64(a), & 1
    ("atomic_u64", "atomic_xor's old value", "i32", "o[i] = ti.atomic_xor(own[i], 253)",
     lambda a, w, k: k),
    ("atomic_u64", "u64(old <= 255)", "u64",
     "v = ti.atomic_xor(own[i], 253)\n            o[i] = ti.cast(v <= 255, ti.u64)",
     lambda a, w, k: int(k <= 255)),
    ("atomic_u64", "u64(old <= 255) - u64(a)", "u64",
     "v = ti.atomic_xor(own[i], 253)\n            o[i] = ti.cast(v <= 255, ti.u64) - ti.cast(a[i], ti.u64)",
     lambda a, w, k: u64(int(k <= 255) - a)),
    ("atomic_u64", "original: u64(1) & (u64(old <= 255) - u64(a))", "u64",
     "v = ti.atomic_xor(own[i], 253)\n"
     "            o[i] = ti.u64(1) & (ti.cast(v <= 255, ti.u64) - (ti.cast(a[i], ti.u64) - ti.u64(0)))",
     lambda a, w, k: 1 & u64(int(k <= 255) - a)),
    ("atomic_u64", "plain load instead of the atomic", "u64",
     "v = own[i]\n"
     "            o[i] = ti.u64(1) & (ti.cast(v <= 255, ti.u64) - ti.cast(a[i], ti.u64))",
     lambda a, w, k: 1 & u64(int(k <= 255) - a)),
    ("atomic_u64", "constant 1 instead of the compare", "u64",
     "o[i] = ti.u64(1) & (ti.u64(1) - ti.cast(a[i], ti.u64))", lambda a, w, k: 1 & u64(1 - a)),
    ("atomic_u64", "u64(a) & 1", "u64", "o[i] = ti.cast(a[i], ti.u64) & ti.u64(1)",
     lambda a, w, k: u64(a) & 1),
    ("atomic_u64", "i64 instead of u64", "i64",
     "v = ti.atomic_xor(own[i], 253)\n"
     "            o[i] = ti.i64(1) & (ti.cast(v <= 255, ti.i64) - a[i])",
     lambda a, w, k: 1 & w64(int(k <= 255) - a)),
    ("atomic_u64", "i32 analogue", "u32",
     "v = ti.atomic_xor(own[i], 253)\n"
     "            o[i] = ti.u32(1) & (ti.cast(v <= 255, ti.u32) - ti.cast(w[i], ti.u32))",
     lambda a, w, k: 1 & u32(int(k <= 255) - w)),
]

def _u8(x: int) -> int:
    return x & 255


def _seed6534(a: int, w: int, i: int) -> int:
    t1 = 7 // ((_u8(w) // 3) | 1)
    t2 = _u8((2 ^ _u8(w)) - max(_u8(w), 2))
    return (-i if 1 <= w64(a << 28) else 0) if t1 <= t2 else w


# The three failing statements whole, as the generator wrote them (a_l is a, a_i is w,
# own is own; f0 is the seed's ti.func, whose value does not depend on its arguments).
# expected(a, w, own, i).
WHOLE: list[tuple[str, str, str, str, object]] = [
    ("whole", "seed 5016", "i64",
     "o[i] = (((ti.i64(1048576) << ti.i64(37)) // (ti.abs(a[i]) | ti.i64(1))) >> ti.i64(30))",
     lambda a, w, k, i: (P57 // (abs64(a) | 1)) >> 30),
    ("whole", "seed 6534", "i32",
     "o[i] = ti.select(((ti.u8(7) // ((ti.cast(w[i], ti.u8) // (ti.u8(3) | ti.u8(1))) | "
     "ti.u8(1))) <= ((ti.u8(2) ^ ti.cast(w[i], ti.u8)) - ti.max(ti.cast(w[i], ti.u8), "
     "ti.u8(2)))), ti.select((ti.i64(1) <= (a[i] << ti.i64(28))), (-i), "
     "ti.cast(f6534((-2 - 1)), ti.i32)), w[i])",
     lambda a, w, k, i: _seed6534(a, w, i)),
    ("whole", "seed 4781", "u64",
     "v1 = ti.atomic_xor(own[i], ((ti.Vector([0, w[i]], dt=ti.i32) + ti.Vector([0, w[i]], "
     "dt=ti.i32) * ti.Vector([0, w[i]], dt=ti.i32)).sum() ^ (255 ^ 2)))\n"
     "            o[i] = (f4781(((ti.abs(ti.cast(a[i], ti.f32)) + 0.5) ** 3.0), "
     "(ti.cast(a[i], ti.u64) ^ ti.u64(2147483648)), (ti.u8(7) + a[i])) & "
     "(ti.cast((v1 <= 255), ti.u64) - (ti.cast(a[i], ti.u64) - ti.u64(0))))",
     lambda a, w, k, i: 1 & u64(int(k <= 255) - a)),
]
FUNCS = """\
    @ti.func
    def f6534(p0):
        return ti.cast(ti.cast(ti.atan2(1.0, 10.0), ti.i64), ti.i64)
    @ti.func
    def f4781(p0, p1, p2):
        return ti.cast(ti.u64(1), ti.u64)
"""


ALL = VARIANTS + WHOLE
NP = {"i32": np.int32, "i64": np.int64, "u32": np.uint32, "u64": np.uint64}


def module_source() -> str:
    lines = ["def make(ti):", "    kernels = []", FUNCS]
    for n, (_, _, dtype, body, _) in enumerate(ALL):
        lines += [
            "    @ti.kernel",
            f"    def v{n}(a: ti.types.ndarray(dtype=ti.i64, ndim=1), "
            "w: ti.types.ndarray(dtype=ti.i32, ndim=1), "
            "own: ti.types.ndarray(dtype=ti.i32, ndim=1), "
            "d: ti.types.ndarray(dtype=ti.i64, ndim=1), "
            "b: ti.types.ndarray(dtype=ti.i64, ndim=1), "
            "c: ti.types.ndarray(dtype=ti.i64, ndim=1), "
            f"o: ti.types.ndarray(dtype=ti.{dtype}, ndim=1), s28: ti.i64, one: ti.i64):",
            "        for i in range(a.shape[0]):",
            f"            {body}",
            f"    kernels.append(v{n})",
        ]
    lines.append("    return kernels")
    return "\n".join(lines) + "\n"


def load(folder: str):
    path = Path(folder) / "nvidia_i64_probe_kernels.py"
    path.write_text(module_source())
    spec = importlib.util.spec_from_file_location("nvidia_i64_probe_kernels", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="vulkan", choices=["vulkan", "cpu"])
    parser.add_argument("--ir", metavar="DIR",
                        help="write each variant's IR here (SPIR-V dialect; llvm on cpu)")
    parser.add_argument("--family", help="only this family")
    args = parser.parse_args(argv)
    import taichi_xdsl as ti

    ti.init(arch=getattr(ti, args.arch), offline_cache=False, log_level=ti.ERROR)
    if args.arch == "vulkan":
        from taichi_xdsl.targets.vulkan import vulkan_available

        print("vulkan:", vulkan_available())
    a = np.array(A, np.int64)
    w = np.array(W, np.int32)
    d = np.full(N, P57, np.int64)
    b = np.array([abs64(x) | 1 for x in A], np.int64)
    c = np.array([w64(x << 28) for x in A], np.int64)
    if args.ir:
        Path(args.ir).mkdir(parents=True, exist_ok=True)
    wrong = 0
    with tempfile.TemporaryDirectory() as folder:
        kernels = load(folder).make(ti)
        for n, ((family, name, dtype, body, expected), kernel) in enumerate(zip(ALL, kernels)):
            if args.family and family != args.family:
                continue
            own = np.array(OWN, np.int32)
            o = np.zeros(N, NP[dtype])
            call = (a, w, own, d, b, c, o, 28, 1)
            label = f"{family:10s} {n:2d} {name}"
            try:
                if args.ir:
                    stage = "spirv" if args.arch == "vulkan" else "llvm"
                    text = str(kernel.get_ir(*call, stage=stage))
                    (Path(args.ir) / f"{n:02d}_{family}.mlir").write_text(
                        f"// {family}: {name}\n// {body}\n{text}\n")
                kernel(*call)
            except Exception as e:  # noqa: BLE001 - a probe reports and goes on
                wrong += 1
                print(f"{label}: ERROR {type(e).__name__}: {str(e).splitlines()[-1][:200]}")
                continue
            want = [expected(x, y, k, j) if family == "whole" else expected(x, y, k)  # type: ignore[operator]
                    for j, (x, y, k) in enumerate(zip(A, W, OWN))]
            want_np = np.array(want, dtype=object)
            got = o.astype(object)
            bad = [j for j in range(N) if int(got[j]) != int(want_np[j])]
            if bad:
                wrong += 1
                detail = ", ".join(f"a={A[j]}: {int(got[j])} (want {want[j]})" for j in bad[:4])
                print(f"{label}: WRONG at {len(bad)}/{N}: {detail}")
            else:
                print(f"{label}: ok")
    print(f"{wrong} of {len(ALL)} variants wrong on {args.arch}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
