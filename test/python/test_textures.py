"""
Textures (ti.Texture, ti.types.texture / rw_texture) end to end on Vulkan, checked
against NumPy; on the CPU a texture kernel raises a clear error. Seed 004's `taichi_add`
(rgba8 in, rgba8 out, 1-d rw textures, the deprecated num_channels/channel_format
spelling) is the first case.
"""

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.targets.vulkan import vulkan_available
from taichi_xdsl.utils.errors import TaichiCompilationError, TaichiTypeError

_OK, _REASON = vulkan_available()
needs_vulkan = pytest.mark.skipif(not _OK, reason=f"no Vulkan device: {_REASON}")


@pytest.fixture
def vk():
    ti.init(arch=ti.vulkan, offline_cache=False)
    yield
    ti.reset()


@needs_vulkan
def test_seed_004_taichi_add_rgba8(vk):
    nsize, num_channels = 128, 4

    @ti.kernel
    def taichi_add(
        in_ten: ti.types.rw_texture(
            num_dimensions=1, num_channels=num_channels, channel_format=ti.u8, lod=0
        ),
        out_ten: ti.types.rw_texture(
            num_dimensions=1, num_channels=num_channels, channel_format=ti.u8, lod=0
        ),
        nsize: ti.i32,
        addend: ti.i32,
    ):
        for i in ti.ndrange(nsize):
            in_num = in_ten.load(ti.Vector([i]))
            sum_num = in_num + ti.cast(addend, ti.f32) / 255.0
            out_ten.store(ti.Vector([i]), sum_num)

    a = ti.Texture(ti.Format.rgba8, (nsize,))
    b = ti.Texture(ti.Format.rgba8, (nsize,))
    src = (np.arange(nsize * 4) * 7 % 240).astype(np.uint8).reshape(nsize, 4)
    a.from_ndarray(src)
    taichi_add(a, b, nsize, 9)
    got = np.round(b.to_ndarray() * 255).astype(np.int64)
    np.testing.assert_array_equal(got, src.astype(np.int64) + 9)
    # unorm8 saturates: 250 + 9 -> 255
    a.from_ndarray(np.full((nsize, 4), 250, np.uint8))
    taichi_add(a, b, nsize, 9)
    np.testing.assert_array_equal(np.round(b.to_ndarray() * 255), 255)


@needs_vulkan
def test_r32f_fetch_and_sample_lod_at_texel_centres(vk):
    w, h = 16, 8
    values = np.arange(w * h, dtype=np.float32).reshape(w, h) * 0.25 - 3.0
    tex = ti.Texture(ti.Format.r32f, (w, h))
    tex.from_ndarray(values)
    fetched = ti.ndarray(ti.f32, shape=(w, h))
    sampled = ti.ndarray(ti.f32, shape=(w, h))

    @ti.kernel
    def read(
        t: ti.types.texture(num_dimensions=2),
        fetched: ti.types.ndarray(ndim=2),
        sampled: ti.types.ndarray(ndim=2),
    ):
        for i, j in ti.ndrange(w, h):
            fetched[i, j] = t.fetch(ti.Vector([i, j]), 0).x
            uv = ti.Vector([(i + 0.5) / w, (j + 0.5) / h])
            sampled[i, j] = t.sample_lod(uv, 0.0)[0]

    read(tex, fetched, sampled)
    np.testing.assert_array_equal(fetched.to_numpy(), values)
    np.testing.assert_allclose(sampled.to_numpy(), values, rtol=0, atol=1e-5)


@needs_vulkan
def test_sample_lod_filters_between_texels(vk):
    tex = ti.Texture(ti.Format.r32f, (2,))
    tex.from_ndarray(np.array([1.0, 3.0], np.float32))
    out = np.zeros(1, np.float32)

    @ti.kernel
    def mid(t: ti.types.texture(num_dimensions=1), out: ti.types.ndarray(ndim=1)):
        out[0] = t.sample_lod(0.5, 0.0).x  # between the two texel centres

    mid(tex, out)
    assert abs(out[0] - 2.0) < 1e-2


@needs_vulkan
def test_rw_texture_struct_for_2d(vk):
    w, h = 37, 21

    @ti.kernel
    def paint(
        img: ti.types.rw_texture(num_dimensions=2, fmt=ti.Format.rgba32f, lod=0), s: ti.f32
    ):
        for i, j in img:
            old = img.load(ti.Vector([i, j]))
            img.store(
                ti.Vector([i, j]), ti.Vector([i * s, j * s, old.z + 1.0, img.shape[0]])
            )

    tex = ti.Texture(ti.Format.rgba32f, (w, h))
    start = np.zeros((w, h, 4), np.float32)
    start[..., 2] = 5.0
    tex.from_ndarray(start)
    paint(tex, 0.5)
    got = tex.to_ndarray()
    ii, jj = np.meshgrid(np.arange(w), np.arange(h), indexing="ij")
    np.testing.assert_array_equal(got[..., 0], ii * 0.5)
    np.testing.assert_array_equal(got[..., 1], jj * 0.5)
    np.testing.assert_array_equal(got[..., 2], 6.0)
    np.testing.assert_array_equal(got[..., 3], float(w))


