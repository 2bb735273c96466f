"""
Differential testing of taichi-xdsl: seeded random kernels, run on cpu and on vulkan,
checked against an exact reference computed here with NumPy scalars (and against
Taichi 1.7.4 when a Python with `taichi` is given), with a reducer that shrinks a
failing program to a small one.

    python -m taichi_xdsl.utils.difftest --seeds 0:200 --archs cpu,vulkan
    python -m taichi_xdsl.utils.difftest --seeds 0:10000 --jobs 16 --json out.json \
        --time-limit 480                                    # the long run (difftest_farm.sh)
    python -m taichi_xdsl.utils.difftest --seeds 0:50 --taichi /tmp/tivenv_lead/bin/python
    python -m taichi_xdsl.utils.difftest --show 17          # print program 17
    python -m taichi_xdsl.utils.difftest --seeds 17:18 --reduce   # shrink a failure

A program is one kernel over a parallel loop (`range`, `ti.ndrange`, an ndarray's shape
or a struct-for over a field): scalar arguments, input ndarrays and fields, ti.func
helpers with statements of their own, locals of the ten types i8..u64, f32, f64 with
casts among them, arithmetic (`+ - * / // %`, shifts, bit operations, comparisons,
min/max/abs, ti.select), math functions (sqrt, sin, cos, exp, log, tanh, floor, ceil,
atan2, pow, ...), inline ti.Vector values and local vectors (component reads and
writes at constant or run-time indices, `+=` by scalars and vectors, sum/max/min/dot/
norm), inner serial loops with `break`, if/else, and atomics (add/sub, max, min, or,
and, xor: one commuting family per accumulator) into fields and ndarrays, plus atomics
whose old value is used (on a cell only its iteration touches). Each iteration writes its
results to output ndarrays and fields; everything is read back after the kernel.

The reference interprets the same program tree with Taichi's documented rules: type
promotion (float beats int, wider beats narrower, unsigned beats signed of one width,
no C-style promotion of i8/i16), `/` makes an int operand f32 first (int / int is f32,
u64 / f64 divides f64(f32(u64))), `//` and `%` round toward negative
infinity (Python's rule) for ints and floats alike, integers wrap, comparisons give 1 or 0
(a u1 in Taichi, which any other operand's type beats: a comparison used as a number is
cast to its type first). Where Taichi leaves a result undefined it follows ours: an integer `a // 0` is 0
(-1 for a negative a; all ones unsigned), `a % 0` is a, MIN // -1 wraps to MIN
(lowering/guard_int_division.py). Floats are compared within a few ulp of the largest
magnitude seen on the way; a program whose result depends on a rounding (a comparison,
floor or cast to int near a tie), or that meets inf/NaN or an out-of-range float-to-int
cast, is not a test: the reference rejects it and the seed's next attempt is taken.

Known bugs of ours that another piece of work is fixing (KNOWN_ISSUES) are skipped with
their reason: a program that would meet one is counted as `known`, not run. Remove an
entry when its bug is fixed. Taichi's own bugs (TAICHI_BUGS) are documented, not copied:
when Taichi differs from the reference there, ours must still follow the reference.

With `--jobs N` the programs run in N worker processes (each its own ti.init); a program
past `--timeout` or a worker that dies is an outcome (timeout, crash) and the run goes
on. `--json` writes the counts and every outcome (also every 20 s); `--resume` reads
them back and runs only what is left; `--time-limit` ends a run in time.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

N = 8  # iterations of the parallel loop
SLOTS = 4  # output slots per type and iteration; accumulator cells per field

# --------------------------------------------------------------------------- types

INT_TYPES = ("i32", "i64", "u32", "u64", "i8", "u8", "i16", "u16")
FLOAT_TYPES = ("f32", "f64")
TYPES = INT_TYPES + FLOAT_TYPES
UNSIGNED = ("u8", "u16", "u32", "u64")
BITS = {"i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64,
        "f32": 32, "f64": 64}
NP = {t: getattr(np, ("uint" if t in UNSIGNED else "int") + t[1:]) for t in INT_TYPES}
NP.update({"f32": np.float32, "f64": np.float64})
EPS = {"f32": 2.0**-23, "f64": 2.0**-52}
# How often the generator picks each type: the common ones most, every one often enough.
TYPE_WEIGHTS = {"i32": 6, "f32": 6, "f64": 4, "i64": 3, "u32": 3, "u64": 2, "i8": 1, "u8": 1,
                "i16": 1, "u16": 1}


def is_float(t: str) -> bool:
    return t in FLOAT_TYPES


def is_unsigned(t: str) -> bool:
    return t in UNSIGNED


def promote(a: str, b: str) -> str:
    """Taichi's binary-operation result type: float beats int (f64 beats f32), the wider
    int wins, and of one width the unsigned one (no C-style promotion to int)."""
    if is_float(a) or is_float(b):
        if "f64" in (a, b):
            return "f64"
        return "f32"
    if BITS[a] != BITS[b]:
        return a if BITS[a] > BITS[b] else b
    return b if is_unsigned(b) else a


def wrap(value: int, t: str) -> int:
    bits = BITS[t]
    value &= (1 << bits) - 1
    if not is_unsigned(t) and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def int_range(t: str) -> tuple[int, int]:
    """[lo, hi) of an integer type."""
    if is_unsigned(t):
        return 0, 1 << BITS[t]
    return -(1 << (BITS[t] - 1)), 1 << (BITS[t] - 1)


# --------------------------------------------------------------------------- known issues

# name -> (reason, the arches it hits). A program whose features meet one is skipped on
# those arches. Each names the bug of issue 13 that the "semantics" work is fixing:
# delete the entry when that lands, and the generator's programs cover it again.
KNOWN_ISSUES: dict[str, tuple[str, tuple[str, ...]]] = {}

# Where Taichi 1.7.4 itself is wrong; with --taichi these differences are expected and
# ours must follow the reference, not Taichi.
TAICHI_BUGS = {
    "i8-floordiv": (
        "Taichi 1.7.4 on cpu gets `//` of i8 values wrong: `ti.i8(7) // ti.i8(-1)` is 1 "
        "(7 // -3 is 0), and `(ti.i8(0) // x) > ti.i8(0) - ti.i8(2)` is false; i16 and i32 "
        "are right (seeds 18 and 19 differ from the reference under Taichi, not under ours)"
    ),
    "int-div-by-zero": (
        "an integer `//` or `%` by zero kills Taichi's process on cpu (SIGFPE); on vulkan "
        "it gives what lowering/guard_int_division.py defines for every arch of ours"
    ),
    "const-fold-floordiv-mod": (
        "Taichi folds `//` and `%` of constants, and of locals holding constants, with C "
        "semantics (truncation), while the same operation on run-time values follows "
        "Python's (floor): seed 1035, `v = ti.cast(-2**31, ti.i32)`, `v % 1000` is -648 "
        "under Taichi and 352 by its own rule"
    ),
}


class Rejected(Exception):
    """The reference found the program ill-defined or ill-conditioned: not a test."""


# --------------------------------------------------------------------------- program tree

# Expressions are tuples (kind, type, ...):
#   ("arg", t, name) ("load", t, array, offset[, column]) ("var", t, name) ("const", t, value)
#   ("bin", t, op, a, b) ("cmp", "i32", op, a, b) ("un", t, fn, a) ("cast", t, a)
#   ("select", t, c, a, b) ("math2", t, fn, a, b) ("call", t, fname, args)
#   ("vec", t, how, [a...], [b...], k)            an inline ti.Vector, reduced to a scalar
#   ("vvar", t, name, n)                            a local vector (only inside vget/vred/vaug)
#   ("vget", t, vvar, index)  ("vred", t, how, vvar, other vvar or None)
# Statements are tuples:
#   ("let", name, expr) ("set", name, expr) ("aug", name, op, expr)
#   ("if", cond, [then], [else]) ("for", name, count, [body]) ("break_if", cond)
#   ("out", t, dest, slot, expr)            dest "nd" (ndarray out_t) or "field" (field fo_t)
#   ("atomic", fn, acc, style, slot, expr)  style "call" (ti.atomic_fn) or "aug" (acc[k] += e)
#   ("let_atomic", name, fn, expr)          name = ti.atomic_fn(own[i], expr): the old value
#   ("vlet", name, t, [exprs]) ("vset", name, index, expr) ("vaug", name, op, vvar or expr)
#   ("vout", name)                          out_v[i] = name (an f32 3-vector)


@dataclasses.dataclass
class Func:
    name: str
    params: list[str]  # param types
    body: Any  # the returned expression, over ("var", t, "p0") ... and the locals of `stmts`
    result: str
    stmts: list[tuple] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Program:
    seed: int
    funcs: list[Func]
    body: list[tuple]
    inputs: dict[str, np.ndarray]
    scalars: dict[str, Any]
    features: set[str] = dataclasses.field(default_factory=set)
    loop: str = "range"  # the parallel loop: range, ndrange, shape (a_i.shape[0]) or struct


ARRAYS = {"a_i": "i32", "a_f": "f32", "a_d": "f64", "a_l": "i64"}  # input ndarrays, shape N
IN_FIELDS = {"fin": ("f32", 1), "fin_l": ("i64", 2)}  # input fields: type, columns
SCALARS = {"s_i": "i32", "s_f": "f32", "s_d": "f64", "s_u": "u32"}
# Accumulators for atomics: where they live, their type, the ops one program may mix
# (ops of one family commute, so the order of the iterations cannot matter).
ACCUMULATORS = {"acc_i": ("field", "i32"), "acc_f": ("field", "f32"),
                "acc_l": ("field", "i64"), "acc_n": ("ndarray", "i32")}
ATOMIC_FAMILIES = {
    "i32": [("add", "sub"), ("add", "sub"), ("max",), ("min",), ("or",), ("and",), ("xor",),
            ("mul",)],
    "i64": [("add", "sub"), ("max",), ("min",), ("or",), ("xor",), ("mul",)],
    "f32": [("add",), ("add",), ("max",), ("min",)],
}
AUG_OPS = {"add": "+", "sub": "-", "or": "|", "and": "&", "xor": "^"}
OUT_FIELD_TYPES = ("i64", "f64", "u8")  # types with an output field fo_t besides out_t
INT_CONSTS = [0, 1, 2, 3, 5, 7, -1, -3, 100, 255, 1 << 20, -(1 << 30), 2147483647, -2147483648]
INT64_CONSTS = [1 << 40, -(1 << 62), 2**63 - 1, -(2**63), 123456789012345]
FLOAT_CONSTS = [0.0, 0.5, 1.0, 2.0, -1.5, 0.25, 3.0, -0.75, 10.0, 1024.0]
LOOPS = ("range", "range", "ndrange", "shape", "struct")
ATTEMPTS = 40  # programs tried per seed until the reference accepts one


class Generator:
    """Random programs from a seed; every choice goes through `self.rng`."""

    def __init__(self, seed: int, attempt: int = 0):
        self.seed = seed
        self.rng = random.Random(seed if attempt == 0 else f"{seed}/{attempt}")
        self.locals: list[tuple[str, str]] = []
        self.vlocals: list[tuple[str, str, int]] = []  # name, type, length
        self.counter = 0
        self.funcs: list[Func] = []
        self.loop_vars: set[str] = set()
        self.params: set[str] = set()
        self.in_func = False
        self.atomic_ops = {a: self.rng.choice(ATOMIC_FAMILIES[t])
                           for a, (_, t) in ACCUMULATORS.items()}

    def type(self) -> str:
        return self.rng.choices(list(TYPE_WEIGHTS), list(TYPE_WEIGHTS.values()))[0]

    # -- expressions
    def expr(self, t: str, depth: int = 3) -> tuple:
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(t)
        kinds = ["bin", "bin", "bin", "cast", "select", "un", "minmax", "cmp_as"]
        if is_float(t):
            kinds += ["math", "math", "math2", "vec"]
        else:
            kinds += ["bits", "shift", "vec"]
        if self.funcs:
            kinds += ["call"]
        if any(vt == t for _, vt, _ in self.vlocals):
            kinds += ["vget", "vred"]
        kind = r.choice(kinds)
        d = depth - 1
        if kind == "bin":
            op = r.choice(["+", "-", "*", "+", "-", "*", "//", "%", "/"])
            if op == "/" and not is_float(t):
                op = "//"
            if op == "/" and t == "f32" and r.random() < 0.3:  # int / int is f32
                a_t, b_t = r.choice(INT_TYPES), r.choice(INT_TYPES)
            else:
                a_t, b_t = self.operand_types(t)
            a, b = self.expr(a_t, d), self.expr(b_t, d)
            # a float divisor is kept away from zero; an integer one mostly (by zero is
            # defined: see guard_int_division), and ints meet 0 and -1 as they come
            if op in ("/", "//", "%") and (is_float(b_t) or r.random() < 0.8):
                b = self.nonzero(b)
            return ("bin", t, op, a, b)
        if kind == "bits":
            return ("bin", t, r.choice(["&", "|", "^"]), self.expr(t, d), self.expr(t, d))
        if kind == "shift":
            return ("bin", t, r.choice(["<<", ">>"]), self.expr(t, d),
                    ("const", t, r.randrange(BITS[t])))
        if kind == "cast":
            return ("cast", t, self.expr(self.type(), d))
        if kind == "select":
            return ("select", t, self.cond(d), self.expr(t, d), self.expr(t, d))
        if kind == "un":
            return ("un", t, r.choice(["neg", "abs"]), self.expr(t, d))
        if kind == "minmax":
            return ("math2", t, r.choice(["min", "max"]), self.expr(t, d), self.expr(t, d))
        if kind == "cmp_as":  # Taichi types a comparison u1 (u1 - u16 is a u16): cast it
            return ("cast", t, self.cond(d))
        if kind == "math":
            fn = r.choice(["sqrt", "sin", "cos", "exp", "log", "tanh", "floor", "ceil", "round",
                           "tan", "log2"][: 10 if r.random() < 0.9 else 11])
            a = self.expr(t, d)
            if fn in ("sqrt", "log", "log2"):
                a = ("bin", t, "+", ("un", t, "abs", a), ("const", t, 1.0))
            if fn in ("exp", "tan"):
                a = ("math2", t, "min", ("math2", t, "max", a, ("const", t, -8.0)), ("const", t, 8.0))
            if fn == "tan":
                a = ("bin", t, "*", ("un", t, "sin", a), ("const", t, 1.0))
            return ("un", t, fn, a)
        if kind == "math2":
            fn = r.choice(["atan2", "pow"])
            if fn == "pow":
                base = ("bin", t, "+", ("un", t, "abs", self.expr(t, d)), ("const", t, 0.5))
                exponent = ("const", t, r.choice([0.5, 2.0, 3.0, -1.0, 1.5]))
                return ("math2", t, "pow", base, exponent)
            return ("math2", t, "atan2", self.expr(t, d), self.expr(t, d))
        if kind == "vec":
            how = r.choice(["dot", "sum", "max", "index", "addsum"])
            n = r.choice([2, 3, 4])
            a = [self.expr(t, d - 1) for _ in range(n)]
            b = [self.expr(t, d - 1) for _ in range(n)] if how in ("dot", "addsum") else []
            return ("vec", t, how, a, b, r.randrange(n))
        if kind == "call":
            f = r.choice(self.funcs)
            call = ("call", f.result, f.name, [self.expr(p, d) for p in f.params])
            return call if f.result == t else ("cast", t, call)
        if kind == "vget":
            v = self.vvar(t)
            return ("vget", t, v, self.index(v[3], d))
        if kind == "vred":
            v = self.vvar(t)
            hows = ["sum", "max", "min", "dot", "norm_sqr"] + (["norm"] if is_float(t) else [])
            how = r.choice(hows)
            other = None
            if how == "dot":
                others = [(n, vt, k) for n, vt, k in self.vlocals if vt == t and k == v[3]]
                other = ("vvar", t, *r.choice(others)[::2])
            return ("vred", t, how, v, other)
        raise AssertionError(kind)

    def vvar(self, t: str) -> tuple:
        name, _, n = self.rng.choice([v for v in self.vlocals if v[1] == t])
        return ("vvar", t, name, n)

    def index(self, n: int, depth: int) -> tuple:
        """An i32 index into a vector of `n`: a constant or a run-time value."""
        if self.rng.random() < 0.5:
            return ("const", "i32", self.rng.randrange(n))
        return ("bin", "i32", "%", self.expr("i32", min(depth, 1)), ("const", "i32", n))

    def nonzero(self, e: tuple) -> tuple:
        """`e` made non-zero: `e | 1` for ints, `|e| + 0.5` for floats."""
        t = e[1]
        if is_float(t):
            return ("bin", t, "+", ("un", t, "abs", e), ("const", t, 0.5))
        return ("bin", t, "|", e, ("const", t, 1))

    def operand_types(self, t: str) -> tuple[str, str]:
        """Operand types whose promotion is `t` (mostly `t` itself)."""
        r = self.rng
        if r.random() < 0.7:
            return t, t
        if is_float(t):
            narrower = ["f32"] if t == "f64" else []
            other = r.choice(narrower + list(INT_TYPES))
        else:
            other_choices = [o for o in INT_TYPES if o != t and promote(t, o) == t]
            if not other_choices:
                return t, t
            other = r.choice(other_choices)
        return (t, other) if r.random() < 0.5 else (other, t)

    def cond(self, depth: int) -> tuple:
        t = self.type()
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        return ("cmp", "i32", op, self.expr(t, depth), self.expr(t, depth))

    def leaf(self, t: str) -> tuple:
        r = self.rng
        candidates = [v for v in self.locals if v[1] == t]
        choice = r.random()
        if self.in_func:  # a ti.func sees its parameters, its locals and constants
            choice = 0.0 if candidates and choice < 0.6 else 0.99
        if candidates and choice < 0.4:
            name, _ = r.choice(candidates)
            return ("var", t, name)
        if choice < 0.6:
            offset = r.choice([0, 0, 1, 3])
            if t == "f32" and r.random() < 0.3:  # the input field
                return ("load", t, "fin", offset)
            if t == "i64" and r.random() < 0.4:
                return ("load", t, "fin_l", offset, r.randrange(2))
            if t in ARRAYS.values():
                name = next(n for n, at in ARRAYS.items() if at == t)
                return ("load", t, name, offset)
            source = r.choice(["a_i", "a_l"])
            return ("cast", t, ("load", ARRAYS[source], source, r.choice([0, 2])))
        if choice < 0.75:
            name = next((n for n, st in SCALARS.items() if st == t), None)
            if name:
                return ("arg", t, name)
        if t == "i32" and not self.in_func and r.random() < 0.3:
            return ("var", "i32", "i")
        if is_float(t):
            return ("const", t, r.choice(FLOAT_CONSTS))
        value = r.choice(INT_CONSTS + (INT64_CONSTS if BITS[t] == 64 else []))
        if is_unsigned(t) and r.random() < 0.7:
            value = abs(value)
        return ("const", t, wrap(value, t))

    # -- statements
    def new_local(self, t: str) -> str:
        self.counter += 1
        name = f"v{self.counter}"
        self.locals.append((name, t))
        return name

    def stmts(self, count: int, depth: int, in_loop: bool) -> list[tuple]:
        out: list[tuple] = []
        for _ in range(count):
            out.append(self.stmt(depth, in_loop))
        return out

    def stmt(self, depth: int, in_loop: bool) -> tuple:
        r = self.rng
        kinds = ["let", "let", "let", "set", "aug", "vlet"]
        if not self.in_func:  # statements that touch `i` or the outputs
            kinds += ["out", "out", "out", "atomic", "atomic", "let_atomic"]
        if self.vlocals:
            kinds += ["vset", "vaug"] + (["vout"] if not self.in_func else [])
        if depth > 0:
            kinds += ["if", "for"]
        if in_loop:
            kinds += ["break_if"]
        kind = r.choice(kinds)
        targets = [v for v in self.locals if v[0] not in self.loop_vars | self.params]
        if kind in ("set", "aug") and not targets:
            kind = "let"
        vec3 = [v for v in self.vlocals if v[1] == "f32" and v[2] == 3]
        if kind == "vout" and not vec3:
            kind = "vaug"
        if kind == "let":
            t = self.type()
            e = self.expr(t, r.randint(1, 3))
            return ("let", self.new_local(t), e)
        if kind == "set":
            name, t = r.choice(targets)
            return ("set", name, self.expr(t, 2))
        if kind == "aug":
            name, t = r.choice(targets)
            op = r.choice(["+", "-", "*"] + (["&", "|", "^"] if not is_float(t) else []))
            return ("aug", name, op, self.expr(t, 2))
        if kind == "out":
            t = self.type()
            dest = "field" if t in OUT_FIELD_TYPES and r.random() < 0.5 else "nd"
            return ("out", t, dest, r.randrange(SLOTS), self.expr(t, r.randint(1, 3)))
        if kind == "atomic":
            acc = r.choice(list(ACCUMULATORS))
            t = ACCUMULATORS[acc][1]
            fn = r.choice(self.atomic_ops[acc])
            e = self.expr(t, 2)
            if t == "f32" and fn == "add":  # exact, so the order of the adds cannot matter
                e = ("cast", "f32", ("bin", "i32", "%", self.expr("i32", 2), ("const", "i32", 1000)))
            if r.random() < 0.5:
                slot = ("bin", "i32", "%", ("var", "i32", "i"), ("const", "i32", SLOTS))
            else:  # iterations collide
                slot = ("bin", "i32", "%", self.expr("i32", 1), ("const", "i32", SLOTS))
            style = "aug" if fn in AUG_OPS and r.random() < 0.4 else "call"
            return ("atomic", fn, acc, style, slot, e)
        if kind == "let_atomic":
            fn = r.choice(["add", "sub", "max", "min", "or", "and", "xor", "mul"])
            e = self.expr("i32", 2)
            return ("let_atomic", self.new_local("i32"), fn, e)
        if kind == "vlet":
            t = self.type()
            n = r.choice([2, 3, 3, 4])
            if r.random() < 0.3:
                t, n = "f32", 3
            elems = [self.expr(self.type() if r.random() < 0.2 else t, 1) for _ in range(n)]
            self.counter += 1
            name = f"w{self.counter}"
            self.vlocals.append((name, t, n))
            return ("vlet", name, t, elems)
        if kind == "vset":
            name, t, n = r.choice(self.vlocals)
            return ("vset", name, self.index(n, 1), self.expr(t, 2))
        if kind == "vaug":
            name, t, n = r.choice(self.vlocals)
            op = r.choice(["+", "-", "*"] + (["&", "|", "^"] if not is_float(t) else []))
            same = [v for v in self.vlocals if v[1] == t and v[2] == n]
            if r.random() < 0.5:
                other = r.choice(same)
                return ("vaug", name, op, ("vvar", t, other[0], n))
            return ("vaug", name, op, self.expr(t, 1))
        if kind == "vout":
            return ("vout", r.choice(vec3)[0])
        if kind == "if":
            saved = list(self.locals), list(self.vlocals)
            then = self.stmts(r.randint(1, 3), depth - 1, in_loop)
            self.locals, self.vlocals = list(saved[0]), list(saved[1])
            other = self.stmts(r.randint(0, 2), depth - 1, in_loop)
            self.locals, self.vlocals = saved
            return ("if", self.cond(2), then, other)
        if kind == "for":
            saved = list(self.locals), list(self.vlocals)
            name = self.new_local("i32")
            self.loop_vars.add(name)
            body = self.stmts(r.randint(1, 3), depth - 1, True)
            self.locals, self.vlocals = saved
            return ("for", name, r.randint(0, 4), body)
        if kind == "break_if":
            return ("break_if", self.cond(1))
        raise AssertionError(kind)

    def func(self, index: int) -> Func:
        params = [self.type() for _ in range(self.rng.randint(1, 3))]
        result = self.type()
        saved = self.locals, self.vlocals
        self.locals = [(f"p{j}", t) for j, t in enumerate(params)]
        self.vlocals = []
        self.params = {f"p{j}" for j in range(len(params))}
        self.in_func = True
        stmts = self.stmts(self.rng.choice([0, 0, 1, 2, 3]), 1, False)
        body = self.expr(result, 2)
        self.in_func = False
        self.params = set()
        self.locals, self.vlocals = saved
        return Func(f"f{index}", params, body, result, stmts)

    def program(self) -> Program:
        r = self.rng
        for k in range(r.choice([0, 0, 1, 2, 3])):
            self.funcs.append(self.func(k))
        loop = r.choice(LOOPS)
        body = self.stmts(r.randint(2, 7), 2, False)
        inputs = {
            "a_i": np.array([r.choice([r.randint(-100, 100), r.choice(INT_CONSTS)])
                             for _ in range(N)], np.int32),
            "a_f": np.array([r.randint(-400, 400) / 100 for _ in range(N)], np.float32),
            "a_d": np.array([r.uniform(-4, 4) for _ in range(N)], np.float64),
            "a_l": np.array([r.choice([r.randint(-1000, 1000), r.choice(INT64_CONSTS)])
                             for _ in range(N)], np.int64),
            "fin": np.array([r.randint(-800, 800) / 128 for _ in range(N)], np.float32),
            "fin_l": np.array([[r.choice([r.randint(-99, 99), r.choice(INT64_CONSTS)])
                                for _ in range(2)] for _ in range(N)], np.int64),
            "own": np.array([r.randint(-50, 50) for _ in range(N)], np.int32),
        }
        for acc, (_, t) in ACCUMULATORS.items():
            if t == "f32":
                inputs[acc] = np.array([r.randint(-40, 40) / 4 for _ in range(SLOTS)], np.float32)
            else:
                inputs[acc] = np.array([r.choice([r.randint(-100, 100), r.choice(INT_CONSTS)])
                                        for _ in range(SLOTS)], NP[t])
        scalars = {"s_i": r.randint(-50, 50), "s_f": r.randint(-300, 300) / 64,
                   "s_d": r.uniform(-3, 3), "s_u": r.choice([r.randint(0, 99), 4000000000])}
        return Program(self.seed, self.funcs, body, inputs, scalars, loop=loop)


def generate(seed: int, attempt: int = 0) -> Program:
    p = Generator(seed, attempt).program()
    p.attempt = attempt  # type: ignore[attr-defined]
    return p


# --------------------------------------------------------------------------- source


def emit_const(value: Any, t: str) -> str:
    if t == "i32":  # a bare literal is default_ip; -2**31 is not an i32 literal
        return f"{value}" if value >= 0 else f"({value + 1} - 1)"
    if t == "f32":  # a bare literal is default_fp
        return f"{float(value)!r}" if value >= 0 else f"({float(value)!r})"
    if is_float(t):
        return f"ti.{t}({value!r})" if value >= 0 else f"(-ti.{t}({-value!r}))"
    if value < 0 and value != int_range(t)[0]:
        return f"(-ti.{t}({-value!r}))"
    return f"ti.{t}({value!r})"


def emit_vector(elems: list[tuple], t: str) -> str:
    return f"ti.Vector([{', '.join(emit_expr(x) for x in elems)}], dt=ti.{t})"


def emit_expr(e: tuple) -> str:
    kind, t = e[0], e[1]
    if kind in ("arg", "var", "vvar"):
        return e[2]
    if kind == "load":
        index = "i" if e[3] == 0 else f"(i + {e[3]}) % {N}"
        return f"{e[2]}[{index}, {e[4]}]" if len(e) > 4 else f"{e[2]}[{index}]"
    if kind == "const":
        return emit_const(e[2], t)
    if kind in ("bin", "cmp"):
        return f"({emit_expr(e[3])} {e[2]} {emit_expr(e[4])})"
    if kind == "un":
        fn, a = e[2], emit_expr(e[3])
        if fn == "neg":
            return f"(-{a})"
        if fn == "log2":
            return f"ti.math.log2({a})"
        return f"ti.{fn}({a})"
    if kind == "cast":
        return f"ti.cast({emit_expr(e[2])}, ti.{t})"
    if kind == "select":
        return f"ti.select({emit_expr(e[2])}, {emit_expr(e[3])}, {emit_expr(e[4])})"
    if kind == "math2":
        fn, a, b = e[2], emit_expr(e[3]), emit_expr(e[4])
        if fn == "pow":
            return f"({a} ** {b})"
        return f"ti.{fn}({a}, {b})"
    if kind == "call":
        return f"{e[2]}({', '.join(emit_expr(a) for a in e[3])})"
    if kind == "vec":
        how, a, b, k = e[2], e[3], e[4], e[5]
        va, vb = emit_vector(a, t), emit_vector(b, t)
        if how == "dot":
            return f"{va}.dot({vb})"
        if how == "sum":
            return f"{va}.sum()"
        if how == "max":
            return f"{va}.max()"
        if how == "index":
            return f"{va}[{k}]"
        return f"({va} + {vb} * {va}).sum()"
    if kind == "vget":
        return f"{e[2][2]}[{emit_expr(e[3])}]"
    if kind == "vred":
        how, v, other = e[2], e[3][2], e[4]
        if how == "dot":
            return f"{v}.dot({other[2]})"
        return f"{v}.{how}()"
    raise AssertionError(kind)


def emit_stmts(stmts: list[tuple], indent: str) -> list[str]:
    lines: list[str] = []
    for s in stmts:
        kind = s[0]
        if kind == "let":
            lines.append(f"{indent}{s[1]} = ti.cast({emit_expr(s[2])}, ti.{s[2][1]})")
        elif kind == "set":
            lines.append(f"{indent}{s[1]} = {emit_expr(s[2])}")
        elif kind == "aug":
            lines.append(f"{indent}{s[1]} {s[2]}= {emit_expr(s[3])}")
        elif kind == "out":
            target = f"out_{s[1]}" if s[2] == "nd" else f"fo_{s[1]}"
            lines.append(f"{indent}{target}[i, {s[3]}] = {emit_expr(s[4])}")
        elif kind == "atomic":
            fn, acc, style, slot, e = s[1:]
            if style == "aug":
                lines.append(f"{indent}{acc}[{emit_expr(slot)}] {AUG_OPS[fn]}= {emit_expr(e)}")
            else:
                lines.append(f"{indent}ti.atomic_{fn}({acc}[{emit_expr(slot)}], {emit_expr(e)})")
        elif kind == "let_atomic":
            lines.append(f"{indent}{s[1]} = ti.atomic_{s[2]}(own[i], {emit_expr(s[3])})")
        elif kind == "vlet":
            lines.append(f"{indent}{s[1]} = {emit_vector(s[3], s[2])}")
        elif kind == "vset":
            lines.append(f"{indent}{s[1]}[{emit_expr(s[2])}] = {emit_expr(s[3])}")
        elif kind == "vaug":
            lines.append(f"{indent}{s[1]} {s[2]}= {emit_expr(s[3])}")
        elif kind == "vout":
            lines.append(f"{indent}out_v[i] = {s[1]}")
        elif kind == "if":
            lines.append(f"{indent}if {emit_expr(s[1])}:")
            lines += emit_stmts(s[2], indent + "    ") or [f"{indent}    pass"]
            if s[3]:
                lines.append(f"{indent}else:")
                lines += emit_stmts(s[3], indent + "    ")
        elif kind == "for":
            lines.append(f"{indent}for {s[1]} in range({s[2]}):")
            lines += emit_stmts(s[3], indent + "    ") or [f"{indent}    pass"]
        elif kind == "break_if":
            lines.append(f"{indent}if {emit_expr(s[1])}:")
            lines.append(f"{indent}    break")
        else:
            raise AssertionError(kind)
    return lines


def out_types(p: Program) -> list[str]:
    """The types of the output ndarrays `p` writes (its kernel takes only those)."""
    found = {s[1] for s in _walk_stmts(p.body) if s[0] == "out" and s[2] == "nd"}
    return [t for t in TYPES if t in found]


def _walk_stmts(stmts: list[tuple]):
    for s in stmts:
        yield s
        if s[0] == "if":
            yield from _walk_stmts(s[2])
            yield from _walk_stmts(s[3])
        elif s[0] == "for":
            yield from _walk_stmts(s[3])


_LOOP_HEADERS = {"range": f"range({N})", "ndrange": f"ti.ndrange({N})",
                 "shape": "range(a_i.shape[0])", "struct": "fin"}


def _field_declarations() -> dict[str, str]:
    """Every field a program may use: name -> its `ti.field(...)` expression."""
    fields = {name: f"ti.field(ti.{t}, shape={SLOTS})"
              for name, (where, t) in ACCUMULATORS.items() if where == "field"}
    for name, (t, columns) in IN_FIELDS.items():
        fields[name] = f"ti.field(ti.{t}, shape={N if columns == 1 else (N, columns)})"
    fields["own"] = f"ti.field(ti.i32, shape={N})"
    for t in OUT_FIELD_TYPES:
        fields[f"fo_{t}"] = f"ti.field(ti.{t}, shape=({N}, {SLOTS}))"
    return fields


def _code(p: Program) -> tuple[list[str], list[str]]:
    """The ti.func definitions and the kernel's loop, and the fields they name."""
    lines = []
    for f in p.funcs:
        lines.append("    @ti.func")
        lines.append(f"    def {f.name}({', '.join(f'p{j}' for j in range(len(f.params)))}):")
        lines += emit_stmts(f.stmts, " " * 8)
        lines.append(f"        return ti.cast({emit_expr(f.body)}, ti.{f.result})")
    loop = [f"        for i in {_LOOP_HEADERS[p.loop]}:"]
    loop += emit_stmts(p.body, " " * 12) or [" " * 12 + "pass"]
    text = "\n".join(lines + loop)
    names = set(re.findall(r"\w+", text))
    return lines + loop, [n for n in _field_declarations() if n in names]


