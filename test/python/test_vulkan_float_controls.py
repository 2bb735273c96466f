"""
ti.init(arch=ti.vulkan, fast_math=False) reaches the SPIR-V code generator: the backend
runs `convert-offload-to-spirv{preserve-nan-inf=true}` where the device's float controls
allow SignedZeroInfNanPreserve, so a driver that assumes no NaN/Inf keeps them; fast
math (the default) leaves the modules as they were.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import taichi_xdsl as ti
from taichi_xdsl.frontends.python.lang.program import get_program
from taichi_xdsl.targets.vulkan.backend import preserves_nan_inf

OPTION = "preserve-nan-inf=true"


def _caps(**flags: bool) -> SimpleNamespace:
    names = (
        "shader_float16",
        "shader_float64",
        "signed_zero_inf_nan_preserve_float16",
        "signed_zero_inf_nan_preserve_float32",
        "signed_zero_inf_nan_preserve_float64",
    )
    return SimpleNamespace(**{name: flags.get(name, False) for name in names})


def test_preserves_nan_inf_needs_every_float_width_the_device_has() -> None:
    assert not preserves_nan_inf(_caps())
    assert preserves_nan_inf(_caps(signed_zero_inf_nan_preserve_float32=True))
    f64 = dict(shader_float64=True, signed_zero_inf_nan_preserve_float32=True)
    assert not preserves_nan_inf(_caps(**f64))
    assert preserves_nan_inf(_caps(**f64, signed_zero_inf_nan_preserve_float64=True))
    f16 = dict(shader_float16=True, signed_zero_inf_nan_preserve_float32=True)
    assert not preserves_nan_inf(_caps(**f16))
    assert preserves_nan_inf(_caps(**f16, signed_zero_inf_nan_preserve_float16=True))


@pytest.mark.vulkan_only(reason="the SPIR-V pipeline of the Vulkan backend")
@pytest.mark.parametrize("fast_math", [True, False])
def test_fast_math_reaches_spirv_pipeline(arch: object, fast_math: bool) -> None:
    ti.init(arch=arch, fast_math=fast_math)

    @ti.kernel
    def k(z: ti.f32) -> ti.i32:
        return ti.math.isnan(z / z)

    backend = get_program().backend
    caps = backend.runtime.caps
    expected = not fast_math and preserves_nan_inf(caps)
    [convert] = [p for p in backend.spirv_pipeline() if "convert-offload-to-spirv" in p]
    assert (OPTION in convert) == expected
    # divisions become multiplications by a reciprocal under fast math alone
    assert ("ti-fast-reciprocal" in backend.spirv_pipeline()) == fast_math
    if not fast_math:
        assert k(0.0) == 1
