"""
ti.GUI (gui2d.py), ti.ui (ui.py, scene.py) and their rasterizers (raster.py: 2-D,
render3d.py: 3-D), written as Taichi kernels of our own language; display.py opens a
pygame-ce window where a display exists. Nothing here is imported by
`import taichi_xdsl`: `ti.GUI` / `ti.ui` load it on first use.
"""