def used_fields(p: Program) -> list[str]:
    """The fields `p` names: only those are made (each costs compile time) and checked."""
    return _code(p)[1]


def source(p: Program) -> str:
    """The program as a Python module defining `make(ti) -> (kernel, fields)`."""
    code, fields = _code(p)
    declarations = _field_declarations()
    lines = [f"# difftest program, seed {p.seed}", "def make(ti):"]
    lines += [f"    {name} = {declarations[name]}" for name in fields]
    params = [f"{n}: ti.types.ndarray(dtype=ti.{t}, ndim=1)" for n, t in ARRAYS.items()]
    params += [f"{n}: ti.types.ndarray(dtype=ti.{t}, ndim=1)"
               for n, (where, t) in ACCUMULATORS.items() if where == "ndarray"]
    params += [f"out_{t}: ti.types.ndarray(dtype=ti.{t}, ndim=2)" for t in out_types(p)]
    params += ["out_v: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)"]
    params += [f"{n}: ti.{t}" for n, t in SCALARS.items()]
    split = next(k for k, line in enumerate(code) if line.startswith("        for i in "))
    funcs, loop = code[:split], code[split:]
    lines += funcs
    lines.append("    @ti.kernel")
    lines.append(f"    def kernel({', '.join(params)}):")
    lines += loop
    lines.append(f"    return kernel, {{{', '.join(f'{n!r}: {n}' for n in fields)}}}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- reference


def _np(value: Any, t: str) -> Any:
    if is_float(t):
        return NP[t](value)
    return int(value)


class Reference:
    """
    Evaluates a Program with Taichi's rules. Floats are NumPy scalars of their type (so
    every operation rounds as on the device); ints are Python ints wrapped to their type.
    `scale[t]` is the largest float magnitude met, the base of the comparison tolerance.
    """

    def __init__(self, p: Program):
        self.p = p
        self.funcs = {f.name: f for f in p.funcs}
        self.scale = {"f32": 1.0, "f64": 1.0}
        self.features: set[str] = set()
        self.widened = False

    def run(self) -> dict[str, np.ndarray]:
        p = self.p
        self.outs = {f"out_{t}": np.zeros((N, SLOTS), NP[t]) for t in out_types(p)}
        self.outs.update({f"fo_{t}": np.zeros((N, SLOTS), NP[t]) for t in OUT_FIELD_TYPES})
        self.outs["out_v"] = np.zeros((N, 3), np.float32)
        # accumulators as Python numbers (ints wrap on each op; f32 adds are exact)
        self.acc = {name: [x.item() for x in p.inputs[name]] for name in ACCUMULATORS}
        self.own = [int(x) for x in p.inputs["own"]]
        with np.errstate(all="ignore"):
            for i in range(N):
                env = {"i": ("i32", i)}
                self.exec(p.body, env)
        result = dict(self.outs)
        for name, (_, t) in ACCUMULATORS.items():
            result[name] = np.array(self.acc[name], NP[t])
        result["own"] = np.array(self.own, np.int32)
        fields = set(used_fields(p))  # the fields it does not name are not made
        return {k: v for k, v in result.items() if k in fields or k not in _field_declarations()}

    def atomic(self, fn: str, old: Any, value: Any, t: str) -> Any:
        if fn == "max":
            return old if old > value else value
        if fn == "min":
            return old if old < value else value
        if is_float(t):  # add of small integers: exact in f32
            return float(np.float32(old + value if fn == "add" else old - value))
        op = {"add": "+", "sub": "-", "or": "|", "and": "&", "xor": "^", "mul": "*"}[fn]
        return self.binop(op, int(old), int(value), t)

    # statements
    def exec(self, stmts, env) -> bool:
        """Run `stmts`; True when a `break` left the enclosing loop."""
        for s in stmts:
            kind = s[0]
            if kind == "let":
                t = s[2][1]
                env[s[1]] = (t, self.ev(s[2], env))
            elif kind == "set":
                t, _ = env[s[1]]
                env[s[1]] = (t, self.convert(self.ev(s[2], env), s[2][1], t))
            elif kind == "aug":
                t, old = env[s[1]]
                env[s[1]] = (t, self.augmented(s[2], old, t, s[3], env))
            elif kind == "out":
                value = self.ev(s[4], env)
                target = f"out_{s[1]}" if s[2] == "nd" else f"fo_{s[1]}"
                self.outs[target][env["i"][1], s[3]] = value
            elif kind == "atomic":
                fn, acc, _, slot_e, e = s[1:]
                slot = self.ev(slot_e, env)
                value = self.ev(e, env)
                t = ACCUMULATORS[acc][1]
                self.acc[acc][slot] = self.atomic(fn, self.acc[acc][slot], value, t)
            elif kind == "let_atomic":
                i = env["i"][1]
                old = self.own[i]
                self.own[i] = self.atomic(s[2], old, self.ev(s[3], env), "i32")
                env[s[1]] = ("i32", old)
            elif kind == "vlet":
                t = s[2]
                env[s[1]] = ("vec", [self.convert(self.ev(x, env), x[1], t) for x in s[3]])
            elif kind == "vset":
                _, elems = env[s[1]]
                k = self.ev(s[2], env)
                e = s[3]
                elems = list(elems)
                elems[k] = self.convert(self.ev(e, env), e[1], e[1])
                env[s[1]] = ("vec", elems)
            elif kind == "vaug":
                _, elems = env[s[1]]
                operand = s[3]
                t = operand[1]
                if operand[0] == "vvar":
                    others = env[operand[2]][1]
                else:
                    others = [self.ev(operand, env)] * len(elems)
                env[s[1]] = ("vec", [self.binop(s[2], a, b, t) for a, b in zip(elems, others)])
            elif kind == "vout":
                self.outs["out_v"][env["i"][1]] = env[s[1]][1]
            elif kind == "if":
                if self.ev(s[1], env):
                    if self.exec(s[2], env):
                        return True
                elif self.exec(s[3], env):
                    return True
            elif kind == "for":
                for j in range(s[2]):
                    env[s[1]] = ("i32", j)
                    if self.exec(s[3], env):
                        break
            elif kind == "break_if":
                if self.ev(s[1], env):
                    return True
            else:
                raise AssertionError(kind)
        return False

    def augmented(self, op: str, old: Any, t: str, e: tuple, env) -> Any:
        """`x op= e` of a `t` local: computed in the promoted type, stored back as `t`."""
        r_t = promote(t, e[1])
        value = self.binop(op, self.convert(old, t, r_t),
                           self.convert(self.ev(e, env), e[1], r_t), r_t)
        return self.convert(value, r_t, t)

    # expressions
    def convert(self, value: Any, src: str, dst: str) -> Any:
        """ti.cast(value, dst) of a `src` value."""
        if is_float(dst):
            if src == "f32" and dst == "f64":
                self.widened = True  # f64 results may carry f32 rounding errors
            result = NP[dst](value)
            self.check_float(result, dst)
            return result
        if is_float(src):
            x = float(value)
            if not math.isfinite(x):
                raise Rejected("cast of inf/nan to an int")
            self.near_integer(x, src)
            truncated = int(x)
            lo, hi = int_range(dst)
            if not lo <= truncated < hi:
                raise Rejected(f"float-to-int cast out of range of {dst}")
            return truncated
        return wrap(int(value), dst)

    def check_float(self, value: Any, t: str) -> None:
        x = float(value)
        if not math.isfinite(x):
            raise Rejected("inf or nan")
        if abs(x) > 1e30 if t == "f32" else abs(x) > 1e200:
            raise Rejected("float too large")
        self.scale[t] = max(self.scale[t], abs(x))

    def near(self, a: float, b: float, t: str) -> None:
        """Reject a decision between floats that a rounding could flip."""
        tol = 1e-3 if t == "f32" else 1e-9
        if abs(a - b) <= tol * max(1.0, abs(a), abs(b), self.scale[t] * 1e-2):
            raise Rejected("float decision near a tie")

    def near_integer(self, x: float, t: str, half: bool = False) -> None:
        target = math.floor(x) + 0.5 if half else round(x)
        self.near(x, target, t)
        if not half:
            self.near(x, math.floor(x) if x - math.floor(x) < 0.5 else math.ceil(x), t)

    def binop(self, op: str, a: Any, b: Any, t: str) -> Any:
        if is_float(t):
            if op == "+":
                r = a + b
            elif op == "-":
                r = a - b
            elif op == "*":
                r = a * b
            elif op == "/":
                if float(b) == 0:
                    raise Rejected("float division by zero")
                r = a / b
            elif op in ("//", "%"):
                if float(b) == 0:
                    raise Rejected("float division by zero")
                q = a / b
                self.near_integer(float(q), t)
                fl = NP[t](math.floor(float(q)))
                r = fl if op == "//" else a - fl * b
            else:
                raise AssertionError(op)
            r = NP[t](r)
            self.check_float(r, t)
            return r
        a, b = int(a), int(b)
        if op == "+":
            return wrap(a + b, t)
        if op == "-":
            return wrap(a - b, t)
        if op == "*":
            return wrap(a * b, t)
        if op in ("//", "%"):
            if b == 0:  # our defined result (lowering/guard_int_division.py)
                self.features.add("int-div-by-zero")
                if op == "%":
                    return a
                if is_unsigned(t):
                    return wrap(-1, t)  # the truncating quotient is all ones
                return -1 if a < 0 else 0  # 0, then Python's floor correction
            return wrap(a // b if op == "//" else a % b, t)  # MIN // -1 wraps to MIN
        if op == "&":
            return wrap(a & b, t)
        if op == "|":
            return wrap(a | b, t)
        if op == "^":
            return wrap(a ^ b, t)
        if op == "<<":
            return wrap(a << b, t)
        if op == ">>":
            return wrap(a >> b, t)  # a is in its type's range: arithmetic for signed
        raise AssertionError(op)

    def ev(self, e: tuple, env) -> Any:
        kind, t = e[0], e[1]
        if kind == "arg":
            return _np(self.p.scalars[e[2]], t)
        if kind == "var":
            vt, value = env[e[2]]
            assert vt == t, (e, vt)
            return value
        if kind == "load":
            i = env["i"][1]
            value = self.p.inputs[e[2]][(i + e[3]) % N]
            return _np(value[e[4]] if len(e) > 4 else value, t)
        if kind == "const":
            return _np(e[2], t)
        if kind == "bin":
            op, a_e, b_e = e[2], e[3], e[4]
            if op == "/":  # Taichi: an integer operand becomes default_fp (f32) first,
                # even beside an f64 (u64 / f64 divides f64(f32(u64)))
                a_f, b_f = ("f32" if t_ in INT_TYPES else t_ for t_ in (a_e[1], b_e[1]))
                r_t = promote(a_f, b_f)
                assert r_t == t, (e, r_t)
                a = self.convert(self.convert(self.ev(a_e, env), a_e[1], a_f), a_f, r_t)
                b = self.convert(self.convert(self.ev(b_e, env), b_e[1], b_f), b_f, r_t)
                return self.binop(op, a, b, r_t)
            if op in ("<<", ">>"):
                r_t = a_e[1]
            else:
                r_t = promote(a_e[1], b_e[1])
            assert r_t == t, (e, r_t)
            a = self.convert(self.ev(a_e, env), a_e[1], r_t)
            b = self.convert(self.ev(b_e, env), b_e[1], r_t)
            return self.binop(op, a, b, r_t)
        if kind == "cmp":
            op, a_e, b_e = e[2], e[3], e[4]
            r_t = promote(a_e[1], b_e[1])
            a = self.convert(self.ev(a_e, env), a_e[1], r_t)
            b = self.convert(self.ev(b_e, env), b_e[1], r_t)
            if is_float(r_t) and a_e != b_e:  # the same expression twice is an exact tie
                self.near(float(a), float(b), r_t)
            return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b,
                        "==": a == b, "!=": a != b}[op])
        if kind == "un":
            fn = e[2]
            a = self.ev(e[3], env)
            if fn == "neg":
                return NP[t](-a) if is_float(t) else wrap(-a, t)
            if fn == "abs":
                return NP[t](abs(a)) if is_float(t) else wrap(abs(a), t)
            if fn in ("sin", "cos", "tan", "tanh", "exp", "log", "log2") and t == "f64":
                self.features.add("f64-transcendental")
            if fn == "log2" and t == "f64":
                self.features.add("f64-log2")
            x = float(a)
            if fn in ("floor", "ceil"):
                self.near_integer(x, t)
                return NP[t](math.floor(x) if fn == "floor" else math.ceil(x))
            if fn == "round":
                self.near_integer(x, t, half=True)
                return NP[t](round(x))
            if fn == "sqrt" and x < 0 or fn in ("log", "log2") and x <= 0:
                raise Rejected(f"{fn} out of its domain")
            value = getattr(math, fn)(x) if fn != "log2" else math.log2(x)
            r = NP[t](value)
            self.check_float(r, t)
            self.scale[t] = max(self.scale[t], abs(x))
            return r
        if kind == "cast":
            a_e = e[2]
            return self.convert(self.ev(a_e, env), a_e[1], t)
        if kind == "select":
            c = self.ev(e[2], env)
            a, b = self.ev(e[3], env), self.ev(e[4], env)
            return a if c else b
        if kind == "math2":
            fn = e[2]
            a, b = self.ev(e[3], env), self.ev(e[4], env)
            if fn == "min":  # near a tie either operand is the answer within tolerance
                return a if a < b else b
            if fn == "max":
                return a if a > b else b
            if t == "f64":
                self.features.add("f64-transcendental")
            if fn == "pow":
                r = NP[t](float(a) ** float(b))
            else:
                r = NP[t](math.atan2(float(a), float(b)))
            self.check_float(r, t)
            return r
        if kind == "call":
            f = self.funcs[e[2]]
            args = [self.convert(self.ev(a, env), a[1], pt) for a, pt in zip(e[3], f.params)]
            local = {f"p{j}": (pt, v) for j, (pt, v) in enumerate(zip(f.params, args))}
            self.exec(f.stmts, local)
            return self.convert(self.ev(f.body, local), f.body[1], f.result)
        if kind == "vget":
            elems = env[e[2][2]][1]
            return elems[self.ev(e[3], env)]
        if kind == "vred":
            how, a = e[2], env[e[3][2]][1]
            if how in ("max", "min"):
                acc = a[0]
                for x in a[1:]:
                    acc = (acc if acc > x else x) if how == "max" else (acc if acc < x else x)
                return acc
            b = env[e[4][2]][1] if how == "dot" else a
            if how == "sum":
                products = list(a)
            else:
                products = [self.binop("*", x, y, t) for x, y in zip(a, b)]
            acc = products[0]
            for x in products[1:]:
                acc = self.binop("+", acc, x, t)
            if how == "norm":
                acc = NP[t](math.sqrt(float(acc)))
            return acc
        if kind == "vec":
            how, a_es, b_es, k = e[2], e[3], e[4], e[5]
            a = [self.convert(self.ev(x, env), x[1], t) for x in a_es]
            b = [self.convert(self.ev(x, env), x[1], t) for x in b_es]
            if how == "dot":
                acc = self.binop("*", a[0], b[0], t)
                for x, y in zip(a[1:], b[1:]):
                    acc = self.binop("+", acc, self.binop("*", x, y, t), t)
                return acc
            if how == "sum":
                acc = a[0]
                for x in a[1:]:
                    acc = self.binop("+", acc, x, t)
                return acc
            if how == "max":
                acc = a[0]
                for x in a[1:]:
                    acc = acc if acc > x else x
                return acc
            if how == "index":
                return a[k]
            ws = [self.binop("+", x, self.binop("*", y, x, t), t) for x, y in zip(a, b)]
            acc = ws[0]
            for w in ws[1:]:
                acc = self.binop("+", acc, w, t)
            return acc
        raise AssertionError(kind)


