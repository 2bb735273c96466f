"""
End-to-end: `ti.types.argpack`, kernel parameters grouped into one argument.
"""

import numpy as np
import pytest
import taichi_xdsl as ti

# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_scalar_vector_struct_members():
    S = ti.types.struct(a=ti.i32, c=ti.f32)
    Pack = ti.types.argpack(k=ti.i32, flag=bool, v=ti.types.vector(3, ti.f32), s=S)

    @ti.kernel
    def f(p: Pack, scale: ti.f32) -> ti.f32:
        out = 0.0
        if p.flag:
            out = p.k + p.v[2] + p.s.a * p.s.c
        else:
            out = p.k * p.v[0]
        return out * scale

    on = Pack(k=3, flag=True, v=[1.0, 2.0, 4.0], s=S(a=2, c=0.5))
    off = Pack(k=3, flag=False, v=[1.5, 2.0, 4.0], s=S(a=2, c=0.5))
    assert f(on, 2.0) == pytest.approx((3 + 4.0 + 1.0) * 2)
    assert f(off, 1.0) == pytest.approx(4.5)
    assert f(on, scale=1.0) == pytest.approx(8.0)  # each call binds its own pack


def test_ndarray_and_nested_packs():
    arr = ti.ndarray(dtype=ti.math.vec3, shape=(3, 4))
    arr.from_numpy(np.arange(36, dtype=np.float32).reshape(3, 4, 3))
    Inner = ti.types.argpack(i=ti.i32, j=ti.i32)
    Outer = ti.types.argpack(a=ti.types.ndarray(dtype=ti.math.vec3, ndim=2), at=Inner, c=ti.i32)

    @ti.kernel
    def pick(p: Outer) -> ti.math.vec3:
        return p.a[p.at.i, p.at.j] * p.c

    @ti.kernel
    def write(p: Outer):
        for i, j in p.a:
            p.a[i, j][0] = i * 10 + j + p.c

    got = pick(Outer(a=arr, at=Inner(i=2, j=1), c=2))
    np.testing.assert_allclose(got.to_numpy(), np.arange(27, 30) * 2)
    write(Outer(a=arr, at=Inner(i=0, j=0), c=100))
    want = 100 + np.add.outer(np.arange(3) * 10, np.arange(4))
    np.testing.assert_array_equal(arr.to_numpy()[..., 0], want)


def test_pack_rules():
    Pack = ti.types.argpack(a=ti.i32, b=bool)
    assert repr(Pack) == "<ti.ArgPackType a=i32, b=u1>"
    with pytest.raises(ValueError, match="Invalid data type"):
        ti.types.struct(p=Pack)

    @ti.kernel
    def ret(p: Pack) -> Pack:
        return p

    with pytest.raises(ti.TaichiSyntaxError, match="cannot return an argpack"):
        ret(Pack(a=1, b=True))

    @ti.kernel
    def f(p: Pack) -> ti.i32:
        return p.a

    with pytest.raises(ti.TaichiTypeError, match="must be a value of"):
        f(3)
    with pytest.raises(ti.TaichiTypeError, match="no value for member"):
        Pack(a=1)
