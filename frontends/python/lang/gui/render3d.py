"""
The 3-D rasterizer of ti.ui's Scene: Taichi kernels of our own language that draw lit
particles (spheres) and meshes into a `Surface`'s canvas through a depth buffer, on the
program's arch.

Each drawable runs twice. The depth pass (shade=0) computes, for every pixel it covers,
the distance in front of the camera, quantized to an i32, and keeps the nearest with
`ti.atomic_min(depth[x, y], q)`; the shading pass (shade=1) recomputes the same
fragments and writes a colour only where its q is the one that won (within
DEPTH_SLACK). Parallel loops run over primitives; each visits its screen bounding box.

The camera comes as one f32 array `cam`:
    cam[0:16]   view matrix (world -> camera, row-major; the camera looks along -z)
    cam[16:32]  projection @ view (world -> clip)
    cam[32]     pixels per world unit at distance 1 (a sphere's screen radius is
                radius * cam[32] / distance; orthographic: cam[36] = 1 and it is
                radius * cam[32])
    cam[33]     depth quantization (q = distance * cam[33])
    cam[34]     z_near
    cam[35]     ambient light's r; cam[37], cam[38] its g, b
    cam[36]     1 for an orthographic camera
Lights: (L, 6) f32 rows of camera-space position and colour. Shading is GGUI's:
ambient * colour + sum over lights of max(n . l, 0) * colour * light (|n . l| for a
two-sided mesh), with per-pixel normals (interpolated across a triangle: Phong
shading).
"""

from __future__ import annotations

import taichi_xdsl as ti

from .raster import band_rows, canvas_t, f32_1, f32_2, pack

i32_2 = ti.types.ndarray(dtype=ti.i32, ndim=2)

DEPTH_FAR = 2**31 - 1
DEPTH_SLACK = 8
"""How far (in depth steps) a fragment's recomputed depth may be above the nearest and
still count as it: the shading pass recomputes the depth, and the compiler may round
it differently than in the depth pass (fast math); 8 steps are 2^-27 of z_far."""


@ti.kernel
def fill_depth(depth: i32_2):
    h = depth.shape[1]
    for x in range(depth.shape[0]):  # columns, as raster.image_f32
        for y in range(h):
            depth[x, y] = 2147483647


@ti.func
def xform(cam: ti.template(), base: ti.template(), x, y, z):
    """Row-major 4x4 matrix cam[base:base + 16] times (x, y, z, 1)."""
    out = ti.Vector([0.0, 0.0, 0.0, 0.0])
    for r in ti.static(range(4)):
        out[r] = (
            cam[base + 4 * r] * x
            + cam[base + 4 * r + 1] * y
            + cam[base + 4 * r + 2] * z
            + cam[base + 4 * r + 3]
        )
    return out


@ti.func
def lit(cam: ti.template(), lights: ti.template(), n_lights, pos, normal, albedo, two_sided):
    """GGUI's Lambertian shading of a camera-space point."""
    result = ti.Vector([cam[35], cam[37], cam[38]]) * albedo
    n = normal.normalized()
    for l in range(n_lights):
        ldir = (ti.Vector([lights[l, 0], lights[l, 1], lights[l, 2]]) - pos).normalized()
        factor = n.dot(ldir)
        if two_sided != 0:
            factor = ti.abs(factor)
        else:
            factor = ti.max(factor, 0.0)
        result += factor * albedo * ti.Vector([lights[l, 3], lights[l, 4], lights[l, 5]])
    return result


@ti.kernel
def particles(
    canvas: canvas_t,
    depth: i32_2,
    pos: f32_2,
    radius: f32_1,
    color: f32_2,
    cam: f32_1,
    lights: f32_2,
    n_lights: ti.i32,
    shade: ti.i32,
    bands: ti.template(),
):
    """Sphere k: centre pos[k], radius[k], colour color[k] (a shaded impostor)."""
    w = canvas.shape[0]
    h = canvas.shape[1]
    for k, band in ti.ndrange(pos.shape[0], bands):
        v = xform(cam, 0, pos[k, 0], pos[k, 1], pos[k, 2])
        c = xform(cam, 16, pos[k, 0], pos[k, 1], pos[k, 2])
        r = radius[k]
        if -v.z > cam[34] and c.w > 0.0:
            sx = (c.x / c.w * 0.5 + 0.5) * w
            sy = (c.y / c.w * 0.5 + 0.5) * h
            rp = r * cam[32]
            if cam[36] == 0.0:
                rp = rp / v.xyz.norm()
            x0 = ti.max(ti.cast(ti.floor(sx - rp), ti.i32), 0)
            x1 = ti.min(ti.cast(ti.ceil(sx + rp), ti.i32), w - 1)
            y0, y1 = band_rows(
                h,
                bands,
                band,
                ti.max(ti.cast(ti.floor(sy - rp), ti.i32), 0),
                ti.min(ti.cast(ti.ceil(sy + rp), ti.i32), h - 1),
            )
            for x in range(x0, x1 + 1):
                for y in range(y0, y1 + 1):
                    ux = (x + 0.5 - sx) / rp
                    uy = (y + 0.5 - sy) / rp
                    l2 = ux * ux + uy * uy
                    if l2 < 1.0:
                        zin = ti.sqrt(1.0 - l2)
                        q = ti.cast(-(v.z + zin * r) * cam[33], ti.i32)
                        if shade == 0:
                            ti.atomic_min(depth[x, y], q)
                        elif q <= depth[x, y] + DEPTH_SLACK:
                            nrm = ti.Vector([ux, uy, zin])
                            albedo = ti.Vector([color[k, 0], color[k, 1], color[k, 2]])
                            rgb = lit(cam, lights, n_lights, v.xyz + nrm * r, nrm, albedo, 0)
                            canvas[x, y] = pack(rgb.x, rgb.y, rgb.z)