_PY_BINARY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
              "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
              "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
              "//": lambda a, b: a // b if b else None, "%": lambda a, b: a % b if b else None}


def _check_python_folding(x: Any) -> None:
    """
    Taichi (and ours) fold operations on Python literals with Python's unbounded ints,
    then type the result: an i32 expression of literals out of i32 is a compile error,
    wherever it is (reached or not).
    """
    if isinstance(x, list):
        for part in x:
            _check_python_folding(part)
    elif isinstance(x, tuple) and x:
        if x[0] in ("bin", "un", "math2") and x[1] == "i32":
            folded = python_value(x)
            if folded is not None and not -(2**31) <= folded < 2**31:
                raise Rejected("a Python-folded constant out of i32")
        for part in x[1:]:
            _check_python_folding(part)


def _constant_floordiv_mod(x: Any) -> bool:
    """Is there an integer `//` or `%` of two constant-only operands (TAICHI_BUGS)?"""
    if isinstance(x, list):
        return any(_constant_floordiv_mod(part) for part in x)
    if not isinstance(x, tuple) or not x:
        return False
    if x[0] == "bin" and x[2] in ("//", "%") and x[1] in INT_TYPES:
        if _constant_only(x[3]) and _constant_only(x[4]):
            return True
    return any(_constant_floordiv_mod(part) for part in x[1:])


