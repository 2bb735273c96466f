"""
Options Taichi accepts are honoured, or raise naming what is not supported: none is
dropped without a word. ti.types.ndarray(needs_grad=, boundary=, element_shape=,
field_dim=), ti.ndarray(layout=), ti.Vector(**kw), SNode.place(offset=),
ti.ad.Tape(grad_check=).
"""

from __future__ import annotations

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils.errors import TaichiError, TaichiTypeError

pytestmark = pytest.mark.usefixtures("program")


def test_ndarray_annotation_needs_grad():
    @ti.kernel
    def double(x: ti.types.ndarray(dtype=ti.f32, ndim=1, needs_grad=True)):
        for i in x:
            x[i] *= 2

    with_grad = ti.ndarray(ti.f32, 4, needs_grad=True)
    with_grad.from_numpy(np.arange(4, dtype=np.float32))
    double(with_grad)
    np.testing.assert_array_equal(with_grad.to_numpy(), [0, 2, 4, 6])
    without = ti.ndarray(ti.f32, 4)
    with pytest.raises(TaichiTypeError, match="needs_grad=True"):
        double(without)
    with pytest.raises(TaichiTypeError, match="needs_grad=True"):
        double(np.zeros(4, np.float32))


def test_ndarray_annotation_boundary_and_deprecated_arguments():
    assert ti.types.ndarray(boundary="unsafe").boundary == "unsafe"
    assert ti.types.ndarray(boundary="clamp").boundary == "clamp"  # test_lang_semantics
    with pytest.raises(ValueError, match="boundary"):
        ti.types.ndarray(boundary="wrap")
    with pytest.raises(ValueError, match="field_dim"):
        ti.types.ndarray(field_dim=1)
    with pytest.raises(TypeError):
        ti.types.ndarray(layout=0)  # not an argument of Taichi's either
    with pytest.raises(TaichiError, match="element_dim"):
        ti.types.ndarray(ti.f32, element_dim=1)
    with pytest.raises(ValueError, match="element_shape"):
        ti.types.ndarray(ti.f32, element_dim=2, element_shape=(3,))


def test_ndarray_annotation_element_shape():
    @ti.kernel
    def row_sums(
        m: ti.types.ndarray(dtype=ti.f32, ndim=1, element_shape=(3,)),
        out: ti.types.ndarray(dtype=ti.f32, ndim=1),
    ):
        for i in m:
            out[i] = m[i][0] + m[i][1] * 10 + m[i][2] * 100

    m = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = np.zeros(4, np.float32)
    row_sums(m, out)
    np.testing.assert_array_equal(out, m[:, 0] + m[:, 1] * 10 + m[:, 2] * 100)
    with pytest.raises(ValueError, match=r"required element_shape=\(3,\)"):
        row_sums(np.zeros((4, 2), np.float32), out)  # elements of 2, not 3 (Taichi's ValueError)


def test_constructors_reject_unknown_keywords():
    with pytest.raises(TypeError):
        ti.ndarray(ti.f32, 4, layout="soa")  # Taichi 1.7.4 has no such argument
    with pytest.raises(TypeError):
        ti.Vector([1, 2], keep_raw=True)
    assert list(ti.Vector([1, 2], ti.f32).to_numpy()) == [1.0, 2.0]


def test_place_offset():
    x = ti.field(ti.i32)
    ti.root.dense(ti.i, 4).place(x, offset=(2,))
    x[5] = 3
    assert x.index_offset == (2,) and x.to_numpy().tolist() == [0, 0, 0, 3]
    with pytest.raises(TaichiError, match="offset"):
        ti.root.dense(ti.i, 4).place(ti.field(ti.i32), offset=(1, 2))
    y = ti.field(ti.i32)
    ti.root.dense(ti.i, 4).place(y, offset=0)  # no offset: as without it
    y[3] = 7
    assert y[3] == 7


