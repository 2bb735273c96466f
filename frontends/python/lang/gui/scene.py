"""
ti.ui's 3-D scene: `Camera` (look-at view, perspective or orthographic projection,
track_user_inputs) and `Scene` (particles, mesh, mesh_instance, lines, point_light,
ambient_light). A scene only collects what a frame draws; `Canvas.scene(scene)`
renders it with the kernels of render3d.py and forgets it, as GGUI does.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from enum import Enum
from numbers import Number
from typing import Any

import numpy as np

from .surface import to_numpy


class ProjectionMode(Enum):
    Perspective = 0
    Orthogonal = 1


def _vec3(v: Any) -> np.ndarray:
    return np.asarray(to_numpy(v) if not isinstance(v, (tuple, list)) else v, np.float64)[:3]


def _normalize(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


class Camera:
    """GGUI's camera: position, lookat, up, fov (degrees, vertical), z_near, z_far."""

    def __init__(self) -> None:
        self.curr_position = np.array([0.0, 0.0, 0.0])
        self.curr_lookat = np.array([0.0, 0.0, -1.0])
        self.curr_up = np.array([0.0, 1.0, 0.0])
        self.curr_fov = 45.0
        self.curr_projection_mode = ProjectionMode.Perspective
        self.curr_left, self.curr_right = -1.0, 1.0
        self.curr_bottom, self.curr_top = -1.0, 1.0
        self.curr_z_near, self.curr_z_far = 0.1, 1000.0
        self.last_mouse_x: float | None = None
        self.last_mouse_y: float | None = None
        self.last_time: int | None = None

    def position(self, x: float, y: float, z: float) -> None:
        self.curr_position = np.array([x, y, z], np.float64)

    def lookat(self, x: float, y: float, z: float) -> None:
        self.curr_lookat = np.array([x, y, z], np.float64)

    def up(self, x: float, y: float, z: float) -> None:
        self.curr_up = np.array([x, y, z], np.float64)

    def projection_mode(self, mode: ProjectionMode) -> None:
        self.curr_projection_mode = mode

    def fov(self, fov: float) -> None:
        self.curr_fov = float(fov)

    def left(self, v: float) -> None:
        self.curr_left = float(v)

    def right(self, v: float) -> None:
        self.curr_right = float(v)

    def top(self, v: float) -> None:
        self.curr_top = float(v)

    def bottom(self, v: float) -> None:
        self.curr_bottom = float(v)

    def z_near(self, v: float) -> None:
        self.curr_z_near = float(v)

    def z_far(self, v: float) -> None:
        self.curr_z_far = float(v)

    def get_view_matrix(self) -> np.ndarray:
        """World -> camera, in GGUI's layout: column-major (m[3, :3] is the
        translation); the camera looks along -z."""
        return self._view().T

    def get_projection_matrix(self, aspect: float) -> np.ndarray:
        """Camera -> clip, in GGUI's layout: column-major, Vulkan's depth range [0, 1]
        with reversed z (z_near -> 1, z_far -> 0)."""
        n, f = self.curr_z_near, self.curr_z_far
        m = np.zeros((4, 4))
        if self.curr_projection_mode == ProjectionMode.Perspective:
            t = 1.0 / math.tan(math.radians(self.curr_fov) / 2)
            m[0, 0], m[1, 1] = t / aspect, t
            m[2, 2], m[2, 3], m[3, 2] = n / (f - n), f * n / (f - n), -1.0
        else:
            l, r, b, tp = self.curr_left, self.curr_right, self.curr_bottom, self.curr_top
            m[0, 0], m[1, 1], m[2, 2] = 2 / (r - l), 2 / (tp - b), 1 / (f - n)
            m[0, 3], m[1, 3], m[2, 3] = -(r + l) / (r - l), -(tp + b) / (tp - b), f / (f - n)
            m[3, 3] = 1.0
        return m.T

    def _view(self) -> np.ndarray:
        """World -> camera (4x4, row-major, camera looking along -z)."""
        f = _normalize(self.curr_lookat - self.curr_position)
        s = _normalize(np.cross(f, self.curr_up))
        u = np.cross(s, f)
        m = np.eye(4)
        m[0, :3], m[1, :3], m[2, :3] = s, u, -f
        m[:3, 3] = -m[:3, :3] @ self.curr_position
        return m

    def _projection(self, aspect: float) -> np.ndarray:
        """Camera -> clip for our rasterizer (OpenGL conventions, 4x4 row-major)."""
        n, f = self.curr_z_near, self.curr_z_far
        m = np.zeros((4, 4))
        if self.curr_projection_mode == ProjectionMode.Perspective:
            t = 1.0 / math.tan(math.radians(self.curr_fov) / 2)
            m[0, 0], m[1, 1] = t / aspect, t
            m[2, 2], m[2, 3], m[3, 2] = (f + n) / (n - f), 2 * f * n / (n - f), -1.0
        else:
            l, r, b, tp = self.curr_left, self.curr_right, self.curr_bottom, self.curr_top
            m[0, 0], m[1, 1], m[2, 2] = 2 / (r - l), 2 / (tp - b), -2 / (f - n)
            m[0, 3], m[1, 3], m[2, 3] = -(r + l) / (r - l), -(tp + b) / (tp - b), -(f + n) / (f - n)
            m[3, 3] = 1.0
        return m

    def track_user_inputs(
        self,
        window: Any,
        movement_speed: float = 1.0,
        yaw_speed: float = 2.0,
        pitch_speed: float = 2.0,
        hold_key: Any = None,
    ) -> None:
        """w/s/a/d/e/q move the camera; the mouse (while hold_key is held, if given)
        turns it."""
        front = _normalize(self.curr_lookat - self.curr_position)
        left = np.cross(self.curr_up, front)
        now = time.perf_counter_ns()
        elapsed = 0.0 if self.last_time is None else (now - self.last_time) * 1e-9
        self.last_time = now
        step = movement_speed * elapsed * 60.0
        move = np.zeros(3)
        for key, d in (("w", front), ("s", -front), ("a", left), ("d", -left)):
            if window.is_pressed(key):
                move += d * step
        if window.is_pressed("e"):
            move += self.curr_up * step
        if window.is_pressed("q"):
            move -= self.curr_up * step
        self.curr_position = self.curr_position + move
        mx, my = window.get_cursor_pos()
        if hold_key is None or window.is_pressed(hold_key):
            if self.last_mouse_x is None:
                self.last_mouse_x, self.last_mouse_y = mx, my
            yaw = math.atan2(front[0], front[2])
            pitch = math.asin(max(-1.0, min(1.0, front[1])))
            yaw -= (mx - self.last_mouse_x) * yaw_speed * elapsed * 60.0
            pitch += (my - self.last_mouse_y) * pitch_speed * elapsed * 60.0
            limit = math.pi / 2 * 0.99
            pitch = max(-limit, min(limit, pitch))
            front = np.array(
                [math.sin(yaw) * math.cos(pitch), math.sin(pitch), math.cos(yaw) * math.cos(pitch)]
            )
        self.curr_lookat = self.curr_position + front
        self.last_mouse_x, self.last_mouse_y = mx, my