@needs_vulkan
def test_texture_from_field_and_r8_store(vk):
    n = 10
    f = ti.field(ti.f32, shape=(n, n))
    f.from_numpy(np.linspace(0, 1, n * n, dtype=np.float32).reshape(n, n))
    src = ti.Texture(ti.Format.r32f, (n, n))
    src.from_field(f)
    dst = ti.Texture(ti.Format.r8, (n, n))

    @ti.kernel
    def copy(
        s: ti.types.texture(num_dimensions=2),
        d: ti.types.rw_texture(num_dimensions=2, fmt=ti.Format.r8),
    ):
        for i, j in d:
            d.store(ti.Vector([i, j]), s.fetch(ti.Vector([i, j]), 0))

    copy(src, dst)
    # Vulkan lets a driver round a float to unorm8 either way at a tie-adjacent value
    # (NVIDIA stores 0.2 as 51/255 where lavapipe gives 52/255): one step of 1/255.
    want = np.round(f.to_numpy() * 255) / 255
    np.testing.assert_allclose(dst.to_ndarray(), want, atol=1 / 255 + 1e-6)


@needs_vulkan
def test_wrong_texture_format_is_a_type_error(vk):
    @ti.kernel
    def k(d: ti.types.rw_texture(num_dimensions=1, fmt=ti.Format.r32f)):
        for i in d:
            d.store(ti.Vector([i]), ti.Vector([1.0, 0.0, 0.0, 0.0]))

    with pytest.raises(
        ti.TaichiRuntimeError,
        match="RWTextureType format mismatch for argument d: expected Format.r32f, got "
        "Format.rgba8",
    ):
        k(ti.Texture(ti.Format.rgba8, (4,)))
    with pytest.raises(
        ti.TaichiRuntimeError,
        match="RWTextureType dimension mismatch for argument d: expected 1, got 2",
    ):
        k(ti.Texture(ti.Format.r32f, (4, 4)))

    @ti.kernel
    def first(s: ti.types.texture(num_dimensions=2), out: ti.types.ndarray(ndim=1)):
        out[0] = s.fetch(ti.Vector([0, 0]), 0).x

    with pytest.raises(
        ti.TaichiRuntimeError,
        match="TextureType dimension mismatch for argument s: expected 2, got 3",
    ):
        first(ti.Texture(ti.Format.r32f, (2, 2, 2)), np.zeros(1, np.float32))
    with pytest.raises(TaichiTypeError, match="must be a ti.Texture"):
        k(np.zeros(4, np.float32))


@needs_vulkan
def test_from_ndarray_and_from_field_drop_extra_channels(vk):
    """Elements with more channels than the format give it their first ones (as
    Taichi: a vec2 field fills an r32f texture with x); fewer channels, or another
    shape, are an error."""
    values = np.arange(24, dtype=np.float32).reshape(3, 2, 4) / 32
    vec2 = ti.Vector.ndarray(2, ti.f32, (3, 2))
    vec2.from_numpy(values[..., :2])
    r = ti.Texture(ti.Format.r32f, (3, 2))
    r.from_ndarray(vec2)
    assert r.to_ndarray().tolist() == values[..., 0].tolist()
    field4 = ti.Vector.field(4, ti.f32, (3, 2))
    field4.from_numpy(values)
    rg = ti.Texture(ti.Format.rg32f, (3, 2))
    rg.from_field(field4)
    assert rg.to_ndarray().tolist() == values[..., :2].tolist()
    with pytest.raises(TaichiTypeError, match=r"expected an array of shape \(3, 2, 4\)"):
        ti.Texture(ti.Format.rgba32f, (3, 2)).from_ndarray(vec2)
    with pytest.raises(TaichiTypeError, match=r"expected an array of shape \(3, 2\)"):
        r.from_ndarray(np.zeros((4, 2), np.float32))


def test_unsupported_format_is_a_clear_error():
    with pytest.raises(TaichiTypeError, match="rgba8u are not supported"):
        ti.types.rw_texture(num_dimensions=2, fmt=ti.Format.rgba8u)
    with pytest.raises(TaichiCompilationError, match="fmt is required"):
        ti.types.rw_texture(num_dimensions=2)


def test_cpu_texture_kernel_raises_a_clear_error():
    ti.init(arch=ti.cpu, offline_cache=False)

    @ti.kernel
    def k(t: ti.types.texture(num_dimensions=2), out: ti.types.ndarray(ndim=1)):
        out[0] = t.fetch(ti.Vector([0, 0]), 0).x

    class FakeTexture:  # what reaches the kernel is checked only by duck type
        def vulkan_image(self, runtime):
            raise AssertionError("never launched")

    with pytest.raises(TaichiCompilationError, match="need arch=ti.vulkan"):
        k(FakeTexture(), np.zeros(1, np.float32))
    with pytest.raises(TaichiCompilationError, match="need arch=ti.vulkan"):
        ti.Texture(ti.Format.r32f, (4, 4))
    ti.reset()


