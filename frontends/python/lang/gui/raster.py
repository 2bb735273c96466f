"""
The 2-D rasterizer of ti.GUI and ti.ui's canvas: Taichi kernels of our own language
that draw into a canvas, a `ti.ndarray(ti.u32, (width, height))` of packed 0xRRGGBB
pixels indexed `[x, y]` with y pointing up (Taichi's image convention). The canvas lives
on the program's arch (a device buffer on Vulkan), so every primitive below runs where
the user's kernels run; the window only receives the finished frame.

Each primitive is one kernel launch per batch, parallel over primitives; a primitive
visits only the pixels near it (a circle its bounding box, a line a band along its
major axis), so the cost follows what is drawn, not the canvas size:

    circles(canvas, pos, radius, color)          # pos: (n, 2) in [0, 1]
    lines(canvas, begin, end, radius, color)     # radius: half the width, in pixels
    triangles(canvas, a, b, c, color)
    glyphs(canvas, font, codes, x, y, scale, color)
    image_f32 / image_u8(canvas, src)            # src: (w, h, channels)
    image_words(canvas, words, channels, bytes, h, whole)  # packed in u64 words (Vulkan)
    rows_top_first(canvas, rows)                 # rows: (h, w), for a window

Overlapping primitives of one batch may land in any order (they run in parallel);
batches land in call order.

`bands` splits each primitive's rows among that many threads (loop `for k, band in
ti.ndrange(n, bands)`; band b takes canvas rows [b * rows, (b + 1) * rows)). The CPU
passes 1. Vulkan passes enough bands that no thread loops more than ~32k times when a
primitive is larger than that (Surface.bands), else 1: Mesa's lavapipe stops any shader
loop after 65,535 iterations, which would leave a large triangle half drawn.

Columns: a kernel over the whole canvas runs in parallel over its columns x, each
thread walking the column's rows y (contiguous in memory) in a serial inner loop. A
2-D `ti.ndrange` would split one linear index into (x, y) with an integer division and
a remainder per pixel, which costs more than the pixel's own work (a clear: 20 times).
"""

from __future__ import annotations

import math

import taichi_xdsl as ti

canvas_t = ti.types.ndarray(dtype=ti.u32, ndim=2)
f32_1 = ti.types.ndarray(dtype=ti.f32, ndim=1)
f32_2 = ti.types.ndarray(dtype=ti.f32, ndim=2)
f32_3 = ti.types.ndarray(dtype=ti.f32, ndim=3)
u8_2 = ti.types.ndarray(dtype=ti.u8, ndim=2)
u8_3 = ti.types.ndarray(dtype=ti.u8, ndim=3)
u32_1 = ti.types.ndarray(dtype=ti.u32, ndim=1)
u64_1 = ti.types.ndarray(dtype=ti.u64, ndim=1)
i32_1 = ti.types.ndarray(dtype=ti.i32, ndim=1)


@ti.func
def pack(r: ti.f32, g: ti.f32, b: ti.f32) -> ti.u32:
    """0xRRGGBB of a colour in [0, 1] (each channel clamped, then truncated as Taichi)."""
    ri = ti.cast(ti.min(ti.max(r, 0.0), 1.0) * 255.0, ti.u32)
    gi = ti.cast(ti.min(ti.max(g, 0.0), 1.0) * 255.0, ti.u32)
    bi = ti.cast(ti.min(ti.max(b, 0.0), 1.0) * 255.0, ti.u32)
    return (ri << 16) | (gi << 8) | bi


@ti.func
def blend(old: ti.u32, color: ti.u32, a: ti.f32) -> ti.u32:
    """old * (1 - a) + color * a, per 8-bit channel (edge pixels of a shape)."""
    out = color
    if a < 1.0:
        out = ti.u32(0)
        for s in ti.static(range(3)):
            shift = ti.static(8 * s)
            o = ti.cast((old >> shift) & 0xFF, ti.f32)
            c = ti.cast((color >> shift) & 0xFF, ti.f32)
            out |= ti.cast(o + (c - o) * a + 0.5, ti.u32) << shift
    return out


@ti.func
def mix3(ca: ti.u32, cb: ti.u32, cc: ti.u32, wa: ti.f32, wb: ti.f32, wc: ti.f32) -> ti.u32:
    """wa * ca + wb * cb + wc * cc per 8-bit channel (weights summing to 1)."""
    out = ca
    if ca != cb or ca != cc:
        out = ti.u32(0)
        for s in ti.static(range(3)):
            shift = ti.static(8 * s)
            v = (
                wa * ti.cast((ca >> shift) & 0xFF, ti.f32)
                + wb * ti.cast((cb >> shift) & 0xFF, ti.f32)
                + wc * ti.cast((cc >> shift) & 0xFF, ti.f32)
            )
            out |= ti.cast(ti.min(ti.max(v + 0.5, 0.0), 255.0), ti.u32) << shift
    return out