def _constant_only(e: Any) -> bool:
    if not isinstance(e, tuple) or not e:
        return True
    if e[0] in ("arg", "var", "load", "call"):
        return False
    return all(_constant_only(part) for part in e[2:] if isinstance(part, tuple | list)) \
        if e[0] != "vec" else False


def python_value(e: tuple) -> int | None:
    """The value of an i32 expression of bare literals as Python folds it, or None."""
    kind = e[0]
    if kind == "const":
        return e[2] if e[1] == "i32" else None
    if kind == "bin" and e[2] in _PY_BINARY:
        a, b = python_value(e[3]), python_value(e[4])
        if a is None or b is None or e[2] == "<<" and b > 64:
            return None
        if e[2] in ("//", "%") and b == 0:
            raise Rejected("a Python-folded division by zero (a compile error)")
        return _PY_BINARY[e[2]](a, b)
    if kind == "un" and e[2] in ("neg", "abs"):
        a = python_value(e[3])
        return None if a is None else (-a if e[2] == "neg" else abs(a))
    if kind == "math2" and e[2] in ("min", "max"):
        a, b = python_value(e[3]), python_value(e[4])
        return None if a is None or b is None else (min(a, b) if e[2] == "min" else max(a, b))
    return None


def reference(p: Program) -> dict[str, np.ndarray]:
    """The expected outputs; raises Rejected. Sets p.features."""
    _check_python_folding([p.body, [[f.stmts, f.body] for f in p.funcs]])
    ref = Reference(p)
    result = ref.run()
    p.features = ref.features
    p.scale = ref.scale  # type: ignore[attr-defined]
    p.widened = ref.widened  # type: ignore[attr-defined]
    return result


