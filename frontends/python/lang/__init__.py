"""
What Taichi users hold and call: `ti.init` and the program state, fields, ndarrays,
matrices and structs, textures, types and dtypes, `@ti.kernel` / `@ti.func`, the `ti.*`
intrinsics and `ti.math`, autodiff, AOT modules and graphs. Kernels are compiled by
the code generator in `..codegen`, loaded on the first kernel compilation.
"""
