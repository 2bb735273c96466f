"""
ti.ui headless: the canvas's 2-D primitives (GGUI units: fractions of the window's
height) and the 3-D scene — lit sphere impostors and meshes through the depth buffer —
rendered by our kernels on cpu and vulkan, checked against the geometry and GGUI's
Lambert shading.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import taichi_xdsl as ti

pytestmark = pytest.mark.usefixtures("program")


def window(res=(64, 48)):
    return ti.ui.Window("test", res, show_window=False)


def rgb(img, x, y):
    return np.rint(img[x, y, :3] * 255).astype(int)


def test_canvas_background_circles_and_show(tmp_path):
    w = window()
    c = w.get_canvas()
    c.set_background_color((0.0, 0.0, 1.0))
    c.circles(np.array([[0.5, 0.5]], np.float32), radius=0.1, color=(1.0, 0.0, 0.0))
    img = w.get_image_buffer_as_numpy()
    assert img.shape == (64, 48, 4)
    assert (rgb(img, 32, 24) == [255, 0, 0]).all()
    # radius 0.1 of the height: 4.8 pixels
    assert (rgb(img, 32 + 3, 24) == [255, 0, 0]).all()
    assert (rgb(img, 32 + 6, 24) == [0, 0, 255]).all()
    w.save_image(str(tmp_path / "f.png"))
    back = ti.tools.imread(str(tmp_path / "f.png"))
    assert (back == np.rint(img[..., :3] * 255)).all()
    w.show()  # the next frame starts from the background colour
    assert (np.rint(w.get_image_buffer_as_numpy()[..., :3] * 255) == [0, 0, 255]).all()


def test_canvas_triangles_lines_per_vertex_color():
    w = window((40, 40))
    c = w.get_canvas()
    verts = ti.Vector.field(2, ti.f32, 4)
    verts.from_numpy(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32))
    idx = ti.field(ti.i32, 6)
    idx.from_numpy(np.array([0, 1, 2, 0, 2, 3], np.int32))
    colors = ti.Vector.field(3, ti.f32, 4)
    colors.from_numpy(np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32))
    c.triangles(verts, indices=idx, per_vertex_color=colors)  # corner colours interpolated
    img = w.get_image_buffer_as_numpy()
    assert (rgb(img, 30, 5) == [255, 0, 0]).all()  # triangle (0, 1, 2): all corners red
    # triangle (0, 2, 3) at the centre of pixel (5, 30), (x, y) = (0.1375, 0.7625): weights
    # 1 - y, x, y - x for corners (0, 0) red, (1, 1) red, (0, 1) green
    green = 0.7625 - 0.1375
    assert np.abs(rgb(img, 5, 30) - [255 * (1 - green), 255 * green, 0]).max() <= 2
    c.lines(verts, width=0.05, color=(0, 0, 1))
    img = w.get_image_buffer_as_numpy()
    # pairs (0,1) and (2,3): the bottom and top edges, 2 pixels wide, centred on the
    # canvas's border: the outer row is half blue (blended over the triangles)
    assert (rgb(img, 20, 0) == [128, 0, 128]).all() and rgb(img, 20, 39)[2] == 128
    assert (rgb(img, 20, 3) == [255, 0, 0]).all()


def camera_at(z: float, fov: float = 45.0) -> ti.ui.Camera:
    cam = ti.ui.Camera()
    cam.position(0.0, 0.0, z)
    cam.lookat(0.0, 0.0, 0.0)
    cam.up(0.0, 1.0, 0.0)
    cam.fov(fov)
    return cam


def test_particle_is_a_lit_sphere_of_the_right_size():
    w = window((64, 64))
    scene = ti.ui.Scene()
    scene.set_camera(camera_at(3.0))
    scene.ambient_light((0.2, 0.2, 0.2))
    scene.point_light(pos=(0.0, 0.0, 3.0), color=(0.5, 0.5, 0.5))
    centers = ti.Vector.field(3, ti.f32, 1)
    scene.particles(centers, radius=0.25, color=(1.0, 0.5, 0.0))
    w.get_canvas().scene(scene)
    img = w.get_image_buffer_as_numpy()
    # the centre faces the light: (ambient + light) * colour = 0.7 * (1, 0.5, 0)
    assert np.abs(rgb(img, 32, 32) - np.floor(np.array([0.7, 0.35, 0.0]) * 255)).max() <= 2
    # screen radius: r * (w / 2) / tan(fov / 2) / distance pixels
    rp = 0.25 * 32 / math.tan(math.radians(22.5)) / 3.0
    lit = img[..., :3].sum(-1) > 0
    xs = np.nonzero(lit[:, 32])[0]
    assert abs((xs.max() - xs.min() + 1) / 2 - rp) <= 1.0
    # the rim is darker than the centre, never brighter than ambient + light
    assert img[32 + int(rp) - 1, 32, 0] < img[32, 32, 0]


def test_depth_test_keeps_the_nearest_particle():
    for order in ((0, 1), (1, 0)):
        w = window((32, 32))
        scene = ti.ui.Scene()
        scene.set_camera(camera_at(3.0))
        scene.ambient_light((1.0, 1.0, 1.0))
        pos = [np.array([[0.0, 0.0, 0.5]], np.float32), np.array([[0.0, 0.0, -0.5]], np.float32)]
        col = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]  # the near one red, the far one green
        for i in order:
            scene.particles(pos[i], radius=0.3, color=col[i])
        w.get_canvas().scene(scene)
        img = w.get_image_buffer_as_numpy()
        assert (rgb(img, 16, 16) == [255, 0, 0]).all(), order
        depth = w.get_depth_buffer_as_numpy()
        assert depth.shape == (32, 32) and depth[0, 0] == 1.0 and 0 < depth[16, 16] < 0.01


def quad(z: float = 0.0) -> np.ndarray:
    return np.array([[-1, -1, z], [1, -1, z], [1, 1, z], [-1, 1, z]], np.float32)


QUAD_IDX = np.array([0, 1, 2, 0, 2, 3], np.int32)


def test_mesh_lambert_two_sided_and_instances():
    w = window((48, 48))
    c = w.get_canvas()
    scene = ti.ui.Scene()
    scene.set_camera(camera_at(4.0))
    scene.ambient_light((0.1, 0.1, 0.1))
    scene.point_light(pos=(0.0, 0.0, 4.0), color=(0.6, 0.6, 0.6))
    scene.mesh(quad(), indices=QUAD_IDX, color=(1.0, 1.0, 1.0))  # normal +z: faces the light
    c.scene(scene)
    img = w.get_image_buffer_as_numpy()
    assert abs(rgb(img, 24, 24)[0] - int(0.7 * 255)) <= 2
    assert (rgb(img, 1, 1) == 0).all()  # outside the quad
    # wound the other way: the normal faces away, lit by ambient only unless two-sided
    back = QUAD_IDX.reshape(-1, 3)[:, ::-1].reshape(-1).copy()
    for two_sided, expect in ((False, 0.1), (True, 0.7)):
        scene.point_light(pos=(0.0, 0.0, 4.0), color=(0.6, 0.6, 0.6))  # lights last a frame
        scene.mesh(quad(), indices=back, color=(1.0, 1.0, 1.0), two_sided=two_sided)
        c.scene(scene)
        img = w.get_image_buffer_as_numpy()
        assert abs(rgb(img, 24, 24)[0] - int(expect * 255)) <= 2, two_sided
    # two instances: shifted left and right by 1.5, scaled by 0.25
    c.set_background_color((0, 0, 0))
    m = np.tile(np.eye(4, dtype=np.float32), (2, 1, 1))
    m[:, 0, 0] = m[:, 1, 1] = 0.25
    m[0, 0, 3], m[1, 0, 3] = -1.0, 1.0
    transforms = ti.Matrix.field(4, 4, ti.f32, 2)
    transforms.from_numpy(m)
    scene.mesh_instance(quad(), indices=QUAD_IDX, color=(1, 1, 1), transforms=transforms)
    c.scene(scene)
    img = w.get_image_buffer_as_numpy()
    lit = img[..., 0] > 0
    # x = +-1 at distance 4 lies 24 / tan(22.5 deg) / 4 = 14.5 pixels from the centre
    assert not lit[24, 24] and lit[24 - 14, 24] and lit[24 + 14, 24]
    assert not lit[24 - 20, 24] and not lit[24 + 20, 24]


def test_camera_matrices():
    """GGUI's layout: column-major (vectors multiply from the left), Vulkan depth with
    reversed z: z_near -> 1, z_far -> 0."""
    cam = ti.ui.Camera()
    cam.position(1.0, 2.0, 3.0)
    cam.lookat(1.0, 2.0, 0.0)
    view = cam.get_view_matrix()
    assert np.allclose(np.array([1.0, 2.0, 0.0, 1.0]) @ view, [0, 0, -3, 1])
    assert np.allclose(view[3, :3], [-1, -2, -3])
    cam.z_near(0.5)
    cam.z_far(10.0)
    proj = cam.get_projection_matrix(1.5)
    assert math.isclose(proj[1, 1], 1 / math.tan(math.radians(22.5)))
    assert math.isclose(proj[0, 0], proj[1, 1] / 1.5)
    for z, depth in ((-0.5, 1.0), (-10.0, 0.0)):
        clip = np.array([0.0, 0.0, z, 1.0]) @ proj
        assert math.isclose(clip[2] / clip[3], depth, abs_tol=1e-9)


def test_headless_window_gui_and_events():
    w = window()
    assert w.running and w.get_window_shape() == (64, 48)
    assert not w.get_event(ti.ui.PRESS) and w.get_events() == []
    assert not w.is_pressed(ti.ui.LMB, "w") and w.get_cursor_pos() == (0.0, 0.0)
    gui = w.get_gui()
    with gui.sub_window("options", 0.05, 0.05, 0.3, 0.3):
        gui.text("hello")
        assert gui.slider_float("x", 0.5, 0.0, 1.0) == 0.5
        assert gui.slider_int("n", 3, 0, 9) == 3
        assert gui.checkbox("on", True) is True
        assert gui.color_edit_3("c", (1, 0, 0)) == (1, 0, 0)
        assert gui.button("go") is False
    # the panel is drawn into the frame read back (as GGUI's image buffer holds it) ...
    img = w.get_image_buffer_as_numpy()
    lit = (img[..., :3] != img[63, 0, :3]).any(-1)  # differs from a corner's background
    xs, ys = np.nonzero(lit)
    assert lit.sum() > 50 and xs.min() >= 3 and ys.max() <= 48 - 2
    cam = ti.ui.make_camera()
    cam.track_user_inputs(w, movement_speed=0.1, hold_key=ti.ui.RMB)
    w.show()
    # ... and the next frame starts without it
    assert not (w.get_image_buffer_as_numpy()[..., :3] != img[63, 0, :3]).any()
    w.running = False
    assert not w.running


def test_gui_rows_below_the_sub_window_height_are_clipped():
    # GGUI sizes a sub-window as asked and clips what does not fit (Taichi's
    # taichi_ngp asks for 0.3 of the window and puts 11 rows in it): rows of 20 pixels
    w = window((100, 100))
    gui = w.get_gui()
    with gui.sub_window("options", 0.0, 0.0, 0.5, 0.4):  # 40 pixels: title + 1 row
        gui.text("first")
        for i in range(8):
            gui.text(f"row {i}")
        assert gui.checkbox("clipped", False) is False
    img = w.get_image_buffer_as_numpy()
    lit = (img[..., :3] != img[99, 0, :3]).any(-1)
    ys = np.nonzero(lit)[1]
    assert ys.min() >= 100 - 40 and lit[:, 60:].sum() > 400  # both rows, nothing below


def test_canvas_set_image_resizes_to_the_window():
    w = window((8, 6))
    rng = np.random.default_rng(3)
    f = rng.random((8, 6, 3), dtype=np.float32)
    img = ti.Vector.field(3, ti.f32, (8, 6))
    img.from_numpy(f)
    w.get_canvas().set_image(img)
    assert (rgb(w.get_image_buffer_as_numpy(), 5, 4) == np.floor(f[5, 4] * 255)).all()
    small = np.zeros((4, 3, 3), np.float32)
    small[1, 2] = (0.0, 1.0, 0.0)  # a 2x2 block of the window after a nearest resize
    w.get_canvas().set_image(small)
    out = w.get_image_buffer_as_numpy()
    for x, y in ((2, 4), (3, 5)):
        assert (rgb(out, x, y) == [0, 255, 0]).all()
    assert (rgb(out, 1, 4) == 0).all() and (rgb(out, 2, 3) == 0).all()


def test_mesh_per_vertex_color_given_normals_and_scene_lines():
    w = window((48, 48))
    c = w.get_canvas()
    scene = ti.ui.Scene()
    scene.set_camera(camera_at(4.0))
    scene.ambient_light((1.0, 1.0, 1.0))
    colors = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 1], [0, 0, 1]], np.float32)
    scene.mesh(quad(), indices=QUAD_IDX, per_vertex_color=colors)  # red below, blue above
    c.scene(scene)
    img = w.get_image_buffer_as_numpy()
    low, mid, high = rgb(img, 24, 12), rgb(img, 24, 24), rgb(img, 24, 36)
    assert low[0] > 160 and low[2] < 90 and high[2] > 160 and high[0] < 90
    assert abs(int(mid[0]) - int(mid[2])) <= 12  # half way between the two
    # normals given: the back-wound quad is lit as its normals say, not by its winding
    back = QUAD_IDX.reshape(-1, 3)[:, ::-1].reshape(-1).copy()
    scene.ambient_light((0.0, 0.0, 0.0))
    scene.point_light(pos=(0.0, 0.0, 4.0), color=(1.0, 1.0, 1.0))
    normals = np.tile(np.array([0.0, 0.0, 1.0], np.float32), (4, 1))
    scene.mesh(quad(), indices=back, normals=normals, color=(1.0, 1.0, 1.0))
    c.scene(scene)
    assert rgb(w.get_image_buffer_as_numpy(), 24, 24)[0] >= 250
    # a 3-D line is drawn over the mesh (no depth test) in its own colour
    scene.ambient_light((1.0, 1.0, 1.0))
    scene.mesh(quad(), indices=QUAD_IDX, color=(1.0, 1.0, 1.0))
    scene.lines(np.array([[-1, 0, 1], [1, 0, 1]], np.float32), width=3, color=(0.0, 1.0, 0.0))
    c.scene(scene)
    img = w.get_image_buffer_as_numpy()
    assert (rgb(img, 24, 24) == [0, 255, 0]).all() and (rgb(img, 24, 30) == 255).all()


def test_point_lights_last_one_frame_ambient_stays():
    """As GGUI: a program adds its point lights every frame (they must not pile up);
    the ambient light, once set, stays."""
    w = window((32, 32))
    scene = ti.ui.Scene()
    scene.set_camera(camera_at(3.0))
    centre = np.zeros((1, 3), np.float32)
    seen = []
    for add_light in (True, True, False):
        if add_light:
            scene.point_light(pos=(0.0, 0.0, 3.0), color=(0.3, 0.3, 0.3))
            scene.ambient_light((0.2, 0.2, 0.2))
        scene.particles(centre, radius=0.3, color=(1.0, 1.0, 1.0))
        w.get_canvas().scene(scene)
        seen.append(rgb(w.get_image_buffer_as_numpy(), 16, 16)[0])
        w.show()
    assert abs(seen[0] - 127) <= 2 and seen[1] == seen[0]  # Taichi 1.7.4: 127, 127, 51
    assert abs(seen[2] - 51) <= 2
