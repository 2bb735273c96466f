"""
End-to-end checks, on cpu and vulkan, of lowering details that the mutation check
(utils/mutation.py) found untested: each test fails when the detail is broken.
"""

from __future__ import annotations

import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


@pytest.mark.parametrize("a, b", [(0, 0), (3, 0), (0, -2), (5, 6), (2, 2)])
def test_bool_and_int_equality(a: int, b: int):
    out = ti.field(ti.i32, shape=6)

    @ti.kernel
    def compare(a: ti.i32, b: ti.i32):
        p = a > 0
        q = b > 0
        out[0] = p == q
        out[1] = p != q
        out[2] = a == b
        out[3] = a != b
        out[4] = ti.cast(a, ti.u1)  # non-zero is True, as in Taichi 1.7.4
        out[5] = (a == b) == (p == q)

    compare(a, b)
    p, q = a > 0, b > 0
    want = [p == q, p != q, a == b, a != b, a != 0, (a == b) == (p == q)]
    assert list(out.to_numpy()) == [int(w) for w in want]
