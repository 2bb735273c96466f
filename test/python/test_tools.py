"""ti.tools: image files, resizing, PLY files and videos (no kernels: no arch)."""

from __future__ import annotations

import numpy as np
import pytest
import taichi_xdsl as ti


def test_imwrite_imread_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (7, 5, 3), dtype=np.uint8)  # [x, y], y up
    ti.tools.imwrite(img, str(tmp_path / "a.png"))
    assert np.array_equal(ti.tools.imread(str(tmp_path / "a.png")), img)
    ti.tools.imwrite(img, str(tmp_path / "a.bmp"))  # through Pillow
    assert np.array_equal(ti.tools.imread(str(tmp_path / "a.bmp")), img)
    # the file's top row is y = h - 1
    from PIL import Image

    rows = np.asarray(Image.open(tmp_path / "a.png"))
    assert np.array_equal(rows[0, :, :], img[:, -1, :])
    f = np.full((4, 3), 0.5, np.float32)  # floats scale by 255, truncated
    ti.tools.imwrite(f, str(tmp_path / "g.png"))
    assert (ti.tools.imread(str(tmp_path / "g.png")) == 127).all()
    assert ti.tools.imread(str(tmp_path / "a.png"), channels=4).shape == (7, 5, 4)


def test_imresize_nearest():
    img = np.arange(4 * 2).reshape(4, 2)
    out = ti.tools.imresize(img, 8, 4)
    assert out.shape == (8, 4)
    assert np.array_equal(out, np.repeat(np.repeat(img, 2, 0), 2, 1))
    assert ti.tools.imresize(img, 4, 2) is img


def test_ply_ascii_and_binary(tmp_path):
    w = ti.tools.PLYWriter(num_vertices=4, num_faces=2, face_type="tri")
    x = np.array([0, 1, 0, 1], np.float32)
    w.add_vertex_pos(x, 1 - x, np.zeros(4))
    w.add_vertex_channel("temp", "double", np.array([1.5, 2.5, 3.5, 4.5]))
    w.add_faces(np.array([0, 1, 2, 1, 3, 2]))
    w.add_face_id()
    w.export_frame_ascii(3, str(tmp_path / "m.ply"))
    text = (tmp_path / "m_000003.ply").read_text().splitlines()
    assert text[:3] == ["ply", "format ascii 1.0", "comment created by PLYWriter"]
    body = text[text.index("end_header") + 1 :]
    assert body[1].split() == ["1.0", "0.0", "0.0", "2.5"]
    assert body[5].split() == ["3", "1", "3", "2", "1"]
    w.export(str(tmp_path / "b.ply"))
    raw = (tmp_path / "b.ply").read_bytes()
    header, data = raw.split(b"end_header\n")
    assert b"element face 2" in header and b"property list uchar int vertex_indices" in header
    vert = np.frombuffer(data[: 4 * 20], np.dtype("<f4,<f4,<f4,<f8"))
    assert np.array_equal(vert["f3"], [1.5, 2.5, 3.5, 4.5])
    face = np.frombuffer(data[4 * 20 :], np.dtype("u1,<i4,<i4,<i4,<i4"))
    assert face[1].tolist() == (3, 1, 3, 2, 1)
    with pytest.raises(ValueError, match="face indices"):
        bad = ti.tools.PLYWriter(num_vertices=2, num_faces=1)
        bad.add_vertex_pos(np.zeros(2), np.zeros(2), np.zeros(2))
        bad.add_faces(np.array([0, 1, 5]))
        bad.export_ascii(str(tmp_path / "bad.ply"))


def test_video_manager_gif_and_mp4(tmp_path):
    v = ti.tools.VideoManager(str(tmp_path), framerate=10, automatic_build=False)
    for i in range(5):
        img = np.zeros((33, 17, 3), np.float32)  # odd sizes: mp4 pads to even
        img[i * 6 : i * 6 + 6] = 1.0
        v.write_frame(img)
    v.make_video(gif=True, mp4=True)
    from PIL import Image

    with Image.open(tmp_path / "video.gif") as gif:
        assert gif.n_frames == 5 and gif.size == (33, 17)
    mp4 = tmp_path / "video.mp4"
    assert mp4.exists() and mp4.stat().st_size > 100
    import imageio_ffmpeg

    n_frames, _ = imageio_ffmpeg.count_frames_and_secs(str(mp4))
    assert n_frames == 5
