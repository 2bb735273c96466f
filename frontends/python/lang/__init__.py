"""
What Taichi users hold and call: `ti.init` and the program state, dtypes and `ti.types`,
fields, ndarrays, matrices and structs, textures, `@ti.kernel` / `@ti.func`, the `ti.*`
intrinsics and `ti.math`, autodiff, AOT modules and graphs. No module here imports the
code generator (`..codegen`) at import time; a kernel's first compilation loads it.
"""