ROW_TILE = 16
"""Columns per thread of `rows_top_first` (one 64-byte cache line of a row)."""


@ti.kernel
def rows_top_first(canvas: canvas_t, rows: canvas_t):
    """rows[h - 1 - y, x] = canvas[x, y]: the picture row by row, top row first (the
    layout of a window's framebuffer). Each thread copies ROW_TILE adjacent columns, so
    it reads ROW_TILE sequential streams and writes ROW_TILE-pixel runs of a row: a
    transpose that stays within the cache (2.5 times faster than a column at a time)."""
    w = canvas.shape[0]
    h = canvas.shape[1]
    for tile in range((w + ROW_TILE - 1) // ROW_TILE):
        for y in range(h):
            for dx in ti.static(range(ROW_TILE)):
                x = tile * ROW_TILE + dx
                if x < w:
                    rows[h - 1 - y, x] = canvas[x, y]


@ti.func
def band_rows(h, bands, band, y0, y1):
    """The part [lo, hi] of the rows y0..y1 that lies in band `band` of `bands`."""
    rows = (h + bands - 1) // bands
    return ti.max(y0, band * rows), ti.min(y1, band * rows + rows - 1)


@ti.kernel
def image_f32(canvas: canvas_t, src: f32_3):
    """src[x, y, c]: grey (1 channel), RG (2), RGB (3) or RGBA (4, alpha unused)."""
    channels = src.shape[2]
    h = canvas.shape[1]
    for x in range(canvas.shape[0]):
        for y in range(h):
            r = src[x, y, 0]
            g = r
            b = r
            if channels >= 2:
                g = src[x, y, 1]
                b = 0.0
            if channels >= 3:
                b = src[x, y, 2]
            canvas[x, y] = pack(r, g, b)


@ti.kernel
def image_u8(canvas: canvas_t, src: u8_3):
    channels = src.shape[2]
    h = canvas.shape[1]
    for x in range(canvas.shape[0]):
        for y in range(h):
            r = ti.cast(src[x, y, 0], ti.u32)
            g = r
            b = r
            if channels >= 2:
                g = ti.cast(src[x, y, 1], ti.u32)
                b = ti.u32(0)
            if channels >= 3:
                b = ti.cast(src[x, y, 2], ti.u32)
            canvas[x, y] = (r << 16) | (g << 8) | b


@ti.func
def word_element(v: ti.template(), e: ti.template(), size: ti.template()) -> ti.u32:
    """Element e (of `size` bytes, 1 or 4) of the little-endian u64 words `v`."""
    return ti.cast(v[ti.static(e * size // 8)] >> ti.static(e * size % 8 * 8), ti.u32)


@ti.func
def put_words_pixel(
    canvas: ti.template(), v: ti.template(), e: ti.template(), p, h: ti.template(),
    channels: ti.template(), size: ti.template(),
):
    """canvas pixel p (= x * h + y) from the elements e, e + 1, ... of the words v."""
    if ti.static(size == 4):
        r = ti.bit_cast(word_element(v, e, 4), ti.f32)
        gr = r
        b = r
        if ti.static(channels >= 2):
            gr = ti.bit_cast(word_element(v, e + 1, 4), ti.f32)
            b = 0.0
        if ti.static(channels >= 3):
            b = ti.bit_cast(word_element(v, e + 2, 4), ti.f32)
        canvas[p // h, p % h] = pack(r, gr, b)
    else:
        r = word_element(v, e, 1) & 0xFF
        gr = r
        b = r
        if ti.static(channels >= 2):
            gr = word_element(v, e + 1, 1) & 0xFF
            b = ti.u32(0)
        if ti.static(channels >= 3):
            b = word_element(v, e + 2, 1) & 0xFF
        canvas[p // h, p % h] = (r << 16) | (gr << 8) | b


def words_group(channels: int, size: int) -> int:
    """Pixels per thread of image_words: the fewest that fill whole u64 words."""
    return 8 // math.gcd(8, channels * size)


@ti.kernel
def image_words(
    canvas: canvas_t,
    src: u64_1,
    channels: ti.template(),
    size: ti.template(),
    h: ti.template(),
    whole: ti.template(),
):
    """image_f32 (size 4) or image_u8 (size 1) of an image whose elements (x, y, c),
    row-major, are packed into u64 words: each thread converts the `group` pixels that
    fill a whole number of words (2 RGB f32 pixels: 3 words; 8 RGB u8 pixels: 3 words),
    pixel p = x * h + y at canvas[p // h, p % h] (h: the canvas height, a constant).
    `whole`: the pixel count is a multiple of the group (no thread passes the end).

    For Vulkan on a CPU (lavapipe): a load there costs a loop over the SIMD lanes, the
    same for 8 bytes as for 1 (a 512x512 RGB f32 image: 15.8 ms of CPU as f32 loads,
    9.5 ms as words; RGB u8: 14.6 ms, 5.6 ms); adjacent threads take adjacent pixels."""
    group = ti.static(words_group(channels, size))
    words = ti.static(group * channels * size // 8)
    n = canvas.shape[0] * h
    for k in range((n + group - 1) // group):
        v = ti.Vector([src[k * words + i] for i in ti.static(range(words))])
        for g in ti.static(range(group)):
            p = k * group + g
            if ti.static(whole):
                put_words_pixel(canvas, v, g * channels, p, h, channels, size)
            elif p < n:
                put_words_pixel(canvas, v, g * channels, p, h, channels, size)


EDGE_MARGIN = 0.01
"""Pixels past a disc's radius by less than this are visited too (and then tested):
more than the rounding of `x - cx` in f32 on canvases up to 16k pixels wide."""


@ti.kernel
def circles(
    canvas: canvas_t, pos: f32_2, radius: f32_1, color: u32_1, bands: ti.template()
):
    """Disc k: centre pos[k] * (width, height), radius[k] pixels, colour color[k].

    A pixel (x, y) at distance d from the centre is covered by min(max(r - d, 0), 1)
    (Taichi's anti-aliased edge, with pixel x at coordinate x, as Taichi's GUI)."""
    w = canvas.shape[0]
    h = canvas.shape[1]
    for k, band in ti.ndrange(pos.shape[0], bands):
        cx = pos[k, 0] * w
        cy = pos[k, 1] * h
        r = radius[k]
        c = color[k]
        # the pixels within r of the centre (a margin for rounding): 3 x 3 at r = 1.5
        reach = r + EDGE_MARGIN
        x0 = ti.max(ti.cast(ti.ceil(cx - reach), ti.i32), 0)
        x1 = ti.min(ti.cast(ti.floor(cx + reach), ti.i32), w - 1)
        y0, y1 = band_rows(
            h,
            bands,
            band,
            ti.max(ti.cast(ti.ceil(cy - reach), ti.i32), 0),
            ti.min(ti.cast(ti.floor(cy + reach), ti.i32), h - 1),
        )
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                dx = x - cx
                dy = y - cy
                d2 = dx * dx + dy * dy
                if d2 < r * r:
                    # one load and one store whatever the coverage (blend gives c
                    # where it is 1): lavapipe runs both sides of an `if`
                    canvas[x, y] = blend(canvas[x, y], c, r - ti.sqrt(d2))


@ti.kernel
def lines(
    canvas: canvas_t,
    begin: f32_2,
    end: f32_2,
    radius: f32_1,
    color: u32_1,
    color_end: u32_1,
    bands: ti.template(),
):
    """Segment k with round caps, `radius` wide: a pixel whose centre lies at d from
    the segment is covered by min(max(r - d, 0), 1), as in Taichi's GUI. Its colour
    goes from color[k] at begin to color_end[k] at end (GGUI's per-vertex colours).

    Walks the segment's major axis u and, at each u, the band of the minor axis v
    around the segment (|v - v(u)| <= 2r + 1 covers the caps), testing the exact
    distance: O(length * width) pixels per segment.
    """
    w = canvas.shape[0]
    h = canvas.shape[1]
    for k, band in ti.ndrange(begin.shape[0], bands):
        ax = begin[k, 0] * w
        ay = begin[k, 1] * h
        bx = end[k, 0] * w
        by = end[k, 1] * h
        r = radius[k]
        c0 = color[k]
        c1 = color_end[k]
        # (u, v) = (x, y) when the segment is wider than tall, else (y, x)
        swap = ti.abs(by - ay) > ti.abs(bx - ax)
        au = ax
        av = ay
        bu = bx
        bv = by
        wu = w
        wv = h
        if swap:
            au = ay
            av = ax
            bu = by
            bv = bx
            wu = h
            wv = w
        du = bu - au
        dv = bv - av
        len2 = du * du + dv * dv
        u0 = ti.max(ti.cast(ti.floor(ti.min(au, bu) - r), ti.i32), 0)
        u1 = ti.min(ti.cast(ti.ceil(ti.max(au, bu) + r), ti.i32), wu - 1)
        if swap:  # u is y: keep this band's rows
            u0, u1 = band_rows(h, bands, band, u0, u1)
        for u in range(u0, u1 + 1):
            pu = u + 0.5
            t = 0.0
            if du != 0.0:
                t = ti.min(ti.max((pu - au) / du, 0.0), 1.0)
            vc = av + t * dv
            v0 = ti.max(ti.cast(ti.floor(vc - 2.0 * r - 1.0), ti.i32), 0)
            v1 = ti.min(ti.cast(ti.ceil(vc + 2.0 * r + 1.0), ti.i32), wv - 1)
            if not swap:  # v is y
                v0, v1 = band_rows(h, bands, band, v0, v1)
            for v in range(v0, v1 + 1):
                qu = pu - au
                qv = v + 0.5 - av
                s = 0.0
                if len2 > 0.0:
                    s = ti.min(ti.max((qu * du + qv * dv) / len2, 0.0), 1.0)
                eu = qu - s * du
                ev = qv - s * dv
                d2 = eu * eu + ev * ev
                if d2 < r * r:
                    c = mix3(c0, c1, c0, 1.0 - s, s, 0.0)
                    x = u
                    y = v
                    if swap:
                        x = v
                        y = u
                    # one load and one store whatever the coverage (blend gives c
                    # where it is 1): lavapipe runs both sides of an `if`
                    canvas[x, y] = blend(canvas[x, y], c, r - ti.sqrt(d2))


@ti.kernel
def triangles(
    canvas: canvas_t,
    a: f32_2,
    b: f32_2,
    c: f32_2,
    color_a: u32_1,
    color_b: u32_1,
    color_c: u32_1,
    bands: ti.template(),
):
    """Filled triangle k: the pixels whose centre lies inside it (either winding),
    its corners' colours interpolated (GGUI's per-vertex colours)."""
    w = canvas.shape[0]
    h = canvas.shape[1]
    for k, band in ti.ndrange(a.shape[0], bands):
        ax = a[k, 0] * w
        ay = a[k, 1] * h
        bx = b[k, 0] * w
        by = b[k, 1] * h
        cx = c[k, 0] * w
        cy = c[k, 1] * h
        ka = color_a[k]
        kb = color_b[k]
        kc = color_c[k]
        area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        if area != 0.0:
            sign = 1.0
            if area < 0.0:
                sign = -1.0
            slack = -1e-5 * ti.abs(area)  # a centre on a shared edge: both triangles
            x0 = ti.max(ti.cast(ti.floor(ti.min(ax, ti.min(bx, cx))), ti.i32), 0)
            x1 = ti.min(ti.cast(ti.ceil(ti.max(ax, ti.max(bx, cx))), ti.i32), w - 1)
            y0, y1 = band_rows(
                h,
                bands,
                band,
                ti.max(ti.cast(ti.floor(ti.min(ay, ti.min(by, cy))), ti.i32), 0),
                ti.min(ti.cast(ti.ceil(ti.max(ay, ti.max(by, cy))), ti.i32), h - 1),
            )
            for x in range(x0, x1 + 1):
                for y in range(y0, y1 + 1):
                    px = x + 0.5
                    py = y + 0.5
                    e0 = ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) * sign
                    e1 = ((cx - bx) * (py - by) - (cy - by) * (px - bx)) * sign
                    e2 = ((ax - cx) * (py - cy) - (ay - cy) * (px - cx)) * sign
                    if e0 >= slack and e1 >= slack and e2 >= slack:
                        # e1, e2, e0 are twice the areas opposite a, b, c
                        total = e0 + e1 + e2
                        canvas[x, y] = mix3(ka, kb, kc, e1 / total, e2 / total, e0 / total)


@ti.kernel
def coverage(canvas: canvas_t, mask: f32_2, left: ti.i32, top: ti.i32, color: ti.u32):
    """`color` blended into the canvas by mask[i, j] (coverage in [0, 1], indexed [x, y]
    with y up: text), the mask's left column at canvas column `left`, its top row at
    canvas row `top`."""
    w = canvas.shape[0]
    h = canvas.shape[1]
    mh = mask.shape[1]
    for i, j in ti.ndrange(mask.shape[0], mh):
        x = left + i
        y = top - (mh - 1) + j
        a = mask[i, j]
        if a > 0.0 and 0 <= x < w and 0 <= y < h:
            canvas[x, y] = blend(canvas[x, y], color, a)
