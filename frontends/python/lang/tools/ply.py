"""
`ti.tools.PLYWriter`: point clouds and meshes as PLY files (ASCII or binary, written
by us). Channels are named columns of per-vertex or per-face data; a multi-column
channel `key` becomes `key_1`, `key_2`, ...

    writer = ti.tools.PLYWriter(num_vertices=n, num_faces=m, face_type="tri")
    writer.add_vertex_pos(x, y, z)
    writer.add_vertex_color(r, g, b)
    writer.add_faces(indices)
    writer.export_frame(frame, "out.ply")      # out_000042.ply (binary)
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

PLY_TYPES = {
    "char": np.int8,
    "uchar": np.uint8,
    "short": np.int16,
    "ushort": np.uint16,
    "int": np.int32,
    "uint": np.uint32,
    "float": np.float32,
    "double": np.float64,
}


class _Channels:
    """Named columns of one PLY element (vertex or face)."""

    def __init__(self, what: str, count: int):
        self.what, self.count = what, count
        self.names: list[str] = []
        self.types: list[str] = []
        self.data: list[np.ndarray] = []

    def add(self, key: str, data_type: str, data: Any) -> None:
        if data_type not in PLY_TYPES:
            raise ValueError(f"PLYWriter: unknown type {data_type!r}; one of {list(PLY_TYPES)}")
        a = np.asarray(data)
        if a.size % max(self.count, 1) or (a.ndim == 1 and a.size != self.count):
            raise ValueError(
                f"PLYWriter: {self.what} channel {key!r} has {a.size} values for "
                f"{self.count} {self.what}s"
            )
        if a.ndim == 1:
            columns = [(key, a)]
        else:
            a = a.reshape(self.count, -1)
            columns = [(f"{key}_{i + 1}", a[:, i]) for i in range(a.shape[1])]
        for name, col in columns:
            if name in self.names:
                raise ValueError(f"PLYWriter: duplicate {self.what} channel {name!r}")
            self.names.append(name)
            self.types.append(data_type)
            self.data.append(col.astype(PLY_TYPES[data_type]))


class PLYWriter:
    """A PLY file of num_vertices vertices and num_faces faces ('tri' or 'quad')."""

    def __init__(
        self,
        num_vertices: int,
        num_faces: int = 0,
        face_type: str = "tri",
        comment: str = "created by PLYWriter",
    ):
        if num_vertices <= 0:
            raise ValueError("PLYWriter: num_vertices should be greater than 0")
        if num_faces < 0:
            raise ValueError("PLYWriter: num_faces shouldn't be less than 0")
        if face_type not in ("tri", "quad"):
            raise ValueError("PLYWriter: face_type is 'tri' or 'quad'")
        self.num_vertices = num_vertices
        self.num_faces = num_faces
        self.face_type = face_type
        self.vert_per_face = 3 if face_type == "tri" else 4
        self.comment = comment
        self.vertices = _Channels("vertex", num_vertices)
        self.faces = _Channels("face", num_faces)
        self.face_indices = -np.ones((num_faces, self.vert_per_face), np.int32)

    # -- vertex channels ----------------------------------------------------------
    def add_vertex_channel(self, key: str, data_type: str, data: Any) -> None:
        self.vertices.add(key, data_type, data)

    def add_vertex_pos(self, x: Any, y: Any, z: Any) -> None:
        for key, v in zip("xyz", (x, y, z)):
            self.add_vertex_channel(key, "float", v)

    def add_vertex_normal(self, nx: Any, ny: Any, nz: Any) -> None:
        for key, v in zip(("nx", "ny", "nz"), (nx, ny, nz)):
            self.add_vertex_channel(key, "float", v)

    def add_vertex_vel(self, vx: Any, vy: Any, vz: Any) -> None:
        for key, v in zip(("vx", "vy", "vz"), (vx, vy, vz)):
            self.add_vertex_channel(key, "float", v)

    def add_vertex_color(self, r: Any, g: Any, b: Any) -> None:
        for key, v in zip(("red", "green", "blue"), (r, g, b)):
            self.add_vertex_channel(key, "float", v)

    def add_vertex_alpha(self, alpha: Any) -> None:
        self.add_vertex_channel("Alpha", "float", alpha)

    def add_vertex_rgba(self, r: Any, g: Any, b: Any, a: Any) -> None:
        self.add_vertex_color(r, g, b)
        self.add_vertex_alpha(a)

    def add_vertex_id(self) -> None:
        self.add_vertex_channel("id", "int", np.arange(self.num_vertices))

    def add_vertex_piece(self, piece: Any) -> None:
        self.add_vertex_channel("piece", "int", piece)

    # -- faces ------------------------------------------------------------------
    def add_faces(self, indices: Any) -> None:
        a = np.asarray(indices)
        if a.size != self.vert_per_face * self.num_faces:
            raise ValueError("PLYWriter: the dimension of the face vertices is not correct")
        self.face_indices = a.reshape(self.num_faces, self.vert_per_face).astype(np.int32)

    def add_face_channel(self, key: str, data_type: str, data: Any) -> None:
        self.faces.add(key, data_type, data)

    def add_face_id(self) -> None:
        self.add_face_channel("id", "int", np.arange(self.num_faces))

    def add_face_piece(self, piece: Any) -> None:
        self.add_face_channel("piece", "int", piece)

    # -- output -----------------------------------------------------------------
    def sanity_check(self) -> None:
        for key in "xyz":
            if key not in self.vertices.names:
                raise ValueError(f"PLYWriter: the vertex position channel {key!r} is missing")
        if self.num_faces and (
            self.face_indices.min() < 0 or self.face_indices.max() >= self.num_vertices
        ):
            raise ValueError("PLYWriter: the face indices are invalid")

    def _header(self, fmt: str) -> str:
        lines = ["ply", f"format {fmt} 1.0", f"comment {self.comment}"]
        lines.append(f"element vertex {self.num_vertices}")
        lines += [f"property {t} {n}" for t, n in zip(self.vertices.types, self.vertices.names)]
        if self.num_faces:
            lines.append(f"element face {self.num_faces}")
            lines.append("property list uchar int vertex_indices")
            lines += [f"property {t} {n}" for t, n in zip(self.faces.types, self.faces.names)]
        lines.append("end_header")
        return "\n".join(lines) + "\n"

    @staticmethod
    def _records(columns: list[tuple[str, np.ndarray]], count: int, order: str) -> bytes:
        dtype = np.dtype([(f"f{i}", a.dtype.newbyteorder(order)) for i, (_, a) in enumerate(columns)])
        rec = np.empty(count, dtype)
        for i, (_, a) in enumerate(columns):
            rec[f"f{i}"] = a
        return rec.tobytes()

    def export(self, path: str) -> None:
        """Write a binary PLY (the machine's byte order)."""
        self.sanity_check()
        order = "<" if sys.byteorder == "little" else ">"
        with open(path, "wb") as f:
            f.write(self._header(f"binary_{sys.byteorder}_endian").encode())
            f.write(
                self._records(
                    list(zip(self.vertices.names, self.vertices.data)), self.num_vertices, order
                )
            )
            if self.num_faces:
                cols = [("n", np.full(self.num_faces, self.vert_per_face, np.uint8))]
                cols += [(f"i{j}", self.face_indices[:, j]) for j in range(self.vert_per_face)]
                cols += list(zip(self.faces.names, self.faces.data))
                f.write(self._records(cols, self.num_faces, order))

    def export_ascii(self, path: str) -> None:
        """Write an ASCII PLY."""
        self.sanity_check()
        with open(path, "w") as f:
            f.write(self._header("ascii"))
            for i in range(self.num_vertices):
                f.write(" ".join(str(col[i]) for col in self.vertices.data) + "\n")
            for i in range(self.num_faces):
                items = [str(self.vert_per_face)] + [str(v) for v in self.face_indices[i]]
                items += [str(col[i]) for col in self.faces.data]
                f.write(" ".join(items) + "\n")

    @staticmethod
    def _frame_path(series_num: int, path: str) -> str:
        stem = path[:-4] if path.endswith(".ply") else path
        return f"{stem}_{series_num:06d}.ply"

    def export_frame(self, series_num: int, path: str) -> None:
        self.export(self._frame_path(series_num, path))

    def export_frame_ascii(self, series_num: int, path: str) -> None:
        self.export_ascii(self._frame_path(series_num, path))


__all__ = ["PLYWriter"]