def accepted(seed: int) -> tuple[Program, dict[str, np.ndarray]] | None:
    """
    The program of `seed` and its reference: the first of the seed's attempts that the
    reference accepts (so nearly every seed is a test), or None if none is. The reasons
    the earlier attempts were rejected are in `p.rejections`.
    """
    reasons: Counter = Counter()
    for attempt in range(ATTEMPTS):
        p = generate(seed, attempt)
        try:
            expected = reference(p)
        except Rejected as why:
            reasons[str(why)] += 1
            continue
        p.rejections = reasons  # type: ignore[attr-defined]
        return p, expected
    return None


def known_issue(p: Program, arch: str) -> str | None:
    for name in sorted(p.features):
        reason, archs = KNOWN_ISSUES.get(name, (None, ()))
        if arch in archs:
            return name
    return None


# --------------------------------------------------------------------------- running


def load_module(src: str, folder: str, name: str):
    path = Path(folder) / f"{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_program(ti: Any, p: Program, folder: str) -> dict[str, np.ndarray]:
    """Run `p` under the module `ti` (already initialised); its outputs."""
    module = load_module(source(p), folder, f"difftest_{p.seed}_{os.getpid()}")
    kernel, fields = module.make(ti)
    for name, f in fields.items():
        if name in p.inputs:
            f.from_numpy(p.inputs[name])
    outs = {f"out_{t}": np.zeros((N, SLOTS), NP[t]) for t in out_types(p)}
    outs["out_v"] = np.zeros((N, 3), np.float32)
    accumulators = {n: p.inputs[n].copy() for n, (where, _) in ACCUMULATORS.items()
                    if where == "ndarray"}
    args = [p.inputs[n].copy() for n in ARRAYS] + list(accumulators.values())
    args += [outs[f"out_{t}"] for t in out_types(p)] + [outs["out_v"]]
    kernel(*args, *(p.scalars[n] for n in SCALARS))
    ti.sync()
    return {**outs, **accumulators, **{n: f.to_numpy() for n, f in fields.items()}}