@needs_vulkan
def test_graph_texture_args(vk):
    """Texture Args in a ti.graph: an RWTEXTURE Arg is written by one dispatch and read
    as a sampled texture by the next; the kernels compile before any texture exists."""

    @ti.kernel
    def write(t: ti.types.rw_texture(num_dimensions=2, fmt=ti.Format.r32f, lod=0), s: ti.f32):
        for i, j in t:
            t.store(ti.Vector([i, j]), ti.Vector([i * 10.0 + j + s, 0.0, 0.0, 0.0]))

    @ti.kernel
    def read(t: ti.types.texture(num_dimensions=2), out: ti.types.ndarray(ndim=2)):
        for i, j in out:
            out[i, j] = t.fetch(ti.Vector([i, j]), 0).x

    tex = ti.graph.Arg(ti.graph.ArgKind.RWTEXTURE, "tex", ndim=2, fmt=ti.Format.r32f)
    g = ti.graph.GraphBuilder()
    g.dispatch(write, tex, ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.f32))
    g.dispatch(read, tex, ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "out", ti.f32, ndim=2))
    graph = g.compile()
    texture, out = ti.Texture(ti.Format.r32f, (3, 4)), ti.ndarray(ti.f32, (3, 4))
    graph.run({"tex": texture, "s": 0.5, "out": out})
    want = np.arange(3)[:, None] * 10.0 + np.arange(4)[None, :] + 0.5
    assert out.to_numpy().tolist() == want.tolist()

    with pytest.raises(TaichiCompilationError, match="fmt rgba8 doesn't match kernel's annotated fmt=r32f"):
        ti.graph.GraphBuilder().dispatch(
            write,
            ti.graph.Arg(ti.graph.ArgKind.RWTEXTURE, "t", ndim=2, fmt=ti.Format.rgba8),
            ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.f32),
        )
    with pytest.raises(TaichiCompilationError, match="3 from Arg t doesn't match kernel's annotated ndim=2"):
        ti.graph.GraphBuilder().dispatch(
            read,
            ti.graph.Arg(ti.graph.ArgKind.TEXTURE, "t", ndim=3),
            ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "out", ti.f32, ndim=2),
        )
    with pytest.raises(TaichiCompilationError, match="is an rw_texture, Arg 't' is a TEXTURE"):
        ti.graph.GraphBuilder().dispatch(
            write,
            ti.graph.Arg(ti.graph.ArgKind.TEXTURE, "t", ndim=2),
            ti.graph.Arg(ti.graph.ArgKind.SCALAR, "s", ti.f32),
        )


@needs_vulkan
def test_aot_module_with_texture_kernels(vk, tmp_path):
    """A kernel with texture parameters compiles into an AOT module without any
    ti.Texture (its metadata names each texture's ndim, and an rw_texture's format);
    the module loads, and calling such a kernel says loaded modules take no textures
    yet."""

    @ti.kernel
    def write(tex: ti.types.rw_texture(num_dimensions=2, fmt=ti.Format.rgba8, lod=0)):
        for i, j in tex:
            tex.store(ti.Vector([i, j]), ti.Vector([1.0, 0.0, 0.0, 0.0]))

    @ti.kernel
    def read(tex: ti.types.texture(num_dimensions=3), arr: ti.types.ndarray(ndim=3)):
        for i, j, k in arr:
            arr[i, j, k] = tex.fetch(ti.Vector([i, j, k]), 0).x

    m = ti.aot.Module()
    m.add_kernel(write)
    with pytest.raises(ti.TaichiRuntimeError, match="TextureType dimension mismatch for argument tex: expected 3, got 2"):
        m.add_kernel(read, template_args={"tex": ti.Texture(ti.Format.r32f, (4, 4))})
    m.add_kernel(read, template_args={"arr": ti.ndarray(ti.f32, (2, 2, 2))})
    m.save(tmp_path)
    loaded = ti.aot.load(tmp_path)
    (w,) = loaded.get_kernel("write").attrs.args
    assert (w.kind.name, w.ndim, w.fmt, w.dtype, w.num_channels) == ("RWTEXTURE", 2, "rgba8", "u8", 4)
    t, a = loaded.get_kernel("read").attrs.args
    assert (t.kind.name, t.ndim, a.kind.name, a.ndim) == ("TEXTURE", 3, "NDARRAY", 3)
    with pytest.raises(TaichiTypeError, match="loaded AOT modules do not take texture arguments yet"):
        loaded.get_kernel("write")(ti.Texture(ti.Format.rgba8, (4, 4)))