@ti.kernel
def mesh(
    canvas: canvas_t,
    depth: i32_2,
    verts: f32_2,
    normals: f32_2,
    color: f32_2,
    tris: ti.types.ndarray(dtype=ti.i32, ndim=2),
    cam: f32_1,
    lights: f32_2,
    n_lights: ti.i32,
    two_sided: ti.i32,
    shade: ti.i32,
    bands: ti.template(),
):
    """Triangle t: vertices verts[tris[t, i]] with per-vertex normals and colours,
    interpolated perspective-correctly; triangles with a vertex behind the near plane
    are skipped (no clipping)."""
    w = canvas.shape[0]
    h = canvas.shape[1]
    for t, band in ti.ndrange(tris.shape[0], bands):
        i0 = tris[t, 0]
        i1 = tris[t, 1]
        i2 = tris[t, 2]
        v0 = xform(cam, 0, verts[i0, 0], verts[i0, 1], verts[i0, 2])
        v1 = xform(cam, 0, verts[i1, 0], verts[i1, 1], verts[i1, 2])
        v2 = xform(cam, 0, verts[i2, 0], verts[i2, 1], verts[i2, 2])
        c0 = xform(cam, 16, verts[i0, 0], verts[i0, 1], verts[i0, 2])
        c1 = xform(cam, 16, verts[i1, 0], verts[i1, 1], verts[i1, 2])
        c2 = xform(cam, 16, verts[i2, 0], verts[i2, 1], verts[i2, 2])
        near = cam[34]
        if -v0.z > near and -v1.z > near and -v2.z > near:
            ax = (c0.x / c0.w * 0.5 + 0.5) * w
            ay = (c0.y / c0.w * 0.5 + 0.5) * h
            bx = (c1.x / c1.w * 0.5 + 0.5) * w
            by = (c1.y / c1.w * 0.5 + 0.5) * h
            cx = (c2.x / c2.w * 0.5 + 0.5) * w
            cy = (c2.y / c2.w * 0.5 + 0.5) * h
            area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
            if area != 0.0:
                x0 = ti.max(ti.cast(ti.floor(ti.min(ax, ti.min(bx, cx))), ti.i32), 0)
                x1 = ti.min(ti.cast(ti.ceil(ti.max(ax, ti.max(bx, cx))), ti.i32), w - 1)
                y0, y1 = band_rows(
                    h,
                    bands,
                    band,
                    ti.max(ti.cast(ti.floor(ti.min(ay, ti.min(by, cy))), ti.i32), 0),
                    ti.min(ti.cast(ti.ceil(ti.max(ay, ti.max(by, cy))), ti.i32), h - 1),
                )
                iw0 = 1.0 / c0.w
                iw1 = 1.0 / c1.w
                iw2 = 1.0 / c2.w
                for x in range(x0, x1 + 1):
                    for y in range(y0, y1 + 1):
                        px = x + 0.5
                        py = y + 0.5
                        b0 = ((bx - px) * (cy - py) - (by - py) * (cx - px)) / area
                        b1 = ((cx - px) * (ay - py) - (cy - py) * (ax - px)) / area
                        b2 = 1.0 - b0 - b1
                        # inclusive edges, with rounding slack: a pixel centre on the
                        # edge two triangles share belongs to both, never to neither
                        if b0 >= -1e-5 and b1 >= -1e-5 and b2 >= -1e-5:
                            # perspective-correct weights
                            p0 = b0 * iw0
                            p1 = b1 * iw1
                            p2 = b2 * iw2
                            s = 1.0 / (p0 + p1 + p2)
                            p0 *= s
                            p1 *= s
                            p2 *= s
                            pos = p0 * v0.xyz + p1 * v1.xyz + p2 * v2.xyz
                            q = ti.cast(-pos.z * cam[33], ti.i32)
                            if shade == 0:
                                ti.atomic_min(depth[x, y], q)
                            elif q <= depth[x, y] + DEPTH_SLACK:
                                n0 = ti.Vector([normals[i0, 0], normals[i0, 1], normals[i0, 2]])
                                n1 = ti.Vector([normals[i1, 0], normals[i1, 1], normals[i1, 2]])
                                n2 = ti.Vector([normals[i2, 0], normals[i2, 1], normals[i2, 2]])
                                k0 = ti.Vector([color[i0, 0], color[i0, 1], color[i0, 2]])
                                k1 = ti.Vector([color[i1, 0], color[i1, 1], color[i1, 2]])
                                k2 = ti.Vector([color[i2, 0], color[i2, 1], color[i2, 2]])
                                nrm = p0 * n0 + p1 * n1 + p2 * n2
                                albedo = p0 * k0 + p1 * k1 + p2 * k2
                                rgb = lit(cam, lights, n_lights, pos, nrm, albedo, two_sided)
                                canvas[x, y] = pack(rgb.x, rgb.y, rgb.z)