def compare(p: Program, expected: dict, got: dict) -> list[str]:
    """The differences between `got` and `expected`, one line each."""
    problems = []
    for name, want in expected.items():
        have = np.asarray(got[name])
        t = str(want.dtype).replace("float", "f").replace("uint", "u").replace("int", "i")
        if is_float(t):
            scale = getattr(p, "scale", {}).get(t, 1.0)
            tol = 64 * EPS[t] * max(1.0, scale)
            if t == "f64" and getattr(p, "widened", False):  # f32 values cast to f64
                tol = max(tol, 64 * EPS["f32"] * max(1.0, p.scale["f32"]))  # type: ignore[attr-defined]
            bad = ~(np.abs(have.astype(np.float64) - want.astype(np.float64)) <= tol)
        else:
            bad = have != want
        for index in zip(*np.nonzero(bad)):
            index = tuple(int(x) for x in index)
            problems.append(f"{name}{list(index)}: got {have[index]!r}, expected {want[index]!r}")
    return problems


def coverage(p: Program) -> set[str]:
    """What the program exercises (statement and expression kinds, types, loop): the
    summary counts programs per item, so a thin spot of the generator shows."""
    found = {f"loop:{p.loop}"} | {f"feature:{f}" for f in p.features}
    if p.funcs:
        found.add("ti.func")
        if any(f.stmts for f in p.funcs):
            found.add("ti.func with statements")

    def visit(x) -> None:
        if isinstance(x, list):
            for part in x:
                visit(part)
        elif isinstance(x, tuple) and x and isinstance(x[0], str):
            kind = x[0]
            if kind in ("atomic", "let_atomic"):
                found.add(f"atomic_{x[1]}" if kind == "atomic" else "atomic (old value)")
                if kind == "atomic":
                    found.add(f"atomic on {ACCUMULATORS[x[2]][0]} {ACCUMULATORS[x[2]][1]}")
            elif kind in ("vlet", "vset", "vaug", "vout", "vget", "vred", "vec"):
                found.add("vectors")
            elif kind == "out" and x[2] == "field":
                found.add("field output")
            elif kind == "cast":
                found.add(f"cast to {x[1]}")
            if kind in _EXPR_KINDS:
                found.add(f"type:{x[1]}")
            for part in x[1:]:
                visit(part)

    visit([p.body, [[f.stmts, f.body] for f in p.funcs]])
    return found


@dataclasses.dataclass
class Outcome:
    seed: int
    arch: str
    kind: str  # ok, mismatch, error, known, rejected; crash, timeout (from the pool)
    detail: str = ""
    covers: list[str] = dataclasses.field(default_factory=list)
    rejections: dict[str, int] = dataclasses.field(default_factory=dict)


RUN_KINDS = ("ok", "mismatch", "error", "crash", "timeout")  # the program was run
BAD_KINDS = ("mismatch", "error", "crash", "timeout")


def check(ti: Any, seed: int, arch: str, folder: str) -> Outcome:
    case = accepted(seed)
    if case is None:
        return Outcome(seed, arch, "rejected", f"no accepted program in {ATTEMPTS} attempts")
    p, expected = case
    covers = sorted(coverage(p))
    rejections = dict(getattr(p, "rejections", {}))
    issue = known_issue(p, arch)
    if issue:
        return Outcome(seed, arch, "known", issue, covers, rejections)
    try:
        got = run_program(ti, p, folder)
    except Exception as error:  # noqa: BLE001 - every failure is a finding
        return Outcome(seed, arch, "error", f"{type(error).__name__}: {str(error)[:500]}",
                       covers, rejections)
    problems = compare(p, expected, got)
    if problems:
        return Outcome(seed, arch, "mismatch", "; ".join(problems[:4]), covers, rejections)
    return Outcome(seed, arch, "ok", "", covers, rejections)


def init(ti: Any, arch: str, threads: int | None = None) -> None:
    """ti.init for `arch`; `threads` caps the cpu backend's pool (a pool worker takes 2:
    parallel still, without every worker waking a thread per core for 8 iterations)."""
    ti.reset()
    ti.init(arch=getattr(ti, arch), offline_cache=False, cpu_max_num_threads=threads)


def run_seeds(seeds: range, archs: list[str], *, verbose: bool = True,
              reinit_every: int = 100) -> list[Outcome]:
    """Every seed on every arch in this process (no timeout: see `pool` for that)."""
    import taichi_xdsl as ti

    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory() as folder:
        for arch in archs:
            init(ti, arch)
            for n, seed in enumerate(seeds):
                if n and n % reinit_every == 0:
                    init(ti, arch)
                outcome = check(ti, seed, arch, folder)
                outcomes.append(outcome)
                if verbose and outcome.kind in BAD_KINDS:
                    print(f"[{arch} seed {seed}] {outcome.kind}: {outcome.detail}", flush=True)
    return outcomes


# --------------------------------------------------------------------------- pool

REINIT_EVERY = 100  # programs between two ti.init of one worker (bounds what it holds)


def worker_main(result_fd: int) -> int:
    """
    A pool worker: reads `SEED ARCH` lines on stdin and answers each with one JSON line
    (an Outcome) on `result_fd`. It has its own ti.init, made again when the arch
    changes and every REINIT_EVERY programs.
    """
    import taichi_xdsl as ti

    out = os.fdopen(result_fd, "w", buffering=1)
    out.write('{"ready": true}\n')  # imported: the pool's clock starts with the first task
    current, since_init = None, 0
    with tempfile.TemporaryDirectory() as folder:
        for line in sys.stdin:
            seed_text, arch = line.split()
            seed = int(seed_text)
            try:
                if arch != current or since_init >= REINIT_EVERY:
                    current = None
                    init(ti, arch, threads=2)
                    current, since_init = arch, 0
                outcome = check(ti, seed, arch, folder)
            except Exception as error:  # noqa: BLE001 - ti.init itself failed
                outcome = Outcome(seed, arch, "error", f"ti.init: {type(error).__name__}: {error}")
            since_init += 1
            out.write(json.dumps(dataclasses.asdict(outcome)) + "\n")
    return 0


@dataclasses.dataclass
class _Worker:
    proc: subprocess.Popen
    results: int  # the read end of the worker's result pipe
    log: Path
    buffer: bytes = b""
    arch: str | None = None
    task: tuple[int, str] | None = None
    started: float = 0.0
    ready: bool = False  # it has imported taichi_xdsl and waits for tasks