def make_camera() -> Camera:
    return Camera()


def _rows(x: Any, width: int, name: str) -> np.ndarray:
    a = np.asarray(to_numpy(x), np.float32)
    if a.ndim == 1:
        a = a.reshape(-1, width)
    if a.ndim != 2 or a.shape[1] < width:
        raise ValueError(f"{name}: an array of {width}-vectors expected, got shape {a.shape}")
    return np.ascontiguousarray(a[:, :width])


def _colors(n: int, color: Any, per_vertex_color: Any, name: str) -> np.ndarray:
    if per_vertex_color is not None:
        c = _rows(per_vertex_color, 3, name)
        if c.shape[0] < n:
            raise ValueError(f"{name}: {n} per-vertex colours expected, got {c.shape[0]}")
        return np.ascontiguousarray(c[:n])
    return np.tile(np.asarray(color, np.float32)[:3], (n, 1))


def vertex_normals(verts: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """Area-weighted vertex normals of a triangle mesh."""
    a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
    fn = np.cross(b - a, c - a)
    n = np.zeros_like(verts)
    for i in range(3):
        np.add.at(n, tris[:, i], fn)
    length = np.linalg.norm(n, axis=1, keepdims=True)
    return (n / np.where(length > 0, length, 1)).astype(np.float32)


@dataclass
class _Particles:
    pos: np.ndarray
    radius: np.ndarray
    color: np.ndarray


@dataclass
class _Mesh:
    verts: np.ndarray
    normals: np.ndarray
    color: np.ndarray
    tris: np.ndarray
    two_sided: bool


@dataclass
class _Lines:
    verts: np.ndarray
    pairs: np.ndarray
    color: np.ndarray
    width: float


class Scene:
    """What one frame's 3-D view holds; rendered by Canvas.scene(scene)."""

    def __init__(self) -> None:
        self.camera: Camera | None = None
        self.items: list[Any] = []
        self.lights: list[tuple[np.ndarray, np.ndarray]] = []
        self.ambient = np.array([0.0, 0.0, 0.0])

    def set_camera(self, camera: Camera) -> None:
        self.camera = camera

    def point_light(self, pos: Any, color: Any) -> None:
        self.lights.append((_vec3(pos), _vec3(color)))

    def ambient_light(self, color: Any) -> None:
        self.ambient = _vec3(color)

    def particles(
        self,
        centers: Any,
        radius: float,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        index_offset: int = 0,
        index_count: int | None = None,
        per_vertex_radius: Any = None,
    ) -> None:
        pos = _rows(centers, 3, "particles")
        n_all = pos.shape[0]
        end = n_all if index_count is None else index_offset + index_count
        sl = slice(index_offset, end)
        pos = pos[sl]
        n = pos.shape[0]
        if per_vertex_radius is not None:
            r = np.asarray(to_numpy(per_vertex_radius), np.float32).reshape(-1)[sl]
        else:
            r = np.full(n, radius, np.float32)
        colors = _colors(n_all, color, per_vertex_color, "particles")[sl]
        self.items.append(
            _Particles(np.ascontiguousarray(pos), np.ascontiguousarray(r), np.ascontiguousarray(colors))
        )

    def mesh(
        self,
        vertices: Any,
        indices: Any = None,
        normals: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        two_sided: bool = False,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
        show_wireframe: bool = False,
    ) -> None:
        verts = _rows(vertices, 3, "mesh")
        colors = _colors(verts.shape[0], color, per_vertex_color, "mesh")
        if indices is None:
            vend = verts.shape[0] if vertex_count is None else vertex_offset + vertex_count
            tris = np.arange(vertex_offset, vend - (vend - vertex_offset) % 3, dtype=np.int32)
        else:
            tris = np.asarray(to_numpy(indices), np.int32).reshape(-1)
            iend = tris.shape[0] if index_count is None else index_offset + index_count
            tris = tris[index_offset:iend] + vertex_offset
        tris = np.ascontiguousarray(tris[: tris.shape[0] // 3 * 3].reshape(-1, 3))
        if normals is None:
            nrm = vertex_normals(verts, tris)
        else:
            nrm = _rows(normals, 3, "mesh normals")
        self.items.append(_Mesh(verts, nrm, colors, tris, bool(two_sided)))
        if show_wireframe:
            pairs = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
            self.items.append(_Lines(verts, pairs, np.zeros_like(colors), 1.0))

    def mesh_instance(
        self,
        vertices: Any,
        indices: Any = None,
        normals: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        two_sided: bool = False,
        transforms: Any = None,
        instance_offset: int = 0,
        instance_count: int | None = None,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
        show_wireframe: bool = False,
    ) -> None:
        """The mesh drawn once per 4x4 transform (all of them, or a range)."""
        if transforms is None:
            self.mesh(vertices, indices, normals, color, per_vertex_color, two_sided,
                      vertex_offset, vertex_count, index_offset, index_count, show_wireframe)  # fmt: skip
            return
        mats = np.asarray(to_numpy(transforms), np.float64).reshape(-1, 4, 4)
        end = mats.shape[0] if instance_count is None else instance_offset + instance_count
        start = len(self.items)
        self.mesh(vertices, indices, normals, color, per_vertex_color, two_sided,
                  vertex_offset, vertex_count, index_offset, index_count, False)  # fmt: skip
        base: _Mesh = self.items.pop(start)
        nv = base.verts.shape[0]
        hom = np.c_[base.verts, np.ones(nv)]
        parts_v, parts_n, parts_t = [], [], []
        for i, m in enumerate(mats[instance_offset:end]):
            parts_v.append((hom @ m.T)[:, :3])
            parts_n.append(base.normals @ m[:3, :3].T)
            parts_t.append(base.tris + i * nv)
        k = len(parts_v)
        if k == 0:
            return
        self.items.append(
            _Mesh(
                np.ascontiguousarray(np.concatenate(parts_v), np.float32),
                np.ascontiguousarray(np.concatenate(parts_n), np.float32),
                np.ascontiguousarray(np.tile(base.color, (k, 1))),
                np.ascontiguousarray(np.concatenate(parts_t), np.int32),
                base.two_sided,
            )
        )

    def lines(
        self,
        vertices: Any,
        width: float,
        indices: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
    ) -> None:
        """Segments (pairs of vertices, or of indices) `width` pixels wide, drawn over
        the shaded scene (no depth test)."""
        verts = _rows(vertices, 3, "lines")
        colors = _colors(verts.shape[0], color, per_vertex_color, "lines")
        if indices is None:
            vend = verts.shape[0] if vertex_count is None else vertex_offset + vertex_count
            idx = np.arange(vertex_offset, vend, dtype=np.int64)
        else:
            idx = np.asarray(to_numpy(indices), np.int64).reshape(-1)
            iend = idx.shape[0] if index_count is None else index_offset + index_count
            idx = idx[index_offset:iend] + vertex_offset
        pairs = idx[: idx.shape[0] // 2 * 2].reshape(-1, 2)
        self.items.append(_Lines(verts, pairs, colors, float(width)))

    # -- rendering --------------------------------------------------------------
    def _camera_arrays(self, res: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cam = self.camera or Camera()
        w, h = res
        view = cam._view()
        proj = cam._projection(w / h)
        arr = np.zeros(40, np.float32)
        arr[0:16] = view.reshape(-1)
        arr[16:32] = (proj @ view).reshape(-1)
        if cam.curr_projection_mode == ProjectionMode.Perspective:
            # GGUI sizes a sphere by the window's width: w / 2 / tan(fov / 2) pixels per unit
            arr[32] = w / 2 / math.tan(math.radians(cam.curr_fov) / 2)
        else:
            arr[32] = w / (cam.curr_right - cam.curr_left)
            arr[36] = 1.0
        arr[33] = (2**30) / max(cam.curr_z_far, 1e-6)
        arr[34] = cam.curr_z_near
        arr[35], arr[37], arr[38] = self.ambient
        lights = np.zeros((max(1, len(self.lights)), 6), np.float32)
        for i, (p, c) in enumerate(self.lights):
            lights[i, :3] = (view @ np.r_[p, 1.0])[:3]
            lights[i, 3:] = c
        return arr, lights, view

    def render(self, surface: Any) -> None:
        """Draw the collected items into `surface` (a depth-tested pass over the
        particles and meshes, then the lines), and start the next frame empty: no
        items, no point lights (a program adds them every frame)."""
        from . import render3d

        items, self.items = self.items, []
        solid = [it for it in items if not isinstance(it, _Lines)]
        lines = [it for it in items if isinstance(it, _Lines)]
        cam, lights, view = self._camera_arrays(surface.res)
        c = self.camera or Camera()
        surface.depth_range = (c.curr_z_near, c.curr_z_far)
        n_lights = len(self.lights)
        self.lights = []  # point lights last one frame, as in GGUI; the ambient light stays
        bands = surface.bands(budget=60000 // (n_lights + 2))  # + the loop over lights
        if solid:
            depth = surface.depth_buffer()
            render3d.fill_depth(depth)
            for shade in (0, 1):
                for it in solid:
                    if isinstance(it, _Particles) and it.pos.shape[0]:
                        render3d.particles(surface.pixels, depth, it.pos, it.radius, it.color,
                                           cam, lights, n_lights, shade, bands)  # fmt: skip
                    elif isinstance(it, _Mesh) and it.tris.shape[0]:
                        nrm = np.ascontiguousarray(it.normals @ view[:3, :3].T, np.float32)
                        render3d.mesh(surface.pixels, depth, it.verts, nrm, it.color, it.tris,
                                      cam, lights, n_lights, int(it.two_sided), shade, bands)  # fmt: skip
        for it in lines:
            self._draw_lines(surface, it, cam)

    @staticmethod
    def _draw_lines(surface: Any, it: _Lines, cam: np.ndarray) -> None:
        from .surface import colors_u32

        if it.pairs.shape[0] == 0:
            return
        clip = np.c_[it.verts, np.ones(it.verts.shape[0])] @ cam[16:32].reshape(4, 4).T
        wpos = clip[:, 3]
        ok = wpos > 1e-6
        ndc = clip[:, :2] / np.where(ok, wpos, 1.0)[:, None]
        uv = ndc * 0.5 + 0.5
        keep = ok[it.pairs[:, 0]] & ok[it.pairs[:, 1]]
        pairs = it.pairs[keep]
        col0, col1 = colors_u32(it.color[pairs[:, 0]]), colors_u32(it.color[pairs[:, 1]])
        surface.lines(uv[pairs[:, 0]], uv[pairs[:, 1]], max(it.width / 2, 0.5), col0, col1)


__all__ = ["Camera", "ProjectionMode", "Scene", "make_camera"]
