"""
The end-to-end programs of test_e2e_programs.py again, under `ti.init(arch=ti.vulkan)`
(lavapipe in CI): the same Python source, results compared with NumPy by the same tests.
"""

import pytest
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import vulkan_available
from test_e2e_programs import (  # noqa: F401  (collected here, under Vulkan)
    test_integer_kernel_scalar_return,
    test_integer_promotion_floordiv_mod_negative,
    test_integer_sum_reduction_range_for,
    test_local_accumulator_in_parallel_loop,
    test_mixed_int_width_promotion,
    test_saxpy_2_to_the_24,
    test_saxpy_ndarrays,
    test_saxpy_ti_ndarray,
    test_stencil_ndrange_2d_fields,
    test_sum_reduction_into_0d_field,
    test_tiny_kernel_called_1000_times,
)

AVAILABLE, REASON = vulkan_available()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=f"no Vulkan device: {REASON}")


@pytest.fixture(autouse=True)
def program():
    ti.init(arch=ti.vulkan)
    yield
    ti.sync()
    ti.reset()