class Pool:
    """
    `jobs` worker processes (each its own ti.init) run (seed, arch) tasks. A program that
    runs past `timeout` seconds, or a worker that dies (a crash of the compiler, the
    driver or the process), is an outcome of its own (timeout, crash) and the worker is
    replaced. After `time_limit` seconds no task starts; the ones left are `not_run`.
    Tasks are spread so the archs advance together, and a worker keeps its arch while
    it can (a switch costs a ti.init).
    """

    def __init__(self, tasks: list[tuple[int, str]], jobs: int, timeout: float,
                 time_limit: float | None, folder: str):
        self.queues: dict[str, list[int]] = {}
        for seed, arch in tasks:
            self.queues.setdefault(arch, []).append(seed)
        for queue in self.queues.values():
            queue.reverse()  # pop() from the end gives the seeds in order
        self.jobs, self.timeout, self.time_limit = jobs, timeout, time_limit
        self.folder = folder
        self.start = time.monotonic()
        self.workers: list[_Worker] = []
        self.spawned = 0

    def spawn(self) -> _Worker:
        read, write = os.pipe()
        self.spawned += 1
        log = Path(self.folder) / f"worker{self.spawned}.log"
        with open(log, "wb") as log_file:
            proc = subprocess.Popen(
                [sys.executable, "-m", "taichi_xdsl.utils.difftest", "--worker",
                 "--result-fd", str(write)],
                stdin=subprocess.PIPE, stdout=log_file, stderr=subprocess.STDOUT,
                pass_fds=(write,))
        os.close(write)
        worker = _Worker(proc, read, log)
        self.workers.append(worker)
        return worker

    def retire(self, worker: _Worker, selector) -> None:
        selector.unregister(worker.results)
        os.close(worker.results)
        if worker.proc.poll() is None:
            worker.proc.kill()
        worker.proc.wait()
        self.workers.remove(worker)

    def next_task(self, worker: _Worker) -> tuple[int, str] | None:
        left = {a: len(q) for a, q in self.queues.items() if q}
        if not left:
            return None
        mine = left.get(worker.arch or "", 0)
        most = max(left, key=lambda a: left[a])
        arch = worker.arch if mine and mine >= left[most] - 2 * self.jobs else most
        return self.queues[arch].pop(), arch

    def give(self, worker: _Worker) -> None:
        if self.time_limit is not None and time.monotonic() - self.start > self.time_limit:
            worker.task = None
            return
        task = self.next_task(worker)
        worker.task = task
        if task is None:
            return
        worker.arch = task[1]
        worker.started = time.monotonic()
        worker.proc.stdin.write(f"{task[0]} {task[1]}\n".encode())
        worker.proc.stdin.flush()

    def run(self, on_outcome) -> list[tuple[int, str]]:
        """Run every task, calling on_outcome(Outcome) for each; the tasks not run."""
        import selectors

        selector = selectors.DefaultSelector()

        def start_one() -> None:
            worker = self.spawn()
            selector.register(worker.results, selectors.EVENT_READ, worker)

        tasks = sum(len(q) for q in self.queues.values())
        for _ in range(min(self.jobs, tasks)):
            start_one()
        while any(w.task or not w.ready for w in self.workers):
            now = time.monotonic()
            deadline = min((w.started + self.timeout for w in self.workers if w.task),
                           default=now + 1)
            for key, _ in selector.select(timeout=max(0.05, min(1.0, deadline - now))):
                worker = key.data
                chunk = os.read(worker.results, 1 << 16)
                if not chunk:  # the worker died
                    code = worker.proc.wait()
                    if not worker.ready:
                        raise RuntimeError("a difftest worker failed to start: "
                                           + worker.log.read_text(errors="replace")[-2000:])
                    if worker.task:
                        tail = worker.log.read_text(errors="replace")[-600:]
                        on_outcome(Outcome(*worker.task, "crash",
                                           f"worker exit status {code}: {tail}"))
                    self.retire(worker, selector)
                    start_one()
                    continue
                worker.buffer += chunk
                while b"\n" in worker.buffer:
                    line, worker.buffer = worker.buffer.split(b"\n", 1)
                    answer = json.loads(line)
                    if answer.pop("ready", False):
                        worker.ready = True
                    else:
                        on_outcome(Outcome(**answer))
                    self.give(worker)
            now = time.monotonic()
            for worker in list(self.workers):
                if worker.task and now - worker.started > self.timeout:
                    on_outcome(Outcome(*worker.task, "timeout",
                                       f"no answer in {self.timeout:.0f} s"))
                    self.retire(worker, selector)
                    start_one()
        for worker in list(self.workers):
            worker.proc.stdin.close()
            try:
                worker.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            self.retire(worker, selector)
        return [(seed, arch) for arch, queue in self.queues.items() for seed in reversed(queue)]


class Summary:
    """The counts of a run, written as JSON (and read back to resume a run)."""

    def __init__(self, seeds: range, archs: list[str], jobs: int):
        self.seeds, self.archs, self.jobs = seeds, archs, jobs
        self.outcomes: list[Outcome] = []
        self.coverage: Counter = Counter()
        self.rejected_attempts: Counter = Counter()
        self.not_run: list[tuple[int, str]] = []
        self.start = time.monotonic()
        self.earlier_s = 0.0
        self.worker_cpu_s = 0.0

    def add(self, o: Outcome) -> None:
        if o.arch == self.archs[0]:  # one program per seed: count its attempts once
            self.coverage.update(o.covers)
            self.rejected_attempts.update(o.rejections)
        o.covers, o.rejections = [], {}
        self.outcomes.append(o)

    def to_json(self, complete: bool) -> dict:
        per_arch = {}
        for arch in self.archs:
            mine = [o for o in self.outcomes if o.arch == arch]
            counts = Counter(o.kind for o in mine)
            skipped = Counter(f"known issue {o.detail}" if o.kind == "known" else o.detail
                              for o in mine if o.kind in ("known", "rejected"))
            not_run = sum(1 for _, a in self.not_run if a == arch)
            if not_run:
                skipped["time limit: not run"] = not_run
            per_arch[arch] = {"programs_run": sum(counts[k] for k in RUN_KINDS),
                              **{k: counts[k] for k in RUN_KINDS}, "skipped": dict(skipped)}
        return {
            "seeds": f"{self.seeds.start}:{self.seeds.stop}", "archs": self.archs,
            "jobs": self.jobs, "complete": complete,
            "elapsed_s": round(self.earlier_s + time.monotonic() - self.start, 1),
            "worker_cpu_s": round(self.worker_cpu_s, 1),  # of this invocation (not resumed)
            "per_arch": per_arch,
            "failures": [{"seed": o.seed, "arch": o.arch, "kind": o.kind, "detail": o.detail}
                         for o in self.outcomes if o.kind in BAD_KINDS],
            "coverage_programs": dict(sorted(self.coverage.items())),
            "rejected_attempts": dict(self.rejected_attempts.most_common()),
            "outcomes": [[o.seed, o.arch, o.kind, o.detail] for o in self.outcomes],
        }

    def write(self, path: str | None, complete: bool) -> None:
        if path:
            tmp = Path(path + ".tmp")
            data = self.to_json(complete)
            outcomes = data.pop("outcomes")  # one line each
            text = json.dumps(data, indent=1)[:-2] + ',\n "outcomes": [\n'
            text += ",\n".join("  " + json.dumps(o) for o in outcomes) + "\n ]\n}\n"
            tmp.write_text(text)
            tmp.replace(path)

    def resume(self, path: str) -> None:
        """Take the outcomes of an earlier run (its JSON) as done."""
        data = json.loads(Path(path).read_text())
        for seed, arch, kind, detail in data["outcomes"]:
            self.outcomes.append(Outcome(seed, arch, kind, detail))
        self.coverage.update(data.get("coverage_programs", {}))
        self.rejected_attempts.update(data.get("rejected_attempts", {}))
        self.earlier_s = data.get("elapsed_s", 0.0)

    def line(self) -> str:
        parts = []
        for arch, counts in self.to_json(False)["per_arch"].items():
            bad = sum(counts[k] for k in BAD_KINDS)
            parts.append(f"{arch}: {counts['programs_run']} run, {bad} bad, "
                         f"{sum(counts['skipped'].values())} skipped")
        return "; ".join(parts)


def run_pool(seeds: range, archs: list[str], jobs: int, timeout: float,
             time_limit: float | None, json_path: str | None, resume: str | None) -> Summary:
    summary = Summary(seeds, archs, jobs)
    if resume and Path(resume).exists():
        summary.resume(resume)
    done = {(o.seed, o.arch) for o in summary.outcomes}
    tasks = [(s, a) for s in seeds for a in archs if (s, a) not in done]
    last_write = [time.monotonic()]

    def on_outcome(o: Outcome) -> None:
        summary.add(o)
        if o.kind in BAD_KINDS:
            print(f"[{o.arch} seed {o.seed}] {o.kind}: {o.detail}", flush=True)
        if time.monotonic() - last_write[0] > 20:
            summary.write(json_path, complete=False)
            print(f"  {time.monotonic() - summary.start:.0f} s: {summary.line()}", flush=True)
            last_write[0] = time.monotonic()

    with tempfile.TemporaryDirectory() as folder:
        summary.not_run = Pool(tasks, jobs, timeout, time_limit, folder).run(on_outcome)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers, all reaped now
    summary.worker_cpu_s = usage.ru_utime + usage.ru_stime
    summary.write(json_path, complete=not summary.not_run)
    return summary


# --------------------------------------------------------------------------- Taichi

_TAICHI_WORKER = r"""
import json, sys, numpy as np
sys.path.insert(0, {utils!r})
import difftest as d
import taichi as ti
out = {{}}
ti.init(arch=getattr(ti, {arch!r}), offline_cache=False)
for n, seed in enumerate({seeds!r}):
    if n and n % 100 == 0:
        ti.reset(); ti.init(arch=getattr(ti, {arch!r}), offline_cache=False)
    p = d.accepted(seed)[0]
    try:
        got = d.run_program(ti, p, {folder!r})
        out[seed] = {{k: v.tolist() for k, v in got.items()}}
    except Exception as e:
        out[seed] = "error: " + type(e).__name__ + ": " + str(e)[:300]
json.dump(out, open({result!r}, "w"))
"""


def run_taichi(python: str, seeds: list[int], arch: str) -> dict[int, Any]:
    """Run programs under Taichi (another Python with `taichi`); outputs by seed."""
    with tempfile.TemporaryDirectory() as folder:
        result = str(Path(folder) / "result.json")
        script = _TAICHI_WORKER.format(utils=str(Path(__file__).parent), arch=arch,
                                       seeds=seeds, folder=folder, result=result)
        subprocess.run([python, "-c", script], check=True, capture_output=True, timeout=3600)
        data = json.loads(Path(result).read_text())
    return {int(k): v for k, v in data.items()}