def _square_sum_setup(wrong: bool):
    x = ti.field(ti.f64, shape=5, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def square_sum():
        for i in x:
            loss[None] += x[i] * x[i]

    @ti.ad.grad_replaced
    def forward():
        square_sum()

    @ti.ad.grad_for(forward)
    def backward():  # d loss / d x = 2 x; 3 x is wrong
        x.grad.from_numpy(x.grad.to_numpy() + (3 if wrong else 2) * x.to_numpy())

    x.from_numpy(np.linspace(0.5, 2.5, 5))
    return x, loss, forward


def test_tape_grad_check_passes_a_right_gradient():
    x, loss, forward = _square_sum_setup(wrong=False)
    with ti.ad.Tape(loss=loss, grad_check=[x]):
        forward()
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * np.linspace(0.5, 2.5, 5))
    # The fields are left as the recorded calls left them, after the checking replays.
    assert loss[None] == pytest.approx(float(np.sum(np.linspace(0.5, 2.5, 5) ** 2)))


def test_tape_grad_check_catches_a_wrong_gradient():
    x, loss, forward = _square_sum_setup(wrong=True)
    with pytest.raises(AssertionError, match="grad check failed"):
        with ti.ad.Tape(loss=loss, grad_check=[x]):
            forward()
    with pytest.raises(TaichiError, match="f64 loss"):
        ti.ad.Tape(loss=ti.field(ti.f32, shape=(), needs_grad=True), grad_check=[x])


def test_loop_config_block_dim(capsys):
    """block_dim sets the loop's threads per group: the task's LocalSize on Vulkan."""
    total = ti.field(ti.i32, shape=())
    x = ti.field(ti.i32, shape=100)

    @ti.kernel
    def fill_and_sum():
        ti.loop_config(block_dim=32)
        for i in range(100):
            x[i] = i
        ti.loop_config(block_dim=64)
        for i in x:
            total[None] += x[i]

    module = str(fill_and_sum.get_ir())
    assert "block_dim = 32 : i64" in module and "block_dim = 64 : i64" in module
    fill_and_sum()
    assert total[None] == 4950


def test_loop_config_block_dim_reaches_vulkan(arch, capsys):
    if arch is not ti.vulkan:
        pytest.skip("the group size is a Vulkan notion")
    ti.init(arch=arch, print_ir=True)
    x = ti.field(ti.f32, shape=64)

    @ti.kernel
    def scale():
        ti.loop_config(block_dim=16)
        for i in x:
            x[i] = i * 2.0

    scale()
    assert x[63] == 126.0
    assert '"LocalSize", 16, 1, 1' in capsys.readouterr().out


def test_loop_config_options_raise_or_warn():
    x = ti.field(ti.i32, shape=8)

    @ti.kernel
    def unknown():
        ti.loop_config(threads=4)
        for i in x:
            x[i] = 1

    with pytest.raises(ti.TaichiSyntaxError, match="threads"):
        unknown()

    @ti.kernel
    def bits():
        ti.loop_config(bit_vectorize=True)
        for i in x:
            x[i] = 1

    with pytest.raises(ti.TaichiSyntaxError, match="bit_vectorize"):
        bits()

    @ti.kernel
    def too_wide():
        ti.loop_config(block_dim=4096)
        for i in x:
            x[i] = 1

    with pytest.raises(ti.TaichiSyntaxError, match="block_dim"):
        too_wide()

    from taichi_xdsl.frontends.python.codegen import calls

    calls._LOOP_CONFIG_WARNED.discard("parallelize")

    @ti.kernel
    def hinted():
        ti.loop_config(parallelize=2)
        for i in x:
            x[i] = i

    with pytest.warns(UserWarning, match=r"loop_config\(parallelize=...\)"):
        hinted()
    assert list(x.to_numpy()) == list(range(8))


def test_init_arch_list_is_tried_in_order():
    # ti.init(arch=[...]) takes the first arch of the list this machine has: the order
    # decides when both are present, not a fixed preference of ours.
    from taichi_xdsl.targets.vulkan import vulkan_available

    if not vulkan_available()[0]:
        pytest.skip("both orders need a Vulkan device")
    ti.init(arch=[ti.cpu, ti.vulkan], offline_cache=False)
    assert ti.lang.impl.current_cfg().arch is ti.cpu
    ti.init(arch=[ti.vulkan, ti.cpu], offline_cache=False)
    assert ti.lang.impl.current_cfg().arch is ti.vulkan
    ti.init(arch=[ti.cuda, ti.gpu, ti.cpu], offline_cache=False)  # cuda missing: next
    assert ti.lang.impl.current_cfg().arch is ti.vulkan
