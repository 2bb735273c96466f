"""
taichi-xdsl: Taichi's Python kernel language compiled through xDSL dialects.

    import taichi_xdsl as ti
    ti.init(arch=ti.cpu)

Importing the package is cheap: the compiler (xDSL, the passes) and the runtimes load on
the first kernel compilation.
"""

__version__ = "0.1.0"