# --------------------------------------------------------------------------- reducer


def _subexprs(e: tuple) -> list[tuple]:
    out = []
    for c in e[2:]:
        if isinstance(c, tuple) and c and c[0] in _EXPR_KINDS:
            out.append(c)
        elif isinstance(c, list):
            out += [x for x in c if isinstance(x, tuple)]
    return out


_EXPR_KINDS = {"arg", "load", "var", "const", "bin", "cmp", "un", "cast", "select", "math2",
               "call", "vec", "vget", "vred"}


def _expr_variants(e: tuple) -> list[tuple]:
    """Smaller expressions of the same type as `e`."""
    t = e[1]
    out = [("const", t, 1.0 if is_float(t) else 1)] if e[0] != "const" else []
    for c in _subexprs(e):
        out.append(c if c[1] == t else ("cast", t, c))
        if c[0] not in ("const", "var", "arg", "load"):
            for k, part in enumerate(e):
                if part is c:
                    for smaller in _expr_variants(c):
                        out.append(e[:k] + (smaller,) + e[k + 1:])
                    break
    return out


def _stmt_variants(stmts: list[tuple]) -> list[list[tuple]]:
    out = []
    for k, s in enumerate(stmts):
        out.append(stmts[:k] + stmts[k + 1:])
        kind = s[0]
        if kind == "if":
            out.append(stmts[:k] + s[2] + s[3] + stmts[k + 1:])
            for body in _stmt_variants(s[2]):
                out.append(stmts[:k] + [(s[0], s[1], body, s[3])] + stmts[k + 1:])
            for body in _stmt_variants(s[3]):
                out.append(stmts[:k] + [(s[0], s[1], s[2], body)] + stmts[k + 1:])
        elif kind == "for":
            if s[2] > 1:
                out.append(stmts[:k] + [(s[0], s[1], 1, s[3])] + stmts[k + 1:])
            for body in _stmt_variants(s[3]):
                out.append(stmts[:k] + [(s[0], s[1], s[2], body)] + stmts[k + 1:])
        else:
            last = len(s) - 1
            if isinstance(s[last], tuple) and s[last][0] in _EXPR_KINDS:
                for e in _expr_variants(s[last]):
                    out.append(stmts[:k] + [s[:last] + (e,)] + stmts[k + 1:])
    return out


def _uses(stmts, name: str) -> bool:
    text = repr(stmts)
    return f"'{name}'" in text


def reduce(p: Program, still_fails) -> Program:
    """
    Greedy reduction: drop statements and functions, inline branches, replace
    expressions by their parts or by 1, while `still_fails(program)` holds (it returns
    False for a program the reference rejects).
    """
    current = p
    progress = True
    while progress:
        progress = False
        candidates = []
        for f in current.funcs:
            candidates.append(dataclasses.replace(current, funcs=[g for g in current.funcs if g is not f]))
        candidates += [dataclasses.replace(current, body=b) for b in _stmt_variants(current.body)]
        for c in candidates:
            if not _well_formed(c):
                continue
            if still_fails(c):
                current = c
                progress = True
                break
    return current


def _well_formed(p: Program) -> bool:
    """Every variable and function used is defined before (the reducer may drop one)."""
    names = {f.name for f in p.funcs}
    text = repr(p.body)
    for name in [n for n in _calls(p.body)]:
        if name not in names:
            return False
    defined = {"i"}

    def walk(stmts, defined) -> bool:
        for s in stmts:
            for var in _vars(s):
                if var not in defined:
                    return False
            if s[0] in ("let", "vlet", "let_atomic"):
                defined = defined | {s[1]}
            elif s[0] == "if":
                if not walk(s[2], defined) or not walk(s[3], defined):
                    return False
            elif s[0] == "for":
                if not walk(s[3], defined | {s[1]}):
                    return False
        return True

    del text
    return walk(p.body, defined)


def _vars(s) -> list[str]:
    out = []

    def visit(x):
        if isinstance(x, tuple):
            if x and x[0] in ("var", "vvar"):
                out.append(x[2])
            elif x and x[0] in ("if", "for"):
                for part in x[1:2] if x[0] == "if" else ():
                    visit(part)
                return
            for part in x:
                visit(part)
        elif isinstance(x, list):
            for part in x:
                visit(part)

    visit(s)
    if s[0] in ("set", "aug", "vset", "vaug", "vout"):
        out.append(s[1])
    return out


def _calls(x) -> list[str]:
    out = []
    if isinstance(x, tuple):
        if x and x[0] == "call":
            out.append(x[2])
        for part in x:
            out += _calls(part)
    elif isinstance(x, list):
        for part in x:
            out += _calls(part)
    return out


def reduce_seed(seed: int, arch: str) -> str:
    """The source of the smallest program found that still fails like `seed` on `arch`."""
    import taichi_xdsl as ti

    case = accepted(seed)
    assert case is not None, "the reference rejects this seed"
    p, _ = case
    with tempfile.TemporaryDirectory() as folder:
        init(ti, arch)
        first = _failure_kind(ti, p, folder)
        if first is None:
            return f"# seed {seed} does not fail on {arch}\n"
        count = [0]

        def still_fails(c: Program) -> bool:
            count[0] += 1
            if count[0] % 50 == 0:
                init(ti, arch)
            return _failure_kind(ti, c, folder) == first

        small = reduce(p, still_fails)
    expected = reference(small)
    got = None
    with tempfile.TemporaryDirectory() as folder:
        init(ti, arch)
        try:
            got = run_program(ti, small, folder)
            diff = compare(small, expected, got)
        except Exception as error:  # noqa: BLE001
            diff = [f"{type(error).__name__}: {error}"]
    return source(small) + "\n# " + "\n# ".join(diff[:6]) + "\n"


def _failure_kind(ti, p: Program, folder: str) -> str | None:
    try:
        expected = reference(p)
    except Rejected:
        return None
    try:
        got = run_program(ti, p, folder)
    except Exception as error:  # noqa: BLE001
        return f"error {type(error).__name__}"
    problems = compare(p, expected, got)
    if not problems:
        return None
    return "mismatch " + problems[0].split("[")[0]


# --------------------------------------------------------------------------- command line


def _seeds(text: str) -> range:
    start, _, stop = text.partition(":")
    return range(int(start), int(stop) if stop else int(start) + 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0:100", help="a range START:STOP")
    parser.add_argument("--archs", default="cpu,vulkan")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds one program may take (then: a timeout outcome)")
    parser.add_argument("--time-limit", type=float, metavar="S",
                        help="start no program after S seconds (the rest: not run)")
    parser.add_argument("--json", help="write the summary and every outcome to this file "
                        "(also every 20 s while running)")
    parser.add_argument("--resume", metavar="JSON",
                        help="skip the (seed, arch) pairs this earlier --json file has")
    parser.add_argument("--show", type=int, help="print the program of one seed")
    parser.add_argument("--reduce", action="store_true", help="shrink the failing seeds")
    parser.add_argument("--taichi", metavar="PYTHON",
                        help="also run under Taichi with this Python (it has `taichi`)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result-fd", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.result_fd)
    if args.show is not None:
        case = accepted(args.show)
        if case is None:
            print(f"# seed {args.show}: the reference rejects all {ATTEMPTS} attempts")
            return 0
        p, _ = case
        print(source(p))
        print(f"# attempt {p.attempt}; features: {sorted(p.features)}")  # type: ignore[attr-defined]
        return 0
    seeds = _seeds(args.seeds)
    archs = [a for a in args.archs.split(",") if a]
    summary = run_pool(seeds, archs, args.jobs, args.timeout, args.time_limit, args.json,
                       args.resume)
    data = summary.to_json(not summary.not_run)
    failures = 0
    for arch, counts in data["per_arch"].items():
        failures += sum(counts[k] for k in BAD_KINDS)
        print(f"{arch}: {counts['programs_run']} programs run: "
              + ", ".join(f"{k} {counts[k]}" for k in RUN_KINDS)
              + f"; skipped {counts['skipped']}")
    run = sum(c["programs_run"] for c in data["per_arch"].values())
    print(f"{data['elapsed_s']:.0f} s with {args.jobs} jobs; workers' CPU "
          f"{data['worker_cpu_s']:.0f} s ({data['worker_cpu_s'] / max(run, 1):.2f} s a program)")
    if args.taichi:
        _against_taichi(args.taichi, seeds, archs)
    if args.reduce:
        for o in summary.outcomes:
            if o.kind in ("mismatch", "error"):
                print(f"--- seed {o.seed} on {o.arch}, reduced:")
                print(reduce_seed(o.seed, o.arch))
    return 1 if failures else 0


def _against_taichi(python: str, seeds: range, archs: list[str]) -> int:
    """Taichi's outputs against the reference: differences are listed (Taichi's bugs or
    the reference's mistakes, to be read by a person); returns how many."""
    differences = 0
    for arch in archs:
        cases = {s: c for s in seeds if (c := accepted(s)) is not None}
        by_zero = [s for s, (p, _) in cases.items() if "int-div-by-zero" in p.features]
        for s in by_zero:  # Taichi's process dies of SIGFPE on cpu (TAICHI_BUGS)
            del cases[s]
        if by_zero:
            print(f"taichi {arch}: {len(by_zero)} programs divide an int by zero: not run "
                  "(TAICHI_BUGS int-div-by-zero)")
        taichi = run_taichi(python, sorted(cases), arch)
        for seed, (p, expected) in cases.items():
            got = taichi.get(seed)
            if isinstance(got, str) or got is None:
                print(f"[taichi {arch} seed {seed}] {got}")
                continue
            got = {k: np.array(v, dtype=expected[k].dtype) for k, v in got.items()
                   if k in expected}
            problems = compare(p, expected, got)
            if problems and _constant_floordiv_mod(p.body):
                print(f"[taichi {arch} seed {seed}] differs where Taichi folds constant "
                      f"`//`/`%` with C's rule (TAICHI_BUGS): {problems[0]}")
            elif problems:
                differences += 1
                print(f"[taichi {arch} seed {seed}] differs: {'; '.join(problems[:3])}")
        print(f"taichi {arch}: {len(cases)} programs, {differences} differ from the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
